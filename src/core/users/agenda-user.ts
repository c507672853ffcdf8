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
 *      the dialogue); acts that need items when none were shown fall back to a Disclose or a
 *      request for options (recorded as `planned_act`);
 *   4. template NLG turns the act and its slots into text.
 * Every turn returns the full trace: agenda after the turn, pull/push, goal, preference delta,
 * NLU result, acts, patience, satisfaction and frustration.
 */
import type { Goal, PreferenceState, SimulatorTrace, Turn, TargetState, Outcome } from '../model';
import type { Rng } from '../random';
import type { AgentResponse, SessionContext, UserSimulator, UserTurn } from '../sim/types';
import type { Catalog, CatalogItem } from '../catalog/catalog';
import { mainAct } from './acts';
import type { InteractionModel } from './interaction';
import { TemplateNlg, readableAttribute, type SlotFill } from './nlg';
import { AgentNlu, type Understanding } from './nlu';
import { askedAttributes, questionSentences, valuePhrase } from './phrases';
import {
  attributeValuesOf, createPreferenceModel, viewOf, type ItemView, type PreferenceKind, type PreferenceModel, type PreferenceOptions,
} from './preferences';
import { round3, type RestorableSession, type TargetAwareSession, type TargetUpdate } from './session';

export interface AgendaUserOptions {
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
}

/** Attributes a simulated shopper may state as constraints (brand is rarely a requirement). */
const CONSTRAINT_ATTRIBUTES = ['type', 'colour', 'material', 'style', 'gender', 'occasion', 'price_band'];

export class AgendaUserSimulator implements UserSimulator {
  readonly name: string;
  readonly nlg: TemplateNlg;
  readonly nlu: AgentNlu;

  constructor(readonly options: AgendaUserOptions) {
    this.name = `agenda-${options.interaction.name}-${options.preferences}`;
    this.nlg = options.nlg ?? new TemplateNlg();
    this.nlu = options.nlu ?? new AgentNlu();
  }

  createSession(conversationId: string, rng: Rng, context: SessionContext): AgendaUserSession {
    return new AgendaUserSession(this, conversationId, rng, context);
  }
}

function copyGoal(goal: Goal): Goal {
  const g: Goal = { constraints: { ...goal.constraints }, requests: goal.requests.slice() };
  if (goal.fulfilled_requests?.length) g.fulfilled_requests = goal.fulfilled_requests.slice();
  const disclosed = (goal as Record<string, unknown>)['disclosed'];
  if (Array.isArray(disclosed) && disclosed.length) (g as Record<string, unknown>)['disclosed'] = disclosed.slice();
  return g;
}

export class AgendaUserSession implements TargetAwareSession, RestorableSession {
  private readonly sim: AgendaUserSimulator;
  private readonly rng: Rng;
  readonly task: string;
  readonly prefs: PreferenceModel;
  /** The agenda as a stack: the top is the last element. */
  private agenda: string[] = [];
  private goal: Goal = { constraints: {}, requests: [] };
  private disclosed = new Set<string>();
  private current = '';
  private patience: number;
  private readonly initialPatience: number;
  private agentTurns = 0;
  private appropriateTurns = 0;
  private shown: ItemView[] = [];
  private previousShown: ItemView[] = [];
  private previousUtterance: string | undefined;
  private lastAskedRequest: string | undefined;
  /** The constraint the current act stated ([attribute, value]), checked against the next carousel. */
  private stated: [string, string] | undefined;
  private target: CatalogItem | undefined;
  private targetGroup: string[] = [];
  private started = false;
  private finished = false;

  constructor(sim: AgendaUserSimulator, readonly conversationId: string, rng: Rng, context: SessionContext) {
    this.sim = sim;
    this.rng = rng;
    const categories = sim.options.catalog.categories();
    if (categories.length === 0) throw new Error('the catalog is empty');
    this.task = typeof context.task === 'string' && categories.includes(context.task) ? context.task : rng.pick(categories);
    this.prefs = createPreferenceModel(sim.options.preferences, sim.options.catalog, this.task, rng, sim.options.preferenceOptions);
    this.initialPatience = sim.options.patience ?? 3;
    this.patience = this.initialPatience;
  }

