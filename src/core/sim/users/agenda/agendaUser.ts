/**
 * The agenda-based simulated user (Schatzmann et al. 2007; Zhang & Balog 2020).
 *
 * State: an agenda (a stack of user acts, top first in traces), a goal (constraints C and
 * requests R), a preference model, patience, and what the agent has shown. Each turn:
 *   1. NLU reads the agent's act (reported, else classified);
 *   2. if that act appropriately answers the user's current act -> pull: pop the next act off the
 *      agenda (an empty agenda means Complete); otherwise -> push: a replacement act sampled from
 *      P(user act | agent act) becomes the current act and patience drops by one (at zero the user
 *      abandons);
 *   3. the act is realised against the situation: a Note on shown items becomes Accept, Like,
 *      Dislike or Seen through the preference model (an accepted item empties the agenda and ends
 *      the dialogue); acts that need items when the agent's last turn shows none (a question or
 *      a text-only answer shows nothing, whatever was shown before) fall back to a Disclose (the
 *      answer to the agent's question) or a request for options (recorded as `planned_act`);
 *   4. template NLG turns the act and its slots into text.
 * Every turn returns the full trace: agenda after the turn, pull/push, goal, preference delta,
 * NLU result, acts, patience, satisfaction and frustration.
 */
import { EmptyAnswers } from '../emptyAnswers';
import type { Goal, PreferenceState, SimulatorTrace, Turn, TargetState, Outcome } from '../../../model';
import type { Rng } from '../../../random';
import type { AgentResponse, SessionContext, UserSimulator, UserTurn } from '../../types';
import type { Catalog, CatalogItem } from '../../../catalog/catalog';
import { mainAct } from '../../../taxonomy/acts';
import { statesItemValue, titleShowsValue } from '../../../text/saysValue';
import type { InteractionModel } from './interaction';
import { TemplateNlg, readableAttribute, type SlotFill } from '../nlg';
import { AgentNlu, type Understanding } from '../nlu';
import { joinList, namedInPlural, questionAttributes, readQuestions, reasonPhrase, valuePhrase } from '../phrases';
import { acceptanceReason } from '../reasons';
import {
  createPreferenceModel,
  preferencesOverHistory,
  tasteFromState,
  viewOf,
  type ItemView,
  type PreferenceKind,
  type PreferenceModel,
  type PreferenceOptions,
} from '../preferences';
import { round3, type RestorableSession, type TargetAwareSession, type TargetUpdate } from '../session';

/** The rating a restored history item gets when its trace records none (a single-item user's owned items). */
const NEUTRAL_RATING = 3;

interface AgendaUserOptions {
  catalog: Catalog;
  interaction: InteractionModel;
  preferences: PreferenceKind;
  preferenceOptions?: PreferenceOptions;
  nlg?: TemplateNlg;
  nlu?: AgentNlu;
  /** Inappropriate agent answers the user tolerates before abandoning (default 3). */
  patience?: number;
  /** Most constraints in a goal (default 3, plus the category). */
  maxConstraints?: number;
  /** How many carousel items the user looks at when judging (default 3). */
  browseDepth?: number;
  /** In known-item mode, an item at least this similar to the target is liked (default 0.7). */
  likeSimilarity?: number;
  /**
   * SimLens additions to the act-level check (default true): an answer that shows items is only
   * appropriate when one of the first `browseDepth` items has the value the user just stated and
   * is in the task category; a question about something already disclosed is not an answer; and
   * the user only accepts items that satisfy every constraint it has disclosed.
   */
  checkContent?: boolean;
  /**
   * Probability that a user whose agenda runs out before it has seen a single recommendation
   * leaves anyway ("early quit"); otherwise it keeps going (answers the agent's question, discloses
   * or asks to see options) until it has seen items or its patience runs out. Default 0.
   */
  earlyQuit?: number;
  /** What the user may say settles it when it takes an item: the item's sayable features (`sayableDetails`). */
  details?: (item: CatalogItem) => readonly string[];
}

/** Why the user ended the dialogue (`trace.end_reason` of its last turn). */
type EndReason = 'accepted' | 'completed' | 'gave_up' | 'patience' | 'early_quit';

/**
 * What an act means to say, by slot: the constraint behind {value}, the liked and disliked values
 * behind {liked} / {disliked}, the items behind {item} / {item2}, and the attribute a Reveal.Expand
 * relaxes. The turn's `trace.said` and the disclosed goal follow the slots the text really used.
 */
interface Meaning {
  value?: [string, string];
  liked?: [string, string];
  disliked?: [string, string];
  item?: string;
  item2?: string;
  relax?: string;
  /**
   * The values a switch revision states, all in its one {value} (a meta user's target changed
   * under values it said): each becomes the goal's value when the text says it.
   */
  revised?: [string, string][];
  /** Slots the template must use (the user means to say them). */
  require?: string[];
  /** A template list other than the act's own (e.g. Disclose.Category). */
  template?: string;
  /** Check the next carousel against the stated value (Disclose, Refine, Revise). */
  check?: boolean;
  endReason?: EndReason;
}

interface Realised {
  act: string;
  fill: SlotFill;
  outcome?: Outcome;
  meaning: Meaning;
}

/** `trace.push_reason` of a push for an item question the agent's text did not answer (attribute of item, in brackets). */
export const UNANSWERED_REASON = 'the agent did not say what the user asked about the item';

/** `trace.push_reason` of a push caused by a re-ask (followed by the attributes, in brackets). */
export const REASK_REASON = 'the agent asked again about a preference already given';

/**
 * A question that proposes a change ("open to a different colour?") or items ("how about these
 * black boots?") does not ask for a preference again, whatever it names.
 */
const PROPOSES =
  /(?<![\p{L}\p{N}])(?:different|another|other|instead|open to|flexible|(?:how|what) about (?:these|this|those|that|the|some))(?![\p{L}\p{N}])/iu;

/** Attributes a simulated shopper may state as constraints (brand is rarely a requirement). */
const CONSTRAINT_ATTRIBUTES = ['type', 'colour', 'material', 'style', 'gender', 'occasion', 'price_band'];

export class AgendaUserSimulator implements UserSimulator {
  readonly name: string;
  readonly nlg: TemplateNlg;
  readonly nlu: AgentNlu;

  constructor(readonly options: AgendaUserOptions) {
    const q = options.earlyQuit ?? 0;
    if (!(q >= 0 && q <= 1)) throw new RangeError(`early quit probability must be in [0, 1], got ${q}`);
    this.name = `agenda-${options.interaction.name}-${options.preferences}`;
    this.nlg = options.nlg ?? new TemplateNlg();
    this.nlu = options.nlu ?? new AgentNlu();
  }

  createSession(conversationId: string, rng: Rng, context: SessionContext): AgendaUserSession {
    return new AgendaUserSession(this, conversationId, rng, context);
  }
}

/** Does `text` hold `phrase` as whole words (both lower case)? */
function containsWord(text: string, phrase: string): boolean {
  for (let at = text.indexOf(phrase); at !== -1; at = text.indexOf(phrase, at + 1)) {
    const before = at === 0 ? '' : text[at - 1];
    const after = text[at + phrase.length] ?? '';
    if (!/[\p{L}\p{N}]/u.test(before) && !/[\p{L}\p{N}]/u.test(after)) return true;
  }
  return false;
}

/** The act that asks about a shown item's value of a requested attribute (KDD'20: goal requests). */
const REQUEST_ACT = 'Navigate.Ask';

/**
 * KDD'20: an agenda holds the goal's requests as well as its constraints. One request act per
 * request goes in right before the closing Complete (or at the end), as long as the agenda stays
 * within the length rule (12 acts).
 */
function withRequests(agenda: readonly string[], requests: number, maxLength = 12): string[] {
  const out = agenda.slice();
  const at = out.length && mainAct(out[out.length - 1]) === 'Complete' ? out.length - 1 : out.length;
  const add = Math.max(0, Math.min(requests, maxLength - out.length));
  out.splice(at, 0, ...Array.from({ length: add }, () => REQUEST_ACT));
  return out;
}

/** Do two carousels hold the same items in the same order? */
function sameItems(recs: readonly { item_id: string }[], shown: readonly ItemView[]): boolean {
  return recs.length === shown.length && recs.every((r, i) => r.item_id === shown[i].item_id);
}

/** Does the item hold every one of these attribute values? */
function holdsAll(item: CatalogItem, wanted: readonly (readonly [string, string])[]): boolean {
  for (const [k, v] of wanted) if (item.attributes[k] !== v) return false;
  return true;
}

function copyGoal(goal: Goal): Goal {
  const g: Goal = { constraints: { ...goal.constraints }, requests: goal.requests.slice() };
  if (goal.fulfilled_requests?.length) g.fulfilled_requests = goal.fulfilled_requests.slice();
  const disclosed = (goal as Record<string, unknown>)['disclosed'];
  if (Array.isArray(disclosed) && disclosed.length) (g as Record<string, unknown>)['disclosed'] = disclosed.slice();
  return g;
}

