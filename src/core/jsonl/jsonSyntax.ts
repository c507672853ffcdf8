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
  return new JsonScanner(text, unit).run();
}

/** Where the scanner is between values: a value is due, a container just opened, or a value just ended. */
type ScanState = 'value' | 'afterOpen' | 'afterValue';

/** One scan of one text: the position `i`, the open containers, and a method per piece of the grammar. */
class JsonScanner {
  private readonly n: number;
  private readonly stack: Ctx[] = [];
  private i = 0;
  private readonly end: string;

  constructor(
    private readonly text: string,
    private readonly unit: JsonUnit,
  ) {
    this.n = text.length;
    this.end = `unexpected end of the ${unit}`;
  }

  /** The main loop: a value, then what may follow it in the innermost open container. */
  run(): JsonSyntaxError | undefined {
    let state: ScanState = 'value';
    this.skipWs();
    for (;;) {
      let r: JsonSyntaxError | ScanState | undefined;
      if (state === 'value') {
        const v = this.scanValue();
        r = v === 'open' ? 'afterOpen' : (v ?? 'afterValue');
      } else {
        this.skipWs();
        if (state === 'afterOpen') r = this.afterOpen();
        else if (this.stack.length === 0) return this.afterTopValue();
        else r = this.afterMember();
      }
      if (typeof r === 'object') return r;
      state = r;
    }
  }

  private skipWs(): void {
    while (this.i < this.n && isWs(this.text.charCodeAt(this.i))) this.i++;
  }

  private fail(offset: number, message: string): JsonSyntaxError {
    return { offset, message };
  }

  private found(at: number): string {
    return describeChar(this.text, at, this.unit);
  }

  private top(): Ctx {
    return this.stack[this.stack.length - 1];
  }

  /** Right after '[' or '{': the container closes at once, or its first element or key follows. */
  private afterOpen(): JsonSyntaxError | ScanState {
    const close = this.top() === Ctx.Array ? 0x5d : 0x7d;
    if (this.i < this.n && this.text.charCodeAt(this.i) === close) {
      this.stack.pop();
      this.i++;
      return 'afterValue';
    }
    if (this.top() === Ctx.Array) return 'value';
    return this.scanKey(true) ?? 'value';
  }

  /** After the top-level value: only whitespace may follow. */
  private afterTopValue(): JsonSyntaxError | undefined {
    if (this.i >= this.n) return undefined;
    const what = this.unit === 'line' ? ' (one conversation per line)' : '';
    return this.fail(this.i, `unexpected ${this.found(this.i)} after the end of the JSON value${what}`);
  }

  /** After an element or a property value: a comma and the next one, or the container's close. */
  private afterMember(): JsonSyntaxError | ScanState {
    const { text, i, n, end } = this;
    const top = this.top();
    if (i >= n) {
      return this.fail(
        n,
        top === Ctx.Object
          ? `${end}: expected ',' or '}' (${this.stack.length > 1 ? 'an object' : 'the object'} is not closed)`
          : `${end}: expected ',' or ']' (an array is not closed)`,
      );
    }
    const c = text.charCodeAt(i);
    if (c === 0x2c) {
      this.i++;
      this.skipWs();
      return top === Ctx.Array ? 'value' : (this.scanKey(false) ?? 'value');
    }
    if (c === (top === Ctx.Array ? 0x5d : 0x7d)) {
      this.stack.pop();
      this.i++;
      return 'afterValue';
    }
    return top === Ctx.Array
      ? this.fail(i, `expected ',' or ']' after an array element, found ${this.found(i)}`)
      : this.fail(i, `expected ',' or '}' after a property value, found ${this.found(i)}`);
  }

  /** Scans one value at i; containers push a context and return 'open' with i after the opener. */
  private scanValue(): JsonSyntaxError | undefined | 'open' {
    if (this.i >= this.n) return this.badValue();
    const c = this.text.charCodeAt(this.i);
    switch (c) {
      case 0x7b: // {
        this.stack.push(Ctx.Object);
        this.i++;
        return 'open';
      case 0x5b: // [
        this.stack.push(Ctx.Array);
        this.i++;
        return 'open';
      case 0x22:
        return this.scanString();
      case 0x74:
        return this.scanLiteral('true');
      case 0x66:
        return this.scanLiteral('false');
      case 0x6e:
        return this.scanLiteral('null');
      default:
        if (c === 0x2d || isDigit(c)) return this.scanNumber();
        return this.badValue();
    }
  }