  /** Known-item mode (meta-simulators): the goal follows the target and only the target is accepted. */
  setTarget(update: TargetUpdate): void {
    this.target = update.target;
    this.targetGroup = update.alternatives.slice();
    if (this.started) {
      for (const [k, v] of Object.entries(update.target.attributes)) {
        if (k in this.goal.constraints) this.goal.constraints[k] = v;
      }
    }
  }

  private buildGoal(): void {
    const max = this.sim.options.maxConstraints ?? 3;
    const constraints: Record<string, string> = { category: this.task };
    if (this.target) {
      const names = CONSTRAINT_ATTRIBUTES.filter((a) => this.target!.attributes[a] !== undefined);
      for (const a of this.rng.shuffle(names).slice(0, max + 1)) constraints[a] = this.target.attributes[a];
    } else {
      for (const [attr, value] of this.prefs.likedValues()) {
        if (Object.keys(constraints).length > max) break;
        if (!CONSTRAINT_ATTRIBUTES.includes(attr) || attr in constraints) continue;
        constraints[attr] = value;
      }
    }
    const catalogAttrs = this.sim.options.catalog.attributeNames().filter((a) => !(a in constraints) && a !== 'brand');
    const requests = this.rng.shuffle(catalogAttrs).slice(0, 1 + this.rng.int(2)).sort();
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
    this.agenda = init.agenda.slice().reverse();
    const first = this.sim.options.interaction.refine(this.agenda.pop() ?? 'Disclose', this.rng);
    const trace: SimulatorTrace = { operation: 'init', pulled: [first] };
    if (init.attempts > 1) (trace as Record<string, unknown>)['agenda_attempts'] = init.attempts;
    if (init.fallback) (trace as Record<string, unknown>)['agenda_fallback'] = true;
    return this.speak(first, trace, undefined, true);
  }

  async respond(response: AgentResponse): Promise<UserTurn> {
    if (!this.started) throw new Error('respond() before start()');
    if (this.finished) throw new Error('the user already ended the conversation');
    const understanding = this.sim.nlu.understand(response);
    this.agentTurns++;
    this.previousShown = this.shown;
    if (response.recommendations.length) {
      this.shown = response.recommendations.map((r) => viewOf(r, this.sim.options.catalog));
    }
    const interaction = this.sim.options.interaction;
    const checkContent = this.sim.options.checkContent ?? true;
    let pushReason: string | undefined;
    let acts = understanding.acts;
    if (checkContent && this.reasks(response.utterance)) {
      acts = acts.filter((a) => a !== 'Inquire.Elicit' && a !== 'Inquire.Clarify');
      pushReason = 'the agent asked again about a preference already given';
    }
    let appropriate = acts.some((a) => interaction.isAppropriate(this.current, a));
    if (!appropriate && !pushReason) pushReason = `${understanding.agent_act} does not answer ${this.current}`;
    if (appropriate && checkContent && response.recommendations.length) {
      const problem = this.contentProblem();
      if (problem) {
        appropriate = false;
        pushReason = problem;
      }
    }
    // Goal update: an explanation after asking about a requested attribute fulfils the request.
    if (this.lastAskedRequest && understanding.acts.includes('Explain')) {
      const done = (this.goal.fulfilled_requests ??= []);
      if (!done.includes(this.lastAskedRequest)) done.push(this.lastAskedRequest);
    }
    this.lastAskedRequest = undefined;
    const trace: SimulatorTrace = {};
    let next: string;
    if (appropriate) {
      this.appropriateTurns++;
      next = this.agenda.pop() ?? 'Complete';
      trace.operation = 'pull';
      trace.pulled = [next];
    } else {
      this.patience--;
      trace.operation = 'push';
      if (pushReason) trace.push_reason = pushReason;
      if (this.patience <= 0) {
        next = 'Complete.Abandon';
      } else {
        next = interaction.replacement(understanding.agent_act, this.rng);
      }
      trace.pushed = [next];
    }
    if (response.error) trace.error = response.error;
    return this.speak(interaction.refine(next, this.rng), trace, understanding, false, response.utterance);
  }

