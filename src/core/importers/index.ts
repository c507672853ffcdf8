/**
 * Importers: turn conversation data from other tools into canonical SimLens conversations
 * (see ../model.ts), ready to be written one per line.
 *
 * Formats (names for `from`):
 * - `canonical`          SimLens JSONL; validated and passed through unchanged.
 * - `convapparel`        the ConvApparel release document `{metadata, conversations: [...]}` (or a
 *                        bare array of conversations); given JSONL content it reads it as
 *                        `convapparel-jsonl`.
 * - `convapparel-jsonl`  ConvApparel, one conversation per line.
 * - `dialoguekit`        DialogueKit / UserSimCRS annotated dialogues, all variants (dialoguekit.ts).
 * - `ab-redial`          AB-ReDial rated dialogues CSV (abredial.ts).
 * - `redial`             the raw ReDial release, one dialogue per line (redial.ts).
 * - `inspired`           the INSPIRED dialog TSV, with its movie database when beside it (inspired.ts).
 * - `iard`               the raw IARD release, one object keyed by conversation id (iard.ts); the
 *                        UserSimCRS copy of IARD is DialogueKit data (`dialoguekit`).
 * docs/formats.md documents every mapping.
 *
 * Detection looks at the content (sniff.ts), never only at the extension; `from` forces a format.
 * Fatal problems throw an ImportError whose message names the file and the line/column or JSON
 * path; problems with single conversations become warnings and those conversations are skipped.
 * An input from which nothing at all could be imported is fatal.
 */
import type { Conversation } from '../model';
import { dirname, join } from 'node:path';
import { importAbRedial } from './abredial';
import { acceptConversation, importConvApparelDocument, type CanonicalFlavor } from './conversations';
import { convertDialogueRecords, dialogueRecordsFromDocument, type DialogueRecord } from './dialoguekit';
import { ImportError, type ImportWarning, collapseRepeated, formatLocation } from './errors';
import { parseJsonOrThrow } from './json';
import { bareWordStart, findJsonSyntaxError as findLineSyntaxError } from '../jsonl/jsonSyntax';
import { importIardDocument } from './iard';
import { inspiredSink, parseInspiredMovieDatabase, type InspiredMovieDb } from './inspired';
import { forEachFileLine, forEachTextLine, readPrefix, readWholeText } from './lines';
import { convertRedialRecord } from './redial';
import { DuplicateIds } from '../jsonl/duplicateIds';
import { conversationJsonlAdvice, sniffBinary, sniffFormat, type SniffResult } from './sniff';

export { ImportError, type ImportWarning } from './errors';
export { dialogueKitStats } from './dialoguekitStats';

/** The format names `from` accepts (aliases are listed in FORMAT_ALIASES). */
export const IMPORT_FORMATS: readonly string[] = [
  'canonical',
  'convapparel',
  'convapparel-jsonl',
  'dialoguekit',
  'ab-redial',
  'redial',
  'inspired',
  'iard',
] as const;

/** One line per format, for `--help` texts and pickers. */
export const FORMAT_DESCRIPTIONS: Readonly<Record<string, string>> = {
  canonical: 'SimLens JSONL (one conversation per line), validated and passed through',
  convapparel: 'ConvApparel release: one JSON document {metadata, conversations: [...]}',
  'convapparel-jsonl': 'ConvApparel, one conversation per line; adds id "convapparel-<index>" when missing',
  dialoguekit: 'DialogueKit / UserSimCRS annotated dialogues (JSON array, export object or JSONL)',
  'ab-redial': 'AB-ReDial rated dialogues (CSV: ConvId, utterance0..N, ratings)',
  redial: 'ReDial release JSONL (conversationId, messages, movieMentions, initiator/respondentQuestions)',
  inspired:
    'INSPIRED dialog TSV (dialog_id, utt_id, speaker, text, strategies); movie_database.tsv used when beside it',
  iard: 'IARD release JSON (one object keyed by conversation id, dialogue_info with intents)',
};

