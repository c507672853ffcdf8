/**
 * Catalog-driven language understanding for the local recommenders: which categories and
 * attribute values a user utterance mentions (with synonyms and plural forms), which of them are
 * negated ("not leather", "no heels"), price limits, item references ("the second one") and the
 * conversational intent cues (accept, reject, more, question, greeting, goodbye).
 *
 * The vocabulary comes from the catalog itself, so an imported catalog works too; the synonym
 * table below adds everyday spellings for the values of the synthetic apparel catalog and common
 * apparel words, and is harmless for values a catalog does not have.
 */
import type { Catalog, CatalogItem } from '../catalog/item';
import { STOPWORDS } from '../text/stopwords';
import { foldPlural, tokenize, tokenizeSpans } from '../text/tokenize';

/** One recognised slot value in an utterance. */
export interface Mention {
  slot: string;
  value: string;
  /** Token span [start, end) in the utterance's token list. */
  start: number;
  end: number;
  negated: boolean;
}

/** An item title found in an utterance: tokens [start, end). */
export interface ItemReference {
  item: CatalogItem;
  start: number;
  end: number;
}

/** Mentions that are not inside any of the spans (words of a typed item title are not preferences). */
export function mentionsOutside(mentions: readonly Mention[], spans: readonly { start: number; end: number }[]): Mention[] {
  if (spans.length === 0) return mentions.slice();
  return mentions.filter((m) => !spans.some((s) => m.start < s.end && m.end > s.start));
}

/**
 * Conversational cues. accept/reject/like: about shown items; more/list/back/similar: navigation
 * requests; compare/detail/repeat: questions about what is shown; nopref: "I don't mind";
 * expand: "... would also work" (add a value instead of replacing); note: a non-committal remark.
 */
export type Intent =
  | 'accept' | 'reject' | 'more' | 'question' | 'greet' | 'thanks' | 'bye' | 'like' | 'cheaper' | 'pricier'
  | 'nopref' | 'expand' | 'list' | 'similar' | 'compare' | 'detail' | 'repeat' | 'back' | 'note';

/** What `Lexicon.parse` found in one utterance. */
export interface ParsedUtterance {
  tokens: string[];
  /** Plural-folded tokens (what phrases are matched on). */
  folded: string[];
  mentions: Mention[];
  intents: Set<Intent>;
  /** 0-based positions in the last carousel the user pointed at ("the first one", "#3", "last"). */
  ordinals: number[];
  maxPrice?: number;
  minPrice?: number;
  /** Content words that are not slot values, cue words or chatter, and that occur in the catalog. */
  keywords: string[];
}

