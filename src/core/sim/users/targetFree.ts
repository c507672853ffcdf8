/**
 * The target-free simulated user of PEPPER (Kim et al.): the user never sees its target items.
 *
 * - History: items of the task category rated by a latent taste (0.5-5). The highest-rated ones
 *   (rating >= 4, up to `targetCount`, at least one) are held out as the *targets*; the rest are
 *   the *seen* items, each with a synthetic review (the aspects the user liked and disliked).
 * - General preferences: attribute values whose mean rating over the seen items is >= 3.5
 *   (liked) or <= 2.5 (disliked), told as a short narrative in the opening request.
 * - Reflected preferences: each turn, for each of the first `interfaceSize` (4) items the agent
 *   shows, like/dislike/neutral: from the user's own rating if it has seen the item, else from the
 *   general preferences (sum of the item's liked minus disliked values).
 * - Each utterance is built from the reflected preferences (one liked and one disliked item named)
 *   plus one general preference not yet mentioned, so preferences come out gradually.
 * - Preference coverage PC_t = |targets ∩ (R_1 ∪ ... ∪ R_t)| / |targets| is recorded on every turn
 *   (R_i = all items the agent recommended at turn i). Dialogues run up to 20 turns.
 * - `trace.said` records what each utterance states: liked values (one per attribute) as
 *   constraints, values it says it does not want as `negated`, and the shown items it names.
 * - One value per attribute for the whole dialogue: once the user has said a value it never states
 *   another one for that attribute (a liked item's other values go unsaid), and never calls a value
 *   it said it wants one it is not keen on, or the reverse.
 * - Wrapped by a meta-simulator (a target is set), the values it states follow the current target:
 *   liked values are the target's, and it never rejects a value the target has. After a target
 *   switch, a value it said that the new target does not have is revised out loud (Reveal.Revise,
 *   every such attribute in one turn) before it says anything else about them.
 * - Stated preferences win over reflected ones (PEPPER's reflected preferences must not contradict
 *   what the user told the recommender): an item carrying a value the user said it is not keen on
 *   is reflected as "dislike", whatever the user's rating or general preferences say, unless it is
 *   the meta-simulator's target.
 * - Wrapped by a meta-simulator, it takes its target when it sees it among the first 3 items
 *   (AlterEval: a user that finds what it is looking for accepts it), as the agenda user does: the
 *   two wrapped users agree on what success is. A value it still has to revise out loud after a
 *   switch is revised first (accepting would break a value it said and never took back), also when
 *   the target's value is one it said it is not keen on (the revision takes that back).
 * - A liked item is weighed once: shown again and not taken, it no longer counts as liked on screen
 *   (patience), and the user turns it down out loud, one item a turn (a wanted value it lacks said
 *   again, "I bought it before", or a pass). After an agent turn that showed nothing, a user with
 *   nothing new to say asks to see a few items (never "none of these" about nothing), and it says
 *   "none of these" only of a carousel without an item it likes for the first time.
 * - It never says anything it already said in the conversation (only a repeat after a failed
 *   agent turn repeats itself): each clause avoids every wording that clause kind had before, and
 *   the whole utterance is redrawn, then extended with a remark that these look familiar, until it
 *   is new.
 */
import { EmptyAnswers } from './emptyAnswers';
import { isPluralNoun } from '../../text/articles';
import type { PreferenceState, SimulatorTrace } from '../../model';
import type { Rng } from '../../random';
import type { AgentResponse, SessionContext, UserSimulator, UserTurn } from '../types';
import type { Catalog, CatalogItem } from '../../catalog/catalog';
import { TemplateNlg, readableAttribute, type SlotFill } from './nlg';
import { AgentNlu } from './nlu';
import {
  describeValues,
  joinList,
  namedInPlural,
  questionAttributes,
  reasonPhrase,
  somethingValues,
  valuePhrase,
} from './phrases';
import { acceptanceReason, isNounDetail } from './reasons';
import {
  attributeKey,
  dynamicRecord,
  itemAttributeKeys,
  sampleHistory,
  sampleTaste,
  viewOf,
  type ItemView,
  type Opinion,
  type RatedItem,
  type Taste,
} from './preferences';
import { round3, type ObservingSession, type TargetAwareSession, type TargetUpdate } from './session';

interface TargetFreeOptions {
  catalog: Catalog;
  nlg?: TemplateNlg;
  nlu?: AgentNlu;
  /** Items in the user's history, targets included (default 12). */
  historySize?: number;
  /** Most targets held out (default 3). */
  targetCount?: number;
  /** Items of each carousel the user reflects on (default 4, as in PEPPER). */
  interfaceSize?: number;
  /** The user says goodbye on this turn (default 20). */
  maxTurns?: number;
  /** Carousels without an item it likes before it leaves (default 3, as the agenda user's patience). */
  patience?: number;
  /**
   * What the user may say it likes about an item besides its attribute values (the catalog's own
   * features that no reader takes for a wish; see `sayableDetails`). Without it the user names
   * attribute values only.
   */
  details?: (item: CatalogItem) => readonly string[];
}

/**
 * The rating a target-free user expects to give an unseen item before it takes it: the mean rating
 * at which a value counts among its liked general preferences (>= 3.5), so it takes an item it
 * expects to like as much as the values it likes.
 */
const ACCEPT_RATING = 3.5;
/** Values of an unseen item whose rating the user knows from its seen items, at least, to predict one. */
const KNOWN_VALUES_TO_PREDICT = 2;

/** How far down a carousel a meta-simulated user looks for its target (as the agenda user and the meta-simulator). */
const TARGET_SEEN_DEPTH = 3;

export class TargetFreeUserSimulator implements UserSimulator {
  readonly name = 'target-free';
  readonly nlg: TemplateNlg;
  readonly nlu: AgentNlu;

  constructor(readonly options: TargetFreeOptions) {
    this.nlg = options.nlg ?? new TemplateNlg();
    this.nlu = options.nlu ?? new AgentNlu();
  }

  createSession(conversationId: string, rng: Rng, context: SessionContext): TargetFreeSession {
    return new TargetFreeSession(this, rng, context);
  }
}

/** The aspects of one seen item the user would write about in a review. */
export interface SyntheticReview {
  item_id: string;
  rating: number;
  liked: string[];
  disliked: string[];
}

/** A PEPPER user drawn from a catalog category: a latent taste, the rated history split in two. */
interface SampledPepperUser {
  taste: Taste;
  /** History items the user has seen (and reviewed), in sampling order. */
  seen: RatedItem[];
  /** Held-out history items: the highest rated, best first. */
  targets: RatedItem[];
  /** The review of each seen item, by item id. */
  reviews: Map<string, SyntheticReview>;
}

/**
 * Samples a PEPPER user from the task's category (the one sampler of both target-free users). As
 * in PEPPER, the targets come out of the user's own rated history: the items rated >= 4 (best
 * first, up to `targetCount`, at least one) are held out and the rest are the seen items, so the
 * general preferences drawn from the seen items point at the targets without naming them.
 * `historySize` counts the targets too; at least one item stays seen.
 */
export function samplePepperUser(
  catalog: Catalog,
  task: string,
  rng: Rng,
  historySize = 12,
  targetCount = 3,
  exclude: ReadonlySet<string> = new Set(),
): SampledPepperUser {
  const taste = sampleTaste(catalog, task, rng);
  const history = sampleHistory(catalog, taste, historySize, rng, exclude);
  const ranked = history.slice().sort((a, b) => b.rating - a.rating || (a.item_id < b.item_id ? -1 : 1));
  let targets = ranked.filter((h) => h.rating >= 4).slice(0, targetCount);
  if (targets.length === 0) targets = ranked.slice(0, 1);
  if (ranked.length - targets.length < 1) targets = targets.slice(0, Math.max(1, ranked.length - 1));
  const targetIds = new Set(targets.map((t) => t.item_id));
  const seen = history.filter((h) => !targetIds.has(h.item_id));
  const reviews = new Map(seen.map((h) => [h.item_id, syntheticReview(catalog, h, taste)]));
  return { taste, seen, targets, reviews };
}

/** The liked and disliked aspects of a seen item: its values the taste likes and dislikes. */
function syntheticReview(catalog: Catalog, h: RatedItem, taste: Taste): SyntheticReview {
  const item = catalog.get(h.item_id);
  const r: SyntheticReview = { item_id: h.item_id, rating: h.rating, liked: [], disliked: [] };
  if (!item) return r;
  for (const [k, v] of Object.entries(item.attributes)) {
    if (taste.liked[k]?.includes(v)) r.liked.push(attributeKey(k, v));
    if (taste.disliked[k]?.includes(v)) r.disliked.push(attributeKey(k, v));
  }
  return r;
}

type Said = NonNullable<SimulatorTrace['said']>;

