/**
 * Preference models of simulated users (Zhang & Balog 2020, Sect. 4.3), over an item catalog.
 *
 * There is no real interaction log for a synthetic catalog, so each user first gets a latent
 * *taste* (liked and disliked attribute values around an anchor item) and a sampled *history* of
 * items rated by that taste on the MovieLens scale 0.5-5 in half steps. The two models then read
 * the history exactly as the paper does:
 *
 * - single item: consumed = in the history; asked about an item, like/dislike is a coin flip,
 *   remembered for the rest of the dialogue.
 * - PKG: items rated >= 4 are liked, <= 2 disliked; an attribute value's rating is the mean rating
 *   of the history items that have it (liked >= 3.5, disliked <= 2); an unseen item is accepted
 *   when the sum of its attribute values' preferences (+1 liked, -1 disliked, 0 otherwise) is >= 0.
 *   8 items per user, at least one liked.
 *
 * One rule beyond the paper, for shopping tasks: an item from another category than the task's is
 * never accepted (`requireTaskCategory`, on by default).
 */
import type { PreferenceState, RecommendedItem } from '../../model';
import type { Rng } from '../../random';
import type { Catalog, CatalogItem } from '../../catalog/item';

export type Opinion = 'like' | 'dislike' | 'neutral';

/** What the user can see of an item: its id, category and attribute values. */
export interface ItemView {
  item_id: string;
  title?: string;
  category?: string;
  attributes: Record<string, string>;
}

/** Thresholds of the PKG model (defaults from the paper). */
export interface PkgThresholds {
  likedItem: number;
  dislikedItem: number;
  likedAttribute: number;
  dislikedAttribute: number;
  /** Accept an unseen item when the sum of attribute preferences is >= this. */
  accept: number;
}

const DEFAULT_PKG_THRESHOLDS: PkgThresholds = {
  likedItem: 4,
  dislikedItem: 2,
  likedAttribute: 3.5,
  dislikedAttribute: 2,
  accept: 0,
};

export interface PreferenceOptions {
  /** History size (default 8). */
  historySize?: number;
  thresholds?: Partial<PkgThresholds>;
  requireTaskCategory?: boolean;
  /**
   * Items the history must not hold: a meta-simulator's target group (the items the user is to buy
   * cannot be ones it already owns; `SessionContext.targetGroup`).
   */
  exclude?: readonly string[];
}

/** An attribute value as one key, "colour=black". */
export function attributeKey(attr: string, value: string): string {
  return `${attr}=${value}`;
}

const itemKeysCache = new WeakMap<object, readonly string[]>();

/** The "attr=value" keys of an item's attributes, in attribute order (cached per item object). */
export function itemAttributeKeys(item: ItemView): readonly string[] {
  let keys = itemKeysCache.get(item);
  if (!keys) {
    const out: string[] = [];
    for (const k in item.attributes) out.push(attributeKey(k, item.attributes[k]));
    itemKeysCache.set(item, (keys = out));
  }
  return keys;
}

/** The item as the user sees it: a catalog item when the id is known, else what the carousel says. */
export function viewOf(rec: RecommendedItem, catalog?: Catalog): ItemView {
  const known = catalog?.get(rec.item_id);
  if (known) return known;
  const attributes: Record<string, string> = {};
  for (const [k, v] of Object.entries(rec.attributes ?? {})) {
    if (typeof v === 'string') attributes[k] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') attributes[k] = String(v);
  }
  return { item_id: rec.item_id, title: rec.title, category: rec.category, attributes };
}

// ---------------------------------------------------------------------------------------------
// Taste and history

/** A latent taste: attribute values the user likes and dislikes, around an anchor item. */
export interface Taste {
  category: string;
  anchor: string;
  liked: Record<string, string[]>;
  disliked: Record<string, string[]>;
}

function sortedAttrNames(item: CatalogItem): string[] {
  return Object.keys(item.attributes).sort();
}

