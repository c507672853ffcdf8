/**
 * `http` agent: drives a researcher's own recommender over HTTP. Each user turn is one POST of
 * `{conversation_id, history, user_utterance}` (JSON) to the URL; the answer must be JSON
 * `{utterance, recommendations?, acts?}`. Failures never throw: a timeout, a network error, a
 * non-2xx status, a body that is not JSON or does not match the schema is returned as
 * `AgentResponse.error` (with its `error_kind`: agent_timeout, agent_unreachable, agent_http,
 * agent_malformed) and an empty utterance; the run ends that conversation as `agent_error`.
 * `latency_ms` is measured on every response (it goes to the manifest's timing statistics, never
 * into the output). The one exception: the run's hard-abort `signal` (a second Ctrl-C) cancels the
 * request in flight and rejects, because a cancelled turn is no answer of the recommender.
 */
import * as z from 'zod';
import { RecommendedItem } from '../../model';
import type { Rng } from '../../random';
import type { Agent, AgentResponse, AgentSession, HistoryEntry, SessionContext } from '../types';
import type { FailureReason } from '../../failures';
import { zodErrorMessage } from '../../jsonl/zodIssues';
import { retryAfterMs } from '../../llm/client';

/** Default per-request timeout. */
const DEFAULT_HTTP_TIMEOUT_MS = 30_000;

/** The response body a recommender endpoint must return. */
const HttpAgentResponse = z.looseObject({
  utterance: z.string(),
  recommendations: z.array(RecommendedItem).default([]),
  acts: z.array(z.string()).optional(),
});

/** Options of the http agent. */
interface HttpAgentOptions {
  timeoutMs?: number;
  /** Extra request headers (e.g. an authorization token for the researcher's own service). */
  headers?: Record<string, string>;
  /** Hard abort of the run: cancels requests in flight (respond then rejects with the signal's reason). */
  signal?: AbortSignal;
  /** Retries of a request answered 429 (or 503 with Retry-After), after the wait it asks for (default 3). */
  maxRetries?: number;
  /**
   * The run's first stop (first Ctrl-C, SIGTERM, VS Code's Cancel): no new retry is sent once it is
   * aborted, and a wait before a retry ends at once; the turn then fails with the answer it had.
   */
  stopRetries?: AbortSignal;
}

/** Default retries after a 429 from the recommender. */
const DEFAULT_HTTP_AGENT_RETRIES = 3;
/** Longest wait before a retry (a Retry-After asking for more is cut to this). */
const MAX_HTTP_AGENT_RETRY_WAIT_MS = 30_000;
/** Wait before retry r (0-based) when the answer gives no Retry-After. */
function defaultRetryWait(retry: number): number {
  return 500 * 2 ** retry;
}

const MAX_BODY_IN_ERROR = 200;

/** An agent backed by a researcher's HTTP endpoint. */
export class HttpAgent implements Agent {
  readonly name: string;
  readonly condition = undefined;
  readonly timeoutMs: number;

  constructor(
    readonly url: string,
    private readonly opts: HttpAgentOptions = {},
  ) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new Error(`http agent: "${url}" is not a valid URL`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new Error(`http agent: "${url}" must use http or https`);
    }
    this.name = `http:${url}`;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;
    if (!(this.timeoutMs > 0)) throw new RangeError(`http agent: timeout must be > 0 ms, got ${this.timeoutMs}`);
  }

  createSession(conversationId: string, _rng: Rng, _context: SessionContext): AgentSession {
    return new HttpAgentSession(
      this.url,
      conversationId,
      this.timeoutMs,
      this.opts.headers ?? {},
      this.opts.signal,
      this.opts.maxRetries ?? DEFAULT_HTTP_AGENT_RETRIES,
      this.opts.stopRetries,
    );
  }
}

class HttpAgentSession implements AgentSession {
  constructor(
    private readonly url: string,
    private readonly conversationId: string,
    private readonly timeoutMs: number,
    private readonly headers: Record<string, string>,
    private readonly abort: AbortSignal | undefined,
    private readonly maxRetries: number,
    private readonly stopRetries: AbortSignal | undefined,
  ) {}

