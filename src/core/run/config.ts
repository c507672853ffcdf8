/**
 * The configuration of a simulation run and the environment built from it (catalog, interaction
 * model, simulated user, agent). The configuration is what the manifest records: the same
 * configuration and seed give byte-identical output, whatever the concurrency or sharding.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import * as z from 'zod';
import type { Agent, UserSimulator } from '../sim/types';
import { Catalog, generateApparelCatalog, loadCatalog } from '../catalog/catalog';
import { createAgent, sayableDetails } from '../sim/recommenders/index';
import { defaultActAliases, knownAgentActToZhangBalog } from '../taxonomy/acts';
import { importFile } from '../importers/index';
import { LlmRunConfigSchema, LLM_USER_NAMES, isLlmAgentName, isLlmUserName, prepareLlmParts } from './llm';
import type { LlmServices } from '../llm/services';
import {
  AgentNlu,
  TemplateNlg,
  TransitionModel,
  agentActClassifier,
  agentActExamplesFromCorpus,
  createUserSimulator,
  defaultAnswerMapping,
  defaultTransitionCounts,
  estimateTransitions,
  loadActAliases,
  loadAnswerMapping,
  loadCir6Diagram,
  loadNlgTemplates,
  loadRelevance,
  loadTransitionCounts,
  type TransitionCounts,
} from '../sim/users/index';
import { zodErrorMessage } from '../jsonl/zodIssues';
import { createExternalUser, isExternalUserSpec } from '../sim/users/external/simulator';
import { SIMLENS_VERSION } from './manifest';

/** Where and how an external simulator's processes run (not part of the configuration: no effect on output). */
export interface SimulatorProcessOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** Each line the simulator writes to stderr. */
  onStderr?: (line: string) => void;
}

/** Everything that determines a run's output (paths as given; resolved against the working directory). */
export const SimulationConfigSchema = z
  .object({
    /** A built-in user, or an external simulator: `exec:<command>` or an http(s) URL (docs/protocol.md). */
    user: z
      .union([
        z.enum(['agenda', 'target-free', ...LLM_USER_NAMES]),
        z.string().refine(isExternalUserSpec, {
          message: `expected agenda, target-free, ${LLM_USER_NAMES.join(', ')}, exec:<command> or an http(s):// URL`,
        }),
      ])
      .default('agenda'),
    interaction: z.enum(['cir6', 'qrfa']).default('cir6'),
    preferences: z.enum(['single', 'pkg']).default('pkg'),
    agent: z.string().min(1).default('local-good'),
    n: z.number().int().positive(),
    seed: z.union([z.number(), z.string()]).default(1),
    /** Catalog JSONL; absent = the synthetic apparel catalog (catalog_seed, catalog_size). */
    catalog: z.string().optional(),
    catalog_seed: z.union([z.number(), z.string()]).optional(),
    catalog_size: z.number().int().positive().optional(),
    /** Annotated corpus to estimate transitions (and train the NLU) from. */
    corpus: z.string().optional(),
    /** A transition counts file (simlens-transitions/1); ignored when `corpus` is given. */
    transitions: z.string().optional(),
    answers: z.string().optional(),
    aliases: z.string().optional(),
    diagram: z.string().optional(),
    templates: z.string().optional(),
    /** Additive smoothing of the transition probabilities. */
    alpha: z.number().nonnegative().optional(),
    meta: z.enum(['tol', 'prob']).optional(),
    tolerance: z.number().int().nonnegative().optional(),
    p_switch: z.number().min(0).max(1).optional(),
    relevance: z.string().optional(),
    /** User turns per conversation (default 20; 10 with a meta-simulator). */
    max_turns: z.number().int().positive().optional(),
    patience: z.number().int().positive().optional(),
    /** Agenda user: probability of leaving before any recommendation was shown (absent = 0). */
    early_quit: z.number().min(0).max(1).optional(),
    typo_rate: z.number().min(0).max(1).optional(),
    /** Fix the shopping task (catalog category) instead of drawing one per conversation. */
    task: z.string().optional(),
    /** HTTP agents: per-turn timeout. */
    timeout_ms: z.number().int().positive().optional(),
    /** External simulated users: per-request timeout (default 10,000 ms). */
    simulator_timeout_ms: z.number().int().positive().optional(),
    /** LLM users/agents (src/core/run/llm.ts): endpoint settings without keys, ICL pool, profiles. */
    llm: LlmRunConfigSchema.optional(),
  })
  .superRefine((c, ctx) => {
    // a meta-simulator wraps the built-in users only: anything else would run unwrapped, yet with a
    // meta run's turn cap and manifest
    if (c.meta && c.user !== 'agenda' && c.user !== 'target-free')
      ctx.addIssue({
        code: 'custom',
        path: ['meta'],
        message: `a meta-simulator wraps the built-in agenda and target-free users only, not ${c.user}`,
      });
  });
