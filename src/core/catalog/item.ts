/**
 * The item catalog that recommenders retrieve from and simulated users hold preferences about.
 */
import type { RecommendedItem } from '../model';
import { Bm25Index } from '../text/bm25';
import { contentTokens, foldPlural } from '../text/tokenize';

/** One catalog item. `attributes` holds categorical facets such as colour, material, style,
 * gender, occasion and price_band (the synthetic apparel catalog fills all of these; an imported
 * catalog may have any). */
export interface CatalogItem {
  item_id: string;
  title: string;
  description: string;
  features: string[];
  category: string;
  attributes: Record<string, string>;
  price?: number;
}

/** How many characters of the description the partial-text index keeps (the "bad" retrieval). */
const PARTIAL_DESCRIPTION_CHARS = 80;

/** Everything a "good" retriever sees: title, description, features, category and attribute values. */
function itemFullText(item: CatalogItem): string {
  return `${item.title}\n${item.description}\n${item.features.join(', ')}\n${item.category}\n${Object.values(item.attributes).join(' ')}`;
}

/** What the degraded retriever sees: the title and the start of the description only. */
export function itemPartialText(item: CatalogItem): string {
  const d = item.description;
  if (d.length <= PARTIAL_DESCRIPTION_CHARS) return `${item.title}\n${d}`;
  const cut = d.lastIndexOf(' ', PARTIAL_DESCRIPTION_CHARS);
  return `${item.title}\n${d.slice(0, cut > 0 ? cut : PARTIAL_DESCRIPTION_CHARS)}`;
}

/** Options of `Catalog.search`. */
interface CatalogSearchOptions {
  /** Only items of this category. */
  category?: string;
  /** Search the partial-text index (title + truncated description) instead of the full text. */
  partialText?: boolean;
  /** Any further condition an item must meet (checked only on items that match the query). */
  filter?: (item: CatalogItem) => boolean;
}

/**
 * An immutable set of items with lookups by id and category, attribute vocabularies, lazily built
 * BM25 indexes (whole catalog, per category, full and partial text) and item similarity.
 */
export class Catalog {
  readonly items: readonly CatalogItem[];
  private readonly byId = new Map<string, CatalogItem>();
  private readonly byCat = new Map<string, CatalogItem[]>();
  private readonly categoryList: string[];
  private readonly attrNames: string[];
  private readonly attrValues = new Map<string, string[]>();
  private fullIndex?: Bm25Index<CatalogItem>;
  private readonly categoryIndexes = new Map<string, Bm25Index<CatalogItem>>();
  private readonly categoryPartialIndexes = new Map<string, Bm25Index<CatalogItem>>();
  /** slot -> value -> small integer id (ids follow the sorted value order). */
  private readonly valueIds = new Map<string, Map<string, number>>();
  /** "category\u0000slot" -> value id per item of the category (in `byCategory` order), -1 when absent. */
  private readonly codeCache = new Map<string, Int32Array>();
  private partialIndex?: Bm25Index<CatalogItem>;
  private readonly simTerms = new WeakMap<CatalogItem, Int32Array>();
  private readonly simVocab = new Map<string, number>();
  /**
   * Per category: the items' similarity term sets (aligned with `categoryItems`) and, per term id,
   * the indexes of the items holding it (ascending); null when an item has a non-string attribute value.
   */
  private readonly categorySim = new Map<string, { terms: Int32Array[]; holders: Map<number, Int32Array> } | null>();
  /** Per item, the carousel fields that never change (features string, frozen attribute copy). */
  private readonly shownParts = new WeakMap<
    CatalogItem,
    { features: string; attributes: Readonly<Record<string, string>> }
  >();
  /** Structures other modules build from this catalog (see `derived`), by builder. */
  private readonly derivedCache = new Map<(catalog: Catalog) => unknown, unknown>();

