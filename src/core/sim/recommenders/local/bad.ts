/**
 * `local-bad`: a subtly unhelpful recommender standing in for ConvApparel's "bad" agent. Every
 * behaviour below is drawn from the session's seeded Rng with the probability in
 * `BAD_BEHAVIOURS`, and the behaviours of the latest turn are readable as `lastBehaviours`.
 *
 * - misread: a recognised value is swapped for a near neighbour ("black" heard as "navy",
 *   "sneakers" as "running shoes"); the agent says what it (mis)heard and searches for it.
 * - tangent: asks a question that is beside the point or assumes something never said.
 * - latch: when the user gives two or more criteria, fixates on the least important one, asks
 *   about it in needless detail and searches for it alone.
 * - trivia: adds a fun fact, mostly right after the user gave information.
 * - reask: circles back to a preference the user already gave, phrased differently.
 * - no_clear_path: never closes; an acceptance gets a hedge instead of a confirmation, and
 *   carousels are introduced without a definite recommendation.
 * Retrieval uses the partial-text index (title and the first 80 characters of the description)
 * with the category as the only filter; negations and rejections are not honoured (the agent
 * reads them, and says so in `agent_trace.negated`, but does not filter on them). When the
 * partial text matches nothing, it shows random items of the category (`agent_trace.fallback`).
 */
import type { Catalog, CatalogItem } from '../../../catalog/item';
import type { RecommendedItem } from '../../../model';
import type { AgentResponse } from '../../types';
import { LocalAgent, LocalSession } from './agent';
import { mentionsOutside, type Mention, type ParsedUtterance } from './lexicon';
import { categoryNoun, describeWanted } from './phrases';
import { CAROUSEL_SIZE, dropTitleWords, negatedValues, oneOf, referencedItem, slotWord, type AgentTrace } from './good';
import { slotRank } from './state';

/** Probability of each bad behaviour per turn (where it applies). */
export const BAD_BEHAVIOURS = {
  /** Swap one recognised non-category value for a neighbour, when the user gave one. */
  misread: 0.5,
  /** Ask a tangential question. */
  tangent: 0.5,
  /** Fixate on the least important criterion, when the user gave two or more. */
  latch: 0.7,
  /** Add a fun fact after the user gave information. */
  triviaAfterInfo: 0.6,
  /** Add a fun fact otherwise. */
  trivia: 0.25,
  /** Re-ask an already answered preference. */
  reask: 0.35,
} as const;

/** Names of the bad behaviours, as recorded in `LocalBadSession.lastBehaviours`. */
export type BadBehaviour = 'misread' | 'tangent' | 'latch' | 'trivia' | 'reask' | 'no_clear_path';