class AgendaUserSession implements TargetAwareSession, RestorableSession {
  private readonly sim: AgendaUserSimulator;
  private readonly rng: Rng;
  /** Words only (what settles a purchase): a fork of `rng` that never advances it. */
  private readonly words: Rng;
  readonly task: string;
  prefs: PreferenceModel;
  /** The agenda as a stack: the top is the last element. */
  private agenda: string[] = [];
  private goal: Goal = { constraints: {}, requests: [] };
  private disclosed = new Set<string>();
  /** The value the user last said for each attribute (a Reveal.Revise changes one of these). */
  private saidValues = new Map<string, string>();
  /** Every value the user has said for each attribute: a change of mind never goes back to one. */
  private everSaid = new Map<string, Set<string>>();
  /** Attribute values the user has said it does not want. */
  private negated = new Set<string>();
  /** Values the user said it does not want and has not stated since (a target switch does not take them back). */
  private saidNegated = new Set<string>();
  private current = '';
  private patience: number;
  private readonly initialPatience: number;
  private agentTurns = 0;
  private appropriateTurns = 0;
  /** The last carousel the agent showed (kept while later turns show none). */
  private shown: ItemView[] = [];
  /**
   * What is on screen for the user's answer: the carousel of the agent's last turn, empty when that
   * turn showed no items (a question or a text-only answer shows nothing). Acts about items (a Note,
   * an item question, a comparison) and taking an item read this, not the last carousel.
   */
  private onScreen: ItemView[] = [];
  /** Every item the user looked at (the first `browseDepth` of each carousel), by id. */
  private looked = new Map<string, ItemView>();
  private previousShown: ItemView[] = [];
  private previousUtterance: string | undefined;
  /** Every utterance said so far: the NLG does not say one again while another wording exists. */
  private readonly utterances = new Set<string>();
  private lastAskedRequest: string | undefined;
  /** The item the last item question (Navigate) asked about. */
  private lastAskedItem: ItemView | undefined;
  /**
   * Attributes the user relaxed (Reveal.Expand, "any colour is fine"): they stay relaxed, never
   * required again (a Reveal.Refine does not add them back); only a Reveal.Revise could state one
   * again, and this user revises only values it still holds.
   */
  private relaxed = new Set<string>();
  /** Attributes the user said it has no preference on (Disclose.NonDisclose): never stated later. */
  private noPreference = new Set<string>();
  /** The agent act the user understood as the last agent turn's main act (undefined before the first answer). */
  private agentAct: string | undefined;
  /** Every act the user read in the last agent turn. */
  private agentActs: readonly string[] = [];
  /** The agenda entry this turn pulled (undefined on a push, or when the agenda was empty). */
  private pulledEntry: string | undefined;
  /** Agent turns with nothing in them (emptyAnswers.ts). */
  private readonly empty = new EmptyAnswers();
  /** Whether the agent's last answer was appropriate (a pull) or not (a push). */
  private lastOperation: 'pull' | 'push' | undefined;
  /** Whether the agent's last turn kept the item just passed over first on screen while it asked. */
  private keptPassedOver = false;
  /** The item the user's last act passed over (Note.Dislike, Note.Seen, Note.Like without taking it). */
  private passedOver: string | undefined;
  /** The constraint the current act stated ([attribute, value]), checked against the next carousel. */
  private stated: [string, string] | undefined;
  private target: CatalogItem | undefined;
  private targetGroup: string[] = [];
  private started = false;
  private finished = false;

  constructor(
    sim: AgendaUserSimulator,
    readonly conversationId: string,
    rng: Rng,
    context: SessionContext,
  ) {
    this.sim = sim;
    this.rng = rng;
    this.words = rng.fork('reasons');
    const categories = sim.options.catalog.categories();
    if (categories.length === 0) throw new Error('the catalog is empty');
    this.task =
      typeof context.task === 'string' && categories.includes(context.task) ? context.task : rng.pick(categories);
    this.prefs = createPreferenceModel(
      sim.options.preferences,
      sim.options.catalog,
      this.task,
      rng,
      context.targetGroup
        ? { ...sim.options.preferenceOptions, exclude: context.targetGroup }
        : sim.options.preferenceOptions,
    );
    this.initialPatience = sim.options.patience ?? 3;
    this.patience = this.initialPatience;
  }

  /** Known-item mode (meta-simulators): the goal follows the target and only the target is accepted. */
  setTarget(update: TargetUpdate): void {
    this.target = update.target;
    this.targetGroup = update.alternatives.slice();
    if (this.started) {
      // The goal follows the new target where the user has said nothing: those values are
      // replaced, constraints the new target has no value for are dropped, and rejected values it
      // has are no longer rejected. A value the user said stays the goal's (and disclosed) until
      // the user says the change: KDD'20, Reveal.Revise is the act that changes a goal constraint,
      // and the next thing the user says is that revision (`pendingRevisions`, see `realise`).
      for (const k of Object.keys(this.goal.constraints)) {
        if (k === 'category' || this.saidValues.has(k)) continue;
        const v = update.target.attributes[k];
        if (v === undefined) {
          delete this.goal.constraints[k];
          this.disclosed.delete(k);
        } else if (String(this.goal.constraints[k]) !== v) {
          this.goal.constraints[k] = v;
        }
      }
      for (const v of Object.values(update.target.attributes)) this.negated.delete(v);
    }
  }

  private buildGoal(): void {
    const max = this.sim.options.maxConstraints ?? 3;
    const constraints: Record<string, string> = { category: this.task };
    if (this.target) {
      const names = CONSTRAINT_ATTRIBUTES.filter((a) => this.target!.attributes[a] !== undefined);
      for (const a of this.rng.shuffle(names).slice(0, max + 1)) constraints[a] = this.target.attributes[a];
    } else {
      // KDD'20: the goal is what the user wants; a goal no catalog item meets could never end in an
      // accept, so a liked value that would leave no item out is skipped.
      let matching = this.sim.options.catalog.categoryItems(this.task);
      for (const [attr, value] of this.prefs.likedValues()) {
        if (Object.keys(constraints).length > max) break;
        if (!CONSTRAINT_ATTRIBUTES.includes(attr) || attr in constraints) continue;
        const left = matching.filter((i) => i.attributes[attr] === value);
        if (left.length === 0) continue;
        matching = left;
        constraints[attr] = value;
      }
    }
    const catalogAttrs = this.sim.options.catalog.attributeNames().filter((a) => !(a in constraints) && a !== 'brand');
    const requests = this.rng
      .shuffle(catalogAttrs)
      .slice(0, 1 + this.rng.int(2))
      .sort();
    this.goal = { constraints, requests };
  }

  private goalSnapshot(): Goal {
    const g = copyGoal(this.goal);
    if (this.disclosed.size) (g as Record<string, unknown>)['disclosed'] = [...this.disclosed].sort();
    return g;
  }

  private agendaTopFirst(): string[] {
    return this.agenda.slice().reverse();
  }

  private targetState(): TargetState | undefined {
    if (!this.target) return undefined;
    return { item_id: this.target.item_id, alternatives: this.targetGroup.slice() };
  }

  async start(): Promise<UserTurn> {
    if (this.started) throw new Error('session already started');
    this.started = true;
    this.buildGoal();
    const init = this.sim.options.interaction.initialAgenda(this.rng);
    this.agenda = withRequests(init.agenda, this.goal.requests.length).reverse();
    const first = this.sim.options.interaction.refine(this.agenda.pop() ?? 'Disclose', this.rng);
    const trace: SimulatorTrace = { operation: 'init', pulled: [first] };
    if (init.attempts > 1) (trace as Record<string, unknown>)['agenda_attempts'] = init.attempts;
    if (init.fallback) (trace as Record<string, unknown>)['agenda_fallback'] = true;
    return this.speak(first, trace, undefined, true);
  }

