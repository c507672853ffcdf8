/**
 * One typed request/response-and-events channel for a host <-> webview seam.
 *
 * Both sides exchange plain `{ type, ... }` messages. A request carries a `requestId`; the host's
 * answer carries the same id back. The page side (`RpcClient`) owns the ids and the correlation:
 * every request belongs to a *key* (e.g. "conversation"); a newer request with the same key makes
 * the older one stale, and a stale or unknown answer is dropped (counted in `dropped`) instead of
 * being compared by hand at each call site. Messages without a pending request id are events,
 * routed by type. The host side (`parseAtEdge`) validates everything it receives with zod before
 * any handler sees it: the page renders untrusted text, so its messages are untrusted too.
 *
 * No DOM, no Node and no `vscode`: imported by the webviews and by the extension host.
 */
import type { ZodType } from 'zod';
import { zodErrorMessage } from '../core/jsonl/zodIssues';

/** Every message on a seam: a discriminated union on `type`. */
export interface Envelope {
  type: string;
}

type OfType<M extends Envelope, T extends M['type']> = Extract<M, { type: T }>;

/** What to do with the answer to a request. */
interface ReplyHandlers<R> {
  /** The answer to the newest request of its key. */
  reply: (message: R) => void;
  /** An answer to a request a newer one of the same key replaced (default: dropped). */
  stale?: (message: R) => void;
}

/**
 * The page's end of the channel: request ids, reply correlation, stale replies dropped, events by
 * type. `Out` is what the page sends, `In` what the host sends.
 */
export class RpcClient<Out extends Envelope, In extends Envelope> {
  private next = 1;
  private readonly pending = new Map<number, { key: string; handlers: ReplyHandlers<In> }>();
  private readonly latest = new Map<string, number>();
  private readonly events = new Map<string, (message: In) => void>();
  /** Answers dropped because a newer request replaced theirs, or nothing was waiting for them. */
  dropped = 0;

  constructor(private readonly send: (message: Out) => void) {}

  /** Sends a message that expects no answer. */
  post(message: Out): void {
    this.send(message);
  }

  /**
   * Sends a request built around a fresh id; its answer goes to `handlers.reply` if no newer
   * request of the same `key` was made since (otherwise to `handlers.stale`, or nowhere).
   * Returns the id.
   */
  request(
    key: string,
    build: (requestId: number) => Out,
    handlers: ReplyHandlers<In> | ((message: In) => void),
  ): number {
    const requestId = this.next++;
    this.pending.set(requestId, { key, handlers: typeof handlers === 'function' ? { reply: handlers } : handlers });
    this.latest.set(key, requestId);
    this.send(build(requestId));
    return requestId;
  }

  /** The newest request of `key` will not be answered (or its answer is no longer wanted). */
  cancel(key: string): void {
    const id = this.latest.get(key);
    if (id !== undefined) this.pending.delete(id);
    this.latest.delete(key);
  }

  /** Whether a request of `key` is waiting for its answer. */
  waiting(key: string): boolean {
    const id = this.latest.get(key);
    return id !== undefined && this.pending.has(id);
  }

  /** Handles every host message of `type` that is not the answer to a pending request. */
  on<T extends In['type']>(type: T, handler: (message: OfType<In, T>) => void): this {
    this.events.set(type, handler as (message: In) => void);
    return this;
  }

  /** Routes one message from the host: an answer to its request, else an event. */
  receive(message: In): void {
    const id = (message as { requestId?: unknown }).requestId;
    if (typeof id === 'number') {
      const entry = this.pending.get(id);
      if (entry) {
        this.pending.delete(id);
        if (this.latest.get(entry.key) === id) {
          this.latest.delete(entry.key);
          entry.handlers.reply(message);
        } else if (entry.handlers.stale) entry.handlers.stale(message);
        else this.dropped++;
        return;
      }
    }
    // An answer nobody waits for (cancelled, or to a page before a reload) is dropped, unless its
    // type is also an event (allowUnmatched).
    const handler = this.events.get(message.type);
    if (handler && (typeof id !== 'number' || this.answersAreEvents.has(message.type))) handler(message);
    else this.dropped++;
  }

  /**
   * Message types that may carry a `requestId` the page did not ask for and still be events
   * (e.g. an annotation change answering another page's edit).
   */
  private readonly answersAreEvents = new Set<string>();

  /** Lets `type` through as an event even when it carries a request id this page does not know. */
  allowUnmatched(type: In['type']): this {
    this.answersAreEvents.add(type);
    return this;
  }
}

/**
 * The host's edge: validates a raw message from the page with `schema`. Returns the typed message
 * or an error naming the offending field (the host logs it and does not act on it).
 */
export function parseAtEdge<M>(
  schema: ZodType<M>,
  raw: unknown,
  what: string,
): { ok: true; message: M } | { ok: false; error: string } {
  const result = schema.safeParse(raw);
  if (result.success) return { ok: true, message: result.data };
  return { ok: false, error: zodErrorMessage(what, result.error, raw) };
}