/** Other spellings accepted for `from` (case-insensitive). */
const FORMAT_ALIASES: Readonly<Record<string, string>> = {
  simlens: 'canonical',
  jsonl: 'canonical',
  convapparel_jsonl: 'convapparel-jsonl',
  usersimcrs: 'dialoguekit',
  moviebot: 'dialoguekit',
  abredial: 'ab-redial',
  ab_redial: 'ab-redial',
  re_dial: 'redial',
};

/** The outcome of an import. */
export interface ImportResult {
  /** The format actually read (after detection, or the forced one). */
  format: string;
  conversations: Conversation[];
  warnings: ImportWarning[];
  /**
   * Top-level fields of a wrapping document other than the conversations (e.g. the ConvApparel
   * release `metadata`), which do not belong to any one conversation. Absent for JSONL and CSV.
   */
  documentMetadata?: Record<string, unknown>;
  /** What the importer used besides the input (e.g. INSPIRED's movie database), one sentence each. */
  notes?: string[];
}

/** Options for importText. `origin` names the input in messages (a path or "untitled"). */
interface ImportTextOptions {
  from?: string;
  origin: string;
}

/**
 * Resolves a user-given format name (case-insensitive, aliases allowed) to one of IMPORT_FORMATS.
 * Throws an Error listing the known names when it is unknown.
 */
export function normalizeFormat(name: string): string {
  const key = name.trim().toLowerCase();
  if ((IMPORT_FORMATS as readonly string[]).includes(key)) return key;
  const alias = FORMAT_ALIASES[key];
  if (alias) return alias;
  throw new Error(`unknown import format "${name}"; known formats: ${IMPORT_FORMATS.join(', ')}`);
}

/**
 * The error for a file that cannot be read at all (missing, a folder, no permission): an
 * ImportError that also carries the file system's `code` and `path`, so the CLI treats it as the
 * I/O error it is (exit 2, "cannot read FILE: no such file or directory") in every command.
 */
function unreadable(inputPath: string, e: NodeJS.ErrnoException): ImportError {
  return Object.assign(new ImportError(inputPath, `cannot read the file (${e.code ?? e.message})`), {
    code: e.code,
    path: inputPath,
    syscall: 'open',
  });
}

function unknownFormatError(origin: string, sniff: SniffResult): Error {
  if (sniff.format === undefined && sniff.kind && sniff.kind !== 'empty')
    return new ImportError(origin, `not conversation data: ${sniff.reason}`);
  const reason = sniff.format === undefined ? sniff.reason : 'its content was not recognised';
  const empty = sniff.format === undefined && sniff.kind === 'empty';
  // An empty file is empty in every format: naming --from would not help.
  const detail = empty
    ? 'the file is empty: there is nothing to convert'
    : `cannot tell the input format: ${reason}. Use --from with one of: ${IMPORT_FORMATS.join(', ')}`;
  return new ImportError(
    origin,
    detail,
    {},
    {
      reason,
      empty: sniff.format === undefined && sniff.kind === 'empty',
      formats: IMPORT_FORMATS,
    },
  );
}

/**
 * Detects the format of a file from its first bytes (up to 1 MB; the first JSON value's keys or
 * the CSV header). Throws an Error naming the file when the format is unknown or the file is empty.
 */
export async function detectFormat(inputPath: string): Promise<string> {
  const { text, complete, bytes } = await readPrefix(inputPath).catch((e: NodeJS.ErrnoException) => {
    throw unreadable(inputPath, e);
  });
  const sniff = sniffBinary(bytes) ?? sniffFormat(text, complete);
  if (sniff.format === undefined) throw unknownFormatError(inputPath, sniff);
  return sniff.format;
}

/** What a file's first bytes say it is (binary/compressed first, then the text formats). */
export async function sniffFile(inputPath: string): Promise<SniffResult> {
  const { text, complete, bytes } = await readPrefix(inputPath, 1 << 16);
  return sniffBinary(bytes) ?? sniffFormat(text, complete);
}

/**
 * Undefined when the file is conversation JSONL (or empty); otherwise one sentence naming what it is
 * and the command to run instead. Used by validate, stats and the editor before reading lines.
 */
