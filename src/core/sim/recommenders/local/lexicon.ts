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
import { catalogWords } from '../../../catalog/features';
import type { Catalog, CatalogItem } from '../../../catalog/item';
import { ORDINAL_POSITIONS } from '../../../text/ordinals';
import { STOPWORDS } from '../../../text/stopwords';
import { NEGATED_COPULAS, NEGATION_WORDS, NEGATOR_PAIRS, NEGATORS } from '../../../text/negation';
import { foldPlural, tokenize, tokenizeSpans } from '../../../text/tokenize';

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

/** Words after a position that name the item it points at ("the second one", "the first pick"). */
const POSITION_HEADS = new Set(['one', 'item', 'option', 'pick']);

/**
 * Nouns after "the first" / "the last" ... that make it an ordinary phrase, not a pointer at the
 * carousel ("the first time I shop here", "the last thing I need", "at the first sign of rain").
 */
const NOT_POSITION_HEADS = new Set([
  'time',
  'times',
  'thing',
  'things',
  'step',
  'steps',
  'day',
  'days',
  'week',
  'month',
  'year',
  'sign',
  'signs',
  'place',
  'impression',
  'glance',
  'half',
  'part',
  'date',
  'visit',
  'question',
  'minute',
  'moment',
]);

/**
 * The carousel items an utterance points at by their place: an ordinal word ("first", "2nd",
 * "last"; `ORDINAL_POSITIONS`) after "the", "that" or "this", or before "one" / "item" / "option"
 * / "pick" ("the second one", "the first", "third one"). The span takes in the article and the
 * head word, so a negation before it ("not the second one") is read as for a typed title. A bare
 * ordinal ("at first") points at nothing, nor does one before a noun of time or order ("the first
 * time", `NOT_POSITION_HEADS`).
 */
function positionReferences(tokens: readonly string[], carousel: readonly CatalogItem[]): ItemReference[] {
  const out: ItemReference[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const pos = ORDINAL_POSITIONS[tokens[i]];
    if (pos === undefined) continue;
    const article = i > 0 && (tokens[i - 1] === 'the' || tokens[i - 1] === 'that' || tokens[i - 1] === 'this');
    const head = i + 1 < tokens.length && POSITION_HEADS.has(tokens[i + 1]);
    if (!article && !head) continue;
    if (!head && i + 1 < tokens.length && NOT_POSITION_HEADS.has(tokens[i + 1])) continue;
    const at = pos < 0 ? carousel.length + pos : pos;
    if (at < 0 || at >= carousel.length) continue;
    out.push({ item: carousel[at], start: article ? i - 1 : i, end: head ? i + 2 : i + 1 });
  }
  return out;
}

/** Mentions that are not inside any of the spans (words of a typed item title are not preferences). */
export function mentionsOutside(
  mentions: readonly Mention[],
  spans: readonly { start: number; end: number }[],
): Mention[] {
  if (spans.length === 0) return mentions.slice();
  return mentions.filter((m) => !spans.some((s) => m.start < s.end && m.end > s.start));
}

/**
 * Conversational cues. accept/reject/like: about shown items; more/list/back/similar: navigation
 * requests; compare/detail/repeat: questions about what is shown; nopref: "I don't mind";
 * expand: "... would also work" (add a value instead of replacing); note: a non-committal remark.
 */
export type Intent =
  | 'accept'
  | 'reject'
  | 'more'
  | 'question'
  | 'greet'
  | 'thanks'
  | 'bye'
  | 'like'
  | 'cheaper'
  | 'pricier'
  | 'nopref'
  | 'expand'
  | 'list'
  | 'similar'
  | 'compare'
  | 'detail'
  | 'repeat'
  | 'back'
  | 'note';

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
  /**
   * Content words that are not slot values, cue words or chatter, and that the catalog knows as
   * words of its items (`catalogWords`: values and features), so the same request in other words
   * ("ooh", "honestly", "bonus marks for") keeps the same keywords.
   */
  keywords: string[];
  /**
   * The other free words (not slot values, cue words or chatter), which the catalog does not know:
   * never a wish (scripts/agent-frames.ts reads them to keep out any frame with a word of the
   * items' text).
   */
  unknownWords: string[];
  /** Slots the user no longer minds about ("any colour is fine", "I'm flexible on the material"). */
  relaxed: string[];
}