/** Extra surface forms per value (value spelled as in the synthetic catalog, lowercase). */
const SYNONYMS: Record<string, string[]> = {
  // categories
  footwear: ['shoes', 'shoe', 'footwear', 'boots', 'boot'],
  outerwear: ['jacket', 'coat', 'outerwear', 'outer wear'],
  tops: ['top', 'tops'],
  bottoms: ['bottoms', 'bottom'],
  dresses: ['dress', 'gown'],
  activewear: ['sportswear', 'athletic wear', 'athleisure', 'gym clothes', 'workout clothes', 'active wear', 'sports clothes'],
  accessories: ['accessory'],
  bags: ['bag', 'handbag', 'purse'],
  // colours
  grey: ['gray', 'charcoal'],
  navy: ['navy blue', 'dark blue'],
  burgundy: ['maroon', 'wine', 'oxblood'],
  tan: ['camel', 'khaki'],
  beige: ['sand', 'nude', 'taupe'],
  cream: ['ivory', 'off white', 'ecru'],
  purple: ['violet', 'lilac', 'lavender'],
  pink: ['blush', 'rose'],
  green: ['emerald', 'forest green'],
  olive: ['olive green', 'army green'],
  red: ['scarlet', 'crimson'],
  brown: ['chocolate', 'cognac', 'dark brown'],
  blue: ['light blue', 'sky blue', 'cobalt'],
  yellow: ['mustard'],
  orange: ['rust', 'coral'],
  // gender
  women: ['woman', 'womens', "women's", 'ladies', 'lady', 'female', 'her', 'wife', 'girlfriend', 'mom', 'womenswear'],
  men: ['man', 'mens', "men's", 'male', 'guys', 'guy', 'him', 'husband', 'boyfriend', 'dad', 'menswear', 'gentlemen'],
  unisex: ['gender neutral', 'any gender', 'either gender'],
  // price bands
  budget: ['cheap', 'inexpensive', 'affordable', 'low budget', 'bargain', 'low cost', 'low price', 'cheapest'],
  'mid-range': ['mid range', 'midrange', 'moderate', 'moderately priced', 'reasonably priced', 'reasonable price', 'mid priced', 'average price'],
  premium: ['high quality', 'higher end', 'quality', 'upscale'],
  luxury: ['designer', 'high end', 'luxurious', 'splurge', 'expensive'],
  // occasions
  everyday: ['daily', 'every day', 'day to day', 'errands'],
  work: ['office', 'business', 'professional', 'workplace', 'job', 'meetings', 'commute', 'commuting'],
  party: ['night out', 'clubbing', 'celebration', 'going out'],
  wedding: ['formal event', 'formal', 'gala', 'ceremony'],
  travel: ['traveling', 'travelling', 'trip', 'vacation', 'holiday', 'airport'],
  hiking: ['hike', 'hikes', 'trail', 'trails', 'trekking', 'outdoors', 'mountain'],
  running: ['run', 'jogging', 'jog', 'marathon', 'runs'],
  gym: ['workout', 'workouts', 'training', 'lifting', 'weightlifting', 'fitness', 'exercise', 'exercising', 'crossfit'],
  beach: ['pool', 'seaside', 'summer vacation'],
  winter: ['cold weather', 'snow', 'freezing', 'cold'],
  lounge: ['lounging', 'at home', 'relaxing', 'loungewear'],
  'date night': ['date', 'dinner date'],
  yoga: ['pilates', 'stretching'],
  cycling: ['bike', 'biking', 'bicycle', 'cyclist'],
  swimming: ['swim', 'swimwear', 'laps'],
  school: ['campus', 'class', 'college', 'university'],
  // styles
  casual: ['relaxed', 'laid back', 'easygoing'],
  classic: ['timeless', 'traditional'],
  sporty: ['athletic', 'sport'],
  minimalist: ['minimal', 'simple', 'clean look', 'understated'],
  vintage: ['retro', 'old school'],
  streetwear: ['street', 'urban', 'street style'],
  elegant: ['dressy', 'chic', 'sophisticated', 'classy'],
  bohemian: ['boho'],
  rugged: ['tough', 'heavy duty', 'outdoorsy'],
  preppy: ['collegiate'],
  // materials
  leather: ['genuine leather', 'real leather'],
  synthetic: ['vegan leather', 'faux leather', 'vegan', 'man made', 'pleather'],
  down: ['down filled', 'feather', 'goose down'],
  wool: ['woolen', 'woollen', 'woolly'],
  silk: ['silky'],
  spandex: ['stretch', 'elastane', 'lycra'],
  knit: ['knitted'],
  metal: ['steel', 'stainless steel'],
  mesh: ['breathable mesh'],
  // types
  sneakers: ['trainers', 'tennis shoes', 'kicks'],
  'running shoes': ['running shoe', 'runners'],
  'ankle boots': ['booties', 'ankle boot'],
  'hiking boots': ['walking boots', 'trail boots', 'hiking shoes'],
  sandals: ['flip flops', 'slides'],
  heels: ['pumps', 'stilettos', 'high heels'],
  'ballet flats': ['flats'],
  'puffer jacket': ['puffer', 'down jacket', 'quilted jacket'],
  'rain jacket': ['raincoat', 'rain coat', 'waterproof jacket'],
  'trench coat': ['trench'],
  'wool coat': ['overcoat', 'peacoat', 'pea coat'],
  'bomber jacket': ['bomber'],
  'denim jacket': ['jean jacket'],
  'leather jacket': ['biker jacket', 'moto jacket'],
  gilet: ['vest', 'body warmer'],
  't-shirt': ['tee', 'tshirt', 'tees'],
  shirt: ['button down', 'button up', 'dress shirt'],
  sweater: ['jumper', 'pullover', 'knitwear'],
  hoodie: ['hoody', 'sweatshirt', 'hooded sweatshirt'],
  'polo shirt': ['polo'],
  'tank top': ['tank', 'camisole', 'cami'],
  turtleneck: ['roll neck', 'polo neck'],
  chinos: ['khakis'],
  trousers: ['pants', 'slacks'],
  joggers: ['sweatpants', 'track pants', 'sweats'],
  'cargo pants': ['cargos'],
  jumpsuit: ['romper', 'playsuit'],
  'training shorts': ['gym shorts', 'workout shorts'],
  'performance tee': ['workout shirt', 'gym shirt', 'training top'],
  swimsuit: ['swimming costume', 'bikini', 'swim trunks', 'bathing suit'],
  beanie: ['winter hat', 'knit hat'],
  'baseball cap': ['cap'],
  gloves: ['mittens'],
  sunglasses: ['shades'],
  backpack: ['rucksack'],
  'tote bag': ['tote'],
  'crossbody bag': ['crossbody', 'shoulder bag', 'cross body'],
  'duffel bag': ['duffel', 'duffle', 'weekender', 'gym bag'],
  'belt bag': ['fanny pack', 'bum bag'],
  'laptop bag': ['briefcase', 'laptop case'],
};

