/**
 * What a local recommender believes the user wants, updated turn by turn from the parsed user
 * utterances. Shared by `local-good` (which reads it faithfully) and `local-bad` (which feeds it
 * misread values).
 */
import type { CatalogItem } from '../../../catalog/item';
import type { Lexicon, Mention, ParsedUtterance } from './lexicon';

/** Price bands of the synthetic catalog, cheapest first (used to step "cheaper" / "pricier"). */
const PRICE_BAND_ORDER = ['budget', 'mid-range', 'premium', 'luxury'];

/**
 * How many items of a carousel a user is taken to have looked at: 3, the browse depth of the
 * agenda users and the meta-simulators (a PEPPER user reflects on 4; the first 3 are the ones a
 * repeated carousel would lead with again).
 */
const LOOKED_AT = 3;

/** The order in which a helpful recommender asks about missing preferences. */
export const SLOT_IMPORTANCE = [
  'category',
  'type',
  'gender',
  'occasion',
  'colour',
  'price_band',
  'material',
  'style',
  'brand',
];

/** Importance rank of a slot (lower = more important); unknown slots rank after the known ones. */
export function slotRank(slot: string): number {
  const i = SLOT_IMPORTANCE.indexOf(slot);
  return i < 0 ? SLOT_IMPORTANCE.length : i;
}

/** What one utterance changed in the preference state. */
interface StateUpdate {
  /** Positive mentions applied this turn. */
  added: Mention[];
  /** Negated mentions applied this turn. */
  removed: Mention[];
  categoryChanged: boolean;
  priceChanged: boolean;
  /** Slots whose wanted values the user let go of this turn ("any colour is fine"). */
  relaxed: string[];
  /** True when anything the retriever uses changed. */
  changed: boolean;
}

/** Per-conversation beliefs about what the user wants (see the module comment). */
export class PreferenceState {
  category?: string;
  /** slot -> acceptable values (any of). */
  readonly wanted = new Map<string, string[]>();
  /** slot (including "category") -> values the user ruled out. */
  readonly excluded = new Map<string, Set<string>>();
  maxPrice?: number;
  minPrice?: number;
  /**
   * The price limits before the agent's own step from the prices shown ("cheaper", "fancier"), which
   * taking the step back restores (the user's own limits); undefined when no step holds.
   */
  priceStep?: { dir: 'pricier' | 'cheaper'; min?: number; max?: number };
  /** Free words from the user for retrieval (most recent last, at most 8). */
  keywords: string[] = [];
  /** Items the user rejected. */
  readonly rejected = new Set<string>();
  /** Items already shown. */
  readonly seen = new Set<string>();
  /** Items that were among the first LOOKED_AT of a carousel (what a user reads before it scrolls). */
  readonly lookedAt = new Map<string, number>();
  /** Carousels shown so far (the clock of `lookedAt`). */
  private carousels = 0;
  /** The current carousel. */
  shown: CatalogItem[] = [];
  /** The carousel before the current one ("go back"). */
  previous: CatalogItem[] = [];
  /** Slots the agent has asked about. */
  readonly asked = new Set<string>();

  constructor(private readonly lexicon: Lexicon) {}