/** category -> "attr=value" -> the category's items with that value (built once per catalog). */
function valueIndex(catalog: Catalog, category: string): Map<string, CatalogItem[]> {
  const byCat = catalog.derived(emptyValueIndex);
  let index = byCat.get(category);
  if (!index) {
    index = new Map();
    for (const item of catalog.categoryItems(category)) {
      for (const key of itemAttributeKeys(item)) {
        const list = index.get(key);
        if (list) list.push(item);
        else index.set(key, [item]);
      }
    }
    byCat.set(category, index);
  }
  return index;
}

function emptyValueIndex(): Map<string, Map<string, CatalogItem[]>> {
  return new Map();
}

/**
 * A record for keys that differ from object to object (item ids, "attr=value"): made without a
 * prototype, which V8 keeps as a hash table instead of growing a hidden class per key set.
 */
export function dynamicRecord<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** Samples a taste for a task category: some of an anchor item's values liked, a few other values disliked. */
export function sampleTaste(catalog: Catalog, category: string, rng: Rng): Taste {
  const items = catalog.categoryItems(category);
  if (items.length === 0) throw new Error(`catalog has no items in category "${category}"`);
  const anchor = rng.pick(items);
  const names = sortedAttrNames(anchor);
  const liked: Record<string, string[]> = {};
  for (const name of names) if (rng.chance(0.6)) liked[name] = [anchor.attributes[name]];
  if (Object.keys(liked).length === 0 && names.length) {
    const name = rng.pick(names);
    liked[name] = [anchor.attributes[name]];
  }
  const disliked: Record<string, string[]> = {};
  for (let i = 0; i < 2 && names.length; i++) {
    const name = rng.pick(names);
    const others = catalog
      .attributeValueList(name)
      .filter((v) => v !== anchor.attributes[name] && !(disliked[name] ?? []).includes(v));
    if (others.length) (disliked[name] ??= []).push(rng.pick(others));
  }
  return { category, anchor: anchor.item_id, liked, disliked };
}

/** How many of the item's values the taste likes and dislikes. */
function tasteMatches(item: ItemView, taste: Taste): { liked: number; disliked: number } {
  let liked = 0;
  let disliked = 0;
  const attrs = item.attributes;
  for (const k in taste.liked) if (attrs[k] !== undefined && taste.liked[k].includes(attrs[k])) liked++;
  for (const k in taste.disliked) if (attrs[k] !== undefined && taste.disliked[k].includes(attrs[k])) disliked++;
  return { liked, disliked };
}

/** A rating on 0.5-5 in half steps: 3 + 0.8 per liked value - 1.2 per disliked value, plus noise. */
function rateByTaste(item: ItemView, taste: Taste, rng: Rng): number {
  const m = tasteMatches(item, taste);
  const raw = 2.6 + 0.8 * m.liked - 1.2 * m.disliked + (rng.next() - 0.5) * 1.2;
  return Math.min(5, Math.max(0.5, Math.round(raw * 2) / 2));
}

export interface RatedItem {
  item_id: string;
  rating: number;
}

/**
 * Samples `size` distinct items of the taste's category with ratings: half are drawn among the
 * items having one of the taste's liked values (so the history reflects the taste), half at random.
 */
export function sampleHistory(
  catalog: Catalog,
  taste: Taste,
  size: number,
  rng: Rng,
  exclude: ReadonlySet<string> = new Set(),
): RatedItem[] {
  const items = catalog.categoryItems(taste.category);
  const byValue = valueIndex(catalog, taste.category);
  const likedKeys: string[] = [];
  for (const k in taste.liked) for (const v of taste.liked[k]) likedKeys.push(attributeKey(k, v));
  const chosen = new Map<string, CatalogItem>();
  const want = Math.min(size, items.length - exclude.size);
  let guard = 0;
  while (chosen.size < want && guard++ < size * 60) {
    const pool = chosen.size % 2 === 0 && likedKeys.length ? byValue.get(rng.pick(likedKeys)) : undefined;
    const item: CatalogItem = pool && pool.length ? rng.pick(pool) : rng.pick(items);
    if (!chosen.has(item.item_id) && !exclude.has(item.item_id)) chosen.set(item.item_id, item);
  }
  return [...chosen.values()].map((item) => ({ item_id: item.item_id, rating: rateByTaste(item, taste, rng) }));
}