  /** Realises `planned` in the current situation, generates the text and assembles the turn. */
  private speak(planned: string, trace: SimulatorTrace, understanding: Understanding | undefined, opening: boolean, agentText = ''): UserTurn {
    this.stated = undefined;
    const { act, fill, outcome } = this.realise(planned, agentText, opening);
    this.current = act;
    const done = outcome !== undefined;
    if (act === 'Note.Accept') this.agenda = [];
    const templateKey = opening && this.sim.nlg.has(`${act}.Open`) ? `${act}.Open` : act;
    const utterance = this.sim.nlg.generate(templateKey, fill, this.rng, this.previousUtterance);
    this.previousUtterance = utterance;
    if (done) this.finished = true;

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
    return { utterance, act, trace, done, outcome };
  }

  private askedCache: { text: string; attrs: string[] } = { text: '', attrs: [] };

  /**
   * The attributes the questions of an agent utterance ask about ("Noted, black. Which material?"
   * asks about material only). Cached: several rules look at the same text.
   */
  private asked(agentText: string): string[] {
    if (this.askedCache.text !== agentText) {
      this.askedCache = { text: agentText, attrs: askedAttributes(questionSentences(agentText), this.sim.options.catalog.attributeNames()) };
    }
    return this.askedCache.attrs;
  }

  /** True when the agent asks only about attributes the user has already disclosed. */
  private reasks(agentText: string): boolean {
    if (!agentText || !agentText.includes('?') || this.disclosed.size === 0) return false;
    const asked = this.asked(agentText);
    return asked.length > 0 && asked.every((a) => this.disclosed.has(a));
  }

  /** Why the carousel just shown does not answer what the user said, or undefined when it does. */
  private contentProblem(): string | undefined {
    const looked = this.shown.slice(0, this.sim.options.browseDepth ?? 3);
    if (looked.length === 0) return undefined;
    if (looked.every((i) => i.category !== undefined && i.category !== this.task)) return `none of the first items is in ${this.task}`;
    const stated = this.stated;
    if (stated && !looked.some((i) => i.attributes[stated[0]] === undefined || i.attributes[stated[0]] === stated[1])) {
      return `none of the first items has ${stated[0]}=${stated[1]}`;
    }
    return undefined;
  }

  /** Does the item satisfy every constraint the user has disclosed? */
  private meetsDisclosed(item: ItemView): boolean {
    for (const attr of this.disclosed) {
      const want = this.goal.constraints[attr];
      const have = item.attributes[attr];
      if (want !== undefined && have !== undefined && String(want) !== have) return false;
    }
    return true;
  }

  private nextConstraint(agentText: string): [string, string] | undefined {
    const names = Object.keys(this.goal.constraints).filter((k) => k !== 'category');
    const asked = this.asked(agentText);
    for (const a of asked) if (names.includes(a)) return [a, String(this.goal.constraints[a])];
    const open = names.filter((n) => !this.disclosed.has(n));
    if (open.length) {
      const a = open[0];
      return [a, String(this.goal.constraints[a])];
    }
    return undefined;
  }

  private judge(): { act: string; item?: ItemView; other?: ItemView } {
    const depth = this.sim.options.browseDepth ?? 3;
    const looked = this.shown.slice(0, depth);
    if (this.target) {
      const hit = looked.find((i) => i.item_id === this.target!.item_id);
      if (hit) return { act: 'Note.Accept', item: hit };
      const top = looked[0];
      const full = this.sim.options.catalog.get(top.item_id);
      const sim = full ? this.sim.options.catalog.similarity(full, this.target) : 0;
      return { act: sim >= (this.sim.options.likeSimilarity ?? 0.7) ? 'Note.Like' : 'Note.Dislike', item: top };
    }
    const strict = this.sim.options.checkContent ?? true;
    for (const item of looked) if (this.prefs.accepts(item) && (!strict || this.meetsDisclosed(item))) return { act: 'Note.Accept', item };
    const top = looked[0];
    if (this.prefs.isConsumed(top.item_id)) return { act: 'Note.Seen', item: top };
    if (strict && !this.meetsDisclosed(top)) return { act: 'Note.Dislike', item: top };
    const opinion = this.prefs.opinion(top);
    return { act: opinion === 'like' ? 'Note.Like' : 'Note.Dislike', item: top };
  }

