/**
 * `local-good`: a helpful template-based recommender standing in for ConvApparel's "good" agent.
 *
 * Each turn it reads the user utterance against the catalog vocabulary (categories, attribute
 * values and synonyms, negations, price limits, item references by position or typed title),
 * updates a per-conversation preference state, and then, in this order:
 * - closes on acceptance ("Great choice..."), showing the chosen item, or on goodbye;
 * - with nothing new to search for, serves requests about the shown items: go back, repeat,
 *   compare two items, more like one item, questions and details (explain_recommendation), thanks,
 *   or a nudge towards a refinement;
 * - elicits the category when it is unknown, then at most one or two more missing important
 *   preferences (type, gender, occasion, colour, price band, ...) while fewer than two are known
 *   and the user has not asked to see items or said they have no preference;
 * - otherwise retrieves with BM25 over the full item text of the category, with hard filters
 *   (gender or unisex, exclusions, price limits, rejected items, type when enough items have it)
 *   and a bonus per satisfied soft constraint, recommends up to 12 items and explains the top
 *   one; a rejection sets the shown items aside, "more" skips items already seen.
 * Values the user negated are hard exclusions until the user asks for them again: no carousel it
 * shows (new, shown again, or kept on screen) holds an item with one. "Any colour is fine" drops
 * the wanted colour. The acts it performed are reported each turn, main act first, and its
 * reading of the turn as `agent_trace` (see `AgentTrace`).
 */
import type { Catalog, CatalogItem } from '../../../catalog/item';
import { inRunningText } from '../../../catalog/features';
import { tokenize, tokenizeSpans } from '../../../text/tokenize';
import type { RecommendedItem, SimulatorTrace } from '../../../model';
import type { AgentResponse } from '../../types';
import { LocalAgent, LocalSession, isNounPhrase, namedFeatures } from './agent';
import { featureWithArticle, isPluralNoun, withArticle } from '../../../text/articles';
import { askedAttributes, questionSentences } from '../../users/phrases';
import { titleShowsValue } from '../../../text/saysValue';
import { mentionsOutside, type Intent, type ItemReference, type Mention, type ParsedUtterance } from './lexicon';
import {
  COLOUR_FOLLOW_UP,
  DETAIL_FRAMES,
  GOOD_FRAMES,
  GOOD_QUESTIONS,
  GOOD_QUESTION_VARIANTS,
  GOOD_VARIANTS,
  STEP_UNDONE,
  categoryNoun,
  describeWanted,
  expand,
  expandOne,
  listWords,
  matchedValue,
  featureNotes,
  leavesUnserved,
  materialNotes,
  occasionPhrase,
  pluralNoun,
  pluralPronouns,
  priceText,
  shortWanted,
  someValues,
} from './phrases';
import { PreferenceState, SLOT_IMPORTANCE } from './state';

/** Carousel size (ConvApparel showed up to 12 items). */
export const CAROUSEL_SIZE = 12;
/** How deep a search ordered by price looks (the dearest or cheapest of what fits, after a price step is taken back). */
const ORDERED_DEPTH = 400;
/** Below this many fully matching items, hard constraints are relaxed. */
const MIN_RESULTS = 3;
/** Elicitation turns before the first recommendation, at most. */
const MAX_ELICIT_TURNS = 2;
/** Slots the good agent asks about, most important first. */
const ELICIT_ORDER = SLOT_IMPORTANCE.filter((s) => s !== 'brand' && s !== 'category');
/** Intents that navigate the shown items rather than ask for a new page. */
const NAVIGATION: readonly Intent[] = ['back', 'repeat', 'compare', 'similar', 'detail'];
/** Bonus per satisfied soft constraint: larger than any BM25 score, so matches rank first. */
const SOFT_WEIGHT: Record<string, number> = {
  gender: 5,
  type: 60,
  colour: 45,
  occasion: 35,
  price_band: 30,
  material: 25,
  style: 15,
  brand: 10,
};

/** The `local-good` agent: shares the catalog and lexicon between its sessions. */
/** Verbs of owning that, said by "I" right before an item's name, turn the item down (it has one). */
const OWNING = new Set(['have', 'got', 'bought', 'own', 'owned']);

/** Words between "I" and a verb of owning that keep it a statement of owning ("I actually have"). */
const OWNING_ADVERBS = new Set(['actually', 'already', 'also', 'do', 'did']);

/**
 * Whether the verb at `verb` is said by "I" as a statement: "I have", "I already have", "I happen
 * to have" (not "I want to have", "I could have", "Would I have").
 */
function ownerBefore(tokens: readonly string[], verb: number): boolean {
  let at = verb - 1;
  if (at >= 1 && tokens[at] === 'to' && tokens[at - 1] === 'happen') at -= 2;
  else if (at >= 0 && OWNING_ADVERBS.has(tokens[at])) at -= 1;
  return at >= 0 && tokens[at] === 'i' && !(at >= 1 && QUESTION_WORDS.has(tokens[at - 1]));
}

/** Auxiliaries that make "<aux> I have ..." a question. */
const QUESTION_WORDS = new Set(['can', 'could', 'would', 'should', 'may', 'might', 'do', 'did', 'will', 'shall']);

export class LocalGoodAgent extends LocalAgent<LocalGoodSession> {
  constructor(catalog: Catalog) {
    super('local-good', 'good', catalog, (c, lexicon, rng) => new LocalGoodSession(c, lexicon, rng));
  }
}

/** One `local-good` conversation: its preference state and dialogue progress. */
class LocalGoodSession extends LocalSession<AgentTrace> {
  private elicitTurns = 0;
  private closed = false;
  /**
   * Whether the user's turn asks something: its answer then says every matched value, as before
   * (an agenda user asking about an item reads the value in the words), and no detail in place
   * of one.
   */
  private userAsks = false;
  /**
   * The relaxed hard filters said so far, each with the wish it gave way on ("type=ankle boots"):
   * words only. A relaxation is said once per wish, as a salesperson would; it is said again only
   * when the user asks for something new in that slot (sixteenth round: said again whenever the
   * set of relaxed slots changed, "type" -> "type and gender" -> "type", it was 6 % of local-good's
   * words against target-free users).
   */
  private readonly saidRelaxed = new Set<string>();
  /**
   * The reasons said so far per item (its features and the notes on them or on its material, lower
   * case; words only): an item shown again is recommended with a reason not yet given for it, as a
   * salesperson would, while one is left (sixteenth round: "in merino that keeps odour at bay"
   * three times about one tee in one conversation).
   */
  private readonly reasonsSaid = new Map<string, Set<string>>();
  /** The wishes ("occasion=work") the last carousel turn's reason could say, and this turn's (words only). */
  private lastMatched = new Set<string>();
  private matchedNow = new Set<string>();
  /** The turn whose carousel last answered a rejection (words only: `GOOD_FRAMES.rejectedAgain`). */
  private rejectedTurn = -1;
  /** The `GOOD_FRAMES.rejectedAgain` frame said last (words only): not said on the next such turn. */
  private lastAgainFrame = '';
  /** Whether the user's turn says it is leaving unserved (`leavesUnserved`; words only). */
  private leaving = false;