/** Near neighbours used for misreadings (values of the synthetic catalog); others fall back to a random value of the same slot. */
const NEIGHBOURS: Record<string, string[]> = {
  black: ['navy', 'grey'],
  white: ['cream', 'beige'],
  grey: ['black', 'navy'],
  navy: ['blue', 'black'],
  blue: ['navy', 'purple'],
  red: ['burgundy', 'orange'],
  burgundy: ['red', 'purple'],
  green: ['olive'],
  olive: ['green', 'brown'],
  brown: ['tan', 'burgundy'],
  tan: ['beige', 'brown'],
  beige: ['cream', 'tan'],
  cream: ['white', 'beige'],
  pink: ['red', 'purple'],
  purple: ['pink', 'burgundy'],
  yellow: ['orange', 'cream'],
  orange: ['yellow', 'red'],
  leather: ['suede', 'synthetic'],
  suede: ['leather'],
  canvas: ['mesh', 'knit'],
  mesh: ['knit', 'canvas'],
  knit: ['mesh'],
  rubber: ['synthetic'],
  synthetic: ['leather', 'rubber'],
  wool: ['cashmere', 'fleece'],
  cashmere: ['wool'],
  down: ['polyester', 'nylon'],
  nylon: ['polyester'],
  polyester: ['nylon'],
  denim: ['twill', 'cotton'],
  fleece: ['wool'],
  cotton: ['linen', 'jersey'],
  linen: ['cotton'],
  silk: ['satin'],
  satin: ['silk', 'chiffon'],
  chiffon: ['satin'],
  jersey: ['cotton'],
  twill: ['denim'],
  spandex: ['nylon'],
  merino: ['polyester'],
  sneakers: ['running shoes'],
  'running shoes': ['sneakers'],
  'ankle boots': ['chelsea boots'],
  'chelsea boots': ['ankle boots'],
  'hiking boots': ['ankle boots'],
  sandals: ['slippers'],
  loafers: ['ballet flats'],
  heels: ['ballet flats'],
  'ballet flats': ['loafers'],
  slippers: ['sandals'],
  parka: ['puffer jacket'],
  'puffer jacket': ['parka', 'gilet'],
  'rain jacket': ['trench coat'],
  'trench coat': ['wool coat'],
  'wool coat': ['trench coat'],
  'bomber jacket': ['leather jacket'],
  'denim jacket': ['bomber jacket'],
  'leather jacket': ['bomber jacket'],
  'fleece jacket': ['gilet'],
  gilet: ['fleece jacket'],
  't-shirt': ['tank top', 'polo shirt'],
  shirt: ['blouse', 'polo shirt'],
  blouse: ['shirt'],
  sweater: ['cardigan', 'turtleneck'],
  hoodie: ['sweater'],
  cardigan: ['sweater'],
  'polo shirt': ['t-shirt'],
  'tank top': ['t-shirt'],
  turtleneck: ['sweater'],
  jeans: ['chinos'],
  chinos: ['trousers'],
  trousers: ['chinos'],
  shorts: ['skirt'],
  skirt: ['shorts'],
  leggings: ['joggers'],
  joggers: ['leggings'],
  'cargo pants': ['chinos'],
  'maxi dress': ['midi dress'],
  'midi dress': ['maxi dress', 'wrap dress'],
  'mini dress': ['midi dress'],
  'wrap dress': ['shirt dress'],
  'shirt dress': ['wrap dress'],
  'slip dress': ['mini dress'],
  'sweater dress': ['shirt dress'],
  jumpsuit: ['maxi dress'],
  'sports bra': ['tank top'],
  'running tights': ['yoga pants'],
  'yoga pants': ['running tights'],
  'training shorts': ['running tights'],
  'track jacket': ['performance tee'],
  'performance tee': ['track jacket'],
  'cycling jersey': ['performance tee'],
  swimsuit: ['sports bra'],
  scarf: ['gloves'],
  beanie: ['baseball cap'],
  'baseball cap': ['sun hat'],
  'sun hat': ['baseball cap'],
  belt: ['watch'],
  gloves: ['scarf'],
  sunglasses: ['sun hat'],
  watch: ['belt'],
  backpack: ['messenger bag'],
  'tote bag': ['crossbody bag'],
  'crossbody bag': ['belt bag'],
  'duffel bag': ['backpack'],
  clutch: ['crossbody bag'],
  'messenger bag': ['laptop bag'],
  'belt bag': ['crossbody bag'],
  'laptop bag': ['messenger bag'],
  women: ['unisex'],
  men: ['unisex'],
  unisex: ['women', 'men'],
  budget: ['mid-range'],
  'mid-range': ['premium', 'budget'],
  premium: ['luxury', 'mid-range'],
  luxury: ['premium'],
  everyday: ['lounge', 'travel'],
  work: ['travel', 'everyday'],
  party: ['date night', 'wedding'],
  wedding: ['party'],
  travel: ['everyday'],
  hiking: ['travel', 'running'],
  running: ['gym', 'hiking'],
  gym: ['yoga', 'running'],
  beach: ['travel'],
  winter: ['hiking', 'everyday'],
  lounge: ['everyday'],
  'date night': ['party'],
  yoga: ['gym'],
  cycling: ['running'],
  swimming: ['beach', 'gym'],
  school: ['work'],
  casual: ['sporty', 'minimalist'],
  classic: ['vintage', 'preppy'],
  sporty: ['streetwear', 'casual'],
  minimalist: ['classic'],
  vintage: ['bohemian', 'classic'],
  streetwear: ['sporty'],
  elegant: ['classic'],
  bohemian: ['vintage'],
  rugged: ['sporty'],
  preppy: ['classic'],
};

