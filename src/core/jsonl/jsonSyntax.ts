/**
 * A small JSON syntax checker that finds the first error in a text and describes it in words a
 * researcher can act on. `JSON.parse` only says "Unexpected token" and, for some errors, gives no
 * position at all; this scanner reports the same position V8 reports (UTF-16 offset of the
 * offending character, or the text length for a premature end) with a clearer message. It is the
 * one JSON syntax checker: JSONL lines (jsonl/parse.ts) and whole documents (importers/json.ts,
 * which adds line and column) both use it; `unit` only changes the wording ("line" or "file").
 *
 * It is iterative (an explicit stack), so deeply nested junk cannot overflow the call stack.
 *
 * Why not Microsoft's jsonc-parser (already installed, 3.3.1), measured on 2,000 conversation
 * lines shaped like the benchmark file's (median 5.2k, max 8.9k characters): its scanner took
 * 54 µs per valid line and 23 µs per broken line against 30 and 13 µs here (1.7-1.8x slower);
 * it reports error codes without words (`ValueExpected`, `CommaExpected`), several codes for one
 * mistake ("01" gives CommaExpected, PropertyNameExpected and ValueExpected), and offsets that
 * differ from V8's (an unterminated string at its opening quote). Messages with the offending
 * character and the fix would have to be rebuilt on top of it anyway.
 */

/** The first syntax error in a JSON text. */
interface JsonSyntaxError {
  /** 0-based UTF-16 offset of the offending character (text length when the text ends too early). */
  offset: number;
  message: string;
}

const enum Ctx {
  Object,
  Array,
}

