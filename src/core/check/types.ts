/**
 * Types of the behavioural invariant checker (see ./invariants.ts for the invariants themselves and
 * ./checker.ts for running them over a population).
 */
import type { Conversation } from '../model';
import type { ReadbackOptions, ReadbackReport } from './readback';

/** What the checker may know about an item: from a carousel of the conversation or from a catalog. */
export interface ItemFacts {
  item_id: string;
  title?: string;
  category?: string;
  /** Attribute values as strings ("colour" -> "black"). */
  attributes: Record<string, string>;
  /** Its price, when the carousel entry (a `price` field) or the catalog gives one. */
  price?: number;
}

/** A catalog the checker can resolve item ids with (`Catalog` from src/core/catalog fits). */
export interface ItemLookup {
  get(
    id: string,
  ):
    | { item_id: string; title?: string; category?: string; attributes: Record<string, string>; price?: number }
    | undefined;
  /**
   * Similarity in [0, 1] of two items `get` returned (`Catalog.similarity`): the meta-simulators'
   * "most similar member" rule needs it; without it that part of meta-switch-rule is unchecked.
   */
  similarity?(a: never, b: never): number;
}

export interface CheckOptions {
  /** Resolves items that no carousel of the conversation shows (meta targets, PEPPER targets). */
  catalog?: ItemLookup;
  /** The run's turn cap (default: `metadata.turn_cap`, else 20 for simulated conversations). */
  maxTurns?: number;
  /** The meta-simulator's tolerance: turns before a target switch is allowed (default 2, as `simlens simulate`). */
  metaTolerance?: number;
  /** Example violations kept per invariant (default 5). */
  examples?: number;
  /** Run only these invariant ids (default: all). */
  only?: readonly string[];
  /** Check these invariants instead of the built-in INVARIANTS (e.g. a project's own). */
  invariants?: readonly Invariant[];
  /**
   * The agenda users' answers table (user act -> agent acts that answer it) the run used, to judge a
   * push reason "X does not answer Y": default the built-in appropriate-answers.json; null when the
   * run used its own table and it could not be read (those reasons are then unchecked).
   */
  answers?: Readonly<Record<string, readonly string[]>> | null;
  /** Agents that promise to honour negations (default ["local-good"]). */
  negationAgents?: readonly string[];
  /**
   * Read every traced user utterance back against its trace (./readback.ts) and add the agreement
   * to the report (default true; false for the invariants alone).
   */
  readback?: boolean | ReadbackOptions;
}

/** One conversation as an invariant sees it. */
export interface ConversationContext {
  conversation: Conversation;
  /** conversationId(conversation, line). */
  id: string;
  /** 1-based line in the input file, when known. */
  line?: number;
  options: CheckOptions;
  /** An item's facts: the first carousel entry of this conversation with attributes, else the catalog (memoized: do not mutate). */
  item(id: string): ItemFacts | undefined;
  /** The words of turn i's user utterance (`tokenize`, memoized; [] without one). */
  words(i: number): readonly string[];
  /** Turn i's words joined by single spaces (memoized per text: the same wording, the same key). */
  wordKey(i: number): string;
  /** Turn i's words as a set (memoized per text: read, do not mutate). */
  wordSet(i: number): ReadonlySet<string>;
  /** The clauses of turn i's user utterance (`clauses`, memoized). */
  clauses(i: number): readonly string[][];
  /** Whether turn i's words hold one that could negate what follows it (`hasNegator`, memoized). */
  mayNegate(i: number): boolean;
  /** Turn i's `trace.said.constraints` as [attribute, value] pairs (memoized: read, do not mutate). */
  said(i: number): readonly [string, string][] | undefined;
}

/** One violation inside a conversation. `turn` is the 0-based turn index (absent: the whole conversation). */
export interface Violation {
  turn?: number;
  detail: string;
}

/** What an invariant found in one conversation it applies to. */
export interface InvariantFinding {
  /** Turns the invariant looked at (0 for a conversation-level invariant that still applied). */
  turns: number;
  violations: Violation[];
  /**
   * Parts of the rule this conversation could not be checked for, each one sentence saying why
   * and how to get it checked (e.g. "no catalog: ... (pass --catalog)"). Never silently a pass.
   */
  unchecked?: string[];
}

/** A documented tolerance: the share of applicable conversations that may violate the invariant. */
export interface InvariantTolerance {
  share: number;
  reason: string;
}

export interface Invariant {
  /** Kebab-case id, stable across versions. */
  id: string;
  /** One line: what must hold. */
  statement: string;
  /** Where the rule comes from (paper section or SimLens rule), one line. */
  source: string;
  tolerance?: InvariantTolerance;
  /** What a conversation must carry for the rule to apply (said when it is n/a), one line. */
  needs?: string;
  /** undefined = the conversation lacks the fields this invariant needs (not applicable). */
  check(ctx: ConversationContext): InvariantFinding | undefined;
}

export interface ViolationExample {
  conversation: string;
  line?: number;
  turn?: number;
  detail: string;
}

/**
 * pass: applied to at least one conversation, no violation. fail: violations beyond the tolerance.
 * tolerated: violations within the documented tolerance. not-applicable: no conversation carried the
 * fields it needs (never counted as a pass).
 */
export type InvariantStatus = 'pass' | 'fail' | 'tolerated' | 'not-applicable';

export interface InvariantResult {
  id: string;
  statement: string;
  source: string;
  tolerance?: InvariantTolerance;
  status: InvariantStatus;
  /** Conversations it applied to. */
  conversations: number;
  /** Turns it looked at in those conversations. */
  turns: number;
  /** All violations (several per conversation possible). */
  violations: number;
  violatingConversations: number;
  /** The first `examples` violations, in input order. */
  examples: ViolationExample[];
  /** Why it is n/a: the fields it needs that no conversation carried (status not-applicable only). */
  na_reason?: string;
  /** Parts of the rule left unchecked, with the number of conversations each concerned. */
  unchecked?: { reason: string; conversations: number }[];
}

export interface CheckReport {
  /** Conversations read. */
  conversations: number;
  invariants: InvariantResult[];
  /** Conversations with a simulator trace on at least one turn (set by InvariantChecker). */
  traced?: number;
  /** Ids of the invariants whose status is "fail". */
  failed: string[];
  /** The utterances read back against their traces (absent when `readback: false`). */
  readback?: ReadbackReport;
  /**
   * True when no invariant failed, which includes nothing checked (every invariant n/a): callers
   * that say "OK" must also ask `checkedInvariants(report) > 0`.
   */
  ok: boolean;
}
