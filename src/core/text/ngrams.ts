/**
 * N-gram features of a text: the one featurizer of SimLens's text classifiers. The naive Bayes
 * classifier (text/classifier.ts), the dialogue-act tagger (metrics/tagger.ts) and the
 * human-likeness discriminator (metrics/hls.ts) all build their features here, from the one
 * tokenizer (text/tokenize.ts).
 *
 * Features are the unigrams of the tokens followed by the bigrams of adjacent tokens ("a b"), in
 * text order, with repeats (callers that want binary features take a Set). Two token styles:
 * - `dialogue`: `dialogueTokens`, where `?`, `!` and `$` are tokens, so "thriller ?" is a bigram
 *   (tagger and discriminator: punctuation habits tell acts and simulators apart);
 * - `words`: `tokenize` (punctuation dropped) plus one `<?>` feature when the text contains a
 *   question mark (the naive Bayes classifier, whose stored models use these features).
 */
import { dialogueTokens, tokenize } from './tokenize';

type NgramStyle = 'words' | 'dialogue';

/** The feature `words` features add for a text with a question mark. */
export const QUESTION_FEATURE = '<?>';

/** Unigrams, then bigrams "a b" of adjacent tokens (bigrams only when `maxN` >= 2). */
export function ngrams(tokens: readonly string[], maxN = 2): string[] {
  const out = tokens.slice();
  if (maxN >= 2) for (let i = 0; i + 1 < tokens.length; i++) out.push(`${tokens[i]} ${tokens[i + 1]}`);
  return out;
}

/** The unigram + bigram features of a text in the given style (see the module comment). */
export function textNgrams(text: string, style: NgramStyle): string[] {
  if (style === 'dialogue') return ngrams(dialogueTokens(text));
  const out = ngrams(tokenize(text));
  if (text.includes('?')) out.push(QUESTION_FEATURE);
  return out;
}
