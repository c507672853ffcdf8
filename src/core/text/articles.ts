/**
 * English articles and number for the simulated users' and the local recommenders' wording: one
 * rule for "a" or "an", one for plural nouns (issue 21: grammar that gets number and articles right).
 */

/** True when a product noun is plural ("sneakers", "jeans", "sunglasses"; not "dress", "campus"). */
export function isPluralNoun(noun: string): boolean {
  return /s$/.test(noun) && !/(?:ss|us)$/.test(noun);
}

/**
 * "an" before a vowel sound: a vowel letter but "u" read "you" ("a uniform", "an umbrella"), or a
 * capital read as a letter name ("an A-line shape", "a V-neckline", "an LED strap").
 */
function takesAn(word: string): boolean {
  if (/^[A-Z](?:-|[A-Z0-9]|$)/.test(word)) return /^[AEFHILMNORSX]/.test(word);
  return /^(?:[aeio]|u(?!ni|[bcfhjkqrst][aeiou]))/i.test(word);
}

/** "a parka", "an anorak", "sneakers" (plural nouns take no article). */
export function withArticle(noun: string): string {
  if (isPluralNoun(noun)) return noun;
  return `${takesAn(noun) ? 'an' : 'a'} ${noun}`;
}

/** Heads that take no article after "with" or "has" ("with arch support", "with easy care"). */
const MASS_HEAD = /^(?:support|stretch|care|fabric|stitching|size|protection)$/;

/**
 * A catalog feature as it reads after "with", "has" or "offers": a singular count noun gets "a" or
 * "an" ("a storm flap", "an insulated hood", "an A-line shape"), a plural or mass noun or a
 * counted phrase none ("reinforced seams", "arch support", "one size", "two hand pockets"). The
 * head is the last word, or the word before "with" ("a flap with buckles").
 */
export function featureWithArticle(feature: string): string {
  const words = feature.split(' ');
  const at = words.indexOf('with');
  const head = (at > 0 ? words[at - 1] : words[words.length - 1]).toLowerCase();
  if (isPluralNoun(head) || MASS_HEAD.test(head) || /^(?:one|two|three|four|five|six)$/i.test(words[0])) return feature;
  return `${takesAn(words[0]) ? 'an' : 'a'} ${feature}`;
}
