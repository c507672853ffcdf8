/**
 * JSON helpers for the importers: parse with a precise syntax-error location (line, column and
 * what was expected, which Node's own messages do not always give), and a tolerant scanner that
 * reads the top-level keys of the first value in a possibly truncated prefix (format sniffing).
 */
import { ImportError } from './errors';

/** A JSON syntax error found by `findJsonSyntaxError`. Offsets are UTF-16 indices; line and column are 1-based. */
export interface JsonSyntaxProblem {
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

function charName(text: string, i: number): string {
  if (i >= text.length) return 'the end of the input';
  const c = text[i];
  if (c === '\n') return 'a line break';
  if (c === '\r') return 'a carriage return';
  if (c === '\t') return 'a tab';
  const code = text.charCodeAt(i);
  if (code < 0x20) return `control character U+${code.toString(16).padStart(4, '0').toUpperCase()}`;
  return `'${c}'`;
}

/**
 * Validates JSON syntax without building values and returns the first error, or undefined when
 * the text is one valid JSON value (surrounded by optional whitespace). Iterative: deep nesting
 * cannot overflow the stack. Used only after `JSON.parse` failed, to say where and why.
 */
export function findJsonSyntaxError(text: string): JsonSyntaxProblem | undefined {
  const n = text.length;
  let i = 0;
  const fail = (at: number, message: string): JsonSyntaxProblem => ({ offset: at, ...lineColumnAt(text, at), message });
  const ws = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else break;
    }
  };
  // Returns an error message or undefined; advances i past the string.
  const str = (): JsonSyntaxProblem | undefined => {
    const start = i;
    i++; // opening quote
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return undefined;
      }
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === undefined) break;
        if ('"\\/bfnrt'.includes(e)) i += 2;
        else if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return fail(i, 'invalid \\u escape (expected four hex digits)');
          i += 6;
        } else return fail(i, `invalid escape '\\${e}' in a string`);
        continue;
      }
      if (c < 0x20) return fail(i, `${charName(text, i)} inside a string (escape it as \\n, \\t, ...)`);
      i++;
    }
    return fail(start, 'unterminated string (no closing quote)');
  };
  const num = (): JsonSyntaxProblem | undefined => {
    const start = i;
    const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(i, i + 400));
    if (!m || m[0] === '' || m[0] === '-') return fail(i, `invalid number starting with ${charName(text, i)}`);
    i += m[0].length;
    const c = text[i];
    if (c !== undefined && /[0-9.eE+\-]/.test(c)) {
      const bad = /^[-+0-9.eE]*/.exec(text.slice(start, start + 40))![0];
      return fail(start, `invalid number "${bad}" (JSON numbers have no leading zeros, and need digits around '.' and after 'e')`);
    }
    return undefined;
  };
  const literal = (): JsonSyntaxProblem | undefined => {
    for (const w of ['true', 'false', 'null']) {
      if (text.startsWith(w, i)) {
        i += w.length;
        return undefined;
      }
    }
    return fail(i, `unexpected ${charName(text, i)} (expected a value: object, array, string, number, true, false or null)`);
  };

  // Container stack: '{' or '['; state says what comes next inside the top container.
  const stack: string[] = [];
  type State = 'value' | 'afterValue' | 'key' | 'colon' | 'firstKeyOrEnd' | 'firstValueOrEnd';
  let state: State = 'value';
  ws();
  if (i >= n) return fail(i, 'the input is empty (expected a JSON value)');
  for (;;) {
    ws();
    const top = stack[stack.length - 1];
    if (state === 'value' || state === 'firstValueOrEnd') {
      if (state === 'firstValueOrEnd' && text[i] === ']') {
        stack.pop();
        i++;
        state = 'afterValue';
        continue;
      }
      if (i >= n) return fail(i, 'unexpected end of input (expected a value)');
      const c = text[i];
      if (c === '{') {
        stack.push('{');
        i++;
        state = 'firstKeyOrEnd';
      } else if (c === '[') {
        stack.push('[');
        i++;
        state = 'firstValueOrEnd';
      } else {
        const err = c === '"' ? str() : c === '-' || (c >= '0' && c <= '9') ? num() : literal();
        if (err) return err;
        state = 'afterValue';
      }
      continue;
    }
    if (state === 'firstKeyOrEnd' || state === 'key') {
      if (state === 'firstKeyOrEnd' && text[i] === '}') {
        stack.pop();
        i++;
        state = 'afterValue';
        continue;
      }
      if (text[i] !== '"') {
        const hint = text[i] === '}' ? ' (a trailing comma before } is not allowed)' : '';
        return fail(i, `expected a double-quoted property name, found ${charName(text, i)}${hint}`);
      }
      const err = str();
      if (err) return err;
      state = 'colon';
      continue;
    }
    if (state === 'colon') {
      if (text[i] !== ':') return fail(i, `expected ':' after the property name, found ${charName(text, i)}`);
      i++;
      state = 'value';
      continue;
    }
    // afterValue
    if (top === undefined) {
      if (i < n) return fail(i, `unexpected ${charName(text, i)} after the end of the JSON value`);
      return undefined;
    }
    if (i >= n) return fail(i, `unexpected end of input (an ${top === '{' ? 'object' : 'array'} is not closed)`);
    const c = text[i];
    if (c === ',') {
      i++;
      if (top === '{') state = 'key';
      else {
        ws();
        if (text[i] === ']') return fail(i, 'a trailing comma before ] is not allowed');
        state = 'value';
      }
      continue;
    }
    if ((top === '{' && c === '}') || (top === '[' && c === ']')) {
      stack.pop();
      i++;
      state = 'afterValue';
      continue;
    }
    return fail(i, `expected ',' or '${top === '{' ? '}' : ']'}' after a ${top === '{' ? 'property value' : 'list element'}, found ${charName(text, i)}`);
  }
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
export function jsonSyntaxImportError(text: string, origin: string, cause: unknown, lineOffset = 0): ImportError {
  const p = findJsonSyntaxError(text);
  if (p) return new ImportError(origin, `invalid JSON: ${p.message}`, { line: p.line + lineOffset, column: p.column });
  // Our checker accepted what V8 rejected (should not happen): fall back to V8's message.
  return new ImportError(origin, `invalid JSON: ${cause instanceof Error ? cause.message : String(cause)}`);
}