  protected answer(userUtterance: string): AgentResponse {
    this.turn++;
    const parsed = this.lexicon.parse(userUtterance);
    const { state, words } = this;
    const intents = parsed.intents;
    this.userAsks = userUtterance.includes('?') || intents.has('question');
    this.leaving = leavesUnserved(userUtterance);

    if (this.closed)
      return say(
        this.fresh(() => expandOne(words, GOOD_FRAMES.closed)),
        [],
        ['greet_acknowledge'],
      );

    // Item titles the user typed are references, not preferences.
    // An item of an earlier carousel named by its title is a reference too ("I don't like <title>"
    // after a turn that showed nothing): otherwise its title words read as wishes and negations.
    let refs = this.lexicon.findItems(parsed, state.shown, state.shown);
    if (state.seen.size > state.shown.length) {
      const onScreen = new Set(state.shown.map((it) => it.item_id));
      const earlier: CatalogItem[] = [];
      for (const id of state.seen) {
        const it = onScreen.has(id) ? undefined : this.catalog.get(id);
        if (it) earlier.push(it);
      }
      const more = this.lexicon
        .findItems(parsed, earlier)
        .filter((r) => !refs.some((q) => q.start < r.end && r.start < q.end));
      if (more.length) refs = [...refs, ...more].sort((a, b) => a.start - b.start);
    }
    const mentions = mentionsOutside(parsed.mentions, refs);
    if (refs.length) dropTitleWords(parsed, refs, userUtterance);
    this.referred = refs.map((r) => r.item.item_id);
    // "Not <title>.", "No <title>", "<title>, no thanks.", "I'm not keen on <title>": a rejection
    // of that item; in "I like <A>. <B>, no thanks." only B is rejected (read sentence by sentence).
    const verdicts = refs.length ? this.itemVerdicts(userUtterance, parsed, refs) : { rejected: [], liked: [] };
    if (verdicts.rejected.length) intents.add('reject');
    const picked =
      verdicts.liked[0] ??
      refs.find((r) => !verdicts.rejected.includes(r.item))?.item ??
      verdicts.rejected[0] ??
      referencedItem(parsed, state.shown, mentions);

    if (intents.has('accept') && state.shown.length) {
      const item = picked ?? state.shown[0];
      this.closed = true;
      this.fullNames = true;
      const type = item.attributes.type ?? categoryNoun(item.category);
      const vars = { t: item.title, type, p: priceText(item) };
      const frames = item.price !== undefined && words.chance(0.25) ? GOOD_FRAMES.acceptPrice : GOOD_FRAMES.accept;
      // in 4 of 5 confirmations without the price, one of the item's own features (from `reasons`)
      const feats = frames === GOOD_FRAMES.accept ? namedFeatures(this.catalog, item) : [];
      const detail = feats.length > 0 && this.reasons.chance(0.8);
      // in 2 of 5 of those, what the item's own description says its material does instead
      const notes = frames === GOOD_FRAMES.accept ? materialNotes(item) : [];
      // a confirmation that says "choice" reads as one with the item named short ("Great choice,
      // the Northvale gilet is yours."); the frames without it keep the whole title (a short
      // name there reads as an explanation to the users' act classifier)
      // a feature of the item the user named as what won it over is agreed with, by name
      const lower = userUtterance.toLowerCase();
      const praised = this.userAsks
        ? undefined
        : namedFeatures(this.catalog, item).find((f) => lower.includes(f.toLowerCase()));
      let chosen = false;
      const text = this.fresh(() => {
        const said = expandOne(words, frames, vars);
        chosen = detail || (frames === GOOD_FRAMES.accept && this.reasons.chance(0.5));
        if (praised !== undefined) {
          chosen = true;
          // agreed with, or said with what it is for (`FEATURE_NOTES`) when we know
          const why = featureNotes(praised);
          if (why.length && this.reasons.chance(0.4))
            return expandOne(this.reasons, GOOD_FRAMES.acceptPraisedWhy, { ...vars, a: this.reasons.pick(why) });
          const agree = this.reasons.chance(0.6) ? GOOD_FRAMES.acceptPraised : GOOD_FRAMES.acceptDetail;
          return expandOne(this.reasons, agree, { ...vars, f: praised });
        }
        if (!chosen) return said;
        if (notes.length && this.reasons.chance(0.4))
          return expandOne(this.reasons, GOOD_FRAMES.acceptNote, { ...vars, n: this.reasons.pick(notes) });
        if (!detail) return expandOne(this.reasons, GOOD_VARIANTS.accept, vars);
        const f = this.reasons.pick(feats);
        const why = featureNotes(f);
        return why.length && this.reasons.chance(0.5)
          ? expandOne(this.reasons, GOOD_FRAMES.acceptWhy, { ...vars, a: this.reasons.pick(why) })
          : expandOne(this.reasons, GOOD_FRAMES.acceptDetail, { ...vars, f });
      });
      // a confirmation that says "choice" names the item short (see above), whichever frame said it
      this.fullNames = !chosen && !/\bchoice\b/i.test(text);
      return say(theyOf(item, text), [this.catalog.toRecommendedItem(item)], ['greet_acknowledge']);
    }
    if (intents.has('bye') && !mentions.length) {
      this.closed = true;
      return say(
        this.fresh(() => expandOne(words, this.leaving ? GOOD_FRAMES.byeUnserved : GOOD_FRAMES.bye)),
        [],
        ['greet_acknowledge'],
      );
    }

    const rejecting = intents.has('reject') && (state.shown.length > 0 || verdicts.rejected.length > 0);
    // "I'm not keen on anything like a skirt" rejects values, not every item on screen: the
    // exclusion sets aside the items that have them, the others stay candidates.
    const negatesValues = mentions.some((m) => m.negated);
    if (rejecting)
      for (const it of verdicts.rejected.length
        ? verdicts.rejected
        : picked
          ? [picked]
          : negatesValues
            ? []
            : state.shown)
        state.rejected.add(it.item_id);
    const update = state.apply(parsed, mentions);
    this.trace.negated = negatedValues(update.removed);
    if (update.relaxed.length) this.trace.relaxed = update.relaxed;
    // "Can I see a few options?" with a carousel already up means the next page (unless the user
    // is navigating: back, repeat, compare, similar, details)
    const navigating = NAVIGATION.some((i) => intents.has(i));
    // Free words ("something waterproof") count as a new wish unless the user is asking about
    // what is on screen; once the category is known, only words its items use do (chatter such as
    // "honestly" or "ages" would only re-run the same search).
    const category = state.category;
    const index = category !== undefined && parsed.keywords.length ? this.catalog.categoryIndex(category) : undefined;
    const wishWords = index ? parsed.keywords.some((k) => index.documentFrequency(k) > 0) : parsed.keywords.length > 0;
    const newWords = wishWords && !navigating && !intents.has('question') && !intents.has('note');
    const newFacts =
      update.added.length > 0 ||
      update.removed.length > 0 ||
      update.relaxed.length > 0 ||
      update.priceChanged ||
      update.categoryChanged ||
      newWords;
    const listing = intents.has('list') && !navigating;
    const wantsMore = intents.has('more') || rejecting || (listing && state.shown.length > 0 && !newFacts);

    // Requests about what is on screen, with nothing new to search for.
    if (state.shown.length && !newFacts && !wantsMore) {
      if (intents.has('back') && state.previous.length) return this.showAgain(state.previous, true);
      if (intents.has('repeat')) return this.showAgain(state.shown, false);
      if (intents.has('compare')) {
        const two = refs.length >= 2 ? [refs[0].item, refs[1].item] : ordinalItems(parsed, state.shown);
        if (two.length >= 2) return this.compare(two[0], two[1]);
      }
      if (intents.has('similar') && picked) return this.moreLike(picked, userUtterance);
      if (intents.has('question') || intents.has('detail'))
        return this.explain(picked ?? state.shown[0], userUtterance);
      if (intents.has('like') && picked) return this.moreLike(picked, userUtterance);
      if (intents.has('thanks') && !listing) {
        return say(
          this.fresh(() => expandOne(words, this.leaving ? GOOD_FRAMES.thanksUnserved : GOOD_FRAMES.thanks)),
          this.showing(),
          ['greet_acknowledge'],
        );
      }
      if (!listing && !intents.has('nopref')) return this.nudge();
    }

    const ack =
      update.added.length || update.removed.length ? this.acknowledge(update.removed.map((m) => m.value)) : '';
    if (state.category === undefined) {
      this.elicitTurns++;
      state.asked.add('category');
      const greet = (intents.has('greet') || intents.has('thanks')) && this.turn === 1;
      return say(
        this.fresh(() => (greet ? expandOne(words, GOOD_FRAMES.greet) : ack) + this.question('category')),
        [],
        greet ? ['elicit_preference', 'greet_acknowledge'] : ['elicit_preference'],
      );
    }

    const missing = this.nextMissing();
    const wantsItems =
      wantsMore || listing || intents.has('nopref') || update.priceChanged || update.relaxed.length > 0;
    if (missing && this.elicitTurns < MAX_ELICIT_TURNS && state.knownCount() < 2 && !wantsItems) {
      this.elicitTurns++;
      state.asked.add(missing);
      const lead = update.categoryChanged || update.added.length;
      return say(
        this.fresh(() => (lead ? this.acknowledge([]) : '') + this.question(missing)),
        [],
        ['elicit_preference'],
      );
    }
    return this.recommend(parsed, rejecting, wantsMore, missing);
  }