// ---------------------------------------------------------------------------------------------
// Models

/** What the agenda-based user asks of its preference model. */
export interface PreferenceModel {
  readonly kind: 'single' | 'pkg';
  readonly taste: Taste;
  /** Has the user seen/consumed (here: bought) the item? */
  isConsumed(itemId: string): boolean;
  /** The user's opinion of an item (remembered once formed). */
  opinion(item: ItemView): Opinion;
  /** Would the user take this item (the acceptance decision)? */
  accepts(item: ItemView): boolean;
  /** -1, 0 or +1 for one attribute value. */
  attributePreference(attr: string, value: string): number;
  /** Liked attribute values, strongest first, as [attr, value]. */
  likedValues(): [string, string][];
  /** Disliked attribute values, as [attr, value]. */
  dislikedValues(): [string, string][];
  /** The full state (first turn's trace). */
  snapshot(): PreferenceState;
  /** What changed since the last call (undefined when nothing did). */
  delta(): PreferenceState | undefined;
  /** Restores opinions formed earlier (fork from a trace). */
  restore(state: PreferenceState): void;
}

abstract class BasePreferences implements PreferenceModel {
  abstract readonly kind: 'single' | 'pkg';
  protected readonly history = new Map<string, number>();
  protected readonly opinions = new Map<string, Opinion>();
  private changedLiked: string[] = [];
  private changedDisliked: string[] = [];

  constructor(
    readonly taste: Taste,
    history: readonly RatedItem[],
    protected readonly requireTaskCategory: boolean,
  ) {
    for (const h of history) this.history.set(h.item_id, h.rating);
  }

  isConsumed(itemId: string): boolean {
    return this.history.has(itemId);
  }

  protected remember(itemId: string, opinion: Opinion): Opinion {
    if (!this.opinions.has(itemId)) {
      this.opinions.set(itemId, opinion);
      if (opinion === 'like') this.changedLiked.push(itemId);
      else if (opinion === 'dislike') this.changedDisliked.push(itemId);
    }
    return opinion;
  }

  protected inTask(item: ItemView): boolean {
    return !this.requireTaskCategory || item.category === undefined || item.category === this.taste.category;
  }

  abstract opinion(item: ItemView): Opinion;
  abstract accepts(item: ItemView): boolean;
  abstract attributePreference(attr: string, value: string): number;
  abstract likedValues(): [string, string][];
  abstract dislikedValues(): [string, string][];
  protected abstract stateFields(): PreferenceState;

  protected judged(kind: Opinion): string[] {
    const out: string[] = [];
    for (const [id, o] of this.opinions) if (o === kind) out.push(id);
    return out;
  }

  snapshot(): PreferenceState {
    this.changedLiked = [];
    this.changedDisliked = [];
    return { kind: 'snapshot', model: this.kind, consumed_items: [...this.history.keys()], ...this.stateFields() };
  }

  delta(): PreferenceState | undefined {
    const extra = this.deltaFields();
    if (this.changedLiked.length === 0 && this.changedDisliked.length === 0 && !extra) return undefined;
    const d: PreferenceState = { kind: 'delta', model: this.kind };
    if (this.changedLiked.length) d.liked_items = this.changedLiked;
    if (this.changedDisliked.length) d.disliked_items = this.changedDisliked;
    if (extra) Object.assign(d, extra);
    this.changedLiked = [];
    this.changedDisliked = [];
    return d;
  }