const TANGENTS = [
  'Will you be wearing them mostly indoors or outdoors?',
  'Is this for a special trip you have planned?',
  'Do you usually shop for yourself, or is this a gift for someone with strong opinions?',
  'How do you feel about pockets in general?',
  'Are you the kind of person who plans outfits the night before?',
  'Do you live somewhere with a lot of rain?',
  'Have you ever had something tailored?',
  'What do your friends usually say about your style?',
  'Do you prefer shopping in the morning or in the evening?',
  'Would you call yourself more of a city person or a countryside person?',
  'Are you thinking about how it will look in photos?',
  'Do you often walk long distances?',
  'Since you will be commuting a lot, does it need to fit in a locker?',
  'Is there a colour you absolutely refuse to wear, for sentimental reasons?',
];

const TRIVIA: Record<string, string[]> = {
  general: [
    "Fun fact: for a long time, pockets in women's clothing were separate pouches tied around the waist.",
    'Did you know the word "fashion" comes from the Latin for "making"?',
    'Fun fact: buttons were used as ornaments long before anyone used them to fasten clothes.',
    'Did you know zips only became common in clothing in the 1930s?',
  ],
  black: ['Fun fact: black fabric absorbs more sunlight, so it can feel noticeably warmer on a sunny day.'],
  white: ['Did you know white reflects most visible light, which is why it is popular in hot climates?'],
  navy: ['Fun fact: navy blue takes its name from the uniforms of the British Royal Navy.'],
  purple: ['Fun fact: purple dye was once so costly that it became a colour of royalty.'],
  orange: ['Did you know the colour orange was named after the fruit, not the other way round?'],
  denim: ['Fun fact: "denim" is thought to come from "serge de Nîmes", a fabric from the French town of Nîmes.'],
  jeans: ['Did you know the word "jeans" is usually traced back to the Italian city of Genoa?'],
  silk: [
    'Fun fact: silk comes from the cocoons of silkworms, and one cocoon can be unwound into a single long thread.',
  ],
  linen: ['Did you know linen is made from flax, one of the oldest cultivated fibres?'],
  cashmere: ['Fun fact: cashmere comes from the soft undercoat of cashmere goats.'],
  wool: ['Fun fact: wool can take up quite a lot of moisture before it starts to feel wet.'],
  leather: ['Fun fact: people have been making clothing from leather for many thousands of years.'],
  sneakers: ['Fun fact: sneakers are said to be named for how quietly their rubber soles let you walk.'],
  heels: ['Did you know heels were first worn by men, as riding footwear?'],
  'chelsea boots': [
    'Fun fact: Chelsea boots are named after the London district where they became fashionable in the 1960s.',
  ],
  cardigan: ['Did you know the cardigan is named after the 7th Earl of Cardigan?'],
  'trench coat': ['Fun fact: the trench coat takes its name from the trenches of the First World War.'],
  parka: ['Fun fact: the parka comes from Arctic peoples, who made the first ones from animal skins.'],
  't-shirt': ['Fun fact: the T-shirt started out as an undershirt.'],
  'polo shirt': ['Did you know the polo shirt was popularised on the tennis court, not the polo field?'],
  swimsuit: ['Fun fact: the bikini was named after Bikini Atoll in the Pacific.'],
  footwear: ['Did you know the oldest known leather shoe is more than five thousand years old?'],
  outerwear: ['Fun fact: some of the earliest waterproof coats were made by coating cloth with rubber.'],
};