export async function conversationFileAdvice(inputPath: string, shownName: string): Promise<string | undefined> {
  let sniff: SniffResult;
  try {
    sniff = await sniffFile(inputPath);
  } catch (err) {
    if (err instanceof ImportError) return err.message;
    throw err;
  }
  return conversationJsonlAdvice(sniff, shownName);
}

/** Detects the format of in-memory text (same rules as detectFormat); undefined when unknown. */
export function detectTextFormat(text: string): string | undefined {
  return sniffFormat(text.slice(0, 1 << 20), text.length <= 1 << 20).format;
}

// ---------------------------------------------------------------------------------------------
// JSONL: canonical, ConvApparel JSONL, DialogueKit JSONL. One parsed line at a time.

interface LineSink {
  /** `cutOff`: the last line of the input, with no line break after it. */
  line(text: string, line: number, cutOff?: boolean): void;
  finish(): void;
}

/** Receives each conversation with the line it starts on (when the input has lines). */
type Emit = (c: Conversation, line?: number) => void;

/** Wraps `emit` with the shared duplicate-id policy (duplicateIds.ts). */
function withUniqueIds(warnings: ImportWarning[], emit: (c: Conversation) => void): Emit {
  const ids = new DuplicateIds();
  return (c, line) => {
    if (typeof c.id === 'string') {
      const id = ids.claim(c.id, warnings, line);
      if (id !== c.id) c.id = id;
    }
    emit(c);
  };
}

function jsonlSink(format: string, result: ImportResult, onConversation: Emit): LineSink {
  let index = 0;
  const dkRecords: DialogueRecord[] = [];
  const out = { conversations: [] as Conversation[], warnings: result.warnings };
  const flavor: CanonicalFlavor = format === 'canonical' ? 'canonical' : 'convapparel';
  return {
    line(text, line, cutOff) {
      if (text.trim() === '') return;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (e) {
        // The line's own syntax check (it speaks of the end of the line, not of the file).
        const p = findLineSyntaxError(text, 'line');
        const why = p
          ? `invalid JSON at column ${bareWordStart(text, p) + 1}: ${p.message}`
          : `invalid JSON: ${e instanceof Error ? e.message : String(e)}`;
        const truncated = cutOff
          ? ' (the input ends inside this line, with no line break after it: the file looks truncated)'
          : '';
        result.warnings.push({ line, message: `${why}${truncated}; line skipped` });
        index++;
        return;
      }
      if (format === 'dialoguekit') {
        dkRecords.push({ value, path: '', line, index });
      } else if (format === 'redial') {
        const c = convertRedialRecord(value, { line, index, path: [] }, result.warnings, text);
        if (c) onConversation(c, line);
      } else {
        acceptConversation(value, { index, line, path: '' }, flavor, out);
        for (const c of out.conversations) onConversation(c, line);
        out.conversations.length = 0;
      }
      index++;
    },
    finish() {
      if (format === 'dialoguekit') {
        const r = convertDialogueRecords(dkRecords);
        result.warnings.push(...r.warnings);
        r.conversations.forEach((c, k) => onConversation(c, r.lines[k]));
      }
    },
  };
}

/** How a format reads its input: line by line, or as one whole text. */
function isLineFormat(format: string, shape: SniffResult): boolean {
  if (format === 'canonical' || format === 'convapparel-jsonl' || format === 'redial' || format === 'inspired')
    return true;
  if (format === 'convapparel' || format === 'dialoguekit')
    return shape.format !== undefined && shape.shape === 'jsonl';
  return false;
}

/** The format name reported for a forced format after looking at the content. */
function effectiveFormat(format: string, shape: SniffResult): string {
  if (format === 'convapparel' && shape.format !== undefined && shape.shape === 'jsonl') return 'convapparel-jsonl';
  return format;
}

// ---------------------------------------------------------------------------------------------
// Whole documents: ConvApparel document, DialogueKit document, AB-ReDial CSV.

