/**
 * Turning one line of a JSONL file into a Conversation, or into errors a researcher can act on:
 * 1-based line and column, a field path such as `turns[2].recommendations[0].item_id`, and a
 * message in plain words. Pure functions: the CLI, the editor and the language server share them.
 */
import { isUtf8 } from 'node:buffer';
import { Conversation } from '../model';
import { bareWordStart, findJsonSyntaxError } from './jsonSyntax';
import { locateJsonPath } from './locate';
import { explainZodIssue, formatJsonPath, type FieldProblem, type ZodIssue } from './zodIssues';

export { describeValue, formatJsonPath } from './zodIssues';

/** One problem found on a line. */
export interface LineError {
  /** 1-based line number. */
  line: number;
  /** 1-based column in characters (UTF-16 code units, as editors and LSP count them) of the line's text. */
  column: number;
  /** Field path, e.g. "turns[2].recommendations[0].item_id"; "" for the whole line. */
  path: string;
  /** Readable message; for field errors it starts with the path ("turns[2].user_utterance: expected a string, got number 5"). */
  message: string;
  severity: 'error' | 'warning';
  /** 1-based column just past the offending value, when it was located exactly (schema errors on fields that exist). */
  endColumn?: number;
  /** The path as segments (for `locateJsonPath`), on schema errors. */
  segments?: (string | number)[];
}

/** The outcome of parsing one line. */
export type ParsedLine =
  | { kind: 'blank'; line: number }
  | { kind: 'valid'; line: number; conversation: Conversation; warnings: LineError[] }
  | {
      kind: 'invalid';
      line: number;
      errors: LineError[];
      value?: unknown; /* present when JSON parsed but schema failed */
    };

/** At most this many schema errors are listed per line; the rest are summarised in one more entry. */
const MAX_ERRORS_PER_LINE = 20;

// ---------------------------------------------------------------------------------------------
// UTF-8

/** Byte offsets (0-based) where invalid UTF-8 sequences start, at most `limit` of them, plus the total count. */
function findInvalidUtf8(bytes: Uint8Array, limit = 1): { offsets: number[]; count: number } {
  const offsets: number[] = [];
  let count = 0;
  const n = bytes.length;
  let i = 0;
  const cont = (k: number, lo = 0x80, hi = 0xbf): boolean => k < n && bytes[k] >= lo && bytes[k] <= hi;
  while (i < n) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    let len = 0;
    if (b >= 0xc2 && b <= 0xdf) len = cont(i + 1) ? 2 : 0;
    else if (b === 0xe0) len = cont(i + 1, 0xa0) && cont(i + 2) ? 3 : 0;
    else if ((b >= 0xe1 && b <= 0xec) || b === 0xee || b === 0xef) len = cont(i + 1) && cont(i + 2) ? 3 : 0;
    else if (b === 0xed) len = cont(i + 1, 0x80, 0x9f) && cont(i + 2) ? 3 : 0;
    else if (b === 0xf0) len = cont(i + 1, 0x90) && cont(i + 2) && cont(i + 3) ? 4 : 0;
    else if (b >= 0xf1 && b <= 0xf3) len = cont(i + 1) && cont(i + 2) && cont(i + 3) ? 4 : 0;
    else if (b === 0xf4) len = cont(i + 1, 0x80, 0x8f) && cont(i + 2) && cont(i + 3) ? 4 : 0;
    if (len === 0) {
      count++;
      if (offsets.length < limit) offsets.push(i);
      i++;
    } else {
      i += len;
    }
  }
  return { offsets, count };
}

/**
 * Decodes one line's bytes as UTF-8. Invalid bytes do not stop anything: they become U+FFFD and
 * one warning names the line, the first bad byte's position (byte column) and its character column.
 */
export function decodeLine(bytes: Uint8Array, line: number): { text: string; errors: LineError[] } {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = buf.toString('utf8');
  if (isUtf8(buf)) return { text, errors: [] };
  const { offsets, count } = findInvalidUtf8(buf, 1);
  const first = offsets[0] ?? 0;
  const column = buf.subarray(0, first).toString('utf8').length + 1;
  const more = count > 1 ? ` (${count} invalid bytes on this line in all)` : '';
  return {
    text,
    errors: [
      {
        line,
        column,
        path: '',
        message: `invalid UTF-8 byte 0x${buf[first].toString(16).toUpperCase().padStart(2, '0')} at byte ${first + 1} of the line, shown as U+FFFD${more}`,
        severity: 'warning',
      },
    ],
  };
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return 'a string';
  if (typeof v === 'number') return 'a number';
  if (typeof v === 'boolean') return `${v}`;
  return typeof v;
}

// ---------------------------------------------------------------------------------------------
// Parsing