  /**
   * The shown items an utterance rejects and likes, by the sentence that names them: a sentence
   * whose cues reject (or whose title follows "not" / "no") rejects the items it names, one whose
   * cues like likes them. One sentence naming items under both cues counts as rejecting.
   */
  private itemVerdicts(
    text: string,
    parsed: ParsedUtterance,
    refs: readonly ItemReference[],
  ): { rejected: CatalogItem[]; liked: CatalogItem[] } {
    const rejected: CatalogItem[] = [];
    const liked: CatalogItem[] = [];
    const sentences = text.split(/(?<=[.!?;])\s+/).filter((x) => x.trim());
    const judge = (p: ParsedUtterance, own: readonly ItemReference[], said: string) => {
      for (const r of own) {
        const before = r.start > 0 ? p.tokens[r.start - 1] : '';
        // owning it already: "I got <title> last year", "Oh, I have <title>", "I actually own
        // <title>"; not a wish or a question ("I want to have <title>", "Can I have <title>?")
        const owned = OWNING.has(before) && ownerBefore(p.tokens, r.start - 1) && !said.includes('?');
        if (before === 'not' || before === 'no' || owned || p.intents.has('reject')) {
          if (!rejected.includes(r.item)) rejected.push(r.item);
        } else if (p.intents.has('like') && !liked.includes(r.item)) liked.push(r.item);
      }
    };
    if (sentences.length <= 1) judge(parsed, refs, text);
    else {
      const items = refs.map((r) => r.item);
      let previous: ItemReference[] = [];
      for (const sentence of sentences) {
        const p = this.lexicon.parse(sentence);
        const own = this.lexicon.findItems(p, items, this.state.shown);
        // "My closet has <title>; I own it.": a turn-down naming no item, only "it", is about the
        // items of the sentence before
        if (own.length === 0 && p.intents.has('reject') && p.tokens.includes('it')) {
          for (const r of previous) if (!rejected.includes(r.item)) rejected.push(r.item);
        }
        judge(p, own, sentence);
        previous = own;
      }
    }
    return { rejected, liked: liked.filter((it) => !rejected.includes(it)) };
  }

  /** No request and no new preference: offer a way forward. */
  private nudge(): AgentResponse {
    const { words } = this;
    const missing = this.nextMissing();
    if (missing) {
      this.state.asked.add(missing);
      return say(
        this.fresh(
          () =>
            `${words.pick(this.leaving ? GOOD_FRAMES.nudgeLeadUnserved : GOOD_FRAMES.nudgeLead)} ${this.question(missing, true)}`,
        ),
        this.showing(),
        ['elicit_preference'],
      );
    }
    return say(
      this.fresh(() => expandOne(words, this.leaving ? GOOD_FRAMES.nudgeUnserved : GOOD_FRAMES.nudge)),
      this.showing(),
      ['elicit_preference'],
    );
  }