/** Extra surface forms per value (value spelled as in the synthetic catalog, lowercase). */
const SYNONYMS: Record<string, string[]> = {
  // categories
  footwear: ['shoes', 'shoe', 'footwear', 'boots', 'boot'],
  outerwear: ['jacket', 'coat', 'outerwear', 'outer wear'],
  tops: ['top', 'tops'],
  bottoms: ['bottoms', 'bottom'],
  dresses: ['dress', 'gown'],
  activewear: [
    'sportswear',
    'athletic wear',
    'athleisure',
    'gym clothes',
    'workout clothes',
    'active wear',
    'sports clothes',
  ],
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
  'mid-range': [
    'mid range',
    'midrange',
    'moderate',
    'moderately priced',
    'reasonably priced',
    'reasonable price',
    'mid priced',
    'average price',
  ],
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

/** A negation word followed by one of these is not a negation ("don't mind", "not sure", "nothing but"). */
const NEGATION_CANCELS = new Set([
  'mind',
  'care',
  'matter',
  'matters',
  'bother',
  'bothered',
  'sure',
  'know',
  'only',
  'just',
  'necessarily',
  'problem',
  'worries',
  'preference',
  'opposed',
  'against',
  'but',
  'fussed',
  'picky',
]);
/** Words that end a negation's reach: a new, positive clause starts ("not black but navy", "... so maybe"). */
const SCOPE_END = new Set([
  'but',
  'so',
  'though',
  'although',
  'because',
  'since',
  'yet',
  'instead',
  'prefer',
  'preferably',
  'ideally',
  'rather',
  'maybe',
  'perhaps',
]);
/** Words that end a negation's reach once it has negated a value ("no heels please", "not black, just navy"). */
const SCOPE_END_AFTER_VALUE = new Set([
  'want',
  'wants',
  'need',
  'like',
  'love',
  'please',
  'just',
  'only',
  'show',
  'thanks',
]);
/** After "and"/"or", these start a new clause ("I dislike wool and I want cotton"). */
const CLAUSE_SUBJECTS = new Set([
  'i',
  "i'm",
  "i'd",
  "i'll",
  'im',
  'id',
  'we',
  "we're",
  'you',
  'it',
  "it's",
  'they',
  'show',
  'give',
  'make',
  "let's",
  'lets',
  'maybe',
  'something',
  'can',
  'could',
  'would',
  'please',
  'just',
  'ideally',
]);
/** Words that may sit between the values of a negated list ("no black, navy or grey", "anything in the budget price range"). */
const LIST_FILLERS = new Set([
  'a',
  'an',
  'the',
  'in',
  'for',
  'from',
  'like',
  'of',
  'any',
  'anything',
  'too',
  'either',
  'colour',
  'color',
  'ones',
  'one',
  'stuff',
  'things',
  'price',
  'range',
  'made',
  'with',
  'really',
  'very',
  'that',
  'is',
  'are',
  'type',
]);
const CONJUNCTIONS = new Set(['or', 'nor', 'and']);
/** Copulas before a post-posed negation ("leather is not for me"). */
const COPULAS = new Set(['is', 'are', 'was', 'were']);
// Phrases checked against " tokens joined by spaces " (so word boundaries hold).
const CUES: Record<Intent, string[]> = {
  accept: [
    "i'll take",
    'ill take',
    'i will take',
    "i'd take",
    'take it',
    'take this',
    'take that',
    'take the',
    "i'll buy",
    'i will buy',
    'buy it',
    'buy this',
    'buy that',
    'buy the',
    'buy one',
    // the verb, not the noun ("my last purchase taught me to check" takes nothing)
    "i'll purchase",
    'i will purchase',
    'purchase it',
    'purchase this',
    'purchase that',
    'purchase the',
    'add to cart',
    'add it to',
    'order it',
    'order this',
    "i'll go with",
    'go with the',
    'go with this',
    'go with that',
    "i'll get",
    'i will get',
    "that's the one",
    'this is the one',
    'sold',
    'exactly what i',
    'i accept',
    'accept the',
    'accept this',
    'i choose',
    "i'll choose",
    "i'd like to buy",
    'want to buy',
    'checkout',
    'check out',
  ],
  reject: [
    // (seventeenth round, users' wordings read as nothing or as taking the item: "Not sold on X",
    // "X isn't my cup of tea", "doesn't quite make it", "looks too busy")
    'not sold on',
    "isn't my cup of tea",
    'not my cup of tea',
    "doesn't quite make it",
    "doesn't make it",
    'too busy',
    // the target-free user's "none of these" (Pepper.None; thirteenth round: 138 of 600 wordings
    // carried no cue, and the carousel stayed on screen: "Keep browsing, or tune the brief?")
    'lukewarm on',
    "don't grab",
    "don't land",
    "don't click",
    "can't picture myself",
    "aren't it",
    'not a single one',
    'miss the mark',
    'nothing here',
    'nothing in this batch',
    'not one of them',
    "aren't striking",
    "don't like",
    'do not like',
    'dont like',
    "doesn't look",
    'not what',
    'none of',
    'not really',
    'not these',
    'not those',
    'something else',
    'something different',
    'no thanks',
    'not quite',
    'not for me',
    "don't want",
    'do not want',
    'dislike',
    'hate',
    'nope',
    'not interested',
    "doesn't work",
    'not my style',
    'not a fan',
    'not great',
    "aren't right",
    "isn't right",
    'not right',
    'wrong',
    'ugly',
    'not it',
    "don't love",
    'not keen',
    'pass on',
    // passing on one item ("<item> almost had me, but I'll pass", "I'll give <item> a miss", "<item>
    // can wait", "I'll browse on"): the item is turned down and others are wanted
    "i'll pass",
    'a pass from me',
    'a miss',
    'can wait',
    "i'll look further",
    "i'll browse on",
    "i'll look on",
    "i'll wait",
    // "I'll let <item> go"
    "i'll let",
    // owning it already ("I own the second one", "I actually have that one", "I bought it last year")
    'i own',
    'actually own',
    'happen to own',
    'actually have',
    'happen to have',
    'i have the',
    'i have that',
    'i bought the',
    'i bought that',
    'i got the',
    'i got that',
    // an opinion against it ("the second one misses the mark", "... is a hard pass")
    'not that one',
    'misses the mark',
    'disappointing',
    'disappoints',
    'unimpressed',
    'underwhelming',
    'off-putting',
    'puts me off',
    "doesn't grab",
    "doesn't appeal",
    "doesn't do it",
    "isn't doing it",
    "isn't my thing",
    "isn't great",
    "isn't quite right",
    'bores me',
    'a skip',
    'a pass',
    'a hard pass',
    'too garish',
    'bit bland',
    'looks dull',
    'looks frumpy',
    'looks tacky',
    'seems dated',
    'seems boring',
    'is meh',
    "don't fancy",
    'rather not have',
    "isn't for me",
    "aren't for me",
  ],
  more: [
    'more',
    'other options',
    'anything else',
    'others',
    'alternatives',
    'different ones',
    'next',
    'another',
    'else',
    // the built-in users' requests for more (thirteenth round: "Any other ideas?", "Do you have any
    // other recommendations?" and "Onwards." got facts about one item or the same carousel back)
    'other ideas',
    'other recommendations',
    'other suggestions',
    'other picks',
    'onwards',
    'anymore',
    'more suggestions',
    'further along',
  ],
  question: [],
  greet: ['hi', 'hello', 'hey', 'good morning', 'good afternoon', 'good evening', 'greetings', 'howdy'],
  thanks: ['thanks', 'thank you', 'thx', 'cheers', 'appreciate', 'much appreciated', 'ta for'],
  bye: [
    'bye',
    'stop looking',
    'goodbye',
    "that's all",
    'that is all',
    "i'm done",
    'im done',
    'done for today',
    'see you',
    'have a good',
    'leave it',
    'give up',
    'forget it',
    'never mind',
    'nevermind',
    'look elsewhere',
    // every way the built-in users say goodbye, complete or leave (thirteenth round: "Farewell",
    // "Take care", "I'll stop here", "I'll try elsewhere" were read as nothing and answered with
    // another carousel)
    'farewell',
    'take care',
    'cheerio',
    'ciao',
    'ta ra',
    'tata',
    'all the best',
    'signing off',
    'come back later',
    'mull it over',
    "so i'm off",
    'call it quits',
    'bowing out',
    'shop around',
    'try elsewhere',
    'try another shop',
    'try another website',
    'try another store',
    'ask a friend',
    'stop here',
    'stop there',
    'give it a rest',
    'getting nowhere',
    'going nowhere',
    "isn't going anywhere",
    'not getting anywhere',
    "hasn't got me anywhere",
    "won't find it",
    'out of patience',
    "you've lost me",
    'good speaking',
    'thanks anyway',
    'thanks all the same',
    'cheers anyway',
    'appreciated anyway',
    'lost interest',
    'patience is gone',
    'dragging on',
    "i'll be off",
    "i've lost interest",
    'heading off',
    'laters',
    'toodle oo',
    'pop into town',
    'check the other shop',
    'on my own',
    "i'm fed up",
    "i'm frustrated",
    'not listening',
    "isn't what i asked for",
    'sleep on it',
    "don't think i'll find it",
    "that'll do me",
    'sorted for now',
    "that's everything for",
    'that is everything for',
    'have a great',
  ],
  like: [
    'like',
    'love',
    'nice',
    'great',
    'good',
    'cool',
    'awesome',
    'pretty',
    'beautiful',
    'gorgeous',
    'lovely',
    'cute',
    'interesting',
    'perfect',
  ],
  cheaper: [
    'cheaper',
    'less expensive',
    'too expensive',
    'too pricey',
    'lower price',
    'more affordable',
    'cost less',
    'pricey',
    'over my budget',
  ],
  pricier: [
    'more expensive',
    'higher quality',
    'better quality',
    'fancier',
    'too cheap',
    'something nicer',
    'bit nicer',
    'little nicer',
  ],
  nopref: [
    "don't mind",
    'dont mind',
    'do not mind',
    "don't really mind",
    'no preference',
    'you pick',
    "doesn't matter",
    'does not matter',
    'anything is fine',
    'any is fine',
    'either is fine',
    'whatever',
    'up to you',
    'not sure',
    "don't care",
    'dont care',
    'surprise me',
  ],
  expand: ['also work', 'would also', 'as well', 'open to', 'too'],
  list: [
    // (not a bare "options": "What's its material? I'm comparing a few options." asks about the
    // item, 31 of 1,096 item questions were answered with a new list; seventeenth round review)
    'some options',
    'any options',
    'other options',
    'more options',
    'your options',
    'the options',
    'options for',
    'what options',
    'are my options',
    'show me',
    'what do you have',
    'can i see',
    'what do you recommend',
    'recommend',
    'what have you got',
    'suggestions',
  ],
  // (seventeenth round, review: "got more resembling X?", "others in that spirit?", "in the style of
  // X" were read as a request for more items, 115 of 346 requests for similar ones unanswered)
  similar: [
    'similar',
    'more like',
    'something like',
    'like that one',
    'like this one',
    'same style',
    'resembling',
    'in the vein of',
    'akin to',
    'comparable to',
    'in the style of',
    'in that spirit',
    'anything close to',
    'something close to',
  ],
  // (thirteenth round: "how do X and Y differ?", "which do you rate higher?", "which would you pick?"
  // of two items were read as no comparison, 66 of 600 wordings)
  compare: [
    'compare',
    'difference',
    'versus',
    'vs',
    'which is better',
    'better one',
    'differ',
    'rate higher',
    'which would you pick',
    'which would you choose',
    'which do you prefer',
  ],
  detail: ['tell me more', 'more about', 'details', 'more info', 'more information'],
  repeat: [
    'say that again',
    'what do you mean',
    "didn't get",
    'didnt get',
    'come again',
    // the built-in users' "say that again" (thirteenth round: 74 of 400 wordings carried no cue;
    // "Pardon?" below, not "pardon me")
    'missed that',
    'lost the thread',
    'missed the thread',
    'rephrase',
    'that another way',
    'that differently',
    'repeat',
    "don't understand",
    'confused',
  ],
  back: [
    'go back',
    'earlier ones',
    'previous',
    'ones before',
    'from before',
    'shown before',
    'the ones from',
    'showed before',
    'first ones',
  ],
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
  'what',
  'which',
  'how',
  'does',
  'do',
  'is',
  'are',
  'can',
  'could',
  'would',
  'will',
  'why',
  'where',
  'when',
  'who',
  'any',
  'have',
]);