function isJsonWs(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function firstNonWs(text: string, from: number): number {
  let i = from;
  while (i < text.length && isJsonWs(text.charCodeAt(i))) i++;
  return i;
}

/** Position from a V8 message ("... in JSON at position 12"), used only if our scanner disagrees with JSON.parse. */
function v8Position(message: string, length: number): number {
  const m = /at position (\d+)/.exec(message);
  if (m) return Number(m[1]);
  if (/end of JSON input/i.test(message)) return length;
  return 0;
}

/** Options for `parseConversationText`. */
export interface ParseOptions {
  /**
   * Give the parsed conversation the key order of the line (default true), so re-serialising an
   * edited line changes only what was edited. Readers that never write back (validation, stats)
   * turn it off to save time.
   */
  preserveKeyOrder?: boolean;
}

/**
 * Parses one line of text (without its line ending) into a conversation, a blank line, or errors.
 * `line` is the 1-based line number used in the results. A leading BOM is skipped (columns still
 * count it, so they match the text given); on lines after the first it also yields a warning, since
 * the file's own BOM is removed before lines are parsed. Pure and synchronous.
 */
export function parseConversationText(text: string, line: number, opts: ParseOptions = {}): ParsedLine {
  const shift = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const first = firstNonWs(text, shift);
  if (first >= text.length) return { kind: 'blank', line };
  const body = shift ? text.slice(shift) : text;

  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    const found = findJsonSyntaxError(body);
    const offset = found ? bareWordStart(body, found) : v8Position((err as Error).message, body.length);
    const message = found ? found.message : (err as Error).message;
    return {
      kind: 'invalid',
      line,
      errors: [{ line, column: offset + shift + 1, path: '', message: `invalid JSON: ${message}`, severity: 'error' }],
    };
  }

  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return {
      kind: 'invalid',
      line,
      value,
      errors: [
        {
          line,
          column: first + 1,
          path: '',
          message:
            `expected one conversation object ({"turns": [...], ...}) per line, found ` +
            `${kindOf(value)}${Array.isArray(value) ? ` with ${value.length} item${value.length === 1 ? '' : 's'}` : ''}`,
          severity: 'error',
        },
      ],
    };
  }

  const result = Conversation.safeParse(value);
  if (result.success) {
    const warnings: LineError[] = [];
    if (shift && line > 1) {
      warnings.push({
        line,
        column: 1,
        path: '',
        message: 'the line starts with a byte order mark (U+FEFF), ignored; files joined with `cat` often have one',
        severity: 'warning',
      });
    }
    return {
      kind: 'valid',
      line,
      conversation: (opts.preserveKeyOrder === false
        ? result.data
        : restoreKeyOrder(value, result.data)) as Conversation,
      warnings,
    };
  }
  return { kind: 'invalid', line, value, errors: schemaErrors(result.error.issues, value, body, line, shift) };
}

/**
 * zod puts the keys it knows first; this gives `parsed` the key order of `original` (keys that only
 * `parsed` has, such as defaults, go last), so re-serialising an edited line changes only what was
 * edited and a diff of the file stays small.
 */
function restoreKeyOrder(original: unknown, parsed: unknown): unknown {
  if (parsed === null || typeof parsed !== 'object' || original === null || typeof original !== 'object') return parsed;
  if (Array.isArray(parsed)) {
    if (!Array.isArray(original)) return parsed;
    for (let i = 0; i < parsed.length; i++) parsed[i] = restoreKeyOrder(original[i], parsed[i]);
    return parsed;
  }
  if (Array.isArray(original)) return parsed;
  const src = parsed as Record<string, unknown>;
  const orig = original as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k in orig) {
    if (Object.prototype.hasOwnProperty.call(src, k)) out[k] = restoreKeyOrder(orig[k], src[k]);
    else if (k === '__proto__') {
      // zod drops a "__proto__" key; keep it as plain data (never as a prototype) so it survives a save.
      Object.defineProperty(out, k, { value: orig[k], enumerable: true, writable: true, configurable: true });
    }
  }
  for (const k in src) if (!Object.prototype.hasOwnProperty.call(out, k)) out[k] = src[k];
  return out;
}

/**
 * Maps zod issues on a parsed line to LineErrors with paths, readable messages and columns.
 * Exported for callers that validate values they parsed themselves (`text` is the line's JSON).
 */
function schemaErrors(
  issues: readonly ZodIssue[],
  value: unknown,
  text: string,
  line: number,
  columnShift = 0,
): LineError[] {
  const problems: FieldProblem[] = [];
  let total = 0;
  for (const issue of issues) {
    const explained = explainZodIssue(issue, value);
    total += explained.length;
    for (const p of explained) if (problems.length < MAX_ERRORS_PER_LINE) problems.push(p);
  }
  const errors: LineError[] = problems.map((p) => {
    const path = formatJsonPath(p.path);
    const segments = p.path.map((seg) => (typeof seg === 'number' ? seg : String(seg)));
    const where = spanOf(text, segments);
    const err: LineError = {
      line,
      column: where.column + columnShift,
      path,
      message: path ? `${path}: ${p.text}` : p.text,
      severity: 'error',
      segments,
    };
    if (where.endColumn !== undefined) err.endColumn = where.endColumn + columnShift;
    return err;
  });
  errors.sort((a, b) => a.column - b.column);
  if (total > problems.length) {
    errors.push({
      line,
      column: 1,
      path: '',
      message: `… and ${total - problems.length} more problems on this line`,
      severity: 'error',
    });
  }
  return errors;
}

/**
 * 1-based column of the value at `segs` (with its end when found exactly), or of the closest
 * enclosing value that exists (a missing field points at the object that should hold it).
 */
function spanOf(text: string, segs: (string | number)[]): { column: number; endColumn?: number } {
  for (let len = segs.length; len >= 0; len--) {
    const span = locateJsonPath(text, segs.slice(0, len));
    if (span)
      return len === segs.length ? { column: span.start + 1, endColumn: span.end + 1 } : { column: span.start + 1 };
  }
  return { column: 1 };
}