export class TargetFreeSession implements ObservingSession, TargetAwareSession {
  readonly task: string;
  readonly targets: string[];
  readonly seen: Map<string, SyntheticReview>;
  private readonly generalLiked: [string, string][];
  private readonly generalDisliked: [string, string][];
  private readonly valuePrefs = new Map<string, number>();
  /** Mean rating of each attribute value over the seen items ("attr=value" -> mean). */
  private readonly valueMeans = new Map<string, number>();
  private readonly initialPatience: number;
  private patience: number;
  /** Agent turns with nothing in them (emptyAnswers.ts). */
  private readonly empty = new EmptyAnswers();
  /** Agent turns so far, and those that showed an item it likes or asked rather than showed. */
  private agentTurns = 0;
  private satisfying = 0;
  private readonly recommended = new Set<string>();
  private readonly mentioned = new Set<string>();
  /** The value the user last said it wants, per attribute (what a later turn must not contradict). */
  private readonly stated = new Map<string, string>();
  /** The attribute values ("attr=value") the user said it is not keen on. */
  private readonly rejected = new Set<string>();
  /** Every wording each clause kind had so far, so no clause is said twice in a conversation. */
  private readonly clauseWordings = new Map<string, Set<string>>();
  /** Every utterance the user said so far. */
  private readonly utterances = new Set<string>();
  private turn = 0;
  private coverage = 0;
  /** Set by a meta-simulator: the item the user is now looking for. */
  private target: CatalogItem | undefined;
  private previousUtterance: string | undefined;
  /** The first three items of the carousel the user last turned down (a Dislike turn), joined. */
  private lastTurnedDown: string | undefined;
  /** The item ids of the agent's last turn, in order ('' when it showed none): a carousel kept on screen. */
  private lastCarousel = '';
  /**
   * The draws of how the user names an item and which of its details it praises (`refer`,
   * `praise`): a fork of the session's generator, so every clause's wording (one draw each from
   * `rng`) and every decision is drawn as before these existed.
   */
  private readonly naming: Rng;
  /** Details the user has praised so far, by item (each is praised once). */
  private readonly praised = new Set<string>();
  /** `satisfiable` answers against what the user said so far; cleared whenever that changes. */
  private readonly satisfiableKnown = new Map<string, boolean>();
  /** Values given as a Like's reason ("especially that it's grey"): each is given once. */
  private readonly reasonsGiven = new Set<string>();
  /** Wanted values said again (`stillWanted`), so a later turn says another one first. */
  private readonly restatedValues = new Set<string>();
  /** The wanted values ("attr=value") the user's last turn stated: not said again unasked on the next (`saidLastTurn`). */
  private lastTurnValues = new Set<string>();
  /**
   * A user that says it does not want a value of an attribute (on this turn or before) has a
   * preference there: "no preference on the price band" beside "nothing in the budget range"
   * contradicts itself, and the agent reads it as taking the exclusion back (seventeenth round: 1
   * of 10,000 target-free conversations against local-good, the checker's negation-honoured).
   */
  private notNoPreference(plan: { none: string[] }, negatedKeys: readonly string[]): void {
    const holds = (a: string) =>
      negatedKeys.some((k) => k.startsWith(`${a}=`)) || [...this.rejected].some((k) => k.startsWith(`${a}=`));
    plan.none = plan.none.filter((a) => !holds(a));
  }

  /** Attributes the user said it has no preference on (`Disclose.NonDisclose`): never stated later. */
  private readonly noPreference = new Set<string>();
  /** Items the user has said it likes (a Like clause): an item's praise is said once. */
  private readonly likedBefore = new Set<string>();
  /**
   * Items it reflected as liked on an earlier carousel and did not take: weighed once, so shown
   * again they are no longer items it likes on screen (patience) and none is praised again.
   */
  private readonly weighed = new Map<string, number>();
  /** Weighed items shown again that the user turned down out loud: each is turned down once. */
  private readonly declined = new Set<string>();
  /**
   * How this user words its general preferences (`narrative`): a lead for the liked values, one
   * for the disliked ones (each keeps its values within a negation's reach) and the join, drawn
   * once per session from a fork of its own, so the opening and every snapshot say the same.
   */
  private readonly narrativeWords: readonly [string, string, string];
  /** The noun of its liked values in the narrative (`NARRATIVE_NOUNS`), drawn with `narrativeWords`. */
  private readonly narrativeNoun: string;
  /** Most liked and most disliked values the opening says, drawn with `narrativeWords`. */
  private readonly narrativeCounts: readonly [number, number];
  /** How the opening frames its values (`NARRATIVE_FRAMES`), drawn with `narrativeWords`. */
  private readonly narrativeFrame: NarrativeFrame;

  constructor(
    private readonly sim: TargetFreeUserSimulator,
    private readonly rng: Rng,
    context: SessionContext,
  ) {
    this.naming = rng.fork('naming');
    const story = rng.fork('narrative');
    const likes = story.pick(LIKED_LEADS);
    const dislikes = story.pick(DISLIKED_LEADS);
    const join = story.pick([', and ', '. ']);
    // the lead within its group: drawn after the three draws above, which are what they always were
    this.narrativeWords = [story.pick(likes), story.pick(dislikes), join];
    // the noun its liked values describe ("navy pieces", "navy things"), drawn last for the same reason
    this.narrativeNoun = story.pick(NARRATIVE_NOUNS);
    // how many values the opening says (one or two liked, none or one not keen on: the rest come
    // out on later turns) and its frame, drawn last for the same reason (fourteenth round)
    this.narrativeCounts = [1 + story.int(2), story.int(2)];
    this.narrativeFrame = story.pick(NARRATIVE_FRAMES);
    const catalog = sim.options.catalog;
    const categories = catalog.categories();
    if (categories.length === 0) throw new Error('the catalog is empty');
    this.task =
      typeof context.task === 'string' && categories.includes(context.task) ? context.task : rng.pick(categories);
    // under a meta-simulator the history leaves out the items it will be sent to buy
    const profile = samplePepperUser(
      catalog,
      this.task,
      rng,
      sim.options.historySize,
      sim.options.targetCount,
      new Set(context.targetGroup ?? []),
    );
    const seen = profile.seen;
    this.targets = profile.targets.map((t) => t.item_id).sort();
    this.seen = new Map(seen.map((h) => [h.item_id, profile.reviews.get(h.item_id)!]));
    // General preferences: mean rating of each attribute value over the seen items.
    const sums = new Map<string, { sum: number; n: number }>();
    for (const h of seen) {
      const item = catalog.get(h.item_id);
      if (!item) continue;
      for (const [k, v] of Object.entries(item.attributes)) {
        if (k === 'brand') continue;
        const key = attributeKey(k, v);
        const s = sums.get(key) ?? { sum: 0, n: 0 };
        s.sum += h.rating;
        s.n++;
        sums.set(key, s);
      }
    }
    const liked: [string, number][] = [];
    const disliked: [string, number][] = [];
    for (const [key, s] of [...sums].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      const mean = s.sum / s.n;
      this.valueMeans.set(key, mean);
      if (mean >= 3.5) {
        liked.push([key, mean]);
        this.valuePrefs.set(key, 1);
      } else if (mean <= 2.5) {
        disliked.push([key, mean]);
        this.valuePrefs.set(key, -1);
      }
    }
    liked.sort((a, b) => b[1] - a[1]);
    disliked.sort((a, b) => a[1] - b[1]);
    const split = (key: string): [string, string] => {
      const eq = key.indexOf('=');
      return [key.slice(0, eq), key.slice(eq + 1)];
    };
    this.generalLiked = liked.map(([k]) => split(k));
    this.generalDisliked = disliked.map(([k]) => split(k));
    this.initialPatience = sim.options.patience ?? 3;
    this.patience = this.initialPatience;
  }

  /**
   * The rating the user expects to give an unseen item: the mean, over the item's values it has
   * met in its seen items, of their mean rating (as its general preferences are drawn); undefined
   * when it knows fewer than two of them.
   */
  expectedRating(item: ItemView): number | undefined {
    let sum = 0;
    let n = 0;
    for (const [k, v] of Object.entries(item.attributes)) {
      if (k === 'brand') continue;
      const m = this.valueMeans.get(attributeKey(k, v));
      if (m !== undefined) {
        sum += m;
        n++;
      }
    }
    return n >= KNOWN_VALUES_TO_PREDICT ? sum / n : undefined;
  }

  /**
   * Whether a target-free user (no meta target) takes a shown item: one it has not had (not in its
   * history), of its task category, that it reflects as liked, whose expected rating reaches
   * ACCEPT_RATING (what makes a history item one of its targets), with every value it said it
   * wants, none it said it is not keen on and none it generally dislikes.
   */
  private takes(item: ItemView): boolean {
    if (this.seen.has(item.item_id)) return false;
    if (item.category !== undefined && item.category !== this.task) return false;
    if (this.reflect(item) !== 'like') return false;
    for (const [k, v] of Object.entries(item.attributes)) {
      const key = attributeKey(k, v);
      if (this.rejected.has(key) || this.valuePrefs.get(key) === -1) return false;
      const said = this.stated.get(k);
      if (said !== undefined && said !== v) return false;
    }
    const r = this.expectedRating(item);
    return r !== undefined && r >= ACCEPT_RATING;
  }

