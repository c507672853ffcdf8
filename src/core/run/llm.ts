/**
 * The hook between simulation runs and the LLM layer (src/core/llm) and LLM simulators (src/core/sim): which user and agent names
 * are LLM-backed, the `llm` block of a run configuration (recorded in the manifest; never a key),
 * and building the LLM user/agent and services for a run.
 *
 * Names: users `llm-prompted`, `llm-icl`, `llm-sft`, `llm-target-free`; agents `llm-good`, `llm-bad`.
 */
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import * as z from 'zod';
import type { Catalog } from '../catalog/item';
import { importFile } from '../importers/index';
import type { Agent, UserSimulator } from '../sim/types';
import { createLlmAgent } from '../sim/recommenders/llm';
import { apiKeyFromEnv, resolveLlmSettings, type LlmSettingsInput } from '../llm/config';
import { LlmError, isConversationLlmFailure } from '../llm/errors';
import { LlmServices } from '../llm/services';
import { createIclUser } from '../sim/users/llm/icl';
import { createPromptedUser, createSftUser } from '../sim/users/llm/prompted';
import { createTargetFreeUser, type PepperProfile } from '../sim/users/llm/targetFree';

export const LLM_USER_NAMES = ['llm-prompted', 'llm-icl', 'llm-sft', 'llm-target-free'] as const;
const LLM_AGENT_NAMES = ['llm-good', 'llm-bad'] as const;

export function isLlmUserName(name: string): boolean {
  return (LLM_USER_NAMES as readonly string[]).includes(name);
}

export function isLlmAgentName(name: string): boolean {
  return (LLM_AGENT_NAMES as readonly string[]).includes(name);
}

/** The `llm` block of a simulation configuration. */
export const LlmRunConfigSchema = z.object({
  /** Endpoint settings per role (LlmSettingsInput: defaults, roles, budget, cacheDir, promptsDir). No API key. */
  settings: z.record(z.string(), z.unknown()).optional(),
  /** Conversations the ICL user retrieves examples from (any importable format). */
  icl_pool: z.string().optional(),
  /** Keep only pool conversations of this condition (e.g. "good" for counterfactual runs). */
  icl_condition: z.string().optional(),
  icl_k: z.number().int().positive().optional(),
  icl_retriever: z.enum(['bm25', 'embeddings']).optional(),
  /** JSONL of target-free profiles {user_id, seen: [{item_id, title, rating, review}], targets}. */
  profiles: z.string().optional(),
  /** Extra attempts after an unusable model reply (default 2). */
  max_repairs: z.number().int().min(0).optional(),
});
type LlmRunConfig = z.infer<typeof LlmRunConfigSchema>;

interface LlmRunContext {
  catalog: Catalog;
  /** Resolves relative paths of the configuration. */
  cwd: string;
  maxTurns: number;
  /** Probability that an LLM user's leave before any item is honoured (the run's `early_quit`; default 0). */
  earlyQuit?: number;
  /** Prebuilt services (the extension passes its own, with the SecretStorage key). */
  services?: LlmServices;
  /** Where the key is read from when no services are given (default process.env). */
  env?: NodeJS.ProcessEnv;
  /**
   * The run's HARD abort (a second Ctrl-C): given to the LLM services, it cancels requests in
   * flight. Never the "stop scheduling" signal: conversations in flight must then finish.
   */
  signal?: AbortSignal;
  /** The run's "stop scheduling" signal (first Ctrl-C, SIGTERM, VS Code's Cancel): no new retry once aborted. */
  stopRetries?: AbortSignal;
}

interface LlmRunParts {
  services: LlmServices;
  user?: UserSimulator;
  agent?: Agent;
  /** Input files for the manifest (path, sha256, counts). */
  inputs: Record<string, { path: string; sha256?: string; [key: string]: unknown }>;
}

function sha256File(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** Reads target-free profiles (one JSON object per line); errors name file and line. */
function loadProfiles(path: string): PepperProfile[] {
  const out: PepperProfile[] = [];
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (!line.trim()) return;
      let v: unknown;
      try {
        v = JSON.parse(line);
      } catch (e) {
        throw new Error(`${path}:${i + 1}: invalid JSON (${(e as Error).message})`);
      }
      const p = v as Partial<PepperProfile>;
      if (!p || typeof p.user_id !== 'string') throw new Error(`${path}:${i + 1}: field "user_id" must be a string`);
      if (!Array.isArray(p.seen) || p.seen.length === 0)
        throw new Error(`${path}:${i + 1}: field "seen" must be a non-empty array of items`);
      p.seen.forEach((s, j) => {
        if (!s || typeof s.item_id !== 'string' || typeof s.title !== 'string')
          throw new Error(`${path}:${i + 1}: seen[${j}] needs string "item_id" and "title"`);
      });
      out.push(p as PepperProfile);
    });
  if (out.length === 0) throw new Error(`${path}: no profiles`);
  return out;
}