  /** Throws on an empty id or a duplicate id. */
  constructor(items: CatalogItem[]) {
    this.items = items.slice();
    const names = new Set<string>();
    const values = new Map<string, Set<string>>();
    for (const item of this.items) {
      if (!item.item_id) throw new Error('Catalog: an item has an empty item_id');
      if (this.byId.has(item.item_id)) throw new Error(`Catalog: duplicate item_id "${item.item_id}"`);
      this.byId.set(item.item_id, item);
      let list = this.byCat.get(item.category);
      if (!list) this.byCat.set(item.category, (list = []));
      list.push(item);
      for (const [k, v] of Object.entries(item.attributes)) {
        names.add(k);
        let set = values.get(k);
        if (!set) values.set(k, (set = new Set()));
        set.add(v);
      }
    }
    this.categoryList = [...this.byCat.keys()].sort();
    this.attrNames = [...names].sort();
    for (const [k, set] of values) {
      const sorted = [...set].sort();
      this.attrValues.set(k, sorted);
      this.valueIds.set(k, new Map(sorted.map((v, i) => [v, i])));
    }
  }

  /** Number of items. */
  get size(): number {
    return this.items.length;
  }

  get(id: string): CatalogItem | undefined {
    return this.byId.get(id);
  }

  /** Items of a category, in catalog order (the returned array is a copy). */
  byCategory(cat: string): CatalogItem[] {
    return (this.byCat.get(cat) ?? []).slice();
  }

  /** Items of a category, in catalog order, without the copy `byCategory` makes (do not mutate). */
  categoryItems(cat: string): readonly CatalogItem[] {
    return this.byCat.get(cat) ?? [];
  }

  /**
   * A structure derived from this catalog (a lexicon, an attribute index), built by `build` on
   * first use and kept as long as the catalog: the catalog is immutable, so it never goes stale.
   * `build` is the key, so pass the same function (a module-level one) every time.
   */
  derived<T>(build: (catalog: Catalog) => T): T {
    if (this.derivedCache.has(build)) return this.derivedCache.get(build) as T;
    const value = build(this);
    this.derivedCache.set(build, value);
    return value;
  }

  /** The categories, sorted. */
  categories(): string[] {
    return this.categoryList.slice();
  }

  /** The attribute names used by any item, sorted. */
  attributeNames(): string[] {
    return this.attrNames.slice();
  }

  /** The distinct values of an attribute, sorted (empty for an unknown attribute). */
  attributeValues(attr: string): string[] {
    return (this.attrValues.get(attr) ?? []).slice();
  }

  /** `attributeValues` without the copy (do not mutate). */
  attributeValueList(attr: string): readonly string[] {
    return this.attrValues.get(attr) ?? [];
  }

  /** The BM25 index over full item text (built on first use). */
  fullTextIndex(): Bm25Index<CatalogItem> {
    return (this.fullIndex ??= new Bm25Index(this.items, itemFullText));
  }

  /**
   * A BM25 index over the full text of one category's items (built on first use). Its IDF is
   * computed within the category, so words that separate items *inside* the category weigh
   * most, and a search touches only that category's postings (the recommenders use this).
   */
  categoryIndex(category: string): Bm25Index<CatalogItem> {
    let index = this.categoryIndexes.get(category);
    if (!index) {
      index = new Bm25Index(this.byCat.get(category) ?? [], itemFullText);
      this.categoryIndexes.set(category, index);
    }
    return index;
  }

  /** Like `categoryIndex`, over the partial item text (title and the start of the description). */
  categoryPartialIndex(category: string): Bm25Index<CatalogItem> {
    let index = this.categoryPartialIndexes.get(category);
    if (!index) {
      index = new Bm25Index(this.byCat.get(category) ?? [], itemPartialText);
      this.categoryPartialIndexes.set(category, index);
    }
    return index;
  }

  /** A small integer id for an attribute value (-1 when the catalog has no such value). */
  valueId(attr: string, value: string): number {
    return this.valueIds.get(attr)?.get(value) ?? -1;
  }