  private likedPhrase(item: ItemView | undefined): string | undefined {
    if (!item) return undefined;
    for (const [k, v] of Object.entries(item.attributes)) {
      if (k === 'brand') continue;
      if (this.goal.constraints[k] === v || this.prefs.attributePreference(k, v) > 0) return valuePhrase(k, v);
    }
    return undefined;
  }

  private dislikedPhrase(item: ItemView | undefined): string | undefined {
    if (!item) return undefined;
    for (const [k, v] of Object.entries(item.attributes)) {
      if (k === 'brand') continue;
      const wanted = this.goal.constraints[k];
      if ((wanted !== undefined && wanted !== v) || this.prefs.attributePreference(k, v) < 0) return valuePhrase(k, v);
    }
    return undefined;
  }

  private realise(planned: string, agentText: string, opening: boolean): { act: string; fill: SlotFill; outcome?: Outcome } {
    const fill: SlotFill = { category: this.task };
    const main = mainAct(planned);
    const hasItems = this.shown.length > 0;
    const top = this.shown[0];

    if (planned === 'Complete.Abandon') return { act: planned, fill, outcome: 'abandoned' };

    // Known-item mode: a user who sees the item it is looking for takes it, whatever it planned.
    if (this.target && hasItems && !opening) {
      const hit = this.shown.slice(0, this.sim.options.browseDepth ?? 3).find((i) => i.item_id === this.target!.item_id);
      if (hit) {
        fill.item = hit.title ?? hit.item_id;
        return { act: 'Note.Accept', fill, outcome: 'accepted' };
      }
    }

    if ((main === 'Note' || main === 'Complete') && hasItems && !opening) {
      const verdict = this.judge();
      if (verdict.act === 'Note.Accept') {
        fill.item = verdict.item?.title ?? verdict.item?.item_id;
        return { act: 'Note.Accept', fill, outcome: 'accepted' };
      }
      if (main === 'Note') {
        fill.item = verdict.item?.title ?? verdict.item?.item_id;
        fill.liked = this.likedPhrase(verdict.item);
        fill.disliked = this.dislikedPhrase(verdict.item);
        return { act: planned === 'Note' || planned.startsWith('Note.') ? verdict.act : planned, fill };
      }
    }
    if (main === 'Complete') return { act: 'Complete', fill, outcome: 'ended' };
    if (main === 'Note') return this.realise(this.fallbackWithoutItems(), agentText, opening);

    if (main === 'Disclose') {
      if (planned === 'Disclose.NonDisclose') return { act: planned, fill };
      const next = this.nextConstraint(agentText);
      if (next) {
        this.disclosed.add(next[0]);
        this.stated = next;
        fill.value = valuePhrase(next[0], next[1]);
        fill.attribute = readableAttribute(next[0]);
        return { act: 'Disclose', fill };
      }
      const asked = this.asked(agentText);
      if (asked.length || opening) return { act: 'Disclose.NonDisclose', fill };
      const names = Object.keys(this.goal.constraints).filter((k) => k !== 'category');
      if (names.length) {
        const a = this.rng.pick(names);
        fill.value = valuePhrase(a, String(this.goal.constraints[a]));
        return { act: 'Disclose', fill };
      }
      return { act: 'Disclose.NonDisclose', fill };
    }

    if (main === 'Reveal') {
      const sub = planned === 'Reveal' ? 'Reveal.Refine' : planned;
      const change = this.reviseGoal(sub);
      if (!change) return this.realise('Disclose', agentText, opening);
      if (sub !== 'Reveal.Expand') this.stated = change;
      fill.value = valuePhrase(change[0], change[1]);
      fill.attribute = readableAttribute(change[0]);
      return { act: sub, fill };
    }

    if (main === 'Inquire') {
      if (!hasItems) return { act: 'Inquire.List', fill };
      if (planned === 'Inquire.Compare' && this.shown.length >= 2) {
        fill.item = this.shown[0].title ?? this.shown[0].item_id;
        fill.item2 = this.shown[1].title ?? this.shown[1].item_id;
        return { act: planned, fill };
      }
      if (planned === 'Inquire.Subset') {
        const names = Object.keys(this.goal.constraints).filter((k) => k !== 'category');
        if (names.length) {
          const a = this.rng.pick(names);
          fill.value = valuePhrase(a, String(this.goal.constraints[a]));
          return { act: planned, fill };
        }
      }
      if (planned === 'Inquire.Similar' || planned === 'Inquire.Compare' || planned === 'Inquire.Subset') {
        fill.item = top.title ?? top.item_id;
        return { act: 'Inquire.Similar', fill };
      }
      return { act: planned === 'Inquire' ? 'Inquire.List' : planned, fill };
    }

    if (main === 'Navigate') {
      if (!hasItems) return { act: 'Inquire.List', fill };
      if (planned === 'Navigate.Back' && this.previousShown.length === 0) return { act: 'Navigate.More', fill };
      if (planned === 'Navigate' || planned === 'Navigate.Ask') {
        const pending = this.goal.requests.filter((r) => !(this.goal.fulfilled_requests ?? []).includes(r));
        const attr = pending.length ? pending[0] : this.rng.pick(this.goal.requests.length ? this.goal.requests : ['material']);
        this.lastAskedRequest = attr;
        fill.attribute = readableAttribute(attr);
        fill.item = top.title ?? top.item_id;
        return { act: 'Navigate', fill };
      }
      return { act: planned, fill };
    }
    return { act: planned, fill };
  }