/**
 * Services for a run from its `llm` block (key from the environment; requests in flight cancelled
 * only by the hard abort `ctx.signal`, retries stopped by `ctx.stopRetries`) unless prebuilt ones are given.
 */
async function llmServicesForRun(config: LlmRunConfig | undefined, ctx: LlmRunContext): Promise<LlmServices> {
  if (ctx.services) return ctx.services;
  const settings = resolveLlmSettings((config?.settings ?? {}) as LlmSettingsInput, 'simulation config llm.settings');
  return LlmServices.create({
    settings,
    apiKey: apiKeyFromEnv(ctx.env ?? process.env),
    signal: ctx.signal,
    stopRetries: ctx.stopRetries,
  });
}

/** Builds the LLM user and/or agent a run names (undefined for non-LLM names). */
export async function prepareLlmParts(
  userName: string,
  agentName: string,
  config: LlmRunConfig | undefined,
  ctx: LlmRunContext,
): Promise<LlmRunParts> {
  const services = await llmServicesForRun(config, ctx);
  const inputs: LlmRunParts['inputs'] = {};
  const base = { maxTurns: ctx.maxTurns, maxRepairs: config?.max_repairs, earlyQuit: ctx.earlyQuit };
  let user: UserSimulator | undefined;
  switch (userName) {
    case 'llm-prompted':
      user = createPromptedUser(services, base);
      break;
    case 'llm-sft':
      user = createSftUser(services, base);
      break;
    case 'llm-icl': {
      if (!config?.icl_pool)
        throw new Error('llm-icl needs a pool of human conversations (llm.icl_pool / --icl-pool FILE)');
      const file = resolve(ctx.cwd, config.icl_pool);
      const imported = await importFile(file);
      user = createIclUser(services, imported.conversations, {
        ...base,
        k: config.icl_k,
        condition: config.icl_condition,
        retriever: config.icl_retriever,
      });
      inputs.icl_pool = {
        path: config.icl_pool,
        sha256: sha256File(file),
        conversations: imported.conversations.length,
        format: imported.format,
      };
      break;
    }
    case 'llm-target-free': {
      let profiles: PepperProfile[] | undefined;
      if (config?.profiles) {
        const file = resolve(ctx.cwd, config.profiles);
        profiles = loadProfiles(file);
        inputs.profiles = { path: config.profiles, sha256: sha256File(file), profiles: profiles.length };
      }
      user = createTargetFreeUser(services, { ...base, profiles, catalog: ctx.catalog });
      break;
    }
    default:
      if (userName.startsWith('llm-'))
        throw new Error(`unknown LLM user "${userName}" (known: ${LLM_USER_NAMES.join(', ')})`);
  }
  let agent: Agent | undefined;
  if (agentName === 'llm-good' || agentName === 'llm-bad') {
    agent = createLlmAgent(services, agentName === 'llm-good' ? 'good' : 'bad', { catalog: ctx.catalog });
    // The recommender searches the catalog on its first turn; building the index (a few hundred
    // ms for thousands of items) while the users' first requests are out keeps it off every
    // conversation's path. Both indexes the recommenders search are cached by the catalog.
    const catalog = ctx.catalog;
    services.whileWaiting(() => (agentName === 'llm-good' ? catalog.fullTextIndex() : catalog.partialTextIndex()));
  } else if (agentName.startsWith('llm-'))
    throw new Error(`unknown LLM agent "${agentName}" (known: ${LLM_AGENT_NAMES.join(', ')})`);
  return { services, user, agent, inputs };
}

/**
 * True for errors after which a simulation run should stop instead of recording a failed
 * conversation: every endpoint-wide LLM failure (endpoint down or refusing after retries, a bad
 * key or model, budget spent, cancelled). The conversation is then not written, so `--resume`
 * redoes it later, and thanks to the response cache the turns that did succeed cost nothing the
 * second time. A request rejected for what it carries (HTTP 400, 413, 422: e.g. past the context
 * length) is not: it fails its own conversation (`user_llm` / `agent_llm`) and the run goes on.
 */
export function stopsRun(error: unknown): boolean {
  return error instanceof LlmError && !isConversationLlmFailure(error);
}

/** The failure reason of a conversation-specific LLM error (see `stopsRun`) by the role that failed. */
export function llmFailureReason(error: LlmError): 'user_llm' | 'agent_llm' | 'judge_llm' | 'discriminator_llm' {
  switch (error.details.role) {
    case 'recommender':
      return 'agent_llm';
    case 'judge':
      return 'judge_llm';
    case 'discriminator':
      return 'discriminator_llm';
    default:
      return 'user_llm'; // the user and the embeddings its retrieval needs
  }
}
