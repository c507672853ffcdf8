/**
 * Text helpers of the invariant checker: does an utterance state a value or name an item (allowing
 * the one typo the template NLG may add), and short, printable quotes of untrusted text.
 */
import { escapeControl } from '../text/terminal';
import { tokenize } from '../text/tokenize';


/**
 * True when `a` and `b` differ by at most one of the edits the NLG typo model makes (two
 * neighbouring letters swapped, a letter dropped, a letter doubled); any single insertion or
 * deletion is accepted, a substitution is not.
 */
export function oneTypoApart(a: string, b: string): boolean {
  if (a === b) return true;
  if (a.length === b.length) {
    let i = 0;
    while (i < a.length && a[i] === b[i]) i++;
    return i + 1 < a.length && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  const [s, l] = a.length < b.length ? [a, b] : [b, a];
  if (l.length - s.length !== 1) return false;
  let i = 0;
  while (i < s.length && s[i] === l[i]) i++;
  return s.slice(i) === l.slice(i + 1);
}

/**
 * Does `text` contain the words of `phrase` in order and next to each other (case-insensitive),
 * with at most one word carrying one typo? An empty phrase is contained in any text. Words are
 * cut by the one tokenizer of SimLens (`tokenize`), as retrieval and the NLU cut them.
 */
export function mentions(text: string, phrase: string): boolean {
  return mentionsWords(tokenize(text), tokenize(phrase));
}

/** `mentions` on texts already split with `tokenize` (for checks that look at one text many times). */
export function mentionsWords(have: readonly string[], want: readonly string[]): boolean {
  if (want.length === 0) return true;
  for (let start = 0; start + want.length <= have.length; start++) {
    let typos = 0;
    let k = 0;
    for (; k < want.length; k++) {
      const h = have[start + k];
      if (h === want[k]) continue;
      if (typos === 0 && want[k].length >= 4 && oneTypoApart(h, want[k])) {
        typos++;
        continue;
      }
      break;
    }
    if (k === want.length) return true;
  }
  return false;
}

/** A short quote of untrusted text for a violation detail: control characters escaped, at most `max` characters. */
export function quote(text: string | undefined, max = 60): string {
  if (text === undefined) return '(none)';
  const flat = text.replace(/\s+/g, ' ').trim();
  const cut = flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
  return `"${escapeControl(cut)}"`;
}

/** A value from a conversation file, printable in a detail (escaped, bounded). */
export function show(value: unknown, max = 40): string {
  const s = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  const cut = s.length > max ? `${s.slice(0, max - 1)}…` : s;
  return escapeControl(cut);
}
