/**
 * Text helpers of the invariant checker: does an utterance state a value or name an item (allowing
 * the one typo the template NLG may add), and short, printable quotes of untrusted text.
 */
import { escapeControl } from '../text/terminal';
import { tokenize } from '../text/tokenize';

/**
 * True when `a` and `b` differ by at most one of the edits the NLG typo model makes (two
 * neighbouring letters swapped, a letter dropped, a letter doubled; `addTypo` in
 * src/core/sim/users/nlg.ts), which never touch the first letter, and never the last one when a
 * letter is dropped or doubled: "range" is no slip of "orange" ("mid-range" does not say orange;
 * thirteenth round: the negation check failed on it). A substitution is no typo either.
 */
export function oneTypoApart(a: string, b: string): boolean {
  if (a === b) return true;
  const la = a.length;
  const lb = b.length;
  if (la === 0 || lb === 0 || a.charCodeAt(0) !== b.charCodeAt(0)) return false;
  if (la !== lb && a.charCodeAt(la - 1) !== b.charCodeAt(lb - 1)) return false;
  // Character loops, no slices: this runs for every word of a text a phrase is looked for in.
  if (la === lb) {
    let i = 0;
    while (i < la && a.charCodeAt(i) === b.charCodeAt(i)) i++;
    if (!(i + 1 < la && a.charCodeAt(i) === b.charCodeAt(i + 1) && a.charCodeAt(i + 1) === b.charCodeAt(i)))
      return false;
    for (let k = i + 2; k < la; k++) if (a.charCodeAt(k) !== b.charCodeAt(k)) return false;
    return true;
  }
  const s = la < lb ? a : b;
  const l = la < lb ? b : a;
  if (l.length - s.length !== 1) return false;
  let i = 0;
  while (i < s.length && s.charCodeAt(i) === l.charCodeAt(i)) i++;
  for (let k = i; k < s.length; k++) if (s.charCodeAt(k) !== l.charCodeAt(k + 1)) return false;
  return true;
}

/**
 * Does `text` contain the words of `phrase` in order and next to each other (case-insensitive),
 * with at most one word carrying one typo? An empty phrase is contained in any text. Words are
 * cut by the one tokenizer of SimLens (`tokenize`), as retrieval and the NLU cut them.
 */
export function mentions(text: string, phrase: string): boolean {
  return mentionsWords(tokenize(text), phraseWords(phrase));
}

/** Whether `want` stands in `have` at `start`, one word of 4+ letters allowed one typo away. */
function matchesAt(have: readonly string[], want: readonly string[], start: number): boolean {
  let typos = 0;
  for (let k = 0; k < want.length; k++) {
    const h = have[start + k];
    if (h === want[k]) continue;
    const w = want[k];
    if (typos === 0 && w.length >= 4 && h !== undefined && Math.abs(h.length - w.length) <= 1 && oneTypoApart(h, w)) {
      typos++;
      continue;
    }
    return false;
  }
  return true;
}