  /** Applies the mentions (possibly rewritten by the caller) and price cues of one utterance. */
  apply(parsed: ParsedUtterance, mentions: readonly Mention[] = parsed.mentions): StateUpdate {
    const added: Mention[] = [];
    const removed: Mention[] = [];
    let categoryChanged = false;
    let priceChanged = false;
    const fresh = new Map<string, string[]>();
    for (const m of mentions) {
      if (m.negated) {
        removed.push(m);
        let set = this.excluded.get(m.slot);
        if (!set) this.excluded.set(m.slot, (set = new Set()));
        set.add(m.value);
        if (m.slot === 'category') {
          if (this.category === m.value) {
            this.category = undefined;
            categoryChanged = true;
          }
          continue;
        }
        const list = this.wanted.get(m.slot);
        if (list) {
          const kept = list.filter((v) => v !== m.value);
          if (kept.length) this.wanted.set(m.slot, kept);
          else this.wanted.delete(m.slot);
        }
        continue;
      }
      added.push(m);
      this.excluded.get(m.slot)?.delete(m.value);
      let list = fresh.get(m.slot);
      if (!list) fresh.set(m.slot, (list = []));
      if (!list.includes(m.value)) list.push(m.value);
    }
    // A category named outright wins over one implied by a type.
    let nextCategory = fresh.get('category')?.[0];
    const types = fresh.get('type');
    if (nextCategory === undefined && types) {
      const implied = this.lexicon.typeCategory.get(types[0]);
      if (implied !== undefined && implied !== this.category) nextCategory = implied;
    }
    if (nextCategory !== undefined && nextCategory !== this.category) {
      this.category = nextCategory;
      categoryChanged = true;
      // a type from another category no longer applies
      const t = this.wanted.get('type');
      if (t && !t.some((v) => this.lexicon.typeCategory.get(v) === nextCategory)) this.wanted.delete('type');
      this.seen.clear();
    }
    const expand = parsed.intents.has('expand');
    for (const [slot, values] of fresh) {
      if (slot === 'category') continue;
      if (expand) {
        // "... would also work": add to the acceptable values instead of replacing them
        for (const v of this.wanted.get(slot) ?? []) if (!values.includes(v)) values.push(v);
      }
      if (slot === 'type' && this.category !== undefined) {
        const inCat = values.filter((v) => (this.lexicon.typeCategory.get(v) ?? this.category) === this.category);
        if (inCat.length) this.wanted.set(slot, inCat);
        continue;
      }
      // a price band said now replaces an earlier limit (a limit said in the same turn is set below)
      if (slot === 'price_band' && (this.maxPrice !== undefined || this.minPrice !== undefined)) {
        this.maxPrice = this.minPrice = undefined;
        this.priceStep = undefined;
        priceChanged = true;
      }
      this.wanted.set(slot, values);
    }
    // "any colour is fine": the slot's wanted values go (exclusions stay: a "not X" still holds)
    const relaxed: string[] = [];
    for (const slot of parsed.relaxed ?? []) {
      if (fresh.has(slot)) continue;
      this.asked.add(slot);
      let had = this.wanted.delete(slot);
      if (slot === 'price_band' && (this.maxPrice !== undefined || this.minPrice !== undefined)) {
        this.maxPrice = this.minPrice = undefined;
        this.priceStep = undefined;
        had = true;
      }
      if (had) relaxed.push(slot);
    }
    if (parsed.maxPrice !== undefined) {
      this.maxPrice = parsed.maxPrice;
      this.priceStep = undefined;
      priceChanged = true;
    }
    if (parsed.minPrice !== undefined) {
      this.minPrice = parsed.minPrice;
      this.priceStep = undefined;
      priceChanged = true;
    }
    if (parsed.intents.has('cheaper') || parsed.intents.has('pricier'))
      priceChanged = this.stepPrice(parsed.intents.has('cheaper') ? -1 : 1) || priceChanged;
    for (const k of parsed.keywords) {
      const i = this.keywords.indexOf(k);
      if (i >= 0) this.keywords.splice(i, 1);
      this.keywords.push(k);
    }
    if (this.keywords.length > 8) this.keywords.splice(0, this.keywords.length - 8);
    const changed =
      added.length > 0 ||
      removed.length > 0 ||
      categoryChanged ||
      priceChanged ||
      relaxed.length > 0 ||
      parsed.keywords.length > 0;
    return { added, removed, categoryChanged, priceChanged, relaxed, changed };
  }

  /** Moves the wanted price band (or price limit) one step cheaper (-1) or dearer (+1). */
  private stepPrice(dir: -1 | 1): boolean {
    const band = this.wanted.get('price_band')?.[0];
    const i = band === undefined ? -1 : PRICE_BAND_ORDER.indexOf(band);
    if (i >= 0) {
      const j = Math.min(PRICE_BAND_ORDER.length - 1, Math.max(0, i + dir));
      if (j === i) return false;
      this.wanted.set('price_band', [PRICE_BAND_ORDER[j]]);
      return true;
    }
    const prices = this.shown.map((it) => it.price).filter((p): p is number => p !== undefined);
    if (prices.length === 0) return false;
    // the user's own limits, kept to be restored (a step on a step keeps the first one's)
    const own = this.priceStep ?? { min: this.minPrice, max: this.maxPrice };
    // a step moves one end; the user's limit at the other end holds ("under $40", then "fancier")
    if (dir < 0) {
      this.maxPrice = Math.floor(Math.min(...prices) * 0.95);
      this.minPrice = own.min;
    } else {
      this.minPrice = Math.ceil(Math.max(...prices) * 1.05);
      this.maxPrice = own.max;
    }
    this.priceStep = { dir: dir < 0 ? 'cheaper' : 'pricier', min: own.min, max: own.max };
    return true;
  }