// Words never kept as free keywords: chatter, cue words and generic shopping words.
const CHATTER = new Set([
  'want',
  'wanted',
  'looking',
  'look',
  'looks',
  'need',
  'needs',
  'like',
  'likes',
  'love',
  'find',
  'show',
  'shows',
  'showing',
  'get',
  'prefer',
  'pair',
  'pairs',
  'one',
  'ones',
  'please',
  'also',
  'buy',
  'take',
  'purchase',
  'something',
  'anything',
  'item',
  'items',
  'option',
  'options',
  'thing',
  'things',
  'good',
  'great',
  'nice',
  'cool',
  'best',
  'new',
  'shopping',
  'shop',
  'wear',
  'wearing',
  'maybe',
  'mostly',
  'really',
  'actually',
  'instead',
  'else',
  'more',
  'other',
  'others',
  'another',
  'thanks',
  'thank',
  'hi',
  'hello',
  'hey',
  'bye',
  'sure',
  'fine',
  'first',
  'second',
  'third',
  'last',
  'color',
  'colour',
  'colors',
  'colours',
  'price',
  'budget',
  'style',
  'material',
  'size',
  'kind',
  'type',
  'sort',
  'perfect',
  'ideally',
  'preferably',
  'go',
  'going',
  'let',
  'lets',
  "let's",
  'see',
  'got',
  'much',
  'many',
  'think',
  'thinking',
  'would',
  'like',
  'dollars',
  'usd',
  'bucks',
  'around',
  'under',
  'below',
  'less',
  'cheaper',
  'max',
  'maximum',
  'over',
  'above',
  'least',
  'okay',
  'ok',
  'yes',
  'yeah',
  'no',
  'nope',
  'these',
  'those',
  'this',
  'that',
  'them',
  'it',
  'something',
  'interested',
  'made',
  'make',
  'tell',
  'know',
  'does',
  'come',
  'comes',
  'available',
  'cost',
  'costs',
  'sounds',
  'seems',
  'ones',
  'pick',
  'suggest',
  'recommend',
  'recommendation',
  'recommendations',
  'help',
  'today',
  'right',
  'well',
  'still',
  'just',
  'bit',
  'little',
  'sorry',
  'mean',
  'again',
  'fan',
  'keen',
  'mind',
  'care',
  'matter',
  'tell',
  'ideally',
  'something',
  'got',
  'need',
  'needs',
  'new',
  'also',
  'would',
  'could',
  'please',
  'thing',
  'few',
  'some',
  'any',
  'lot',
  'lots',
  'way',
  'ones',
  'kinda',
  'sort',
  'range',
  'band',
]);