  /** Patience, satisfaction and frustration after the agent's latest turn (docs/simulation.md). */
  private mood(trace: SimulatorTrace): void {
    trace.patience = this.patience;
    trace.satisfaction = this.agentTurns ? round3(this.satisfying / this.agentTurns) : 1;
    trace.frustration = round3(1 - this.patience / this.initialPatience);
  }

  /**
   * The liked values the user may state, one per attribute: its general preferences, or with a
   * target the target's values (those it generally likes first).
   */
  private likedPool(): [string, string][] {
    const out: [string, string][] = [];
    const attrs = new Set<string>();
    const add = (k: string, v: string) => {
      if (k === 'brand' || attrs.has(k)) return;
      attrs.add(k);
      out.push([k, v]);
    };
    if (this.target) {
      const t = this.target.attributes;
      for (const [k, v] of this.generalLiked) if (t[k] === v) add(k, v);
      for (const k of Object.keys(t).sort()) add(k, t[k]);
    } else {
      for (const [k, v] of this.generalLiked) add(k, v);
    }
    return out;
  }

  /** The disliked values the user may state (never a value of its target). */
  private dislikedPool(): [string, string][] {
    const t = this.target?.attributes;
    return this.generalDisliked.filter(([k, v]) => !t || t[k] !== v);
  }

  /**
   * What the opening narrative states: one or two liked values and at most one disliked one (as
   * drawn for the session), in the session's frame; the other values come out on later turns.
   */
  private narrative(): { text: string; liked: [string, string][]; disliked: [string, string][] } {
    const [likedMost, dislikedMost] = this.narrativeCounts;
    const liked: [string, string][] = [];
    for (const kv of this.likedPool()) {
      if (liked.length === likedMost) break;
      if (this.satisfiable([...liked, kv], new Map())) liked.push(kv);
    }
    const disliked = this.dislikedPool().slice(0, dislikedMost);
    const [likes, dislikes, join] = this.narrativeWords;
    const text = this.narrativeFrame({
      lead: liked.length ? `${likes} ${describeValues(liked, this.narrativeNoun)}` : '',
      something: liked.length ? somethingValues(liked) : '',
      notLead: disliked.length ? `${dislikes} ${valuePhrase(disliked[0][0], disliked[0][1])}` : '',
      not: disliked.length ? valuePhrase(disliked[0][0], disliked[0][1]) : '',
      join,
    });
    return { text: text.trim() || 'I am open to suggestions.', liked, disliked };
  }

  /** The general-preference narrative the user opens with. */
  generalNarrative(): string {
    return this.narrative().text;
  }

  /** The user's reflected opinion of one shown item. */
  reflect(item: ItemView): Opinion {
    if (this.target && item.item_id === this.target.item_id) return 'like';
    if (this.hasRejected(item)) return 'dislike';
    const own = this.seen.get(item.item_id);
    let o: Opinion;
    if (own) o = own.rating >= 3.5 ? 'like' : own.rating <= 2.5 ? 'dislike' : 'neutral';
    else if (item.category !== undefined && item.category !== this.task) return 'dislike';
    else {
      let s = 0;
      for (const key of itemAttributeKeys(item)) s += this.valuePrefs.get(key) ?? 0;
      o = s > 0 ? 'like' : s < 0 ? 'dislike' : 'neutral';
    }
    // What the user said it wants wins too: an item lacking one of those values is liked only for
    // one of them it has (the Like names it, see `aspect`); with none of them it is not one it
    // likes (neutral: lacking a wanted value is not having a value it is not keen on).
    if (o === 'like' && this.lacks(item) && !this.wantedHeld(item)) return 'neutral';
    return o;
  }

  /**
   * The first value (in the order said) the user said it wants that `item` has, or undefined;
   * `fresh`: only among those not given as a Like's reason before.
   */
  private wantedHeld(item: ItemView, fresh = false): [string, string] | undefined {
    const t = this.target?.attributes;
    for (const [k, v] of this.stated)
      if (item.attributes[k] === v && (!t || t[k] === v) && !(fresh && this.reasonsGiven.has(attributeKey(k, v))))
        return [k, v];
    return undefined;
  }

  setTarget(update: TargetUpdate): void {
    this.target = update.target;
    this.targets.splice(0, this.targets.length, ...update.alternatives);
    this.coverage = this.computeCoverage();
  }

  private computeCoverage(): number {
    if (this.targets.length === 0) return 0;
    let hit = 0;
    for (const t of this.targets) if (this.recommended.has(t)) hit++;
    return round3(hit / this.targets.length);
  }

  observe(response: AgentResponse): Partial<SimulatorTrace> {
    if (response.error) return { preference_coverage: this.coverage };
    for (const r of response.recommendations) this.recommended.add(r.item_id);
    this.coverage = this.computeCoverage();
    return { preference_coverage: this.coverage };
  }

  private snapshot(): PreferenceState {
    const item_ratings = dynamicRecord<number>();
    for (const [id, r] of this.seen) item_ratings[id] = r.rating;
    const reviews = dynamicRecord<{ liked: string[]; disliked: string[] }>();
    for (const [id, r] of this.seen) reviews[id] = { liked: r.liked, disliked: r.disliked };
    return {
      kind: 'snapshot',
      model: 'pepper',
      general: this.generalNarrative(),
      consumed_items: [...this.seen.keys()],
      liked_attributes: this.generalLiked.map(([k, v]) => attributeKey(k, v)),
      disliked_attributes: this.generalDisliked.map(([k, v]) => attributeKey(k, v)),
      item_ratings,
      reviews,
    } as PreferenceState;
  }

  /**
   * The next liked value not yet stated, skipping the attributes in `skip` and any value that
   * would contradict what the user said before (another value of a stated attribute, a rejected one),
   * or that would leave no item it could take; with `only`, a value of one of those attributes.
   */
  private nextGeneralValue(skip: ReadonlySet<string>, only?: readonly string[]): [string, string] | undefined {
    // Asked about an attribute (`only`), any liked value of it may answer, not only the first.
    const pool = only && !this.target ? this.generalLiked.filter(([k]) => only.includes(k)) : this.likedPool();
    for (const [k, v] of pool) {
      const key = attributeKey(k, v);
      if (
        (only === undefined || only.includes(k)) &&
        !this.noPreference.has(k) &&
        !this.mentioned.has(key) &&
        // a value already said (a Like's reason) is nothing new
        this.stated.get(k) !== v &&
        !skip.has(k) &&
        this.consistent(k, v, 1) &&
        this.satisfiable([[k, v]])
      ) {
        this.mentioned.add(key);
        return [k, v];
      }
    }
    return undefined;
  }

  /**
   * Whether saying that the user wants (sign 1) or is not keen on (sign -1) `k=v` agrees with
   * everything it said before.
   */
  private consistent(k: string, v: string, sign: number): boolean {
    const said = this.stated.get(k);
    if (sign > 0) return (said === undefined || said === v) && !this.rejected.has(attributeKey(k, v));
    return said !== v;
  }

  /**
   * Whether some catalog item of the task has every value the user said it wants (`base`, by
   * default what it said so far) and the `extra` ones, and none it said it is not keen on. A
   * target-free user never states a value that would leave nothing it could take (the agenda
   * user's rule 9 for its goal), so what it says can still be met.
   */
  private satisfiable(extra: readonly [string, string][], base: ReadonlyMap<string, string> = this.stated): boolean {
    // Against what the user said so far the answer only changes when that changes (`remember`, a
    // revision): kept until then (the scan of the task's items is the costly part of a turn).
    const key = base === this.stated ? extra.map(([k, v]) => `${k}\u0000${v}`).join('\u0001') : undefined;
    const known = key === undefined ? undefined : this.satisfiableKnown.get(key);
    if (known !== undefined) return known;
    const out = this.scanSatisfiable(extra, base);
    if (key !== undefined) this.satisfiableKnown.set(key, out);
    return out;
  }

  private scanSatisfiable(extra: readonly [string, string][], base: ReadonlyMap<string, string>): boolean {
    const want = new Map(base);
    for (const [k, v] of extra) want.set(k, v);
    const catalog = this.sim.options.catalog;
    const items = catalog.categoryItems(this.task);
    // An item holds a wanted value when it lacks the attribute or has that value: compared as the
    // catalog's value ids (`attributeCodes`, aligned with `categoryItems`; -1 where an item lacks
    // it) instead of reading every item's attributes by name. A name an object inherits
    // ("constructor") would read differently there: such a want is scanned by name.
    const codes: Int32Array[] = [];
    const ids: number[] = [];
    for (const [k, v] of want) {
      if (k in Object.prototype) return this.scanByName(items, want);
      codes.push(catalog.attributeCodes(this.task, k));
      ids.push(catalog.valueId(k, v));
    }
    for (let i = 0; i < items.length; i++) {
      let holds = true;
      for (let j = 0; j < codes.length && holds; j++) holds = codes[j][i] === -1 || codes[j][i] === ids[j];
      if (holds && !this.hasRejected(items[i])) return true;
    }
    return false;
  }