  async respond(response: AgentResponse): Promise<UserTurn> {
    if (!this.started) throw new Error('respond() before start()');
    if (this.finished) throw new Error('the user already ended the conversation');
    if (response.error) return this.unchanged();
    const understanding = this.sim.nlu.understand(response);
    this.agentAct = understanding.agent_act;
    this.agentActs = understanding.acts;
    this.pulledEntry = undefined;
    this.agentTurns++;
    this.previousShown = this.shown;
    // A carousel the agent keeps on screen while it only asks (the same items in the same order,
    // no showing act) is not shown again: the user does not judge it as a new answer (see
    // `contentProblem`).
    const kept =
      response.recommendations.length > 0 &&
      !understanding.acts.includes('Reveal.Show') &&
      sameItems(response.recommendations, this.shown);
    if (response.recommendations.length) {
      this.shown = response.recommendations.map((r) => viewOf(r, this.sim.options.catalog));
      for (const i of this.shown.slice(0, this.sim.options.browseDepth ?? 3)) this.looked.set(i.item_id, i);
    }
    this.onScreen = response.recommendations.length ? this.shown : [];
    // The item just passed over, kept first on screen while the agent asks: no patience lost (it
    // was not shown again), but no progress either: the turn does not add to satisfaction.
    this.keptPassedOver = kept && this.passedOver !== undefined && this.shown[0]?.item_id === this.passedOver;
    const interaction = this.sim.options.interaction;
    const checkContent = this.sim.options.checkContent ?? true;
    let pushReason: string | undefined;
    // A re-ask spoils the whole turn, whatever else it holds (items, other questions): the agent
    // shows it did not take in what the user said, so its acts do not answer the user's.
    const reasked = checkContent ? this.reasked(response.utterance) : [];
    let appropriate =
      reasked.length === 0 && understanding.acts.some((a) => interaction.isAppropriate(this.current, a));
    if (reasked.length) pushReason = `${REASK_REASON} (${reasked.join(', ')})`;
    else if (!appropriate) pushReason = `${understanding.agent_act} does not answer ${this.current}`;
    // An agent turn with nothing in it (emptyAnswers.ts): no answer, whatever its acts (a content
    // check: not in the act-only mode).
    const empty = this.empty.judge(response.recommendations.length, understanding.acts);
    if (appropriate && empty && checkContent) {
      appropriate = false;
      pushReason = empty;
    }
    if (appropriate && checkContent && response.recommendations.length) {
      const problem = this.contentProblem(kept);
      if (problem) {
        appropriate = false;
        pushReason = problem;
      }
    }
    // KDD'20 goal update: an item question (Navigate about a shown item) is answered only when the
    // agent's text says the asked item's value of the requested attribute (for the price band, a
    // price), outside the item's title the user already read. An answer that does not say it, an
    // explanation included, does not answer the question: a push, and the request stays pending.
    const askedRequest = this.lastAskedRequest;
    let unanswered = false;
    if (askedRequest && this.lastAskedItem) {
      // The user takes in what it is told (seventeenth round): an answer that also says the asked
      // item's value of another pending request answers that one too (it does not ask next what it
      // was just told), whether or not it answered the question asked.
      if (checkContent)
        for (const r of this.pendingRequests())
          if (r !== askedRequest && this.answersRequest(response.utterance, r))
            (this.goal.fulfilled_requests ??= []).push(r);
      if (!checkContent || this.answersRequest(response.utterance)) {
        const done = (this.goal.fulfilled_requests ??= []);
        if (!done.includes(askedRequest)) done.push(askedRequest);
      } else {
        unanswered = true;
        if (appropriate) {
          appropriate = false;
          pushReason = `${UNANSWERED_REASON} (${askedRequest} of ${this.lastAskedItem.item_id})`;
        }
      }
    }
    // What the user came for on screen (its target, or an item meeting its whole goal it would
    // take) answers it, whatever act the agent's turn has: no patience is lost on it. A meta user's
    // target answers it even beside a re-ask (AlterEval: the target ranked among the first items is
    // the success the meta-simulator measures), so a switched target that differs from what the
    // user said is revised and taken, never left at patience 0. Without a target a re-ask still
    // spoils the turn; the user then takes the item anyway (see `realise`).
    if (!appropriate && checkContent && (reasked.length === 0 || this.target) && this.answerOnScreen()) {
      appropriate = true;
      pushReason = undefined;
    }
    this.lastAskedRequest = undefined;
    this.lastAskedItem = undefined;
    this.lastOperation = appropriate ? 'pull' : 'push';
    const trace: SimulatorTrace = {};
    let next: string;
    if (appropriate) {
      const popped = this.agenda.pop();
      this.pulledEntry = popped;
      next = popped ?? 'Complete';
      trace.operation = 'pull';
      trace.pulled = [next];
      // A meta user with a change to say says it first (see `realise`): the act it pulled stays
      // on the agenda for the next turn.
      if (popped !== undefined && this.pendingRevisions().length) this.agenda.push(popped);
    } else {
      this.patience--;
      trace.operation = 'push';
      if (pushReason) trace.push_reason = pushReason;
      if (this.patience <= 0) {
        next = 'Complete.Abandon';
      } else {
        // KDD'20: an act the agent did not answer goes back on the agenda, under the replacement:
        // the user asks its unanswered item question again later.
        if (unanswered) this.agenda.push(REQUEST_ACT);
        next = interaction.replacement(understanding.agent_act, this.rng);
      }
      trace.pushed = [next];
    }
    return this.speak(interaction.refine(next, this.rng), trace, understanding, false, response.utterance);
  }

  /**
   * The answer to a failed agent turn: the user ignores it (no patience lost, nothing pulled,
   * pushed or seen) and repeats what it said. The run normally stops before this, but the session
   * stays neutral to failures anyway (forks, other drivers).
   */
  private unchanged(): UserTurn {
    const trace: SimulatorTrace = {
      agenda: this.agendaTopFirst(),
      goal: this.goalSnapshot(),
      nlu: { agent_act: 'Other', source: 'none' },
      user_act: this.current,
      said: { constraints: {} },
      patience: this.patience,
      satisfaction: this.agentTurns ? round3(this.appropriateTurns / this.agentTurns) : 1,
      frustration: round3(1 - this.patience / this.initialPatience),
    };
    (trace as Record<string, unknown>)['ignored_agent_error'] = true;
    const target = this.targetState();
    if (target) trace.target = target;
    return { utterance: this.previousUtterance ?? '', act: this.current, trace, done: false };
  }

  /** Realises `planned` in the current situation, generates the text and assembles the turn. */
  private speak(
    planned: string,
    trace: SimulatorTrace,
    understanding: Understanding | undefined,
    opening: boolean,
    agentText = '',
  ): UserTurn {
    this.stated = undefined;
    const { act, fill, outcome, meaning } = this.realise(planned, agentText, opening);
    this.current = act;
    // Satisfaction (ConvApparel): an agent answer counts as satisfying when it was appropriate (a
    // pull) and the user does not turn down what it showed (a Note.Dislike of its items).
    // A carousel kept on screen with the item just passed over first does not satisfy (see `respond`).
    if (understanding && this.lastOperation === 'pull' && act !== 'Note.Dislike' && !this.keptPassedOver)
      this.appropriateTurns++;
    this.passedOver =
      (act === 'Note.Dislike' || act === 'Note.Seen' || act === 'Note.Like') && meaning.item ? meaning.item : undefined;
    const done = outcome !== undefined;
    if (act === 'Note.Accept') this.agenda = [];
    const templateKey =
      meaning.template && this.sim.nlg.has(meaning.template)
        ? meaning.template
        : opening && this.sim.nlg.has(`${act}.Open`)
          ? `${act}.Open`
          : act;
    const realised = this.sim.nlg.realise(templateKey, fill, this.rng, this.utterances, meaning.require);
    const used = realised.used;
    let utterance = realised.text;
    // Taking an item, it may say which of the item's own features settles it (words only: drawn
    // from a fork the decisions never read, and no feature states a value).
    const details = this.sim.options.details;
    const taken = act === 'Note.Accept' && meaning.item && used.includes('item') ? meaning.item : undefined;
    const item = taken && details ? this.sim.options.catalog.get(taken) : undefined;
    if (item)
      utterance = acceptanceReason(
        this.sim.nlg,
        utterance,
        fill.item ?? '',
        details!(item),
        this.words,
        fill.plural,
      ).text;
    this.previousUtterance = utterance;
    this.utterances.add(utterance);
    if (done) this.finished = true;
    trace.said = this.record(meaning, used);

    trace.agenda = this.agendaTopFirst();
    trace.goal = this.goalSnapshot();
    const prefs: PreferenceState | undefined = opening ? this.prefs.snapshot() : this.prefs.delta();
    if (prefs) trace.preferences = prefs;
    if (understanding) {
      trace.nlu = { agent_act: understanding.agent_act, source: understanding.source };
      if (understanding.acts.length > 1) (trace.nlu as Record<string, unknown>)['acts'] = understanding.acts;
      if (understanding.confidence !== undefined) trace.nlu.confidence = understanding.confidence;
      trace.agent_act = understanding.agent_act;
    }
    trace.user_act = act;
    if (act !== planned) (trace as Record<string, unknown>)['planned_act'] = planned;
    const target = this.targetState();
    if (target) trace.target = target;
    trace.patience = this.patience;
    trace.satisfaction = this.agentTurns ? round3(this.appropriateTurns / this.agentTurns) : 1;
    trace.frustration = round3(1 - this.patience / this.initialPatience);
    if (done) {
      const reason: EndReason =
        outcome === 'accepted'
          ? 'accepted'
          : outcome === 'abandoned'
            ? 'patience'
            : outcome === 'gave_up'
              ? 'gave_up'
              : (meaning.endReason ?? 'completed');
      (trace as Record<string, unknown>)['end_reason'] = reason;
    }
    return { utterance, act, trace, done, outcome };
  }

