/**
 * LLM endpoint settings, one block per role. Every role talks to an OpenAI-compatible endpoint
 * (OpenAI, Azure OpenAI v1, vLLM, Ollama, LM Studio, ...), so a role needs a base URL and a model
 * name plus generation limits. The API key is deliberately NOT part of these settings: it is
 * passed separately to the client and never serialised (settings go into run manifests).
 */
import * as z from 'zod';
import { zodErrorMessage } from '../jsonl/zodIssues';
import { publicBaseUrl } from './redact';

export const LLM_ROLES = ['user', 'recommender', 'judge', 'discriminator', 'embeddings'] as const;
export type LlmRole = (typeof LLM_ROLES)[number];

const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** Settings of one role. */
export const LlmRoleConfig = z.object({
  baseUrl: z.string().url(),
  /** Model name as the endpoint knows it; empty means "not configured" (embeddings: use BM25). */
  model: z.string(),
  temperature: z.number().min(0).max(2).optional(),
  maxTokens: z.number().int().positive().optional(),
  /** Per attempt, in milliseconds (streams included). */
  timeoutMs: z.number().int().positive(),
  /** Requests in flight at once for this role. */
  concurrency: z.number().int().positive(),
  /** Retries after the first attempt on 429, 5xx, timeouts and dropped connections. */
  maxRetries: z.number().int().min(0),
  /** First backoff delay; doubles per retry, with jitter, up to `maxBackoffMs`. */
  backoffMs: z.number().int().min(0),
  maxBackoffMs: z.number().int().min(0),
  /** Receive the answer as server-sent events (the text is assembled before use). */
  stream: z.boolean(),
  /** Send an integer `seed` per request (derived from the run seed) for reproducible sampling. */
  sendSeed: z.boolean(),
  /** Ask for `response_format: json_object` where JSON is expected (not every server supports it). */
  jsonMode: z.boolean(),
});
export type LlmRoleConfig = z.infer<typeof LlmRoleConfig>;

export const LlmBudgetConfig = z.object({
  /** HTTP requests (attempts, retries included; cache hits excluded). */
  maxRequests: z.number().int().positive().optional(),
  /** prompt + completion tokens reported by the endpoint. */
  maxTokens: z.number().int().positive().optional(),
});
export type LlmBudgetConfig = z.infer<typeof LlmBudgetConfig>;

export const LlmSettings = z.object({
  roles: z.object({
    user: LlmRoleConfig,
    recommender: LlmRoleConfig,
    judge: LlmRoleConfig,
    discriminator: LlmRoleConfig,
    embeddings: LlmRoleConfig,
  }),
  budget: LlmBudgetConfig,
  /** Response cache folder; undefined disables the cache. */
  cacheDir: z.string().optional(),
  /** Workspace prompt overrides (`.simlens/prompts/`). */
  promptsDir: z.string().optional(),
  /** Keep the full request messages in each trace's llm_calls (large files). */
  recordPrompts: z.boolean(),
});
export type LlmSettings = z.infer<typeof LlmSettings>;

/** A partial role block as users write it (settings.json, a config file, CLI flags). */
export type LlmRoleInput = Partial<LlmRoleConfig>;
export interface LlmSettingsInput {
  /** Applies to every role unless the role overrides it. */
  defaults?: LlmRoleInput;
  roles?: Partial<Record<LlmRole, LlmRoleInput>>;
  budget?: LlmBudgetConfig;
  cacheDir?: string;
  promptsDir?: string;
  recordPrompts?: boolean;
}

const ROLE_DEFAULTS: Record<LlmRole, LlmRoleConfig> = {
  user: base('gpt-4o-mini', 0.7, 300),
  recommender: base('gpt-4o-mini', 0.5, 400),
  judge: base('gpt-4o-mini', 0, 1500),
  discriminator: base('gpt-4o-mini', 0, 100),
  embeddings: { ...base('', undefined, undefined), concurrency: 4 },
};

function base(model: string, temperature: number | undefined, maxTokens: number | undefined): LlmRoleConfig {
  return {
    baseUrl: DEFAULT_BASE_URL,
    model,
    temperature,
    maxTokens,
    timeoutMs: 60_000,
    concurrency: 8,
    maxRetries: 4,
    backoffMs: 500,
    maxBackoffMs: 30_000,
    stream: false,
    sendSeed: true,
    jsonMode: false,
  };
}

