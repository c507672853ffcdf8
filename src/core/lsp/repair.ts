/**
 * Repairs for the commonest ways a conversation line breaks when people edit or export it by
 * hand: trailing commas, Python dict syntax (`str(dict)` output with single quotes and
 * True/False/None), and a whole JSON document where JSONL was expected. Each repair is a pure
 * text transform that only returns a result when the result parses as JSON, so a quick fix never
 * offers to replace one broken line with another.
 */

/** Removes commas that directly precede `}` or `]` (ignoring whitespace), outside strings. */
export function removeTrailingCommas(text: string): string | undefined {
  let out = '';
  let changed = false;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      out += ch;
      if (ch === '\\') {
        out += text[i + 1] ?? '';
        i++;
      } else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') {
      inString = true;
      out += ch;
      continue;
    }
    if (ch === ',') {
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j])) j++;
      if (text[j] === '}' || text[j] === ']') {
        changed = true;
        continue;
      }
    }
    out += ch;
  }
  if (!changed || !parses(out)) return undefined;
  return out;
}

/**
 * Converts a Python literal (as printed by `print(dict)` or `repr`) to JSON: single- or
 * double-quoted strings become JSON strings, True/False/None become true/false/null, and
 * trailing commas are dropped. Returns undefined when the text is not such a literal.
 */
export function pythonLiteralToJson(text: string): string | undefined {
  let out = '';
  let changed = false;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const ch = text[i];
    if (ch === "'" || ch === '"') {
      const quote = ch;
      let value = '';
      i++;
      let closed = false;
      while (i < n) {
        const c = text[i];
        if (c === '\\') {
          const next = text[i + 1];
          if (next === undefined) return undefined;
          // Python escapes that JSON lacks or spells differently.
          if (next === "'") value += "'";
          else if (next === '"') value += '"';
          else if (next === '\\') value += '\\';
          else if (next === 'n') value += '\n';
          else if (next === 't') value += '\t';
          else if (next === 'r') value += '\r';
          else if (next === 'x' && /^[0-9a-fA-F]{2}$/.test(text.slice(i + 2, i + 4))) {
            value += String.fromCharCode(parseInt(text.slice(i + 2, i + 4), 16));
            i += 2;
          } else if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
            value += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
            i += 4;
          } else value += next;
          i += 2;
          continue;
        }
        if (c === quote) {
          closed = true;
          i++;
          break;
        }
        value += c;
        i++;
      }
      if (!closed) return undefined;
      if (quote === "'") changed = true;
      out += JSON.stringify(value);
      continue;
    }
    if (/[A-Za-z_]/.test(ch)) {
      let j = i;
      while (j < n && /[A-Za-z0-9_]/.test(text[j])) j++;
      const word = text.slice(i, j);
      const mapped = word === 'True' ? 'true' : word === 'False' ? 'false' : word === 'None' ? 'null' : word;
      if (mapped !== word) changed = true;
      out += mapped;
      i = j;
      continue;
    }
    out += ch;
    i++;
  }
  if (!changed) return undefined;
  if (parses(out)) return out;
  const noCommas = removeTrailingCommas(out);
  return noCommas;
}

/** True when `text` is a single JSON value. */
function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Decides whether a file's first line suggests one JSON document spread over many lines (a
 * pretty-printed array or a `{ "conversations": [...] }` wrapper) rather than JSONL: the first
 * non-blank line is an opening bracket alone, or an object that does not close on that line.
 */
export function looksLikeWrappedDocument(firstLines: readonly string[]): boolean {
  const first = firstLines.find((l) => l.trim() !== '');
  if (first === undefined) return false;
  const t = first.trim();
  if (t === '[' || t === '{') return true;
  if ((t.startsWith('{') || t.startsWith('[')) && !parses(t)) {
    // A multi-line document: the next non-blank line is indented or a key.
    const idx = firstLines.indexOf(first);
    const next = firstLines.slice(idx + 1).find((l) => l.trim() !== '');
    return next !== undefined && (/^\s+/.test(next) || /^"[^"]+"\s*:/.test(next.trim()));
  }
  return false;
}