  /**
   * Applies what the text said (the slots its template used) to the user's state and returns
   * `trace.said`: a stated value is disclosed (and only a stated one), a negated value is
   * remembered, a relaxed attribute leaves the goal.
   */
  private record(meaning: Meaning, used: readonly string[]): NonNullable<SimulatorTrace['said']> {
    const said: NonNullable<SimulatorTrace['said']> = { constraints: {} };
    const constraints = said.constraints!;
    const state = (pair: [string, string]) => {
      constraints[pair[0]] = pair[1];
      this.disclosed.add(pair[0]);
      this.saidValues.set(pair[0], pair[1]);
      this.noteSaid(pair[0], pair[1]);
      this.saidNegated.delete(pair[1]);
    };
    if (used.includes('category')) state(['category', this.task]);
    if (meaning.value && used.includes('value')) {
      state(meaning.value);
      if (meaning.check) this.stated = meaning.value;
    }
    if (meaning.revised && used.includes('value')) {
      for (const pair of meaning.revised) {
        state(pair);
        this.goal.constraints[pair[0]] = pair[1];
      }
      if (meaning.check) this.stated = meaning.revised[0];
    }
    if (meaning.liked && used.includes('liked')) state(meaning.liked);
    if (meaning.disliked && used.includes('disliked')) {
      this.negated.add(meaning.disliked[1]);
      this.saidNegated.add(meaning.disliked[1]);
      said.negated = [meaning.disliked[1]];
    }
    if (meaning.relax && used.includes('attribute')) {
      this.relaxed.add(meaning.relax);
      delete this.goal.constraints[meaning.relax];
      this.disclosed.delete(meaning.relax);
      this.saidValues.delete(meaning.relax);
    }
    const items: string[] = [];
    if (meaning.item && used.includes('item')) items.push(meaning.item);
    if (meaning.item2 && used.includes('item2')) items.push(meaning.item2);
    if (items.length) said.items = items;
    return said;
  }

  private askedCache: { text: string; attrs: string[] } = { text: '', attrs: [] };

  /**
   * The attributes the questions of an agent utterance ask about ("Noted, black. Which material?"
   * asks about material only; an offer such as "Want me to look around?" about none): the one
   * reader, `questionAttributes`, for every rule. Cached: several rules look at the same text.
   */
  private asked(agentText: string): string[] {
    if (this.askedCache.text !== agentText) {
      this.askedCache = {
        text: agentText,
        attrs: questionAttributes(agentText, this.sim.options.catalog.attributeNames()),
      };
    }
    return this.askedCache.attrs;
  }

  /**
   * The disclosed preferences the agent asks for again, judged one question (a sentence with "?")
   * at a time, so an off-topic question or a carousel beside it changes nothing. Each question is
   * read by the one reader (`readQuestions`, as every other rule reads it); a question re-asks a
   * disclosed attribute when every attribute it asks about is disclosed; when the type is
   * disclosed and it names a type of the catalog ("was it sneakers you wanted?"); or, asking
   * about no attribute, when it asks what the user is shopping for and the category is disclosed.
   * A question that proposes a change or items (`PROPOSES`) is not a re-ask, nor is an offer that
   * asks about nothing ("Shall I show you more sneakers?").
   */
  private reasked(agentText: string): string[] {
    if (!agentText || !agentText.includes('?') || this.disclosed.size === 0) return [];
    const names = this.sim.options.catalog.attributeNames();
    const out = new Set<string>();
    for (const { sentence, attributes: asked, category, offer } of readQuestions(agentText, names)) {
      if (PROPOSES.test(sentence) || (offer && asked.length === 0)) continue;
      if (asked.length && asked.every((a) => this.disclosed.has(a))) for (const a of asked) out.add(a);
      // A type is asked about by naming one ("was it sneakers you wanted?"), the user's or a
      // misheard one; other values ("work", "black") are common words, so only cue words count.
      if (this.disclosed.has('type') && !out.has('type')) {
        const lower = sentence.toLowerCase();
        if (this.sim.options.catalog.attributeValueList('type').some((v) => containsWord(lower, v.toLowerCase())))
          out.add('type');
      }
      if (category && this.disclosed.has('category')) out.add('category');
    }
    return names
      .filter((n) => out.has(n))
      .concat(out.has('category') && !names.includes('category') ? ['category'] : []);
  }

  /** Why the carousel just shown does not answer what the user said, or undefined when it does. */
  private contentProblem(kept = false): string | undefined {
    const looked = this.shown.slice(0, this.sim.options.browseDepth ?? 3);
    if (looked.length === 0) return undefined;
    if (looked.every((i) => i.category !== undefined && i.category !== this.task))
      return `none of the first items is in ${this.task}`;
    const stated = this.stated;
    if (stated && !looked.some((i) => i.attributes[stated[0]] === undefined || i.attributes[stated[0]] === stated[1])) {
      return `none of the first items has ${stated[0]}=${stated[1]}`;
    }
    // ConvApparel: a recommender that shows again what the user just passed over, or ignores what
    // it said it does not want, did not listen.
    const said = [...this.disclosed].filter((a) => a !== 'category' && this.goal.constraints[a] !== undefined);
    const keeps = (i: ItemView) =>
      said.every((a) => i.attributes[a] === undefined || i.attributes[a] === String(this.goal.constraints[a]));
    if (said.length && !looked.some(keeps))
      return `none of the first items keeps what the user said (${said.map((a) => `${a}=${String(this.goal.constraints[a])}`).join(', ')})`;
    // A carousel only kept on screen while the agent asks was not shown again.
    if (!kept && this.passedOver !== undefined && looked[0].item_id === this.passedOver)
      return `the agent showed ${this.passedOver} again right after the user passed it over`;
    if (this.negated.size && looked.every((i) => Object.values(i.attributes).some((v) => this.negated.has(v)))) {
      return `every one of the first items has a value the user said it does not want (${[...this.negated].sort().join(', ')})`;
    }
    return undefined;
  }

  /** The least similarity of a member of the target group to the target (1 when the group is the target alone). */
  private groupSimilarity(): number {
    const catalog = this.sim.options.catalog;
    if (this.groupSimilarityOf && this.groupSimilarityOf[0] === this.target) return this.groupSimilarityOf[1];
    let min = 1;
    for (const id of this.targetGroup) {
      const it = catalog.get(id);
      if (it && this.target && it.item_id !== this.target.item_id)
        min = Math.min(min, catalog.similarity(it, this.target));
    }
    this.groupSimilarityOf = [this.target, min];
    return min;
  }
  private groupSimilarityOf: [ItemView | CatalogItem | undefined, number] | undefined;

  /** Is what the user came for among the first items: its target (known-item mode) or an item meeting its whole goal it has not bought? */
  private answerOnScreen(): boolean {
    const looked = this.onScreen.slice(0, this.sim.options.browseDepth ?? 3);
    if (this.target) return looked.some((i) => i.item_id === this.target!.item_id);
    return looked.some((i) => this.meetsGoal(i) && this.prefs.accepts(i));
  }

  /** Does the agent's text give the asked item's value of the requested attribute (or of `attr`)? */
  private answersRequest(text: string, attr = this.lastAskedRequest): boolean {
    const item = this.lastAskedItem;
    if (!attr || !item || !text) return false;
    const price = this.sim.options.catalog.get(item.item_id)?.price;
    return statesItemValue(text, attr, item.attributes[attr], item.title, price);
  }

  /** Does the item's title (on its card) show its value of `attr`? The user reads it there and does not ask. */
  private titleShows(item: ItemView, attr: string): boolean {
    return titleShowsValue(item.title, attr, item.attributes[attr]);
  }

  /** The goal requests not answered yet. */
  private pendingRequests(): string[] {
    return this.goal.requests.filter((r) => !(this.goal.fulfilled_requests ?? []).includes(r));
  }

  /**
   * Was the user ever shown (among the first items of a carousel) what it came for: its target in
   * known-item mode, else an item meeting its whole goal as it stands (KDD'20: the goal's
   * constraints, for a PKG user the liked values its goal was built from)?
   */
  private goalItemShown(): boolean {
    if (this.target) return this.looked.has(this.target.item_id);
    for (const i of this.looked.values()) if (this.meetsGoal(i)) return true;
    return false;
  }

  /**
   * Does the item meet every goal constraint, said or not (KDD'20: the goal is what the user
   * wants), belong to the task category and avoid every value the user said it does not want?
   */
  private meetsGoal(item: ItemView): boolean {
    if (item.category !== undefined && item.category !== this.task) return false;
    for (const [attr, want] of Object.entries(this.goal.constraints)) {
      if (attr === 'category') continue;
      if (item.attributes[attr] !== String(want)) return false;
    }
    for (const v of Object.values(item.attributes)) if (this.negated.has(v)) return false;
    return true;
  }

  /** The first goal constraint (said ones first) the item misses, as [attribute, wanted value]. */
  private missedConstraint(item: ItemView): [string, string] | undefined {
    const names = Object.keys(this.goal.constraints).filter((k) => k !== 'category');
    names.sort((a, b) => Number(this.disclosed.has(b)) - Number(this.disclosed.has(a)));
    for (const a of names)
      if (item.attributes[a] !== String(this.goal.constraints[a])) return [a, String(this.goal.constraints[a])];
    return undefined;
  }