export type SimulationConfig = z.infer<typeof SimulationConfigSchema>;
export type SimulationConfigInput = z.input<typeof SimulationConfigSchema>;

/** Validates a configuration; the message names the field. */
export function parseSimulationConfig(value: unknown, origin = 'simulation config'): SimulationConfig {
  const r = SimulationConfigSchema.safeParse(value);
  if (r.success) return r.data;
  throw new Error(zodErrorMessage(origin, r.error, value));
}

/** The effective turn cap of a configuration. */
function effectiveMaxTurns(config: SimulationConfig): number {
  return config.max_turns ?? (config.meta ? 10 : 20);
}

/** Description of one input file for the manifest. */
export interface InputInfo {
  path: string;
  sha256?: string;
  [key: string]: unknown;
}

/** What a run is made of, built once and shared by all conversations. */
export interface SimulationEnvironment {
  config: SimulationConfig;
  catalog: Catalog;
  user: UserSimulator;
  agent: Agent;
  transitions: TransitionCounts;
  maxTurns: number;
  inputs: Record<string, InputInfo>;
  /** LLM services when the user or agent is LLM-backed (manifest info, budget). */
  llm?: LlmServices;
}

function sha256File(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/**
 * Reads the files a configuration names and builds user and agent. Relative paths resolve against `cwd`.
 * `signal` is the run's HARD abort (a second Ctrl-C): it cancels LLM calls and HTTP requests in
 * flight. Never pass the "stop scheduling" signal here, or a first Ctrl-C would cut the
 * conversations in flight short instead of letting them finish. `stopRetries` is that "stop
 * scheduling" signal: LLM services and an HTTP recommender built here send no new retry once it is aborted.
 */
export async function prepareEnvironment(
  config: SimulationConfig,
  cwd: string = process.cwd(),
  opts: EnvironmentOptions = {},
): Promise<SimulationEnvironment> {
  const at = (p: string) => resolve(cwd, p);
  const inputs: Record<string, InputInfo> = {};
  const catalog = await runCatalog(config, at, inputs);
  const aliases = config.aliases ? loadActAliases(at(config.aliases)) : defaultActAliases();
  const { counts, classifier } = await transitionCountsAndClassifier(config, at, aliases, inputs);
  const parts = ruleBasedParts(config, at, counts, classifier, aliases, inputs);
  const maxTurns = effectiveMaxTurns(config);
  const llm =
    isLlmUserName(config.user) || isLlmAgentName(config.agent)
      ? await prepareLlmParts(config.user, config.agent, config.llm, {
          catalog,
          cwd,
          maxTurns,
          earlyQuit: config.early_quit,
          services: opts.llm,
          signal: opts.signal,
          stopRetries: opts.stopRetries,
        })
      : undefined;
  if (llm) Object.assign(inputs, llm.inputs);
  const external = await startExternalUser(config, catalog, at, maxTurns, cwd, opts, inputs);
  const user =
    external ??
    llm?.user ??
    createUserSimulator(
      {
        user: config.user as 'agenda' | 'target-free', // LLM users were built above
        interaction: config.interaction,
        preferences: config.preferences,
        patience: config.patience,
        earlyQuit: config.early_quit,
        maxTurns,
        meta: config.meta,
        tolerance: config.tolerance,
        pSwitch: config.p_switch,
        relevance: parts.relevance,
      },
      { catalog, ...parts.components, details: sayableDetails(catalog) },
    );
  let agent;
  try {
    agent =
      llm?.agent ??
      createAgent(config.agent, {
        catalog,
        timeoutMs: config.timeout_ms,
        signal: opts.signal,
        stopRetries: opts.stopRetries,
      });
  } catch (err) {
    // The external simulator's processes were started above: stop them before reporting.
    await external?.dispose();
    throw err;
  }
  return { config, catalog, user, agent, transitions: counts, maxTurns, inputs, llm: llm?.services };
}

/** Services and signals `prepareEnvironment` hands to what it builds (see there). */
interface EnvironmentOptions {
  llm?: LlmServices;
  signal?: AbortSignal;
  stopRetries?: AbortSignal;
  simulator?: SimulatorProcessOptions;
}

/**
 * The run's catalog: the file the configuration names, or the generated apparel catalog; recorded
 * in `inputs`. Refused when it is empty or lacks the configuration's task category.
 */
async function runCatalog(
  config: SimulationConfig,
  at: (p: string) => string,
  inputs: Record<string, InputInfo>,
): Promise<Catalog> {
  let catalog: Catalog;
  if (config.catalog) {
    catalog = await loadCatalog(at(config.catalog));
    inputs.catalog = { path: config.catalog, sha256: sha256File(at(config.catalog)), items: catalog.size };
  } else {
    catalog = generateApparelCatalog({ seed: config.catalog_seed, size: config.catalog_size });
    inputs.catalog = {
      path: '(generated apparel catalog)',
      seed: config.catalog_seed ?? 'simlens',
      items: catalog.size,
    };
  }
  if (catalog.size === 0) throw new Error('the catalog has no items');
  if (config.task && !catalog.categories().includes(config.task)) {
    throw new Error(`task "${config.task}" is not a catalog category (categories: ${catalog.categories().join(', ')})`);
  }
  return catalog;
}

/**
 * The user's transition counts (estimated from the corpus, read from a transitions file, or the
 * default model) and the agent-act classifier (trained on the corpus's agent turns when it has
 * any); the file used is recorded in `inputs`.
 */
async function transitionCountsAndClassifier(
  config: SimulationConfig,
  at: (p: string) => string,
  aliases: ReturnType<typeof defaultActAliases>,
  inputs: Record<string, InputInfo>,
): Promise<{ counts: TransitionCounts; classifier: ReturnType<typeof agentActClassifier> }> {
  let counts: TransitionCounts;
  let classifier = agentActClassifier();
  if (config.corpus) {
    const imported = await importFile(at(config.corpus));
    counts = estimateTransitions(imported.conversations, { aliases, source: basename(config.corpus) });
    if (!counts.dialogues)
      throw new Error(`${config.corpus}: no conversation has user dialogue acts the simulator can read`);
    const examples = agentActExamplesFromCorpus(imported.conversations, aliases);
    if (examples.length) classifier = agentActClassifier(examples);
    inputs.corpus = {
      path: config.corpus,
      sha256: sha256File(at(config.corpus)),
      dialogues: counts.dialogues,
      format: imported.format,
    };
  } else if (config.transitions) {
    counts = loadTransitionCounts(at(config.transitions));
    inputs.transitions = { path: config.transitions, sha256: sha256File(at(config.transitions)) };
  } else {
    counts = defaultTransitionCounts();
  }
  return { counts, classifier };
}

/**
 * The parts of the rule-based users (transition model, answer mapping, NLG, NLU) and the meta
 * user's relevance judgments, read from the files the configuration names (the relevance file is
 * recorded in `inputs`). Built for every run, so a bad file is reported whatever the user.
 */
function ruleBasedParts(
  config: SimulationConfig,
  at: (p: string) => string,
  counts: TransitionCounts,
  classifier: ReturnType<typeof agentActClassifier>,
  aliases: ReturnType<typeof defaultActAliases>,
  inputs: Record<string, InputInfo>,
) {
  const diagram = config.diagram ? loadCir6Diagram(at(config.diagram)) : undefined;
  const transitions = new TransitionModel(counts, { alpha: config.alpha, diagram });
  const answers = config.answers ? loadAnswerMapping(at(config.answers)) : defaultAnswerMapping();
  const nlg = new TemplateNlg({
    templates: config.templates ? loadNlgTemplates(at(config.templates)) : undefined,
    typoRate: config.typo_rate,
  });
  const nlu = new AgentNlu({ classifier, aliases, mapReported: (act) => knownAgentActToZhangBalog(act) });
  const relevance = config.relevance ? loadRelevance(at(config.relevance)) : undefined;
  if (config.relevance) inputs.relevance = { path: config.relevance, sha256: sha256File(at(config.relevance)) };
  return { components: { transitions, answers, nlg, nlu }, relevance };
}

/** Starts the external simulator the configuration names (exec: or a URL), recorded in `inputs`; undefined for the built-in users. */
async function startExternalUser(
  config: SimulationConfig,
  catalog: Catalog,
  at: (p: string) => string,
  maxTurns: number,
  cwd: string,
  opts: EnvironmentOptions,
  inputs: Record<string, InputInfo>,
) {
  if (!isExternalUserSpec(config.user)) return undefined;
  const external = await createExternalUser({
    spec: config.user,
    catalog,
    catalogPath: config.catalog ? at(config.catalog) : undefined,
    maxTurns,
    timeoutMs: config.simulator_timeout_ms,
    cwd: opts.simulator?.cwd ?? cwd,
    env: opts.simulator?.env,
    onStderr: opts.simulator?.onStderr,
    clientVersion: SIMLENS_VERSION,
    signal: opts.signal,
  });
  inputs.simulator = {
    path: config.user,
    name: external.info.name,
    ...(external.info.version ? { version: external.info.version } : {}),
    protocol: external.info.protocol,
  };
  return external;
}