  /** Scans a string starting at the opening quote; returns an error or advances i past it. */
  private scanString(): JsonSyntaxError | undefined {
    const { text, n } = this;
    let i = this.i + 1; // opening quote
    for (;;) {
      if (i >= n) return this.fail(n, "unterminated string: the closing '\"' is missing");
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        this.i = i + 1;
        return undefined;
      }
      if (c < 0x20) {
        return this.fail(
          i,
          `raw control character ${this.found(i)} inside a string (write it as an escape such as \\n or \\u0000)`,
        );
      }
      if (c === 0x5c) {
        i++;
        const e = this.escapeError(i);
        if (e) return e;
        i += text.charCodeAt(i) === 0x75 ? 5 : 1;
        continue;
      }
      i++;
    }
  }

  /** The error in the escape whose letter is at `i` (after the backslash), if any. */
  private escapeError(i: number): JsonSyntaxError | undefined {
    const { text, n } = this;
    if (i >= n) return this.fail(n, "unterminated string: the closing '\"' is missing");
    const e = text.charCodeAt(i);
    if (e === 0x75) {
      for (let k = 1; k <= 4; k++) {
        if (i + k >= n || !isHex(text.charCodeAt(i + k))) {
          return this.fail(Math.min(i + k, n), 'invalid \\u escape in a string: \\u must be followed by 4 hex digits');
        }
      }
      return undefined;
    }
    if (e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
      return undefined;
    }
    return this.fail(
      i,
      `invalid escape '\\${text[i]}' in a string (allowed: \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)`,
    );
  }

  private scanNumber(): JsonSyntaxError | undefined {
    const { text, n } = this;
    let i = this.i;
    if (text.charCodeAt(i) === 0x2d) {
      i++;
      if (i >= n || !isDigit(text.charCodeAt(i)))
        return this.fail(i, `'-' must be followed by a digit, found ${this.found(i)}`);
    }
    if (text.charCodeAt(i) === 0x30) {
      i++;
      if (i < n && isDigit(text.charCodeAt(i))) return this.fail(i, 'numbers must not have leading zeros');
    } else {
      while (i < n && isDigit(text.charCodeAt(i))) i++;
    }
    if (i < n && text.charCodeAt(i) === 0x2e) {
      i++;
      if (i >= n || !isDigit(text.charCodeAt(i)))
        return this.fail(i, `expected a digit after the decimal point, found ${this.found(i)}`);
      while (i < n && isDigit(text.charCodeAt(i))) i++;
    }
    if (i < n && (text.charCodeAt(i) === 0x65 || text.charCodeAt(i) === 0x45)) {
      i++;
      if (i < n && (text.charCodeAt(i) === 0x2b || text.charCodeAt(i) === 0x2d)) i++;
      if (i >= n || !isDigit(text.charCodeAt(i)))
        return this.fail(i, `expected a digit in the exponent, found ${this.found(i)}`);
      while (i < n && isDigit(text.charCodeAt(i))) i++;
    }
    this.i = i;
    return undefined;
  }

  private scanLiteral(word: string): JsonSyntaxError | undefined {
    const { text, n, i } = this;
    for (let k = 0; k < word.length; k++) {
      if (i + k >= n) return this.fail(n, `${this.end} inside '${word}'`);
      if (text.charCodeAt(i + k) !== word.charCodeAt(k)) {
        // "tru}" is a typo of true; "turns" is a bare word that was meant as a string.
        const bare = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i, i + 40))?.[0] ?? '';
        if (
          bare.length > k + 1 ||
          (bare.length === k + 1 && k + 1 < word.length && /[A-Za-z0-9_]/.test(text[i + k] ?? ''))
        ) {
          return this.fail(
            i + k,
            `expected a value, found '${bare}' (text must be a string in double quotes; the literals are true, false and null)`,
          );
        }
        return this.fail(i + k, `expected '${word}', found ${this.found(i + k)}`);
      }
    }
    this.i += word.length;
    return undefined;
  }

  private badValue(): JsonSyntaxError {
    const { text, i, n } = this;
    if (i >= n) {
      const open =
        this.stack.length === 0
          ? ''
          : this.top() === Ctx.Array
            ? ' (an array is not closed)'
            : ' (an object is not closed)';
      return this.fail(n, `${this.end}: expected a value${open}`);
    }
    const c = text[i];
    if (c === "'") return this.fail(i, "strings must use double quotes (\"), found '''");
    if (c === ']' || c === '}') {
      // Only reachable after a comma or a colon.
      return this.fail(i, `expected a value, found '${c}' (a trailing comma or a missing value)`);
    }
    if (/[A-Za-z_]/.test(c)) {
      const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i, i + 40))?.[0] ?? c;
      return this.fail(
        i,
        `expected a value, found ${word === c ? this.found(i) : `'${word}'`} (JSON allows only strings in double quotes, ` +
          `numbers, true, false, null, objects and arrays)`,
      );
    }
    return this.fail(
      i,
      `expected a value (object, array, string, number, true, false or null), found ${this.found(i)}`,
    );
  }

  /** Scans `"key" :` and leaves i at the value (after whitespace). */
  private scanKey(first: boolean): JsonSyntaxError | undefined {
    const { text, n } = this;
    const at = this.i;
    if (at >= n) return this.fail(n, `${this.end}: expected a property name or '}'`);
    const c = text.charCodeAt(at);
    if (c !== 0x22) {
      if (!first && c === 0x7d) return this.fail(at, "trailing comma: expected a property name after ',', found '}'");
      if (c === 0x27) return this.fail(at, "property names must use double quotes (\"), found '''");
      const or = first ? " or '}'" : '';
      return this.fail(at, `expected a property name in double quotes${or}, found ${this.found(at)}`);
    }
    const e = this.scanString();
    if (e) return e;
    this.skipWs();
    if (this.i >= n) return this.fail(n, `${this.end}: expected ':' after the property name`);
    if (text.charCodeAt(this.i) !== 0x3a)
      return this.fail(this.i, `expected ':' after the property name, found ${this.found(this.i)}`);
    this.i++;
    this.skipWs();
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