  /**
   * The value id of `attr` for every item of a category, aligned with `byCategory(category)` and
   * with the document positions of `categoryIndex(category)`; -1 where an item lacks the
   * attribute. Lets rankers test attribute constraints with integer compares.
   */
  attributeCodes(category: string, attr: string): Int32Array {
    const key = `${category}\u0000${attr}`;
    let codes = this.codeCache.get(key);
    if (!codes) {
      const items = this.byCat.get(category) ?? [];
      const ids = this.valueIds.get(attr);
      codes = new Int32Array(items.length);
      for (let i = 0; i < items.length; i++) {
        const v = items[i].attributes[attr];
        codes[i] = v === undefined || !ids ? -1 : (ids.get(v) ?? -1);
      }
      this.codeCache.set(key, codes);
    }
    return codes;
  }

  /** The BM25 index over partial item text (built on first use). */
  partialTextIndex(): Bm25Index<CatalogItem> {
    return (this.partialIndex ??= new Bm25Index(this.items, itemPartialText));
  }

  /** The k items that best match `query` by BM25, best first. */
  search(query: string, k: number, opts: CatalogSearchOptions = {}): CatalogItem[] {
    return this.searchScored(query, k, opts).map((h) => h.doc);
  }

  /** Like `search`, with BM25 scores. */
  searchScored(query: string, k: number, opts: CatalogSearchOptions = {}): { doc: CatalogItem; score: number }[] {
    const index = opts.partialText ? this.partialTextIndex() : this.fullTextIndex();
    const { category, filter } = opts;
    const accept =
      category !== undefined || filter
        ? (item: CatalogItem) => (category === undefined || item.category === category) && (!filter || filter(item))
        : undefined;
    return index.search(query, k, accept);
  }

  /**
   * Similarity of two items in [0, 1]: a weighted mean of same category (weight 0.25), the share
   * of attributes (over the union of both items' attribute names) with equal values (0.5), and
   * the Jaccard overlap of the content words of title and features (0.25). When neither item has
   * attributes the attribute part is left out and the other weights are rescaled. Symmetric;
   * an item is 1 to itself.
   */
  similarity(a: CatalogItem, b: CatalogItem): number {
    if (a === b) return 1;
    let weight = 0.5;
    let sum = a.category === b.category ? 0.25 : 0;
    let union = 0;
    let equal = 0;
    for (const k in a.attributes) {
      union++;
      if (b.attributes[k] !== undefined && b.attributes[k] === a.attributes[k]) equal++;
    }
    for (const k in b.attributes) if (a.attributes[k] === undefined) union++;
    if (union > 0) {
      sum += (0.5 * equal) / union;
      weight += 0.5;
    }
    sum += 0.25 * jaccard(this.termSet(a), this.termSet(b));
    return sum / weight;
  }

