/**
 * The parts of "SimLens: Run Simulation…" and `createLlmServicesFromWorkspace` that build a run's
 * environment and LLM services, without `vscode` (unit tests call them exactly as the extension does). Cancel is the CLI's Ctrl-C: one `RunStop`
 * (src/core/run/stop.ts) whose first stage stops scheduling and every retry (LLM calls built here
 * and by the core) and whose second cancels requests in flight.
 */
import {
  prepareEnvironment,
  type SimulationConfig,
  type SimulationEnvironment,
  type SimulatorProcessOptions,
} from '../core/run/config';
import type { RunStop } from '../core/run/stop';
import { isLlmAgentName, isLlmUserName } from '../core/run/llm';
import { LlmServices } from '../core/llm/services';
import { resolveLlmSettings, type LlmSettingsInput } from '../core/llm/config';

interface RunEnvironmentOptions {
  /** External simulators: working directory, environment, stderr. */
  simulator?: SimulatorProcessOptions;
  /** Builds LLM services with the given signals (the extension: settings and the SecretStorage key). */
  llmServices?: (signals: { signal: AbortSignal; stopRetries: AbortSignal }) => Promise<LlmServices>;
}

/** True when the run's user or recommender calls an LLM. */
function runNeedsLlm(config: SimulationConfig): boolean {
  return isLlmUserName(config.user) || isLlmAgentName(config.agent);
}

/** The environment of a run stopped by `stop`: LLM services, HTTP recommender and external simulator all get its signals. */
export async function prepareRunEnvironment(
  config: SimulationConfig,
  cwd: string,
  stop: RunStop,
  opts: RunEnvironmentOptions = {},
): Promise<SimulationEnvironment> {
  const llm = runNeedsLlm(config) && opts.llmServices ? await opts.llmServices(stop.llmSignals()) : undefined;
  return prepareEnvironment(config, cwd, { ...stop.environmentOptions(), llm, simulator: opts.simulator });
}

/**
 * LLM services from the workspace's settings (`simlens.llm.*`, read by the caller) and the stored
 * key, with a run's signals (`RunStop.llmSignals()`): `signal` cancels requests in flight,
 * `stopRetries` (Cancel) ends every retry and every wait before one at once.
 */
export function workspaceLlmServices(
  input: LlmSettingsInput,
  apiKey: string | undefined,
  signals: { signal?: AbortSignal; stopRetries?: AbortSignal } = {},
): Promise<LlmServices> {
  const settings = resolveLlmSettings(input, 'settings simlens.llm');
  return LlmServices.create({ settings, apiKey, signal: signals.signal, stopRetries: signals.stopRetries });
}