  /** Shows a carousel again ("go back", "say that again"), without what the user has ruled out since. */
  private showAgain(all: CatalogItem[], back: boolean): AgentResponse {
    const items = all.filter((it) => !this.state.violates(it));
    if (items.length === 0) return this.nudge();
    this.state.show(items);
    const top = items[0];
    const vars = { t: top.title, noun: shortWanted(this.state, undefined, undefined, top) };
    const text = this.fresh(() =>
      back
        ? expandOne(this.words, GOOD_FRAMES.back, vars)
        : `${expandOne(this.words, GOOD_FRAMES.again, { noun: describeWanted(this.state, undefined, top) })} ${this.explanation(top)}`,
    );
    return say(text, this.showing(), back ? ['recommend'] : ['explain_recommendation']);
  }

  /** Compares two shown items on price, material, colour and occasion. */
  private compare(a: CatalogItem, b: CatalogItem): AgentResponse {
    const bits = (it: CatalogItem) => {
      const at = it.attributes;
      return [at.colour, at.material, at.occasion ? occasionPhrase(at.occasion) : undefined, priceText(it) || undefined]
        .filter(Boolean)
        .join(', ');
    };
    const verdict = () => {
      if (a.price === undefined || b.price === undefined || a.price === b.price) return '';
      const [cheap, dear] = a.price < b.price ? [a, b] : [b, a];
      const dearer = dear.attributes.price_band === 'luxury' ? 'more luxurious' : 'pricier';
      return ` ${expandOne(this.words, GOOD_FRAMES.verdict, { cheap: cheap.title, dear: dear.title, dearer })}`;
    };
    const text = this.fresh(
      () =>
        `${expand(this.words, '{The $a:|$a:|Side by side, the $a:} $x. {The $b:|$b:|Then the $b:} $y.', { a: a.title, b: b.title, x: bits(a), y: bits(b) })}${verdict()}`,
    );
    return say(text, this.showing(), ['explain_recommendation']);
  }

  /** The current carousel, less the items the user has ruled out since it was shown. */
  private showing(): RecommendedItem[] {
    const { state } = this;
    const kept = state.shown.filter((it) => !state.violates(it));
    if (kept.length !== state.shown.length) state.shown = kept;
    return kept.map((it) => this.catalog.toRecommendedItem(it));
  }

  private recommend(
    parsed: ParsedUtterance,
    rejecting: boolean,
    wantsMore: boolean,
    missing: string | undefined,
  ): AgentResponse {
    const { state, words } = this;
    let { items, relaxed } = this.retrieve(wantsMore);
    // A price limit the agent stepped to itself ("fancier" -> over the dearest item shown) that
    // leaves nothing, or leaves only items of another type or gender than the user asked for, is
    // taken back (the user's own limits restored), and the dearest (cheapest) items that fit
    // everything else are shown first, with a word saying so: asking the user to give up a wish it
    // never said ("Maybe a different material?") led nowhere, turn after turn.
    let steppedBack: 'pricier' | 'cheaper' | undefined;
    if (state.priceStep && (items.length === 0 || relaxed.length > 0)) {
      const before = { min: state.minPrice, max: state.maxPrice, step: state.priceStep };
      const dir = state.undoPriceStep()!;
      const undone = this.retrieve(wantsMore, dir === 'pricier' ? 'dear' : 'cheap');
      if (undone.items.length > 0 && (items.length === 0 || undone.relaxed.length < relaxed.length)) {
        ({ items, relaxed } = undone);
        steppedBack = dir;
        this.trace.price_step_undone = dir;
      } else {
        // the step was not what emptied or widened the search: it stays (searched again for the trace)
        state.minPrice = before.min;
        state.maxPrice = before.max;
        state.priceStep = before.step;
        ({ items, relaxed } = this.retrieve(wantsMore));
      }
    }
    if (items.length === 0) {
      const drop = this.mostRestrictive();
      const text = this.fresh(() =>
        drop
          ? expandOne(words, GOOD_FRAMES.none, { w: shortWanted(state), slot: slotWord(drop) })
          : expandOne(words, GOOD_FRAMES.noneAtAll),
      );
      return say(text, [], ['cannot_help', 'elicit_preference']);
    }
    // "more" on a first carousel ("my doctor told me to walk more") is no next page: no "More ..." words
    const nextPage = wantsMore && state.seen.size > 0;
    state.show(items);
    const acts = ['recommend', 'explain_recommendation'];
    const followUp = missing && !state.asked.has(missing) ? missing : undefined;
    const asks = followUp !== undefined && this.rng.chance(0.5);
    if (asks) {
      state.asked.add(followUp);
      acts.push('elicit_preference');
    }
    const closes = !asks && !parsed.intents.has('question') && this.rng.chance(0.25);
    // whether the closing sentence is a question is decided here (an agenda user reads the "?"),
    // its wording from the words' Rng
    const closer = closes ? (this.rng.chance(0.5) ? GOOD_FRAMES.closerAsk : GOOD_FRAMES.closerSay) : undefined;
    // a rejection right after a rejection is answered without the apology again
    const rejectedAgain = rejecting && this.rejectedTurn === this.turn - 1;
    if (rejecting) this.rejectedTurn = this.turn;
    const frames = rejectedAgain
      ? GOOD_FRAMES.rejectedAgain
      : rejecting
        ? GOOD_FRAMES.rejected
        : nextPage
          ? GOOD_FRAMES.more
          : GOOD_FRAMES.recommend;
    const relaxedKey = (slot: string) => `${slot}=${(state.wanted.get(slot) ?? []).join('|')}`;
    const newlyRelaxed = relaxed.filter((slot) => !this.saidRelaxed.has(relaxedKey(slot)));
    const text = this.fresh(() => {
      this.swappable = undefined;
      // the carousel is described by what its first item has (not by the wish: "More cream ballet flats" led by a black pair)
      const noun = shortWanted(state, undefined, undefined, items[0]);
      const vars = { t: items[0].title, why: this.why(items[0]), noun, n: String(items.length) };
      let said: string;
      if (rejectedAgain) {
        // not the frame of the rejection answered just before ("In that case, try ..." twice running)
        const frame = words.pick(frames.filter((f) => f !== this.lastAgainFrame));
        said = expand(words, frame, vars);
        this.lastAgainFrame = frame;
      } else said = expandOne(words, frames, vars);
      // on a turn that asks nothing, half the time one of more ways of saying it (from `reasons`)
      const variants = rejecting ? GOOD_VARIANTS.rejected : nextPage ? GOOD_VARIANTS.more : GOOD_VARIANTS.recommend;
      const parts = [
        !this.userAsks && this.reasons.chance(0.5) && !rejectedAgain ? expandOne(this.reasons, variants, vars) : said,
      ];
      if (steppedBack) parts.unshift(expandOne(words, STEP_UNDONE[steppedBack], { w: shortWanted(state) }));
      // a relaxation is said once per wish, as a salesperson would (not on every page): the slots
      // newly given way on only
      if (relaxed.length) {
        const slots = listWords((newlyRelaxed.length ? newlyRelaxed : relaxed).map(slotWord));
        const said = expandOne(words, GOOD_FRAMES.relaxed, { slots });
        if (newlyRelaxed.length)
          parts.push(
            this.userAsks || this.reasons.chance(0.2)
              ? said
              : expandOne(this.reasons, GOOD_FRAMES.relaxedShort, { slots }),
          );
      }
      if (asks) parts.push(this.question(followUp, true));
      else if (closer) {
        const said = expandOne(words, closer);
        if (closer === GOOD_FRAMES.closerSay)
          this.swappable = { text: said, item: items[0], among: items, frames: DETAIL_FRAMES.good };
        parts.push(said);
      }
      return parts.join(' ');
    });
    for (const slot of relaxed) this.saidRelaxed.add(relaxedKey(slot));
    this.noteReasons(items[0], text);
    this.lastMatched = this.matchedNow;
    return say(
      theyOf(items[0], text),
      items.map((it) => this.catalog.toRecommendedItem(it)),
      acts,
    );
  }