  /** A value the user said and never took back that the item contradicts ([attribute, item's value]). */
  private contradictsSaid(item: ItemView): [string, string] | undefined {
    return this.contradictions(item)[0];
  }

  /**
   * Every value the user said and never took back that the item contradicts, as [attribute, the
   * item's value]: said values it has another value for (in the order said), then its values the
   * user said it does not want (in attribute order).
   */
  private contradictions(item: ItemView | CatalogItem): [string, string][] {
    const out: [string, string][] = [];
    for (const [attr, said] of this.saidValues) {
      if (attr === 'category') continue;
      const v = item.attributes[attr];
      if (v !== undefined && v !== said) out.push([attr, v]);
    }
    for (const attr of Object.keys(item.attributes).sort()) {
      const v = item.attributes[attr];
      if (attr !== 'category' && this.saidNegated.has(v) && !out.some(([a]) => a === attr)) out.push([attr, v]);
    }
    return out;
  }

  /**
   * What a meta user has to take back out loud: the values it said that its (switched) target
   * contradicts, with the target's values. Empty without a target or once said.
   */
  private pendingRevisions(): [string, string][] {
    return this.target ? this.contradictions(this.target) : [];
  }

  /**
   * The constraint a Disclose states: one the agent asks about, else the task category if the user
   * has not said it yet (a shopper says what it is shopping for), else the next undisclosed one.
   */
  /**
   * The wording list of a Disclose that says a value the user already said (sixteenth round): a
   * shopper who has to say it again says so ("As I said, something blue.", "Sorry to nag, but
   * ..."), `Disclose.Again`; undefined (the act's own list) for a value said for the first time.
   */
  private againTemplate(act: string, [attr, value]: [string, string]): string | undefined {
    return act === 'Disclose' && this.saidValues.get(attr) === value ? 'Disclose.Again' : undefined;
  }

  private nextConstraint(agentText: string, opening = false): [string, string] | undefined {
    const names = Object.keys(this.goal.constraints).filter((k) => k !== 'category');
    const asked = this.asked(agentText);
    for (const a of asked) if (names.includes(a)) return [a, String(this.goal.constraints[a])];
    // (The opening templates name the category anyway, next to the first constraint.)
    if (!opening && !this.disclosed.has('category')) return ['category', this.task];
    const open = names.filter((n) => !this.disclosed.has(n));
    if (open.length) {
      const a = open[0];
      return [a, String(this.goal.constraints[a])];
    }
    return undefined;
  }

  private judge(): { act: string; item?: ItemView; other?: ItemView } {
    const depth = this.sim.options.browseDepth ?? 3;
    const looked = this.onScreen.slice(0, depth);
    if (this.target) {
      const hit = looked.find((i) => i.item_id === this.target!.item_id);
      if (hit) return { act: 'Note.Accept', item: hit };
      const top = looked[0];
      if (this.prefs.isConsumed(top.item_id)) return { act: 'Note.Seen', item: top };
      return { act: this.metaLikes(top) ? 'Note.Like' : 'Note.Dislike', item: top };
    }
    // Opinions come from the preference model only (KDD'20); taking an item also needs the whole
    // goal met. What the user says of the first item follows its opinion: a liked item that misses
    // the goal is a Like (the user does not take it), never a Dislike.
    const strict = this.sim.options.checkContent ?? true;
    for (const item of looked)
      if (this.prefs.accepts(item) && (!strict || this.meetsGoal(item))) return { act: 'Note.Accept', item };
    const top = looked[0];
    if (this.prefs.isConsumed(top.item_id)) return { act: 'Note.Seen', item: top };
    const opinion = this.prefs.opinion(top);
    return { act: opinion === 'like' ? 'Note.Like' : 'Note.Dislike', item: top };
  }

  /** A value of the item the user wants (one of its goal constraints), to say it likes it. */
  private likedValue(item: ItemView | undefined): [string, string] | undefined {
    if (!item) return undefined;
    for (const [k, v] of Object.entries(item.attributes)) {
      if (k === 'brand' || k === 'category') continue;
      if (this.goal.constraints[k] !== undefined && String(this.goal.constraints[k]) === v && !this.changesSaid([k, v]))
        return [k, v];
    }
    return undefined;
  }

  /**
   * A value of the item the user does not want: one that differs from its goal, or that its
   * preferences dislike, but never a value it wants (nor, with a target, one the target has), nor
   * one of an attribute it said it has no preference on (fourteenth round).
   */
  private dislikedValue(item: ItemView | undefined): [string, string] | undefined {
    if (!item) return undefined;
    const wantedValues = new Set(Object.values(this.goal.constraints).map(String));
    if (this.target) for (const v of Object.values(this.target.attributes)) wantedValues.add(v);
    for (const [k, v] of Object.entries(item.attributes)) {
      if (k === 'brand' || k === 'category' || wantedValues.has(v) || this.noPreference.has(k)) continue;
      const wanted = this.goal.constraints[k];
      if ((wanted !== undefined && String(wanted) !== v) || this.prefs.attributePreference(k, v) < 0) return [k, v];
    }
    return undefined;
  }

  /**
   * The item a request for similar ones names (rule 15): the first of the items the user looked at
   * (the first `browseDepth` on screen) that contradicts no value it said and has not taken back,
   * and that its preference model likes (a meta user judges by its target: keeping what it said is
   * enough). Undefined when none is such.
   */
  private similarTo(): ItemView | undefined {
    const looked = this.onScreen.slice(0, this.sim.options.browseDepth ?? 3);
    for (const item of looked) {
      // an item it owns is one it would say it has, not one to find more of; nor the item it just
      // passed over when this very turn holds its showing again against the agent (a push)
      if (this.contradictsSaid(item) || this.prefs.isConsumed(item.item_id)) continue;
      if (this.lastOperation === 'push' && item.item_id === this.passedOver) continue;
      if (this.target ? this.metaLikes(item) : this.prefs.opinion(item) === 'like') return item;
    }
    return undefined;
  }

  /**
   * Does a meta user like the item? One as close to its target as a member of its target group
   * (AlterEval's relevance judgments: the group is what the user would accept in the target's
   * place), or closer than `likeSimilarity`; never one with a value other than one it said, or one
   * it said it does not want.
   */
  private metaLikes(item: ItemView): boolean {
    const full = this.sim.options.catalog.get(item.item_id);
    const sim = full ? this.sim.options.catalog.similarity(full, this.target!) : 0;
    const liked =
      (full !== undefined && this.targetGroup.includes(full.item_id)) ||
      sim >= Math.min(this.sim.options.likeSimilarity ?? 0.7, this.groupSimilarity());
    return liked && !this.contradictsSaid(item);
  }

  private named(item: ItemView, fill: SlotFill, meaning: Meaning, slot: 'item' | 'item2' = 'item'): void {
    fill[slot] = item.title ?? item.item_id;
    // the wording's verbs and pronouns agree with the {item}'s number ("Halden Loafers are ...")
    if (slot === 'item') fill.plural = namedInPlural(item, fill[slot]);
    meaning[slot] = item.item_id;
  }

