/**
 * JSON helpers for the importers: parse with a precise syntax-error location (line, column and
 * what was expected, which Node's own messages do not always give), and a tolerant reader of the
 * top-level keys of the first value in a possibly truncated prefix (format sniffing). Both are
 * built on the JSONL scanners (jsonl/jsonSyntax.ts, jsonl/locate.ts): one JSON scanner each for
 * checking and for skipping.
 */
import { ImportError } from './errors';
import { bareWordStart, findJsonSyntaxError as findFirstSyntaxError } from '../jsonl/jsonSyntax';
import { readJsonString, skipJsonValue, skipJsonWs } from '../jsonl/locate';

/** A JSON syntax error found by `findJsonSyntaxError`. Offsets are UTF-16 indices; line and column are 1-based. */
interface JsonSyntaxProblem {
  offset: number;
  line: number;
  column: number;
  message: string;
}

/** 1-based line and column of a UTF-16 offset in `text` (CRLF counts as one line break). */
export function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

/**
 * The first JSON syntax error of a whole document with its line and column, or undefined when the
 * text is one valid JSON value. The checker is the JSONL one (`src/core/jsonl/jsonSyntax.ts`, V8's
 * positions); this adds the line and column. Used only after `JSON.parse` failed.
 */
export function findJsonSyntaxError(text: string): JsonSyntaxProblem | undefined {
  const e = findFirstSyntaxError(text, 'file');
  if (!e) return undefined;
  const offset = bareWordStart(text, e);
  return { offset, ...lineColumnAt(text, offset), message: e.message };
}

/**
 * Parses a whole JSON document. On a syntax error throws an ImportError naming `origin`, the
 * line and column, and what was expected. `lineOffset` shifts reported lines (for one line of a
 * JSONL file pass its line number minus 1).
 */
export function parseJsonOrThrow(text: string, origin: string, lineOffset = 0): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw jsonSyntaxImportError(text, origin, e, lineOffset);
  }
}

/** Builds the ImportError for a JSON.parse failure on `text` (exported for the JSONL path). */
function jsonSyntaxImportError(text: string, origin: string, cause: unknown, lineOffset = 0): ImportError {
  const p = findJsonSyntaxError(text);
  if (p) return new ImportError(origin, `invalid JSON: ${p.message}`, { line: p.line + lineOffset, column: p.column });
  // Our checker accepted what V8 rejected (should not happen): fall back to V8's message.
  return new ImportError(origin, `invalid JSON: ${cause instanceof Error ? cause.message : String(cause)}`);
}

/** What `scanFirstValue` learned about the first JSON value of a (possibly truncated) prefix. */
interface FirstValueShape {
  /** '{', '[', or another first character ('' when the prefix is only whitespace). */
  opener: string;
  /** Keys of the first object: the value itself if it is an object, its first element if it is an array. */
  keys: string[];
  /** Offset just past the first value, when it ends inside the prefix. */
  end?: number;
}

/**
 * Reads the first JSON value of `prefix` without parsing it fully, collecting the property names
 * of the relevant object (the value itself, or for an array its first element), and where the
 * value ends when it ends inside the prefix. Never throws: malformed or cut-off input just yields
 * fewer keys.
 */
export function scanFirstValue(prefix: string): FirstValueShape {
  let i = 0;
  const n = prefix.length;
  while (i < n && /\s/.test(prefix[i])) i++;
  if (i >= n) return { opener: '', keys: [] };
  const opener = prefix[i];
  if (opener !== '{' && opener !== '[') return { opener, keys: [] };
  const end = skipJsonValue(prefix, i);
  const shape = (keys: string[]): FirstValueShape => (end === -1 ? { opener, keys } : { opener, keys, end });
  if (opener === '{') return shape(objectKeys(prefix, i));
  // An array: the keys of its first element that is a container, if that is an object.
  let j = skipJsonWs(prefix, i + 1);
  while (j < n && prefix[j] !== '{' && prefix[j] !== '[' && prefix[j] !== ']') {
    const v = skipJsonValue(prefix, j);
    if (v === -1) return shape([]);
    j = skipJsonWs(prefix, v);
    if (prefix[j] !== ',') return shape([]);
    j = skipJsonWs(prefix, j + 1);
  }
  return shape(prefix[j] === '{' ? objectKeys(prefix, j) : []);
}

/** The property names of the object opening at `i`, up to where the text is cut off or malformed. */
function objectKeys(text: string, i: number): string[] {
  return objectKeySites(text, i).map((k) => k.key);
}

/**
 * The property names of the top-level object of a JSON document in file order (a leading BOM is
 * skipped), each with the 1-based line of its opening quote; [] when the document is not an object.
 */
export function topLevelObjectKeys(
  text: string,
): { key: string; line: number; valueStart: number; valueEnd: number }[] {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  i = skipJsonWs(text, i);
  if (text[i] !== '{') return [];
  const sites = objectKeySites(text, i);
  const out: { key: string; line: number; valueStart: number; valueEnd: number }[] = [];
  let line = 1;
  let at = 0;
  for (const k of sites) {
    for (; at < k.start; at++) if (text.charCodeAt(at) === 0x0a) line++;
    out.push({ key: k.key, line, valueStart: k.valueStart, valueEnd: k.valueEnd });
  }
  return out;
}

/**
 * Keys of the object opening at `i` with the offset of each key's opening quote and its value's
 * span (-1 when the value is cut off). A key written twice is listed twice (JSON.parse keeps only
 * the last value: callers that must not lose the first read it from the span).
 */
function objectKeySites(
  text: string,
  i: number,
): { key: string; start: number; valueStart: number; valueEnd: number }[] {
  const keys: { key: string; start: number; valueStart: number; valueEnd: number }[] = [];
  let j = skipJsonWs(text, i + 1);
  while (text[j] === '"') {
    const key = readJsonString(text, j);
    if (!key) break; // cut off inside the key
    const site = { key: key.value, start: j, valueStart: -1, valueEnd: -1 };
    keys.push(site);
    j = skipJsonWs(text, key.end);
    if (text[j] !== ':') break;
    const vs = skipJsonWs(text, j + 1);
    const v = skipJsonValue(text, vs);
    if (v === -1) break; // cut off inside the value
    site.valueStart = vs;
    site.valueEnd = v;
    j = skipJsonWs(text, v);
    if (text[j] !== ',') break;
    j = skipJsonWs(text, j + 1);
  }
  return keys;
}