// Words that negate the mention that follows within a few words of the same clause.
const NEGATORS = new Set([
  'not', 'no', 'without', "don't", 'dont', 'never', 'avoid', 'except', 'hate', 'dislike', 'nothing', "doesn't",
  "isn't", "aren't", "won't", 'neither', 'nor', 'instead', 'anything', 'less', 'other',
]);
// "anything" / "other" / "instead" only negate in "anything but X", "other than X", "instead of X";
// they are checked with the following word in `isNegated`.
const NEGATION_WINDOW = 3;

const ORDINALS: Record<string, number> = {
  first: 0, '1st': 0, second: 1, '2nd': 1, third: 2, '3rd': 2, fourth: 3, '4th': 3, fifth: 4, '5th': 4,
  sixth: 5, '6th': 5, seventh: 6, '7th': 6, eighth: 7, '8th': 7, ninth: 8, '9th': 8, tenth: 9, '10th': 9,
  eleventh: 10, twelfth: 11, last: -1,
};

// Phrases checked against " tokens joined by spaces " (so word boundaries hold).
const CUES: Record<Intent, string[]> = {
  accept: [
    "i'll take", 'ill take', 'i will take', "i'd take", 'take it', 'take this', 'take that', 'take the', "i'll buy", 'i will buy',
    'buy it', 'buy this', 'buy that', 'buy the', 'buy one', 'purchase', 'add to cart', 'add it to', 'order it', 'order this',
    "i'll go with", 'go with the', 'go with this', 'go with that', "i'll get", 'i will get', "that's the one",
    'this is the one', 'sold', 'exactly what i', 'i accept', 'accept the', 'accept this', 'i choose', "i'll choose",
    "i'd like to buy", 'want to buy', 'checkout', 'check out',
  ],
  reject: [
    "don't like", 'do not like', 'dont like', "doesn't look", 'not what', 'none of', 'not really', 'not these', 'not those',
    'something else', 'something different', 'no thanks', 'not quite', 'not for me', "don't want", 'do not want',
    'dislike', 'hate', 'nope', 'not interested', "doesn't work", 'not my style', 'not a fan', 'not great', "aren't right",
    "isn't right", 'not right', 'wrong', 'ugly', 'not it', "don't love", 'not keen', 'pass on',
  ],
  more: ['more', 'other options', 'anything else', 'others', 'alternatives', 'different ones', 'next', 'another', 'else'],
  question: [],
  greet: ['hi', 'hello', 'hey', 'good morning', 'good afternoon', 'good evening', 'greetings', 'howdy'],
  thanks: ['thanks', 'thank you', 'thx', 'cheers', 'appreciate'],
  bye: [
    'bye', 'goodbye', "that's all", 'that is all', "i'm done", 'im done', 'done for today', 'see you', 'have a good', 'leave it',
    'give up', 'forget it', 'never mind', 'nevermind', 'look elsewhere',
  ],
  like: ['like', 'love', 'nice', 'great', 'good', 'cool', 'awesome', 'pretty', 'beautiful', 'gorgeous', 'lovely', 'cute', 'interesting', 'perfect'],
  cheaper: ['cheaper', 'less expensive', 'too expensive', 'too pricey', 'lower price', 'more affordable', 'cost less', 'pricey', 'over my budget'],
  pricier: ['more expensive', 'higher quality', 'better quality', 'fancier', 'too cheap', 'nicer'],
  nopref: [
    "don't mind", 'dont mind', 'do not mind', "don't really mind", 'no preference', 'you pick', "doesn't matter", 'does not matter',
    'anything is fine', 'any is fine', 'either is fine', 'whatever', 'up to you', 'not sure', "don't care", 'dont care', 'surprise me',
  ],
  expand: ['also work', 'would also', 'as well', 'open to', 'too'],
  list: ['options', 'show me', 'what do you have', 'can i see', 'what do you recommend', 'recommend', 'what have you got', 'suggestions'],
  similar: ['similar', 'more like', 'something like', 'like that one', 'like this one', 'same style'],
  compare: ['compare', 'difference', 'versus', 'vs', 'which is better', 'better one'],
  detail: ['tell me more', 'more about', 'details', 'more info', 'more information'],
  repeat: ['say that again', 'what do you mean', "didn't get", 'didnt get', 'huh', 'come again', 'repeat', "don't understand", 'confused'],
  back: ['go back', 'earlier ones', 'previous', 'before', 'the ones from', 'showed before', 'first ones'],
  note: ['could work', 'in mind', 'a maybe', 'noted', 'maybe', 'i see', 'hmm', 'okay'],
};

