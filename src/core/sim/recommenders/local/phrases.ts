/**
 * Wording helpers for the local recommenders: noun phrases for what the user asked for, and
 * list formatting. The templates themselves live with each agent.
 */
import type { CatalogItem } from '../../../catalog/item';
import type { Rng } from '../../../random';
import type { PreferenceState } from './state';

const CATEGORY_NOUN: Record<string, string> = {
  footwear: 'shoes',
  outerwear: 'outerwear',
  tops: 'tops',
  bottoms: 'bottoms',
  dresses: 'dresses',
  activewear: 'activewear',
  accessories: 'accessories',
  bags: 'bags',
};

const OCCASION_FOR: Record<string, string> = {
  everyday: 'everyday wear',
  work: 'work',
  party: 'parties',
  wedding: 'a wedding',
  travel: 'travel',
  hiking: 'hiking',
  running: 'running',
  gym: 'the gym',
  beach: 'the beach',
  winter: 'winter',
  lounge: 'lounging',
  'date night': 'a date night',
  yoga: 'yoga',
  cycling: 'cycling',
  swimming: 'swimming',
  school: 'school',
};

const BAND_PHRASE: Record<string, string> = {
  budget: 'on a budget',
  'mid-range': 'in the mid-range',
  premium: 'at a premium level',
  luxury: 'at the luxury end',
};

/** A readable noun for a category ("footwear" -> "shoes"); unknown categories are used as is. */
export function categoryNoun(category: string | undefined): string {
  if (category === undefined) return 'items';
  return CATEGORY_NOUN[category] ?? category;
}

/** Plural of a product noun ("parka" -> "parkas", "dress" -> "dresses"; "jeans" stays). */
export function pluralNoun(noun: string): string {
  if (/s$/.test(noun) && !/(?:ss|us)$/.test(noun)) return noun;
  if (/(?:ss|sh|ch|x|z)$/.test(noun)) return `${noun}es`;
  if (/scarf$/.test(noun)) return noun.replace(/f$/, 'ves');
  if (/[^aeiou]y$/.test(noun)) return `${noun.slice(0, -1)}ies`;
  return `${noun}s`;
}

/** "for work", "for the beach"; unknown occasions as "for X". */
export function occasionPhrase(occasion: string): string {
  return `for ${OCCASION_FOR[occasion] ?? occasion}`;
}

/** "on a budget", "in the mid-range"... */
export function bandPhrase(band: string): string {
  return BAND_PHRASE[band] ?? `in the ${band} range`;
}

/** "a", "b and c". */
export function listWords(words: readonly string[], conj = 'and'): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} ${conj} ${words[words.length - 1]}`;
}

/** "a or b" from up to `n` values, picked without repeats. */
export function someValues(rng: Rng, values: readonly string[], n: number, conj = 'or'): string {
  const picked: string[] = [];
  const pool = values.slice();
  while (picked.length < n && pool.length) picked.push(pool.splice(rng.int(pool.length), 1)[0]);
  return listWords(picked, conj);
}

/**
 * What the user asked for as a noun phrase, e.g. "black leather ankle boots for women for work".
 * `override` replaces slot values (the bad agent uses it to say what it misheard).
 */
export function describeWanted(state: PreferenceState, override?: ReadonlyMap<string, string>): string {
  const get = (slot: string) => override?.get(slot) ?? state.value(slot);
  const adjs: string[] = [];
  for (const slot of ['style', 'colour', 'material']) {
    const v = get(slot);
    if (v !== undefined) adjs.push(slot === 'style' && v === 'vintage' ? 'vintage-style' : v);
  }
  const type = get('type');
  const noun = type !== undefined ? pluralNoun(type) : categoryNoun(state.category);
  if (type && adjs.length && type.startsWith(adjs[adjs.length - 1])) adjs.pop(); // "leather leather jackets"
  let phrase = [...adjs, noun].join(' ');
  const gender = get('gender');
  if (gender === 'women' || gender === 'men') phrase += ` for ${gender}`;
  else if (gender !== undefined) phrase += ` (${gender})`;
  const occasion = get('occasion');
  if (occasion !== undefined) phrase += ` ${occasionPhrase(occasion)}`;
  const band = get('price_band');
  if (band !== undefined) phrase += ` ${bandPhrase(band)}`;
  const brand = get('brand');
  if (brand !== undefined) phrase += ` from ${brand}`;
  if (state.maxPrice !== undefined) phrase += ` under $${state.maxPrice}`;
  return phrase;
}

/** "$59.99" or "" when the item has no price. */
export function priceText(item: CatalogItem): string {
  return item.price === undefined ? '' : `$${item.price.toFixed(2)}`;
}