  /** `first`: the turn's own call (false when a rule realises another act in its place). */
  private realise(planned: string, agentText: string, opening: boolean, first = true): Realised {
    const fill: SlotFill = { category: this.task };
    const meaning: Meaning = {};
    const main = mainAct(planned);
    // Items are noted, compared, asked about or taken only when the agent's last turn shows them.
    const hasItems = this.onScreen.length > 0;

    // Known-item mode: a user who sees the item it is looking for takes it, whatever it planned,
    // also when its patience just ran out (taking what it came for beats leaving).
    // AlterEval: a switched target may differ from what the user said. The user says the change
    // before anything else, every changed value in one Reveal.Revise (the target-free user's rule),
    // so its goal never holds a value it did not say, and it never accepts against its own words
    // (the target, on screen or not, is taken on a later turn). Only a user leaving at patience 0
    // says nothing more.
    if (this.target && !opening && planned !== 'Complete.Abandon') {
      const all = this.pendingRevisions();
      if (all.length) {
        fill.value = joinList(all.map(([a, v]) => valuePhrase(a, v)));
        fill.attribute = readableAttribute(all[0][0]);
        return { act: 'Reveal.Revise', fill, meaning: { revised: all, require: ['value'], check: true } };
      }
    }
    if (this.target && hasItems && !opening) {
      const hit = this.onScreen
        .slice(0, this.sim.options.browseDepth ?? 3)
        .find((i) => i.item_id === this.target!.item_id);
      const clash = hit ? this.contradictsSaid(hit) : undefined;
      if (hit && !clash) {
        this.named(hit, fill, meaning);
        meaning.require = ['item'];
        return { act: 'Note.Accept', fill, outcome: 'accepted', meaning };
      }
    }

    if (planned === 'Complete.Abandon') {
      // An item on screen that meets the whole goal and that the user likes is taken, not left.
      if (!this.target && hasItems && !opening) {
        const verdict = this.judge();
        if (verdict.act === 'Note.Accept' && verdict.item) {
          this.named(verdict.item, fill, meaning);
          meaning.require = ['item'];
          return { act: 'Note.Accept', fill, outcome: 'accepted', meaning };
        }
      }
      return { act: planned, fill, outcome: 'abandoned', meaning };
    }

    // An elicitation is answered (KDD'20's reference simulator answers an agent's elicitation with
    // the user's preference on the elicited attribute): an agent turn whose main act is
    // Inquire.Elicit, asking about a value the goal holds and the user has not said, gets that value
    // (a Disclose), whatever the user planned. A planned query formulation (Reveal, Disclose) is
    // this answer; any other act the turn pulled (a Note, an item question, a request for options,
    // Complete) waits on top of the agenda for the next turn. Taking what it came for and leaving
    // at patience 0 come first (above); so does a Note on items still on screen, whose opinion the
    // user forms as it reads them (below).
    if (
      !opening &&
      this.agentAct === 'Inquire.Elicit' &&
      main !== 'Disclose' &&
      !((main === 'Note' || main === 'Complete') && hasItems) &&
      planned !== 'Navigate.Repeat' &&
      this.asksUnsaidGoalValue(agentText)
    ) {
      if (main !== 'Reveal' && this.lastOperation === 'pull' && this.pulledEntry !== undefined)
        this.agenda.push(this.pulledEntry);
      this.pulledEntry = undefined;
      return this.realise('Disclose', agentText, opening, false);
    }

    // Asked only about attributes its goal does not hold (one not asked before), the user says it
    // has no preference there rather than answer with another attribute's value ("Which type:
    // cardigans or blouses?" -> "preferably for men"); the act it pulled waits on top of the agenda,
    // as for rule 14 (fourteenth round; UserSimCRS answers an elicited slot the user has no
    // preference on with "don't care"). A revision comes first, and with items on screen so do "say
    // that again" and an opinion of the items or leaving them.
    if (
      first &&
      !opening &&
      this.agentAct === 'Inquire.Elicit' &&
      planned !== 'Reveal.Revise' &&
      planned !== 'Disclose.NonDisclose' &&
      !((main === 'Note' || main === 'Complete' || planned === 'Navigate.Repeat') && hasItems) &&
      this.asksOnlyOffGoal(agentText)
    ) {
      if (this.lastOperation === 'pull' && this.pulledEntry !== undefined) this.agenda.push(this.pulledEntry);
      this.pulledEntry = undefined;
      return this.noPreferenceOn(agentText, fill, meaning);
    }

    if ((main === 'Note' || main === 'Complete') && hasItems && !opening) {
      const verdict = this.judge();
      if (verdict.act === 'Note.Accept' && verdict.item) {
        this.named(verdict.item, fill, meaning);
        meaning.require = ['item'];
        return { act: 'Note.Accept', fill, outcome: 'accepted', meaning };
      }
      if (main === 'Note' && verdict.item) {
        this.named(verdict.item, fill, meaning);
        const liked = this.likedValue(verdict.item);
        const disliked = this.dislikedValue(verdict.item);
        const act = planned === 'Note' || planned.startsWith('Note.') ? verdict.act : planned;
        if (act === 'Note.Like' && !this.target && !this.meetsGoal(verdict.item)) {
          // A liked item that misses the goal: the user says what it likes about it (the part that
          // fits), or, when nothing fits, says again the value it misses; never a Dislike (KDD'20).
          if (!liked) {
            const missed = this.missedConstraint(verdict.item);
            if (missed) {
              fill.value = valuePhrase(missed[0], missed[1]);
              fill.attribute = readableAttribute(missed[0]);
              const template = this.againTemplate('Disclose', missed);
              return { act: 'Disclose', fill, meaning: { value: missed, require: ['value'], check: true, template } };
            }
          } else meaning.require = ['liked'];
        }
        if (liked && act === 'Note.Like') {
          fill.liked = reasonPhrase(liked[0], liked[1], fill.plural);
          meaning.liked = liked;
        }
        if (disliked && act === 'Note.Dislike') {
          fill.disliked = valuePhrase(disliked[0], disliked[1]);
          meaning.disliked = disliked;
        }
        return { act, fill, meaning };
      }
    }
    if (main === 'Complete') {
      // Leaving after having seen items (on screen now or earlier) ends the dialogue.
      if (this.shown.length > 0) {
        // Leaving unserved with patience left (a pushed Complete, acts still pending, or patience
        // already spent on bad answers) is giving up, not completing.
        // So is leaving with a goal request unanswered, or without ever having been shown what it came for.
        const gaveUp =
          this.lastOperation === 'push' ||
          this.agenda.length > 0 ||
          this.patience < this.initialPatience ||
          this.pendingRequests().length > 0 ||
          !this.goalItemShown();
        if (gaveUp)
          return {
            act: 'Complete',
            fill,
            outcome: 'gave_up',
            meaning: { endReason: 'gave_up', template: 'Complete.GaveUp' },
          };
        return { act: 'Complete', fill, outcome: 'ended', meaning: { endReason: 'completed' } };
      }
      // Nothing shown yet: the user does not leave unless early quitting is configured.
      const quit = this.sim.options.earlyQuit ?? 0;
      if (quit > 0 && this.rng.chance(quit))
        return { act: 'Complete', fill, outcome: 'ended', meaning: { endReason: 'early_quit' } };
      const deferred = agentText.includes('?') ? 'Disclose' : this.fallbackWithoutItems();
      return this.realise(deferred, agentText, opening, false);
    }
    if (main === 'Note') return this.realise(this.withoutItems(agentText), agentText, opening, false);

    if (main === 'Disclose') {
      // "No preference" only on what the goal does not hold: asked about a goal attribute, the user says it.
      // And only in answer to a question: after a turn that asked nothing, "no preference on that"
      // answers nothing (an independent review: 21-36 % of NonDisclose turns against local-good);
      // the user says what it wants instead.
      const asked = this.asked(agentText);
      if (
        planned === 'Disclose.NonDisclose' &&
        (asked.length > 0 || opening) &&
        !asked.some((a) => a in this.goal.constraints && a !== 'category') &&
        !this.asksCategory(agentText)
      )
        return this.noPreferenceOn(agentText, fill, meaning);
      const next = this.nextConstraint(agentText, opening);
      if (next && next[0] === 'category') {
        // The category reads as a noun ("I'm looking for footwear."): its own templates.
        return { act: 'Disclose', fill, meaning: { require: ['category'], template: 'Disclose.Category' } };
      }
      if (next) {
        fill.value = valuePhrase(next[0], next[1]);
        fill.attribute = readableAttribute(next[0]);
        // A value other than the one said before (the goal followed a new target) is a change of plan.
        const act = this.changesSaid(next) ? 'Reveal.Revise' : 'Disclose';
        return {
          act,
          fill,
          meaning: { value: next, require: ['value'], check: true, template: this.againTemplate(act, next) },
        };
      }
      if (asked.length || opening) return this.noPreferenceOn(agentText, fill, meaning);
      const names = Object.keys(this.goal.constraints).filter((k) => k !== 'category');
      if (names.length) {
        const a = this.rng.pick(names);
        const v = String(this.goal.constraints[a]);
        fill.value = valuePhrase(a, v);
        fill.attribute = readableAttribute(a);
        const act = this.changesSaid([a, v]) ? 'Reveal.Revise' : 'Disclose';
        return { act, fill, meaning: { value: [a, v], require: ['value'], template: this.againTemplate(act, [a, v]) } };
      }
      // A goal with nothing but the category, after a turn that asked nothing: "no preference"
      // would answer nothing; the user asks to see (more) options.
      return { act: hasItems ? 'Navigate.More' : 'Inquire.List', fill, meaning };
    }

    if (main === 'Reveal') {
      // A query formulation after a question about a value the goal holds and the user has not
      // said is the answer to it (Disclose is one of the Reveal acts, CIR6): not a change, a
      // refinement or a relaxation of something else.
      if (!opening && this.elicitsUnsaidGoalValue(agentText))
        return this.realise('Disclose', agentText, opening, false);
      const sub = planned === 'Reveal' ? 'Reveal.Refine' : planned;
      if (sub === 'Reveal.Expand') {
        const attr = this.relaxable();
        if (!attr) return this.realise('Disclose', agentText, opening, false);
        fill.attribute = readableAttribute(attr);
        return { act: sub, fill, meaning: { relax: attr, require: ['attribute'] } };
      }
      // Refining narrows what is on screen ("only the ones in wool"): with nothing on screen it is a
      // plain disclosure (never "narrow these" about no items).
      if (sub === 'Reveal.Refine' && !this.onScreen.length) return this.realise('Disclose', agentText, opening, false);
      // Refining or revising needs something said before: before that it is a plain disclosure.
      const change = this.disclosed.size ? this.reviseGoal(sub) : undefined;
      if (!change) return this.realise('Disclose', agentText, opening, false);
      fill.value = valuePhrase(change[0], change[1]);
      fill.attribute = readableAttribute(change[0]);
      // A refinement that states another value than the one said before (the goal followed a new
      // target) is a change of plan, said as one (invariant no-silent-contradiction).
      const act = sub === 'Reveal.Refine' && this.changesSaid(change) ? 'Reveal.Revise' : sub;
      return { act, fill, meaning: { value: change, require: ['value'], check: true } };
    }

    if (main === 'Inquire') {
      // Nothing on screen and asked about a value the goal holds and the user has not said: it
      // answers (a Disclose of the asked value) rather than ask to see options.
      // So does a request to see options with items on screen: the answer is what brings other items.
      if (
        !opening &&
        (hasItems
          ? (planned === 'Inquire' || planned === 'Inquire.List') && this.elicitsUnsaidGoalValue(agentText)
          : this.asksUnsaidGoalValue(agentText))
      )
        return this.realise('Disclose', agentText, opening, false);
      if (!hasItems) return { act: 'Inquire.List', fill, meaning };
      if (planned === 'Inquire.Compare' && this.onScreen.length >= 2) {
        this.named(this.onScreen[0], fill, meaning);
        this.named(this.onScreen[1], fill, meaning, 'item2');
        return { act: planned, fill, meaning };
      }
      if (planned === 'Inquire.Subset') {
        const names = Object.keys(this.goal.constraints).filter(
          (k) => k !== 'category' && !this.changesSaid([k, String(this.goal.constraints[k])]),
        );
        if (names.length) {
          const a = this.rng.pick(names);
          const v = String(this.goal.constraints[a]);
          fill.value = valuePhrase(a, v);
          return { act: planned, fill, meaning: { value: [a, v], require: ['value'] } };
        }
      }
      if (planned === 'Inquire.Similar' || planned === 'Inquire.Compare' || planned === 'Inquire.Subset') {
        // "More like X" says the user wants X's kind (rule 15): X is one of the items it looked at
        // that keeps every value it said and liked by its preferences (a meta user: keeps what it
        // said); with none such on screen it asks for other items (or answers the agent's question
        // about a value it has not said), as a request to see options does.
        const like = this.similarTo();
        if (!like)
          return !opening && this.elicitsUnsaidGoalValue(agentText)
            ? this.realise('Disclose', agentText, opening, false)
            : { act: 'Navigate.More', fill, meaning };
        this.named(like, fill, meaning);
        // "that one" is the first on screen: another item is named
        if (like !== this.onScreen[0]) meaning.require = ['item'];
        return { act: 'Inquire.Similar', fill, meaning };
      }
      // A request to see options while options are on screen asks for other ones ("Anything
      // else?"), not for a list ("Can you list some tops for me?" beside twelve tops).
      if (planned === 'Inquire' || planned === 'Inquire.List') return { act: 'Navigate.More', fill, meaning };
      return { act: planned, fill, meaning };
    }

    if (main === 'Navigate') {
      if (!hasItems) {
        const instead = opening ? 'Inquire.List' : this.withoutItems(agentText);
        return instead === 'Inquire.List'
          ? { act: instead, fill, meaning }
          : this.realise(instead, agentText, opening, false);
      }
      // Asking for more while the agent asks about a value the goal holds and the user has not said:
      // the user answers instead (the answer is what brings other items).
      const more = (): Realised =>
        !opening && this.elicitsUnsaidGoalValue(agentText)
          ? this.realise('Disclose', agentText, opening, false)
          : { act: 'Navigate.More', fill, meaning };
      if (planned === 'Navigate.More') return more();
      if (planned === 'Navigate.Back' && this.previousShown.length === 0) return more();
      if (planned === 'Navigate' || planned === 'Navigate.Ask') {
        // The item asked about is one the user could still want: the first of the top three with no
        // value it said it does not want (asking about a rejected item reads as wanting it again)
        // and none other than a value it said and has not taken back (rule 15: a shopper asks about
        // an item it is weighing, not one that already misses what it asked for).
        const asked = this.onScreen
          .slice(0, 3)
          .find((i) => !Object.values(i.attributes).some((v) => this.negated.has(v)) && !this.contradictsSaid(i));
        if (!asked) return more();
        // A requested value the item's card shows in its title is read there, not asked (the
        // agent's carousel said it); with nothing left to ask, the user browses on, or answers the
        // agent's question (then it reads nothing off the card on this turn).
        if (this.pendingRequests().every((r) => this.titleShows(asked, r))) {
          const answer = more();
          if (answer.act !== 'Navigate.More') return answer;
        }
        for (const r of this.pendingRequests())
          if (this.titleShows(asked, r)) (this.goal.fulfilled_requests ??= []).push(r);
        // never a question about an attribute the user stated a value of itself (rule 16)
        const attr = this.pendingRequests().find((r) => !this.saidValues.has(r));
        if (attr === undefined) return { act: 'Navigate.More', fill, meaning };
        this.lastAskedRequest = attr;
        this.lastAskedItem = asked;
        fill.attribute = readableAttribute(attr);
        this.named(asked, fill, meaning);
        meaning.require = ['attribute', 'item'];
        return { act: 'Navigate', fill, meaning };
      }
      return { act: planned, fill, meaning };
    }
    return { act: planned, fill, meaning };
  }

