/**
 * The LLM options shared by every CLI command that calls an endpoint (judge, discriminate,
 * simulate with LLM users or agents). Precedence, lowest first: built-in defaults, the
 * `--llm-config` JSON file, environment (SIMLENS_BASE_URL / OPENAI_BASE_URL), generic flags
 * (`--base-url`, `--model`, ...; every role), role flags (`--judge-model`, ...).
 * The API key comes only from the environment: SIMLENS_API_KEY, else OPENAI_API_KEY.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import {
  apiKeyFieldIn,
  apiKeyFieldMessage,
  apiKeyFromEnv,
  LLM_ROLES,
  resolveLlmSettings,
  type LlmRole,
  type LlmRoleInput,
  type LlmSettingsInput,
} from '../core/llm/config';
import { LlmServices, defaultCacheDir } from '../core/llm/services';
import { publicBaseUrl } from '../core/llm/redact';
import { WORKSPACE_PROMPTS_DIR } from '../core/llm/templates';
import type { FlagValues } from './args';
import { UsageError, type CliIo } from './types';
import { resolvePath } from './util';

export const LLM_FLAGS = {
  'llm-config': {
    type: 'string',
    valueName: 'FILE',
    description: 'JSON file with LLM settings: {"defaults": {...}, "roles": {"judge": {...}}, "budget": {...}}',
  },
  'base-url': {
    type: 'string',
    valueName: 'URL',
    description:
      'OpenAI-compatible endpoint for every role (default $SIMLENS_BASE_URL, $OPENAI_BASE_URL or https://api.openai.com/v1)',
  },
  model: { type: 'string', valueName: 'NAME', description: 'model for every role of this command' },
  'user-model': { type: 'string', valueName: 'NAME', description: 'model of the LLM user simulator' },
  'recommender-model': { type: 'string', valueName: 'NAME', description: 'model of the LLM recommender' },
  'judge-model': { type: 'string', valueName: 'NAME', description: 'model of the judge' },
  'discriminator-model': { type: 'string', valueName: 'NAME', description: 'model of the discriminator' },
  'embeddings-model': {
    type: 'string',
    valueName: 'NAME',
    description: 'embeddings model (ICL retrieval uses BM25 without one)',
  },
  'user-base-url': { type: 'string', valueName: 'URL', description: 'endpoint of the user simulator role' },
  'recommender-base-url': { type: 'string', valueName: 'URL', description: 'endpoint of the recommender role' },
  'judge-base-url': { type: 'string', valueName: 'URL', description: 'endpoint of the judge role' },
  'discriminator-base-url': { type: 'string', valueName: 'URL', description: 'endpoint of the discriminator role' },
  'embeddings-base-url': { type: 'string', valueName: 'URL', description: 'endpoint of the embeddings role' },
  temperature: { type: 'number', description: 'sampling temperature for every role' },
  'max-tokens': { type: 'number', description: 'max completion tokens per call' },
  'llm-timeout-ms': { type: 'number', description: 'per-attempt LLM timeout (default 60000)' },
  'llm-concurrency': {
    type: 'number',
    description: 'LLM requests in flight per role (default: --concurrency where the command has it, else 8)',
  },
  'llm-max-retries': { type: 'number', description: 'retries on 429/5xx/timeouts (default 4)' },
  stream: { type: 'boolean', description: 'receive answers as server-sent events' },
  'json-mode': { type: 'boolean', description: 'send response_format json_object where JSON is expected' },
  'cache-dir': {
    type: 'string',
    valueName: 'DIR',
    description: 'response cache folder (default .simlens-cache/llm beside the output)',
  },
  'no-cache': { type: 'boolean', description: 'do not read or write the response cache' },
  'budget-requests': { type: 'number', description: 'stop after this many HTTP requests' },
  'budget-tokens': { type: 'number', description: 'stop after this many tokens' },
  prompts: {
    type: 'string',
    valueName: 'DIR',
    description: `prompt overrides folder (default ${WORKSPACE_PROMPTS_DIR} in the working directory)`,
  },
  'record-prompts': { type: 'boolean', description: 'keep full prompts in trace llm_calls (large files)' },
} as const;

export type LlmFlagValues = FlagValues<typeof LLM_FLAGS>;

function readConfigFile(file: string): LlmSettingsInput {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`--llm-config: cannot read ${file}: ${(e as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('expected a JSON object');
  } catch (e) {
    throw new UsageError(`--llm-config ${file}: ${(e as Error).message}`);
  }
  // Refused rather than ignored: a key silently dropped makes the run fail later with a 401.
  const keyField = apiKeyFieldIn(value);
  if (keyField) throw new UsageError(`--llm-config ${apiKeyFieldMessage(file, keyField)}`);
  return value as LlmSettingsInput;
}

/**
 * Settings input from flags, env and the config file. `outFile` places the default cache.
 * Throws UsageError on a bad value, naming the flag or file.
 */