/** `mentions` on texts already split with `tokenize` (for checks that look at one text many times). */
export function mentionsWords(have: readonly string[], want: readonly string[]): boolean {
  if (want.length === 0) return true;
  for (let start = 0; start + want.length <= have.length; start++) {
    if (matchesAt(have, want, start)) return true;
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
  const s = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  const cut = s.length > max ? `${s.slice(0, max - 1)}…` : s;
  return escapeControl(cut);
}

const PHRASE_CACHE = new Map<string, string[]>();
const PHRASE_CACHE_MAX = 20000;

/**
 * `tokenize` for the short phrases the checker looks for again and again (attribute values,
 * titles): cached, bounded (the cache is cleared when full). Do not mutate the result.
 */
export function phraseWords(phrase: string): string[] {
  let w = PHRASE_CACHE.get(phrase);
  if (w === undefined) {
    if (PHRASE_CACHE.size >= PHRASE_CACHE_MAX) PHRASE_CACHE.clear();
    w = tokenize(phrase);
    PHRASE_CACHE.set(phrase, w);
  }
  return w;
}

/** Where `want` occurs in `have` (start indices), with the same one-typo tolerance as `mentionsWords`. */
export function mentionStarts(have: readonly string[], want: readonly string[]): number[] {
  const out: number[] = [];
  if (want.length === 0) return out;
  for (let start = 0; start + want.length <= have.length; start++) {
    if (matchesAt(have, want, start)) out.push(start);
  }
  return out;
}

/** Words that make what follows them in the same clause a thing the speaker does not want. */
const NEGATORS = new Set([
  'not',
  'no',
  'never',
  'without',
  'except',
  'excluding',
  'nothing',
  'none',
  'neither',
  'nor',
  'hate',
  'avoid',
  "don't",
  'dont',
  "doesn't",
  "isn't",
  "aren't",
  "won't",
  "wouldn't",
  "can't",
  'cannot',
  "shouldn't",
  "didn't",
]);
/** "anything but red": `but` negates when it follows one of these. */
const BUT_NEGATES_AFTER = new Set(['anything', 'everything', 'all', 'something']);
/** Words that start a new clause (a contrast or a correction): a negation before them does not reach past them. */
const CLAUSE_BREAKS = new Set([
  'mind',
  'but',
  'though',
  'although',
  'however',
  'instead',
  'rather',
  'just',
  'only',
  'prefer',
  'preferably',
  'ideally',
]);

/**
 * The clauses of a text (cut at sentence and clause punctuation), each as tokens. A reader of what
 * the user said (the checker, the read-back NLU) looks for negations within one clause.
 */
export function clauses(text: string): string[][] {
  return text
    .split(/[.,;:!?\n()\u2013\u2014]+|\s-\s/)
    .map((c) => tokenize(c))
    .filter((c) => c.length > 0);
}

/**
 * How `text` mentions `phrase`: "none" (not at all), "negated" (only after a negation in the same
 * clause: "Anything but red.", "I don't want red", "not keen on anything red") or "stated" (at
 * least one mention that no negation reaches).
 */
export function mentionPolarity(
  text: string | (() => readonly string[][]),
  phrase: string,
  words?: readonly string[],
): 'none' | 'negated' | 'stated' {
  const want = phraseWords(phrase);
  // With the text's words at hand: not mentioned at all, or no word that could negate it.
  if (words) {
    if (!mentionsWords(words, want)) return 'none';
    if (!hasNegator(words)) return 'stated';
  }
  return clausePolarity(typeof text === 'string' ? clauses(text) : text(), want);
}

/** `mentionPolarity` over a text's clauses, for the words `want` of a phrase (`phraseWords`). */
export function clausePolarity(
  textClauses: readonly string[][],
  want: readonly string[],
): 'none' | 'negated' | 'stated' {
  let found = false;
  for (const clause of textClauses) {
    for (const start of mentionStarts(clause, want)) {
      found = true;
      if (!negatedAt(clause, start)) return 'stated';
    }
  }
  return found ? 'negated' : 'none';
}

/** Does any of these words possibly negate what follows it (a negator, a "n't" form, "but", or "too")? */
export function hasNegator(words: readonly string[]): boolean {
  for (const w of words) if (mayNegate(w)) return true;
  return false;
}

/** Could this word negate what follows it (a negator, a "n't" form, "but", or the excess "too")? */
function mayNegate(w: string): boolean {
  return NEGATORS.has(w) || w === 'but' || w === 'too' || w.endsWith("n't");
}

/**
 * Is the word at `at` inside the reach of a negation earlier in its clause? An excess right before
 * it negates it too: "too yellow for me", "a bit too formal" say the user does not want yellow,
 * formal ("too" after a value, "red too", is "also").
 */
export function negatedAt(clause: readonly string[], at: number): boolean {
  if (at > 0 && clause[at - 1] === 'too') return true;
  for (let j = at - 1; j >= 0; j--) {
    const w = clause[j];
    if (w === 'but') {
      if (j > 0 && BUT_NEGATES_AFTER.has(clause[j - 1])) return true;
      if (j + 1 < at && clause[j + 1] === 'not') return true;
      return false;
    }
    if (CLAUSE_BREAKS.has(w)) return false;
    if (NEGATORS.has(w) || w.endsWith("n't")) return true;
  }
  return false;
}