  /** `scanSatisfiable` reading each item's attributes by name. */
  private scanByName(items: readonly CatalogItem[], want: ReadonlyMap<string, string>): boolean {
    return items.some((it) => {
      for (const [k, v] of want) {
        const have = it.attributes[k];
        if (have !== undefined && have !== v) return false;
      }
      return !this.hasRejected(it);
    });
  }

  /** Whether an item has a value the user said it is not keen on. */
  private hasRejected(item: ItemView): boolean {
    if (this.rejected.size === 0) return false;
    for (const key of itemAttributeKeys(item)) if (this.rejected.has(key)) return true;
    return false;
  }

  /** Records what a turn said, so later turns keep to it. */
  private remember(said: Said, negatedKeys: readonly string[]): void {
    this.lastTurnValues = new Set(
      Object.entries(said.constraints ?? {})
        .filter(([k]) => k !== 'category')
        .map(([k, v]) => attributeKey(k, String(v))),
    );
    for (const [k, v] of Object.entries(said.constraints ?? {})) if (k !== 'category') this.stated.set(k, String(v));
    for (const key of negatedKeys) this.rejected.add(key);
    this.satisfiableKnown.clear();
  }

  /** True when an item has every value the user said it wants (what accepting it must not break). */
  private meetsStated(item: Pick<CatalogItem, 'attributes'>): boolean {
    for (const [k, v] of this.stated) {
      const have = item.attributes[k];
      if (have !== undefined && have !== v) return false;
    }
    return true;
  }

  /** The first value (in key order) the user said it wants that `item` has otherwise, or undefined. */
  private lacks(item: ItemView): [string, string] | undefined {
    for (const k of [...this.stated.keys()].sort()) {
      const have = item.attributes[k];
      const want = this.stated.get(k)!;
      if (k !== 'category' && have !== undefined && have !== want) return [k, want];
    }
    return undefined;
  }

  /**
   * A value the user said that its current target does not have (after a meta-simulator's switch):
   * the first such attribute in key order, with the target's value, or undefined.
   */
  private pendingRevision(): [string, string] | undefined {
    return this.pendingRevisions()[0];
  }

  /** Every value the user said that its current target does not have, in key order, with the target's values, then the target's values it said it does not want. */
  private pendingRevisions(): [string, string][] {
    const t = this.target?.attributes;
    if (!t) return [];
    const out: [string, string][] = [];
    for (const k of [...this.stated.keys()].sort()) {
      const v = t[k];
      if (v !== undefined && v !== this.stated.get(k)) out.push([k, v]);
    }
    // A value the user said it does not want that the (new) target has: taken back out loud too,
    // before the target is taken (never accept against its own words).
    for (const k of Object.keys(t).sort()) {
      if (this.rejected.has(attributeKey(k, t[k])) && !out.some(([s]) => s === k)) out.push([k, t[k]]);
    }
    return out;
  }

  /** The clause kind that says again a value the user wants (older template files: Pepper.More). */
  private lacksKind(): string {
    return this.sim.nlg.has('Pepper.Lacks') ? 'Pepper.Lacks' : 'Pepper.More';
  }

  /**
   * A value the user said it wants, to say again when an agent turn showed nothing and it has
   * nothing new to say: the first (in the order said) not said again before, else the first.
   */
  private stillWanted(): [string, string] | undefined {
    const all = [...this.stated];
    return all.find(([k, v]) => !this.restatedValues.has(attributeKey(k, v))) ?? all[0];
  }

  /**
   * How the user answers a question about `asked` attributes, from its state, attribute by
   * attribute (those in `skip`, given a value in this turn already, are answered): `own`, a liked
   * value not said yet that some item could still meet (a meta user's target's; `nextGeneralValue`);
   * else `again`, the value it said before; else `not`, a general dislike of it (when it said no
   * value of it not keen on yet) whose rejection leaves an item it could take (never its target's, nor a value in `keep`: one of an
   * item it likes on screen);
   * else `none`, "no preference", only on an attribute it has no taste on at all (no liked or
   * disliked value of it, none said, no meta target's value; brand included). An attribute it has
   * a taste on that no item can meet now gets nothing, and so does one it said "no preference" on
   * (asked again, it is not said twice).
   */
  private answerPlan(
    asked: readonly string[],
    skip: ReadonlySet<string>,
    keep: ReadonlySet<string> = new Set(),
  ): { own: [string, string][]; again: [string, string][]; not: [string, string][]; none: string[] } {
    const plan = {
      own: [] as [string, string][],
      again: [] as [string, string][],
      not: [] as [string, string][],
      none: [] as string[],
    };
    const t = this.target?.attributes;
    for (const a of asked) {
      if (skip.has(a) || this.noPreference.has(a)) continue;
      const v = this.nextGeneralValue(skip, [a]);
      if (v) {
        plan.own.push(v);
        continue;
      }
      const said = this.stated.get(a);
      if (said !== undefined) {
        plan.again.push([a, said]);
        continue;
      }
      // one value of an attribute said not keen on is its answer: asked again (or after a Dislike's
      // reason of that attribute), it has nothing new to say and names no other
      const saidNot = [...this.rejected].some((key) => key.startsWith(`${a}=`));
      const not = this.dislikedPool().find(
        ([k, v]) =>
          !saidNot && k === a && !keep.has(attributeKey(k, v)) && this.consistent(k, v, -1) && this.canReject(k, v),
      );
      if (not) {
        plan.not.push(not);
        continue;
      }
      const taste =
        saidNot ||
        this.generalLiked.some(([k]) => k === a) ||
        this.generalDisliked.some(([k]) => k === a) ||
        (t !== undefined && a !== 'brand' && t[a] !== undefined);
      if (!taste) plan.none.push(a);
    }
    return plan;
  }

  /** Whether some item the user could take is left once it says it is not keen on `k=v`. */
  private canReject(k: string, v: string): boolean {
    const key = attributeKey(k, v);
    this.rejected.add(key);
    const out = this.scanSatisfiable([], this.stated);
    this.rejected.delete(key);
    return out;
  }

  /**
   * Says that the user is not keen on `k=v` as its answer about that attribute (`Pepper.NotKeen`:
   * "As for the colour, just nothing olive."), recorded as negated; false when no wording says it.
   */
  private sayNotKeen(
    [k, v]: [string, string],
    add: (kind: string, text: string) => void,
    negated: string[],
    negatedKeys: string[],
  ): boolean {
    if (!this.sim.nlg.has('Pepper.NotKeen')) return false;
    const r = this.clause('Pepper.NotKeen', { attribute: readableAttribute(k), disliked: valuePhrase(k, v) }, [
      'disliked',
    ]);
    if (!r.used.includes('disliked')) return false;
    add('Pepper.NotKeen', r.text);
    negated.push(v);
    negatedKeys.push(attributeKey(k, v));
    return true;
  }

  /** Realises one clause of a turn, avoiding every wording that clause kind had before. */
  private clause(act: string, fill: SlotFill, require: readonly string[] = []) {
    return this.sim.nlg.realise(act, fill, this.rng, this.clauseWordings.get(act), require);
  }

  /** Remembers an utterance and its clauses' wordings. */
  private said(utterance: string, wording: ReadonlyMap<string, string>): void {
    this.previousUtterance = utterance;
    this.utterances.add(utterance);
    for (const [kind, text] of wording) {
      let set = this.clauseWordings.get(kind);
      if (!set) this.clauseWordings.set(kind, (set = new Set()));
      set.add(text);
    }
  }

  async start(): Promise<UserTurn> {
    const story = this.narrative();
    for (const [k, v] of story.liked) this.mentioned.add(attributeKey(k, v));
    const fill: SlotFill = { category: this.task, general: story.text };
    const { text: utterance, used } = this.sim.nlg.realise('Pepper.Open', fill, this.rng, undefined, ['general']);
    this.said(utterance, new Map());
    this.turn = 1;
    const said: Said = { constraints: {} };
    if (used.includes('category')) said.constraints!.category = this.task;
    if (used.includes('general')) {
      for (const [k, v] of story.liked) said.constraints![k] = v;
      if (story.disliked.length) said.negated = story.disliked.map(([, v]) => v);
      this.remember(
        said,
        story.disliked.map(([k, v]) => attributeKey(k, v)),
      );
    }
    const trace: SimulatorTrace = {
      operation: 'init',
      user_act: 'Disclose',
      said,
      preferences: this.snapshot(),
      targets: this.targets.slice(),
      preference_coverage: 0,
    };
    this.mood(trace);
    return { utterance, act: 'Disclose', trace, done: false };
  }