  private fallbackWithoutItems(): string {
    const names = Object.keys(this.goal.constraints).filter((k) => k !== 'category' && !this.disclosed.has(k));
    return names.length ? 'Disclose' : 'Inquire.List';
  }

  /** Changes the goal for a Reveal act; returns the attribute and value spoken. */
  private reviseGoal(sub: string): [string, string] | undefined {
    const catalog = this.sim.options.catalog;
    const names = Object.keys(this.goal.constraints).filter((k) => k !== 'category');
    if (sub === 'Reveal.Refine') {
      for (const [attr, value] of this.prefs.likedValues()) {
        if (!CONSTRAINT_ATTRIBUTES.includes(attr) || attr in this.goal.constraints) continue;
        this.goal.constraints[attr] = value;
        this.disclosed.add(attr);
        return [attr, value];
      }
      const undisclosed = names.filter((n) => !this.disclosed.has(n));
      const attr = undisclosed.length ? undisclosed[0] : names.length ? this.rng.pick(names) : undefined;
      if (!attr) return undefined;
      this.disclosed.add(attr);
      return [attr, String(this.goal.constraints[attr])];
    }
    if (names.length === 0) return undefined;
    const attr = this.rng.pick(names);
    const current = String(this.goal.constraints[attr]);
    const options = attributeValuesOf(catalog, attr).filter((v) => v !== current && this.prefs.attributePreference(attr, v) >= 0);
    if (options.length === 0) return undefined;
    const liked = options.filter((v) => this.prefs.attributePreference(attr, v) > 0);
    const value = liked.length ? liked[0] : this.rng.pick(options);
    if (sub === 'Reveal.Revise') {
      if (this.target) return [attr, current];
      this.goal.constraints[attr] = value;
    }
    this.disclosed.add(attr);
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
    if (!last || !last.agenda || !last.user_act) throw new Error('cannot restore the agenda user: the turn has no agenda trace');
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
    for (const t of traces) if (t.preferences) this.prefs.restore(t.preferences);
    this.prefs.delta();
    for (const t of traces) {
      if (t.satisfaction !== undefined && t.nlu) this.agentTurns++;
    }
    this.appropriateTurns = Math.round((last.satisfaction ?? 1) * this.agentTurns);
    // The last prefix turn's agent response has not been read yet: `respond` gets it next.
    const shownTurns = prefix.slice(0, -1).filter((t) => t.recommendations && t.recommendations.length);
    const lastShown = shownTurns[shownTurns.length - 1];
    const before = shownTurns[shownTurns.length - 2];
    if (lastShown?.recommendations) this.shown = lastShown.recommendations.map((r) => viewOf(r, this.sim.options.catalog));
    if (before?.recommendations) this.previousShown = before.recommendations.map((r) => viewOf(r, this.sim.options.catalog));
    if (last.target) {
      const t = this.sim.options.catalog.get(last.target.item_id);
      if (t) this.setTarget({ target: t, alternatives: last.target.alternatives ?? [] });
    }
    this.previousUtterance = prefix[prefix.length - 1]?.user_utterance;
  }
}
