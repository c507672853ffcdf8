/**
 * Wording helpers for the local recommenders: noun phrases for what the user asked for, and
 * list formatting. The templates themselves live with each agent.
 */
import type { CatalogItem } from '../../../catalog/item';
import type { Rng } from '../../../random';
import type { PreferenceState } from './state';
import corpusJson from './corpus-frames.json';

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
function bandPhrase(band: string): string {
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
export function describeWanted(
  state: PreferenceState,
  override?: ReadonlyMap<string, string>,
  holds?: CatalogItem,
): string {
  const get = heldValue(state, override, holds);
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

/**
 * The wanted value of a slot (or its override) for the descriptions above; with `holds`, only a value
 * that item has (or an attribute it lacks): a carousel led by a black pair is not "more cream ballet
 * flats" (thirteenth round: local-good's "More $noun", "A new page of $noun", "Among these $noun"
 * described the user's wish, not the items, on 5 % of its carousels against target-free users).
 */
function heldValue(state: PreferenceState, override?: ReadonlyMap<string, string>, holds?: CatalogItem) {
  return (slot: string): string | undefined => {
    const v = override?.get(slot) ?? state.value(slot);
    if (v === undefined || !holds) return v;
    const has = holds.attributes[slot];
    return has === undefined || has === v || (slot === 'gender' && has === 'unisex') ? v : undefined;
  };
}

/** "$59.99" or "" when the item has no price. */
export function priceText(item: CatalogItem): string {
  return item.price === undefined ? '' : `$${item.price.toFixed(2)}`;
}

/*
 * A small generative grammar for the local recommenders' words (issue 21, item 3). A frame is a
 * string with choice points and slots:
 * - `{a|b|c}`: one alternative, drawn from the session's words Rng (alternatives may be empty,
 *   `{|x}` = optional, and may nest);
 * - `$name`: a variable, `$^name` the same with its first letter capitalised;
 * - `@name`: one sentence of a pool of human recommenders' sentences (corpus-frames.json, built by
 *   scripts/agent-frames.ts from the corpora in test/fixtures/datasets, each with its file and
 *   line), e.g. `@r_ack, $w.` -> "Gotcha, black boots.".
 * Frames are parsed once and cached. Number agreement is in the frames themselves (a frame about
 * one item says "it is", one about the carousel "these"); indefinite articles before a variable
 * word are avoided, so no "a" / "an" has to agree with a value. No frame puts a catalog value or
 * an item title inside a question: the simulated users read an agent question's attribute by its
 * cue words (users/phrases.ts `askedAttributes`), and a title such as "... Women's ..." would read
 * as a question about gender.
 */

type FramePart = string | { v: string; cap: boolean } | { pool: readonly string[] } | FramePart[][];

/** The corpus pools by name: the texts of each. */
const CORPUS_POOLS = new Map<string, readonly string[]>(
  Object.entries((corpusJson as { pools: Record<string, { text: string }[]> }).pools).map(([name, list]) => [
    name,
    list.map((f) => f.text),
  ]),
);

const frameCache = new Map<string, FramePart[]>();

function parseFrame(src: string): FramePart[] {
  let i = 0;
  const seq = (stops: string): FramePart[] => {
    const out: FramePart[] = [];
    let lit = '';
    const flush = () => {
      if (lit) out.push(lit);
      lit = '';
    };
    while (i < src.length && !stops.includes(src[i])) {
      const c = src[i];
      if (c === '{') {
        flush();
        i++;
        const alts: FramePart[][] = [seq('|}')];
        while (src[i] === '|') {
          i++;
          alts.push(seq('|}'));
        }
        if (src[i] !== '}') throw new Error(`unclosed "{" in frame: ${src}`);
        i++;
        out.push(alts);
      } else if (c === '@') {
        flush();
        i++;
        const m = /^[a-z_]+/.exec(src.slice(i));
        const pool = m ? CORPUS_POOLS.get(m[0]) : undefined;
        if (!m || !pool?.length) throw new Error(`"@${m?.[0] ?? ''}" is not a corpus pool in frame: ${src}`);
        i += m[0].length;
        out.push({ pool });
      } else if (c === '$') {
        flush();
        i++;
        const cap = src[i] === '^';
        if (cap) i++;
        const m = /^[a-zA-Z]+/.exec(src.slice(i));
        if (!m) throw new Error(`"$" without a name in frame: ${src}`);
        i += m[0].length;
        out.push({ v: m[0], cap });
      } else {
        lit += c;
        i++;
      }
    }
    flush();
    return out;
  };
  const parts = seq('');
  return parts;
}

/** The variables of a frame: a missing one is a programming error (thrown). */
type FrameVars = Readonly<Record<string, string | undefined>>;

/** One utterance from a frame: every choice point drawn from `rng`, every `$name` from `vars`. */
export function expand(rng: Rng, frame: string, vars: FrameVars = {}): string {
  let parts = frameCache.get(frame);
  if (!parts) frameCache.set(frame, (parts = parseFrame(frame)));
  let out = '';
  const walk = (seq: readonly FramePart[]) => {
    for (const p of seq) {
      if (typeof p === 'string') out += p;
      else if (Array.isArray(p)) walk(p[rng.int(p.length)]);
      else if ('pool' in p) out += p.pool[rng.int(p.pool.length)];
      else {
        const v = vars[p.v];
        if (v === undefined) throw new Error(`frame variable $${p.v} is not set: ${frame}`);
        out += p.cap ? v.charAt(0).toUpperCase() + v.slice(1) : v;
      }
    }
  };
  walk(parts);
  return out;
}

/** One frame of a list, expanded. */
export function expandOne(rng: Rng, frames: readonly string[], vars: FrameVars = {}): string {
  return expand(rng, frames[rng.int(frames.length)], vars);
}

/**
 * What the user asked for in a few words, for the short acknowledgements: style or colour (at
 * most two adjectives) and the type or category noun, e.g. "black leather boots" ->
 * "black ankle boots". Occasion, price and brand are left to the explanation.
 */
export function shortWanted(
  state: PreferenceState,
  override?: ReadonlyMap<string, string>,
  also?: string,
  holds?: CatalogItem,
): string {
  const get = heldValue(state, override, holds);
  const adjs: string[] = [];
  for (const slot of ['colour', 'material']) {
    const v = get(slot);
    if (v !== undefined) adjs.push(v);
  }
  const type = get('type');
  let noun = type !== undefined ? pluralNoun(type) : categoryNoun(state.category);
  // mass nouns are not counted ("a few outerwear"): the frames say "some", "a few", "12 ..."
  if (MASS_NOUN.test(noun)) noun = `${noun} pieces`;
  if (type && adjs.length && type.startsWith(adjs[adjs.length - 1])) adjs.pop();
  const phrase = [...adjs, noun].join(' ');
  // `also`: a slot whose value must be said as well (the bad agent echoes what it misheard)
  const v = also === undefined ? undefined : get(also);
  if (v === undefined || also === 'colour' || also === 'material' || also === 'type') return phrase;
  if (also === 'style' || (also === 'gender' && v === 'unisex')) return `${v} ${phrase}`;
  if (also === 'gender') return `${phrase} for ${v}`;
  if (also === 'occasion') return `${phrase} ${occasionPhrase(v)}`;
  if (also === 'price_band') return `${phrase} ${bandPhrase(v)}`;
  return `${phrase} from ${v}`;
}

const MASS_NOUN = /(?:wear|clothing)$/;

/** A wanted value an item has, said in one of several ways ("made for work", "good for work"). */
export function matchedValue(rng: Rng, slot: string, value: string): string {
  switch (slot) {
    case 'occasion':
      return expand(rng, `{made |good |great |ideal |suited |}${occasionPhrase(value)}`);
    case 'price_band':
      return expand(rng, `{priced ${bandPhrase(value)}|${bandPhrase(value)}|${value}-priced}`);
    case 'gender':
      return value === 'unisex' ? 'unisex' : expand(rng, `{cut for ${value}|made for ${value}|for ${value}}`);
    case 'style':
      return expand(rng, `{${value}|${value} in style|properly ${value}|${value} in look}`);
    default:
      return value;
  }
}

/**
 * What an item's own description says its material does, said short as a shop assistant would
 * ("in quick-drying nylon"): each note is keyed by words of the catalog's description sentence
 * about that material (`cue`, lower case) and is said only of an item whose description holds
 * them, so no note states a fact the catalog does not give. Every note starts with "in", "made of"
 * or "filled with" and names the material (it reads after "is", ":" or ","). Wordings our own.
 */
export const MATERIAL_NOTES: readonly { cue: string; material: string; say: readonly string[] }[] = [
  {
    cue: 'leather softens',
    material: 'leather',
    say: ['in leather that softens as you wear it', 'in leather that moulds to you over time'],
  },
  {
    cue: 'canvas holds its shape',
    material: 'canvas',
    say: ['in sturdy canvas that keeps its shape', 'in canvas that ages well'],
  },
  { cue: 'mesh lets air move', material: 'mesh', say: ['in airy mesh that stays cool', 'in breathable mesh'] },
  {
    cue: 'rubber keeps water out',
    material: 'rubber',
    say: ['in rubber that keeps water out', 'made of rubber, so wet days are fine'],
  },
  { cue: 'rubber rinses clean', material: 'rubber', say: ['in rubber that rinses clean in seconds'] },
  {
    cue: 'synthetic upper shrugs off scuffs',
    material: 'synthetic',
    say: ['in a scuff-resistant synthetic', 'in a synthetic that wipes clean'],
  },
  { cue: 'animal-free', material: 'synthetic', say: ['in an animal-free synthetic'] },
  {
    cue: 'knit hugs your shape',
    material: 'knit',
    say: ['in a knit that springs back after each wear', 'in a close-fitting knit'],
  },
  { cue: 'wool keeps you warm', material: 'wool', say: ['in wool that stays warm on damp days', 'in warm wool'] },
  {
    cue: 'down fill traps heat',
    material: 'down',
    say: ['filled with down, warm but light', 'filled with light, warm down'],
  },
  {
    cue: 'nylon dries fast',
    material: 'nylon',
    say: ['in quick-drying nylon', 'in hard-wearing nylon that dries fast'],
  },
  {
    cue: 'nylon shell brushes off',
    material: 'nylon',
    say: ['in a nylon shell that keeps off light rain and wind', 'in nylon that handles a light shower'],
  },
  {
    cue: 'polyester keeps its colour',
    material: 'polyester',
    say: ['in polyester that holds its colour through washes', 'in colourfast polyester'],
  },
  {
    cue: 'polyester resists wrinkles',
    material: 'polyester',
    say: ['in crease-resistant polyester', 'in polyester that packs well and stays smooth'],
  },
  {
    cue: 'denim fades gradually',
    material: 'denim',
    say: ['in denim that fades in nicely with time', 'in rigid denim that wears in well'],
  },
  { cue: 'fleece stays warm', material: 'fleece', say: ['in warm, quick-drying fleece', 'in cosy fleece'] },
  {
    cue: 'cotton feels soft',
    material: 'cotton',
    say: ['in soft, breathable cotton', 'in cotton that is soft on the skin'],
  },
  { cue: 'machine wash the cotton', material: 'cotton', say: ['in machine-washable cotton', 'in easy-care cotton'] },
  { cue: 'linen keeps you cool', material: 'linen', say: ['in cool linen', 'in linen that softens with every wash'] },
  { cue: 'silk drapes', material: 'silk', say: ['in silk that drapes beautifully', 'in cool, fluid silk'] },
  {
    cue: 'cashmere is incredibly soft',
    material: 'cashmere',
    say: ['in soft, warm cashmere', 'in cashmere, light for how warm it is'],
  },
  {
    cue: 'jersey stretches',
    material: 'jersey',
    say: ['in stretchy jersey that resists creases', 'in comfortable, stretchy jersey'],
  },
  { cue: 'jersey machine washes', material: 'jersey', say: ['in easy-wash jersey'] },
  {
    cue: 'twill weave holds a crisp line',
    material: 'twill',
    say: ['in a crisp twill', 'in twill that keeps a sharp line'],
  },
  { cue: 'twill is tough', material: 'twill', say: ['in tough, machine-washable twill'] },
  { cue: 'satin catches the light', material: 'satin', say: ['in satin with a soft sheen', 'in glossy satin'] },
  { cue: 'chiffon floats', material: 'chiffon', say: ['in floaty chiffon', 'in light chiffon that moves with you'] },
  {
    cue: 'spandex blend moves',
    material: 'spandex',
    say: ['in a spandex blend that moves with you', 'in a stretchy spandex blend'],
  },
  {
    cue: 'merino regulates',
    material: 'merino',
    say: ['in merino that keeps odour at bay', 'in temperature-regulating merino'],
  },
  { cue: 'merino can be worn several', material: 'merino', say: ['in merino you can wear a few times between washes'] },
  {
    cue: 'straw is light',
    material: 'straw',
    say: ['in light, breathable straw', 'in woven straw that lets your head breathe'],
  },
  { cue: 'acrylic is soft', material: 'acrylic', say: ['in soft, easy-care acrylic'] },
  { cue: 'acrylic keeps its colour', material: 'acrylic', say: ['in acrylic that keeps its colour and shape'] },
  {
    cue: 'brushed metal resists',
    material: 'metal',
    say: ['in brushed metal that resists scratches', 'in scratch-resistant metal'],
  },
];

/** The notes (`MATERIAL_NOTES`) an item's description and material allow, each as its wordings. */
export function materialNotes(item: CatalogItem): readonly string[] {
  const material = item.attributes.material;
  if (material === undefined) return [];
  const text = item.description.toLowerCase();
  return MATERIAL_NOTES.filter((n) => n.material === material && text.includes(n.cue)).flatMap((n) => n.say);
}

/**
 * Frames of the good agent. Variables: `t` item title, `why` what it matches, `noun` the short
 * wanted noun phrase (plural), `n` the number of items shown, `p` a price, `type` a type noun.
 */
export const GOOD_FRAMES = {
  /** A new carousel and why its top item (recommend + explain_recommendation). */
  recommend: [
    "{I'd suggest|I'd go for|I'd start with|I recommend|My pick is|First choice:|Top of the list is|I'm keen on|My favourite here is|Front-runner:|Strongest option:|I'd point you to} the $t{: |, which is |, }$why.",
    'The $t {looks right|fits the bill|stands out|is a strong match|ticks the boxes|could work nicely|leads the list|is promising|deserves a glance|feels right|suits the brief|shines}{: | - it is |, being }$why.',
    '{Have a look at|Take a look at|Check out|Try|Peek at|Glance at|Consider|Browse} the $t. {It is|That one is|This pick is} $why.',
    "{Here are|I found|I've pulled up|There are|I've gathered|I dug up|I rounded up} {some|a few|$n|several} $noun. The $t is $why.",
    '{Here are|Some|A few|A handful of|Several} $noun {for you|to browse|you may like|worth seeing|that match}. {Start with|Try|Consider|Begin with|Eye} the $t: $why.',
    '{First up|Up first|Leading the set|Headlining|Pick of the bunch|Best bet}: the $t, $why.',
    '$^noun, {coming up|on screen now|right here|lined up|ready for you|all set}. {The $t is|Best of them, the $t:|The $t stands out:|Favourite: the $t,} $why.',
    '{Try|See|Consider|Spot} the $t: $why.',
    '{Try|I recommend|Have a look at} the $t: $why. @r_pitch',
    '@r_ack, here is the $t: $why.',
    'I found the $t: $why. @r_pitch',
    '{My tip|My vote|My bet|Standout|Top match}: the $t, $why.',
    'Here is the $t, {shortlisted|earmarked|flagged|handpicked}: $why.',
    '{Hunch|Gut feeling}: look at the $t, $why.',
    'Scouting done, I found the $t: $why.',
    'Here, the $t {heads this lot|tops the batch|opens the parade}: $why.',
  ],
  /** The next page (recommend + explain_recommendation). */
  more: [
    '{Here are|Some|A few} more{| options| picks| ideas}. {The $t is|Try the $t,|Maybe the $t:} $why.',
    'More $noun{ for you|, as asked|}: the $t{ is|,} $why.',
    "{Sure|Of course|Okay}, {here's|this is} another batch. {Top of it|First}: the $t, $why.",
    '{Next|New} {page|batch|set} up. The $t is $why.',
    '@r_sure Here is the $t: $why.',
    '@r_sure {Try|See} the $t: $why.',
    '{Round two|Refilled|Onwards|Restocked}: here is the $t, $why.',
    'I found fresh arrivals, {headed|fronted|led} by the $t: $why.',
  ],
  /** A new carousel after a rejection (recommend + explain_recommendation). */
  rejected: [
    "{No problem|Fair enough|Understood|Okay|Sorry about those|Got it}, {here are others|I've set those aside|let's try others|here is a fresh set|swapping them out}. {The $t is|Try the $t:|Maybe the $t,} $why.",
    "{Noted|Understood|Right}, {those are out|no more of those|I've put those aside}. The $t {could suit|might do}: $why.",
    '{Sorry they missed|Sorry, not right then}. {Perhaps|Maybe} the $t instead: $why.',
    '@r_sorry Here is the $t instead: $why.',
    '@r_sorry {Try|Maybe} the $t instead: $why.',
    '{Message received|Gotcha|Righto|Scrapping those}. Here is the $t instead: $why.',
  ],
  /**
   * A new carousel after a rejection, when the turn before answered one too (recommend +
   * explain_recommendation): no apology again, as a shop assistant moves on to the next piece
   * (eighteenth round: "Sorry, not right then", "Apologies for the misfire", "Point taken" turn
   * after turn against target-free users). Statements; no catalog value, no negation.
   */
  rejectedAgain: [
    'Then I would suggest the $t: $why.',
    '{Then try|Try} the $t{ next|}: $why.',
    'In that case, try the $t: $why.',
    '{Then have|Have} a look at the $t{ next|}: $why.',
    'I also {found|turned up} the $t: $why.',
    'Next, have a look at the $t: $why.',
    'Perhaps try the $t: $why.',
    'There is also the $t: $why.',
    'I would try the $t next: $why.',
  ],
  /** Why the top item, when nothing the user wanted is among its values. */
  loose: [
    'a close match',
    'a strong candidate',
    'worth a look',
    'a solid option',
    'the nearest fit',
    'well reviewed',
    'a popular one',
    'a dependable choice',
    'a safe bet',
    'near enough',
    'a crowd-pleaser',
    'a sensible pick',
    'a fair bet',
    'a likely fit',
    'closest to your brief',
    'a reasonable stand-in',
    'an easy favourite',
    'a good all-rounder',
    'a tidy compromise',
    'a decent contender',
    'handsome value',
    'a quiet achiever',
    'a versatile piece',
    'a steady seller',
    'a dark horse',
    'an honest option',
    'a respectable runner-up',
    'highly rated by buyers',
    'a frequent reorder',
    'a wildcard worth trying',
    'a sleeper hit',
    'an underdog with charm',
    'a hidden gem',
    'a wise hedge',
    'a flexible staple',
    'an enduring favourite',
    'a solid alternative',
    'a shrewd purchase',
  ],
  /**
   * Why the top item, said with one of its plain features `f` (`plainFeatures`): `reasonAfter`
   * follows the matched values ("navy, with raglan sleeves"), `reasonAlone` stands for them when
   * none matched. No verb agrees with `f` (it may be plural: "raglan sleeves"); `a` is `f` with the
   * article it takes after "with" or "has" (`featureWithArticle`: "a storm flap", "raglan sleeves").
   */
  reasonAfter: [
    ', with $a',
    ', and it has $a',
    ', plus $a',
    ', featuring $a',
    ', complete with $a',
    ', finished with $a',
    ' - note the $f',
    ', boasting $a',
    ', graced with $a',
    ', kitted out with $a',
  ],
  reasonAlone: [
    'worth it for the $f alone',
    'a fine pick, with $a',
    'well made, with $a',
    'a smart buy, with $a',
    'notable for its $f',
    'a favourite of mine for its $f',
    'well finished, with $a',
    'a strong option: $a',
    'thoughtfully made, with $a',
    'a good find, with $a',
    'memorable for its $f',
    'cleverly finished, with $a',
    'nicely detailed, with $a',
    'tempting, thanks to $a',
  ],
  /** Some items differ in a relaxed hard filter. */
  relaxed: [
    "{Not everything matched|I couldn't match every detail|Few items matched it all|Not all of it matched}: {some|a few} {differ|vary} in $slots.",
  ],
  /** The same, shorter. */
  relaxedShort: [
    '{Some|A few} {differ|vary} in $slots.',
    '{Close matches|Near matches} only: {some|a few} {differ|vary} in $slots.',
    '{Heads-up|Note}: {some|a few} {differ|vary} in $slots.',
    'Only some match on $slots.',
    'Check the $slots on a few of them.',
    'Mind the $slots on some of these.',
    '{Some|A few} stray on $slots.',
    'A few are a looser fit on $slots.',
  ],
  /** Optional last sentence of a carousel turn, a question (`closerAsk`) or not: no cue word of any attribute. */
  closerAsk: [
    '@r_offer',
    'Does any of these catch your eye?',
    'Anything here you like?',
    'Does one of them stand out?',
    'Which one appeals?',
    'Any favourites?',
    'Which of these tempts you?',
    'See anything promising?',
    'Spot a winner?',
    'Does one of these feel right?',
    'Any of them grab you?',
    'Is a favourite emerging?',
    'Shall I shortlist one?',
    'Tempted by these?',
    'Thoughts on these?',
    'Do these catch your fancy?',
    'A frontrunner among these?',
  ],
  closerSay: [
    'Let me know if one of them works, or what you would change.',
    'Tell me which one you like, or what to adjust.',
    'Happy to adjust if needed.',
    'Say the word if you want changes.',
    'Let me know what you think.',
    'Your call.',
    'Over to you.',
    'Browse at leisure.',
    'I can tweak the search whenever you like.',
    'Shout if something needs changing.',
    'Ready when you are.',
    'Happy hunting.',
    'The floor is yours.',
    'Mull them over.',
    'Have a look.',
    'Holler if needed.',
    'Feedback welcome.',
    'Pick freely.',
  ],
  /** The user accepted (greet_acknowledge), item `t`, its noun `type`, optional price `p`. */
  accept: [
    '{Great choice|Excellent pick|Lovely choice|Good call}! {The $t is a lovely pick|The $t will serve you well|You will enjoy the $t}.',
    '{Great choice|Good call|Nice one}, the $t! @r_enjoy',
    '{Good pick|Nice one}: the $t, {then|done}. @r_enjoy',
    '{Great choice|Excellent|Wonderful}: {enjoy your new $type, the $t|the $t is yours whenever you are ready}!',
    '{Great choice|Nice one}! {You can add the $t to your cart now|The $t is ready for checkout}.',
    '{Superb|Terrific|Cracking} choice! The $t awaits checkout.',
    '{Bravo|Hooray|Wonderful}, fine choice: the $t is yours.',
  ],
  acceptPrice: [
    '{Great choice|Good pick}! The $t is $p{, a sound buy|}. {Happy shopping|Enjoy}!',
    'Good choice: the $t, yours for $p. Enjoy!',
    'Great choice. The $t comes to $p at checkout.',
    '{Good|Smart} choice! Sold: the $t, $p.',
    'Excellent choice! The $t, at $p, is in your basket.',
    '{Lovely|Nice} choice, the $t it is: $p at checkout. Enjoy!',
    'Nice choice! $p for the $t; enjoy it!',
  ],
  /** The same with one of the item's plain features `f` (no verb agrees with it). */
  acceptDetail: [
    '{Great|Lovely|Excellent|Fine} choice: the $t, with its $f. @r_enjoy',
    '{Excellent|Lovely} choice! The $t{ and its $f| with its $f} will serve you well.',
    '{Great|Smart|Wise} choice, the $t! Enjoy the $f.',
    'Great choice, the $t! You will love the $f.',
    'Nice choice! Enjoy the $f.',
    'Good choice, the $t. Enjoy the $f!',
    'Good pick: the $t, with its $f. Hope it serves you well.',
    'Good choice! A real plus, the $f. Hope you love it.',
  ],
  /**
   * The same with a note on the item's material `n` (`materialNotes`: what its own description
   * says); each says "choice" (the users' act classifier then reads a confirmation).
   */
  acceptNote: [
    '{Great|Good|Lovely} choice, the $t, $n. Enjoy!',
    'Nice choice! Enjoy the $t, $n.',
    '{Great|Good} choice! Enjoy it, $n.',
  ],
  /**
   * The same when the user named one of the taken item's own features `f` as what won it over
   * (reacting to what was said; no verb agrees with `f`, which may be plural). Each says "choice"
   * or another word the users' act classifier reads as a confirmation ("glad you found it").
   */
  acceptPraised: [
    '{Good|Great|Lovely} choice, the $t! {Well spotted on the $f|Good eye for the $f}.',
    '{Excellent|Wise} choice: hard to beat the $f. Enjoy!',
    'Nice choice, and agreed on the $f. @r_enjoy',
    'Great choice! Glad the $f won you over. Enjoy it!',
    'Lovely choice! Good eye for the $f. Enjoy it!',
    'Wise choice, noted: the $f {makes it|seals it}. Enjoy!',
    'Good call: the $f won me over too. Glad you found it!',
    'Nice one! The $f sold me too. Hope it serves you well.',
  ],
  /** The same, the praised feature said with what it is for (`a`, a `FEATURE_NOTES` note). */
  acceptPraisedWhy: [
    '{Good|Great} choice! Enjoy $a.',
    'Wise choice! Yes, $a. Enjoy!',
    '{Lovely|Nice} choice. Agreed: $a. Enjoy it!',
    'Great choice! Good eye for $a.',
    'Nice one! Yes, $a. Hope it serves you well.',
  ],
  /** The same with one of the item's features said with what it is for (`a`, a `FEATURE_NOTES` note). */
  acceptWhy: [
    '{Great|Good|Lovely} choice! You get $a. Enjoy!',
    '{Excellent|Wise} choice! Enjoy $a.',
    'Nice choice! Enjoy the $t, with $a.',
    'Good pick! You get $a. Hope it serves you well.',
    'Smart choice, with $a. Glad you found it!',
  ],
  /** After the conversation closed. */
  closed: [
    "{You're welcome|Anytime|Happy to help|My pleasure}! {Come back whenever you need something|Enjoy your purchase|Have a great day|Let me know if you need anything else}.",
    '@r_welcome @r_bye',
    '@r_bye',
  ],
  /** Goodbye to a user whose words say it leaves without what it came for (`leavesUnserved`). */
  byeUnserved: [
    "{Sorry I couldn't find it|Sorry this didn't work out|I'm sorry I couldn't help more|Sorry we missed the mark}. {Good luck with your search|I hope you find it elsewhere|Come back any time}!",
  ],
  bye: [
    '{No problem|Okay|Sure|All right}. {Thanks for stopping by|Good luck with your search|I am here if you change your mind|Come back any time}!',
    '{Okay|Sure|No problem}. @r_bye',
    '@r_bye',
  ],
  thanks: [
    "{You're welcome|My pleasure|Glad to help|Anytime|Cheers|No trouble at all}! {Anything else I can find for you?|Keep browsing, or is one of these the one?|Shall I keep going?|Shall I dig further?|More, or are we done?}",
    '@r_welcome {Anything else I can find for you?|Shall I keep going?|More, or is one of these it?}',
  ],
  /**
   * The same (greet_acknowledge, a question) when the user's words say it is leaving unserved
   * (`leavesUnserved`: "I don't think I'll find it here. Thanks anyway."): no thanks for being
   * helped, an apology and one more offer.
   */
  thanksUnserved: [
    '{Sorry I could not find the right one|Sorry these did not work out|A pity none of them suited|Sorry it was slow going|Shame nothing clicked}. {Shall I try once more?|Want me to search again?|One more try before you go?|Shall I search a little further?}',
    '{Understood|Fair enough}, and sorry {about that|it took so long}. {Shall I try one last search?|One more search, or shall we leave it?}',
  ],
  /** No request and nothing new, no slot left to ask. */
  nudge: [
    '{Take your time|No rush|Sure|No worries|Whenever you are ready|Mull it over}. {Should I show you more options, or narrow these down?|More options, or shall I refine these?|Want a fresh batch, or changes to these?|Shall I fetch more, or trim these?|A new batch, or tweaks to these?|Widen the net, or sharpen these?|Cast wider, or prune these?|Keep browsing, or tune the brief?|Fancy a fresh round, or edits to these?}',
  ],
  /** The nudge when the user's words say it is leaving unserved (`leavesUnserved`). */
  nudgeUnserved: [
    '{Fair enough|I hear you|Shame nothing landed yet|A pity nothing has landed}. {Should I show you more options, or narrow these down?|A fresh batch, or changes to these?|Shall I try once more?}',
  ],
  nudgeLeadUnserved: ['Fair enough.', 'I hear you.', 'Shame nothing landed yet.', 'A pity nothing has landed.'],
  nudgeLead: [
    'Take your time.',
    'No rush.',
    'Sure.',
    'No worries.',
    'Okay.',
    'Whenever you are ready.',
    'Mull it over.',
    'No hurry at all.',
    'Fine by me.',
    'Righto.',
    'Ponder away.',
    'Take a moment.',
    'Dwell on it.',
  ],
  /** The user's wanted noun phrase `w` acknowledged. */
  ack: [
    '{Got it|Okay|Great|Noted|Sure|Lovely|Right}{: |, }$w.',
    '@r_ack, $w.',
    '@r_ack: $w.',
    '$^w, {got it|noted|sounds good|understood|good}.',
    '{Sounds good|Perfect|Nice}: $w.',
    '{Understood|Roger|Crystal clear|Copy that|Gladly|Splendid}{: |, }$w.',
  ],
  /** Values set aside, `x`. */
  leaveOut: ["{I'll leave out|I will skip|Leaving out|No more} $x.", 'No $x{, then|}.'],
  /** The earlier carousel shown again (recommend), its top `t`. */
  back: [
    '{Here are the earlier ones again|Back to the previous set|Here is the last batch again}{. The $t was top| - the $t led it|}.',
    '{Sure|Okay}, back to the $noun from before.',
  ],
  /** The carousel shown again on "say that again" (explain_recommendation): `noun`, then an explanation. */
  again: ['{Sorry for the confusion|Let me rephrase|Sorry, I was unclear}. These are $noun.'],
  /** More like the liked item `t` (recommend + elicit_preference). */
  similar: [
    '{Glad you like|Good pick:|Nice, you like|Ah, you fancy|You have an eye for} the $t. {Here are a few more in that spirit|More in that vein are up|I added some close to it|A few kin of it are up|Some lookalikes are up too}. {Is it the one, or shall I keep looking?|Want to go with it, or keep looking?|Is it the one?|Sold on it, or still hunting?|Keeper, or keep going?}',
    'The $t is a nice pick{| indeed}. {I added a few more in that vein|Some close ones are beside it}; {would you like to go with it?|is it the one, or shall I keep looking?}',
    '{Ah|Oh nice|Lovely}, the $t {caught your eye|appeals|has your attention}. {Here are a few cousins of it|I found its nearest neighbours too|Here are some close relatives of it}. {Shall we settle on it, or browse on?|Is that your winner?|Ready to decide, or keep browsing?}',
    '{Noted|Good taste|Smart pick}: the $t. {Here are some siblings of it|I found a few lookalikes|Here are its closest matches}. {Take it, or keep browsing?|Shall I stop here?|Decision time, or more digging?}',
    '{You are drawn to the $t|The $t found favour|So the $t pleases you}. {Here are kindred pieces too|I found a few in the same spirit|Here are near twins of it}. {Is it the one?|Is this one it, then?|Shall I show even more?}',
  ],
  /** More like the liked item `t`, whose feature `f` the user praised: acknowledged by name. */
  similarPraised: [
    '{Well spotted|Good eye|Nice catch|Agreed|A fine detail}: the $f on the $t. {Here are a few more in that spirit|I added some close to it|Here are some close relatives of it}. {Is it the one?|Want to go with it, or keep looking?|Shall we settle on it, or browse on?}',
    '{The $f won you over|You noticed the $f}, then. {I found a few more like the $t|Here are some siblings of the $t}. {Take it, or keep browsing?|Is that your winner?|Ready to decide, or keep browsing?}',
    '{Glad the $f appealed|Happy the $f caught your eye}. {More like the $t are up|The $t has a few cousins here}. {Is it the one?|Decision time, or more digging?}',
  ],
  /** More like the liked item `t`, with one of its features `f` the agent points out. */
  similarDetail: [
    '{Good pick|Nice choice|Smart pick}: the $t, {with $a|complete with $a}. {Here are a few more in that spirit|I found a few lookalikes|Here are its closest matches}. {Is it the one?|Take it, or keep browsing?|Shall I show even more?}',
    'The $t {has|brings|offers} $a{ too|, a nice touch}. {Some close ones are beside it|I added a few in the same spirit}; {would you like to go with it?|is it the one, or shall I keep looking?}',
  ],
  /** Nothing found for `w`; `slot` to change (cannot_help + elicit_preference): proposes a change. */
  none: [
    "{I couldn't find any|There are no|Nothing matches:|No luck with|I have no|We're out of|Sadly, zero hits for|The shelves are bare of|I searched in vain for} $w{.| here.| right now.| in stock.| today.| at the moment.} {Would you be open to a different $slot?|Open to another $slot?|Could we try a different $slot?|Maybe a different $slot?|Would another $slot do?|Flexible on the $slot?|Perhaps another $slot?|A different $slot, maybe?|Would a different $slot suit?|Happy with another $slot?}",
  ],
  noneAtAll: [
    "{I couldn't find anything matching that|Nothing matches that yet|That search came up empty|No luck with that one|I drew a blank there}. {Could you tell me more?|Can you say a bit more?|What else can you tell me?|Any other detail?|Tell me a little more?}",
  ],
  /** A comparison's verdict: `cheap` is the better deal, `dear` pricier (`dearer` its adjective). */
  verdict: [
    'The $cheap is the better deal; the $dear is the $dearer option.',
    '{For less|Cheaper}, go with the $cheap; the $dear is $dearer.',
    'The $cheap costs less{; the $dear is $dearer|}.',
  ],
  /** Greeting before the category question. */
  greet: ['Hi there! ', 'Hello! ', 'Welcome! ', '@r_hi ', 'Good to see you! ', 'Greetings! ', 'Hey! ', 'Welcome in! '],
} as const;

/**
 * More ways of saying the good agent's statements, drawn from the session's `reasons` generator
 * (see `LocalSession.reasons`) in place of the `GOOD_FRAMES` frame drawn from `words`, on turns
 * that ask nothing: statements only (no "?", which is a decision), no negation, no catalog value
 * and no attribute cue (test/unit/agents/local-wording.test.ts). Variables as in `GOOD_FRAMES`.
 */
export const GOOD_VARIANTS = {
  recommend: [
    'Straight off the rack: the $t, $why.',
    'This one jumped out at me: the $t, $why.',
    'I would grab the $t: $why.',
    'Fresh from the shelves, the $t is $why.',
    'Heading the line-up: the $t, $why.',
    'The $t earns its spot at the front: $why.',
    'Pride of place: the $t, $why.',
    'Lead candidate: the $t, $why.',
    'Hot tip: the $t, $why.',
    'Shoppers keep coming back for the $t: $why.',
    'Give the $t a whirl: $why.',
    'Among these $noun, the $t shines brightest: $why.',
    'The $t came up trumps: $why.',
    'Starting strong with the $t: $why.',
    'For my money, the $t: $why.',
    'Spotlight on the $t, $why.',
    '$n $noun lined up; pole position: the $t, $why.',
    'You might fancy the $t: $why.',
    'Cast an eye over the $t: $why.',
    'The $t makes a compelling case: $why.',
    'Allow me to suggest the $t: $why.',
    'Heading the shortlist is the $t, $why.',
    'The $t is my sincere favourite here: $why.',
    'Just landed on screen: the $t, $why.',
    'I reckon the $t is a winner: $why.',
    'A quick scan says the $t, $why.',
    'Worth your attention: the $t, $why.',
    'The $t leads my ranking: $why.',
    'From the racks, the $t leads: $why.',
    'Bookmark the $t: $why.',
    'Exhibit A: have a look at the $t, $why.',
    'I would wager on the $t: $why.',
    'Here is the $t, rising above the rest: $why.',
    'Look at the pick of the crop, the $t: $why.',
    'Here is nominee number one: the $t, $why.',
    'Unmissable among these: the $t, $why.',
  ],
  more: [
    'Another round of $noun. This time the $t leads: $why.',
    'Next up from the racks: the $t, $why.',
    'Fresh batch loaded. Front and centre, the $t: $why.',
    'Rolling on: the $t, $why.',
    'A new page of $noun, led by the $t, $why.',
    'Digging deeper, I turned up the $t: $why.',
    'Page two, so to speak: the $t, $why.',
    'Carrying on with $noun: the $t is $why.',
    'More from the stockroom: the $t, $why.',
    'Further along, the $t: $why.',
    'Plenty more where those came from: the $t, $why.',
    'Reloaded: here is the $t, $why.',
  ],
  rejected: [
    'Understood, a change of direction. The $t might land better: $why.',
    "Point taken. Let's try the $t: $why.",
    'Back to the drawing board: the $t, $why.',
    'Fair point. A fresh angle: the $t, $why.',
    'Those missed the mark, so here is the $t: $why.',
    'Scratch those. The $t could be closer: $why.',
    'Apologies for the misfire. Consider the $t: $why.',
    'Clean slate: the $t, $why.',
    'Taking that on board. Next, the $t: $why.',
    'Duly noted. The $t deserves a chance: $why.',
    'Lesson learnt. Here is the $t to consider: $why.',
    'Onwards, then: have a look at the $t, $why.',
  ],
  /** The first sentences of a similar-items turn; its question stays one of `GOOD_FRAMES.similar`'s. */
  similar: [
    'The $t has good company now: a few close matches sit beside it.',
    'Nice instinct with the $t. I lined up its nearest rivals.',
    'The $t it is, for now; its closest cousins are up too.',
    'A solid favourite, the $t. I pulled a handful in the same vein.',
    'You clearly warmed to the $t. Here is its extended family.',
    'I see the appeal of the $t. A few alternatives in the same mould are up.',
    'Good instinct: the $t. I gathered some near relations.',
    'The $t resonates, then. Here are a few of its closest peers.',
  ],
  similarAsk: [
    'Is it the one, or shall I keep looking?',
    'Want to go with it, or keep looking?',
    'Is it the one?',
    'Take it, or keep browsing?',
    'Shall I show even more?',
    'Is that your winner?',
  ],
  accept: [
    '{Great|Splendid} choice, the $t is yours. Enjoy every outing!',
    'Splendid choice, the $t. It should serve you for years.',
    'Wise choice! Wear the $t in good health.',
    'Thank you for your choice, the $t. Enjoy it!',
    'Marvellous choice, the $t. Sold!',
    'Lovely choice: the $t. A cracking find.',
    'The $t it is. Enjoy it!',
    'Good choice. Enjoy the $t!',
    'Glad we found it! Enjoy the $t.',
    'Wonderful. I hope the $t serves you well!',
    'Happy to hear it. Enjoy the $t!',
  ],
} as const;

/**
 * An item's own details from the catalog, said in place of a generic sentence (see
 * `LocalSession.swappable`): `$t` a short reference to the item ("Northvale gilet"), `$f` one or
 * two of its features that state no attribute value ("storm flap and lined body"), `$a` the same
 * with their articles ("a storm flap and a lined body", see `featureWithArticle`). Statements
 * only, no negation: a user reads nothing in them. `good`: instead of a closing invitation after
 * a recommendation; `bad`: instead of the hedged lead of a carousel, as vague as the agent.
 */
export const DETAIL_FRAMES = {
  good: [
    'Details on the $t: $f.',
    'On the $t, look for $a.',
    '{Worth noting|Nice touches|Good to know} on the $t: $f.',
    'The $t {also brings|comes with|offers} $a.',
  ],
  bad: [
    'The $t: $f.',
    '{Maybe|Perhaps} the $t, with $a.',
    '{Here|There} is the $t, with $a.',
    '{Or|Maybe} the $t: $f.',
  ],
  /** `bad` on a turn whose lead would name the same wish as the turn before (`HEDGED_AGAIN`): what is new on screen. */
  badAgain: ['{Here is|I found} the $t{: $f|, with $a}.', 'Here, the $t: $f.', 'I spotted the $t: $f.'],
} as const;

/**
 * The good agent's questions per slot (elicit_preference): each names its slot by a cue word of
 * `askedAttributes` and no other slot's. `ex` = example values ("a, b or c"), `noun` = the
 * category noun. `follow` = the variant asked beside a carousel (colour only).
 */
export const GOOD_QUESTIONS: Record<string, { plain: readonly string[]; examples: readonly string[] }> = {
  category: {
    plain: [
      'What are you {shopping|looking} for{ today|}?',
      'What are you looking for?',
      '{So, what|What} are we shopping for{ today|}?',
    ],
    examples: [
      'What can I help you find{ today|}: $ex?',
      '{Which|What} are you {after|looking for}, for example $ex?',
      'Are you shopping for $ex, or something else?',
    ],
  },
  type: {
    plain: [
      '{Do you have|Got|Have you got} a {|particular |specific }type in mind?',
      'Any particular kind of $noun?',
      'Which type of $noun suits you?',
    ],
    examples: [
      'Any particular kind of $noun, like $ex?',
      'Do you have a type in mind, say $ex?',
      'What kind{| of $noun} {do you want|are you after}: $ex?',
      'Which type{| of $noun}: $ex?',
    ],
  },
  gender: {
    plain: [
      'Are these for women, men, or would unisex work?',
      "Women's, men's or unisex?",
      'For women, men, or unisex?',
      "Which range: women's, men's or unisex?",
    ],
    examples: [],
  },
  occasion: {
    plain: [
      'Is this for a {particular|specific|special} occasion?',
      'Any occasion {in mind|coming up|on the horizon}?',
      "What's the occasion?",
    ],
    examples: [
      'What will you {mostly |}wear them for: $ex?',
      'Is this for a particular occasion, say $ex?',
      'Any occasion in mind, like $ex?',
      "What's the occasion: $ex?",
    ],
  },
  colour: {
    plain: [
      'Any colour {preference|leanings|favourites}?',
      'Do you have a colour in mind?',
      'Any shade you are drawn to?',
      'What colour {would you like|are you after}?',
    ],
    examples: ['Which colours do you like, for example $ex?', 'Any colour in mind, say $ex?'],
  },
  price_band: {
    plain: [
      'What is your budget like: budget, mid-range, premium or luxury?',
      'Roughly how much would you like to spend?',
      "What's your budget?",
      'How much {do you want|are you happy|are you prepared|would you like} to spend?',
    ],
    examples: [],
  },
  material: {
    plain: ['Do you have a preferred material?', 'Any fabric you prefer?'],
    examples: ['Any material you prefer, such as $ex?', 'Which fabric do you like, say $ex?'],
  },
  style: {
    plain: ['How would you describe your style?', 'Which style suits you?'],
    examples: ['What style do you lean towards: $ex?', 'Which style suits you, say $ex?'],
  },
};

/**
 * More ways of asking each slot's question (drawn from `reasons` in place of the `GOOD_QUESTIONS`
 * frame drawn from `words`, on turns that ask nothing): the same cue words of that slot and no
 * other's, no word a user reads as a proposal ("another", "instead", "open to"), as "wearing" or
 * "for whom", or as a category question ("shopping for"); the same `$ex` values
 * (test/unit/agents/local-wording.test.ts reads each as the users do).
 */
export const GOOD_QUESTION_VARIANTS: Record<string, { plain: readonly string[]; examples: readonly string[] }> = {
  type: {
    plain: [
      'What sort of $noun are you picturing?',
      'Which kind of $noun do you fancy?',
      'Got a particular type of $noun in mind?',
      'Narrowing it down: what sort of $noun?',
      'What type of $noun should I track down?',
    ],
    examples: [
      'What sort of $noun appeals: $ex?',
      'Which kind tempts you, $ex?',
      'Which type would you go for: $ex?',
      'What sort are you picturing, say $ex?',
    ],
  },
  gender: {
    plain: [
      "Should I browse the women's, men's or unisex racks?",
      "Men's, women's, or unisex: which section?",
      "Which cut suits: women's, men's or unisex?",
    ],
    examples: [],
  },
  occasion: {
    plain: [
      'Is there an event coming up?',
      'What will you use them for mostly?',
      'Any special occasion behind this?',
      'Is there an occasion I should plan around?',
    ],
    examples: ['What event is it for: $ex?', 'Any occasion, like $ex?', 'Where will you use them most, $ex?'],
  },
  colour: {
    plain: [
      'Which shade appeals to you?',
      'Any colour you gravitate towards?',
      'Favourite colour, perhaps?',
      'What shade should I aim for?',
    ],
    examples: ['Which shade tempts you, say $ex?', 'Any colour favourites, such as $ex?'],
  },
  price_band: {
    plain: [
      'Roughly what budget are we working with?',
      'What price range feels comfortable?',
      'How much would you like to spend, roughly?',
      'Have you set yourself a budget?',
    ],
    examples: [],
  },
  material: {
    plain: ['Any material you swear by?', 'Which fabric feels best to you?', 'Is there a fabric you favour?'],
    examples: ['Which material appeals, say $ex?', 'Any fabric favourites, like $ex?'],
  },
  style: {
    plain: ['What vibe are you going for?', 'Which look are you after?', 'How would you sum up your style?'],
    examples: ['Which vibe suits you: $ex?', 'What look appeals, say $ex?'],
  },
};

/** The colour question beside a carousel. */
export const COLOUR_FOLLOW_UP = [
  'Would you like to narrow these down by colour?',
  'Shall I filter these by colour?',
  'Want to narrow them by colour?',
];

/**
 * The agent's own price step ("fancier" read as over the dearest item shown) left nothing in `w`:
 * it says so before the dearest (cheapest) items that fit everything else (the step is taken back).
 */
export const STEP_UNDONE = {
  pricier: [
    "{I have nothing pricier in $w|Nothing dearer in $w, I'm afraid|That's the top of the range for $w}, {so here are the dearest I have|so these are the priciest|but these are the most upmarket I have}.",
  ],
  cheaper: [
    "{I have nothing cheaper in $w|Nothing for less in $w, I'm afraid|That's the low end for $w}, {so here are the cheapest I have|so these cost the least|but these are the most affordable I have}.",
  ],
} as const;

/**
 * Whether the user's words say it is leaving without what it came for ("I don't think I'll find
 * it here. Thanks anyway.", "I'll look elsewhere", "this is going nowhere"): read for the words of
 * the answer only (no thanks for being helped), never for what the agent does.
 */
export function leavesUnserved(utterance: string): boolean {
  return UNSERVED.test(utterance.toLowerCase().replace(/\u2019/g, "'"));
}

const UNSERVED = new RegExp(
  [
    'thanks? anyway',
    'cheers anyway',
    'all the same',
    'elsewhere',
    'on my own',
    "(?:won't|not going to|don't think i'll|can't) find",
    "not (?:quite )?what i'?m after",
    'stop (?:here|there)',
    'leave it (?:there|for now)',
    '(?:going|getting) nowhere',
    'not getting anywhere',
    "(?:isn't|is not|not) working",
    'give up',
    'shop around',
    'other shop',
    'another website',
    'fed up',
    'frustrated',
    'lost interest',
    'patience',
    'not listening',
    "you've lost me",
    'not for me',
    'call it quits',
    'bowing out',
    "i'm off",
    'no luck',
    'nothing is clicking',
    "hasn't got me anywhere",
    'ask a friend',
  ]
    .map((p) => `\\b${p}\\b`)
    .join('|'),
);

/** The verbs the frames put after "it" when they speak of one item, with their plural. */
const IT_VERB: Readonly<Record<string, string>> = {
  is: 'are',
  has: 'have',
  comes: 'come',
  boasts: 'boast',
  'also offers': 'also offer',
  packs: 'pack',
};
const IT_CLAUSE = new RegExp(`(^|[.!?:]\\s+|, )(I|i)t (${Object.keys(IT_VERB).join('|')})\\b`, 'g');

/**
 * `text` about one item whose type is a plural noun ("Hiking Boots", "Yoga Pants") with "it" made
 * "they" and its verb agreeing ("It comes with a lining" -> "They come with a lining"; "Enjoy it"
 * -> "Enjoy them"). Only the pronoun-led clauses the frames say of the item, at the start of a
 * sentence or after ", " or ": "; "it" elsewhere is left alone.
 */
export function pluralPronouns(text: string): string {
  return text
    .replace(
      IT_CLAUSE,
      (_m, lead: string, i: string, verb: string) => `${lead}${i === 'I' ? 'They' : 'they'} ${IT_VERB[verb]}`,
    )
    .replace(/\bEnjoy it\b/g, 'Enjoy them');
}

/**
 * What a catalog feature is for, said as a shop assistant explains it (our own words): per feature
 * (lower case, as `namedFeatures` gives it), noun phrases that hold the feature's words as they
 * are and say its purpose, never a fact about one item beyond having the feature ("a storm flap
 * to keep rain off the zip"). Said in place of the bare feature (`$a`) in a reason or a
 * confirmation, on turns that ask nothing; no catalog value, no negation, no question
 * (test/unit/agents/local-good-explain.test.ts reads each with the lexicon).
 */
export const FEATURE_NOTES: Readonly<Record<string, readonly string[]>> = {
  'removable footbed': [
    'a removable footbed, handy if you use your own insoles',
    'a removable footbed you can air out',
    'a removable footbed that is easy to replace',
  ],
  'padded collar': [
    'a padded collar for comfort where it rubs most',
    'a padded collar that spares your ankles',
    'a padded collar that cushions the ankle',
  ],
  'arch support': [
    'arch support for long days on your feet',
    'arch support that eases tired feet',
    'arch support for a steadier stride',
  ],
  'cushioned insole': [
    'a cushioned insole that softens every step',
    'a cushioned insole for hours of comfort',
    'a cushioned insole that takes the sting out of hard pavements',
  ],
  'breathable lining': [
    'a breathable lining against stuffiness',
    'a breathable lining that lets air through',
    'a breathable lining for warm afternoons',
  ],
  'flexible sole': [
    'a flexible sole that bends with your foot',
    'a flexible sole for a natural stride',
    'a flexible sole that makes walking feel easy',
  ],
  'side vents': [
    'side vents that give you room to move',
    'side vents for ease when you sit',
    'side vents that keep the hem from bunching',
  ],
  'tagless neck label': [
    'a tagless neck label for a smooth feel at the nape',
    'a tagless neck label, kind to sensitive skin',
    'a tagless neck label that feels smooth',
  ],
  'packable design': [
    'a packable design that folds away small',
    'a packable design for a spare layer on the go',
    'a packable design that takes up hardly any room',
  ],
  'stand collar': [
    'a stand collar that keeps the breeze off your neck',
    'a stand collar that frames the face',
    'a stand collar for a crisp outline',
  ],
  'pre-shrunk fabric': [
    'pre-shrunk fabric that keeps its size after washing',
    'pre-shrunk fabric, so what fits today still fits after washing',
    'pre-shrunk fabric that washes true to size',
  ],
  'reinforced seams': [
    'reinforced seams for a long life',
    'reinforced seams for years of use',
    'reinforced seams at the points of strain',
  ],
  'ribbed cuffs': [
    'ribbed cuffs that hold at the wrist',
    'ribbed cuffs to keep draughts out of the sleeves',
    'ribbed cuffs that keep their grip wash after wash',
  ],
  'adjustable cuffs': [
    'adjustable cuffs to seal out the wind',
    'adjustable cuffs you can tighten over a wrist',
    'adjustable cuffs that close snugly',
  ],
  'relaxed fit': [
    'a relaxed fit with room to breathe',
    'a relaxed fit that sits easy',
    'a relaxed fit for lazy weekends',
  ],
  'snap buttons': [
    'snap buttons, quick to open and close',
    'snap buttons that fasten in a moment',
    'snap buttons that save fiddling',
  ],
  'zip front': [
    'a zip front, easy on and off',
    'a zip front for quick changes',
    'a zip front you can work with one hand',
  ],
  'two hand pockets': [
    'two hand pockets to tuck your hands into',
    'two hand pockets for chilly mornings',
    'two hand pockets, right where you want them',
  ],
  'stretch waistband': [
    'a stretch waistband that gives when you sit',
    'a stretch waistband for comfort after lunch',
    'a stretch waistband for long car journeys',
  ],
  'high rise': [
    'a high rise that sits at the natural waist',
    'a high rise that stays put when you bend',
    'a high rise that smooths the silhouette',
  ],
  'storm flap': [
    'a storm flap to keep rain off the zip',
    'a storm flap that shields the zip from gusts',
    'a storm flap that seals in the warmth',
  ],
  'inner chest pocket': [
    'an inner chest pocket, a safe spot for your phone',
    'an inner chest pocket for your wallet',
    'an inner chest pocket close to hand',
  ],
  'lined body': [
    'a lined body that slips on smoothly',
    'a lined body for an extra layer of warmth',
    'a lined body that keeps the chill out',
  ],
  'drop-tail hem': [
    'a drop-tail hem that covers you when you bend',
    'a drop-tail hem that keeps your back covered',
    'a drop-tail hem for cover at the back',
  ],
  'adjustable straps': [
    'adjustable straps to get the length just right',
    'adjustable straps that suit any height',
    'adjustable straps that hold their setting',
  ],
  'soft hand feel': [
    'a soft hand feel you notice straight away',
    'a soft hand feel that is gentle on skin',
    'a soft hand feel that makes it a favourite',
  ],
  'back welt pockets': ['back welt pockets for a tidy line', 'back welt pockets that keep their shape'],
  'easy care': ['easy care, with very little upkeep', 'easy care that saves you time'],
  'reflective trims': [
    'reflective trims that catch headlights after dark',
    'reflective trims for dusk and dawn outings',
    'reflective trims for safer evenings out',
  ],
  'adjustable fit': [
    'an adjustable fit to suit you exactly',
    'an adjustable fit you can tweak in seconds',
    'an adjustable fit that grows with your needs',
  ],
  'breathable panels': [
    'breathable panels to let heat escape',
    'breathable panels in the spots that warm up most',
    'breathable panels for airflow when you move',
  ],
  'key clip': [
    'a key clip to keep your keys handy',
    'a key clip for quick access to your keys',
    'a key clip that saves rummaging',
  ],
  'hidden back zip': [
    'a hidden back zip for a clean line',
    'a hidden back zip that stays out of sight',
    'a hidden back zip that keeps the front clean',
  ],
  'moisture-wicking fabric': [
    'moisture-wicking fabric that draws damp away from the skin',
    'moisture-wicking fabric for hard sessions',
    'moisture-wicking fabric that keeps you drier',
  ],
  'anti-odour treatment': [
    'an anti-odour treatment for lasting freshness',
    'an anti-odour treatment for back-to-back sessions',
    'an anti-odour treatment for a fresher feel',
  ],
  'sweat-proof phone pocket': [
    'a sweat-proof phone pocket for your music on the move',
    'a sweat-proof phone pocket that keeps your phone dry',
    'a sweat-proof phone pocket that sits close to the body',
  ],
  'interior zip pocket': [
    'an interior zip pocket for the small things',
    'an interior zip pocket for cards and keys',
    'an interior zip pocket for your valuables',
  ],
  'water-repellent coating': [
    'a water-repellent coating that sheds a light shower',
    'a water-repellent coating so drizzle beads off',
    'a water-repellent coating for surprise showers',
  ],
  'quick-dry finish': [
    'a quick-dry finish that dries fast after a wash',
    'a quick-dry finish for damp days',
    'a quick-dry finish for a rinse in the sink',
  ],
  'durable stitching': [
    'durable stitching made to take a beating',
    'durable stitching that holds up to heavy use',
    'durable stitching for seasons of wear',
  ],
  'zip key pocket': [
    'a zip key pocket to keep your keys secure',
    'a zip key pocket for a house key',
    'a zip key pocket that keeps coins from rattling',
  ],
  'padded back panel': [
    'a padded back panel that sits softly on your back',
    'a padded back panel for heavy loads',
    'a padded back panel that spreads the weight',
  ],
  'detachable strap': ['a detachable strap: carry it by hand or on the shoulder'],
  'lined interior': [
    'a lined interior that protects what you carry',
    'a lined interior that is easy to wipe out',
    'a lined interior that keeps small things in view',
  ],
  'flatlock seams': ['flatlock seams that lie smooth against the skin'],
  'chafe-free seams': ['chafe-free seams for long sessions'],
  'magnetic snap': [
    'a magnetic snap that closes with one hand',
    'a magnetic snap for quick access',
    'a magnetic snap that shuts quietly',
  ],
  'lace-up closure': ['a lace-up closure for a snug hold'],
  'belted waist': ['a belted waist to define the shape'],
  'plush lining': ['a plush lining that feels cosy from day one'],
  'waterproof membrane': ['a waterproof membrane for puddles and downpours'],
  'touchscreen fingertips': ['touchscreen fingertips to use your phone with them on'],
  'quilted baffles': ['quilted baffles that keep the fill evenly spread'],
  'elastic side panels': ['elastic side panels that make them easy to pull on'],
  'responsive foam midsole': ['a responsive foam midsole with a springy step'],
  'chlorine-resistant fabric': ['chlorine-resistant fabric that lasts through many lengths'],
  'polarized lenses': ['polarized lenses that cut the glare off water and roads'],
  'uv400 protection': ['UV400 protection against harsh sun'],
  'upf 50 protection': ['UPF 50 protection to shield your skin'],
  'lugged outsole': ['a lugged outsole that grips on rough ground'],
  'sealed seams': ['sealed seams to keep water from creeping through the stitching'],
  'silicone hem gripper': ['a silicone hem gripper that stops the hem riding up'],
  'trolley sleeve': ['a trolley sleeve that fits over a suitcase handle'],
  'quartz movement': ['a quartz movement that keeps accurate time'],
  'compression fit': ['a compression fit that supports your muscles'],
  'gusseted crotch': ['a gusseted crotch for freedom to move'],
  'kangaroo pocket': ['a kangaroo pocket to warm your hands'],
  'drawstring waist': ['a drawstring waist you can tighten to suit'],
  'raglan sleeves': ['raglan sleeves that give the shoulders room'],
  'wide waistband': ['a wide waistband that stays smooth and comfy'],
  'contoured footbed': ['a contoured footbed shaped to your foot'],
  'crew neckline': [
    'a crew neckline that layers easily',
    'a crew neckline that suits most faces',
    'a crew neckline that sits neatly under a layer',
  ],
  'straight leg': [
    'a straight leg that falls cleanly',
    'a straight leg that suits most shapes',
    'a straight leg that suits most outfits',
  ],
  'slim fit': ['a slim fit for a sharp outline', 'a slim fit that looks tailored', 'a slim fit that skims the body'],
  'five pockets': [
    'five pockets for your odds and ends',
    'five pockets, room for phone, keys and cards',
    'five pockets in the usual places',
  ],
  'rolled hems': [
    'rolled hems for a neat edge',
    'rolled hems for an easy-going finish',
    'rolled hems that hold their roll',
  ],
  'curved hem': [
    'a curved hem that sits well untucked',
    'a curved hem that flatters the hips',
    'a curved hem that falls softly',
  ],
  'zip fly': ['a zip fly, quick and secure', 'a zip fly that lies neatly', 'a zip fly that stays closed'],
  'tapered leg': [
    'a tapered leg that looks neat',
    'a tapered leg for a trim line',
    'a tapered leg that keeps the hem out of the way',
  ],
  'side pockets': [
    'side pockets right where your hands go',
    'side pockets for your phone',
    'side pockets deep enough for a phone',
  ],
  'smocked back': [
    'a smocked back that gives a close fit',
    'a smocked back for an easy fit',
    'a smocked back that moves with you',
  ],
  'square neckline': [
    'a square neckline that shows off the collarbones',
    'a square neckline that frames the shoulders',
    'a square neckline that pairs well with a necklace',
  ],
  'fitted bodice': [
    'a fitted bodice that flatters the waist',
    'a fitted bodice that holds its line',
    'a fitted bodice with a neat shape',
  ],
  'button front': [
    'a button front, easy to put on',
    'a button front that opens fully',
    'a button front for easy layering',
  ],
  'full zip': ['a full zip that opens right up on warm days'],
  'ribbed collar': ['a ribbed collar that keeps its shape'],
  'folded high neck': ['a folded high neck to keep your throat warm'],
  'slant pockets': ['slant pockets that are easy to reach'],
  'tie neck': ['a tie neck you can bow or leave loose'],
  'notched lapels': ['notched lapels for a tailored look'],
  'brushed interior': ['a brushed interior, soft against the skin'],
  'removable pads': ['removable pads you can take out for washing'],
  'bellows pockets': ['bellows pockets that expand when full'],
  'fringed ends': ['fringed ends that swing as you walk'],
  'waist strap': ['a waist strap that steadies the load'],
  'button placket': ['a button placket for an open or closed collar'],
  'bias cut': ['a bias cut that drapes and moves'],
  'patch pockets': ['patch pockets, roomy and handy'],
  'pleated front': ['a pleated front for room through the hips'],
  'three rear pockets': ['three rear pockets for snacks on long rides'],
  'fold-up cuff': ['a fold-up cuff to cover the ears'],
  'brushed buckle': ['a brushed buckle that hides scratches'],
  'curved brim': ['a curved brim that keeps sun off your face'],
  'chain strap': ['a chain strap for an evening touch'],
  'front flap': ['a front flap that keeps things tucked in'],
  'insulated hood': ['an insulated hood for biting days'],
  'drawstring hood': ['a drawstring hood you can pull snug'],
  'adjustable hood': ['an adjustable hood that moves with your head'],
  'faux-fur trim': ['a faux-fur trim for a cosy frame around the face'],
  'self-tie waist': ['a self-tie waist you set to your own fit'],
};

/** The notes (`FEATURE_NOTES`) of one of an item's features, empty for a feature without one. */
export function featureNotes(feature: string): readonly string[] {
  return FEATURE_NOTES[feature.toLowerCase()] ?? [];
}
