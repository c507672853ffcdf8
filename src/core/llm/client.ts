/**
 * The one place SimLens talks to an LLM endpoint. Wraps the `openai` client (its own retries off;
 * non-streamed chat completions, the hot path, skip it and go over node:http, see `chatOnce`) with: our retries (exponential backoff with jitter on 429, 5xx, timeouts and dropped
 * connections, honouring Retry-After / retry-after-ms), a per-attempt timeout that also covers
 * streamed bodies, a per-role concurrency limit, the run budget, cancellation, the response cache
 * and a record of each call (`LlmCall`, with one entry per attempt) for the trace. Error texts are
 * redacted: the API key cannot leak through them.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { LlmCall } from '../model';
import type { LlmRole, LlmRoleConfig } from './config';
import { LlmBudget } from './budget';
import { LlmResponseCache, cacheKey, type CachedChat, type CachedEmbedding } from './cache';
import { LlmError, BudgetExceededError, type LlmErrorKind } from './errors';
import { ConcurrencyLimiter } from './limiter';
import { postJson, sharedNodeFetch } from './nodeFetch';
import { publicBaseUrl, redactSecrets, urlSecrets } from './redact';
import { answerProblem, contentText, validationName, type AnswerValidation } from './validate';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

interface ChatRequest {
  messages: ChatMessage[];
  /** Overrides the role's temperature. */
  temperature?: number;
  /** Overrides the role's max tokens. */
  maxTokens?: number;
  /** Integer sampling seed, sent when the role's `sendSeed` is on; always part of the cache key. */
  seed?: number;
  /** The answer must be a JSON object (sets response_format when the role's jsonMode is on). */
  json?: boolean;
  stop?: string[];
  /** "name@version" of the prompt template, recorded and part of the cache key. */
  template?: string;
  /** What the call is for, e.g. "user.respond" (recorded in the trace). */
  purpose?: string;
  /**
   * The role's check of the answer (validate.ts), on top of the generic ones (complete, not empty,
   * not a refusal). An answer that fails is returned with `problem` set and never cached.
   */
  validate?: AnswerValidation;
}

export interface ChatResult {
  text: string;
  finishReason?: string;
  promptTokens?: number;
  completionTokens?: number;
  cached: boolean;
  /** The call as recorded in traces. */
  call: RecordedLlmCall;
  /** Why the answer is unusable (validate.ts); undefined when it passed every check. Never cached. */
  problem?: string;
}

interface EmbeddingResult {
  vectors: number[][];
  cached: boolean;
  call: RecordedLlmCall;
}

/** One HTTP attempt of a call. */
export interface LlmAttempt {
  attempt: number;
  status?: number;
  error?: string;
  latency_ms: number;
  /** How long we waited before the next attempt (Retry-After or backoff). */
  wait_ms?: number;
  request_id?: string;
}

/** A call as recorded in `trace.llm_calls`: the model's LlmCall plus the attempts, cache key and template. */
export type RecordedLlmCall = LlmCall & {
  attempts: LlmAttempt[];
  cache_key: string;
  template?: string;
  purpose?: string;
  finish_reason?: string;
  /** Why the answer was not usable (validate.ts), when it was not. */
  problem?: string;
};

interface LlmClientOptions {
  role: LlmRole;
  config: LlmRoleConfig;
  /** Sent as the bearer token only; never stored in records, errors or the cache. */
  apiKey?: string;
  cache?: LlmResponseCache;
  budget?: LlmBudget;
  /** Shared by every client of the role; defaults to one built from `config.concurrency`. */
  limiter?: ConcurrencyLimiter;
  /** Cancels every call of this client (e.g. the run's signal). */
  signal?: AbortSignal;
  /** Uniform [0,1) source for jitter (tests pass a fixed one). */
  random?: () => number;
  /** Waits between attempts (tests may record the waits). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Receives every finished call record (success, cache hit or failure). */
  onCall?: (call: RecordedLlmCall) => void;
  /** Keep the request messages in the call record. */
  recordPrompts?: boolean;
  /** Custom fetch (default: the node:http transport of nodeFetch.ts). */
  fetch?: typeof fetch;
  /** Told when a request starts and when it is on the wire (LlmServices.whileWaiting). */
  sends?: SendTracker;
  /**
   * Once aborted, no new retry is sent and a wait before one ends at once (the call fails with its
   * last error); requests in flight go on. The run's "stop scheduling" signal (first Ctrl-C, SIGTERM).
   */
  stopRetries?: AbortSignal;
}