function dropUndefined<T extends object>(value: T | undefined): Partial<T> {
  const out: Partial<T> = {};
  if (!value) return out;
  for (const [k, v] of Object.entries(value)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

/**
 * Field names that hold a credential: any name containing "api key", "secret", "password" or
 * "credential" in any spelling (apiKey, api_key, openai_api_key, OPENAI_API_KEY), a token
 * (token, accessToken, auth_token; not maxTokens), "bearer", "authorization", or the bare "key".
 */
const KEY_FIELD =
  /^key$|api[_-]?key|secret|^(access|auth|bearer|api|id|session)?[_-]?token$|passw(or)?d|^bearer$|^authori[sz]ation$|credential/i;

/**
 * The path of the first field that looks like an API key ("defaults.apiKey",
 * "roles.judge.api_key", "apiKey"), or undefined. Settings never hold keys: they are recorded in
 * run manifests, and config files end up in version control.
 */
export function apiKeyFieldIn(input: unknown): string | undefined {
  if (!input || typeof input !== 'object') return undefined;
  const obj = input as Record<string, unknown>;
  for (const k of Object.keys(obj)) if (KEY_FIELD.test(k)) return k;
  const blocks: Array<[string, unknown]> = [['defaults', obj.defaults]];
  if (obj.roles && typeof obj.roles === 'object')
    for (const [role, v] of Object.entries(obj.roles)) blocks.push([`roles.${role}`, v]);
  for (const [where, block] of blocks) {
    if (!block || typeof block !== 'object') continue;
    for (const k of Object.keys(block)) if (KEY_FIELD.test(k)) return `${where}.${k}`;
  }
  return undefined;
}

/** The message for a key found in settings at `field` of `origin` (never includes the value). */
export function apiKeyFieldMessage(origin: string, field: string): string {
  return (
    `${origin}: field "${field}": API keys are not read from LLM settings (they would be copied into run manifests); ` +
    'remove it and set SIMLENS_API_KEY (or OPENAI_API_KEY) in the environment, or use "SimLens: Set API Key" in VS Code'
  );
}

/**
 * Merges built-in defaults, `defaults` and per-role blocks into validated settings.
 * Throws an Error naming the role and field when a value is invalid (`origin` names the source).
 */
export function resolveLlmSettings(input: LlmSettingsInput = {}, origin = 'LLM settings'): LlmSettings {
  const keyField = apiKeyFieldIn(input);
  if (keyField) throw new Error(apiKeyFieldMessage(origin, keyField));
  const roles = {} as Record<LlmRole, LlmRoleConfig>;
  for (const role of LLM_ROLES) {
    const merged = { ...ROLE_DEFAULTS[role], ...dropUndefined(input.defaults), ...dropUndefined(input.roles?.[role]) };
    // The embeddings model is never inherited from `defaults`: a chat model there is no embedding model.
    if (role === 'embeddings') merged.model = input.roles?.embeddings?.model ?? '';
    const parsed = LlmRoleConfig.safeParse(merged);
    if (!parsed.success) throw new Error(zodErrorMessage(`${origin}: role "${role}"`, parsed.error, merged));
    roles[role] = parsed.data;
  }
  const budget = LlmBudgetConfig.safeParse(input.budget ?? {});
  if (!budget.success) throw new Error(zodErrorMessage(origin, budget.error, input.budget ?? {}, ['budget']));
  return {
    roles,
    budget: budget.data,
    cacheDir: input.cacheDir,
    promptsDir: input.promptsDir,
    recordPrompts: input.recordPrompts ?? false,
  };
}

/** Environment variables the CLI reads the key from, in order. */
const API_KEY_ENV_VARS = ['SIMLENS_API_KEY', 'OPENAI_API_KEY'] as const;

/** The API key from the environment, or undefined. Never log the result. */
export function apiKeyFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  for (const name of API_KEY_ENV_VARS) {
    const v = env[name];
    if (v && v.trim()) return v.trim();
  }
  return undefined;
}

/**
 * Settings as they may appear in a manifest: plain data, no key (there is none in LlmSettings),
 * and base URLs without the credentials a URL may carry (userinfo, `?api-key=`).
 */
export function publicLlmSettings(settings: LlmSettings): Record<string, unknown> {
  const roles = Object.fromEntries(
    Object.entries(settings.roles).map(([role, r]) => [role, { ...r, baseUrl: publicBaseUrl(r.baseUrl) }]),
  );
  return JSON.parse(
    JSON.stringify({ roles, budget: settings.budget, cache: settings.cacheDir !== undefined }),
  ) as Record<string, unknown>;
}