const LATCH_QUESTIONS: Record<string, ((v: string) => string)[]> = {
  colour: [
    (v) => `You mentioned ${v}. Are you picturing a warm ${v} or a cool ${v}? And matte, or with a bit of sheen?`,
    (v) =>
      `Let us talk about ${v} for a moment: there are so many shades of it. Something subtle, or ${/^[aeiou]/i.test(v) ? 'an' : 'a'} ${v} that really stands out?`,
  ],
  material: [
    (v) =>
      `When you say ${v}, do you mean genuine ${v}, or just something with ${/^[aeiou]/i.test(v) ? 'an' : 'a'} ${v} look? And how do you feel about how ${v} ages?`,
    (v) =>
      `${v.charAt(0).toUpperCase() + v.slice(1)} is such an interesting choice. How thick would you like it, and does the texture matter to you?`,
  ],
  style: [
    (v) => `What does ${v} mean to you, exactly? Some people think of ${v} as more of a mood than a look.`,
    (v) =>
      `I want to get ${v} right: is it ${v} like a magazine shoot, or ${v} like something you would just throw on?`,
  ],
  occasion: [
    (v) => `For ${v}, would that be a long day or a short one? And mostly indoors, or out?`,
    (v) => `Tell me more about the ${v} part: how often, and with whom?`,
  ],
  price_band: [(v) => `When you say ${v}, is that ${v} for you, or ${v} compared with what most people spend?`],
  gender: [(v) => `Just so I understand: ${v} as in the cut, or as in the styling?`],
  brand: [(v) => `Why ${v}, if you do not mind me asking? Is it the fit, or something about the brand story?`],
  type: [(v) => `When you say ${v}, what exactly do you picture? People mean surprisingly different things by ${v}.`],
};

const REASK: Record<string, ((v: string) => string)[]> = {
  colour: [
    () => 'Just to double-check, what colour did you have in mind?',
    () => 'Sorry, remind me: which colour was it again?',
  ],
  gender: [() => 'Going back a step: was this for women or men?', () => 'And these are for whom, again?'],
  occasion: [() => 'Which occasion was this for, again?', () => 'Remind me, where will you be wearing them?'],
  material: [
    () => 'Did you have a material in mind, or was that not important?',
    () => 'What material were you hoping for, again?',
  ],
  price_band: [() => 'Could you remind me of your budget?', () => 'How much were you planning to spend, roughly?'],
  style: [() => 'How would you describe the style you are after, once more?'],
  type: [(v) => `So, was it ${v} you wanted, or something along those lines?`],
  category: [() => 'Just to be clear, what are we shopping for today?'],
};

const HEDGED_LEADS: ((what: string) => string)[] = [
  (what) => `Here are a few things that came up for ${what}; some of them might be close to what you mean.`,
  (what) => `I pulled up some ${what}, although it is hard to say which would be best.`,
  (what) => `These might be in the right direction for ${what}, or maybe not quite.`,
  (what) => `There are plenty of ${what} around; here is a selection, in no particular order.`,
];

const NO_CLOSE: ((title: string) => string)[] = [
  (title) => `Hmm, the ${title} could work, I suppose. Though it might be worth sleeping on it.`,
  (title) => `The ${title}? Interesting pick. There are a lot of similar ones out there, so who knows.`,
  () => `That one is certainly an option. Then again, so are the others, in their own way.`,
  (title) => `Sure, the ${title} is one possibility. I would not want to rush you, though.`,
];

/** The `local-bad` agent: shares the catalog and lexicon between its sessions. */
export class LocalBadAgent extends LocalAgent<LocalBadSession> {
  constructor(catalog: Catalog) {
    super('local-bad', 'bad', catalog, (c, lexicon, rng) => new LocalBadSession(c, lexicon, rng));
  }
}

/** One `local-bad` conversation. */
export class LocalBadSession extends LocalSession<BadTrace> {
  /** The behaviours that fired on the latest turn (for tests and traces). */
  lastBehaviours: BadBehaviour[] = [];
  /** Misreadings so far: what the user said -> what the agent heard. */
  readonly misreadings: { slot: string; said: string; heard: string }[] = [];