  /** Takes the agent's own price step back: the user's limits as they were before it. */
  undoPriceStep(): 'pricier' | 'cheaper' | undefined {
    const step = this.priceStep;
    if (!step) return undefined;
    this.minPrice = step.min;
    this.maxPrice = step.max;
    this.priceStep = undefined;
    return step.dir;
  }

  /** Number of attribute slots the user has expressed a preference about (wanted or ruled out). */
  knownCount(): number {
    let n = this.wanted.size;
    for (const [slot, set] of this.excluded) if (set.size && slot !== 'category' && !this.wanted.has(slot)) n++;
    return n;
  }

  /** The first wanted value of a slot. */
  value(slot: string): string | undefined {
    return this.wanted.get(slot)?.[0];
  }

  /**
   * A predicate equivalent to `violates`, specialised to the current state (call once per
   * search, then once per candidate item).
   */
  violation(): (item: CatalogItem) => boolean {
    const rejected = this.rejected.size ? this.rejected : undefined;
    const { maxPrice, minPrice } = this;
    const excluded: [string, Set<string>][] = [];
    for (const [slot, set] of this.excluded) if (set.size) excluded.push([slot, set]);
    const checkCategory = excluded.findIndex(([slot]) => slot === 'category');
    return (item) => {
      if (rejected && rejected.has(item.item_id)) return true;
      if (item.price !== undefined) {
        if (maxPrice !== undefined && item.price > maxPrice) return true;
        if (minPrice !== undefined && item.price < minPrice) return true;
      }
      for (let i = 0; i < excluded.length; i++) {
        const v = i === checkCategory ? item.category : item.attributes[excluded[i][0]];
        if (v !== undefined && excluded[i][1].has(v)) return true;
      }
      return false;
    };
  }

  /** True when an item breaks an exclusion, a price limit or was rejected. */
  violates(item: CatalogItem): boolean {
    if (this.rejected.has(item.item_id)) return true;
    if (this.maxPrice !== undefined && item.price !== undefined && item.price > this.maxPrice) return true;
    if (this.minPrice !== undefined && item.price !== undefined && item.price < this.minPrice) return true;
    for (const [slot, set] of this.excluded) {
      const v = slot === 'category' ? item.category : item.attributes[slot];
      if (v !== undefined && set.has(v)) return true;
    }
    return false;
  }

  /** Records a carousel as the current one and as seen (its first LOOKED_AT items as looked at). */
  show(items: CatalogItem[]): void {
    if (items !== this.shown) {
      this.previous = this.shown;
      this.shown = items;
    }
    for (const it of items) this.seen.add(it.item_id);
    this.carousels++;
    for (let i = 0; i < Math.min(LOOKED_AT, items.length); i++) this.lookedAt.set(items[i].item_id, this.carousels);
  }

  /**
   * A fresh search result in the order to show it: items the user already had in front of it (in
   * the first LOOKED_AT places of an earlier carousel) and did not take move behind the others,
   * those looked at longest ago first (ties in result order), so a new search does not lead with
   * the top of the previous one while the result has anything else. With `tierOf` (local-good:
   * whether an item has every wanted value), items only move within their tier: a full match the
   * user has seen still comes before a partial one it has not. Returns the same array when nothing
   * moves.
   */
  freshFirst(items: CatalogItem[], tierOf?: (item: CatalogItem) => number): CatalogItem[] {
    if (this.lookedAt.size === 0) return items;
    let any = false;
    const keyed = items.map((it, i) => {
      const when = this.lookedAt.get(it.item_id);
      if (when !== undefined) any = true;
      return { it, i, tier: tierOf ? tierOf(it) : 0, when: when ?? -1 };
    });
    if (!any) return items;
    keyed.sort((a, b) => b.tier - a.tier || a.when - b.when || a.i - b.i);
    return keyed.map((k) => k.it);
  }

  /** 1 when an item has a wanted value for every wanted slot, else 0 (the tiers of `freshFirst` for local-good). */
  fullMatch(item: CatalogItem): number {
    for (const [slot, values] of this.wanted) {
      const v = item.attributes[slot];
      if (v === undefined || !values.includes(v)) return 0;
    }
    return 1;
  }
}