  async respond(response: AgentResponse): Promise<UserTurn> {
    if (response.error) {
      // A failed agent turn: the user ignores it and repeats itself (no turn counted, nothing seen).
      const trace: SimulatorTrace = {
        nlu: { agent_act: 'Other', source: 'none' },
        user_act: 'Navigate.Repeat',
        said: { constraints: {} },
        preference_coverage: this.coverage,
      };
      (trace as Record<string, unknown>)['ignored_agent_error'] = true;
      this.mood(trace);
      return { utterance: this.previousUtterance ?? '', act: 'Navigate.Repeat', trace, done: false };
    }
    const understanding = this.sim.nlu.understand(response);
    const max = this.sim.options.maxTurns ?? 20;
    const nlu = { agent_act: understanding.agent_act, source: understanding.source } as SimulatorTrace['nlu'] & object;
    if (understanding.confidence !== undefined) nlu.confidence = understanding.confidence;
    // every act read, as the agenda user traces them (the checker judges an empty answer by them)
    if (understanding.acts.length > 1) (nlu as Record<string, unknown>)['acts'] = understanding.acts;
    const trace: SimulatorTrace = { nlu, agent_act: understanding.agent_act };
    this.turn++;
    const shown = response.recommendations
      .slice(0, this.sim.options.interfaceSize ?? 4)
      .map((r) => viewOf(r, this.sim.options.catalog));
    const reflected = dynamicRecord<Opinion>();
    let liked: ItemView | undefined;
    // liked items it weighed on an earlier carousel and did not take, not turned down yet
    const again: ItemView[] = [];
    let disliked: ItemView | undefined;
    // a liked item it already has (one of its seen items), shown for the first time: it says so
    // at once rather than praise it as new
    let owned: ItemView | undefined;
    for (const item of shown) {
      const o = this.reflect(item);
      reflected[item.item_id] = o;
      const before = this.weighed.has(item.item_id) && item.item_id !== this.target?.item_id;
      const has = this.seen.has(item.item_id) && item.item_id !== this.target?.item_id;
      if (o === 'like' && !before && has && !owned && !this.declined.has(item.item_id)) owned = item;
      // a liked item lacking a wanted value is praised for a wanted value not given as a reason
      // before; with none left it is liked without a word (nothing new to say about it)
      if (o === 'like' && !before && !has && !liked && (!this.lacks(item) || this.wantedHeld(item, true))) liked = item;
      if (o === 'like' && before && !this.declined.has(item.item_id)) again.push(item);
      if (o === 'dislike' && !disliked) disliked = item;
    }
    const revision = this.pendingRevision();
    const top = shown.slice(0, TARGET_SEEN_DEPTH);
    const seen = this.target
      ? !revision && this.meetsStated(this.target)
        ? top.find((i) => i.item_id === this.target!.item_id)
        : undefined
      : top.find((i) => this.takes(i));
    // A carousel the agent keeps on screen while it only asks (the items of its last turn, in the
    // same order, no showing act) is not shown again (the agenda user's rule): the user does not
    // weigh it again. The turn costs no patience and leaves satisfaction as it was (no `operation`).
    const carousel = response.recommendations.map((r) => r.item_id).join('\u0000');
    const kept = carousel !== '' && carousel === this.lastCarousel && !understanding.acts.includes('Reveal.Show');
    this.lastCarousel = carousel;
    // Kept on screen while the agent asks ("A new batch, or tweaks to these?"): the user answers the
    // question (a new wish, or asks for others), and does not turn the same items down again.
    if (kept) {
      again.length = 0;
      disliked = undefined;
      owned = undefined;
      // nor praised: an item it comes to like only now (after a wish it said meanwhile) waits for a
      // carousel that shows it (fourteenth round: 1 of 360 kept carousels in the test)
      liked = undefined;
    }
    // Patience (ConvApparel; the agenda user's rule, judged on what the user reflects): a carousel
    // with no item it likes is an answer that missed (a push, one unit of patience); a question
    // or a carousel with a liked item is not. A meta user's target on screen is always liked.
    if (!kept) this.agentTurns++;
    // Also missed (as for the agenda user): the first three items the user just turned down shown
    // again, or every one of them with a value it said it is not keen on (an ignored "not X").
    const top3 = shown.slice(0, TARGET_SEEN_DEPTH).map((i) => i.item_id);
    const targetOnTop = this.target !== undefined && top3.includes(this.target.item_id);
    const reshown = this.lastTurnedDown !== undefined && top3.length > 0 && top3.join('\u0000') === this.lastTurnedDown;
    const ignoresNot =
      this.rejected.size > 0 && top3.length > 0 && shown.slice(0, TARGET_SEEN_DEPTH).every((i) => this.hasRejected(i));
    // A liked item is weighed once: shown again, an item it liked on an earlier carousel and did
    // not take is no longer one it likes on screen (the meta target always is).
    const likesOne =
      seen !== undefined ||
      shown.some(
        (i) => reflected[i.item_id] === 'like' && (!this.weighed.has(i.item_id) || i.item_id === this.target?.item_id),
      );
    for (const i of shown)
      if (reflected[i.item_id] === 'like' && !this.weighed.has(i.item_id)) this.weighed.set(i.item_id, this.turn);
    // An agent turn with nothing in it is a missed answer too (emptyAnswers.ts): the user came for
    // items. Without it a recommender that keeps saying "nothing matches, another material?"
    // pleases the user more at every turn, to the turn cap.
    const empty = this.empty.judge(shown.length, understanding.acts);
    const emptyHanded = !kept && empty !== undefined;
    const missed =
      emptyHanded || (!kept && shown.length > 0 && (!likesOne || (!targetOnTop && (reshown || ignoresNot))));
    if (kept) {
      // not weighed again: patience and satisfaction as they were
    } else if (missed) {
      this.patience--;
      trace.operation = 'push';
      trace.push_reason = emptyHanded
        ? empty
        : !likesOne
          ? shown.some((i) => reflected[i.item_id] === 'like')
            ? 'the only items shown the user likes are ones it liked before and did not take'
            : 'none of the items shown is one the user likes'
          : reshown
            ? 'the agent showed again the items the user just turned down'
            : 'every one of the first items has a value the user said it is not keen on';
    } else {
      // an appropriate answer: a question with nothing shown, or an item it likes (its turn is then no Dislike)
      trace.operation = 'pull';
      this.satisfying++;
    }
    this.mood(trace);
    if (seen) {
      // AlterEval's known-item user takes its target when it is on screen; without a target, the
      // user takes an item it expects to rate as highly as its held-out targets (see `takes`).
      const name = seen.title ?? seen.item_id;
      const plural = namedInPlural(seen, name);
      const r = this.sim.nlg.realise('Note.Accept', { item: name, plural }, this.rng, this.utterances, ['item']);
      // what settles it: one or two of the taken item's own features (its words drawn from `naming`)
      const details = this.sim.options.details;
      const known = details && r.used.includes('item') ? this.sim.options.catalog.get(seen.item_id) : undefined;
      if (known) r.text = acceptanceReason(this.sim.nlg, r.text, name, details!(known), this.naming, plural).text;
      this.said(r.text, new Map());
      trace.user_act = 'Note.Accept';
      trace.said = r.used.includes('item') ? { constraints: {}, items: [seen.item_id] } : { constraints: {} };
      trace.preferences = { kind: 'delta', model: 'pepper', reflected };
      trace.preference_coverage = this.coverage;
      (trace as Record<string, unknown>)['end_reason'] = 'accepted';
      return { utterance: r.text, act: 'Note.Accept', trace, done: true, outcome: 'accepted' };
    }
    if (this.patience <= 0) {
      // Out of patience: it leaves (outcome abandoned, end_reason patience).
      const utterance = this.sim.nlg.generate('Complete.Abandon', {}, this.rng, this.utterances);
      this.said(utterance, new Map());
      trace.user_act = 'Complete.Abandon';
      trace.said = { constraints: {} };
      if (shown.length) trace.preferences = { kind: 'delta', model: 'pepper', reflected };
      trace.preference_coverage = this.coverage;
      (trace as Record<string, unknown>)['end_reason'] = 'patience';
      return { utterance, act: 'Complete.Abandon', trace, done: true, outcome: 'abandoned' };
    }
    // The last turn (the target, if on screen, was taken above): goodbye.
    if (this.turn >= max) {
      const utterance = this.sim.nlg.generate('Complete', {}, this.rng, this.utterances);
      this.said(utterance, new Map());
      trace.user_act = 'Complete';
      trace.said = { constraints: {} };
      trace.preference_coverage = this.coverage;
      (trace as Record<string, unknown>)['end_reason'] = 'max_turns';
      return { utterance, act: 'Complete', trace, done: true, outcome: 'ended' };
    }
    const said: Said = { constraints: {} };
    const constraints = said.constraints!;
    const items: string[] = [];
    const negated: string[] = [];
    const negatedKeys: string[] = [];
    const clauses: string[] = [];
    const wording = new Map<string, string>();
    const add = (kind: string, text: string) => {
      clauses.push(text);
      wording.set(kind, text);
    };
    /** Says again a value the user wants (`Pepper.Lacks`); false when the wording could not say it. */
    const sayAgain = ([k, v]: [string, string]): boolean => {
      const kind = this.lacksKind();
      const r = this.clause(kind, { value: valuePhrase(k, v) }, ['value']);
      add(kind, r.text);
      if (!r.used.includes('value')) return false;
      constraints[k] = v;
      return true;
    };
    let act = '';
    let revised = false;
    let declinedNow = false;
    /** The attributes this turn says the user has no preference on. */
    const noPreferenceNow: string[] = [];
    if (revision) {
      // The target changed under a value the user already said: it says it changed its mind, and
      // that is all this turn says about preferences (the trace's `said` holds the new value). A
      // template file without a revision wording that states the value leaves the old value
      // standing (and the attribute unsaid) rather than change it silently.
      // Every value to change is said in the one revision ("something white and for work"), so the
      // user can take its target on the next turn.
      const all = this.pendingRevisions();
      const kind = this.sim.nlg.has('Pepper.Revise') ? 'Pepper.Revise' : 'Reveal.Revise';
      const r = this.clause(kind, { value: joinList(all.map(([k, v]) => valuePhrase(k, v))) }, ['value']);
      if (r.used.includes('value')) {
        add(kind, r.text);
        for (const [k, v] of all) {
          constraints[k] = v;
          // a value it had said it is not keen on, now wanted: the revision takes that back too
          this.rejected.delete(attributeKey(k, v));
          this.satisfiableKnown.clear();
          this.mentioned.add(attributeKey(k, v));
        }
        act = 'Reveal.Revise';
        revised = true;
      }
    }
    if (!revised) {
      const likedLacks = liked && this.lacks(liked);
      if (liked) {
        const aspect = this.aspect(liked, 1);
        const name = this.refer(liked, shown);
        // Liked although it lacks a value the user wants: the clause says which wanted value it has.
        const plural = namedInPlural(liked, name);
        const fill = { item: name, plural, liked: aspect && reasonPhrase(aspect[0], aspect[1], plural) };
        let r = this.clause('Pepper.Like', fill, likedLacks && aspect ? ['item', 'liked'] : []);
        // Half the Likes that give a value as their reason, when the value's attribute has wordings
        // of its own ("I love the navy on the first one", "the second comes in leather"), say it
        // with them (seventeenth round), drawn from `naming` (the user's decisions never read it).
        let kind = 'Pepper.Like';
        const own = aspect && `Pepper.Like.${aspect[0]}`;
        if (own && r.used.includes('liked') && this.sim.nlg.has(own) && this.naming.chance(0.5)) {
          const o = this.sim.nlg.realise(own, fill, this.naming, this.clauseWordings.get(own), ['item', 'liked']);
          if (o.used.includes('item') && o.used.includes('liked')) {
            r = o;
            kind = own;
          }
        }
        // One reason per item: what it likes about it is a value it says ({liked}) or, else, a detail.
        const named = r.used.includes('item') && !r.used.includes('liked');
        add(kind, named ? this.praise(capitalised(r.text, name), name, liked) : capitalised(r.text, name));
        if (r.used.includes('item')) items.push(liked.item_id);
        if (aspect && r.used.includes('liked')) {
          constraints[aspect[0]] = aspect[1];
          this.reasonsGiven.add(attributeKey(aspect[0], aspect[1]));
        }
        act = 'Note.Like';
      } else if (disliked) {
        act = 'Note.Dislike';
      } else {
        act = shown.length ? 'Navigate.More' : 'Disclose';
      }
      let restated = false;
      if (owned && !liked && !disliked) {
        // an item it has already, liked, on screen for the first time: "I already have the first"
        const name = this.refer(owned, shown);
        const r = this.clause('Note.Seen', { item: name, plural: namedInPlural(owned, name) }, ['item']);
        if (r.used.includes('item')) {
          add('Note.Seen', capitalised(r.text, name));
          items.push(owned.item_id);
          act = 'Note.Seen';
          this.declined.add(owned.item_id);
        }
      }
      // One opinion a turn (sixteenth round): a turn that praises an item says nothing against
      // another one; the item it dislikes is named on a turn without praise.
      if (disliked && !liked) {
        const aspect = this.aspect(disliked, -1);
        const name = this.refer(disliked, shown);
        const feature = this.featureOf(disliked);
        const r = this.clause('Pepper.Dislike', {
          item: name,
          plural: namedInPlural(disliked, name),
          disliked: aspect && valuePhrase(aspect[0], aspect[1]),
          feature,
        });
        if (feature && r.used.includes('feature')) this.praised.add(`${disliked.item_id}\u0000${feature}`);
        add('Pepper.Dislike', capitalised(r.text, name));
        if (r.used.includes('item')) items.push(disliked.item_id);
        if (aspect && r.used.includes('disliked')) {
          negated.push(aspect[1]);
          negatedKeys.push(attributeKey(aspect[0], aspect[1]));
        }
      }
      if (again.length) {
        const first = again.reduce((a, b) => (this.weighed.get(b.item_id)! < this.weighed.get(a.item_id)! ? b : a));
        // A liked item is weighed once (SimLens's choice; ConvApparel's shoppers turn down a
        // recommendation they do not take, and PEPPER's user recalls the items it has had). Shown
        // again and still not taken, it no longer counts as liked on screen (patience, above), and
        // the user turns it down out loud, one item a turn (the one it first liked longest ago,
        // the first shown among equals), saying what keeps it from taking it: a value it said it wants that the item
        // lacks, said again (the agenda user's rule 1; once per value, and not while an item with
        // every wanted value is among the first three); else that it has it already (one of its
        // seen items); else that it passes on it (`Pepper.Pass`).
        const lack = this.lacks(first);
        const sayLack =
          lack &&
          !(lack[0] in constraints) &&
          !this.restatedValues.has(attributeKey(lack[0], lack[1])) &&
          !this.lastTurnValues.has(attributeKey(lack[0], lack[1])) &&
          !top.some((i) => this.meetsStated(i));
        if (sayLack && sayAgain(lack)) {
          this.restatedValues.add(attributeKey(lack[0], lack[1]));
          restated = true;
          if (act !== 'Note.Dislike' && act !== 'Note.Like') act = 'Disclose';
        } else {
          const name = this.refer(first, shown);
          const kind = this.seen.has(first.item_id) ? 'Note.Seen' : 'Pepper.Pass';
          // a pass may say what nearly won the user over: one of the item's own features
          const feature = kind === 'Pepper.Pass' ? this.featureOf(first) : undefined;
          const r = this.clause(kind, { item: name, plural: namedInPlural(first, name), feature }, ['item']);
          if (feature && r.used.includes('feature')) this.praised.add(`${first.item_id}\u0000${feature}`);
          if (r.used.includes('item')) {
            add(kind, capitalised(r.text, name));
            items.push(first.item_id);
            if (kind === 'Note.Seen' && act === 'Navigate.More') act = 'Note.Seen';
          }
        }
        this.declined.add(first.item_id);
        // the carousel is turned down when nothing on it is praised (as a Dislike turn)
        declinedNow = !liked;
      }
      // The agent asked about attributes (its question sentences, offers such as "Want me to look
      // around?" aside, read by `questionAttributes`): the turn answers them, beside its opinion of
      // the items when it shows some, from the user's state (`answerPlan`): a liked value of the
      // attribute not said yet that some item could still meet (a meta user's target's), else the
      // value it said before, else a value of it it is not keen on, else "no preference" when it
      // has no taste on it at all (brand included: it never states a brand after that).
      const asked = questionAttributes(response.utterance ?? '', this.sim.options.catalog.attributeNames()).filter(
        (a) => a !== 'category',
      );
      let answeredNew = false;
      let answeredBeside = false;
      const empty = shown.length === 0 && clauses.length === 0;
      let answered = false;
      if (asked.length && empty) {
        // Nothing shown: the turn is the answer, every attribute asked ("What colour and
        // material?"); "no preference" in the plain wording (the only thing said); asked again
        // after it, or about a taste that no item can meet now, it asks to see items.
        const plan = this.answerPlan(asked, new Set(Object.keys(constraints)));
        this.notNoPreference(plan, negatedKeys);
        if (plan.own.length) {
          const r = this.clause('Pepper.More', { value: joinList(plan.own.map(([k, v]) => valuePhrase(k, v))) }, [
            'value',
          ]);
          add('Pepper.More', r.text);
          if (r.used.includes('value')) for (const [k, v] of plan.own) constraints[k] = v;
          act = 'Reveal.Refine';
        } else if (plan.again.length && sayAgain(plan.again[0])) {
          this.restatedValues.add(attributeKey(plan.again[0][0], plan.again[0][1]));
          act = 'Disclose';
        } else if (plan.not.length && this.sayNotKeen(plan.not[0], add, negated, negatedKeys)) {
          act = 'Disclose';
        } else if (plan.none.length && this.sim.nlg.has('Disclose.NonDisclose')) {
          add('Disclose.NonDisclose', this.clause('Disclose.NonDisclose', {}).text);
          for (const a of plan.none) this.noPreference.add(a);
          noPreferenceNow.push(...plan.none);
          act = 'Disclose.NonDisclose';
        }
        // (else: asked again, or about what it has a taste on that cannot be met: `Pepper.Show`, below)
        answered = true;
      } else if (asked.length && shown.length) {
        // Beside a carousel: its opinion of the items first, then the answer (at most two clauses:
        // the values it wants, then what it says of the other attributes asked). An attribute the
        // turn already gave a value of (a Like's reason, a value said again) is answered.
        // never turned down: a value of an item it likes on screen (it may be praising it)
        const keep = new Set(shown.filter((i) => reflected[i.item_id] === 'like').flatMap((i) => itemAttributeKeys(i)));
        const plan = this.answerPlan(asked, new Set(Object.keys(constraints)), keep);
        this.notNoPreference(plan, negatedKeys);
        const before = clauses.length;
        // one answer clause after two opinion clauses, two otherwise
        let room = before >= 2 ? 1 : 2;
        if (plan.own.length) {
          const r = this.clause('Pepper.More', { value: joinList(plan.own.map(([k, v]) => valuePhrase(k, v))) }, [
            'value',
          ]);
          add('Pepper.More', r.text);
          if (r.used.includes('value')) for (const [k, v] of plan.own) constraints[k] = v;
          answeredNew = true;
          room--;
        }
        if (room && plan.again.length && sayAgain(plan.again[0])) {
          this.restatedValues.add(attributeKey(plan.again[0][0], plan.again[0][1]));
          room--;
        }
        if (room && plan.not.length && this.sayNotKeen(plan.not[0], add, negated, negatedKeys)) room--;
        if (room && plan.none.length && this.sim.nlg.has('Pepper.NoPreference')) {
          const r = this.clause(
            'Pepper.NoPreference',
            { attribute: joinList(plan.none.map(readableAttribute), 'or') },
            ['attribute'],
          );
          if (r.used.includes('attribute')) {
            add('Pepper.NoPreference', r.text);
            for (const a of plan.none) this.noPreference.add(a);
            noPreferenceNow.push(...plan.none);
          }
        }
        answered = clauses.length > before || asked.some((a) => a in constraints);
        answeredBeside = answered && before > 0;
        // a turn that says nothing but the answer is that answer
        if (before === 0 && clauses.length > 0)
          act = answeredNew
            ? 'Reveal.Refine'
            : noPreferenceNow.length && clauses.length === 1
              ? 'Disclose.NonDisclose'
              : 'Disclose';
      }
      // A turn that answered beside a carousel with nothing new (a value said again, one it is not
      // keen on, "no preference") and said nothing of the items adds a wish of another attribute;
      // one that gave a new value, answered beside its opinion, or with nothing shown, adds none.
      const skipped = new Set(Object.keys(constraints));
      const more =
        restated || (answered && (shown.length === 0 || answeredNew || answeredBeside))
          ? undefined
          : this.nextGeneralValue(skipped);
      // Nothing new left to say about its tastes: a liked item lacking a value the user wants gets
      // that value said again (what keeps it from taking the item; the agenda user's rule 1), and
      // an agent turn that showed nothing gets a value the user still wants said again (not "none
      // of these" about a carousel that is not there).
      const still =
        more || restated || answered
          ? undefined
          : likedLacks &&
              act === 'Note.Like' &&
              !(likedLacks[0] in constraints) &&
              // once per value, and not while an item with it and every other wanted value is on screen
              !this.restatedValues.has(attributeKey(likedLacks[0], likedLacks[1])) &&
              // not what its last turn said (no restating what the agent just heard)
              !this.lastTurnValues.has(attributeKey(likedLacks[0], likedLacks[1])) &&
              !top.some((i) => this.meetsStated(i))
            ? likedLacks
            : shown.length === 0 && clauses.length === 0
              ? this.stillWanted()
              : undefined;
      if (still && sayAgain(still)) this.restatedValues.add(attributeKey(still[0], still[1]));
      if (more) {
        const r = this.clause('Pepper.More', { value: valuePhrase(more[0], more[1]) }, ['value']);
        add('Pepper.More', r.text);
        if (r.used.includes('value')) constraints[more[0]] = more[1];
        if (!liked && !disliked) act = 'Reveal.Refine';
      }
    }
    if (clauses.length === 0 && shown.length === 0 && this.sim.nlg.has('Pepper.Show')) {
      // Nothing shown and nothing new to say (say, only values it is not keen on said so far): it
      // asks to see some items rather than turn down a carousel that is not there.
      add('Pepper.Show', this.clause('Pepper.Show', { category: this.task }).text);
      act = 'Inquire.List';
    }
    // Nothing to say about the items and nothing new about its tastes: "none of these" only when no
    // item on screen is one it likes (for the first time); else it asks to see more before deciding.
    if (clauses.length === 0 && shown.length > 0 && (likesOne || kept) && this.sim.nlg.has('Navigate.More'))
      add('Navigate.More', this.clause('Navigate.More', {}).text);
    if (clauses.length === 0) add('Pepper.None', this.clause('Pepper.None', {}).text);
    let utterance = clauses.join(' ');
    // Nothing new to say and every clause's wording used up: say that these look familiar rather
    // than repeat an earlier turn word for word.
    for (let k = 0; k < 8 && this.utterances.has(utterance); k++) {
      const same = this.clause('Pepper.Same', {});
      wording.set('Pepper.Same', same.text);
      utterance = `${clauses.join(' ')} ${same.text}`;
    }
    this.said(utterance, wording);
    this.remember(said, negatedKeys);
    if (liked && act === 'Note.Like') this.likedBefore.add(liked.item_id);
    this.lastTurnedDown =
      (act === 'Note.Dislike' || declinedNow) && shown.length
        ? shown
            .slice(0, TARGET_SEEN_DEPTH)
            .map((i) => i.item_id)
            .join('\u0000')
        : undefined;
    if (negated.length) said.negated = negated;
    if (items.length) said.items = items;
    // the attributes this turn says it has no preference on (never stated later)
    if (noPreferenceNow.length) (said as Record<string, unknown>)['no_preference'] = noPreferenceNow;
    trace.user_act = act;
    trace.said = said;
    if (shown.length) trace.preferences = { kind: 'delta', model: 'pepper', reflected };
    trace.preference_coverage = this.coverage;
    return { utterance, act, trace, done: false };
  }

