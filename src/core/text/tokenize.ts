/**
 * Word tokenization, the one tokenizer of SimLens: retrieval, the lexical classifiers, the act
 * tagger, the human-likeness discriminator and the agents' NLU all cut text here, so a query and
 * a document (or a training and a test utterance) are always cut the same way.
 *
 * A token is a run of letters, combining marks and digits in any script; an apostrophe inside a
 * word is kept ("don't", "women's") and the typographic apostrophe is folded to ASCII. Hyphens,
 * punctuation and symbols separate tokens ("t-shirt" gives "t", "shirt"). Text is lowercased;
 * non-ASCII text is first NFKC-normalized so that compatibility forms (full-width letters,
 * ligatures) compare equal to their plain spelling.
 *
 * `dialogueTokens` also keeps `?`, `!` and `$` as tokens of their own: for dialogue acts and for
 * telling people from simulators, how an utterance is punctuated is a signal.
 */
import { STOPWORDS } from './stopwords';

const WORD = /[\p{L}\p{M}\p{N}]+(?:'[\p{L}\p{M}\p{N}]+)*/gu;
const WORD_OR_MARK = /[\p{L}\p{M}\p{N}]+(?:'[\p{L}\p{M}\p{N}]+)*|[?!$]/gu;
// eslint-disable-next-line no-control-regex
const NON_ASCII = /[^\x00-\x7f]/;

function isAsciiWordChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90);
}

/** Tokens with their character offsets in `text` (the lowercased, normalized input). */
interface TokenSpans {
  text: string;
  tokens: string[];
  starts: number[];
  ends: number[];
}

/** Lowercase word tokens of `text`, in order, without stopword removal. */
export function tokenize(text: string): string[] {
  return scan(text, false, false).tokens;
}

/** `tokenize`, plus each `?`, `!` and `$` as a token of its own ("Yes!" gives "yes", "!"). */
export function dialogueTokens(text: string): string[] {
  return scan(text, false, true).tokens;
}

/** Like `tokenize`, with each token's start and end offset in the returned (lowercased) text. */
export function tokenizeSpans(text: string): TokenSpans {
  return scan(text, true, false);
}

const NO_OFFSETS: number[] = [];

/** `?`, `!` or `$` (kept as tokens by `dialogueTokens`). */
function isMark(c: number): boolean {
  return c === 63 || c === 33 || c === 36;
}

function scan(text: string, withOffsets: boolean, marks: boolean): TokenSpans {
  if (!text) return { text: '', tokens: [], starts: [], ends: [] };
  if (NON_ASCII.test(text)) {
    const norm = text
      .normalize('NFKC')
      .replace(/[\u2018\u2019\u02bc]/g, "'")
      .toLowerCase();
    const re = marks ? WORD_OR_MARK : WORD;
    if (!withOffsets) return { text: norm, tokens: norm.match(re) ?? [], starts: NO_OFFSETS, ends: NO_OFFSETS };
    const tokens: string[] = [];
    const starts: number[] = [];
    const ends: number[] = [];
    for (const m of norm.matchAll(re)) {
      tokens.push(m[0]);
      starts.push(m.index);
      ends.push(m.index + m[0].length);
    }
    return { text: norm, tokens, starts, ends };
  }
  // ASCII fast path: a hand-written scanner is several times faster than the unicode regex and
  // this runs on every simulated turn.
  const tokens: string[] = [];
  const starts: number[] = withOffsets ? [] : NO_OFFSETS;
  const ends: number[] = withOffsets ? [] : NO_OFFSETS;
  const lower = text.toLowerCase();
  const n = lower.length;
  let i = 0;
  while (i < n) {
    while (i < n && !isAsciiWordChar(lower.charCodeAt(i))) {
      if (marks && isMark(lower.charCodeAt(i))) {
        tokens.push(lower[i]);
        if (withOffsets) {
          starts.push(i);
          ends.push(i + 1);
        }
      }
      i++;
    }
    if (i >= n) break;
    const start = i;
    for (;;) {
      while (i < n && isAsciiWordChar(lower.charCodeAt(i))) i++;
      // an apostrophe joins two word runs ("don't"), otherwise it ends the token
      if (i + 1 < n && lower.charCodeAt(i) === 39 && isAsciiWordChar(lower.charCodeAt(i + 1))) {
        i++;
        continue;
      }
      break;
    }
    tokens.push(lower.slice(start, i));
    if (withOffsets) {
      starts.push(start);
      ends.push(i);
    }
  }
  return { text: lower, tokens, starts, ends };
}

/** `tokenize` minus stopwords (see `STOPWORDS`). */
export function contentTokens(text: string): string[] {
  const tokens = tokenize(text);
  let w = 0;
  for (let r = 0; r < tokens.length; r++) {
    if (!STOPWORDS.has(tokens[r])) tokens[w++] = tokens[r];
  }
  tokens.length = w;
  return tokens;
}

/**
 * Folds an English plural to its singular with a few suffix rules ("boots" -> "boot", "dresses"
 * -> "dress", "accessories" -> "accessory"). Deliberately light: it only has to make a query
 * for "boot" find "boots"; it is not a stemmer and leaves short words, "-ss" and "-us" alone.
 */
export function foldPlural(token: string): string {
  const n = token.length;
  if (n <= 3 || token.charCodeAt(n - 1) !== 115 /* s */) return token;
  if (token.endsWith('ss') || token.endsWith('us') || token.endsWith('is') || token.endsWith("'s")) return token;
  if (token.endsWith('ies') && n > 4) return token.slice(0, -3) + 'y';
  if (/(?:ss|sh|ch|x|z)es$/.test(token)) return token.slice(0, -2);
  if (token.endsWith('oes') && n > 5) return token.slice(0, -1); // shoes -> shoe
  return token.slice(0, -1);
}