const LESS_MORE_ADJ = new Set([
  'expensive',
  'affordable',
  'formal',
  'casual',
  'colorful',
  'colourful',
  'fitted',
  'relaxed',
]);

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
  /** The proper prefixes (1 .. n-1 folded tokens) of every phrase of n > 1 tokens: `parse` stops extending a match that no phrase continues. */
  private readonly phrasePrefixes = new Set<string>();
  /** type value -> its category, when the type occurs in exactly one category. */
  readonly typeCategory = new Map<string, string>();
  /** The slots this catalog knows: "category" and its attribute names. */
  readonly slots: readonly string[];
  /** category -> slot -> values that occur in that category (sorted). */
  private readonly categoryValues = new Map<string, Map<string, string[]>>();
  private readonly catalog: Catalog;
  /** The catalog's words (`catalogWords`): the only free words `parse` keeps as keywords. */
  private readonly words: ReadonlySet<string>;

  private static readonly build = (catalog: Catalog): Lexicon => new Lexicon(catalog);

  /** The lexicon of a catalog (built once per catalog, kept by it, shared by every session). */
  static for(catalog: Catalog): Lexicon {
    return catalog.derived(Lexicon.build);
  }

  private constructor(catalog: Catalog) {
    this.catalog = catalog;
    this.words = catalogWords(catalog);
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
    for (const cat of catalog.categories())
      for (const syn of SYNONYMS[cat.toLowerCase()] ?? []) this.addPhrase(syn, 'category', cat, false);
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
    for (let len = 1; len < tokens.length; len++) this.phrasePrefixes.add(phraseKey(tokens.slice(0, len)));
  }

  private readonly titleTokens = new WeakMap<CatalogItem, string[]>();

  /**
   * Shown items the user named, in the order they appear in the utterance, with their token spans:
   * by their title (typed as a contiguous run of words) among `items`, and, when `carousel` (the
   * items on screen, in order) is given, by their place in it ("the second one", "the first",
   * "that third one"; see `positionReferences`). A position inside a typed title is the title's.
   */
  findItems(
    parsed: ParsedUtterance,
    items: readonly CatalogItem[],
    carousel?: readonly CatalogItem[],
  ): ItemReference[] {
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
    if (carousel?.length)
      for (const r of positionReferences(parsed.tokens, carousel))
        if (!refs.some((q) => q.start < r.end && r.start < q.end)) refs.push(r);
    refs.sort((a, b) => a.start - b.start);
    return refs;
  }

  /**
   * Whether the lexicon reads nothing in `text`: no attribute value or category, no intent cue,
   * no item position and no price. A user's words about an item (a feature it likes) must pass, or
   * an agent would hear a wish the user never made ("four-way stretch" reads as spandex).
   */
  readsNothing(text: string): boolean {
    const p = this.parse(text);
    return (
      p.mentions.length === 0 &&
      p.intents.size === 0 &&
      p.ordinals.length === 0 &&
      p.maxPrice === undefined &&
      p.minPrice === undefined &&
      p.relaxed.length === 0
    );
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
    for (let i = 0; i < n;) {
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
        // No phrase goes on from here, so no longer match exists.
        if (len < limit && !this.phrasePrefixes.has(key)) break;
      }
      if (targets && matched === 1 && blockedByContext(tokens[i], tokens[i - 1])) targets = undefined;
      if (targets) {
        for (const t of targets)
          mentions.push({ slot: t.slot, value: t.value, start: i, end: i + matched, negated: false });
        for (let j = i; j < i + matched; j++) consumed[j] = 1;
        i += matched;
      } else i++;
    }
    if (mentions.length) markNegations(spans.text, tokens, spans.starts, spans.ends, mentions);

    const intents = new Set<Intent>();
    // A cue is read within a clause: "give or take, the second" and "if you want my take, the
    // third is lovely" hold no "take the" (the users' hedges were read as accepting the item).
    const clauseEnd = (k: number) => /[,;:.!?]/.test(spans.text.slice(spans.ends[k], spans.starts[k + 1]));
    for (let i = 0; i < n; i++) {
      const cues = CUE_INDEX.get(tokens[i]);
      if (!cues) continue;
      for (const [intent, rest] of cues) {
        if (intents.has(intent) || i + rest.length >= n + (rest.length ? 0 : 1)) continue;
        let ok = true;
        for (let j = 0; j < rest.length; j++) {
          if (tokens[i + 1 + j] !== rest[j] || clauseEnd(i + j)) {
            ok = false;
            break;
          }
        }
        if (ok) intents.add(intent);
      }
    }
    if (utterance.includes('?') || (n > 0 && QUESTION_STARTS.has(tokens[0]))) intents.add('question');
    // "Huh?" alone asks to hear it again; "Huh, how does A compare to B?" opens with a filler
    // (thirteenth round: the users' leads made every such turn a "say that again")
    if ((n === 1 && tokens[0] === 'huh') || /\bpardon\s*\?/i.test(utterance)) intents.add('repeat');
    // "like"/"love" in "I'd like boots" is a request, not praise: the agents only read it as
    // praise when nothing else was said.
    if (intents.has('like') && intents.has('reject')) intents.delete('like');
    // "not sold on X" turns it down: "sold" alone is taking it
    for (let i = 0; i + 1 < n; i++)
      if ((tokens[i] === 'not' || tokens[i] === "n't") && tokens[i + 1] === 'sold') intents.delete('accept');
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
      const ord = ORDINAL_POSITIONS[tok];
      if (ord !== undefined && !consumed[i]) ordinals.push(ord);
      if ((tok === 'number' || tok === 'item' || tok === 'option' || tok === 'no') && i + 1 < tokens.length) {
        const n = Number(tokens[i + 1]);
        if (Number.isInteger(n) && n >= 1 && n <= 50) ordinals.push(n - 1);
      }
      if (/^\d+(?:\.\d+)?$/.test(tok)) {
        const n = Number(tok);
        const prev = tokens[i - 1] ?? '';
        const prev2 = tokens[i - 2] ?? '';
        if (
          PRICE_MAX_CUES.has(prev) ||
          (prev === 'to' && prev2 === 'up') ||
          (prev === 'than' && (prev2 === 'less' || prev2 === 'cheaper'))
        )
          maxPrice = n;
        else if (PRICE_MIN_CUES.has(prev) || (prev === 'than' && prev2 === 'more')) minPrice = n;
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

    const relaxed = relaxedSlots(tokens).filter((s) => this.slots.includes(s));
    // "any gender is fine" lets the gender go: the phrase "any gender" is then no wish for unisex.
    if (relaxed.length) {
      for (let k = mentions.length - 1; k >= 0; k--) {
        const m = mentions[k];
        if (relaxed.includes(m.slot) && tokens.slice(m.start, m.end).some((t) => ATTRIBUTE_WORDS[t] === m.slot))
          mentions.splice(k, 1);
      }
    }
    const keywords: string[] = [];
    const unknownWords: string[] = [];
    for (let i = 0; i < tokens.length; i++) {
      if (consumed[i]) continue;
      const tok = tokens[i];
      if (relaxed.length && ATTRIBUTE_WORDS[tok] !== undefined) continue;
      if (
        tok.length < 3 ||
        CHATTER.has(tok) ||
        CUE_WORDS.has(tok) ||
        STOPWORDS.has(tok) ||
        NEGATION_WORDS.has(tok) ||
        /^\d/.test(tok)
      )
        continue;
      (this.words.has(foldPlural(tok)) ? keywords : unknownWords).push(tok);
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
    return { tokens, folded, mentions, intents, ordinals, maxPrice, minPrice, keywords, unknownWords, relaxed };
  }
}