  /** Would some catalog item of the task meet the goal with `attr` set to `value`? */
  private satisfiableWith(attr: string, value: string): boolean {
    // The constraints are read once, not once per item (this runs per candidate value, per turn).
    const wanted = Object.entries({ ...this.goal.constraints, [attr]: value })
      .filter(([k]) => k !== 'category')
      .map(([k, v]) => [k, String(v)] as const);
    return this.sim.options.catalog.categoryItems(this.task).some((i) => holdsAll(i, wanted));
  }

  /**
   * Whether the agent's questions ask only about attributes the goal does not hold, one of them not
   * yet answered with "no preference". A question about what the user is shopping for asks about
   * the goal (its category): "What are we looking for today? Wearing them inside, or out?" is not
   * answered with "no preference".
   */
  private asksOnlyOffGoal(agentText: string): boolean {
    if (this.asksCategory(agentText)) return false;
    const asked = this.asked(agentText).filter((a) => a !== 'category');
    return (
      asked.length > 0 &&
      asked.every((a) => !(a in this.goal.constraints)) &&
      asked.some((a) => !this.noPreference.has(a))
    );
  }

  /** Does a question of the agent's text ask what the user is shopping for (`readQuestions`)? */
  private asksCategory(agentText: string): boolean {
    return readQuestions(agentText, this.sim.options.catalog.attributeNames()).some((q) => q.category);
  }

  /** A Disclose.NonDisclose: the asked attributes (none of them in the goal) are remembered as "no preference". */
  private noPreferenceOn(agentText: string, fill: SlotFill, meaning: Meaning): Realised {
    for (const a of this.asked(agentText)) if (!(a in this.goal.constraints)) this.noPreference.add(a);
    return { act: 'Disclose.NonDisclose', fill, meaning };
  }

  /** Does saying this value change what the user said before for its attribute? */
  private changesSaid([attr, value]: [string, string]): boolean {
    const said = this.saidValues.get(attr);
    return said !== undefined && said !== value;
  }

  /**
   * What an act about items (a Note, an item question) becomes on a turn that shows none: the
   * answer to the agent's question when it asked about an attribute (a Disclose, which states the
   * asked value or says there is no preference), else the fallback below.
   */
  private noteSaid(attr: string, value: string): void {
    let values = this.everSaid.get(attr);
    if (!values) this.everSaid.set(attr, (values = new Set()));
    values.add(value);
  }

  /** Does the agent's text ask about a value the goal holds (other than the category) that the user has not said? */
  /**
   * The same, on a turn the agent marked as an elicitation (Inquire.Elicit among the acts the user
   * read): a question beside the point (local-bad's tangents, read as Inquire.Clarify) is not one
   * the user answers in place of asking for options or changing its query.
   */
  private elicitsUnsaidGoalValue(agentText: string): boolean {
    return this.agentActs.includes('Inquire.Elicit') && this.asksUnsaidGoalValue(agentText);
  }

  private asksUnsaidGoalValue(agentText: string): boolean {
    return this.asked(agentText).some((a) => a !== 'category' && a in this.goal.constraints && !this.disclosed.has(a));
  }

  private withoutItems(agentText: string): string {
    return this.asked(agentText).length ? 'Disclose' : this.fallbackWithoutItems();
  }

  private fallbackWithoutItems(): string {
    const names = Object.keys(this.goal.constraints).filter((k) => k !== 'category' && !this.disclosed.has(k));
    return names.length ? 'Disclose' : 'Inquire.List';
  }

