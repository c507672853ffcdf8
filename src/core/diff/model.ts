/**
 * The report of `simlens diff` and of "SimLens: Compare Runs…": one plain-data model, rendered as
 * JSON and Markdown by the CLI and drawn by the compare panel. Turn numbers are 0-based (as
 * everywhere in SimLens files, e.g. `--fork FILE:ID:TURN`); renderers show them 1-based.
 */
import type { UserOutcome } from '../model';

/** How conversations of two runs are paired (see pairing.ts). */
export type PairingMode = 'seed' | 'id' | 'profile';

/** What of a turn's dialogue can differ, in the order compared (see compare.ts). */
export const DIALOGUE_PARTS = [
  'user_act',
  'user_utterance',
  'agent_act',
  'assistant_utterance',
  'recommendations',
  'ended',
] as const;
export type DialoguePart = (typeof DIALOGUE_PARTS)[number];

/** The differences of one turn (0-based `turn`), as compare.ts reports them. */
export interface TurnDifference {
  turn: number;
  /** Dialogue parts that differ, in DIALOGUE_PARTS order. */
  parts: DialoguePart[];
  /** Trace fields that differ ("patience", "agenda", ...), sorted. */
  traceFields: string[];
}

export const DIFF_REPORT_KIND = 'simlens-diff/1';

/** How a conversation ended, as the diff compares it: a user outcome, unknown, or a failure (never a user outcome). */
/** A user outcome (the model's USER_OUTCOMES), unknown, or a failure with its reason. */
export type OutcomeLabel = UserOutcome | 'unknown' | `failure:${string}`;

export interface RunSide {
  file: string;
  /** Lines holding a conversation. */
  conversations: number;
  /** The run's seed (manifest), when known. */
  seed?: string;
}

/** How the two conversations of a pair differ (comparePair, compare.ts). */
export interface PairComparison {
  /** No dialogue part and no trace field differs (outcomes are compared by the caller). */
  identical: boolean;
  /** First turn (0-based) whose dialogue differs; absent when the dialogues are equal. */
  turn?: number;
  /** What differed there, in the order it happened (the first entry is what diverged first). */
  parts: DialoguePart[];
  /** Trace fields that differ at `turn` (the state behind the divergent turn). */
  traceFieldsAtTurn: string[];
  /** First turn (0-based) where any trace field differs; absent when the traces are equal. */
  traceTurn?: number;
  /** The trace fields that differ at `traceTurn`. */
  traceFields: string[];
}

/** One pair of a run diff: where its two conversations are, how they differ, their outcomes. */
export interface PairSummary extends PairComparison {
  /** The pairing key ("seed 7 #12", "id abc"). */
  key: string;
  idA: string;
  idB: string;
  /** 1-based line numbers in each file. */
  lineA: number;
  lineB: number;
  /** Dialogue, trace and outcome are all equal (the comparison's `identical` and the same outcome). */
  identical: boolean;
  outcomeA: OutcomeLabel;
  outcomeB: OutcomeLabel;
  turnsA: number;
  turnsB: number;
}

export interface UnpairedEntry {
  side: 'A' | 'B';
  line: number;
  id: string;
  /** Why it has no partner. */
  reason: string;
}

export interface FeatureChange {
  feature: string;
  label: string;
  /** Pairs measured (both values known, neither conversation failed). */
  n: number;
  /** Pairs left out: a failure on either side, or the feature unknown on either side. */
  excluded: number;
  meanA: number;
  meanB: number;
  /** Mean of B - A over the measured pairs. */
  meanDiff: number;
  /** Mean difference over the standard deviation of the differences (0 when they are all equal). */
  effect: number;
  /** Seeded percentile bootstrap interval of the mean difference (headline features only). */
  ci?: { low: number; high: number; level: number; resamples: number; seed: string };
  /** Wilcoxon signed-rank test of the differences, as SciPy computes it; absent with no pair. */
  wilcoxon?: { statistic: number; pvalue: number; method: string };
}

export interface SuccessChange {
  /** Pairs where both conversations ended without failure and report an outcome. */
  n: number;
  excluded: number;
  acceptedA: number;
  acceptedB: number;
  /** Accepted in A only / in B only. */
  onlyA: number;
  onlyB: number;
  mcnemar: { statistic: number; pvalue: number };
}

export interface DiffReport {
  kind: typeof DIFF_REPORT_KIND;
  a: RunSide;
  b: RunSide;
  pairing: PairingMode;
  pairs: PairSummary[];
  unpaired: UnpairedEntry[];
  aggregate: {
    pairs: number;
    identical: number;
    /** Pairs whose dialogue differs somewhere. */
    diverged: number;
    /** Pairs whose traces differ but whose dialogues are equal. */
    traceOnly: number;
    outcomeChanged: number;
    /** Outcome A -> B counts over all pairs, failures as their own labels. */
    transitions: { from: OutcomeLabel; to: OutcomeLabel; count: number }[];
    /** Pairs per first divergent dialogue turn (index = 0-based turn). */
    firstTurn: number[];
    /** Pairs per part that diverged first. */
    firstPart: Partial<Record<DialoguePart, number>>;
    /** Pairs per trace field among those differing at the first divergent trace turn. */
    firstTraceFields: Record<string, number>;
  };
  features: FeatureChange[];
  success: SuccessChange;
  /** Options that shaped the numbers (acts source, bootstrap seed and resamples). */
  settings: { acts: string; bootstrapSeed: string; resamples: number };
}