function importDocumentText(
  format: string,
  text: string,
  origin: string,
  result: ImportResult,
  onConversation: Emit,
): void {
  if (format === 'iard') {
    const r = importIardDocument(parseJsonOrThrow(text, origin), text, origin);
    result.warnings.push(...r.warnings);
    r.conversations.forEach((c, k) => onConversation(c, r.lines[k]));
    return;
  }
  if (format === 'ab-redial') {
    const r = importAbRedial(text, origin);
    result.warnings.push(...r.warnings);
    r.conversations.forEach((c) => onConversation(c));
    return;
  }
  if (format === 'convapparel' || format === 'dialoguekit') {
    const doc = parseJsonOrThrow(text, origin);
    if (format === 'convapparel') {
      const r = importConvApparelDocument(doc, origin);
      result.warnings.push(...r.warnings);
      if (r.documentMetadata) result.documentMetadata = r.documentMetadata;
      r.conversations.forEach((c) => onConversation(c));
    } else {
      const r = convertDialogueRecords(dialogueRecordsFromDocument(doc, origin));
      result.warnings.push(...r.warnings);
      r.conversations.forEach((c, k) => onConversation(c, r.lines[k]));
    }
    return;
  }
  throw new Error(`internal: ${format} is not a document format`);
}

/** After an import: an input that yielded nothing but problems is an error. */
function checkNotAllFailed(origin: string, format: string, count: number, result: ImportResult): void {
  if (count > 0 || result.warnings.length === 0) return;
  // Report the first problem that made a conversation be skipped (others may be mere repairs).
  const w = result.warnings.find((x) => /skipped$/.test(x.message)) ?? result.warnings[0];
  const where = w.line !== undefined ? `line ${w.line}: ` : w.path ? `${w.path}: ` : '';
  const n = result.warnings.length;
  throw new ImportError(
    origin,
    `no conversation could be imported as ${format} (${n} problem${n === 1 ? '' : 's'}); the first: ${where}${w.message}`,
  );
}

/** Adds to errors of a forced format a hint about what the content looks like. */
function withHint(e: unknown, format: string, sniff: SniffResult): unknown {
  if (!(e instanceof ImportError) || sniff.format === undefined || sniff.format === format) return e;
  if (format === 'convapparel' && sniff.format === 'convapparel-jsonl') return e;
  if (format === 'convapparel-jsonl' && sniff.format === 'canonical') return e;
  if (format === 'canonical' && sniff.format === 'convapparel-jsonl') return e;
  const hint = `read as ${format}, but the content looks like ${sniff.format}: try --from ${sniff.format}, or leave --from out`;
  return new ImportError(e.origin, `${e.detail} (${hint})`, { line: e.line, column: e.column, path: e.path });
}

/**
 * Imports a file, calling `onConversation` for each conversation in order (JSONL inputs are
 * streamed: memory stays small however large the file). Returns the format, the count and the
 * warnings. Throws ImportError for fatal problems (unknown format, bad JSON document, wrong header).
 */
export async function importFileEach(
  inputPath: string,
  onConversation: (c: Conversation) => void,
  opts: { from?: string } = {},
): Promise<{
  format: string;
  count: number;
  warnings: ImportWarning[];
  documentMetadata?: Record<string, unknown>;
  notes?: string[];
}> {
  const prefix = await readPrefix(inputPath).catch((e: NodeJS.ErrnoException) => {
    throw unreadable(inputPath, e);
  });
  const sniff = sniffBinary(prefix.bytes) ?? sniffFormat(prefix.text, prefix.complete);
  let format: string;
  if (opts.from !== undefined) format = normalizeFormat(opts.from);
  else if (sniff.format !== undefined) format = sniff.format;
  else throw unknownFormatError(inputPath, sniff);

  const result: ImportResult = { format: effectiveFormat(format, sniff), conversations: [], warnings: [] };
  let count = 0;
  const emit = withUniqueIds(result.warnings, (c: Conversation): void => {
    count++;
    onConversation(c);
  });
  try {
    if (isLineFormat(format, sniff)) {
      let db: InspiredMovieDb | undefined;
      if (format === 'inspired') db = await findInspiredMovieDatabase(inputPath, result);
      const sink =
        format === 'inspired' ? inspiredSink(result.warnings, emit, db) : jsonlSink(result.format, result, emit);
      await forEachFileLine(inputPath, (t, l, cut) => sink.line(t, l, cut), result.warnings);
      sink.finish();
    } else {
      const text = await readWholeText(inputPath, result.warnings);
      importDocumentText(format, text, inputPath, result, emit);
    }
    checkNotAllFailed(inputPath, result.format, count, result);
  } catch (e) {
    throw withHint(e, format, sniff);
  }
  return {
    format: result.format,
    count,
    warnings: collapseRepeated(result.warnings),
    documentMetadata: result.documentMetadata,
    notes: result.notes,
  };
}