  /** What else changed since the last snapshot or delta (undefined when nothing did). */
  protected deltaFields(): Record<string, unknown> | undefined {
    return undefined;
  }

  restore(state: PreferenceState): void {
    for (const id of state.liked_items ?? []) if (!this.history.has(id)) this.opinions.set(id, 'like');
    for (const id of state.disliked_items ?? []) if (!this.history.has(id)) this.opinions.set(id, 'dislike');
    const opinions = (state as Record<string, unknown>)['opinions'];
    if (opinions && typeof opinions === 'object') {
      for (const [id, o] of Object.entries(opinions as Record<string, unknown>)) {
        if (o === 'like' || o === 'dislike' || o === 'neutral') this.opinions.set(id, o);
      }
    }
  }
}

/** Single-item preferences: consumed items are real, opinions are remembered coin flips. */
export class SingleItemPreferences extends BasePreferences {
  readonly kind = 'single' as const;
  private readonly attrCoins = new Map<string, number>();

  constructor(
    taste: Taste,
    history: readonly RatedItem[],
    private readonly rng: Rng,
    requireTaskCategory = true,
  ) {
    super(taste, history, requireTaskCategory);
  }

  opinion(item: ItemView): Opinion {
    const known = this.opinions.get(item.item_id);
    if (known) return known;
    if (!this.inTask(item)) return this.remember(item.item_id, 'dislike');
    return this.remember(item.item_id, this.rng.chance(0.5) ? 'like' : 'dislike');
  }

  accepts(item: ItemView): boolean {
    return !this.isConsumed(item.item_id) && this.opinion(item) === 'like';
  }

  attributePreference(attr: string, value: string): number {
    const key = attributeKey(attr, value);
    let coin = this.attrCoins.get(key);
    if (coin === undefined) {
      this.attrCoins.set(key, (coin = this.rng.chance(0.5) ? 1 : -1));
      this.newCoins.push(key);
    }
    return coin;
  }

  /** Coins drawn since the last snapshot or delta (traced as `attribute_opinions`, so a fork keeps them). */
  private newCoins: string[] = [];

  private drawnCoins(keys: readonly string[]): Record<string, 'like' | 'dislike'> {
    const out = dynamicRecord<'like' | 'dislike'>();
    for (const k of keys) out[k] = this.attrCoins.get(k)! > 0 ? 'like' : 'dislike';
    return out;
  }

  protected override deltaFields(): Record<string, unknown> | undefined {
    if (!this.newCoins.length) return undefined;
    const attribute_opinions = this.drawnCoins(this.newCoins);
    this.newCoins = [];
    return { attribute_opinions };
  }

  override restore(state: PreferenceState): void {
    super.restore(state);
    const coins = (state as Record<string, unknown>)['attribute_opinions'];
    if (coins && typeof coins === 'object')
      for (const [k, o] of Object.entries(coins as Record<string, unknown>))
        if (o === 'like' || o === 'dislike') this.attrCoins.set(k, o === 'like' ? 1 : -1);
  }

  /** The values of one consumed item (the one the user would name as a favourite). */
  likedValues(): [string, string][] {
    return Object.entries(this.taste.liked).map(([k, vs]) => [k, vs[0]] as [string, string]);
  }

  dislikedValues(): [string, string][] {
    const out: [string, string][] = [];
    for (const [k, vs] of Object.entries(this.taste.disliked)) for (const v of vs) out.push([k, v]);
    return out;
  }

