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
    readonly details: { status?: number; requestId?: string; attempts?: number; callId?: string } = {},
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

/** True for errors after which the whole run should stop rather than go on with other conversations. */
export function isRunFatal(error: unknown): boolean {
  return error instanceof LlmError && (error.kind === 'budget' || error.kind === 'aborted');
}

/**
 * Raised by simulators and agents when the model kept answering in an unusable shape after every
 * repair and retry. The conversation records it and ends; it does not stop the run.
 */
export class LlmOutputError extends Error {
  constructor(message: string, readonly raw: string) {
    super(message);
    this.name = 'LlmOutputError';
  }
}
