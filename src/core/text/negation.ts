/**
 * The words that open a negation in a shopper's utterance, shared by everything that must agree on
 * what reads as one: the local recommenders' lexicon (which values a user rules out) and the words
 * the simulators choose to say of an item (`holdsNegation`: a feature or filler that holds one of
 * these would be read as the opposite of what it says).
 */
import { tokenize } from './tokenize';

/**
 * Words that open a negation, with the most tokens that may separate them from the first value
 * they negate ("not keen on anything in the | budget" = 5). "no" is strict: "no heels", "no
 * more black", but not "no, I want black". See `markNegations` for how far a negation reaches.
 */
export const NEGATORS = new Map<string, number>([
  ['not', 6],
  ['never', 6],
  ['without', 3],
  ["don't", 6],
  ['dont', 6],
  ["doesn't", 6],
  ['doesnt', 6],
  ["didn't", 6],
  ["isn't", 6],
  ["aren't", 6],
  ["wasn't", 6],
  ["weren't", 6],
  ["won't", 6],
  ["wouldn't", 6],
  ['hate', 4],
  ['hates', 4],
  ['dislike', 4],
  ['dislikes', 4],
  ['avoid', 4],
  ['except', 3],
  ['excluding', 3],
  ['nor', 3],
  ['neither', 3],
  ['skip', 3],
  ['minus', 2],
  ['allergic', 3],
  ['no', 1],
  ['none', 3],
  ['nothing', 3],
]);
/** Two-word openers: the second word opens the negation ("anything but", "other than", "can't stand"). */
export const NEGATOR_PAIRS = new Map<string, Set<string>>([
  ['anything', new Set(['but', 'except'])],
  ['everything', new Set(['but', 'except'])],
  ['all', new Set(['but', 'except'])],
  ['other', new Set(['than'])],
  ['instead', new Set(['of'])],
  ['rather', new Set(['than'])],
  ['steer', new Set(['clear'])],
  ['stay', new Set(['away'])],
  ["can't", new Set(['stand', 'bear', 'do', 'wear'])],
  ['cant', new Set(['stand', 'bear', 'do', 'wear'])],
  ['cannot', new Set(['stand', 'bear', 'do', 'wear'])],
]);
/** Contracted negated copulas ("black isn't for me", "the leather ones aren't great"). */
export const NEGATED_COPULAS = new Set(["isn't", "aren't", "wasn't", "weren't", 'isnt', 'arent']);
/** Every word that can open a negation: never kept as a retrieval keyword. */
export const NEGATION_WORDS = new Set<string>([
  ...NEGATORS.keys(),
  ...NEGATOR_PAIRS.keys(),
  'instead',
  'less',
  'other',
  'rather',
]);

/**
 * Whether the lexicon would read a negation in `text`: a word of NEGATION_WORDS, a negated copula or
 * another "n't" form. Words an agent says of an item are kept free of these, so that nothing reads
 * them as the opposite of what they say.
 */
export function holdsNegation(text: string): boolean {
  return tokenize(text).some((t) => NEGATION_WORDS.has(t) || NEGATED_COPULAS.has(t) || t.endsWith("n't"));
}