  /**
   * The items judged, the latent taste (its liked and disliked values, "attr=value" in the taste's
   * order: a fork restored from the trace keeps them, `tasteFromState`) and the coins drawn so far.
   */
  protected stateFields(): PreferenceState {
    const liked: string[] = [];
    for (const [k, vs] of Object.entries(this.taste.liked)) for (const v of vs) liked.push(attributeKey(k, v));
    const disliked: string[] = [];
    for (const [k, vs] of Object.entries(this.taste.disliked)) for (const v of vs) disliked.push(attributeKey(k, v));
    const out: PreferenceState = {
      liked_items: this.judged('like'),
      disliked_items: this.judged('dislike'),
      liked_attributes: liked,
      disliked_attributes: disliked,
    };
    if (this.attrCoins.size)
      (out as Record<string, unknown>)['attribute_opinions'] = this.drawnCoins([...this.attrCoins.keys()]);
    this.newCoins = [];
    return out;
  }
}

/**
 * The attribute values of a catalog numbered in key order ("brand=A" < "colour=black" < ...), so a
 * PKG can keep its ratings in typed arrays: a simulated user is built thousands of times a second.
 */
interface AttributeSpace {
  keys: string[];
  attr: string[];
  value: string[];
  id: Map<string, number>;
  itemIds: WeakMap<object, Int32Array>;
}

function attributeSpace(catalog: Catalog): AttributeSpace {
  return catalog.derived(buildAttributeSpace);
}

function buildAttributeSpace(catalog: Catalog): AttributeSpace {
  const all = new Set<string>();
  for (const item of catalog.items) for (const key of itemAttributeKeys(item)) all.add(key);
  const keys = [...all].sort();
  const space: AttributeSpace = { keys, attr: [], value: [], id: new Map(), itemIds: new WeakMap() };
  for (const [i, key] of keys.entries()) {
    const eq = key.indexOf('=');
    space.attr.push(key.slice(0, eq));
    space.value.push(key.slice(eq + 1));
    space.id.set(key, i);
  }
  return space;
}

/** The ids of an item's attribute values (values outside the catalog's space are left out). */
function itemValueIds(space: AttributeSpace, item: ItemView): Int32Array {
  let ids = space.itemIds.get(item);
  if (!ids) {
    const out: number[] = [];
    for (const key of itemAttributeKeys(item)) {
      const id = space.id.get(key);
      if (id !== undefined) out.push(id);
    }
    space.itemIds.set(item, (ids = Int32Array.from(out)));
  }
  return ids;
}

/** Scratch buffers for the rating sums (construction is synchronous, so one pair serves all). */
let scratchSum = new Float64Array(0);
let scratchCount = new Int32Array(0);

/** Personal knowledge graph preferences: item and attribute ratings from the rated history. */
export class PkgPreferences extends BasePreferences {
  readonly kind = 'pkg' as const;
  readonly thresholds: PkgThresholds;
  private readonly catalog: Catalog;
  private readonly space: AttributeSpace;
  /** Value ids with a rating, ascending (= key order), and their ratings. */
  private readonly ratedIds: Int32Array;
  private readonly ratedValues: Float64Array;
  /** Per value id: +1 liked, -1 disliked, 0 neutral or unrated. */
  private readonly prefById: Int8Array;
  private readonly liked: [string, string][];
  private readonly disliked: [string, string][];
  private readonly likedKeys: string[];
  private readonly dislikedKeys: string[];

