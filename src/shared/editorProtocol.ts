/**
 * The message protocol between the conversation editor's extension host side and its webview.
 *
 * One module, imported by both sides: plain data types, one discriminated union per direction,
 * and zod schemas for everything the host *receives* (the webview renders untrusted text, so the
 * host treats its messages as untrusted too). The webview only ever receives pages of summaries
 * and one conversation at a time, never the whole file.
 */
import * as z from 'zod';
import type { Conversation } from '../core/model';
import type { Taxonomy } from '../core/taxonomy';
import {
  SummaryFilterSchema,
  type AgreementResult,
  type ConversationSummary,
  type Facets,
  type SearchStats,
  type SummaryFilter,
} from '../core/document/types';
import { parseAtEdge } from './rpc';
import { VIEW_STATE_VERSION, viewStateVersionProblem } from './editorView';

export { PAGE_SIZE, VIEW_STATE_VERSION, isEmptyFilter } from './editorView';

// The document's data types are core's (src/core/document/types.ts); both sides take them from here.
export {
  type AgreementResult,
  type ConversationSummary,
  type Facets,
  type SearchStats,
  type SummaryFilter,
} from '../core/document/types';

/** State the webview needs before rendering anything. */
export interface EditorInit {
  fileName: string;
  filePath: string;
  fileSize: number;
  lineCount: number;
  /**
   * The line index is still being built: `lineCount` and `fileSize` are 0 until the `indexed`
   * message; line 1 can already be opened.
   */
  indexing?: boolean;
  annotator: string;
  taxonomy: Taxonomy;
  taxonomyError?: string;
  allowRemoteImages: boolean;
  /** Milliseconds per turn when playing. */
  replayIntervalMs: number;
  /** Where to go first (deep link); otherwise the webview restores its saved state. */
  reveal?: { line: number; turn?: number };
  /**
   * Set when the file is not conversation JSONL but a format SimLens imports (DialogueKit JSON, a
   * ConvApparel document, AB-ReDial CSV, …): the webview shows this instead of the list and offers
   * to convert it (the `convert` message).
   */
  importable?: ImportPreview;
}

/**
 * What the host puts in the page's HTML (#app data-boot) when it has it at hand, so the first
 * conversation is drawn without a round trip through the extension host: the `init` the page would
 * get after "ready", and the conversation it would ask for first (line 1 of a fresh view, or the one
 * of the restored view state). The page uses `first` only when it is the line it would ask for, and
 * says so with "ready" (`booted`); otherwise everything goes by message as without a boot.
 */
export interface EditorBoot {
  init: EditorInit;
  first?: { line: number; id: string; conversation?: Conversation; error?: string };
}

/** What converting the file would give (see src/extension/editor/convert.ts). */
export interface ImportPreview {
  format: string;
  /** One line: format, detected, counts. */
  headline: string;
  /** The full summary: counts, notes and warnings with file, line and field. */
  text: string;
  /** File name the conversion writes beside the input. */
  target: string;
  /** Set when the import failed: why (the file is then not convertible as is). */
  error?: string;
}

// ---------------------------------------------------------------------------------------------
// Host -> webview

export type HostMessage =
  | { type: 'init'; init: EditorInit }
  /** The line index is complete (after an `init` with `indexing`). */
  | { type: 'indexed'; lineCount: number; fileSize: number }
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
  | {
      type: 'settings';
      annotator: string;
      taxonomy: Taxonomy;
      taxonomyError?: string;
      allowRemoteImages: boolean;
      replayIntervalMs: number;
    }
  /** `id` (set by the host) lets a page ignore a notice it shows already (see NoticeLog). */
  | { type: 'notice'; level: 'info' | 'warning' | 'error'; message: string; id?: number };

// ---------------------------------------------------------------------------------------------
// Webview -> host (validated with zod on receipt)

const lineIndex = z
  .number()
  .int()
  .nonnegative()
  .max(2 ** 32 - 1);
const requestId = z.number().int().nonnegative();

/**
 * What the editor remembers per file across closing and reopening it, and window reloads (the
 * host keeps it in workspaceState and gives it back in the page): conversation, turn, mode,
 * filters and search, annotation cursor, list and transcript scroll, replay speed.
 */
export const EditorViewStateSchema = z.object({
  /** VIEW_STATE_VERSION when it was written: a state of another version is dropped, not guessed at. */
  v: z.literal(VIEW_STATE_VERSION),
  filter: SummaryFilterSchema,
  line: lineIndex.optional(),
  turn: z.number().int().nonnegative().max(1_000_000).optional(),
  listIndex: z.number().int().nonnegative().optional(),
  transcriptScroll: z.number().nonnegative().max(1e9).optional(),
  /** Turns of the selected conversation whose carousel shows whole cards (their height moves the scroll). */
  wholeCards: z.array(z.number().int().nonnegative().max(1_000_000)).max(10_000).optional(),
  mode: z.enum(['replay', 'annotate', 'agreement']),
  cursor: z.number().int().nonnegative().max(10_000_000).optional(),
  speed: z.number().positive().max(100).optional(),
  agreementMap: z.boolean().optional(),
});
export type EditorViewState = z.infer<typeof EditorViewStateSchema>;

/**
 * Reads a persisted view state (workspaceState, or the page's own saved state): the state, or
 * why it was dropped (`undefined` when there is none). Never throws.
 */
export function parseViewState(
  raw: unknown,
): { ok: true; state: EditorViewState } | { ok: false; reason: string } | undefined {
  if (raw === undefined || raw === null) return undefined;
  const problem = viewStateVersionProblem(raw);
  if (problem) return { ok: false, reason: problem };
  const parsed = parseAtEdge(EditorViewStateSchema, raw, 'saved view state');
  return parsed.ok ? { ok: true, state: parsed.message } : { ok: false, reason: `${parsed.error}: dropped` };
}

export const WebviewMessageSchema = z.discriminatedUnion('type', [
  /**
   * The page loaded; `first` is the conversation it will show first, answered right after `init`.
   * `booted`: the page took `init` (and the conversation it shows first, unless it asks for `first`)
   * from its HTML (EditorBoot), so the host does not send them again.
   */
  z.object({
    type: z.literal('ready'),
    first: z.object({ requestId, line: lineIndex }).optional(),
    booted: z.literal(true).optional(),
  }),
  z.object({ type: z.literal('setFilter'), filter: SummaryFilterSchema }),
  z.object({ type: z.literal('viewState'), state: EditorViewStateSchema }),
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
  z.object({
    type: z.literal('fork'),
    line: lineIndex,
    id: z.string().max(10_000),
    turn: z.number().int().nonnegative(),
  }),
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
  z.object({
    type: z.literal('command'),
    command: z.enum(['undo', 'redo', 'save', 'goToConversation', 'openSettings', 'checkInvariants']),
  }),
  /** Convert this (importable, non-JSONL) file to conversation JSONL beside it and open the result. */
  z.object({ type: z.literal('convert') }),
  z.object({ type: z.literal('log'), level: z.enum(['info', 'warning', 'error']), message: z.string().max(10_000) }),
]);
export type WebviewMessage = z.infer<typeof WebviewMessageSchema>;

/**
 * Validates a message from the webview. Returns the typed message or an error string naming the
 * offending field, so the host can log it instead of acting on malformed input.
 */
export function parseWebviewMessage(
  raw: unknown,
): { ok: true; message: WebviewMessage } | { ok: false; error: string } {
  return parseAtEdge(WebviewMessageSchema, raw, 'invalid webview message');
}