  /**
   * How the user names a shown item in a Like or Dislike clause: as people point at a carousel,
   * by its place ("the second one", "the first", of a plural type "the second pair") in 3 of 4 mentions when it is
   * among the first three (the ones a user sees without scrolling), else by its title. The
   * recommenders read both (`Lexicon.findItems`).
   */
  private refer(item: ItemView, shown: readonly ItemView[]): string {
    const title = item.title ?? item.item_id;
    const at = shown.indexOf(item);
    if (at < 0 || at >= TARGET_SEEN_DEPTH || !this.naming.chance(0.75)) return title;
    const nth = POSITION_WORDS[at];
    // a plural type is one pair of them: "the second pair" as often as each other form (eighteenth round)
    const type = item.attributes['type'];
    const forms = [`the ${nth} one`, `the ${nth}`];
    if (type && isPluralNoun(type.toLowerCase())) forms.push(`the ${nth} pair`);
    return this.naming.pick(forms);
  }

  /**
   * `text` (a Like clause naming the item as `name`) with what the user likes about the item
   * added to the sentence that names it ("..., bonus points for the storm flap"): one or two of
   * its details (`TargetFreeOptions.details`) not praised before, in 3 of 4 clauses that give no value as the reason, worded by
   * the templates' Pepper.Detail (drawn from `naming`). Kept in the sentence naming the item, so
   * a recommender reads its words as said of that item, not as a new wish.
   */
  private praise(text: string, name: string, item: ItemView): string {
    const details = this.sim.options.details;
    const known = details && this.sim.options.catalog.get(item.item_id);
    if (!known || !this.sim.nlg.has('Pepper.Detail') || !this.naming.chance(0.75)) return text;
    const fresh = details(known).filter((d) => !this.praised.has(`${item.item_id}\u0000${d}`));
    if (fresh.length === 0) return text;
    const picked = this.naming.shuffle(fresh).slice(0, 1 + this.naming.int(2));
    const phrase = this.sim.nlg.realise('Pepper.Detail', { detail: joinList(picked) }, this.naming, undefined, [
      'detail',
    ]);
    if (!phrase.used.includes('detail')) return text;
    const from = text.toLowerCase().indexOf(name.toLowerCase());
    const end = from < 0 ? -1 : text.slice(from + name.length).search(/[.!?](\s|$)/);
    if (end < 0) return text;
    const at = from + name.length + end;
    for (const d of picked) this.praised.add(`${item.item_id}\u0000${d}`);
    return `${text.slice(0, at)}, ${phrase.text.replace(/[.!?]+$/, '')}${text.slice(at)}`;
  }