/** Cues indexed by their first token: first token -> [intent, remaining tokens][]. */
const CUE_INDEX = new Map<string, [Intent, string[]][]>();
for (const intent of Object.keys(CUES) as Intent[]) {
  for (const cue of CUES[intent]) {
    const [first, ...rest] = tokenize(cue);
    let list = CUE_INDEX.get(first);
    if (!list) CUE_INDEX.set(first, (list = []));
    list.push([intent, rest]);
  }
}

/** Every word of every cue: never kept as a retrieval keyword. */
const CUE_WORDS = new Set<string>();
for (const cues of Object.values(CUES)) for (const cue of cues) for (const w of tokenize(cue)) CUE_WORDS.add(w);

const QUESTION_STARTS = new Set([
  'what', 'which', 'how', 'does', 'do', 'is', 'are', 'can', 'could', 'would', 'will', 'why', 'where', 'when', 'who', 'any', 'have',
]);

// Words never kept as free keywords: chatter, cue words and generic shopping words.
const CHATTER = new Set([
  'want', 'wanted', 'looking', 'look', 'looks', 'need', 'needs', 'like', 'likes', 'love', 'find', 'show', 'shows', 'showing',
  'get', 'prefer', 'pair', 'pairs', 'one', 'ones', 'please', 'also', 'buy', 'take', 'purchase', 'something', 'anything',
  'item', 'items', 'option', 'options', 'thing', 'things', 'good', 'great', 'nice', 'cool', 'best', 'new', 'shopping', 'shop',
  'wear', 'wearing', 'maybe', 'mostly', 'really', 'actually', 'instead', 'else', 'more', 'other', 'others', 'another',
  'thanks', 'thank', 'hi', 'hello', 'hey', 'bye', 'sure', 'fine', 'first', 'second', 'third', 'last', 'color', 'colour',
  'colors', 'colours', 'price', 'budget', 'style', 'material', 'size', 'kind', 'type', 'sort', 'perfect', 'ideally',
  'preferably', 'go', 'going', 'let', 'lets', "let's", 'see', 'got', 'much', 'many', 'think', 'thinking', 'would', 'like',
  'dollars', 'usd', 'bucks', 'around', 'under', 'below', 'less', 'cheaper', 'max', 'maximum', 'over', 'above', 'least',
  'okay', 'ok', 'yes', 'yeah', 'no', 'nope', 'these', 'those', 'this', 'that', 'them', 'it', 'something', 'interested',
  'made', 'make', 'tell', 'know', 'does', 'come', 'comes', 'available', 'cost', 'costs', 'sounds', 'seems', 'ones', 'pick',
  'suggest', 'recommend', 'recommendation', 'recommendations', 'help', 'today', 'right', 'well', 'still', 'just', 'bit', 'little',
  'sorry', 'mean', 'again', 'fan', 'keen', 'mind', 'care', 'matter', 'tell', 'ideally', 'something', 'got', 'need', 'needs',
  'new', 'also', 'would', 'could', 'please', 'thing', 'few', 'some', 'any', 'lot', 'lots', 'way', 'ones', 'kinda', 'sort',
]);