  /**
   * BM25 over the category's full item text with the wanted values and the user's own words as
   * the query; hard filters, then relaxation (type, then gender) when fewer than MIN_RESULTS
   * items pass.
   */
  private retrieve(skipSeen: boolean, order?: 'dear' | 'cheap'): { items: CatalogItem[]; relaxed: string[] } {
    const { state } = this;
    const index = this.catalog.categoryIndex(state.category!);
    // Gender is left out of the query: it is a hard filter (with a small bonus for an exact
    // match), and its words occur in a third of the items, so they only cost time.
    const terms: string[] = [];
    for (const [slot, values] of state.wanted) if (slot !== 'gender') terms.push(...values);
    // free words the category's items never use (typos, chatter) would only empty the result
    for (const k of state.keywords) if (index.documentFrequency(k) > 0) terms.push(k);
    const query = terms.length ? terms.join(' ') : state.category!;
    // Soft constraints as integer codes: for each wanted slot, the per-document value ids of the
    // category and the wanted ids; a document earns the slot's weight when its id is wanted.
    const softCodes: Int32Array[] = [];
    const softWanted: number[][] = [];
    const softWeight: number[] = [];
    for (const [slot, values] of state.wanted) {
      softCodes.push(this.catalog.attributeCodes(state.category!, slot));
      softWanted.push(values.map((v) => this.catalog.valueId(slot, v)));
      softWeight.push(SOFT_WEIGHT[slot] ?? 10);
    }
    const nSoft = softCodes.length;
    const adjust = (_item: CatalogItem, score: number, i: number) => {
      for (let j = 0; j < nSoft; j++) {
        const c = softCodes[j][i];
        const w = softWanted[j];
        if (c >= 0 && (w[0] === c || (w.length > 1 && w.includes(c)))) score += softWeight[j];
      }
      return score;
    };
    const relaxed: string[] = [];
    const hard = ['type', 'gender'].filter((s) => state.wanted.has(s));
    const violates = state.violation();
    const seen = skipSeen && state.seen.size ? state.seen : undefined;
    for (;;) {
      const type = hard.includes('type') ? state.wanted.get('type') : undefined;
      const gender = hard.includes('gender') ? state.wanted.get('gender') : undefined;
      const filter = (item: CatalogItem) => {
        if (violates(item)) return false;
        if (seen && seen.has(item.item_id)) return false;
        if (type && !type.includes(item.attributes.type)) return false;
        if (gender) {
          const g = item.attributes.gender;
          if (g !== undefined && g !== 'unisex' && !gender.includes(g)) return false;
        }
        return true;
      };
      // Deep enough that the items the user already looked at can step aside for fresh ones.
      // `order`: the dearest (cheapest) of everything that fits, so searched deep
      const hits = index.search(
        query,
        order ? ORDERED_DEPTH : CAROUSEL_SIZE + Math.min(state.lookedAt.size, 2 * CAROUSEL_SIZE),
        filter,
        adjust,
      );
      if (hits.length >= MIN_RESULTS || hard.length === 0) {
        let items = hits.map((h) => h.doc);
        if (items.length === 0 && skipSeen) {
          // everything relevant was seen: allow repeats rather than showing nothing
          items = index.search(query, CAROUSEL_SIZE, (it) => !violates(it), adjust).map((h) => h.doc);
        }
        items = state.freshFirst(items, (it) => state.fullMatch(it));
        if (order) {
          // by price alone (items without a price last): "the cheapest I have" is what it says
          const key = (it: CatalogItem) =>
            it.price === undefined ? Infinity : order === 'dear' ? -it.price : it.price;
          items = items
            .map((it, i) => ({ it, i, k: key(it) }))
            .sort((a, b) => a.k - b.k || a.i - b.i)
            .map((x) => x.it);
        }
        if (items.length > CAROUSEL_SIZE) items = items.slice(0, CAROUSEL_SIZE);
        this.traceRetrieval(query, type, gender, items.length);
        return { items, relaxed };
      }
      relaxed.push(hard.shift()!);
    }
  }