  /**
   * A feature of an item the user passes on or turns down, for the wordings that name one ("The
   * second almost had me with the storm flap, but I'll pass", "Despite the hood, the third isn't
   * for me"): one of its details (`TargetFreeOptions.details`, the catalog item's own features)
   * that reads as a noun phrase after "the" and was not named before, drawn from `naming`;
   * undefined when it has none. What the turn says it wants or not keen on is unchanged.
   */
  private featureOf(item: ItemView): string | undefined {
    const details = this.sim.options.details;
    const known = details && this.sim.options.catalog.get(item.item_id);
    if (!known) return undefined;
    const fresh = details(known).filter((d) => isNounDetail(d) && !this.praised.has(`${item.item_id}\u0000${d}`));
    return fresh.length ? this.naming.pick(fresh) : undefined;
  }

  /**
   * An attribute value of the item the user likes (sign 1) or dislikes (sign -1). With a target,
   * a liked value is one the target has and a disliked value one it does not have. It never
   * contradicts what the user said before (see `consistent`): a liked item whose liked values
   * would all do so is named without one.
   */
  private aspect(item: ItemView, sign: number): [string, string] | undefined {
    // A liked item lacking a value the user said it wants is liked for one it said it wants.
    if (sign > 0 && this.lacks(item)) return this.wantedHeld(item, true);
    const t = this.target?.attributes;
    const fits = (k: string, v: string) =>
      (!t || (sign > 0 ? t[k] === v : t[k] !== v)) &&
      // no value of an attribute it said it has no preference on
      !this.noPreference.has(k) &&
      // a reason is given once: a value already given as a Like's reason is nothing new
      (sign < 0 || !this.reasonsGiven.has(attributeKey(k, v))) &&
      this.consistent(k, v, sign) &&
      (sign < 0 || this.satisfiable([[k, v]]));
    const own = this.seen.get(item.item_id);
    const keys = own ? (sign > 0 ? own.liked : own.disliked) : [];
    for (const key of keys) {
      const eq = key.indexOf('=');
      const k = key.slice(0, eq);
      const v = key.slice(eq + 1);
      if (fits(k, v)) return [k, v];
    }
    for (const [k, v] of Object.entries(item.attributes)) {
      if (k !== 'brand' && this.valuePrefs.get(attributeKey(k, v)) === sign && fits(k, v)) return [k, v];
    }
    return undefined;
  }
}