const LESS_MORE_ADJ = new Set(['expensive', 'affordable', 'formal', 'casual', 'colorful', 'colourful', 'fitted', 'relaxed']);

const PRICE_MAX_CUES = new Set(['under', 'below', 'max', 'maximum', 'within', 'cheaper', 'less', 'upto', 'most']);
const PRICE_MIN_CUES = new Set(['over', 'above', 'least', 'more', 'minimum']);

interface PhraseTarget {
  slot: string;
  value: string;
}

/** Surface-form key: tokens folded to singular, joined with spaces. */
function phraseKey(tokens: readonly string[]): string {
  return tokens.map(foldPlural).join(' ');
}

/** The vocabulary of one catalog and the parser built on it (shared by all sessions). */
export class Lexicon {
  /** phrase key -> slot values it names (several when a word is ambiguous across slots). */
  private readonly phrases = new Map<string, PhraseTarget[]>();
  private maxPhraseTokens = 1;
  /** type value -> its category, when the type occurs in exactly one category. */
  readonly typeCategory = new Map<string, string>();
  /** The slots this catalog knows: "category" and its attribute names. */
  readonly slots: readonly string[];
  /** category -> slot -> values that occur in that category (sorted). */
  private readonly categoryValues = new Map<string, Map<string, string[]>>();
  private readonly catalog: Catalog;

  private static readonly cache = new WeakMap<Catalog, Lexicon>();

  /** The lexicon of a catalog (built once per catalog and shared by every session). */
  static for(catalog: Catalog): Lexicon {
    let lex = Lexicon.cache.get(catalog);
    if (!lex) {
      lex = new Lexicon(catalog);
      Lexicon.cache.set(catalog, lex);
    }
    return lex;
  }