  /**
   * An item's facts (explain_recommendation): what the user asked about first, then material,
   * colour (unless its title shows it and the user did not ask), price, a feature and the occasion:
   * a user asking about one of them reads the answer in it.
   */
  private explain(item: CatalogItem, userUtterance = ''): AgentResponse {
    const { words } = this;
    const a = item.attributes;
    // What the user asked about the item is answered first ("What style is it?" -> "It is sporty
    // in style."): the explanation below says material, colour, price and occasion, never style,
    // gender, type or brand (an independent review: 1,610 of 3,121 item questions went unanswered).
    // item titles left out: "Women's" in a title is no question about gender
    let question = questionSentences(userUtterance);
    for (const shown of [item, ...this.state.shown]) question = question.split(shown.title).join(' ');
    const asked = askedAttributes(question, this.catalog.attributeNames()).filter(
      (k) => a[k] !== undefined && ANSWERS[k] !== undefined,
    );
    const price = priceText(item);
    const feature = item.features.find((f) => !f.toLowerCase().includes((a.material ?? '\u0000').toLowerCase()));
    // a colour the title shows is said only when asked (sixteenth round: "the Northvale Blue Scarf:
    // wool, blue and $39.99")
    const sayColour =
      !titleShowsValue(item.title, 'colour', a.colour) ||
      askedAttributes(question, this.catalog.attributeNames()).includes('colour');
    const text = this.fresh(() => {
      const facts: string[] = [];
      if (a.material) facts.push(expand(words, '{made of |in |}$m', { m: a.material }));
      if (a.colour && sayColour) facts.push(expand(words, '{in |}$c', { c: a.colour }));
      if (price) facts.push(expand(words, '{$p|priced at $p|$p|costing $p|selling at $p}', { p: price }));
      const head = expand(
        words,
        '{The $t is|The $t:|On the $t:|About the $t: it is|As for the $t, it is|On the $t: it is|About the $t:}',
        {
          t: item.title,
        },
      );
      let out = `${head} ${listWords(facts) || expand(words, '{a solid option|a good all-rounder}')}.`;
      // from `words` (an answer's words do not depend on the item-specific reasons' generator)
      const answers = asked.map((k) => expandOne(words, ANSWERS[k]!(a[k]!), { v: a[k] }));
      if (answers.length) out = `${answers.join(' ')} ${out}`;
      if (feature) {
        // "It has a built-in liner", "It is sleeveless", "It packs flat": the same draw either way
        const f = inRunningText(feature);
        const frame = isNounPhrase(f)
          ? ' {It has $a|It comes with $a|Features: $f|Note the $f|It boasts $a|It also offers $a}.'
          : /^packs /i.test(f)
            ? ' {It $f|It $f|Also, it $f|Note: it $f}.'
            : ' {It is $f|It is $f|Also, it is $f|Note: it is $f}.';
        out += expand(words, frame, { f, a: featureWithArticle(f) });
      }
      if (a.occasion)
        out += expand(words, ' {Good|Great|Made|Ideal|Perfect|Handy|Designed|Meant} $o.', {
          o: occasionPhrase(a.occasion),
        });
      return out;
    });
    return say(theyOf(item, text), this.showing(), ['explain_recommendation']);
  }

  private moreLike(item: CatalogItem, userUtterance: string): AgentResponse {
    const { state } = this;
    const index = this.catalog.categoryIndex(item.category);
    const a = item.attributes;
    const query = [a.type, a.colour, a.material, a.style, a.occasion].filter(Boolean).join(' ') || item.title;
    // the liked item leads, unless the user has ruled out one of its values since
    const pin = !state.violates(item);
    const hits = index.search(query, CAROUSEL_SIZE + Math.min(state.lookedAt.size, 2 * CAROUSEL_SIZE), (it) =>
      it === item ? pin : !state.violates(it),
    );
    // the similar ones the user has not looked at yet come first
    const items = state.freshFirst(hits.map((h) => h.doc).filter((it) => it !== item));
    if (pin) items.unshift(item);
    if (items.length > CAROUSEL_SIZE) items.length = CAROUSEL_SIZE;
    this.traceRetrieval(query, undefined, undefined, items.length);
    state.show(items);
    // a detail of the item the user praised in this turn is acknowledged by name; else, at times,
    // one the agent points out itself (not when the user asks something: the frames' words then)
    const plain = this.userAsks ? [] : namedFeatures(this.catalog, item);
    const lower = userUtterance.toLowerCase();
    const praised = plain.find((f) => lower.includes(f));
    const f = praised ?? (plain.length && this.reasons.chance(0.5) ? this.reasons.pick(plain) : undefined);
    const frames = praised ? GOOD_FRAMES.similarPraised : GOOD_FRAMES.similarDetail;
    return say(
      this.fresh(() => {
        const said = expandOne(this.words, GOOD_FRAMES.similar, { t: item.title });
        if (f !== undefined) return expandOne(this.reasons, frames, { t: item.title, f, a: featureWithArticle(f) });
        if (this.userAsks || !this.reasons.chance(0.5)) return said;
        const ask = this.reasons.pick(GOOD_VARIANTS.similarAsk);
        return `${expandOne(this.reasons, GOOD_VARIANTS.similar, { t: item.title })} ${ask}`;
      }),
      items.map((it) => this.catalog.toRecommendedItem(it)),
      ['recommend', 'elicit_preference'],
    );
  }

  /**
   * What the item matches of what the user wants, in a few words ("blue and linen, with a hood").
   * When the user's turn asks nothing, in 3 of 4 cases: at most one of the matched values (the
   * user said them; a salesperson does not read the whole list back) and one of the item's
   * own plain features as the reason it is worth a look (`namedFeatures`: no value, no negation).
   */
  private why(item: CatalogItem): string {
    const { state, words } = this;
    const matched: string[] = [];
    // the values the user asked for that the item has; on a turn that asks nothing, not those its
    // title (on its card, and in the sentence) says already ("the Calder Green Scarf: green")
    const notes = this.userAsks ? [] : this.unsaid(item, materialNotes(item));
    let materialSaid = '';
    const matchedKeys = new Map<string, string>();
    for (const [slot, values] of state.wanted) {
      const v = item.attributes[slot];
      if (v === undefined || !values.includes(v) || slot === 'type' || slot === 'brand') continue;
      // (drawn either way: the rest of the turn's words stay as they were)
      const said = matchedValue(words, slot, v);
      if (!this.userAsks && titleShowsValue(item.title, slot, v)) continue;
      if (slot === 'material') materialSaid = said;
      matched.push(said);
      matchedKeys.set(said, `${slot}=${v}`);
    }
    // the features before the style and occasion words that close an item's feature list
    const style = item.attributes.style?.toLowerCase();
    // (the style word may lead a longer feature: "Vintage-inspired"; past it, "Everyday wear" would
    // read "with an everyday wear")
    const styleAt = style === undefined ? -1 : item.features.findIndex((f) => f.toLowerCase().startsWith(style));
    const usable = styleAt >= 0 ? styleAt : item.features.length;
    const feature = usable ? item.features[words.int(usable)] : undefined;
    let why = matched.length ? listWords(matched) : words.pick(GOOD_FRAMES.loose);
    const extra = words.int(6);
    // "with" before a noun phrase only ("with storm flap", never "with lightweight")
    if (extra === 0 && feature && isNounPhrase(feature)) why += `, with ${featureWithArticle(inRunningText(feature))}`;
    else if (extra === 1 && item.price !== undefined) why += `, at ${priceText(item)}`;
    // every draw above as before (the words of the rest of the turn depend on them); the reason
    // with a feature is drawn from `reasons`
    const plain = this.userAsks ? [] : this.unsaid(item, namedFeatures(this.catalog, item));
    const { reasons } = this;
    // what the item's description says its material does, in 2 of 5 cases when it says one (the
    // material named once: the note names it)
    // beside a feature or a note, a wish the last carousel's reason said already is not said again
    // (sixteenth round: "great for everyday wear" on three turns running)
    const notSaidLast = (m: string) => !this.lastMatched.has(matchedKeys.get(m) ?? '');
    this.matchedNow = new Set(matched.map((m) => matchedKeys.get(m) ?? ''));
    if (notes.length && reasons.chance(0.4)) {
      const others = matched.filter((m) => m !== materialSaid && notSaidLast(m));
      while (others.length > 1) others.splice(reasons.int(others.length), 1);
      const note = reasons.pick(notes);
      return others.length ? `${others[0]}, ${note}` : note;
    }
    if (plain.length && reasons.chance(0.75)) {
      for (let i = matched.length - 1; i >= 0; i--) if (!notSaidLast(matched[i])) matched.splice(i, 1);
      while (matched.length > 1) matched.splice(reasons.int(matched.length), 1);
      // one feature: two ("a fold-up cuff and durable stitching") made the reason a list
      const picked = [reasons.pick(plain)];
      // one feature: in 3 of 5 cases said with what it is for, when we know ("a storm flap to keep
      // rain off the zip"), in the frames that say it with its article
      const why = picked.length === 1 ? this.unsaid(item, featureNotes(picked[0])) : [];
      if (why.length && reasons.chance(0.6)) {
        const vars = { a: reasons.pick(why) };
        // the note is the reason: the value it matched is on the card, said in 1 of 2 cases
        if (matched.length === 0 || reasons.chance(0.5)) return expandOne(reasons, WITH_ARTICLE.reasonAlone, vars);
        return `${listWords(matched)}${expandOne(reasons, WITH_ARTICLE.reasonAfter, vars)}`;
      }
      const vars = { f: listWords(picked), a: listWords(picked.map(featureWithArticle)) };
      if (matched.length === 0) return expandOne(reasons, GOOD_FRAMES.reasonAlone, vars);
      return `${listWords(matched)}${expandOne(reasons, GOOD_FRAMES.reasonAfter, vars)}`;
    }
    return why;
  }

