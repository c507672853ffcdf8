/** Errors raised by the LLM layer. Messages are already redacted. */

export type LlmErrorKind =
  | 'http' // a non-retryable HTTP status, or a retryable one after the last retry
  | 'timeout'
  | 'connection'
  | 'invalid_response' // the endpoint answered with something that is not a completion
  | 'aborted' // cancelled through an AbortSignal
  | 'budget'; // the per-run request/token budget is spent

export class LlmError extends Error {
  constructor(
    message: string,
    readonly kind: LlmErrorKind,
    readonly details: { status?: number; requestId?: string; attempts?: number; callId?: string; role?: string } = {},
  ) {
    super(message);
    this.name = 'LlmError';
  }
}

/** Thrown before a request would exceed the run's budget. Never retried. */
export class BudgetExceededError extends LlmError {
  constructor(message: string) {
    super(message, 'budget');
    this.name = 'BudgetExceededError';
  }
}

/**
 * HTTP statuses that reject one request for what it carries (too long for the context, a bad
 * parameter for this prompt), not the endpoint as a whole: resending the same request gets the same
 * answer, and other conversations are not affected. 401, 403 and 404 (key, permission, model or
 * URL) are endpoint-wide and stop the run.
 */
const REQUEST_SPECIFIC_STATUSES: ReadonlySet<number> = new Set([400, 413, 422]);

/** True for an LLM error that is a permanent failure of the one conversation (or annotation) it happened in. */
export function isConversationLlmFailure(error: unknown): boolean {
  return (
    error instanceof LlmError &&
    error.kind === 'http' &&
    error.details.status !== undefined &&
    REQUEST_SPECIFIC_STATUSES.has(error.details.status)
  );
}

/** True for errors after which the whole run should stop rather than go on with other conversations. */
export function isRunFatal(error: unknown): boolean {
  return error instanceof LlmError && (error.kind === 'budget' || error.kind === 'aborted');
}

/**
 * Raised by simulators and agents when the model kept answering in an unusable shape after every
 * repair and retry. The conversation records it and ends; it does not stop the run.
 */
export class LlmOutputError extends Error {
  constructor(
    message: string,
    readonly raw: string,
  ) {
    super(message);
    this.name = 'LlmOutputError';
  }
}