/** Where INSPIRED keeps its movie database: data/movie_database.tsv, beside data/dialog_data/. */
const INSPIRED_DB_NAME = 'movie_database.tsv';

/** Reads INSPIRED's movie database from the input's folder or its parent, when it is there. */
async function findInspiredMovieDatabase(
  inputPath: string,
  result: ImportResult,
): Promise<InspiredMovieDb | undefined> {
  for (const dir of [dirname(inputPath), dirname(dirname(inputPath))]) {
    const p = join(dir, INSPIRED_DB_NAME);
    let text: string;
    try {
      text = await readWholeText(p, result.warnings);
    } catch {
      continue;
    }
    const db = parseInspiredMovieDatabase(text, result.warnings, p);
    if (db) (result.notes ??= []).push(`movie database: ${p} (${db.size} movies)`);
    return db;
  }
  (result.notes ??= []).push(
    `no ${INSPIRED_DB_NAME} beside the input or in its parent folder: recommended movies keep their titles as item ids`,
  );
  return undefined;
}

/**
 * Imports a file into memory. `from` forces the format (see IMPORT_FORMATS); otherwise it is
 * detected from the content. Errors name the file and the line (JSONL, CSV, JSON syntax) or the
 * JSON path (documents).
 */
export async function importFile(inputPath: string, opts: { from?: string } = {}): Promise<ImportResult> {
  const conversations: Conversation[] = [];
  const r = await importFileEach(inputPath, (c) => conversations.push(c), opts);
  const out: ImportResult = { format: r.format, conversations, warnings: r.warnings };
  if (r.documentMetadata) out.documentMetadata = r.documentMetadata;
  if (r.notes) out.notes = r.notes;
  return out;
}

/**
 * Imports text already in memory (tests, the language server's "convert" quick fix). Same rules
 * and messages as importFile; `origin` names the input in messages.
 */
export function importText(text: string, opts: ImportTextOptions): ImportResult {
  const origin = opts.origin;
  const sniff = sniffFormat(text.slice(0, 1 << 20), text.length <= 1 << 20);
  let format: string;
  if (opts.from !== undefined) format = normalizeFormat(opts.from);
  else if (sniff.format !== undefined) format = sniff.format;
  else throw unknownFormatError(origin, sniff);

  const result: ImportResult = { format: effectiveFormat(format, sniff), conversations: [], warnings: [] };
  const emit = withUniqueIds(result.warnings, (c: Conversation): void => {
    result.conversations.push(c);
  });
  try {
    if (isLineFormat(format, sniff)) {
      const sink = format === 'inspired' ? inspiredSink(result.warnings, emit) : jsonlSink(result.format, result, emit);
      forEachTextLine(text, (t, l, cut) => sink.line(t, l, cut));
      sink.finish();
    } else {
      importDocumentText(format, text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, origin, result, emit);
    }
    checkNotAllFailed(origin, result.format, result.conversations.length, result);
  } catch (e) {
    throw withHint(e, format, sniff);
  }
  result.warnings = collapseRepeated(result.warnings);
  return result;
}

/**
 * `file:line: field: message` (or `file: path: message`) for printing a warning. The field is left
 * out when the message already names it.
 */
export function formatWarning(origin: string, w: ImportWarning): string {
  const path = w.path && (w.line === undefined || !w.message.includes(w.path)) ? w.path : undefined;
  return `${formatLocation(origin, { line: w.line, path })}: ${w.message}`;
}