/**
 * Marks the mentions the user negated. A negation word (NEGATORS, or a pair such as "anything
 * but", "other than", "can't stand") negates the values that follow it in its clause: the first
 * within the opener's gap, then every further value of a list joined by "or"/"nor", by "and" when
 * the values fill the same slot ("no black and navy", but "without heels and in black" keeps
 * black), and across commas when the rest of the clause is only such a list ("no black, navy or
 * grey", but "not black, navy please" keeps navy). The reach ends at . ; ! ?, at words that start a
 * positive clause (SCOPE_END: "but", "so", "want", "please"...) and at "and I ...". A category or
 * type right after a negated value is the noun it describes and stays wanted ("no leather boots").
 * Negations followed by a cancelling word are not negations ("don't mind", "nothing but").
 * Post-posed negations negate the values the clause opens with: "leather is not for me", "the
 * black ones aren't great", "pink, no thanks". "less X" negates X.
 */
function markNegations(text: string, tokens: string[], starts: number[], ends: number[], mentions: Mention[]): void {
  const n = tokens.length;
  // Punctuation between token i-1 and token i: 2 = . ; ! ?  1 = comma, 0 = none.
  const punct = new Uint8Array(n + 1);
  for (let i = 1; i < n; i++) {
    for (let c = ends[i - 1]; c < starts[i]; c++) {
      const ch = text.charCodeAt(c);
      if (ch === 46 || ch === 59 || ch === 33 || ch === 63) punct[i] = 2;
      else if (ch === 44 && punct[i] === 0) punct[i] = 1;
    }
  }
  punct[n] = 2;
  // Mentions starting at each token (several when a word names values of several slots).
  const at: (Mention[] | undefined)[] = new Array(n);
  for (const m of mentions) (at[m.start] ??= []).push(m);

  /** Does the text from token k (just after a comma) continue a negated list up to an "or"/"nor"/"and" value? */
  const listContinues = (k: number): boolean => {
    let sawConj = false;
    for (let i = k; i < n;) {
      if (i > k && punct[i] === 2) return false;
      const ms = at[i];
      if (ms) {
        if (sawConj) return true;
        i = ms[0].end;
        continue;
      }
      if (CONJUNCTIONS.has(tokens[i])) sawConj = true;
      else if (!LIST_FILLERS.has(tokens[i])) return false;
      i++;
    }
    return false;
  };

  const negateFrom = (k: number, firstGap: number): void => {
    let gap = 0;
    let maxGap = firstGap;
    let prev: Mention | undefined;
    let prevEnd = -1;
    let conj = '';
    for (let i = k; i < n;) {
      if (i > k && punct[i] === 2) return;
      if (i > k && punct[i] === 1 && !listContinues(i)) return;
      const ms = at[i];
      if (ms) {
        const m = ms[0];
        if (prev && conj === 'and' && !ms.some((x) => x.slot === prev!.slot)) return;
        const head = prev !== undefined && prevEnd === i && (m.slot === 'category' || m.slot === 'type');
        if (!head) for (const x of ms) x.negated = true;
        if (!head || prev === undefined) prev = m;
        prevEnd = m.end;
        i = m.end;
        gap = 0;
        maxGap = 6;
        conj = '';
        continue;
      }
      const t = tokens[i];
      if (SCOPE_END.has(t)) return;
      // "like" introduces a value in "anything like sneakers", "or like sneakers"
      if (
        prev !== undefined &&
        SCOPE_END_AFTER_VALUE.has(t) &&
        !(t === 'like' && (CONJUNCTIONS.has(tokens[i - 1]) || tokens[i - 1] === 'anything'))
      )
        return;
      if (CONJUNCTIONS.has(t)) {
        if (i + 1 < n && CLAUSE_SUBJECTS.has(tokens[i + 1])) return;
        conj = t;
      }
      if (++gap > maxGap) return;
      i++;
    }
  };

  for (let j = 0; j < n; j++) {
    const t = tokens[j];
    let open = -1;
    let gap = 6;
    const pair = NEGATOR_PAIRS.get(t);
    if (pair && j + 1 < n && pair.has(tokens[j + 1]) && punct[j + 1] === 0) {
      open = j + 2;
      gap = 3;
    } else if (NEGATORS.has(t)) {
      // "not" after a copula may be post-posed ("leather is not for me"); it also negates forward
      let next = j + 1;
      while (
        next < n &&
        (tokens[next] === 'really' || tokens[next] === 'too' || tokens[next] === 'that') &&
        punct[next] === 0
      )
        next++;
      if (next < n && punct[next] === 0 && NEGATION_CANCELS.has(tokens[next])) continue;
      open = j + 1;
      gap = NEGATORS.get(t)!;
    } else if (t === 'less' && at[j + 1] && punct[j + 1] === 0) {
      for (const m of at[j + 1]!) m.negated = true;
      continue;
    }
    if (open < 0 || open >= n || punct[open] !== 0) continue;
    negateFrom(open, gap);
  }

  // Post-posed negations: the values a clause opens with, before "is not", "isn't", ", no thanks".
  for (let p = 1; p < n; p++) {
    const t = tokens[p];
    let end = -1; // the chain of values ends before this token
    if (NEGATED_COPULAS.has(t) && punct[p] === 0) end = p;
    else if (t === 'not' && COPULAS.has(tokens[p - 1]) && punct[p] === 0 && punct[p - 1] === 0) end = p - 1;
    else if (t === 'no' && (tokens[p + 1] === 'thanks' || tokens[p + 1] === 'thank') && punct[p] === 1) end = p;
    if (end < 1) continue;
    const chain: Mention[][] = [];
    let i = end - 1;
    let ok = true;
    for (; i >= 0; i--) {
      const ms = mentions.filter((m) => m.end === i + 1);
      if (ms.length) {
        chain.push(ms);
        i = ms[0].start;
      } else if (
        !LIST_FILLERS.has(tokens[i]) &&
        !CONJUNCTIONS.has(tokens[i]) &&
        !['those', 'these', 'this', 'also', 'hmm', 'oh', 'um', 'honestly'].includes(tokens[i])
      ) {
        ok = tokens[i] === 'but' || tokens[i] === 'and' || tokens[i] === 'so';
        break;
      }
      if (punct[i] !== 0) break;
    }
    if (!ok || chain.length === 0) continue;
    chain.reverse();
    for (let c = 0; c < chain.length; c++) {
      const ms = chain[c];
      const head = c > 0 && chain[c - 1][0].end === ms[0].start && (ms[0].slot === 'category' || ms[0].slot === 'type');
      if (!head) for (const m of ms) m.negated = true;
    }
  }
}