  protected answer(userUtterance: string): AgentResponse {
    this.turn++;
    const { rng, state } = this;
    const behaviours: BadBehaviour[] = [];
    this.lastBehaviours = behaviours;
    const parsed = this.lexicon.parse(userUtterance);
    const acts: string[] = [];
    const parts: string[] = [];

    const refs = this.lexicon.findItems(parsed, state.shown);
    const mentions = mentionsOutside(parsed.mentions, refs);
    if (refs.length) dropTitleWords(parsed, refs);
    if (parsed.intents.has('accept') && state.shown.length) {
      behaviours.push('no_clear_path');
      const item = refs[0]?.item ?? referencedItem(parsed, state.shown, mentions) ?? state.shown[0];
      parts.push(rng.pick(NO_CLOSE)(item.title));
      behaviours.push('tangent');
      parts.push(rng.pick(TANGENTS));
      return this.finish(parts, state.shown, ['chit_chat', 'ask_clarification_question']);
    }

    // misread one recognised value
    const candidates = mentions.filter((m) => !m.negated && m.slot !== 'category');
    let misread: { slot: string; said: string; heard: string } | undefined;
    if (candidates.length && rng.chance(BAD_BEHAVIOURS.misread)) {
      const i = mentions.indexOf(rng.pick(candidates));
      const m = mentions[i];
      const heard = this.neighbour(m);
      if (heard !== undefined) {
        mentions[i] = { ...m, value: heard };
        misread = { slot: m.slot, said: m.value, heard };
        this.misreadings.push(misread);
        behaviours.push('misread');
      }
    }
    const before = new Set(state.wanted.keys());
    const update = state.apply(parsed, mentions);
    this.trace.negated = negatedValues(update.removed);
    if (misread) this.trace.misread = { ...misread };
    const gaveInfo = update.added.length > 0 || update.removed.length > 0;

    // latch onto the least important criterion given this turn
    let latched: Mention | undefined;
    const given = update.added.filter((m) => m.slot !== 'category');
    if (new Set(given.map((m) => m.slot)).size >= 2 && rng.chance(BAD_BEHAVIOURS.latch)) {
      latched = given.reduce((a, b) => (slotRank(b.slot) > slotRank(a.slot) ? b : a));
      behaviours.push('latch');
    }

    // retrieval over partial text
    let items: CatalogItem[] = [];
    if (state.category !== undefined) items = this.retrieve(latched);

    const override = misread ? new Map([[misread.slot, misread.heard]]) : undefined;
    if (misread) {
      const heard = misread.heard;
      parts.push(
        oneOf(rng, [
          () => `Ah, ${heard}! Good call.`,
          () => `Okay, ${describeWanted(state, override)}, got it.`,
          () => `${heard.charAt(0).toUpperCase() + heard.slice(1)}, lovely.`,
        ]),
      );
    } else if (parsed.intents.has('greet') && this.turn === 1) {
      parts.push(rng.pick(['Hello there!', 'Oh, hi!', 'Welcome, welcome.']));
      acts.push('greet_acknowledge');
    }
    if (items.length) {
      state.show(items);
      parts.push(rng.pick(HEDGED_LEADS)(describeWanted(state)));
      acts.unshift('recommend');
    }

    let asked = false;
    if (state.category === undefined) {
      parts.push(
        rng.pick([
          'So, what brings you here today? Shoes, a coat, or just browsing the idea of something?',
          'What are we hunting for today, roughly speaking?',
        ]),
      );
      acts.push('elicit_preference');
      asked = true;
    }
    if (latched) {
      parts.push(
        rng.pick(
          LATCH_QUESTIONS[latched.slot] ?? [
            (v: string) => `Tell me more about ${v}: what is it about ${v} that matters to you?`,
          ],
        )(latched.value),
      );
      acts.push('elicit_preference');
      asked = true;
    } else {
      const answered = [...before].filter((s) => state.wanted.has(s) && REASK[s]);
      if (state.category !== undefined && this.turn > 1) answered.push('category');
      if (answered.length && rng.chance(BAD_BEHAVIOURS.reask)) {
        const slot = rng.pick(answered);
        const v = slot === 'category' ? categoryNoun(state.category) : (state.value(slot) ?? slotWord(slot));
        parts.push(rng.pick(REASK[slot])(v));
        acts.push('ask_clarification_question');
        behaviours.push('reask');
        asked = true;
      }
    }
    if (!asked || rng.chance(BAD_BEHAVIOURS.tangent)) {
      parts.push(rng.pick(TANGENTS));
      if (!acts.includes('ask_clarification_question')) acts.push('ask_clarification_question');
      behaviours.push('tangent');
    }
    if (rng.chance(gaveInfo ? BAD_BEHAVIOURS.triviaAfterInfo : BAD_BEHAVIOURS.trivia)) {
      parts.push(this.trivia(parsed, misread));
      acts.push('chit_chat');
      behaviours.push('trivia');
    }
    if (items.length) behaviours.push('no_clear_path');
    return this.finish(parts, items, acts);
  }

