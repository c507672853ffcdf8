/**
 * User outcomes and run failures of a population, counted apart.
 *
 * A failed conversation (the recommender failed, the simulated user could not speak, the simulator
 * crashed; see `conversationFailure` in src/core/failures.ts) says nothing about how a user
 * behaves, so:
 * - accepted / ended / gave_up / abandoned are shares of the conversations WITHOUT failures;
 * - failures are counted separately: agent errors, other failures, and per reason;
 * - every metric about user behaviour is computed on `withoutFailures(...)`.
 */
import { isUserOutcome, reportedOutcome, type Conversation, type UserOutcome } from '../model';
import { conversationFailure, FAILURE_REASONS, type FailureReason } from '../failures';

/** A failure whose file does not say its class (e.g. a bare `outcome: "agent_error"`). */
export const UNKNOWN_REASON = 'unknown';
export type FailureKey = FailureReason | typeof UNKNOWN_REASON;

export interface OutcomeCounts {
  /** Conversations counted (with and without failures). */
  conversations: number;
  /** Conversations without failures: the denominator of the user-outcome shares. */
  completed: number;
  accepted: number;
  ended: number;
  /** Users that left unserved with patience left (absent in counts made before it existed). */
  gave_up: number;
  abandoned: number;
  /**
   * Conversations without failures that report no outcome (no `outcome`, rating or trace; see
   * `reportedOutcome`): counted apart, never as ended. Absent in counts made before it existed.
   */
  unknown?: number;
  /** Failed conversations the recommender caused. */
  agentErrors: number;
  /** Other failed conversations (simulated user, judge, simulator). */
  otherFailures: number;
  /** Failed conversations per reason; reasons that did not occur are absent. */
  byReason: Partial<Record<FailureKey, number>>;
}

/** Whether a conversation failed (any reason). */
export function isFailedConversation(conv: Conversation): boolean {
  return conversationFailure(conv) !== undefined;
}

/** The conversations without failures, in order: the input of every metric about user behaviour. */
export function withoutFailures<T extends Conversation>(conversations: readonly T[]): T[] {
  return conversations.filter((c) => !isFailedConversation(c));
}

/** What one conversation counts as: a failure (by the recommender or not, with its reason) or a user outcome. */
export interface OutcomeClass {
  failure?: { agent: boolean; reason: FailureKey };
  /** Absent without a failure: the conversation reports no outcome (unknown). */
  outcome?: UserOutcome;
}

/** The outcome class of a conversation (what `countOutcomes` counts it as). */
export function outcomeClass(c: Conversation): OutcomeClass {
  const f = conversationFailure(c);
  if (f) return { failure: { agent: f.agent, reason: f.reason ?? UNKNOWN_REASON } };
  const o = reportedOutcome(c);
  if (o === undefined) return {};
  return { outcome: isUserOutcome(o) ? o : 'ended' };
}

/** Counts outcome classes: user outcomes over those without failures, failures per reason. */
export function tallyOutcomes(classes: readonly OutcomeClass[]): OutcomeCounts {
  const out: OutcomeCounts = {
    conversations: classes.length,
    completed: 0,
    accepted: 0,
    ended: 0,
    gave_up: 0,
    abandoned: 0,
    agentErrors: 0,
    otherFailures: 0,
    byReason: {},
  };
  for (const k of classes) {
    if (k.failure) {
      if (k.failure.agent) out.agentErrors++;
      else out.otherFailures++;
      out.byReason[k.failure.reason] = (out.byReason[k.failure.reason] ?? 0) + 1;
      continue;
    }
    out.completed++;
    if (k.outcome) out[k.outcome]++;
    else out.unknown = (out.unknown ?? 0) + 1;
  }
  return out;
}

/** Counts user outcomes (over conversations without failures) and failures (per reason). */
export function countOutcomes(conversations: readonly Conversation[]): OutcomeCounts {
  return tallyOutcomes(conversations.map(outcomeClass));
}

/** Failed conversations in total. */
export function failedCount(counts: OutcomeCounts): number {
  return counts.agentErrors + counts.otherFailures;
}

/** The reasons that occur in any of the counts, in the canonical order (unknown last). */
export function reasonsIn(counts: readonly OutcomeCounts[]): FailureKey[] {
  const keys: FailureKey[] = [...FAILURE_REASONS, UNKNOWN_REASON];
  return keys.filter((k) => counts.some((c) => (c.byReason[k] ?? 0) > 0));
}

/** "agent_timeout 2, simulator_error 1" (empty when nothing failed). */
export function describeFailures(counts: OutcomeCounts): string {
  return reasonsIn([counts])
    .map((k) => `${k} ${counts.byReason[k]}`)
    .join(', ');
}

/** Conversations without failures that report an outcome: the denominator of the user-outcome shares. */
function reportedCount(counts: OutcomeCounts): number {
  return counts.completed - (counts.unknown ?? 0);
}

/** A share of the conversations without failures that report an outcome; NaN when there are none. */
export function userOutcomeShare(counts: OutcomeCounts, outcome: UserOutcome): number {
  const n = reportedCount(counts);
  return n > 0 ? (counts[outcome] ?? 0) / n : NaN;
}

/** "outcome unknown: 2 of 77", or undefined when every conversation without failures reports one. */
export function describeUnknown(counts: OutcomeCounts): string | undefined {
  return counts.unknown ? `outcome unknown: ${counts.unknown} of ${counts.completed}` : undefined;
}