  /** Of `reasons` about `item`, those not said of it yet in this conversation. */
  private unsaid(item: CatalogItem, reasons: readonly string[]): readonly string[] {
    const said = this.reasonsSaid.get(item.item_id);
    return said ? reasons.filter((r) => !said.has(r.toLowerCase())) : reasons;
  }

  /** Records the reasons about `item` (features, notes) that `text` says. */
  private noteReasons(item: CatalogItem, text: string): void {
    const lower = text.toLowerCase();
    const features = namedFeatures(this.catalog, item);
    const all = [...features, ...materialNotes(item), ...features.flatMap(featureNotes)];
    for (const r of all) {
      if (!lower.includes(r.toLowerCase())) continue;
      let said = this.reasonsSaid.get(item.item_id);
      if (!said) this.reasonsSaid.set(item.item_id, (said = new Set()));
      said.add(r.toLowerCase());
    }
  }

  /** The top item and why (explain_recommendation), as one sentence. */
  private explanation(item: CatalogItem): string {
    return expand(this.words, '{The top pick, the $t, is|I would start with the $t:|The $t stands out:} $why.', {
      t: item.title,
      why: this.why(item),
    });
  }

  private acknowledge(removed: string[]): string {
    const { words } = this;
    const base =
      this.state.category === undefined && this.state.knownCount() === 0
        ? ''
        : expandOne(words, GOOD_FRAMES.ack, { w: shortWanted(this.state) });
    const without = removed.length
      ? ` ${expandOne(words, GOOD_FRAMES.leaveOut, { x: listWords(removed, 'and') })}`
      : '';
    return base || without ? `${base}${without} `.trimStart() : '';
  }

  /** A question about a slot, with example values from the current category. */
  private question(slot: string, followUp = false): string {
    const { words, state } = this;
    const values = this.lexicon.valuesIn(slot, state.category);
    if (slot === 'colour' && followUp && words.chance(0.3)) return words.pick(COLOUR_FOLLOW_UP);
    const q = GOOD_QUESTIONS[slot];
    if (!q) {
      return `Any preference for ${slotWord(slot)}${values.length ? `, for example ${someValues(words, values, 2)}` : ''}?`;
    }
    const shown = slot === 'category' ? values.map(categoryNoun) : slot === 'type' ? values.map(pluralNoun) : values;
    // beside a carousel (`followUp`), no examples: the items on screen are the examples (sixteenth
    // round: "..., say cycling jerseys, sports bras or performance tees?" under twelve items)
    const withExamples =
      q.examples.length > 0 && shown.length > 1 && (q.plain.length === 0 || (!followUp && words.chance(0.6)));
    // on a turn that asks nothing, half the time one of more ways of asking it (from `reasons`),
    // with the same examples
    const variants = this.userAsks ? undefined : GOOD_QUESTION_VARIANTS[slot];
    const noun = categoryNoun(state.category);
    if (!withExamples) {
      const said = expandOne(words, q.plain, { noun });
      return variants?.plain.length && this.reasons.chance(0.5)
        ? expandOne(this.reasons, variants.plain, { noun })
        : said;
    }
    const ex = someValues(words, shown, 2 + words.int(2));
    const said = expandOne(words, q.examples, { noun, ex });
    return variants?.examples.length && this.reasons.chance(0.5)
      ? expandOne(this.reasons, variants.examples, { noun, ex })
      : said;
  }

  /** Records the retrieval of this turn: query, hard filters, exclusions and the number of hits. */
  private traceRetrieval(
    query: string,
    type: readonly string[] | undefined,
    gender: readonly string[] | undefined,
    retrieved: number,
  ): void {
    const { state } = this;
    const filters: Record<string, string | number> = {};
    if (state.category !== undefined) filters.category = state.category;
    if (type) filters.type = type.join('|');
    if (gender) filters.gender = [...new Set([...gender, 'unisex'])].join('|');
    if (state.maxPrice !== undefined) filters.max_price = state.maxPrice;
    if (state.minPrice !== undefined) filters.min_price = state.minPrice;
    this.trace.query = query;
    this.trace.filters = filters;
    this.trace.excluded = excludedValues(state);
    this.trace.retrieved = retrieved;
  }

  /** The most important slot the user has not given, that varies within the category and was not asked. */
  private nextMissing(): string | undefined {
    const { state } = this;
    for (const slot of ELICIT_ORDER) {
      if (state.wanted.has(slot) || state.asked.has(slot)) continue;
      if (!this.lexicon.slots.includes(slot)) continue;
      if (this.lexicon.valuesIn(slot, state.category).length < 2) continue;
      return slot;
    }
    return undefined;
  }

  /** The least important wanted slot (the one to offer to relax when nothing matches). */
  private mostRestrictive(): string | undefined {
    const slots = [...this.state.wanted.keys()];
    slots.sort((a, b) => SLOT_IMPORTANCE.indexOf(b) - SLOT_IMPORTANCE.indexOf(a));
    return slots[0];
  }
}