/** Words naming an attribute (as users say them) -> the slot. */
const ATTRIBUTE_WORDS: Record<string, string> = {
  colour: 'colour',
  color: 'colour',
  colours: 'colour',
  colors: 'colour',
  shade: 'colour',
  material: 'material',
  materials: 'material',
  fabric: 'material',
  style: 'style',
  occasion: 'occasion',
  price: 'price_band',
  budget: 'price_band',
  band: 'price_band',
  brand: 'brand',
  brands: 'brand',
  type: 'type',
  kind: 'type',
  gender: 'gender',
  cut: 'gender',
};

/** Words after which an imperative ("ignore the colour") still opens its clause. */
const CLAUSE_OPENERS = new Set(['just', 'so', 'ok', 'okay', 'well', 'actually', 'and', 'then', 'please', 'oh']);

/**
 * Whether `token` is `word` or `word` with one slip of a typist inside it (two neighbouring letters
 * swapped, one dropped or one doubled; the first and last letters kept): "aobut", "worr", "cruccial".
 * Used for the words that carry a relaxation, whose meaning a slip does not change for a reader.
 */
function isWordOrSlip(token: string | undefined, word: string): boolean {
  if (token === undefined) return false;
  if (token === word) return true;
  if (word.length < 4 || token[0] !== word[0] || token[token.length - 1] !== word[word.length - 1]) return false;
  const d = token.length - word.length;
  if (d === 0) {
    // one swap of neighbours
    let i = 0;
    while (token[i] === word[i]) i++;
    return token[i] === word[i + 1] && token[i + 1] === word[i] && token.slice(i + 2) === word.slice(i + 2);
  }
  if (d === -1 || d === 1) {
    // one letter dropped (d = -1) or doubled (d = 1)
    const [short, long] = d === -1 ? [token, word] : [word, token];
    let i = 0;
    while (i < short.length && short[i] === long[i]) i++;
    return short.slice(i) === long.slice(i + 1) && (d === -1 || long[i + 1] === long[i] || long[i - 1] === long[i]);
  }
  return false;
}