/** Counts requests between "started" and "on the wire". */
interface SendTracker {
  started(): void;
  sent(): void;
}

/** Retry-After waits longer than this are cut to it (an endpoint asking for an hour is not waited on). */
const MAX_RETRY_AFTER_MS = 300_000;

/** Parses `retry-after-ms`, then `retry-after` (seconds or an HTTP date) into milliseconds. */
export function retryAfterMs(
  headers: { get(name: string): string | null } | undefined,
  now = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const ra = headers.get('retry-after');
  if (!ra) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(ra)) return Math.round(Number(ra) * 1000);
  const date = Date.parse(ra);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** Backoff before retry number `retry` (0-based): base * 2^retry capped, then "equal jitter" (half fixed, half random). */
export function backoffDelay(retry: number, baseMs: number, maxMs: number, random: () => number): number {
  const exp = Math.min(maxMs, baseMs * 2 ** retry);
  return Math.round(exp / 2 + (exp / 2) * random());
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new LlmError('LLM call cancelled', 'aborted'));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new LlmError('LLM call cancelled', 'aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * One 'abort' listener on a long-lived signal (the run's hard abort), fanned out to the calls in
 * flight. Adding a listener per call to the shared signal would pile up one per request in flight
 * (Node warns past 10: MaxListenersExceededWarning at --llm-concurrency 11).
 */
class AbortFanout {
  private readonly callbacks = new Set<() => void>();

  constructor(readonly signal: AbortSignal) {
    signal.addEventListener(
      'abort',
      () => {
        for (const cb of [...this.callbacks]) cb();
        this.callbacks.clear();
      },
      { once: true },
    );
  }

  /** Calls `cb` on abort; returns the function that unregisters it. */
  add(cb: () => void): () => void {
    this.callbacks.add(cb);
    return () => this.callbacks.delete(cb);
  }
}

interface AttemptFailure {
  kind: LlmErrorKind;
  retryable: boolean;
  message: string;
  status?: number;
  requestId?: string;
  retryAfter?: number;
}

interface ChatOutcome {
  text: string;
  finishReason?: string;
  promptTokens?: number;
  completionTokens?: number;
  requestId?: string;
}

/** The outcome of a (non-streamed) chat completion answer, from the SDK or the direct transport. */
function chatOutcomeOf(data: OpenAI.Chat.ChatCompletion | undefined, requestId: string | undefined): ChatOutcome {
  const choice = data?.choices?.[0];
  if (!data || !choice || !choice.message)
    throw new InvalidResponse('the endpoint answered without choices[0].message');
  const content = contentText(choice.message.content as unknown);
  if (!content.ok) throw new InvalidResponse(`the endpoint answered with an unreadable message: ${content.problem}`);
  // A structured refusal (message.refusal) is a refusal whatever the content says.
  const refusal = (choice.message as { refusal?: unknown }).refusal;
  return {
    text:
      typeof refusal === 'string' && refusal.trim() && !content.text.trim()
        ? `I can't help with that: ${refusal}`
        : content.text,
    finishReason: choice.finish_reason ?? undefined,
    promptTokens: data.usage?.prompt_tokens,
    completionTokens: data.usage?.completion_tokens,
    requestId,
  };
}

export class LlmClient {
  readonly role: LlmRole;
  readonly config: LlmRoleConfig;
  readonly limiter: ConcurrencyLimiter;
  // ES private fields: not enumerable, so neither the SDK client nor the key can be serialised by accident.
  readonly #openai: OpenAI;
  readonly #secrets: (string | undefined)[];
  private readonly random: () => number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  readonly #options: LlmClientOptions;
  readonly #abort: AbortFanout | undefined;
  /** Non-streamed chat completions go straight over node:http (see `chatOnce`) unless a custom fetch is given. */
  readonly #direct: { url: URL; headers: Record<string, string> } | undefined;

