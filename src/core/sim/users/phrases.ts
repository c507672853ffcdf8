/**
 * Small wording helpers shared by the template users: how an attribute value reads after
 * "something" (with agreement: articles, number), and which attribute an agent question is about.
 */
import { isPluralNoun, withArticle } from '../../text/articles';

/** How an occasion reads after "for" ("everyday" -> "everyday wear"); the value's words always stay in. */
const OCCASION_AFTER_FOR: Record<string, string> = {
  everyday: 'everyday wear',
  lounge: 'lounge wear',
  party: 'a party',
  wedding: 'a wedding',
  'date night': 'a date night',
  beach: 'the beach',
  gym: 'the gym',
};

/**
 * How an attribute value reads after "something": "black", "in leather", "for work", "for everyday
 * wear", "like a tank top", "like sneakers", "from Northvale", "in the budget price range",
 * "unisex", "for women". The value itself always appears word for word (the NLU of the agents and
 * the checker look for it).
 */
/** "a", "a and b", "a, b and c" (the value phrases of one revision, a list of details). */
export function joinList(items: string[], conj = 'and'): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${conj} ${items[items.length - 1]}`;
}

export function valuePhrase(attr: string, value: string): string {
  switch (attr) {
    case 'gender':
      return value === 'unisex' ? 'unisex' : `for ${value}`;
    case 'occasion':
      return `for ${OCCASION_AFTER_FOR[value] ?? value}`;
    case 'material':
      return `in ${value}`;
    case 'price_band':
      // "in the mid-range", not "in the mid-range price range" (the band names its range)
      return value === 'mid-range' ? 'in the mid-range' : `in the ${value} price range`;
    case 'brand':
      return `from ${value}`;
    case 'type':
      return `like ${withArticle(value)}`;
    default:
      return value;
  }
}

/**
 * A value as said after "it's" or "is" in a reason ("I like that it's {liked}"): its value phrase,
 * but a type as the thing the item is ("it's a polo shirt", not "it's like a polo shirt"), a
 * plural type as one pair of them ("it's a pair of joggers", not "it's joggers": every plural type
 * of the catalog, from jeans to sunglasses, is a pair; the item is one of them).
 */
export function reasonPhrase(attr: string, value: string, plural = false): string {
  if (attr !== 'type') return valuePhrase(attr, value);
  // said of an item named in the plural ("since they're joggers"), the type is the plural itself
  if (plural) return value;
  return isPluralNoun(value) ? `a pair of ${value}` : withArticle(value);
}

/**
 * Whether `name`, the words a user names an item with, is plural: the item's own title when its
 * type is a plural noun ("Halden Navy Loafers", "Sable Row Sunglasses - Brown": the type is the
 * title's head), so the verbs and pronouns of the wording agree ("are", "they're", "them"). A
 * place in the carousel ("the second one") is singular.
 */
export function namedInPlural(
  item: { item_id: string; title?: string; attributes: Readonly<Record<string, string>> },
  name: string,
): boolean {
  const type = item.attributes['type'];
  return name === (item.title ?? item.item_id) && type !== undefined && isPluralNoun(type.toLowerCase());
}

/**
 * Values as one noun phrase about things the user wears: adjectives (colour, style, plain values)
 * before the noun, the price band first of them, the others after it. "black, casual pieces in
 * leather for women", "budget sneakers", "mid-range black pieces" (a plural type is the noun
 * itself, a singular one "like a parka"). The price band is said as people say it before a noun
 * ("mid-range boots"), not "in the mid-range price range".
 */
export function describeValues(pairs: readonly (readonly [string, string])[], noun = 'pieces'): string {
  const adjectives: string[] = [];
  const after: string[] = [];
  let price = '';
  let head = noun;
  for (const [k, v] of pairs) {
    if (k === 'type' && isPluralNoun(v)) head = v;
    // one word ("budget", "mid-range") reads as an adjective; a band such as "under 50" does not
    else if (k === 'price_band' && /^[a-z][a-z-]*$/i.test(v)) price = v;
    else if (k === 'colour' || k === 'style' || (k === 'gender' && v === 'unisex')) adjectives.push(v);
    else after.push(valuePhrase(k, v));
  }
  return [price, adjectives.join(', '), head, ...after].filter(Boolean).join(' ');
}

/**
 * Values as they read after "something" (an opening's "Ideally something navy in fleece"): the
 * adjectives (colour, style, "unisex") first, joined by "and", then the other values' phrases
 * (`valuePhrase`), the type's first: "navy and casual like a parka in leather", "for work".
 */
export function somethingValues(pairs: readonly (readonly [string, string])[]): string {
  const adjectives: string[] = [];
  const after: string[] = [];
  for (const [k, v] of pairs) {
    if (k === 'colour' || k === 'style' || (k === 'gender' && v === 'unisex')) adjectives.push(v);
    // the type first of the rest: "something like a parka in leather", not "in leather like a parka"
    else if (k === 'type') after.unshift(valuePhrase(k, v));
    else after.push(valuePhrase(k, v));
  }
  return [joinList(adjectives), ...after].filter(Boolean).join(' ');
}

/** Words that show an agent question is about an attribute. */
const ATTRIBUTE_CUES: Record<string, string[]> = {
  colour: ['colour', 'color', 'colours', 'colors', 'shade'],
  material: ['material', 'materials', 'fabric', 'made'],
  style: ['style', 'styles', 'look', 'vibe'],
  gender: ['men', 'women', 'mens', 'womens', 'gender', 'unisex', 'him', 'her'],
  occasion: ['occasion', 'occasions', 'event', 'wear', 'use'],
  price_band: ['price', 'budget', 'cost', 'spend', 'expensive', 'cheap', 'afford'],
  type: ['type', 'kind', 'sort'],
  brand: ['brand', 'brands', 'label'],
};

const cueCache = new Map<string, { re: RegExp; attrOf: Map<string, string> }>();

/** One case-insensitive regex over every cue word of the candidate attributes (built once per list). */
function cuesFor(candidates: readonly string[]): { re: RegExp; attrOf: Map<string, string> } {
  const key = candidates.join('\u0000');
  let entry = cueCache.get(key);
  if (!entry) {
    const attrOf = new Map<string, string>();
    for (const attr of candidates)
      for (const cue of ATTRIBUTE_CUES[attr] ?? attr.toLowerCase().split(/[_-]+/))
        if (!attrOf.has(cue)) attrOf.set(cue, attr);
    const words = [...attrOf.keys()]
      .sort((a, b) => b.length - a.length)
      .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    entry = { re: new RegExp(`(?<![\\p{L}\\p{N}])(?:${words.join('|')})(?![\\p{L}\\p{N}])`, 'giu'), attrOf };
    cueCache.set(key, entry);
  }
  return entry;
}

/**
 * An offer to do something ("Want me to look around?", "Shall I use your last search?", "Can I
 * show you more?"): a yes/no question about what the agent would do next, whose cue words ("look",
 * "use") are verbs of the offer, not a question about a preference. Asking leave to ask is no offer
 * ("May I ask your budget?"), nor is a preface ("Let me get this straight, what are we hunting
 * for?" asks what the user is shopping for).
 */
const OFFER =
  /^[^\p{L}]*(?:(?:do you )?want me to|would you like me to|shall i|should i|(?:can|may) i(?! ask| know| check))(?![\p{L}])/iu;

/**
 * What makes an offer ask about an attribute after all: a choice between values ("Should I browse
 * the women's, men's or unisex racks?"), or the attribute it would go by ("Shall I filter these by
 * colour?", said beside "Want to narrow them by colour?", which asks the same).
 */
const OFFER_ASKS = /(?<![\p{L}])(?:or|by)(?![\p{L}])/iu;

/**
 * Cue words for attributes beside `askedAttributes`' own, read in questions only: where the items
 * will be worn is the occasion ("Where will you be wearing them?"), whom they are for the gender
 * ("And these are for whom, again?").
 */
const QUESTION_CUES: Record<string, RegExp> = {
  occasion: /(?<![\p{L}\p{N}])(?:wearing|worn)(?![\p{L}\p{N}])/iu,
  gender: /(?<![\p{L}\p{N}])(?:for whom|who (?:is|are) (?:it|this|these|they) for)(?![\p{L}\p{N}])/iu,
};

/**
 * A question about what the user is shopping for ("What are we looking for today?", "So, what
 * brings you here?", "Shoes, a coat, or just browsing?") asks for its task category.
 */
const ASKS_CATEGORY =
  /(?<![\p{L}\p{N}])(?:(?:shopping|looking|hunting|searching) for|what brings you|just browsing)(?![\p{L}\p{N}])/iu;

/** One question of an agent utterance (a sentence with "?") and what it asks about. */
interface QuestionReading {
  sentence: string;
  /** The attributes it asks about, in the order of `candidates` (none for an offer that asks nothing). */
  attributes: string[];
  /** Whether it asks, naming no attribute, what the user is shopping for (`ASKS_CATEGORY`). */
  category: boolean;
  /** An offer to do something (`OFFER`); it asks about attributes only with a choice or a "by". */
  offer: boolean;
}

/**
 * How a simulated user reads the questions of an agent utterance, one sentence with "?" at a time
 * (the one reader of the built-in users; docs/simulation.md, "What an agent asks"): a question asks
 * about the attributes its cue words name (`askedAttributes`, plus `QUESTION_CUES`), or, naming
 * none, for the task category when it asks what the user is shopping for; an offer asks about none
 * unless it offers a choice or names what it would go by (`OFFER_ASKS`). Judgements on top of it
 * (a re-ask, a proposal) are the user's own.
 */
export function readQuestions(text: string, candidates: readonly string[]): QuestionReading[] {
  if (!text || !text.includes('?')) return [];
  const out: QuestionReading[] = [];
  for (const sentence of text.split(/(?<=[.!?])\s+/)) {
    if (!sentence.includes('?')) continue;
    const offer = OFFER.test(sentence);
    if (offer && !OFFER_ASKS.test(sentence)) {
      out.push({ sentence, attributes: [], category: false, offer });
      continue;
    }
    const found = new Set(askedAttributes(sentence, candidates));
    for (const [attr, cue] of Object.entries(QUESTION_CUES))
      if (candidates.includes(attr) && cue.test(sentence)) found.add(attr);
    const attributes = candidates.filter((a) => found.has(a));
    out.push({ sentence, attributes, category: attributes.length === 0 && ASKS_CATEGORY.test(sentence), offer });
  }
  return out;
}

/** The attributes the questions of an agent utterance ask about (`readQuestions`), in the order of `candidates`. */
export function questionAttributes(text: string, candidates: readonly string[]): string[] {
  const found = new Set(readQuestions(text, candidates).flatMap((q) => q.attributes));
  return candidates.filter((a) => found.has(a));
}

/** The attributes an agent utterance asks about, in the order of `candidates`. */
export function askedAttributes(text: string, candidates: readonly string[]): string[] {
  if (!text || candidates.length === 0) return [];
  const { re, attrOf } = cuesFor(candidates);
  const found = new Set<string>();
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const attr = attrOf.get(m[0].toLowerCase());
    if (attr) found.add(attr);
  }
  return candidates.filter((a) => found.has(a));
}

// The question sentences of a text: one implementation, shared with the checker (core/text).
export { questionSentences } from '../../text/sentences';