/**
 * How a target-free user opens the values it usually likes ("I usually go for navy pieces in
 * fleece"): one group is drawn, then one lead of it. Within a group every lead leaves the local
 * recommenders the same number of free words (`Lexicon.parse` keywords: none, since the agents
 * keep only words the catalog knows), so a new lead changes no search; no lead reads as a value,
 * holds a negation or a word of any item of the
 * catalog, and the leads of one group read the same intents (test/unit/users/language.test.ts;
 * "Typically I choose" and its group read as an acceptance, kept as they were read before).
 */
export const LIKED_LEADS: readonly (readonly string[])[] = [
  ['I usually go for', 'I usually pick', 'I usually buy', 'Usually I pick', 'I usually wear', "I'm usually into"],
  ['I tend to buy', 'I tend to pick', 'I tend to go for', 'I tend to shop for'],
  ['I tend to wear', 'I tend to choose', 'I tend to go for'],
  [
    'Mostly I wear',
    "I'm into",
    'I mostly pick',
    'I mostly shop for',
    "I'm a fan of",
    'I go mostly for',
    "I'm keen on",
    'Mostly I buy',
    'I mostly wear',
    "I'm big on",
  ],
  ["I'm drawn to", "I'm a sucker for", 'I adore', 'I favour', "I'm hooked on", 'I swear by'],
  ["I'm partial to", "I'm happiest in", "I'm comfiest in", 'I live in', 'I stick to'],
  ['I lean towards', 'I gravitate towards', 'I veer towards', 'I tend towards', "I'm inclined towards"],
  ['Typically I choose', 'Usually I choose', 'Normally I choose'],
  [
    'I generally wear',
    'I generally buy',
    'Generally I go for',
    'I normally buy',
    'Normally I go for',
    'As a rule I buy',
    'Generally I buy',
    'As a rule I go for',
  ],
  ['I always look for', "I'm always after", 'I always go for', 'I always pick', "I'm forever buying"],
  ['Most of my favourites are', 'My favourites are mostly', 'My best buys have been'],
  ["I'm usually drawn to", 'I gravitate to', "I'm always happy in"],
];
/**
 * The noun the narrative's liked values describe when no plural type is among them ("I usually go
 * for navy pieces in fleece", "... navy things in fleece"): one per session. None reads as a value,
 * and none but "pieces" (the only noun before the thirteenth round) is a word of the catalog's items
 * (test/unit/users/targetFreeWording.test.ts).
 */
export const NARRATIVE_NOUNS: readonly string[] = ['pieces', 'things', 'ones', 'stuff'];
/**
 * The negating leads that leave the local agents no free word (four of the five groups draw from
 * them). No "I don't ..." lead: the read-back's act tagger reads an opening with one as a rejection
 * far more often than with "I never ..." (96-98 % of 100 test openings against 50 %).
 */
const NEGATING_LEADS = [
  "I'm not into anything",
  'I avoid anything',
  "I won't wear anything",
  "I'd never pick anything",
  "I'd rather avoid anything",
  'I never choose anything',
  "I won't buy anything",
  'I never get anything',
  'I never pick anything',
  'I never wear anything',
  'I never buy anything',
  'I never go for anything',
  "I'd never wear anything",
  "I'd never buy anything",
];
/**
 * ... and the values it dislikes ("I'm not into anything olive or in leather"): a negation at most
 * four words before "anything", so every value of the list is read as negated, by the local
 * agents' lexicon and by the checker's own reader (`mentionPolarity`: it does not take "I'd skip
 * anything" as a negation, so that lead is not here); the same test reads each lead before lists
 * of every kind of value. Grouped as the liked leads are.
 */
export const DISLIKED_LEADS: readonly (readonly string[])[] = [
  NEGATING_LEADS,
  ["I'm not fond of anything", "I can't bear anything", "I'm not wild about anything", "I'm not crazy about anything"],
  NEGATING_LEADS,
  [
    "I'd avoid anything",
    'I always avoid anything',
    "I'm not big on anything",
    "I'm never keen on anything",
    "I'd never be seen in anything",
    "I wouldn't be seen in anything",
  ],
  NEGATING_LEADS,
  NEGATING_LEADS,
];

/** The parts an opening frame puts together (each empty when the opening has no such value). */
interface NarrativeParts {
  /** A liked lead and the liked values as a noun phrase ("I usually go for navy pieces in fleece"). */
  lead: string;
  /** The liked values as they read after "something" ("navy in fleece"). */
  something: string;
  /** A disliked lead and the disliked value ("I never pick anything olive"). */
  notLead: string;
  /** The disliked value as it reads after "nothing" ("olive", "in leather"). */
  not: string;
  /** The join of the lead frame's two sentences (", and " or ". "). */
  join: string;
}
type NarrativeFrame = (p: NarrativeParts) => string;

/** A sentence from its clauses, the empty ones left out (capitalised: "Nothing grey."), or "" when all are. */
function sentence(...parts: string[]): string {
  const text = parts.filter(Boolean).join(', ');
  return text ? `${text[0].toUpperCase()}${text.slice(1)}.` : '';
}

/**
 * How an opening frames its values (fourteenth round): the leads' frame ("I usually go for navy
 * pieces in fleece, and I never pick anything olive."), and shorter ones people write when they
 * open a chat ("Ideally something navy in fleece, nothing olive."). A value not keen on is always
 * said after a negation in its own clause ("nothing", a disliked lead), so the local agents'
 * lexicon and the checker read it as negated, and a liked one never is
 * (test/unit/users/targetFreeWording.test.ts).
 */
const NARRATIVE_FRAMES: readonly NarrativeFrame[] = [
  (p) => (p.lead && p.notLead ? `${p.lead}${p.join}${p.notLead}.` : sentence(p.lead || p.notLead)),
  (p) => (p.lead && p.not ? `${p.lead}, but nothing ${p.not}.` : sentence(p.lead, p.notLead)),
  (p) => sentence(p.something && `Ideally something ${p.something}`, p.not && `nothing ${p.not}`),
  (p) =>
    sentence(p.something && `Something ${p.something} would be ideal`) + (p.not ? ` Nothing ${p.not}, please.` : ''),
  (p) => [sentence(p.something && `Thinking something ${p.something}`), sentence(p.notLead)].filter(Boolean).join(' '),
  (p) => sentence(p.lead) + (p.not ? ` Just nothing ${p.not}.` : ''),
];

/** Words for the first places of a carousel, as `refer` says them (the agents read them by `ORDINAL_POSITIONS`). */
const POSITION_WORDS = ['first', 'second', 'third'];

/** `text` with `name` capitalised where it opens a sentence ("the second one is nice." -> "The second one is nice."). */
function capitalised(text: string, name: string): string {
  if (!/^[a-z]/.test(name)) return text;
  const upper = name[0].toUpperCase() + name.slice(1);
  let out = text.startsWith(name) ? upper + text.slice(name.length) : text;
  for (const stop of ['. ', '! ', '? ']) out = out.split(`${stop}${name}`).join(`${stop}${upper}`);
  return out;
}