/**
 * Slots the user lets go of: "any colour is fine", "I'm flexible on the material", "don't worry
 * about the style (so much)", "the price band doesn't matter", "not fussed about the brand", "the
 * colour is open", "the style can vary", "the brand isn't crucial". The words that carry the
 * relaxation are read through a typist's slip ("don't worry aobut the colour").
 */
function relaxedSlots(tokens: readonly string[]): string[] {
  const out: string[] = [];
  const n = tokens.length;
  /** The nearest attribute word among the `span` tokens before i, or -1. */
  const attrBefore = (i: number, span: number): number => {
    for (let j = i - 1; j >= Math.max(0, i - span); j--) if (ATTRIBUTE_WORDS[tokens[j]] !== undefined) return j;
    return -1;
  };
  const add = (i: number) => {
    // "price band", "price range" name one attribute
    const slot = ATTRIBUTE_WORDS[tokens[i]];
    if (slot !== undefined && !out.includes(slot)) out.push(slot);
  };
  /** Index of the attribute word at i (skipping "the", "my"), or -1. */
  const attrAt = (i: number): number => {
    while (
      i < n &&
      (tokens[i] === 'the' ||
        tokens[i] === 'my' ||
        isWordOrSlip(tokens[i], 'about') ||
        tokens[i] === 'on' ||
        tokens[i] === 'with' ||
        tokens[i] === 'too' ||
        tokens[i] === 'much')
    )
      i++;
    return i < n && ATTRIBUTE_WORDS[tokens[i]] !== undefined ? i : -1;
  };
  for (let i = 0; i < n; i++) {
    const t = tokens[i];
    let a = -1;
    if (t === 'any' || t === 'whatever') {
      a = attrAt(i + 1);
      if (a >= 0) {
        const rest = tokens.slice(a + 1, a + 5).join(' ');
        if (!/\b(?:band |range )?(?:is |would be |will )?(?:fine|ok|okay|works|work|do|good|great)\b/.test(rest))
          a = -1;
      }
    } else if (['flexible', 'fussed', 'fussy', 'bothered', 'picky'].some((w) => isWordOrSlip(t, w))) {
      a = attrAt(i + 1);
      if (a >= 0 && !isWordOrSlip(t, 'flexible') && !['not', "i'm", 'im', 'really'].includes(tokens[i - 1] ?? ''))
        a = -1;
    } else if ((t === 'ignore' || t === 'skip' || t === 'drop') && (i === 0 || CLAUSE_OPENERS.has(tokens[i - 1]))) {
      // "Ignore the colour, I was being too picky", "skip the material"
      a = attrAt(i + 1);
    } else if (
      (isWordOrSlip(t, 'negotiable') && !['not', "isn't", 'isnt', 'non'].includes(tokens[i - 1] ?? '')) ||
      (t === 'deal' && tokens[i - 1] === 'big' && (tokens[i - 3] === 'not' || tokens[i - 2] === 'no'))
    ) {
      // "the colour is negotiable", "the style is not a big deal", "material's no big deal"
      for (let j = i - 1; j >= Math.max(0, i - 6); j--)
        if (ATTRIBUTE_WORDS[tokens[j]] !== undefined) {
          a = j;
          break;
        }
    } else if (
      (t === 'open' && ['is', "'s"].includes(tokens[i - 1] ?? '')) ||
      (isWordOrSlip(t, 'vary') && tokens[i - 1] === 'can') ||
      (isWordOrSlip(t, 'crucial') && ["isn't", 'isnt', 'not'].includes(tokens[i - 1] ?? ''))
    ) {
      // "the colour is open", "the style can vary", "the brand isn't crucial"
      a = attrBefore(i, 4);
    } else if (isWordOrSlip(t, 'worry') && ["don't", 'dont', 'not', 'no'].includes(tokens[i - 1] ?? '')) {
      a = attrAt(i + 1);
    } else if ((t === "doesn't" || t === 'doesnt' || t === "don't" || t === 'dont') && tokens[i + 1] === 'matter') {
      // "the colour doesn't matter", "the price band doesnt matter that much"
      for (let j = i - 1; j >= Math.max(0, i - 3); j--)
        if (ATTRIBUTE_WORDS[tokens[j]] !== undefined) {
          a = j;
          break;
        }
    } else if (t === 'not' && tokens[i + 1] === 'matter') {
      for (let j = i - 1; j >= Math.max(0, i - 4); j--)
        if (ATTRIBUTE_WORDS[tokens[j]] !== undefined) {
          a = j;
          break;
        }
    }
    if (a >= 0) {
      // "price band" / "price range": the price, not a band or range of something else
      if (tokens[a] === 'band' && tokens[a - 1] === 'price') a -= 1;
      add(a);
    }
  }
  return out;
}