  private constructor(catalog: Catalog) {
    this.catalog = catalog;
    this.slots = ['category', ...catalog.attributeNames()];
    const typeCats = new Map<string, Set<string>>();
    for (const item of catalog.items) {
      const t = item.attributes.type;
      if (t !== undefined) {
        let set = typeCats.get(t);
        if (!set) typeCats.set(t, (set = new Set()));
        set.add(item.category);
      }
      let perCat = this.categoryValues.get(item.category);
      if (!perCat) this.categoryValues.set(item.category, (perCat = new Map()));
      for (const [slot, v] of Object.entries(item.attributes)) {
        let list = perCat.get(slot);
        if (!list) perCat.set(slot, (list = []));
        if (!list.includes(v)) list.push(v);
      }
    }
    for (const perCat of this.categoryValues.values()) for (const list of perCat.values()) list.sort();
    for (const [t, cats] of typeCats) if (cats.size === 1) this.typeCategory.set(t, [...cats][0]);

    // Values first, then synonyms: a value's own spelling wins over another value's synonym.
    for (const cat of catalog.categories()) this.addPhrase(cat, 'category', cat, true);
    for (const slot of catalog.attributeNames()) {
      for (const v of catalog.attributeValues(slot)) this.addPhrase(v, slot, v, true);
    }
    for (const cat of catalog.categories()) for (const syn of SYNONYMS[cat.toLowerCase()] ?? []) this.addPhrase(syn, 'category', cat, false);
    for (const slot of catalog.attributeNames()) {
      if (slot === 'brand') continue;
      for (const v of catalog.attributeValues(slot)) {
        for (const syn of SYNONYMS[v.toLowerCase()] ?? []) this.addPhrase(syn, slot, v, false);
      }
    }
  }

  private addPhrase(surface: string, slot: string, value: string, primary: boolean): void {
    const tokens = tokenize(surface);
    if (tokens.length === 0) return;
    const key = phraseKey(tokens);
    const list = this.phrases.get(key);
    if (!list) {
      this.phrases.set(key, [{ slot, value }]);
    } else if (!list.some((t) => t.slot === slot && t.value === value)) {
      // A synonym never overrides a value spelled exactly; two exact values in different slots
      // (e.g. a material and a brand) are both kept.
      if (!primary && list.length) return;
      list.push({ slot, value });
    }
    if (tokens.length > this.maxPhraseTokens) this.maxPhraseTokens = tokens.length;
  }

  private readonly titleTokens = new WeakMap<CatalogItem, string[]>();

  /**
   * Shown items whose title the user typed (as a contiguous run of words), in the order they
   * appear in the utterance, with their token spans. Simulated users refer to items by title.
   */
  findItems(parsed: ParsedUtterance, items: readonly CatalogItem[]): ItemReference[] {
    const refs: ItemReference[] = [];
    const { folded } = parsed;
    if (folded.length === 0) return refs;
    for (const item of items) {
      let title = this.titleTokens.get(item);
      if (!title) {
        title = tokenize(item.title).map(foldPlural);
        this.titleTokens.set(item, title);
      }
      if (title.length === 0 || title.length > folded.length) continue;
      for (let i = 0; i + title.length <= folded.length; i++) {
        if (folded[i] !== title[0]) continue;
        let j = 1;
        while (j < title.length && folded[i + j] === title[j]) j++;
        if (j === title.length) {
          refs.push({ item, start: i, end: i + title.length });
          break;
        }
      }
    }
    refs.sort((a, b) => a.start - b.start);
    return refs;
  }

  /** Values of a slot that occur in a category (all catalog values when the category is unknown). */
  valuesIn(slot: string, category: string | undefined): string[] {
    if (slot === 'category') return this.catalog.categories();
    if (category !== undefined) {
      const list = this.categoryValues.get(category)?.get(slot);
      if (list) return list;
    }
    return this.catalog.attributeValues(slot);
  }

