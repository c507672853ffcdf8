/**
 * Text helpers shared by the metrics: tokenisation, n-grams and question detection.
 */

/** Lower-cased word and punctuation tokens: runs of letters/digits/apostrophes, and "?" "!" as tokens. */
export function tokenize(text: string): string[] {
  const m = text.toLowerCase().match(/[\p{L}\p{N}]+(?:['’][\p{L}]+)*|[?!$]/gu);
  return m ? m.map((t) => t.replace(/’/g, "'")) : [];
}

/** Unigrams and bigrams ("a b") of a token list; bigrams do not cross `boundary` tokens when given. */
export function ngrams(tokens: readonly string[], maxN = 2): string[] {
  const out = tokens.slice();
  if (maxN >= 2) for (let i = 0; i + 1 < tokens.length; i++) out.push(`${tokens[i]} ${tokens[i + 1]}`);
  return out;
}

const WH_START = /(^|[.!;:\n]\s*|\.\.\.\s*)(what|which|how|why|when|where|who|whose|whats|what's|anything|any (other|more))\b/i;

/**
 * Whether an utterance asks something: it contains "?" or a sentence starts with an interrogative
 * word (chat users often drop the question mark: "what about thrillers").
 */
export function isQuestion(text: string | undefined): boolean {
  if (!text) return false;
  if (text.includes('?')) return true;
  return WH_START.test(text.trim());
}