  constructor(
    taste: Taste,
    history: readonly RatedItem[],
    catalog: Catalog,
    thresholds: Partial<PkgThresholds> = {},
    requireTaskCategory = true,
  ) {
    super(taste, history, requireTaskCategory);
    this.thresholds = { ...DEFAULT_PKG_THRESHOLDS, ...thresholds };
    this.catalog = catalog;
    const space = (this.space = attributeSpace(catalog));
    const k = space.keys.length;
    if (scratchSum.length < k) {
      scratchSum = new Float64Array(k);
      scratchCount = new Int32Array(k);
    }
    const touched: number[] = [];
    for (const h of history) {
      const item = catalog.get(h.item_id);
      if (!item) continue;
      for (const id of itemValueIds(space, item)) {
        if (scratchCount[id] === 0) touched.push(id);
        scratchSum[id] += h.rating;
        scratchCount[id]++;
      }
    }
    // A typed array sorts numerically in native code (an Array with a comparator is much slower here).
    this.ratedIds = Int32Array.from(touched).sort();
    this.ratedValues = new Float64Array(touched.length);
    this.prefById = new Int8Array(k);
    const { likedAttribute, dislikedAttribute } = this.thresholds;
    for (let i = 0; i < this.ratedIds.length; i++) {
      const id = this.ratedIds[i];
      const r = Math.round((scratchSum[id] / scratchCount[id]) * 1000) / 1000;
      scratchSum[id] = 0;
      scratchCount[id] = 0;
      this.ratedValues[i] = r;
      this.prefById[id] = r >= likedAttribute ? 1 : r <= dislikedAttribute ? -1 : 0;
    }
    this.liked = this.rankedValues(1);
    this.disliked = this.rankedValues(-1);
    this.likedKeys = this.liked.map(([a, v]) => attributeKey(a, v));
    this.dislikedKeys = this.disliked.map(([a, v]) => attributeKey(a, v));
  }

  /** Item ratings of the history. */
  ratings(): RatedItem[] {
    return [...this.history].map(([item_id, rating]) => ({ item_id, rating }));
  }

  attributePreference(attr: string, value: string): number {
    const id = this.space.id.get(attributeKey(attr, value));
    return id === undefined ? 0 : this.prefById[id];
  }

  /** Sum of the item's attribute preferences. */
  score(item: ItemView): number {
    let s = 0;
    for (const id of itemValueIds(this.space, item)) s += this.prefById[id];
    return s;
  }

  opinion(item: ItemView): Opinion {
    const known = this.opinions.get(item.item_id);
    if (known) return known;
    const rating = this.history.get(item.item_id);
    if (rating !== undefined)
      return rating >= this.thresholds.likedItem
        ? 'like'
        : rating <= this.thresholds.dislikedItem
          ? 'dislike'
          : 'neutral';
    if (!this.inTask(item)) return this.remember(item.item_id, 'dislike');
    return this.remember(item.item_id, this.score(item) >= this.thresholds.accept ? 'like' : 'dislike');
  }

  accepts(item: ItemView): boolean {
    return !this.isConsumed(item.item_id) && this.opinion(item) === 'like';
  }

  likedValues(): [string, string][] {
    return this.liked;
  }

  dislikedValues(): [string, string][] {
    return this.disliked;
  }

  /** Liked (sign 1, highest rating first) or disliked (sign -1, lowest first) values; ties in key order. */
  private rankedValues(sign: number): [string, string][] {
    const rows: number[] = [];
    for (let i = 0; i < this.ratedIds.length; i++) if (this.prefById[this.ratedIds[i]] === sign) rows.push(i);
    rows.sort((a, b) => sign * (this.ratedValues[b] - this.ratedValues[a]) || a - b);
    return rows.map((i) => [this.space.attr[this.ratedIds[i]], this.space.value[this.ratedIds[i]]]);
  }

  protected stateFields(): PreferenceState {
    const liked: string[] = [];
    const disliked: string[] = [];
    for (const [id, r] of this.history) {
      if (r >= this.thresholds.likedItem) liked.push(id);
      else if (r <= this.thresholds.dislikedItem) disliked.push(id);
    }
    liked.push(...this.judged('like'));
    disliked.push(...this.judged('dislike'));
    const attribute_ratings = dynamicRecord<number>();
    for (let i = 0; i < this.ratedIds.length; i++)
      attribute_ratings[this.space.keys[this.ratedIds[i]]] = this.ratedValues[i];
    const item_ratings = dynamicRecord<number>();
    for (const [id, r] of this.history) item_ratings[id] = r;
    return {
      liked_items: liked,
      disliked_items: disliked,
      liked_attributes: this.likedKeys,
      disliked_attributes: this.dislikedKeys,
      attribute_ratings,
      item_ratings,
    };
  }

