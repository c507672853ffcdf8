/**
 * Run accounting for failures: one definition shared by `simulate`, `judge`, `discriminate` and the
 * VS Code commands, so every entry point counts a failure the same way and stops for the same reason.
 *
 * A failure is never a user outcome: an agent that timed out or answered garbage makes the
 * conversation `agent_error` (not `abandoned`), and the tally below counts it per reason. The
 * policy `maxConsecutive` stops a run after N failures in a row (a dead endpoint should not burn
 * through thousands of conversations); 0 means never stop.
 */

/** Why one unit of work (a conversation, a judged conversation) failed. */
export type FailureReason =
  /** The recommender answered with an HTTP error status. */
  | 'agent_http'
  /** The recommender did not answer in time. */
  | 'agent_timeout'
  /** The recommender could not be reached (connection refused, DNS, reset). */
  | 'agent_unreachable'
  /** The recommender answered, but not with the documented shape. */
  | 'agent_malformed'
  /** An LLM-backed recommender failed after its retries. */
  | 'agent_llm'
  /** An LLM-backed user failed after its retries (or replied with nothing usable). */
  | 'user_llm'
  /** The judge failed on this conversation (after its retries, or its answer stayed unusable after the repairs). */
  | 'judge_llm'
  /** The discriminator failed on this conversation (after its retries, or its answer stayed unusable after the repairs). */
  | 'discriminator_llm'
  /** An exception inside the simulator itself (a bug, or bad input data). */
  | 'simulator_error';

export const FAILURE_REASONS: readonly FailureReason[] = [
  'agent_http',
  'agent_timeout',
  'agent_unreachable',
  'agent_malformed',
  'agent_llm',
  'user_llm',
  'judge_llm',
  'discriminator_llm',
  'simulator_error',
];

/** True for the reasons that are the recommender's fault (outcome `agent_error`). */
export function isAgentFailure(reason: FailureReason): boolean {
  return reason.startsWith('agent_');
}

/** What a manifest or summary records about failures. */
export interface FailureCounts {
  /** Units that failed, whatever the reason. */
  failed: number;
  /** Of those, the ones the recommender caused. */
  agent_errors: number;
  /** Per reason; reasons that did not occur are absent. */
  by_reason: Partial<Record<FailureReason, number>>;
}

/** Thrown (or recorded as the stop reason) when the consecutive-failure policy stops a run. */
class ConsecutiveFailuresStop extends Error {
  constructor(
    readonly count: number,
    readonly lastReason: FailureReason,
    readonly lastMessage: string,
  ) {
    super(`stopped after ${count} consecutive failures (last: ${lastReason}: ${lastMessage})`);
    this.name = 'ConsecutiveFailuresStop';
  }
}

/**
 * Counts failures per reason and watches the consecutive-failure policy. Feed it every finished
 * unit in completion order (`success()` or `failure()`); `stop` is set once the policy trips.
 */
export class FailureTally {
  private readonly byReason = new Map<FailureReason, number>();
  private consecutive = 0;
  private failedTotal = 0;
  /** Set when the policy stopped the run. */
  stop: ConsecutiveFailuresStop | undefined;

  /** `maxConsecutive` <= 0 disables the policy. `initial` carries counts over from a resumed run. */
  constructor(
    readonly maxConsecutive = 0,
    initial?: FailureCounts,
  ) {
    if (initial) {
      this.failedTotal = initial.failed;
      for (const [r, n] of Object.entries(initial.by_reason)) if (n) this.byReason.set(r as FailureReason, n);
    }
  }

  success(): void {
    this.consecutive = 0;
  }

  failure(reason: FailureReason, message: string): void {
    this.failedTotal++;
    this.byReason.set(reason, (this.byReason.get(reason) ?? 0) + 1);
    this.consecutive++;
    if (this.maxConsecutive > 0 && this.consecutive >= this.maxConsecutive && !this.stop) {
      this.stop = new ConsecutiveFailuresStop(this.consecutive, reason, message);
    }
  }

  get failed(): number {
    return this.failedTotal;
  }

  counts(): FailureCounts {
    const by_reason: Partial<Record<FailureReason, number>> = {};
    let agent = 0;
    for (const r of FAILURE_REASONS) {
      const n = this.byReason.get(r);
      if (!n) continue;
      by_reason[r] = n;
      if (isAgentFailure(r)) agent += n;
    }
    return { failed: this.failedTotal, agent_errors: agent, by_reason };
  }

  /** One line for a summary, e.g. "3 failed (agent_timeout 2, simulator_error 1)"; "0 failed" when none. */
  describe(): string {
    const c = this.counts();
    const parts = Object.entries(c.by_reason).map(([r, n]) => `${r} ${n}`);
    return parts.length ? `${c.failed} failed (${parts.join(', ')})` : `${c.failed} failed`;
  }
}

/** The default of `--max-consecutive-failures` (simulate, judge, discriminate, VS Code). */
export const DEFAULT_MAX_CONSECUTIVE_FAILURES = 10;

/** True for the names of FAILURE_REASONS (e.g. a `metadata.error_kind` read back from a file). */
export function isFailureReason(value: unknown): value is FailureReason {
  return typeof value === 'string' && (FAILURE_REASONS as readonly string[]).includes(value);
}

/** Why a conversation read back from a file counts as a failure of its run (see `conversationFailure`). */
interface ConversationFailureInfo {
  /** The failure class, when the file says (a FailureReason); undefined for an unlabelled agent_error. */
  reason: FailureReason | undefined;
  /** True when the recommender caused it (outcome `agent_error` or an `agent_*` reason). */
  agent: boolean;
  message: string;
  /** 0-based index of the turn that failed (the turn with `trace.error`), when there is one. */
  turn?: number;
}

/**
 * Whether a conversation failed, and why: the one test every report, panel and metric uses to keep
 * failures apart from user outcomes. A conversation failed when its outcome is `agent_error` or
 * `simulator_error`, a turn carries `trace.error`, or `metadata.error` is set (a simulator crash, or
 * any run failure in current outputs). The reason is `metadata.error_kind`, else the failed turn's
 * `trace.error_kind`, else `simulator_error` for a bare `metadata.error` or that outcome; unknown
 * strings are not trusted as reasons.
 */
export function conversationFailure(conv: {
  outcome?: string;
  turns: ReadonlyArray<{ trace?: { error?: string; error_kind?: string } }>;
  metadata?: Record<string, unknown>;
}): ConversationFailureInfo | undefined {
  const turn = conv.turns.findIndex((t) => typeof t.trace?.error === 'string');
  const trace = turn >= 0 ? conv.turns[turn].trace! : undefined;
  const metaError = typeof conv.metadata?.error === 'string' ? conv.metadata.error : undefined;
  const metaKind = conv.metadata?.error_kind;
  if (!trace && metaError === undefined && conv.outcome !== 'agent_error' && conv.outcome !== 'simulator_error')
    return undefined;
  const reason = isFailureReason(metaKind)
    ? metaKind
    : isFailureReason(trace?.error_kind)
      ? (trace!.error_kind as FailureReason)
      : (metaError !== undefined && !trace && conv.outcome !== 'agent_error') || conv.outcome === 'simulator_error'
        ? 'simulator_error'
        : undefined;
  const agent =
    conv.outcome === 'agent_error' ||
    (reason !== undefined && isAgentFailure(reason)) ||
    (reason === undefined && trace !== undefined);
  const message = metaError ?? trace?.error ?? (agent ? 'the recommender failed' : 'the simulator failed');
  return turn >= 0 ? { reason, agent, message, turn } : { reason, agent, message };
}