function llmSettingsInputFromFlags(flags: LlmFlagValues, io: CliIo, outFile?: string): LlmSettingsInput {
  const file: LlmSettingsInput = flags['llm-config'] ? readConfigFile(resolvePath(io, flags['llm-config'])) : {};
  const envBase = io.env.SIMLENS_BASE_URL || io.env.OPENAI_BASE_URL;
  const defaults: LlmRoleInput = { ...(envBase ? { baseUrl: envBase } : {}), ...(file.defaults ?? {}) };
  const set = <K extends keyof LlmRoleInput>(target: LlmRoleInput, key: K, value: LlmRoleInput[K] | undefined) => {
    if (value !== undefined) target[key] = value;
  };
  set(defaults, 'baseUrl', flags['base-url']);
  set(defaults, 'model', flags.model);
  set(defaults, 'temperature', flags.temperature);
  set(defaults, 'maxTokens', flags['max-tokens']);
  set(defaults, 'timeoutMs', flags['llm-timeout-ms']);
  set(defaults, 'concurrency', flags['llm-concurrency']);
  set(defaults, 'maxRetries', flags['llm-max-retries']);
  if (flags.stream) defaults.stream = true;
  if (flags['json-mode']) defaults.jsonMode = true;
  const roles: Partial<Record<LlmRole, LlmRoleInput>> = {};
  for (const role of LLM_ROLES) {
    const r: LlmRoleInput = { ...(file.roles?.[role] ?? {}) };
    set(r, 'model', flags[`${role}-model`]);
    set(r, 'baseUrl', flags[`${role}-base-url`]);
    // The generic --model is a chat model: never apply it to embeddings.
    roles[role] = r;
  }
  const budget = { ...(file.budget ?? {}) };
  if (flags['budget-requests'] !== undefined) budget.maxRequests = flags['budget-requests'];
  if (flags['budget-tokens'] !== undefined) budget.maxTokens = flags['budget-tokens'];
  const promptsDir = flags.prompts
    ? resolvePath(io, flags.prompts)
    : (file.promptsDir ?? path.join(io.cwd, WORKSPACE_PROMPTS_DIR));
  const cacheDir = flags['no-cache']
    ? undefined
    : flags['cache-dir']
      ? resolvePath(io, flags['cache-dir'])
      : (file.cacheDir ?? (outFile ? defaultCacheDir(resolvePath(io, outFile)) : undefined));
  return {
    defaults,
    roles,
    budget,
    promptsDir,
    cacheDir,
    recordPrompts: flags['record-prompts'] || file.recordPrompts,
  };
}

/**
 * Builds the services (prompt overrides loaded; key from the environment). Prints override warnings.
 * `opts.signal` is a HARD abort: it cancels requests in flight. Pass a "stop scheduling" signal
 * (first Ctrl-C) to the run or pass instead, so that work in flight finishes.
 */