  /** Reads a user utterance. */
  parse(utterance: string): ParsedUtterance {
    const spans = tokenizeSpans(utterance);
    const tokens = spans.tokens;
    const n = tokens.length;
    const folded = new Array<string>(n);
    for (let i = 0; i < n; i++) folded[i] = foldPlural(tokens[i]);
    const mentions: Mention[] = [];
    const consumed = new Uint8Array(n);
    const maxLen = this.maxPhraseTokens;
    // Longest match first at each position.
    for (let i = 0; i < n; ) {
      let matched = 0;
      let targets: PhraseTarget[] | undefined;
      let key = '';
      const limit = Math.min(maxLen, n - i);
      for (let len = 1; len <= limit; len++) {
        key = len === 1 ? folded[i] : `${key} ${folded[i + len - 1]}`;
        const t = this.phrases.get(key);
        if (t) {
          targets = t;
          matched = len;
        }
      }
      if (targets && matched === 1 && blockedByContext(tokens[i], tokens[i - 1])) targets = undefined;
      if (targets) {
        for (const t of targets) mentions.push({ slot: t.slot, value: t.value, start: i, end: i + matched, negated: false });
        for (let j = i; j < i + matched; j++) consumed[j] = 1;
        i += matched;
      } else i++;
    }
    if (mentions.length) markNegations(spans.text, tokens, spans.starts, spans.ends, mentions);

    const intents = new Set<Intent>();
    for (let i = 0; i < n; i++) {
      const cues = CUE_INDEX.get(tokens[i]);
      if (!cues) continue;
      for (const [intent, rest] of cues) {
        if (intents.has(intent) || i + rest.length >= n + (rest.length ? 0 : 1)) continue;
        let ok = true;
        for (let j = 0; j < rest.length; j++) {
          if (tokens[i + 1 + j] !== rest[j]) {
            ok = false;
            break;
          }
        }
        if (ok) intents.add(intent);
      }
    }
    if (utterance.includes('?') || (n > 0 && QUESTION_STARTS.has(tokens[0]))) intents.add('question');
    // "like"/"love" in "I'd like boots" is a request, not praise: the agents only read it as
    // praise when nothing else was said.
    if (intents.has('like') && intents.has('reject')) intents.delete('like');
    if (n <= 5 && tokens.includes('perfect')) intents.add('accept');
    if (intents.has('more')) {
      for (let i = 0; i + 1 < n; i++) {
        if ((tokens[i] === 'more' || tokens[i] === 'less') && LESS_MORE_ADJ.has(tokens[i + 1])) {
          intents.delete('more');
          break;
        }
      }
      // "tell me more about X", "more like X" are not requests for the next page
      if (intents.has('detail') || intents.has('similar')) intents.delete('more');
    }
    if (intents.has('back') && intents.has('bye')) intents.delete('back');

    const ordinals: number[] = [];
    let maxPrice: number | undefined;
    let minPrice: number | undefined;
    for (let i = 0; i < tokens.length; i++) {
      const tok = tokens[i];
      const ord = ORDINALS[tok];
      if (ord !== undefined && !consumed[i]) ordinals.push(ord);
      if ((tok === 'number' || tok === 'item' || tok === 'option' || tok === 'no') && i + 1 < tokens.length) {
        const n = Number(tokens[i + 1]);
        if (Number.isInteger(n) && n >= 1 && n <= 50) ordinals.push(n - 1);
      }
      if (/^\d+(?:\.\d+)?$/.test(tok)) {
        const n = Number(tok);
        const prev = tokens[i - 1] ?? '';
        const prev2 = tokens[i - 2] ?? '';
        if (PRICE_MAX_CUES.has(prev) || prev === 'to' && prev2 === 'up' || prev === 'than' && (prev2 === 'less' || prev2 === 'cheaper')) maxPrice = n;
        else if (PRICE_MIN_CUES.has(prev) || prev === 'than' && prev2 === 'more') minPrice = n;
        else if (prev === 'around' || prev === 'about' || prev === 'roughly') {
          maxPrice = Math.round(n * 1.25);
          minPrice = Math.round(n * 0.75);
        }
      }
    }
    const hash = /#(\d{1,2})\b/.exec(utterance);
    if (hash) ordinals.push(Number(hash[1]) - 1);

    if (ordinals.length === 0) {
      for (let i = 0; i + 1 < n; i++) {
        if ((tokens[i] === 'this' || tokens[i] === 'that') && tokens[i + 1] === 'one') {
          ordinals.push(0);
          break;
        }
      }
    }

    const keywords: string[] = [];
    for (let i = 0; i < tokens.length; i++) {
      if (consumed[i]) continue;
      const tok = tokens[i];
      if (tok.length < 3 || CHATTER.has(tok) || CUE_WORDS.has(tok) || STOPWORDS.has(tok) || NEGATORS.has(tok) || /^\d/.test(tok)) continue;
      keywords.push(tok);
    }
    // A category named by a narrower word ("boots" for footwear) keeps that word for retrieval.
    for (const m of mentions) {
      if (m.slot !== 'category' || m.negated) continue;
      const surface = tokens.slice(m.start, m.end);
      if (surface.join(' ') !== m.value.toLowerCase() && folded[m.start] !== foldPlural(m.value.toLowerCase())) {
        for (const w of surface) if (!STOPWORDS.has(w) && !CHATTER.has(w)) keywords.push(w);
      }
    }
    for (let i = 0; i + 1 < n; i++) {
      // "the first two", "the top 2"
      if ((tokens[i] === 'first' || tokens[i] === 'top') && (tokens[i + 1] === 'two' || tokens[i + 1] === '2')) {
        for (const o of [0, 1]) if (!ordinals.includes(o)) ordinals.push(o);
        break;
      }
    }
    return { tokens, folded, mentions, intents, ordinals, maxPrice, minPrice, keywords };
  }
}