  /**
   * One turn: POSTs, and after a 429 (or a 503 with Retry-After) waits as the answer asks
   * (Retry-After seconds or date, else 0.5 s doubling) and sends again, up to `maxRetries` times.
   * Once the run stops retrying (`stopRetries`), the turn fails with the last answer at once.
   */
  async respond(userUtterance: string, history: readonly HistoryEntry[]): Promise<AgentResponse> {
    const started = performance.now();
    for (let retry = 0; ; retry++) {
      const answer = await this.attempt(userUtterance, history, started);
      if ('response' in answer) return answer.response;
      const attempts = `after ${retry + 1} attempt${retry === 0 ? '' : 's'}`;
      if (retry >= this.maxRetries) return answer.fail(attempts);
      const stopped = `${attempts}; not retried: the run is stopping`;
      if (this.stopRetries?.aborted) return answer.fail(stopped);
      const wait = Math.min(MAX_HTTP_AGENT_RETRY_WAIT_MS, answer.retryAfter ?? defaultRetryWait(retry));
      if ((await sleepUnlessAborted(wait, this.abort, this.stopRetries)) === 'stopped') return answer.fail(stopped);
    }
  }

  private async attempt(
    userUtterance: string,
    history: readonly HistoryEntry[],
    started: number,
  ): Promise<{ response: AgentResponse } | { retryAfter?: number; fail: (attempts: string) => AgentResponse }> {
    const done = (response: AgentResponse) => ({ response });
    const fail = (error_kind: FailureReason, error: string): AgentResponse => ({
      utterance: '',
      recommendations: [],
      error,
      error_kind,
      latency_ms: round(performance.now() - started),
    });
    this.abort?.throwIfAborted();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    const onAbort = () => controller.abort();
    this.abort?.addEventListener('abort', onAbort, { once: true });
    let status: number | undefined;
    let text: string;
    let retryAfter: number | undefined;
    try {
      const res = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...this.headers },
        body: JSON.stringify({ conversation_id: this.conversationId, history, user_utterance: userUtterance }),
        signal: controller.signal,
      });
      status = res.status;
      retryAfter = retryAfterMs(res.headers);
      text = await res.text();
    } catch (e) {
      this.abort?.throwIfAborted();
      if (controller.signal.aborted)
        return done(fail('agent_timeout', `timeout after ${this.timeoutMs} ms (POST ${this.url})`));
      const err = e as Error & { cause?: { code?: string; message?: string } };
      const cause = err.cause?.code ?? err.cause?.message;
      // The recommender answered (a status came) but its body was cut off: an answer in a bad shape, not an unreachable server.
      if (status !== undefined)
        return done(
          fail(
            'agent_malformed',
            `the answer from ${this.url} (HTTP ${status}) was cut off before its end: ${err.message}${cause ? ` (${cause})` : ''}`,
          ),
        );
      return done(
        fail('agent_unreachable', `request failed (POST ${this.url}): ${err.message}${cause ? ` (${cause})` : ''}`),
      );
    } finally {
      clearTimeout(timer);
      this.abort?.removeEventListener('abort', onAbort);
    }
    if (status === 429 || (status === 503 && retryAfter !== undefined)) {
      const message = `HTTP ${status} from ${this.url}: ${excerpt(text)}`;
      return { retryAfter, fail: (attempts) => fail('agent_http', `${message} (${attempts})`) };
    }
    if (status < 200 || status >= 300)
      return done(fail('agent_http', `HTTP ${status} from ${this.url}: ${excerpt(text)}`));
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (e) {
      return done(
        fail('agent_malformed', `invalid JSON from ${this.url}: ${(e as Error).message}; body: ${excerpt(text)}`),
      );
    }
    const parsed = HttpAgentResponse.safeParse(body);
    if (!parsed.success)
      return done(fail('agent_malformed', zodErrorMessage(`invalid response from ${this.url}`, parsed.error, body)));
    const out: AgentResponse = {
      utterance: parsed.data.utterance,
      recommendations: parsed.data.recommendations,
      latency_ms: round(performance.now() - started),
    };
    if (parsed.data.acts) out.acts = parsed.data.acts;
    return done(out);
  }
}

/**
 * Waits `ms`; the run's hard abort rejects at once with its reason, and the run's first stop
 * (`stop`) ends the wait at once with 'stopped'.
 */
function sleepUnlessAborted(
  ms: number,
  signal: AbortSignal | undefined,
  stop?: AbortSignal,
): Promise<'waited' | 'stopped'> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new Error('aborted'));
    if (stop?.aborted) return resolve('stopped');
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      stop?.removeEventListener('abort', onStop);
    };
    const onAbort = () => {
      done();
      reject(signal!.reason ?? new Error('aborted'));
    };
    const onStop = () => {
      done();
      resolve('stopped');
    };
    const timer = setTimeout(() => {
      done();
      resolve('waited');
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
    stop?.addEventListener('abort', onStop, { once: true });
  });
}

function excerpt(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > MAX_BODY_IN_ERROR ? `${t.slice(0, MAX_BODY_IN_ERROR)}…` : t || '(empty body)';
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