  /**
   * `similarity(target, item)` for every item of `category`, aligned with `categoryItems(category)`:
   * the same numbers (same operations in the same order), computed from the category's attribute
   * codes and term sets, which are built once. A meta user scores a whole category for its
   * alternatives once per conversation, so this is the hot path of `similarity`.
   */
  similarities(target: CatalogItem, category: string): Float64Array {
    const items = this.byCat.get(category) ?? [];
    const out = new Float64Array(items.length);
    let sim = this.categorySim.get(category);
    if (sim === undefined) {
      const plain = items.every((it) => Object.values(it.attributes).every((v) => typeof v === 'string'));
      sim = plain ? termHolders(items.map((it) => this.termSet(it))) : null;
      this.categorySim.set(category, sim);
    }
    if (sim === null || Object.values(target.attributes).some((v) => typeof v !== 'string')) {
      for (let i = 0; i < items.length; i++) out[i] = this.similarity(target, items[i]);
      return out;
    }
    // union = |keys(target) ∪ keys(item)|, equal = attributes with the same value, as in `similarity`.
    const union = new Int32Array(items.length);
    const equal = new Int32Array(items.length);
    let extra = 0;
    for (const k in target.attributes) if (!this.valueIds.has(k)) extra++;
    for (const attr of this.attrNames) {
      const codes = this.attributeCodes(category, attr);
      const v = target.attributes[attr];
      if (v === undefined) {
        for (let i = 0; i < codes.length; i++) if (codes[i] >= 0) union[i]++;
      } else {
        const tc = this.valueIds.get(attr)?.get(v) ?? -1;
        for (let i = 0; i < codes.length; i++) {
          union[i]++;
          if (tc >= 0 && codes[i] === tc) equal[i]++;
        }
      }
    }
    // Shared content terms per item, counted from the items holding each of the target's terms
    // (the same intersection sizes `jaccard` counts pair by pair).
    const own = this.termSet(target);
    const { terms, holders } = sim;
    const shared = new Int32Array(items.length);
    for (const t of own) {
      const at = holders.get(t);
      if (at) for (const i of at) shared[i]++;
    }
    for (let i = 0; i < items.length; i++) {
      const b = items[i];
      if (b === target) {
        out[i] = 1;
        continue;
      }
      let weight = 0.5;
      let sum = target.category === b.category ? 0.25 : 0;
      const u = union[i] + extra;
      if (u > 0) {
        sum += (0.5 * equal[i]) / u;
        weight += 0.5;
      }
      sum += 0.25 * jaccardOf(shared[i], own.length, terms[i].length);
      out[i] = sum / weight;
    }
    return out;
  }

  /**
   * The item as shown in a turn's carousel (features joined with ", ", as in ConvApparel). The
   * returned object is new each call, but its `attributes` object is shared between calls and
   * frozen (this runs for every item of every simulated turn, so the copy is made once).
   */
  toRecommendedItem(item: CatalogItem): RecommendedItem {
    let parts = this.shownParts.get(item);
    if (!parts) {
      parts = { features: item.features.join(', '), attributes: Object.freeze({ ...item.attributes }) };
      this.shownParts.set(item, parts);
    }
    const rec: RecommendedItem = {
      item_id: item.item_id,
      title: item.title,
      description: item.description,
      features: parts.features,
      category: item.category,
      attributes: parts.attributes as Record<string, string>,
    };
    if (item.price !== undefined) rec.price = item.price;
    return rec;
  }

  private termSet(item: CatalogItem): Int32Array {
    let set = this.simTerms.get(item);
    if (set) return set;
    const ids = new Set<number>();
    for (const tok of contentTokens(`${item.title} ${item.features.join(' ')}`)) {
      const t = foldPlural(tok);
      let id = this.simVocab.get(t);
      if (id === undefined) this.simVocab.set(t, (id = this.simVocab.size));
      ids.add(id);
    }
    set = Int32Array.from(ids).sort();
    this.simTerms.set(item, set);
    return set;
  }
}

/** Per term id, the indexes (ascending) of the term sets holding it. */
function termHolders(terms: Int32Array[]): { terms: Int32Array[]; holders: Map<number, Int32Array> } {
  const lists = new Map<number, number[]>();
  terms.forEach((set, i) => {
    for (const t of set) {
      const list = lists.get(t);
      if (list) list.push(i);
      else lists.set(t, [i]);
    }
  });
  const holders = new Map<number, Int32Array>();
  for (const [t, list] of lists) holders.set(t, Int32Array.from(list));
  return { terms, holders };
}

/** Jaccard overlap of two sets of sizes `a` and `b` sharing `inter` members (0 when both are empty). */
function jaccardOf(inter: number, a: number, b: number): number {
  return a === 0 && b === 0 ? 0 : inter / (a + b - inter);
}

function jaccard(a: Int32Array, b: Int32Array): number {
  let i = 0;
  let j = 0;
  let inter = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      inter++;
      i++;
      j++;
    } else if (a[i] < b[j]) i++;
    else j++;
  }
  return jaccardOf(inter, a.length, b.length);
}
