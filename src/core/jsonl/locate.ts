/**
 * Finds where a value sits inside the JSON text of one line, given its path
 * (["turns", 2, "user_utterance"]). Used to turn schema errors into precise columns (CLI) and
 * ranges (language server). Iterative and allocation-light: it walks the text once per call and
 * skips the values it does not need without parsing them.
 */

/** A span of UTF-16 offsets in the text, end exclusive. */
export interface JsonSpan {
  start: number;
  end: number;
}

function isWs(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

/** Index of the first non-whitespace character at or after `i` (JSON whitespace). */
export function skipJsonWs(text: string, i: number): number {
  while (i < text.length && isWs(text.charCodeAt(i))) i++;
  return i;
}
const skipWs = skipJsonWs;

/** Index just past the string starting at `i` (the opening quote); -1 if unterminated. */
function skipString(text: string, i: number): number {
  let j = i + 1;
  for (;;) {
    const q = text.indexOf('"', j);
    if (q === -1) return -1;
    // Count backslashes before the quote: odd means escaped.
    let b = q - 1;
    while (b > i && text.charCodeAt(b) === 0x5c) b--;
    if ((q - 1 - b) % 2 === 0) return q + 1;
    j = q + 1;
  }
}

/** Index just past the JSON value starting at `i`; -1 if the text is malformed there. */
export function skipJsonValue(text: string, i: number): number {
  const n = text.length;
  if (i >= n) return -1;
  const c = text.charCodeAt(i);
  if (c === 0x22) return skipString(text, i);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    let j = i;
    while (j < n) {
      const d = text.charCodeAt(j);
      if (d === 0x22) {
        j = skipString(text, j);
        if (j === -1) return -1;
        continue;
      }
      if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) {
        depth--;
        if (depth === 0) return j + 1;
      }
      j++;
    }
    return -1;
  }
  // Number or literal: up to the next delimiter.
  let j = i;
  while (j < n) {
    const d = text.charCodeAt(j);
    if (d === 0x2c || d === 0x7d || d === 0x5d || isWs(d)) break;
    j++;
  }
  return j > i ? j : -1;
}

function readKey(text: string, i: number): { key: string; end: number } | undefined {
  const end = skipString(text, i);
  if (end === -1) return undefined;
  const raw = text.slice(i + 1, end - 1);
  if (raw.indexOf('\\') === -1) return { key: raw, end };
  try {
    return { key: JSON.parse(text.slice(i, end)) as string, end };
  } catch {
    return undefined;
  }
}

/**
 * The string starting at `i` (the opening quote) and the index just past it, tolerantly: an invalid
 * escape gives the raw text between the quotes; undefined when the string is not closed.
 */
export function readJsonString(text: string, i: number): { value: string; end: number } | undefined {
  const end = skipString(text, i);
  if (end === -1) return undefined;
  const k = readKey(text, i);
  return { value: k ? k.key : text.slice(i + 1, end - 1), end };
}

/** Options for `locateJsonPath`. */
interface LocateOptions {
  /** When the last path segment is an object key, return the span of the key (with its quotes) instead of the value. */
  key?: boolean;
}

/**
 * The span of the value at `path` in `text` (one JSON document), or undefined when the path does
 * not exist or the text is malformed before it. An empty path is the whole value. With duplicate
 * keys the last one wins, as in `JSON.parse`. Offsets are UTF-16 code units (JavaScript string
 * indices), so `start + 1` is the 1-based column in the line.
 */
export function locateJsonPath(
  text: string,
  path: readonly (string | number)[],
  opts: LocateOptions = {},
): JsonSpan | undefined {
  let pos = skipWs(text, 0);
  // A BOM at the start of the text is tolerated like whitespace.
  if (text.charCodeAt(pos) === 0xfeff) pos = skipWs(text, pos + 1);
  let keySpan: JsonSpan | undefined;
  for (const seg of path) {
    const open = text.charCodeAt(pos);
    if (typeof seg === 'number') {
      if (open !== 0x5b) return undefined;
      let p = skipWs(text, pos + 1);
      if (text.charCodeAt(p) === 0x5d) return undefined;
      for (let k = 0; ; k++) {
        if (k === seg) break;
        const after = skipJsonValue(text, p);
        if (after === -1) return undefined;
        p = skipWs(text, after);
        if (text.charCodeAt(p) !== 0x2c) return undefined; // ']' or junk: index out of range
        p = skipWs(text, p + 1);
      }
      pos = p;
      keySpan = undefined;
      continue;
    }
    if (open !== 0x7b) return undefined;
    let p = skipWs(text, pos + 1);
    let hit = -1;
    let hitKey: JsonSpan | undefined;
    if (text.charCodeAt(p) !== 0x7d) {
      for (;;) {
        if (text.charCodeAt(p) !== 0x22) return undefined;
        const k = readKey(text, p);
        if (!k) return undefined;
        const kStart = p;
        p = skipWs(text, k.end);
        if (text.charCodeAt(p) !== 0x3a) return undefined;
        p = skipWs(text, p + 1);
        if (k.key === seg) {
          hit = p;
          hitKey = { start: kStart, end: k.end };
        }
        const after = skipJsonValue(text, p);
        if (after === -1) {
          if (hit === p) break; // the value we want is there; what follows is not our business
          return undefined;
        }
        p = skipWs(text, after);
        const d = text.charCodeAt(p);
        if (d === 0x2c) {
          p = skipWs(text, p + 1);
          continue;
        }
        break; // '}' or malformed: stop looking
      }
    }
    if (hit === -1) return undefined;
    pos = hit;
    keySpan = hitKey;
  }
  if (opts.key && keySpan) return keySpan;
  const end = skipJsonValue(text, pos);
  if (end === -1) return undefined;
  return { start: pos, end };
}
