/**
 * What may be said of an item beyond its attribute values: the catalog's own features that state no
 * attribute value or category (so nothing reads them as a wish or an answer about an attribute) and
 * hold no negation. One list for the simulated recommenders (details of an item they name) and
 * the simulated users (what they like about an item).
 */
import { holdsNegation } from '../text/negation';
import { foldPlural, tokenize } from '../text/tokenize';
import type { Catalog, CatalogItem } from './item';

const valueWordsOf = new WeakMap<Catalog, Set<string>>();
const plainFeaturesOf = new WeakMap<CatalogItem, string[]>();

/**
 * An item's features that state no attribute value and no category of the catalog, in the singular
 * or the plural ("parties and nights out" states the occasion party; a user asking about an
 * attribute reads the agent's words: these answer nothing) and hold nothing the lexicon
 * reads as a negation (`holdsNegation`), lower case: "storm flap".
 */
export function plainFeatures(catalog: Catalog, item: CatalogItem): string[] {
  let out = plainFeaturesOf.get(item);
  if (out) return out;
  let words = valueWordsOf.get(catalog);
  if (!words) {
    words = new Set<string>();
    for (const c of catalog.categories()) for (const w of tokenize(c)) words.add(foldPlural(w));
    for (const a of catalog.attributeNames())
      for (const v of catalog.attributeValues(a)) for (const w of tokenize(v)) words.add(foldPlural(w));
    valueWordsOf.set(catalog, words);
  }
  const known = words;
  out = item.features
    .filter((f) => !holdsNegation(f) && !tokenize(f).some((w) => known.has(foldPlural(w))))
    .map(inRunningText);
  plainFeaturesOf.set(item, out);
  return out;
}

/** A catalog feature in running text: a capitalised first word in lower case ("Storm flap"), a letter name kept ("A-line shape"). */
export function inRunningText(feature: string): string {
  return /^[A-Z][a-z]/.test(feature) ? feature[0].toLowerCase() + feature.slice(1) : feature;
}
