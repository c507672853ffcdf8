/**
 * The message protocol between the conversation editor's extension host side and its webview.
 *
 * One module, imported by both sides: plain data types, one discriminated union per direction,
 * and zod schemas for everything the host *receives* (the webview renders untrusted text, so the
 * host treats its messages as untrusted too). The webview only ever receives pages of summaries
 * and one conversation at a time, never the whole file.
 */
import { z } from 'zod';
import type { Conversation, Outcome, Speaker } from '../core/model';
import type { Taxonomy } from '../core/taxonomy';

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

export const SummaryFilterSchema = z.object({
  task: z.string().max(500).optional(),
  condition: z.string().max(500).optional(),
  source: z.string().max(500).optional(),
  outcome: z.enum(['accepted', 'ended', 'abandoned', 'agent_error']).optional(),
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

/** State the webview needs before rendering anything. */
export interface EditorInit {
  fileName: string;
  filePath: string;
  fileSize: number;
  lineCount: number;
  annotator: string;
  taxonomy: Taxonomy;
  taxonomyError?: string;
  allowRemoteImages: boolean;
  /** Milliseconds per turn when playing. */
  replayIntervalMs: number;
  /** Where to go first (deep link); otherwise the webview restores its saved state. */
  reveal?: { line: number; turn?: number };
}

// ---------------------------------------------------------------------------------------------
// Host -> webview

export type HostMessage =
  | { type: 'init'; init: EditorInit }
  | { type: 'progress'; scanned: number; total: number; done: boolean }
  | {
      type: 'view';
      viewVersion: number;
      count: number;
      facets: Facets;
      filter: SummaryFilter;
      search?: SearchStats;
      /** True while the background summary pass is still running (counts may grow). */
      partial: boolean;
      /** Milliseconds the filter took on the host. */
      ms: number;
    }
  | { type: 'page'; requestId: number; viewVersion: number; start: number; rows: ConversationSummary[] }
  | {
      type: 'conversation';
      requestId: number;
      line: number;
      id: string;
      /** Parsed conversation with pending annotation edits applied; absent when the line is invalid. */
      conversation?: Conversation;
      error?: string;
      /** Position of this line in the current view, or -1. */
      viewIndex: number;
    }
  | { type: 'reveal'; line: number; turn?: number }
  | {
      type: 'annotationsChanged';
      line: number;
      conversation: Conversation;
      /** The `requestId` of the webview's annotate message this answers (absent for undo/redo). */
      requestId?: number;
    }
  | { type: 'agreement'; requestId: number; result?: AgreementResult; error?: string }
  | { type: 'reloaded'; reason: string; lineCount: number }
  | { type: 'settings'; annotator: string; taxonomy: Taxonomy; taxonomyError?: string; allowRemoteImages: boolean; replayIntervalMs: number }
  | { type: 'notice'; level: 'info' | 'warning' | 'error'; message: string };

// ---------------------------------------------------------------------------------------------
// Webview -> host (validated with zod on receipt)

const lineIndex = z.number().int().nonnegative().max(2 ** 32 - 1);
const requestId = z.number().int().nonnegative();

export const WebviewMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('setFilter'), filter: SummaryFilterSchema }),
  z.object({
    type: z.literal('requestPage'),
    requestId,
    viewVersion: z.number().int().nonnegative(),
    start: z.number().int().nonnegative(),
    count: z.number().int().positive().max(500),
  }),
  z.object({ type: z.literal('openConversation'), requestId, line: lineIndex }),
  z.object({ type: z.literal('openLineAsText'), line: lineIndex }),
  /** "Fork from here": simulate continuations of this conversation after this 0-based turn. */
  z.object({ type: z.literal('fork'), line: lineIndex, id: z.string().max(10_000), turn: z.number().int().nonnegative() }),
  z.object({
    type: z.literal('annotate'),
    requestId: requestId.optional(),
    line: lineIndex,
    turn: z.number().int().nonnegative().max(100_000),
    speaker: z.enum(['user', 'assistant']),
    segment: z.number().int().nonnegative().max(1000).optional(),
    acts: z.array(z.string().min(1).max(200)).max(100),
    note: z.string().max(10_000).optional(),
  }),
  z.object({ type: z.literal('requestAgreement'), requestId, map: z.boolean().optional() }),
  /** Use this built-in taxonomy for annotating (offered when the file's annotations use it). */
  z.object({ type: z.literal('setTaxonomy'), name: z.string().min(1).max(100) }),
  z.object({ type: z.literal('command'), command: z.enum(['undo', 'redo', 'save', 'goToConversation', 'openSettings', 'checkInvariants']) }),
  z.object({ type: z.literal('log'), level: z.enum(['info', 'warning', 'error']), message: z.string().max(10_000) }),
]);
export type WebviewMessage = z.infer<typeof WebviewMessageSchema>;

/**
 * Validates a message from the webview. Returns the typed message or an error string naming the
 * offending field, so the host can log it instead of acting on malformed input.
 */
export function parseWebviewMessage(raw: unknown): { ok: true; message: WebviewMessage } | { ok: false; error: string } {
  const result = WebviewMessageSchema.safeParse(raw);
  if (result.success) return { ok: true, message: result.data };
  const issue = result.error.issues[0];
  const where = issue.path.length ? issue.path.join('.') : '(message)';
  return { ok: false, error: `invalid webview message at ${where}: ${issue.message}` };
}

/** Page size the webview requests; the host never sends more rows than asked for. */
export const PAGE_SIZE = 100;