export async function llmServicesFromFlags(
  flags: LlmFlagValues,
  io: CliIo,
  opts: {
    outFile?: string;
    signal?: AbortSignal;
    stopRetries?: AbortSignal;
    command: string;
    defaultConcurrency?: number;
  },
): Promise<LlmServices> {
  const input = llmSettingsInputFromFlags(flags, io, opts.outFile);
  // Requests in flight per role follow the command's --concurrency unless set explicitly (a
  // conversation has one request out at a time, so fewer slots would idle conversations).
  if (opts.defaultConcurrency !== undefined && input.defaults && input.defaults.concurrency === undefined) {
    input.defaults.concurrency = Math.max(opts.defaultConcurrency, 1);
  }
  let settings;
  try {
    settings = resolveLlmSettings(input, flags['llm-config'] ?? 'LLM options');
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (input.promptsDir && !existsSync(input.promptsDir)) settings.promptsDir = undefined;
  const services = await LlmServices.create({
    settings,
    apiKey: apiKeyFromEnv(io.env),
    signal: opts.signal,
    stopRetries: opts.stopRetries,
  });
  const budget = settings.budget;
  if (budget.maxTokens !== undefined) {
    // Said once, up front: how the token budget is kept under concurrency, and what happens without usage.
    io.stderr(
      `simlens ${opts.command}: token budget ${budget.maxTokens}: each request reserves its prompt's estimated ` +
        `tokens plus max_tokens before it is sent; answers without "usage" are counted by estimate (4 characters a ` +
        `token) and reported as such\n`,
    );
  }
  for (const w of services.prompts.warnings) io.stderr(`simlens ${opts.command}: ${w}\n`);
  return services;
}

/** Options of `simlens simulate` that only LLM users need. */
export const LLM_RUN_FLAGS = {
  'icl-pool': {
    type: 'string',
    valueName: 'FILE',
    description: 'llm-icl: human conversations to retrieve examples from',
  },
  'icl-condition': {
    type: 'string',
    valueName: 'NAME',
    description: 'llm-icl: retrieve only from this condition (e.g. good, for counterfactual runs)',
  },
  'icl-k': { type: 'number', description: 'llm-icl: examples per prompt (default 3)' },
  'icl-retriever': {
    type: 'string',
    valueName: 'bm25|embeddings',
    description: 'llm-icl: retrieval (default: embeddings when --embeddings-model is set, else bm25)',
  },
  profiles: {
    type: 'string',
    valueName: 'FILE',
    description: 'llm-target-free: user profiles JSONL (default: sampled from the catalog)',
  },
} as const;

/**
 * Adds the `llm` block to a simulation configuration when its user or agent is LLM-backed
 * (`simlens simulate`). The block holds endpoint settings without the key, ICL and profile options.
 */
export function withLlmRunConfig<C extends { user?: string; agent?: string }>(
  config: C,
  flags: LlmFlagValues & FlagValues<typeof LLM_RUN_FLAGS>,
  io: CliIo,
  outFile?: string,
): C & { llm?: Record<string, unknown> } {
  const llmUser = typeof config.user === 'string' && config.user.startsWith('llm-');
  const llmAgent = typeof config.agent === 'string' && config.agent.startsWith('llm-');
  if (!llmUser && !llmAgent) return config;
  const retriever = flags['icl-retriever'];
  if (retriever !== undefined && retriever !== 'bm25' && retriever !== 'embeddings')
    throw new UsageError(`--icl-retriever must be bm25 or embeddings, got "${retriever}"`);
  // Only what changes the output goes into the configuration (and so into resume's sameness check):
  // timeouts, retries, concurrency, budget and cache folder may differ between a run and its resume.
  let resolved;
  try {
    resolved = resolveLlmSettings(llmSettingsInputFromFlags(flags, io, outFile), flags['llm-config'] ?? 'LLM options');
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const roles: Record<string, unknown> = {};
  for (const role of LLM_ROLES) {
    const r = resolved.roles[role];
    // The URL's credentials (userinfo, ?api-key=) are sent, never recorded.
    roles[role] = {
      baseUrl: publicBaseUrl(r.baseUrl),
      model: r.model,
      temperature: r.temperature,
      maxTokens: r.maxTokens,
      sendSeed: r.sendSeed,
      jsonMode: r.jsonMode,
    };
  }
  const llm: Record<string, unknown> = { settings: JSON.parse(JSON.stringify({ roles })) as Record<string, unknown> };
  if (flags['icl-pool']) llm.icl_pool = flags['icl-pool'];
  if (flags['icl-condition']) llm.icl_condition = flags['icl-condition'];
  if (flags['icl-k'] !== undefined) llm.icl_k = flags['icl-k'];
  if (retriever) llm.icl_retriever = retriever;
  if (flags.profiles) llm.profiles = flags.profiles;
  return { ...config, llm };
}
