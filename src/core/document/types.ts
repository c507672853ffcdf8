/**
 * The data types of the conversation document that the editor shows: list summaries and their
 * filter, facet counts, search statistics and annotator-agreement reports. Core owns them;
 * src/shared/editorProtocol.ts re-exports them for the host-webview messages.
 */
import * as z from 'zod';
import { Outcome, type Speaker } from '../model';

/** Summary of one line for the conversation list. `line` is the 0-based line index in the file. */
export interface ConversationSummary {
  line: number;
  state: 'valid' | 'invalid' | 'pending' | 'blank';
  id: string;
  task?: string;
  condition?: string;
  source?: string;
  turns: number;
  outcome?: Outcome;
  /** The first user utterance, whitespace collapsed, cut to a short length. */
  snippet: string;
  /** For invalid lines: "line:column message" of the first error. */
  error?: string;
  /** Number of annotators with at least one utterance-level annotation in this conversation. */
  annotators: number;
}

/** The outcome facet and filter value of conversations that report no outcome (`reportedOutcome`). */
export const OUTCOME_UNKNOWN_NAME = 'unknown';

export const SummaryFilterSchema = z.object({
  task: z.string().max(500).optional(),
  condition: z.string().max(500).optional(),
  source: z.string().max(500).optional(),
  /** An outcome, or "unknown" for conversations that report none. */
  outcome: z.union([Outcome, z.literal(OUTCOME_UNKNOWN_NAME)]).optional(),
  validity: z.enum(['all', 'valid', 'invalid']).optional(),
  /** Only conversations annotated by this annotator. */
  annotator: z.string().max(500).optional(),
  /** Case-insensitive text search over utterances. */
  text: z.string().max(1000).optional(),
  /** Which utterances the text search covers (default both). */
  speaker: z.enum(['user', 'assistant', 'both']).optional(),
});
/** Filter over the conversation list; absent fields mean "any". */
export type SummaryFilter = z.infer<typeof SummaryFilterSchema>;

/** Counts of each facet value over the summarized lines (not the filtered view). */
export interface Facets {
  task: Array<[string, number]>;
  condition: Array<[string, number]>;
  source: Array<[string, number]>;
  outcome: Array<[string, number]>;
  annotator: Array<[string, number]>;
  valid: number;
  invalid: number;
  blank: number;
  pending: number;
}

/** Result of a text search attached to a view. */
export interface SearchStats {
  query: string;
  /** Conversations with at least one matching utterance. */
  conversations: number;
  /** Matching utterances in those conversations. */
  utterances: number;
  /** The search stopped at its cap; counts are lower bounds. */
  capped: boolean;
  /** Milliseconds the search took. */
  ms: number;
}

/** One annotator-pair agreement report (see src/core/document/agreement.ts). */
export interface ActAgreement {
  act: string;
  kappa: number | null;
  /** Utterances where each annotator used the act, and where both did. */
  countA: number;
  countB: number;
  both: number;
}

export interface AgreementReport {
  annotatorA: string;
  annotatorB: string;
  speaker: Speaker;
  /** Utterances annotated by both. */
  items: number;
  perAct: ActAgreement[];
  /** Kappa over the primary (first listed) act of each utterance. */
  primaryKappa: number | null;
  /** Labels of the confusion matrix rows (A) and columns (B), in order. */
  labels: string[];
  /** matrix[i][j] = utterances where A's primary act is labels[i] and B's is labels[j]. */
  matrix: number[][];
  /** The taxonomy both sides were compared in. */
  taxonomy?: string;
  /** Set when the labels were mapped (which taxonomies, to what, through which table). */
  mapping?: string;
}

/** Fleiss' kappa on the primary act for three or more annotators over the utterances all annotated. */
export interface FleissReport {
  speaker: Speaker;
  annotators: string[];
  taxonomy: string;
  items: number;
  kappa: number | null;
  mapping?: string;
}

export interface AgreementResult {
  annotators: string[];
  /** Each annotator's taxonomy (the annotations' `taxonomy` field, else inferred from the labels). */
  taxonomies: Record<string, string>;
  reports: AgreementReport[];
  fleiss: FleissReport[];
  /** Whether annotators on different taxonomies were mapped through the act aliases. */
  mapped: boolean;
  /** Pairs not compared, mixed taxonomies, unknown annotators. */
  warnings: string[];
  /** Conversations read. */
  conversations: number;
  note?: string;
}