function isWs(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** What the checked text is, for messages: one JSONL line or a whole JSON file. */
type JsonUnit = 'line' | 'file';

/** Shows the character at `i` for a message: 'x', U+0000 for invisible ones, or "the end of the line" (or file). */
function describeChar(text: string, i: number, unit: JsonUnit = 'line'): string {
  if (i >= text.length) return `the end of the ${unit}`;
  const cp = text.codePointAt(i) ?? 0;
  if (cp === 0x09) return 'U+0009 (a tab)';
  if (cp === 0x0a) return 'U+000A (a line break)';
  if (cp === 0x0d) return 'U+000D (a carriage return)';
  if (
    cp < 0x20 ||
    cp === 0x7f ||
    (cp >= 0x80 && cp < 0xa0) ||
    cp === 0xfeff ||
    cp === 0xfffd ||
    (cp >= 0xd800 && cp <= 0xdfff)
  ) {
    return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return `'${String.fromCodePoint(cp)}'`;
}

/**
 * Returns the first syntax error of `text` as JSON, or undefined when `text` is valid JSON.
 * Positions match V8's `JSON.parse` ("... in JSON at position N").
 */
export function findJsonSyntaxError(text: string, unit: JsonUnit = 'line'): JsonSyntaxError | undefined {
  const n = text.length;
  const stack: Ctx[] = [];
  let i = 0;

  const skipWs = (): void => {
    while (i < n && isWs(text.charCodeAt(i))) i++;
  };
  const fail = (offset: number, message: string): JsonSyntaxError => ({ offset, message });
  const found = (at: number): string => describeChar(text, at, unit);
  const end = `unexpected end of the ${unit}`;

  /** Scans a string starting at the opening quote; returns an error or advances i past it. */
  const scanString = (): JsonSyntaxError | undefined => {
    i++; // opening quote
    for (;;) {
      if (i >= n) return fail(n, "unterminated string: the closing '\"' is missing");
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return undefined;
      }
      if (c < 0x20) {
        return fail(
          i,
          `raw control character ${found(i)} inside a string (write it as an escape such as \\n or \\u0000)`,
        );
      }
      if (c === 0x5c) {
        i++;
        if (i >= n) return fail(n, "unterminated string: the closing '\"' is missing");
        const e = text.charCodeAt(i);
        if (e === 0x75) {
          for (let k = 1; k <= 4; k++) {
            if (i + k >= n || !isHex(text.charCodeAt(i + k))) {
              return fail(Math.min(i + k, n), 'invalid \\u escape in a string: \\u must be followed by 4 hex digits');
            }
          }
          i += 5;
          continue;
        }
        if (
          e === 0x22 ||
          e === 0x5c ||
          e === 0x2f ||
          e === 0x62 ||
          e === 0x66 ||
          e === 0x6e ||
          e === 0x72 ||
          e === 0x74
        ) {
          i++;
          continue;
        }
        return fail(i, `invalid escape '\\${text[i]}' in a string (allowed: \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)`);
      }
      i++;
    }
  };

  const scanNumber = (): JsonSyntaxError | undefined => {
    if (text.charCodeAt(i) === 0x2d) {
      i++;
      if (i >= n || !isDigit(text.charCodeAt(i))) return fail(i, `'-' must be followed by a digit, found ${found(i)}`);
    }
    if (text.charCodeAt(i) === 0x30) {
      i++;
      if (i < n && isDigit(text.charCodeAt(i))) return fail(i, 'numbers must not have leading zeros');
    } else {
      while (i < n && isDigit(text.charCodeAt(i))) i++;
    }
    if (i < n && text.charCodeAt(i) === 0x2e) {
      i++;
      if (i >= n || !isDigit(text.charCodeAt(i)))
        return fail(i, `expected a digit after the decimal point, found ${found(i)}`);
      while (i < n && isDigit(text.charCodeAt(i))) i++;
    }
    if (i < n && (text.charCodeAt(i) === 0x65 || text.charCodeAt(i) === 0x45)) {
      i++;
      if (i < n && (text.charCodeAt(i) === 0x2b || text.charCodeAt(i) === 0x2d)) i++;
      if (i >= n || !isDigit(text.charCodeAt(i))) return fail(i, `expected a digit in the exponent, found ${found(i)}`);
      while (i < n && isDigit(text.charCodeAt(i))) i++;
    }
    return undefined;
  };

  const scanLiteral = (word: string): JsonSyntaxError | undefined => {
    for (let k = 0; k < word.length; k++) {
      if (i + k >= n) return fail(n, `${end} inside '${word}'`);
      if (text.charCodeAt(i + k) !== word.charCodeAt(k)) {
        // "tru}" is a typo of true; "turns" is a bare word that was meant as a string.
        const bare = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i, i + 40))?.[0] ?? '';
        if (
          bare.length > k + 1 ||
          (bare.length === k + 1 && k + 1 < word.length && /[A-Za-z0-9_]/.test(text[i + k] ?? ''))
        ) {
          return fail(
            i + k,
            `expected a value, found '${bare}' (text must be a string in double quotes; the literals are true, false and null)`,
          );
        }
        return fail(i + k, `expected '${word}', found ${found(i + k)}`);
      }
    }
    i += word.length;
    return undefined;
  };

  const badValue = (): JsonSyntaxError => {
    if (i >= n) {
      const open =
        stack.length === 0
          ? ''
          : stack[stack.length - 1] === Ctx.Array
            ? ' (an array is not closed)'
            : ' (an object is not closed)';
      return fail(n, `${end}: expected a value${open}`);
    }
    const c = text[i];
    if (c === "'") return fail(i, "strings must use double quotes (\"), found '''");
    if (c === ']' || c === '}') {
      // Only reachable after a comma or a colon.
      return fail(i, `expected a value, found '${c}' (a trailing comma or a missing value)`);
    }
    if (/[A-Za-z_]/.test(c)) {
      const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i, i + 40))?.[0] ?? c;
      return fail(
        i,
        `expected a value, found ${word === c ? found(i) : `'${word}'`} (JSON allows only strings in double quotes, ` +
          `numbers, true, false, null, objects and arrays)`,
      );
    }
    return fail(i, `expected a value (object, array, string, number, true, false or null), found ${found(i)}`);
  };

  /** Scans one value at i; containers push a context and return with i after the opener. */
  const scanValue = (): JsonSyntaxError | undefined | 'open' => {
    if (i >= n) return badValue();
    const c = text.charCodeAt(i);
    switch (c) {
      case 0x7b: // {
        stack.push(Ctx.Object);
        i++;
        return 'open';
      case 0x5b: // [
        stack.push(Ctx.Array);
        i++;
        return 'open';
      case 0x22:
        return scanString();
      case 0x74:
        return scanLiteral('true');
      case 0x66:
        return scanLiteral('false');
      case 0x6e:
        return scanLiteral('null');
      default:
        if (c === 0x2d || isDigit(c)) return scanNumber();
        return badValue();
    }
  };

  /** After a container opened: the first member/element or an immediate close. */
  type State = 'value' | 'afterOpen' | 'afterValue';
  let state: State = 'value';
  skipWs();
  for (;;) {
    if (state === 'value') {
      const r = scanValue();
      if (r === 'open') {
        state = 'afterOpen';
      } else if (r) {
        return r;
      } else {
        state = 'afterValue';
      }
      continue;
    }
    skipWs();
    const top = stack.length ? stack[stack.length - 1] : undefined;
    if (state === 'afterOpen') {
      if (top === Ctx.Array) {
        if (i < n && text.charCodeAt(i) === 0x5d) {
          stack.pop();
          i++;
          state = 'afterValue';
          continue;
        }
        state = 'value';
        continue;
      }
      // Object: '}' or a key.
      if (i < n && text.charCodeAt(i) === 0x7d) {
        stack.pop();
        i++;
        state = 'afterValue';
        continue;
      }
      const e = scanKey(true);
      if (e) return e;
      state = 'value';
      continue;
    }
    // afterValue
    if (top === undefined) {
      if (i < n)
        return fail(
          i,
          `unexpected ${found(i)} after the end of the JSON value${unit === 'line' ? ' (one conversation per line)' : ''}`,
        );
      return undefined;
    }
    if (i >= n) {
      return fail(
        n,
        top === Ctx.Object
          ? `${end}: expected ',' or '}' (${stack.length > 1 ? 'an object' : 'the object'} is not closed)`
          : `${end}: expected ',' or ']' (an array is not closed)`,
      );
    }
    const c = text.charCodeAt(i);
    if (top === Ctx.Array) {
      if (c === 0x2c) {
        i++;
        skipWs();
        state = 'value';
        continue;
      }
      if (c === 0x5d) {
        stack.pop();
        i++;
        continue;
      }
      return fail(i, `expected ',' or ']' after an array element, found ${found(i)}`);
    }
    if (c === 0x2c) {
      i++;
      skipWs();
      const e = scanKey(false);
      if (e) return e;
      state = 'value';
      continue;
    }
    if (c === 0x7d) {
      stack.pop();
      i++;
      continue;
    }
    return fail(i, `expected ',' or '}' after a property value, found ${found(i)}`);
  }

  /** Scans `"key" :` and leaves i at the value (after whitespace). */
  function scanKey(first: boolean): JsonSyntaxError | undefined {
    if (i >= n) return fail(n, `${end}: expected a property name or '}'`);
    const c = text.charCodeAt(i);
    if (c !== 0x22) {
      if (!first && c === 0x7d) return fail(i, "trailing comma: expected a property name after ',', found '}'");
      if (c === 0x27) return fail(i, "property names must use double quotes (\"), found '''");
      return fail(i, `expected a property name in double quotes${first ? " or '}'" : ''}, found ${found(i)}`);
    }
    const e = scanString();
    if (e) return e;
    skipWs();
    if (i >= n) return fail(n, `${end}: expected ':' after the property name`);
    if (text.charCodeAt(i) !== 0x3a) return fail(i, `expected ':' after the property name, found ${found(i)}`);
    i++;
    skipWs();
    return undefined;
  }
}

/**
 * Where a syntax error's column points. The scanner reports V8's offset, which for a bare word
 * starting like a literal ("this", "none", "false-ish") is the first character that is not the
 * literal's ("this" -> 'h'); the message names the whole word, so the column points at its start,
 * as it does for any other bare word ("hello"). Other errors keep the scanner's offset.
 */
export function bareWordStart(text: string, found: JsonSyntaxError): number {
  let start = found.offset;
  while (start > 0 && /[A-Za-z0-9_]/.test(text[start - 1])) start--;
  if (start === found.offset) return found.offset;
  const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(start, start + 40))?.[0];
  return word !== undefined && found.message.startsWith(`expected a value, found '${word}'`) ? start : found.offset;
}