/**
 * A mention is negated when a negation word precedes it within NEGATION_WINDOW tokens of the same
 * clause (clauses end at , . ; ! ? and at "but", except in "anything but"). Multi-word cues:
 * "anything but X", "nothing X", "other than X", "instead of X", "rather than X", "less X".
 */
function markNegations(text: string, tokens: string[], starts: number[], ends: number[], mentions: Mention[]): void {
  const n = tokens.length;
  const clauseStart = new Int32Array(n);
  let current = 0;
  for (let i = 1; i < n; i++) {
    let boundary = tokens[i - 1] === 'but' && !(i >= 2 && CLAUSE_BUT_EXCEPTIONS.has(tokens[i - 2]));
    if (!boundary) {
      for (let c = ends[i - 1]; c < starts[i]; c++) {
        const ch = text.charCodeAt(c);
        if (ch === 44 || ch === 46 || ch === 59 || ch === 33 || ch === 63) {
          boundary = true;
          break;
        }
      }
    }
    if (boundary) current = i;
    clauseStart[i] = current;
  }
  for (const m of mentions) {
    const lo = Math.max(clauseStart[m.start], m.start - NEGATION_WINDOW);
    for (let j = m.start - 1; j >= lo; j--) {
      const t = tokens[j];
      if (!NEGATORS.has(t)) continue;
      const next = tokens[j + 1];
      if (t === 'anything') {
        if (next === 'but' || next === 'except') m.negated = true;
      } else if (t === 'other') {
        if (next === 'than') m.negated = true;
      } else if (t === 'less') {
        if (j + 1 === m.start) m.negated = true;
      } else if (t === 'instead') {
        if (next === 'of') m.negated = true;
      } else m.negated = true;
      if (m.negated) break;
    }
    if (!m.negated && m.start >= 2 && tokens[m.start - 1] === 'than' && tokens[m.start - 2] === 'rather') m.negated = true;
  }
}

/**
 * Single words that name a value only in some contexts: "could work" is not the occasion "work",
 * "they run small" is not "running".
 */
const VERB_CONTEXT = new Set([
  'could', 'would', 'will', 'should', 'might', 'may', 'can', 'does', "doesn't", 'do', "don't", 'did', "didn't", 'also',
  'not', 'that', 'it', 'this', 'they', 'these', 'those', 'which', 'still', "won't", "wouldn't", "couldn't", 'to', 'might',
]);
const CONTEXT_SENSITIVE = new Set(['work', 'works', 'run', 'runs']);

function blockedByContext(token: string, previous: string | undefined): boolean {
  return previous !== undefined && CONTEXT_SENSITIVE.has(token) && VERB_CONTEXT.has(previous);
}

const CLAUSE_BUT_EXCEPTIONS = new Set(['anything', 'nothing', 'all']);
