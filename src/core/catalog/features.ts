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
  const known = valueWords(catalog);
  out = item.features
    .filter((f) => !holdsNegation(f) && !tokenize(f).some((w) => known.has(foldPlural(w))))
    .map(inRunningText);
  plainFeaturesOf.set(item, out);
  return out;
}

/** The words of the catalog's categories and attribute values, plural-folded ("sneaker", "navy"). */
function valueWords(catalog: Catalog): Set<string> {
  let words = valueWordsOf.get(catalog);
  if (!words) {
    words = new Set<string>();
    for (const c of catalog.categories()) for (const w of tokenize(c)) words.add(foldPlural(w));
    for (const a of catalog.attributeNames())
      for (const v of catalog.attributeValues(a)) for (const w of tokenize(v)) words.add(foldPlural(w));
    valueWordsOf.set(catalog, words);
  }
  return words;
}

const catalogWordsOf = new WeakMap<Catalog, Set<string>>();

/**
 * The words a catalog knows as words of its items: those of its categories, attribute values
 * (`valueWords`), every item's title and features, plural-folded ("pocket", "storm", "flap", "rain"
 * of "Blue rain boots"). Descriptions are not read: their prose names no item more than another. What the
 * local agents keep of a user's free words (`Lexicon.parse`): a word outside this set ("honestly",
 * "ooh", "kudos") is the user's chatter, and never a wish.
 */
export function catalogWords(catalog: Catalog): ReadonlySet<string> {
  let out = catalogWordsOf.get(catalog);
  if (!out) {
    out = new Set(valueWords(catalog));
    // Features recur across items (and titles now and then): a text read once adds all it can.
    const read = new Set<string>();
    for (const item of catalog.items) {
      for (const text of [item.title, ...item.features]) {
        if (read.has(text)) continue;
        read.add(text);
        for (const w of tokenize(text)) out.add(foldPlural(w));
      }
    }
    catalogWordsOf.set(catalog, out);
  }
  return out;
}

/** A catalog feature in running text: a capitalised first word in lower case ("Storm flap"), a letter name kept ("A-line shape"). */
export function inRunningText(feature: string): string {
  return /^[A-Z][a-z]/.test(feature) ? feature[0].toLowerCase() + feature.slice(1) : feature;
}