  /** The catalog the ratings were read from. */
  get source(): Catalog | undefined {
    return this.catalog;
  }
}

export type PreferenceKind = 'single' | 'pkg';

/**
 * The same kind of preference model over a recorded history (a fork restored from its trace: the
 * items the user owns and their ratings, `consumed_items` and `item_ratings` of its snapshot), with
 * the taste and options of `like`. A PKG derives every attribute rating from that history, so it is
 * the recorded user's; a single-item model needs the history only to know what the user owns.
 */
export function preferencesOverHistory(
  like: PreferenceModel,
  history: readonly RatedItem[],
  catalog: Catalog,
  rng: Rng,
  options: PreferenceOptions = {},
  taste: Taste = like.taste,
): PreferenceModel {
  return modelOver(like.kind, taste, history, catalog, rng, options);
}

/**
 * The latent taste a snapshot records (`liked_attributes` / `disliked_attributes`, "attr=value" in
 * the taste's order; a single-item user's, eighteenth round), for the task `category`; undefined
 * when it records none (a trace of before).
 */
export function tasteFromState(state: PreferenceState, category: string, anchor = ''): Taste | undefined {
  const liked = state.liked_attributes;
  if (!liked?.length) return undefined;
  const group = (keys: readonly string[]) => {
    const out: Record<string, string[]> = {};
    for (const key of keys) {
      const eq = key.indexOf('=');
      if (eq > 0) (out[key.slice(0, eq)] ??= []).push(key.slice(eq + 1));
    }
    return out;
  };
  return { category, anchor, liked: group(liked), disliked: group(state.disliked_attributes ?? []) };
}

/** The preference model of `kind` over a taste and a rated history (one construction for both paths). */
function modelOver(
  kind: PreferenceKind,
  taste: Taste,
  history: readonly RatedItem[],
  catalog: Catalog,
  rng: Rng,
  options: PreferenceOptions,
): PreferenceModel {
  const requireTaskCategory = options.requireTaskCategory ?? true;
  const thresholds = { ...DEFAULT_PKG_THRESHOLDS, ...options.thresholds };
  if (kind === 'pkg') return new PkgPreferences(taste, history, catalog, thresholds, requireTaskCategory);
  if (kind === 'single') return new SingleItemPreferences(taste, history, rng, requireTaskCategory);
  throw new Error(`unknown preference model "${String(kind)}" (expected single or pkg)`);
}

/**
 * Builds a user's preference model for a task category: samples a taste, then a history of
 * `historySize` rated items with at least one liked item (resampled up to 20 times, then the
 * anchor item is put in as the liked one).
 */
export function createPreferenceModel(
  kind: PreferenceKind,
  catalog: Catalog,
  category: string,
  rng: Rng,
  options: PreferenceOptions = {},
): PreferenceModel {
  const size = options.historySize ?? 8;
  const thresholds = { ...DEFAULT_PKG_THRESHOLDS, ...options.thresholds };
  const taste = sampleTaste(catalog, category, rng);
  const exclude = new Set(options.exclude ?? []);
  let history = sampleHistory(catalog, taste, size, rng, exclude);
  for (let i = 0; i < 20 && !history.some((h) => h.rating >= thresholds.likedItem); i++)
    history = sampleHistory(catalog, taste, size, rng, exclude);
  // the anchor (the item the taste was drawn around) as the liked one, unless it is to be bought
  const anchor = exclude.has(taste.anchor)
    ? catalog.categoryItems(category).find((i) => !exclude.has(i.item_id))?.item_id
    : taste.anchor;
  if (!history.some((h) => h.rating >= thresholds.likedItem) && anchor !== undefined) {
    const rest = history.filter((h) => h.item_id !== anchor).slice(0, Math.max(0, size - 1));
    history = [{ item_id: anchor, rating: Math.max(thresholds.likedItem, 4.5) }, ...rest];
  }
  return modelOver(kind, taste, history, catalog, rng, options);
}