  private finish(parts: string[], items: readonly CatalogItem[], acts: string[]): AgentResponse {
    const recommendations: RecommendedItem[] = items.map((it) => this.catalog.toRecommendedItem(it));
    return { utterance: parts.join(' '), recommendations, acts };
  }

  /** A near neighbour of a mentioned value that exists in the catalog (in the category when known). */
  private neighbour(m: Mention): string | undefined {
    const values = this.lexicon.valuesIn(m.slot, this.state.category);
    const near = (NEIGHBOURS[m.value] ?? []).filter((v) => v !== m.value && values.includes(v));
    if (near.length) return this.rng.pick(near);
    const others = values.filter((v) => v !== m.value);
    return others.length ? this.rng.pick(others) : undefined;
  }

  private retrieve(latched: Mention | undefined): CatalogItem[] {
    const { state } = this;
    const terms: string[] = [];
    if (latched) terms.push(latched.value);
    else {
      for (const values of state.wanted.values()) terms.push(...values);
      terms.push(...state.keywords.slice(-3));
    }
    terms.push(categoryNoun(state.category));
    const category = state.category!;
    const query = terms.join(' ');
    // Careless, not stuck: a new search does not lead with what the user already looked at (it
    // searches deeper so that fresh items can take their places).
    const hits = this.catalog
      .categoryPartialIndex(category)
      .search(query, CAROUSEL_SIZE + Math.min(state.lookedAt.size, 2 * CAROUSEL_SIZE));
    Object.assign(this.trace, { query, filters: { category }, retrieved: Math.min(hits.length, CAROUSEL_SIZE) });
    if (hits.length) return state.freshFirst(hits.map((h) => h.doc)).slice(0, CAROUSEL_SIZE);
    // nothing in the partial text matched: a few items of the category, at random
    this.trace.fallback = 'random items of the category';
    const pool = this.catalog.byCategory(category);
    const out: CatalogItem[] = [];
    for (let i = 0; i < Math.min(CAROUSEL_SIZE, pool.length); i++) out.push(pool[this.rng.int(pool.length)]);
    return [...new Set(out)];
  }

  private trivia(parsed: ParsedUtterance, misread: { heard: string } | undefined): string {
    const keys: string[] = [];
    if (misread) keys.push(misread.heard);
    for (const m of parsed.mentions) keys.push(m.value);
    if (this.state.category) keys.push(this.state.category);
    for (const v of this.state.wanted.values()) keys.push(...v);
    const topical = keys.filter((k) => TRIVIA[k]);
    const pool = topical.length && this.rng.chance(0.7) ? TRIVIA[this.rng.pick(topical)] : TRIVIA.general;
    return this.rng.pick(pool);
  }
}

/** `local-bad`'s reading of a turn: as `local-good`'s, plus what it misheard and how it filled an empty search. */
type BadTrace = AgentTrace & { misread?: { slot: string; said: string; heard: string }; fallback?: string };