  /** The attribute a Reveal.Expand relaxes: a disclosed constraint (never the category). */
  private relaxable(): string | undefined {
    const names = [...this.disclosed].filter((k) => k !== 'category' && k in this.goal.constraints).sort();
    return names.length ? this.rng.pick(names) : undefined;
  }

  /**
   * Changes the goal for a Reveal.Refine or Reveal.Revise; returns the attribute and value to say.
   * A Revise always changes a value the user said earlier to another one; undefined when it cannot.
   * With a target (known-item mode) every value comes from the target: Refine adds one of its
   * values the goal does not hold yet; Revise has nothing left to change (a switch's changes are
   * said as soon as it happens, see `pendingRevisions`), so the user discloses instead.
   */
  private reviseGoal(sub: string): [string, string] | undefined {
    const catalog = this.sim.options.catalog;
    const names = Object.keys(this.goal.constraints).filter((k) => k !== 'category');
    if (sub === 'Reveal.Refine') {
      const candidates: [string, string][] = this.target
        ? CONSTRAINT_ATTRIBUTES.filter((a) => this.target!.attributes[a] !== undefined).map((a) => [
            a,
            this.target!.attributes[a],
          ])
        : this.prefs.likedValues();
      for (const [attr, value] of candidates) {
        if (
          !CONSTRAINT_ATTRIBUTES.includes(attr) ||
          attr in this.goal.constraints ||
          // a goal request is what the user wants to learn of an item, not a wish it states
          // (eighteenth round: refining on it made the user ask later what it had said)
          this.goal.requests.includes(attr) ||
          this.relaxed.has(attr) ||
          this.negated.has(value) ||
          this.noPreference.has(attr)
        )
          continue;
        if (!this.target && !this.satisfiableWith(attr, value)) continue;
        this.goal.constraints[attr] = value;
        return [attr, value];
      }
      const undisclosed = names.filter((n) => !this.disclosed.has(n));
      const attr = undisclosed.length ? undisclosed[0] : names.length ? this.rng.pick(names) : undefined;
      if (!attr) return undefined;
      return [attr, String(this.goal.constraints[attr])];
    }
    // A meta user revises what its target changed, all at once, before anything else (`realise`):
    // by the time it plans a Reveal.Revise nothing is left to change.
    if (this.target) return undefined;
    const said = names.filter((n) => this.disclosed.has(n) && this.saidValues.has(n));
    if (said.length === 0) return undefined;
    const attr = this.rng.pick(said);
    const current = this.saidValues.get(attr)!;
    const options = catalog
      .attributeValueList(attr)
      .filter(
        (v) =>
          v !== current &&
          !this.everSaid.get(attr)?.has(v) &&
          !this.negated.has(v) &&
          this.prefs.attributePreference(attr, v) >= 0 &&
          this.satisfiableWith(attr, v),
      );
    if (options.length === 0) return undefined;
    const liked = options.filter((v) => this.prefs.attributePreference(attr, v) > 0);
    const value = liked.length ? liked[0] : this.rng.pick(options);
    this.goal.constraints[attr] = value;
    return [attr, value];
  }

  /**
   * Continues from a recorded prefix: the last turn's trace gives agenda, goal, current act and
   * patience (the state right after that turn's user utterance); preference deltas along the
   * prefix give the opinions formed so far; the carousels of the earlier turns are what the user
   * has seen. The next call is `respond(<the last prefix turn's agent response>)`.
   */
  restore(prefix: readonly Turn[]): void {
    const traces = prefix.map((t) => t.trace).filter((t): t is SimulatorTrace => t !== undefined);
    const last = traces[traces.length - 1];
    if (!last || !last.agenda || !last.user_act)
      throw new Error('cannot restore the agenda user: the turn has no agenda trace');
    this.started = true;
    this.agenda = last.agenda.slice().reverse();
    if (last.goal) {
      this.goal = copyGoal(last.goal);
      const disclosed = (last.goal as Record<string, unknown>)['disclosed'];
      this.disclosed = new Set(Array.isArray(disclosed) ? disclosed.map(String) : []);
      delete (this.goal as Record<string, unknown>)['disclosed'];
    } else {
      this.buildGoal();
    }
    this.current = last.user_act;
    if (typeof last.patience === 'number') this.patience = last.patience;
    // the recorded user's history (what it owns, and the PKG's ratings), not the one this session drew
    const snapshot = traces.find(
      (t) => t.preferences?.kind === 'snapshot' && t.preferences.consumed_items,
    )?.preferences;
    if (snapshot?.consumed_items) {
      const ratings = snapshot.item_ratings ?? {};
      // A single-item user's taste is the recorded one (its snapshot holds it since the eighteenth
      // round), not the one this session drew; a PKG's comes from the history.
      const taste = this.prefs.kind === 'single' ? tasteFromState(snapshot, this.task) : undefined;
      this.prefs = preferencesOverHistory(
        this.prefs,
        snapshot.consumed_items.map((item_id) => ({ item_id, rating: ratings[item_id] ?? NEUTRAL_RATING })),
        this.sim.options.catalog,
        this.rng,
        this.sim.options.preferenceOptions,
        taste,
      );
    }
    for (const t of traces) if (t.preferences) this.prefs.restore(t.preferences);
    this.negated = new Set(traces.flatMap((t) => t.said?.negated ?? []));
    this.saidNegated = new Set();
    for (const t of traces) {
      for (const v of Object.values(t.said?.constraints ?? {})) this.saidNegated.delete(String(v));
      for (const v of t.said?.negated ?? []) this.saidNegated.add(v);
    }
    this.saidValues = new Map();
    this.everSaid = new Map();
    for (const t of traces)
      for (const [k, v] of Object.entries(t.said?.constraints ?? {})) {
        this.saidValues.set(k, String(v));
        this.noteSaid(k, String(v));
      }
    for (const k of [...this.saidValues.keys()]) if (!(k in this.goal.constraints)) this.saidValues.delete(k);
    this.prefs.delta();
    for (const t of traces) {
      if (t.satisfaction !== undefined && t.nlu) this.agentTurns++;
    }
    this.appropriateTurns = Math.round((last.satisfaction ?? 1) * this.agentTurns);
    // The last prefix turn's agent response has not been read yet: `respond` gets it next.
    const shownTurns = prefix.slice(0, -1).filter((t) => t.recommendations && t.recommendations.length);
    const lastShown = shownTurns[shownTurns.length - 1];
    const before = shownTurns[shownTurns.length - 2];
    if (lastShown?.recommendations)
      this.shown = lastShown.recommendations.map((r) => viewOf(r, this.sim.options.catalog));
    this.looked = new Map();
    for (const t of shownTurns)
      for (const r of t.recommendations!.slice(0, this.sim.options.browseDepth ?? 3))
        this.looked.set(r.item_id, viewOf(r, this.sim.options.catalog));
    if (before?.recommendations)
      this.previousShown = before.recommendations.map((r) => viewOf(r, this.sim.options.catalog));
    if (last.target) {
      const t = this.sim.options.catalog.get(last.target.item_id);
      if (t) this.setTarget({ target: t, alternatives: last.target.alternatives ?? [] });
    }
    this.previousUtterance = prefix[prefix.length - 1]?.user_utterance;
    // The state the later rules read: the last answer's judgement, the item just passed over, the
    // item an item question asked about, and the attributes said to be of no preference.
    this.lastOperation = last.operation === 'pull' || last.operation === 'push' ? last.operation : undefined;
    const items = last.said?.items ?? [];
    this.passedOver =
      last.user_act === 'Note.Dislike' || last.user_act === 'Note.Seen' || last.user_act === 'Note.Like'
        ? items[0]
        : undefined;
    if (last.user_act === 'Navigate' && items[0]) {
      const asked = this.shown.find((i) => i.item_id === items[0]);
      const pending = this.pendingRequests();
      if (asked && pending.length) {
        this.lastAskedItem = asked;
        this.lastAskedRequest = pending[0];
      }
    }
    // Attributes relaxed along the prefix: those a Reveal.Expand took out of the disclosed goal.
    this.relaxed = new Set();
    let disclosedBefore: string[] | undefined;
    for (const t of traces) {
      const d = (t.goal as Record<string, unknown> | undefined)?.['disclosed'];
      const now = Array.isArray(d) ? d.map(String) : undefined;
      if (t.user_act === 'Reveal.Expand' && now && disclosedBefore)
        for (const a of disclosedBefore) if (!now.includes(a)) this.relaxed.add(a);
      if (now) disclosedBefore = now;
    }
    this.noPreference = new Set();
    prefix.forEach((t, i) => {
      if (t.trace?.user_act !== 'Disclose.NonDisclose') return;
      const text = prefix[i - 1]?.assistant_utterance ?? '';
      for (const a of questionAttributes(text, this.sim.options.catalog.attributeNames()))
        if (!(a in this.goal.constraints)) this.noPreference.add(a);
    });
    for (const t of prefix) if (t.user_utterance !== undefined) this.utterances.add(t.user_utterance);
  }
}