  constructor(options: LlmClientOptions) {
    this.#options = options;
    this.#abort = options.signal ? new AbortFanout(options.signal) : undefined;
    this.role = options.role;
    this.config = options.config;
    this.limiter = options.limiter ?? new ConcurrencyLimiter(options.config.concurrency);
    this.random = options.random ?? Math.random;
    this.sleep = options.sleep ?? defaultSleep;
    // The key, and whatever credentials the base URL carries (userinfo, ?api-key=): sent, never written.
    this.#secrets = [options.apiKey, ...urlSecrets(options.config.baseUrl)];
    this.publicBaseUrl = publicBaseUrl(options.config.baseUrl);
    // Local servers (Ollama, vLLM, LM Studio) ignore the key, but the SDK insists on one.
    this.#openai = new OpenAI({
      baseURL: options.config.baseUrl,
      apiKey: options.apiKey || 'no-key-set',
      timeout: options.config.timeoutMs,
      maxRetries: 0,
      // node:http transport by default (see nodeFetch.ts for why); tests may pass their own.
      fetch: options.fetch ?? sharedNodeFetch(),
    });
    if (!options.fetch) {
      const headers: Record<string, string> = {
        accept: 'application/json',
        authorization: `Bearer ${options.apiKey || 'no-key-set'}`,
      };
      // What the SDK would add from the environment.
      if (process.env.OPENAI_ORG_ID) headers['openai-organization'] = process.env.OPENAI_ORG_ID;
      if (process.env.OPENAI_PROJECT_ID) headers['openai-project'] = process.env.OPENAI_PROJECT_ID;
      const url = new URL(options.config.baseUrl);
      url.pathname = `${url.pathname.replace(/\/+$/, '')}/chat/completions`;
      if (url.username || url.password) {
        // Credentials in the URL go in a Basic header unless a key is set (node:http does not send userinfo by itself).
        if (!options.apiKey)
          headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
        url.username = '';
        url.password = '';
      }
      this.#direct = { url, headers };
    }
  }

  /** The base URL as it may be written (credentials replaced by [REDACTED]). */
  readonly publicBaseUrl: string;

  /** The model this client asks. */
  get model(): string {
    return this.config.model;
  }

  /** Sends a chat completion (or replays it from the cache). Throws LlmError when every attempt failed. */
  async chat(request: ChatRequest, callSignal?: AbortSignal): Promise<ChatResult> {
    const { params, keyed, key, call } = this.chatCall(request);
    const cache = this.#options.cache;
    const validation = validationName(request.validate);
    const replayed = cache ? await this.replayChat(cache, key, validation, request, call) : undefined;
    if (replayed) return replayed;

    const cfg = this.config;
    const body = {
      model: cfg.model,
      messages: request.messages,
      ...Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined)),
    };
    const estimate = estimateChatTokens(request.messages, params.max_tokens);
    const outcome = await this.withRetries(call, callSignal, estimate, (signal) => this.sendChat(body, signal));
    Object.assign(call, {
      cached: false,
      request_id: outcome.requestId,
      prompt_tokens: outcome.promptTokens,
      completion_tokens: outcome.completionTokens,
      response: outcome.text,
    });
    if (outcome.finishReason) call.finish_reason = outcome.finishReason;
    const problem = answerProblem(outcome.text, outcome.finishReason, request.validate);
    if (problem !== undefined) call.problem = problem;
    else if (cache) {
      const entry: CachedChat = {
        kind: 'chat',
        text: outcome.text,
        finish_reason: outcome.finishReason,
        prompt_tokens: outcome.promptTokens,
        completion_tokens: outcome.completionTokens,
        request_id: outcome.requestId,
        validation,
      };
      await cache.set(key, keyed, entry);
    }
    this.#options.onCall?.(call);
    const result: ChatResult = {
      text: outcome.text,
      finishReason: outcome.finishReason,
      promptTokens: outcome.promptTokens,
      completionTokens: outcome.completionTokens,
      cached: false,
      call,
    };
    if (problem !== undefined) result.problem = problem;
    return result;
  }

  /** The record of a call (chat or embedding) under its cache key, with no attempt yet. */
  private newCall(
    key: string,
    model: string,
    about: Pick<RecordedLlmCall, 'template' | 'purpose'> = {},
  ): RecordedLlmCall {
    return { id: `${this.role}-${key.slice(0, 12)}`, role: this.role, model, cache_key: key, ...about, attempts: [] };
  }

  /**
   * A chat request's parameters as sent, what its cache key is computed from (the sample seed
   * included, even when the endpoint is not sent one), the key, and the call record to fill.
   */
  private chatCall(request: ChatRequest) {
    const cfg = this.config;
    const params = {
      temperature: request.temperature ?? cfg.temperature,
      max_tokens: request.maxTokens ?? cfg.maxTokens,
      seed: cfg.sendSeed ? request.seed : undefined,
      response_format: request.json && cfg.jsonMode ? { type: 'json_object' as const } : undefined,
      stop: request.stop,
    };
    const keyed = {
      kind: 'chat',
      base_url: this.publicBaseUrl,
      model: cfg.model,
      messages: request.messages,
      params,
      // The seed distinguishes samples even when the endpoint is not sent one.
      sample_seed: request.seed,
      template: request.template,
    };
    const key = cacheKey(keyed);
    const call = this.newCall(key, cfg.model, { template: request.template, purpose: request.purpose });
    if (this.#options.recordPrompts) call.request = { messages: request.messages, params };
    return { params, keyed, key, call };
  }

  /**
   * The cached answer to a chat request, recorded as the original call recorded it; only an answer
   * that passed this very validation, and passes it again, is replayed (undefined otherwise).
   */
  private async replayChat(
    cache: LlmResponseCache,
    key: string,
    validation: string | undefined,
    request: ChatRequest,
    call: RecordedLlmCall,
  ): Promise<ChatResult | undefined> {
    const hit = await cache.get(key);
    if (
      !hit ||
      hit.kind !== 'chat' ||
      hit.validation !== validation ||
      answerProblem(hit.text, hit.finish_reason, request.validate) !== undefined
    )
      return undefined;
    this.#options.budget?.cacheHit();
    Object.assign(call, {
      cached: true,
      latency_ms: 0,
      prompt_tokens: hit.prompt_tokens,
      completion_tokens: hit.completion_tokens,
      request_id: hit.request_id,
      response: hit.text,
    });
    // As the original call recorded it, so a replay writes what the first run wrote.
    if (hit.finish_reason) call.finish_reason = hit.finish_reason;
    this.#options.onCall?.(call);
    return {
      text: hit.text,
      finishReason: hit.finish_reason,
      promptTokens: hit.prompt_tokens,
      completionTokens: hit.completion_tokens,
      cached: true,
      call,
    };
  }

  /** One chat attempt over the configured transport: streamed, direct node:http, or the OpenAI SDK. */
  private async sendChat(body: Record<string, unknown>, signal: AbortSignal): Promise<ChatOutcome> {
    const cfg = this.config;
    if (cfg.stream) return this.streamOnce(body, signal);
    if (this.#direct) return this.chatOnce(this.#direct, body, signal);
    const { data, request_id } = await this.#openai.chat.completions
      .create(body as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming, {
        signal,
        timeout: cfg.timeoutMs,
        maxRetries: 0,
      })
      .withResponse();
    return chatOutcomeOf(data, request_id ?? undefined);
  }

  /** Embeds texts in one request (callers batch). Cached like chat calls. */
  async embed(texts: string[], callSignal?: AbortSignal): Promise<EmbeddingResult> {
    const cfg = this.config;
    if (!cfg.model) throw new LlmError('no embeddings model is configured', 'invalid_response');
    const keyed = { kind: 'embedding', base_url: this.publicBaseUrl, model: cfg.model, input: texts };
    const key = cacheKey(keyed);
    const call = this.newCall(key, cfg.model);
    const cache = this.#options.cache;
    const hit = cache ? await cache.get(key) : undefined;
    if (hit && hit.kind === 'embedding' && hit.vectors.length === texts.length) {
      this.#options.budget?.cacheHit();
      Object.assign(call, {
        cached: true,
        latency_ms: 0,
        prompt_tokens: hit.prompt_tokens,
        request_id: hit.request_id,
      });
      this.#options.onCall?.(call);
      return { vectors: hit.vectors, cached: true, call };
    }
    const embedTokens = estimateTextTokens(texts.join(' '));
    const outcome = await this.withRetries(
      call,
      callSignal,
      { prompt: embedTokens, reserve: embedTokens },
      async (signal) => {
        const { data, request_id } = await this.#openai.embeddings
          .create(
            { model: cfg.model, input: texts, encoding_format: 'float' },
            { signal, timeout: cfg.timeoutMs, maxRetries: 0 },
          )
          .withResponse();
        const rows = [...(data?.data ?? [])].sort((a, b) => a.index - b.index);
        if (rows.length !== texts.length || rows.some((r) => !Array.isArray(r.embedding))) {
          throw new InvalidResponse(`expected ${texts.length} embeddings, got ${rows.length}`);
        }
        return {
          vectors: rows.map((r) => r.embedding as number[]),
          promptTokens: data.usage?.prompt_tokens,
          requestId: request_id ?? undefined,
        };
      },
    );
    Object.assign(call, { cached: false, request_id: outcome.requestId, prompt_tokens: outcome.promptTokens });
    if (cache) {
      const entry: CachedEmbedding = {
        kind: 'embedding',
        vectors: outcome.vectors,
        prompt_tokens: outcome.promptTokens,
        request_id: outcome.requestId,
      };
      await cache.set(key, keyed, entry);
    }
    this.#options.onCall?.(call);
    return { vectors: outcome.vectors, cached: false, call };
  }

  /** Model ids the endpoint lists (GET /models): a cheap connection check. One attempt, no cache. */
  async listModels(signal?: AbortSignal): Promise<string[]> {
    const call: RecordedLlmCall = {
      id: `${this.role}-models`,
      role: this.role,
      model: this.config.model,
      cache_key: '',
      attempts: [],
    };
    const cfg = this.config;
    const result = await this.withRetries(call, signal, { prompt: 0, reserve: 0 }, async (s) => {
      const ids: string[] = [];
      for await (const m of this.#openai.models.list({ signal: s, timeout: cfg.timeoutMs, maxRetries: 0 }))
        ids.push(m.id);
      return { ids, requestId: undefined };
    });
    return result.ids;
  }

  /**
   * One non-streamed chat completion over node:http (nodeFetch.ts `postJson`), without the SDK's
   * per-request machinery (header building, WHATWG fetch objects, web streams): with dozens of
   * conversations in flight that CPU delayed every answer (bench/RESULTS.md, "LLM"). Errors are
   * the SDK's own classes, so `classify` treats both paths alike.
   */
  private async chatOnce(
    direct: { url: URL; headers: Record<string, string> },
    body: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<ChatOutcome> {
    let raw;
    const sends = this.#options.sends;
    try {
      sends?.started();
      raw = await postJson(direct.url, direct.headers, JSON.stringify(body), signal, sends && (() => sends.sent()));
    } catch (error) {
      if (signal.aborted) throw new APIUserAbortError();
      throw new APIConnectionError({ cause: error instanceof Error ? error : new Error(String(error)) });
    }
    const requestId = firstHeader(raw.headers['x-request-id']);
    if (raw.status < 200 || raw.status >= 300) {
      let json: unknown;
      try {
        json = JSON.parse(raw.body);
      } catch {
        json = undefined;
      }
      const headers = new Headers();
      for (const [k, v] of Object.entries(raw.headers)) {
        if (Array.isArray(v)) for (const x of v) headers.append(k, x);
        else if (v !== undefined) headers.set(k, String(v));
      }
      throw APIError.generate(raw.status, json as object | undefined, json ? undefined : raw.body, headers);
    }
    return chatOutcomeOf(JSON.parse(raw.body) as OpenAI.Chat.ChatCompletion | undefined, requestId);
  }

  private async streamOnce(body: Record<string, unknown>, signal: AbortSignal): Promise<ChatOutcome> {
    const { data: stream, request_id } = await this.#openai.chat.completions
      .create(
        {
          ...body,
          stream: true,
          stream_options: { include_usage: true },
        } as OpenAI.Chat.ChatCompletionCreateParamsStreaming,
        {
          signal,
          timeout: this.config.timeoutMs,
          maxRetries: 0,
        },
      )
      .withResponse();
    let text = '';
    let finishReason: string | undefined;
    let promptTokens: number | undefined;
    let completionTokens: number | undefined;
    for await (const chunk of stream) {
      const choice = chunk.choices?.[0];
      if (choice?.delta?.content) text += choice.delta.content;
      if (choice?.finish_reason) finishReason = choice.finish_reason;
      if (chunk.usage) {
        promptTokens = chunk.usage.prompt_tokens;
        completionTokens = chunk.usage.completion_tokens;
      }
    }
    // A stream that ends without a finish_reason was cut off: do not mistake half an answer for one.
    if (!finishReason) throw new InvalidResponse('the stream ended before the answer was complete');
    return { text, finishReason, promptTokens, completionTokens, requestId: request_id ?? undefined };
  }

  /**
   * Runs `once` under the concurrency limit until an attempt succeeds, retrying what is retryable
   * (up to `maxRetries`, waiting for Retry-After or a backoff), with each attempt's own timeout and
   * a token reservation against the budget; every attempt is recorded in `call`. Throws LlmError.
   */
  private async withRetries<T extends { promptTokens?: number; completionTokens?: number; requestId?: string }>(
    call: RecordedLlmCall,
    callSignal: AbortSignal | undefined,
    estimatedTokens: TokenEstimate,
    once: (signal: AbortSignal) => Promise<T & { text?: string }>,
  ): Promise<T> {
    const { signal: outerSignal, unhook } = this.callAbortSignal(callSignal);
    const started = Date.now();
    const fail = (failure: AttemptFailure, attempts: number): never => this.failCall(call, started, failure, attempts);
    try {
      return await this.limiter.run(async () => {
        for (let attempt = 0; ; attempt++) {
          if (outerSignal.aborted) fail({ kind: 'aborted', retryable: false, message: 'LLM call cancelled' }, attempt);
          // Reserved before sending (the prompt's estimated tokens plus max_tokens), so requests in
          // flight together cannot overshoot a token budget; settled with the real usage below.
          let reservation: number | undefined;
          try {
            reservation = this.#options.budget?.reserve(estimatedTokens.reserve);
          } catch (e) {
            fail({ kind: 'budget', retryable: false, message: (e as Error).message }, attempt);
          }
          const controller = new AbortController();
          let timedOut = false;
          const timer = setTimeout(() => {
            timedOut = true;
            controller.abort();
          }, this.config.timeoutMs);
          const onOuterAbort = () => controller.abort();
          outerSignal.addEventListener('abort', onOuterAbort, { once: true });
          const t0 = Date.now();
          try {
            const result = await once(controller.signal);
            const record: LlmAttempt = { attempt: attempt + 1, status: 200, latency_ms: Date.now() - t0 };
            if (result.requestId) record.request_id = result.requestId;
            call.attempts.push(record);
            call.latency_ms = Date.now() - started;
            if (reservation !== undefined) this.settleUsage(reservation, result, estimatedTokens);
            return result;
          } catch (error) {
            // A failed attempt is still a request on the wire; its tokens are unknown (none are charged).
            if (reservation !== undefined) this.#options.budget?.settle(reservation, 0, false);
            const failure = this.classify(error, timedOut, outerSignal.aborted);
            const record: LlmAttempt = { attempt: attempt + 1, error: failure.message, latency_ms: Date.now() - t0 };
            if (failure.status !== undefined) record.status = failure.status;
            if (failure.requestId) record.request_id = failure.requestId;
            call.attempts.push(record);
            if (!failure.retryable || attempt >= this.config.maxRetries) {
              const suffix = failure.retryable ? ` (gave up after ${attempt + 1} attempt${attempt ? 's' : ''})` : '';
              fail({ ...failure, message: failure.message + suffix }, attempt + 1);
            }
            if (this.#options.stopRetries?.aborted) fail(notRetried(failure, attempt), attempt + 1);
            record.wait_ms = this.retryWait(failure, attempt);
            await this.waitToRetry(record.wait_ms, outerSignal, failure, attempt, fail);
          } finally {
            clearTimeout(timer);
            outerSignal.removeEventListener('abort', onOuterAbort);
          }
        }
      }, outerSignal);
    } catch (error) {
      if (error instanceof LlmError) throw error;
      // Cancelled while waiting for a concurrency slot.
      fail({ kind: 'aborted', retryable: false, message: 'LLM call cancelled' }, 0);
      throw error;
    } finally {
      for (const u of unhook) u();
    }
  }

  /**
   * The call's own signal, aborted by the client's signal (through the fan-out) or the call's, and
   * the functions that unhook it from them once the call is over.
   */
  private callAbortSignal(callSignal: AbortSignal | undefined): { signal: AbortSignal; unhook: Array<() => void> } {
    const callController = new AbortController();
    const cancel = () => callController.abort();
    const unhook: Array<() => void> = [];
    if (this.#abort?.signal.aborted || callSignal?.aborted) cancel();
    else {
      if (this.#abort) unhook.push(this.#abort.add(cancel));
      if (callSignal) {
        callSignal.addEventListener('abort', cancel, { once: true });
        unhook.push(() => callSignal.removeEventListener('abort', cancel));
      }
    }
    return { signal: callController.signal, unhook };
  }

  /** Records a call that failed for good and throws its error (BudgetExceededError for a spent budget). */
  private failCall(call: RecordedLlmCall, started: number, failure: AttemptFailure, attempts: number): never {
    call.error = failure.message;
    call.latency_ms = Date.now() - started;
    if (failure.requestId) call.request_id = failure.requestId;
    this.#options.onCall?.(call);
    const err =
      failure.kind === 'budget'
        ? new BudgetExceededError(failure.message)
        : new LlmError(failure.message, failure.kind, {
            status: failure.status,
            requestId: failure.requestId,
            attempts,
            callId: call.id,
            role: this.role,
          });
    throw err;
  }

  /**
   * Settles a successful attempt's token reservation with the usage the endpoint reported, or
   * without one the prompt estimate plus the answer's length (and says it was estimated).
   */
  private settleUsage(
    reservation: number,
    result: { promptTokens?: number; completionTokens?: number; text?: string },
    estimatedTokens: TokenEstimate,
  ): void {
    const reported = result.promptTokens !== undefined || result.completionTokens !== undefined;
    const tokens = reported
      ? (result.promptTokens ?? 0) + (result.completionTokens ?? 0)
      : estimatedTokens.prompt + (typeof result.text === 'string' ? estimateTextTokens(result.text) : 0);
    this.#options.budget?.settle(reservation, tokens, !reported);
  }

  /** Milliseconds to wait before the next attempt: the endpoint's Retry-After (capped, with jitter), else the backoff. */
  private retryWait(failure: AttemptFailure, attempt: number): number {
    return failure.retryAfter !== undefined
      ? Math.min(MAX_RETRY_AFTER_MS, failure.retryAfter) +
          Math.round(Math.min(1000, failure.retryAfter * 0.1) * this.random())
      : backoffDelay(attempt, this.config.backoffMs, this.config.maxBackoffMs, this.random);
  }

  /**
   * Waits before a retry; the wait ends at once on a hard abort (the call fails as cancelled) or
   * when the run stops retrying (the call fails with the attempt's error, not retried).
   */
  private async waitToRetry(
    wait: number,
    outerSignal: AbortSignal,
    failure: AttemptFailure,
    attempt: number,
    fail: (failure: AttemptFailure, attempts: number) => never,
  ): Promise<void> {
    const waitController = new AbortController();
    const endWait = () => waitController.abort();
    outerSignal.addEventListener('abort', endWait, { once: true });
    this.#options.stopRetries?.addEventListener('abort', endWait, { once: true });
    try {
      await this.sleep(wait, waitController.signal);
    } catch {
      if (outerSignal.aborted) fail({ kind: 'aborted', retryable: false, message: 'LLM call cancelled' }, attempt + 1);
      fail(notRetried(failure, attempt), attempt + 1);
    } finally {
      outerSignal.removeEventListener('abort', endWait);
      this.#options.stopRetries?.removeEventListener('abort', endWait);
    }
  }

  private classify(error: unknown, timedOut: boolean, cancelled: boolean): AttemptFailure {
    const where = `${this.role} model "${this.config.model}" at ${this.publicBaseUrl}`;
    const clean = (text: string) => redactSecrets(text, this.#secrets);
    if (cancelled) return { kind: 'aborted', retryable: false, message: 'LLM call cancelled' };
    if (timedOut || error instanceof APIConnectionTimeoutError) {
      return {
        kind: 'timeout',
        retryable: true,
        message: `${where}: no complete answer within ${this.config.timeoutMs} ms`,
      };
    }
    if (error instanceof APIUserAbortError) return { kind: 'aborted', retryable: false, message: 'LLM call cancelled' };
    if (error instanceof APIConnectionError) {
      const cause = (error as { cause?: { message?: string; code?: string } }).cause;
      const detail = cause?.code ?? cause?.message ?? error.message;
      return { kind: 'connection', retryable: true, message: clean(`${where}: connection failed (${detail})`) };
    }
    if (error instanceof APIError) {
      const status = error.status;
      const retryable = status === undefined || status === 408 || status === 409 || status === 429 || status >= 500;
      const requestId = error.requestID ?? undefined;
      const hint =
        status === 401
          ? ' (check the API key: SIMLENS_API_KEY / OPENAI_API_KEY or "SimLens: Set API Key")'
          : status === 404
            ? ' (check the base URL and model name)'
            : '';
      return {
        kind: 'http',
        retryable,
        status,
        requestId: requestId || undefined,
        retryAfter: retryAfterMs(error.headers),
        message: clean(`${where}: HTTP ${status ?? '?'}: ${error.message}${hint}`),
      };
    }
    if (error instanceof InvalidResponse)
      return { kind: 'invalid_response', retryable: true, message: clean(`${where}: ${error.message}`) };
    if (error instanceof LlmError) return { kind: error.kind, retryable: false, message: error.message };
    // Anything else while reading the answer (an unparsable body, a socket closed mid-stream).
    const message = error instanceof Error ? error.message : String(error);
    const kind: LlmErrorKind = error instanceof SyntaxError ? 'invalid_response' : 'connection';
    return {
      kind,
      retryable: true,
      message: clean(
        `${where}: ${kind === 'invalid_response' ? 'unreadable answer' : 'answer interrupted'} (${message})`,
      ),
    };
  }
}

class InvalidResponse extends Error {}

/**
 * A retryable failure given up because the run is stopping (first Ctrl-C, SIGTERM): `aborted`, so
 * the run ends `cancelled` (not `stopped` for a broken endpoint) and its conversation is redone by a resume.
 */
function notRetried(failure: AttemptFailure, attempt: number): AttemptFailure {
  return {
    kind: 'aborted',
    retryable: false,
    message: `${failure.message} (not retried: the run is stopping, after ${attempt + 1} attempt${attempt ? 's' : ''})`,
  };
}

/** Rough tokens of a text (4 characters a token, as the budget estimates). */
function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * What a chat request may cost at most, as the budget reserves it: its messages' estimated tokens
 * (plus a few per message) and `max_tokens` (1,024 when none is set).
 */
function estimateChatTokens(messages: readonly ChatMessage[], maxTokens: number | undefined): TokenEstimate {
  let prompt = 0;
  for (const m of messages) prompt += estimateTextTokens(m.content) + 4;
  return { prompt, reserve: prompt + (maxTokens ?? DEFAULT_COMPLETION_ESTIMATE) };
}

/** A request's estimated prompt tokens, and what the budget reserves for it (prompt + max completion). */
interface TokenEstimate {
  prompt: number;
  reserve: number;
}

/** Completion tokens reserved for a request without max_tokens. */
const DEFAULT_COMPLETION_ESTIMATE = 1024;

function firstHeader(value: string | string[] | undefined): string | undefined {
  return (Array.isArray(value) ? value[0] : value) || undefined;
}