/**
 * Single words that name a value only in some contexts: "could work" is not the occasion "work",
 * "they run small" is not "running".
 */
const VERB_CONTEXT = new Set([
  'could',
  'would',
  'will',
  'should',
  'might',
  'may',
  'can',
  'does',
  "doesn't",
  'do',
  "don't",
  'did',
  "didn't",
  'also',
  'not',
  'that',
  'it',
  'this',
  'they',
  'these',
  'those',
  'which',
  'still',
  "won't",
  "wouldn't",
  "couldn't",
  'to',
  'might',
]);
const CONTEXT_SENSITIVE = new Set(['work', 'works', 'run', 'runs']);

/**
 * Words before a "down" that make it an adverb particle, not the material: "narrowing it down",
 * "track them down", "dress it down", "turn down", "scroll down".
 */
const BEFORE_PARTICLE_DOWN = new Set([
  'it',
  'them',
  'things',
  'narrow',
  'narrows',
  'narrowing',
  'narrowed',
  'track',
  'tracking',
  'dress',
  'dressed',
  'dressing',
  'tone',
  'toned',
  'turn',
  'turned',
  'turning',
  'scroll',
  'scrolling',
  'slow',
  'calm',
  'settle',
  'write',
  'jot',
  'pin',
  'cut',
  'sit',
  'go',
  'come',
  'way',
]);

function blockedByContext(token: string, previous: string | undefined): boolean {
  if (previous === undefined) return false;
  if (token === 'down') return BEFORE_PARTICLE_DOWN.has(previous);
  return CONTEXT_SENSITIVE.has(token) && VERB_CONTEXT.has(previous);
}