/** Resolves "the second one", "#3", "the last one", or a brand or colour only one shown item has. */
export function referencedItem(
  parsed: ParsedUtterance,
  shown: readonly CatalogItem[],
  mentions: readonly Mention[] = parsed.mentions,
): CatalogItem | undefined {
  if (shown.length === 0) return undefined;
  const byOrdinal = ordinalItems(parsed, shown);
  if (byOrdinal.length) return byOrdinal[0];
  for (const m of mentions) {
    if (m.negated || (m.slot !== 'brand' && m.slot !== 'colour')) continue;
    const hits = shown.filter((it) => it.attributes[m.slot] === m.value);
    if (hits.length === 1) return hits[0];
  }
  return undefined;
}

/** The shown items the user pointed at by position ("the first two", "#3", "the last one"). */
function ordinalItems(parsed: ParsedUtterance, shown: readonly CatalogItem[]): CatalogItem[] {
  const out: CatalogItem[] = [];
  for (const o of parsed.ordinals) {
    const i = o < 0 ? shown.length + o : o;
    if (i >= 0 && i < shown.length && !out.includes(shown[i])) out.push(shown[i]);
  }
  return out;
}

/**
 * Removes from the free keywords the words of the items the user named (`refs`, by title or by
 * place) and, in a sentence that names an item, the words of that item's own catalog features:
 * "I like the second one, bonus marks for the storm flap" says what the user thinks of that item,
 * not a new wish, so neither its title's words nor the details it praises become a query. Other
 * words of the sentence are read as before. Sentences end at ".", "!", "?" or ";" (as
 * `itemVerdicts` reads them).
 */
export function dropTitleWords(parsed: ParsedUtterance, refs: readonly ItemReference[], text: string): void {
  const inItems = new Set<string>();
  for (const r of refs) for (let i = r.start; i < r.end; i++) inItems.add(parsed.tokens[i]);
  // most turns say no feature word of the items they name: nothing more to look for
  if (parsed.keywords.some((k) => !inItems.has(k) && refs.some((r) => featureWords(r.item).has(k)))) {
    dropFeatureWords(parsed, refs, text, inItems);
  }
  parsed.keywords = parsed.keywords.filter((k) => !inItems.has(k));
}

/** Adds to `inItems` the words of each named item's own features said in the sentence naming it. */
function dropFeatureWords(parsed: ParsedUtterance, refs: readonly ItemReference[], text: string, inItems: Set<string>) {
  const { starts } = tokenizeSpans(text);
  const ends: number[] = [];
  for (const m of text.matchAll(/[.!?;](?=\s)/g)) ends.push(m.index + 1);
  const sentenceOf = (i: number) => {
    let k = 0;
    while (k < ends.length && starts[i] >= ends[k]) k++;
    return k;
  };
  for (const r of refs) {
    const own = featureWords(r.item);
    const k = sentenceOf(r.start);
    for (let i = 0; i < parsed.tokens.length; i++)
      if (own.has(parsed.tokens[i]) && sentenceOf(i) === k) inItems.add(parsed.tokens[i]);
  }
}

const featureWordsOf = new WeakMap<CatalogItem, Set<string>>();

/** The words of an item's catalog features, lower case. */
function featureWords(item: CatalogItem): Set<string> {
  let out = featureWordsOf.get(item);
  if (!out) {
    out = new Set(item.features.flatMap((f) => tokenize(f)));
    featureWordsOf.set(item, out);
  }
  return out;
}

/** A slot name as a word ("price_band" -> "price range"). */
export function slotWord(slot: string): string {
  return slot === 'price_band' ? 'price range' : slot === 'type' ? 'type' : slot.replace(/_/g, ' ');
}

/**
 * What a local recommender reports as its reading of a turn (`AgentResponse.agent_trace`):
 * `negated` = values it understood as negated in this utterance; on turns where it searched,
 * `query`, `filters` (hard filters: category, type and gender as "a|b", price limits),
 * `excluded` (every value ruled out so far, which no shown item has) and `retrieved` (hits);
 * `relaxed` = slots the user let go of this turn ("any colour is fine"); `price_step_undone` = the
 * agent took back its own price step ("pricier" or "cheaper") because nothing was left under it.
 */
export type AgentTrace = NonNullable<SimulatorTrace['agent']> & {
  negated: string[];
  excluded?: string[];
  relaxed?: string[];
  price_step_undone?: 'pricier' | 'cheaper';
};

/** The distinct values of negated mentions, in utterance order. */
export function negatedValues(removed: readonly Mention[]): string[] {
  const out: string[] = [];
  for (const m of removed) if (!out.includes(m.value)) out.push(m.value);
  return out;
}

/** Every value the user has ruled out so far, sorted (deterministic). */
function excludedValues(state: PreferenceState): string[] {
  const out: string[] = [];
  for (const set of state.excluded.values()) for (const v of set) if (!out.includes(v)) out.push(v);
  return out.sort();
}

/** The reason frames that say a feature with its article (`$a`) only: a `FEATURE_NOTES` note fills them. */
const WITH_ARTICLE = {
  reasonAfter: GOOD_FRAMES.reasonAfter.filter((f) => !f.includes('$f')),
  reasonAlone: GOOD_FRAMES.reasonAlone.filter((f) => !f.includes('$f')),
};

/** `text` about `item`, with "they" for an item whose type is a plural noun ("They come with ..."). */
function theyOf(item: CatalogItem, text: string): string {
  return isPluralNoun(item.attributes.type ?? '') ? pluralPronouns(text) : text;
}

function say(utterance: string, recommendations: RecommendedItem[], acts: string[]): AgentResponse {
  return { utterance, recommendations, acts };
}

/**
 * How local-good says an item's value when the user asked about it (`$v` the value), per
 * attribute the explanation does not say otherwise; each frame holds the value word for word.
 */
const ANSWERS: Readonly<Record<string, ((value: string) => readonly string[]) | undefined>> = {
  style: (v) => ['It is $v in style.', 'Style-wise it is $v.', 'Its style is $v.', `It has ${withArticle(v)} style.`],
  gender: (v) =>
    v === 'unisex'
      ? ['It is unisex.', 'It is from the unisex range.', 'It is cut as unisex.']
      : ['It is made for $v.', 'It is cut for $v.', "It is from the $v's range."],
  type: (v) => [`It is ${withArticle(v)}.`, `It is ${withArticle(v)}, yes.`],
  brand: () => ['It is by $v.', 'The brand is $v.', 'It comes from $v.'],
  price_band: () => ['It sits in the $v price band.', 'Price-wise it is $v.'],
};