/** What `scanFirstValue` learned about the first JSON value of a (possibly truncated) prefix. */
export interface FirstValueShape {
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
  // Keys are collected at this depth: 1 = the object itself, 2 = the first element of an array.
  const keyDepth = opener === '{' ? 1 : 2;
  const keys: string[] = [];
  const kinds: string[] = []; // open containers, innermost last
  let expectKey = false; // inside an object, before the next ':'
  let collecting = true; // still inside the object whose keys we want
  for (; i < n; i++) {
    const c = prefix[i];
    if (c === '"') {
      const start = i;
      i++;
      while (i < n && prefix[i] !== '"') {
        if (prefix[i] === '\\') i++;
        i++;
      }
      if (i >= n) break; // cut off inside a string
      if (collecting && expectKey && kinds.length === keyDepth && kinds[keyDepth - 1] === '{') {
        const raw = prefix.slice(start, i + 1);
        try {
          keys.push(JSON.parse(raw) as string);
        } catch {
          keys.push(raw.slice(1, -1));
        }
      }
      continue;
    }
    if (c === '{' || c === '[') {
      kinds.push(c);
      expectKey = c === '{';
    } else if (c === '}' || c === ']') {
      if (kinds.length === keyDepth) collecting = false;
      kinds.pop();
      expectKey = false;
      if (kinds.length === 0) return { opener, keys, end: i + 1 };
    } else if (c === ':') {
      expectKey = false;
    } else if (c === ',') {
      expectKey = kinds[kinds.length - 1] === '{';
    }
  }
  return { opener, keys };
}
