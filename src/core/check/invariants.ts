/**
 * Named behavioural invariants of simulated conversations. Each one reads only what a SimLens JSONL
 * line carries (turns, carousels, outcome, metadata and the simulator trace) and says "not
 * applicable" (undefined) when the fields it needs are absent, so a run of another tool is never
 * passed by default. Sources: Zhang & Balog, KDD'20 (agenda-based user, CIR6/QRFA, PKG); Kim et al.,
 * PEPPER (target-free user, preference coverage); Vlachou et al., Fashion-AlterEval (meta-simulators);
 * and SimLens' own run rules (README, src/core/run).
 */
import { conversationTask, type RecommendedItem, type SimulatorTrace, type Turn } from '../model';
import type { ConversationContext, Invariant, InvariantFinding, ItemFacts, ItemLookup, Violation } from './types';
import { clausePolarity, mentionStarts, mentions, mentionsWords, phraseWords, quote, show } from './text';
import { statesItemValue, titleShowsValue } from '../text/saysValue';
import { questionSentences } from '../text/sentences';
import { tokenize } from '../text/tokenize';
import { toConvApparelUserAct } from '../taxonomy/acts';
import answersJson from '../sim/users/agenda/appropriate-answers.json';

/**
 * An accept in any taxonomy a simulator records its user act in: `Note.Accept` (agenda users) or
 * ConvApparel's `accept_recommendation` (LLM users), in any spelling or alias.
 */
function isAcceptAct(act: string | undefined): boolean {
  if (typeof act !== 'string') return false;
  if (act === 'Note.Accept') return true;
  let v = ACCEPT_CACHE.get(act);
  if (v === undefined) {
    if (ACCEPT_CACHE.size > 5000) ACCEPT_CACHE.clear();
    v = toConvApparelUserAct(act) === 'accept_recommendation';
    ACCEPT_CACHE.set(act, v);
  }
  return v;
}
/** Act labels are few and repeat on every turn: their reading is cached. */
const ACCEPT_CACHE = new Map<string, boolean>();
const CONVAPPAREL_CACHE = new Map<string, string>();

/** `toConvApparelUserAct`, cached. */
function convApparelOf(act: string): string {
  let v = CONVAPPAREL_CACHE.get(act);
  if (v === undefined) {
    if (CONVAPPAREL_CACHE.size > 5000) CONVAPPAREL_CACHE.clear();
    v = toConvApparelUserAct(act);
    CONVAPPAREL_CACHE.set(act, v);
  }
  return v;
}

// ---------------------------------------------------------------------------------------------
// Small readers

type Loose = Record<string, unknown>;

function mainOf(act: string): string {
  const dot = act.indexOf('.');
  return dot < 0 ? act : act.slice(0, dot);
}

/** Same act, allowing one side to be the main act of the other ("Note" vs "Note.Like"). */
function sameAct(a: string, b: string): boolean {
  if (a === b) return true;
  if (!a.includes('.')) return mainOf(b) === a;
  if (!b.includes('.')) return mainOf(a) === b;
  return false;
}

/** The strings of an array field (the array itself when it holds only strings: read it, do not mutate it). */
function stringArray(v: unknown): readonly string[] | undefined {
  if (!Array.isArray(v)) return undefined;
  for (const x of v) if (typeof x !== 'string') return v.filter((y): y is string => typeof y === 'string');
  return v as string[];
}

function disclosedOf(trace: SimulatorTrace | undefined): readonly string[] | undefined {
  if (!trace?.goal) return undefined;
  return stringArray((trace.goal as Loose)['disclosed']) ?? [];
}

export function saidConstraints(trace: SimulatorTrace | undefined): [string, string][] | undefined {
  const c = trace?.said?.constraints;
  if (!c || typeof c !== 'object') return undefined;
  const out: [string, string][] = [];
  for (const k in c) out.push([k, String((c as Record<string, unknown>)[k])]);
  return out;
}

function equalValue(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  return a === b || a.trim().toLowerCase() === b.trim().toLowerCase();
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** An item's facts as shown in a carousel (attributes flattened to strings). */
export function factsOfRecommendation(rec: RecommendedItem): ItemFacts {
  const attributes: Record<string, string> = {};
  const from = (rec.attributes ?? {}) as Record<string, unknown>;
  for (const k in from) {
    const v = from[k];
    if (typeof v === 'string') attributes[k] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') attributes[k] = String(v);
  }
  const price = (rec as { price?: unknown }).price;
  return {
    item_id: rec.item_id,
    title: rec.title,
    category: rec.category,
    attributes,
    ...(typeof price === 'number' ? { price } : {}),
  };
}

/** Whether an item's facts carry at least one attribute (without listing them). */
export function hasAttributes(f: ItemFacts): boolean {
  for (const _ in f.attributes) return true;
  return false;
}

/** Facts of carousel entries, per entry object (an entry is read by several invariants and turns). */
const SHOWN_FACTS = new WeakMap<object, ItemFacts>();

/** `factsOfRecommendation`, memoized per entry object (shared: read, do not mutate). */
export function shownFactsOf(rec: RecommendedItem): ItemFacts {
  let f = SHOWN_FACTS.get(rec);
  if (!f) {
    f = factsOfRecommendation(rec);
    SHOWN_FACTS.set(rec, f);
  }
  return f;
}

/** The facts of a carousel entry, completed from the catalog when the carousel omits its attributes. */
function factsAt(ctx: ConversationContext, rec: RecommendedItem): ItemFacts {
  const f = shownFactsOf(rec);
  if (f.category === undefined || !hasAttributes(f)) {
    const known = ctx.item(rec.item_id);
    if (known) return { ...known, ...(f.title ? { title: f.title } : {}) };
  }
  return f;
}

function userTurnCount(turns: readonly Turn[]): number {
  let n = 0;
  for (const t of turns) if (t.user_utterance !== undefined) n++;
  return n;
}

function finding(turns: number, violations: Violation[]): InvariantFinding {
  return { turns, violations };
}

function isSimulated(turns: readonly Turn[]): boolean {
  return turns.some((t) => t.trace !== undefined);
}

/** The end reasons (`trace.end_reason`, prefix match) that let a user leave without having seen an item. */
const DOCUMENTED_END_REASONS = ['patience', 'early_quit', 'max_turns', 'turn_cap'] as const;

function documentedEnd(reason: unknown): boolean {
  if (typeof reason !== 'string') return false;
  const r = reason.toLowerCase().replace(/[\s-]+/g, '_');
  return DOCUMENTED_END_REASONS.some((d) => r.startsWith(d));
}

/** The PEPPER preference coverage is recorded with three decimals. */
const COVERAGE_EPSILON = 0.0005;
/** The KDD'20 code's agenda rule: Disclose among the first five acts, at most twelve acts. */
const AGENDA_DISCLOSE_WITHIN = 5;
const AGENDA_MAX_LENGTH = 12;
/** `simlens simulate` defaults: 20 user turns, 10 with a meta-simulator (AlterEval's horizon), tolerance 2. */
const DEFAULT_MAX_TURNS = 20;
const ALTEREVAL_MAX_TURNS = 10;
const DEFAULT_META_TOLERANCE = 2;

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

// ---------------------------------------------------------------------------------------------
// The invariants

const disclosedValueStated: Invariant = {
  id: 'disclosed-value-stated',
  statement:
    "every value a user turn discloses (goal.disclosed gains, said.constraints) is stated in that turn's utterance",
  needs: 'trace.said.constraints or trace.goal.disclosed',
  source:
    "Zhang & Balog KDD'20 Sect. 4 (goal constraints are disclosed through the NLG); SimLens trace contract (trace.said)",
  check(ctx) {
    /** goal.disclosed of the last turn that carried it. */
    let prev: readonly string[] = [];
    let turns = 0;
    let any = false;
    const out: Violation[] = [];
    const all = ctx.conversation.turns;
    for (let i = 0; i < all.length; i++) {
      const turn = all[i];
      const tr = turn.trace;
      const disclosed = disclosedOf(tr);
      const said = ctx.said(i);
      if (disclosed === undefined && said === undefined) continue;
      any = true;
      let claims = 0;
      // What the turn says (said.constraints), then what its goal newly discloses beyond that.
      if (said !== undefined)
        for (const [attr, value] of said) {
          claims++;
          const v = statedIn(ctx, i, attr, value, 'said', turn.user_utterance);
          if (v) out.push(v);
        }
      if (disclosed !== undefined) {
        const constraints = tr?.goal?.constraints ?? {};
        for (let k = 0; k < disclosed.length; k++) {
          const attr = disclosed[k];
          // (an attribute listed twice is claimed once)
          if (prev.includes(attr) || constraints[attr] === undefined || disclosed.indexOf(attr) !== k) continue;
          const value = String(constraints[attr]);
          if (said?.some(([a, v]) => a === attr && equalValue(v, value))) continue;
          claims++;
          const v = statedIn(ctx, i, attr, value, 'newly disclosed in goal', turn.user_utterance);
          if (v) out.push(v);
        }
        prev = disclosed;
      }
      if (claims > 0) turns++;
    }
    return any ? finding(turns, out) : undefined;
  },
};

/** The violation when turn `i` does not state `attr`=`value` (not mentioned, or only negated). */
function statedIn(
  ctx: ConversationContext,
  i: number,
  attr: string,
  value: string,
  why: string,
  utterance: string | undefined,
): Violation | undefined {
  const want = phraseWords(value);
  const words = ctx.words(i);
  let how: 'none' | 'negated' | 'stated';
  if (!mentionsWords(words, want)) how = 'none';
  else if (!ctx.mayNegate(i)) how = 'stated';
  else how = clausePolarity(ctx.clauses(i), want);
  if (how === 'stated') return undefined;
  return {
    turn: i,
    detail: `${show(attr)}=${show(value)} (${why}) is ${how === 'none' ? 'not in' : 'only negated in'} the utterance ${quote(utterance)}`,
  };
}

const noEndBeforeRecommendation: Invariant = {
  id: 'no-end-before-recommendation',
  statement:
    'a user ends the dialogue only after being shown an item, unless its patience ran out or trace.end_reason names a documented parameter (patience, early_quit, max_turns, turn_cap)',
  needs: 'a trace on the last turn and a user outcome (accepted, ended, abandoned)',
  source:
    "SimLens rule (a shopper leaves unserved only when out of patience or by a configured limit); Zhang & Balog KDD'20 Sect. 4.1 (patience)",
  check(ctx) {
    const { conversation: conv } = ctx;
    const turns = conv.turns;
    const last = turns[turns.length - 1];
    const tr = last?.trace;
    if (!tr) return undefined;
    const meta = conv.metadata ?? {};
    if (meta['turn_cap'] !== undefined || meta['error'] !== undefined) return undefined; // the run ended it
    // The run's recorded outcome says who ended it; without one this cannot be told.
    const outcome = conv.outcome;
    if (outcome === undefined || outcome === 'agent_error' || outcome === 'simulator_error') return undefined;
    const seen = turns.slice(0, -1).some((t) => (t.recommendations?.length ?? 0) > 0);
    if (seen) return finding(1, []);
    const endReason = (tr as Loose)['end_reason'];
    const outOfPatience = tr.user_act === 'Complete.Abandon' || (typeof tr.patience === 'number' && tr.patience <= 0);
    if (outOfPatience || documentedEnd(endReason)) return finding(1, []);
    return finding(1, [
      {
        turn: turns.length - 1,
        detail: `the user ended (${outcome}, act ${show(tr.user_act ?? '?')}) without having been shown any item; end_reason ${endReason === undefined ? 'absent' : show(endReason)}`,
      },
    ]);
  },
};

const agendaPullOrder: Invariant = {
  id: 'agenda-pull-order',
  statement:
    "a pull takes the top of the previous turn's agenda (Complete only when the agenda is empty) and leaves the rest, except that a meta user's Reveal.Revise (the change a target switch made, said first) and a Disclose answering an agent's elicitation leave a pulled act other than a query formulation on the agenda; a push leaves the pending agenda unchanged, or puts the act the agent did not answer back on top, and an item question (Navigate about a shown item) the agent's answer left unanswered (no request fulfilled) always goes back on top",
  needs: 'trace.agenda with pull/push operations (an agenda-based user)',
  source: "Zhang & Balog KDD'20 Sect. 4.1 (agenda as a stack: pull/push; the dialogue ends when the agenda is empty)",
  check(ctx) {
    let prev: readonly string[] | undefined;
    let turns = 0;
    let any = false;
    const out: Violation[] = [];
    ctx.conversation.turns.forEach((turn, i) => {
      const tr = turn.trace;
      const agenda = stringArray(tr?.agenda);
      if (!tr || agenda === undefined) {
        prev = undefined;
        return;
      }
      any = true;
      if (prev !== undefined && (tr.operation === 'pull' || tr.operation === 'push')) {
        turns++;
        const accepted = isAcceptAct(tr.user_act);
        if (tr.operation === 'pull') {
          const pulled = tr.pulled?.[0];
          const top = prev[0];
          const rest = prev.slice(1);
          if (pulled === undefined) out.push({ turn: i, detail: 'a pull that records no pulled act' });
          else if (top === undefined ? mainOf(pulled) !== 'Complete' : !sameAct(pulled, top)) {
            out.push({
              turn: i,
              detail: `pulled ${show(pulled)} but the previous agenda's top was ${top === undefined ? '(empty: Complete)' : show(top)}`,
            });
          } else if (mainOf(pulled) === 'Complete' && rest.length > 0) {
            out.push({
              turn: i,
              detail: `Complete pulled while ${rest.length} act(s) were pending: ${show(rest.join(', '))}`,
            });
          }
          // A meta user says a switch's change before anything else: the act it pulled waits on top.
          // An elicitation is answered first (a Disclose after an agent's Inquire.Elicit): a pulled act
          // that is not itself a query formulation waits on top.
          const answersFirst =
            pulled !== undefined &&
            answersElicitationFirst(tr, pulled, ctx.conversation.turns[i - 1], ctx.conversation.turns[i - 1]?.trace);
          const deferred =
            sameList(agenda, prev) && ((tr.target !== undefined && isRevision(tr.user_act)) || answersFirst);
          if (!sameList(agenda, rest) && !(accepted && agenda.length === 0) && !deferred) {
            out.push({
              turn: i,
              detail: `after the pull the agenda is [${show(agenda.join(', '))}], expected [${show(rest.join(', '))}]`,
            });
          } else if (
            answersFirst &&
            !deferred &&
            prev.length > 0 &&
            typeof tr.user_act === 'string' &&
            mainOf(tr.user_act) !== mainOf(pulled!) &&
            // a request to repeat an agent turn the user could answer is moot: it is dropped
            pulled !== 'Navigate.Repeat' &&
            (tr as Loose)['planned_act'] !== 'Navigate.Repeat'
          ) {
            // it answered the agent's question instead of the pulled act: that act is still to do
            out.push({
              turn: i,
              detail: `${show(tr.user_act)} answered the agent's question instead of the pulled ${show(pulled)}, which left the agenda unsaid (expected [${show(prev.join(', '))}])`,
            });
          } else if (
            !deferred &&
            tr.target !== undefined &&
            isRevision(tr.user_act) &&
            pulled !== undefined &&
            mainOf(pulled) !== 'Reveal' &&
            prev.length > 0
          ) {
            // a meta user's revision on a pull of another kind is a switch's change said first: the
            // pulled act waits on top (seventeenth round; caught a turn late before)
            out.push({
              turn: i,
              detail: `${show(tr.user_act)} said a switch's change instead of the pulled ${show(pulled)}, which left the agenda unsaid (expected [${show(prev.join(', '))}])`,
            });
          }
        } else if (
          !sameList(agenda, prev) &&
          !(accepted && agenda.length === 0) &&
          !unansweredBackOnTop(agenda, prev, ctx.conversation.turns[i - 1]?.trace?.user_act)
        ) {
          out.push({
            turn: i,
            detail: `a push changed the pending agenda from [${show(prev.join(', '))}] to [${show(agenda.join(', '))}]`,
          });
        } else if (
          tr.operation === 'push' &&
          !accepted &&
          itemQuestionUnanswered(ctx, i) &&
          !unansweredBackOnTop(agenda, prev, 'Navigate')
        ) {
          // KDD'20: the item question the agent did not answer goes back on the agenda (under the
          // replacement act): the user asks it again later; it does not vanish
          out.push({
            turn: i,
            detail: `the item question of turn ${i - 1} went unanswered (no request fulfilled) but is not back on top of the agenda [${show(agenda.join(', '))}]`,
          });
        }
        const performed = performedMismatch(tr);
        if (performed) out.push({ turn: i, detail: performed });
      }
      prev = agenda;
    });
    return any ? finding(turns, out) : undefined;
  },
};

/** Words by which an agent's question asks about an attribute (the checker's own reading). */
const ASKED_CUES: Record<string, readonly string[]> = {
  colour: ['colour', 'color', 'colours', 'colors', 'shade', 'shades'],
  material: ['material', 'materials', 'fabric', 'fabrics'],
  style: ['style', 'styles', 'vibe', 'look'],
  // ("range" alone is no cue: "What price range feels comfortable?" asks about price)
  // where they will be worn is the occasion, whom they are for the gender (as the users read them)
  gender: ['gender', 'men', 'women', "men's", "women's", 'mens', 'womens', 'unisex', 'section', 'cut', 'whom'],
  occasion: ['occasion', 'occasions', 'event', 'events', 'wear', 'wearing', 'worn', 'use'],
  price_band: ['price', 'budget', 'spend', 'afford', 'pricey', 'cost'],
  type: ['type', 'types', 'kind', 'kinds', 'sort', 'sorts'],
};

/** Does a question sentence of `text` ask about `attribute` (its name, or a cue word of it)? */
function asksAbout(text: string, attribute: string): boolean {
  const cues = new Set([...(ASKED_CUES[attribute] ?? []), ...attribute.toLowerCase().split('_')]);
  return tokenize(questionSentences(text)).some((w) => cues.has(w));
}

/**
 * The one deferral of an agenda pull besides a meta user's revision (docs/simulation.md, rule 14):
 * the agent's turn was an elicitation (the user's NLU read Inquire.Elicit, and its text asks a
 * question) and the user answered it first with a Disclose stating a value, not said before, of an
 * attribute the question asks about; the act it pulled is not itself a query formulation (that would
 * be the answer), nor an opinion of items still on screen or leaving them (those come first). Or
 * (fourteenth round) it answered with "no preference" (Disclose.NonDisclose) a question only about
 * attributes its goal does not hold, and the pulled act is not a revision, nor (with items on screen)
 * a "say that again", an opinion of the items or leaving them.
 */
function answersElicitationFirst(
  tr: SimulatorTrace,
  pulled: string,
  agentTurn: Turn | undefined,
  before: SimulatorTrace | undefined,
): boolean {
  const main = mainOf(pulled);
  // "No preference" on what the question asks, none of it in the goal: the pulled query
  // formulation (Disclose, or a Reveal other than a revision) waits on top
  if (tr.user_act === 'Disclose.NonDisclose' && tr.nlu?.agent_act === 'Inquire.Elicit') {
    const planned = (tr as Loose)['planned_act'];
    const step = typeof planned === 'string' ? planned : pulled;
    if (step === 'Reveal.Revise' || step === 'Disclose.NonDisclose') return false;
    if (
      (agentTurn?.recommendations ?? []).length > 0 &&
      (main === 'Note' || main === 'Complete' || step === 'Navigate.Repeat')
    )
      return false;
    return asksOnlyOffGoal(agentTurn?.assistant_utterance ?? '', tr.goal?.constraints);
  }
  if (tr.user_act !== 'Disclose' || tr.nlu?.agent_act !== 'Inquire.Elicit') return false;
  if (main === 'Reveal' || main === 'Disclose') return false;
  const question = agentTurn?.assistant_utterance ?? '';
  if (!question.includes('?')) return false;
  if ((agentTurn?.recommendations ?? []).length > 0 && (main === 'Note' || main === 'Complete')) return false;
  const disclosed = disclosedOf(before) ?? [];
  return (saidConstraints(tr) ?? []).some(
    ([attribute]) => attribute !== 'category' && !disclosed.includes(attribute) && asksAbout(question, attribute),
  );
}

/**
 * Whether a question (sentences with "?") asks about some attribute, every one of them absent from
 * the goal's constraints (the category aside; read with the checker's own cue words). Without the
 * goal in the trace: false.
 */
function asksOnlyOffGoal(text: string, goal: Readonly<Record<string, unknown>> | undefined): boolean {
  if (!goal || !text.includes('?')) return false;
  const asked = Object.keys(ASKED_CUES).filter((a) => asksAbout(text, a));
  return asked.length > 0 && asked.every((a) => !(a in goal));
}

/**
 * KDD'20: an act the agent did not answer goes back on the agenda. After a push the agenda may be
 * the previous one with the previous turn's act (its main act) back on top.
 */
/**
 * Did the user ask about a shown item on the turn before `at` (a `Navigate` naming it in
 * said.items, with goal requests to ask about) and does turn `at` still have no request newly
 * fulfilled, with patience left to go on?
 */
function itemQuestionUnanswered(ctx: ConversationContext, at: number): boolean {
  const before = ctx.conversation.turns[at - 1]?.trace;
  const now = ctx.conversation.turns[at]?.trace;
  if (!before || !now || before.user_act !== 'Navigate') return false;
  if (!stringArray(before.said?.items)?.length || !stringArray(before.goal?.requests)?.length) return false;
  if (typeof now.patience !== 'number' || now.patience <= 0) return false;
  const done = (t: SimulatorTrace) => stringArray(t.goal?.fulfilled_requests)?.length ?? 0;
  return done(now) <= done(before);
}

function unansweredBackOnTop(agenda: readonly string[], prev: readonly string[], asked: string | undefined): boolean {
  return (
    asked !== undefined &&
    agenda.length === prev.length + 1 &&
    mainOf(agenda[0]) === mainOf(asked) &&
    sameList(agenda.slice(1), prev)
  );
}

/**
 * The act a turn performs must be the one its agenda step took (pulled or pushed), or the step's
 * act realised differently with `planned_act` naming the step's act (e.g. Note with nothing shown).
 */
function performedMismatch(tr: SimulatorTrace): string | undefined {
  const step = tr.operation === 'pull' ? tr.pulled?.[0] : tr.operation === 'push' ? tr.pushed?.[0] : undefined;
  const act = tr.user_act;
  if (step === undefined || typeof act !== 'string') return undefined;
  if (sameAct(step, act) || sameAct(mainOf(step), act)) return undefined;
  const planned = (tr as Loose)['planned_act'];
  if (typeof planned === 'string' && (sameAct(planned, step) || sameAct(mainOf(planned), step))) return undefined;
  return `performed ${show(act)} but the ${tr.operation} took ${show(step)}${typeof planned === 'string' ? ` (planned ${show(planned)})` : ' and no planned_act says why'}`;
}

/** The accepted item(s) of an accepting turn: trace.said.items, else the shown item whose title the utterance names. */
function acceptedCandidates(ctx: ConversationContext, at: number): ItemFacts[] {
  const turns = ctx.conversation.turns;
  const said = stringArray(turns[at].trace?.said?.items);
  if (said?.length) {
    const out: ItemFacts[] = [];
    for (const id of said) {
      let f: ItemFacts | undefined;
      for (let j = at - 1; j >= 0 && !f; j--) {
        const rec = turns[j].recommendations?.find((r) => r.item_id === id);
        if (rec) f = factsAt(ctx, rec);
      }
      f ??= ctx.item(id);
      if (f) out.push(f);
    }
    return out;
  }
  const text = turns[at].user_utterance ?? '';
  for (let j = at - 1; j >= 0; j--) {
    const recs = turns[j].recommendations ?? [];
    const hits = recs.filter((r) => r.title && mentions(text, r.title));
    if (hits.length) {
      const longest = Math.max(...hits.map((r) => r.title!.length));
      return hits.filter((r) => r.title!.length === longest).map((r) => factsAt(ctx, r));
    }
  }
  return [];
}

/** What the user has told the agent by turn `at`: per attribute, the values it stated (an Expand adds, anything else replaces). */
function statedUpTo(ctx: ConversationContext, at: number): Map<string, string[]> | undefined {
  const turns = ctx.conversation.turns;
  let any = false;
  const out = new Map<string, string[]>();
  for (let j = 0; j <= at; j++) {
    const said = ctx.said(j);
    if (!said) continue;
    any = true;
    const expand = turns[j].trace?.user_act === 'Reveal.Expand';
    for (const [attr, value] of said) out.set(attr, expand ? [...(out.get(attr) ?? []), value] : [value]);
  }
  return any ? out : undefined;
}

/** `statedUpTo` and `relaxedUpTo` kept turn by turn: `fold` each turn in order, once. */
class SaidSoFar {
  /** Per attribute, the values the user stated (an Expand adds, anything else replaces). */
  readonly stated = new Map<string, string[]>();
  /** Attributes a Reveal.Expand took back and the user has not stated again. */
  readonly relaxed = new Set<string>();
  private disclosedPrev: readonly string[] | undefined;

  constructor(private readonly ctx: ConversationContext) {}

  fold(j: number): void {
    const tr = this.ctx.conversation.turns[j].trace;
    const expand = tr?.user_act === 'Reveal.Expand';
    const disclosed = disclosedOf(tr);
    if (expand && disclosed !== undefined && this.disclosedPrev !== undefined)
      for (const a of this.disclosedPrev) if (!disclosed.includes(a)) this.relaxed.add(a);
    for (const [a, v] of this.ctx.said(j) ?? []) {
      this.stated.set(a, expand ? [...(this.stated.get(a) ?? []), v] : [v]);
      if (!expand) this.relaxed.delete(a);
    }
    if (disclosed !== undefined) this.disclosedPrev = disclosed;
  }
}

/**
 * Attributes a relaxing turn (Reveal.Expand) took back from the disclosed goal up to turn `at`
 * and the user did not state again afterwards. Only a relaxation takes a constraint back; a goal
 * that silently forgets one still holds the user to it.
 */
function relaxedUpTo(ctx: ConversationContext, at: number): Set<string> {
  const turns = ctx.conversation.turns;
  const out = new Set<string>();
  let before: readonly string[] | undefined;
  for (let j = 0; j <= at; j++) {
    const tr = turns[j].trace;
    const disclosed = disclosedOf(tr);
    if (tr?.user_act === 'Reveal.Expand' && disclosed !== undefined && before !== undefined) {
      for (const a of before) if (!disclosed.includes(a)) out.add(a);
    }
    for (const [a] of ctx.said(j) ?? []) if (tr?.user_act !== 'Reveal.Expand') out.delete(a);
    if (disclosed !== undefined) before = disclosed;
  }
  return out;
}

/** Values the user said it does not want up to turn `at` (with the turn), unless it stated them positively later. */
function negatedUpTo(ctx: ConversationContext, at: number): Map<string, number> {
  const turns = ctx.conversation.turns;
  const out = new Map<string, number>();
  for (let j = 0; j <= at; j++) {
    const tr = turns[j].trace;
    for (const [, v] of ctx.said(j) ?? []) {
      for (const n of [...out.keys()])
        if (equalValue(n.includes('=') ? n.slice(n.indexOf('=') + 1) : n, v)) out.delete(n);
    }
    for (const n of stringArray(tr?.said?.negated) ?? []) out.set(n, j);
  }
  return out;
}

const NOTHING_OWNED: ReadonlySet<string> = new Set();

/**
 * The items the user owns by each turn: every `consumed_items` of a preference state (snapshot or
 * delta: PEPPER's and the PKG's rated history, and anything a later state adds) on that turn or an
 * earlier one. Entry i is shared with entry i - 1 when turn i adds nothing.
 */
function ownedByTurn(ctx: ConversationContext): readonly ReadonlySet<string>[] {
  const out: ReadonlySet<string>[] = [];
  let owned = NOTHING_OWNED;
  for (const t of ctx.conversation.turns) {
    const ids = t.trace?.preferences?.consumed_items;
    if (Array.isArray(ids) && ids.some((id) => typeof id === 'string' && !owned.has(id))) {
      const next = new Set(owned);
      for (const id of ids) if (typeof id === 'string') next.add(id);
      owned = next;
    }
    out.push(owned);
  }
  return out;
}

const acceptedMeetsConstraints: Invariant = {
  id: 'accepted-meets-constraints',
  statement:
    'an accepted item is in the task category, has every value the user disclosed and did not take back with a Reveal.Expand (said.constraints, goal.disclosed), every value of its goal not said yet (goal.constraints), and no value it said it does not want (said.negated); it is not an item the user owns by then (preferences.consumed_items of any state so far)',
  needs: 'an accept (trace.user_act) whose item is known (trace.said.items or a shown title in the text)',
  source:
    "Zhang & Balog KDD'20 Sect. 4.1-4.3 (the goal constraints C define an acceptable item; a consumed item is noted as seen, not taken); Kim et al., PEPPER (the items a user is after are held out of its history); SimLens checkContent rule",
  check(ctx) {
    const conv = ctx.conversation;
    const ownedAt = ownedByTurn(ctx);
    let turns = 0;
    let any = false;
    const out: Violation[] = [];
    conv.turns.forEach((turn, i) => {
      const tr = turn.trace;
      if (!tr || !isAcceptAct(tr.user_act)) return;
      const candidates = acceptedCandidates(ctx, i);
      if (candidates.length === 0) return;
      any = true;
      turns++;
      const task =
        tr.goal?.constraints?.['category'] !== undefined
          ? String(tr.goal.constraints['category'])
          : conversationTask(conv);
      // What the user told the agent (said), restricted to what its goal still counts as disclosed (a
      // relaxing Expand takes a value back); values disclosed but never in `said` come from the goal.
      const wanted = new Map<string, string[]>();
      const stated = statedUpTo(ctx, i);
      const disclosed = disclosedOf(tr);
      const constraints = tr.goal?.constraints ?? {};
      const takenBack = relaxedUpTo(ctx, i);
      for (const [a, v] of stated ?? []) if (a !== 'category' && !takenBack.has(a)) wanted.set(a, v);
      for (const a of disclosed ?? []) {
        if (a !== 'category' && !wanted.has(a) && constraints[a] !== undefined) wanted.set(a, [String(constraints[a])]);
      }
      // The goal's constraints the user has not said yet hold too: a user accepts only an item that
      // meets its information need, said or not (KDD'20 Sect. 4.3).
      const hidden = new Map<string, string>();
      for (const [a, v] of Object.entries(constraints)) {
        if (a !== 'category' && v !== undefined && v !== null && !wanted.has(a) && !takenBack.has(a))
          hidden.set(a, String(v));
      }
      const negated = negatedUpTo(ctx, i);
      const problems = (item: ItemFacts): string[] => {
        const p: string[] = [];
        if (task !== undefined && item.category !== undefined && !equalValue(item.category, task))
          p.push(`category ${show(item.category)} is not the task ${show(task)}`);
        if (ownedAt[i].has(item.item_id)) p.push('the user already owns it (preferences.consumed_items)');
        for (const [a, values] of wanted) {
          const have = item.attributes[a];
          if (have !== undefined && !values.some((v) => equalValue(v, have)))
            p.push(`${show(a)}=${show(have)}, disclosed ${show(values.join('|'))}`);
        }
        for (const [a, v] of hidden) {
          const have = item.attributes[a];
          if (have !== undefined && !equalValue(v, have))
            p.push(`${show(a)}=${show(have)}, the goal (not yet said) wants ${show(v)}`);
        }
        for (const [n, at] of negated) {
          const hit = negatedMatch(item, n);
          if (hit) p.push(`${show(hit)}, which the user negated on turn ${at}`);
        }
        return p;
      };
      const verdicts = candidates.map(problems);
      if (verdicts.every((p) => p.length > 0))
        out.push({ turn: i, detail: `accepted ${show(candidates[0].item_id)}: ${verdicts[0].join('; ')}` });
    });
    return any ? finding(turns, out) : undefined;
  },
};

/** A turn that says it changes a value it stated before ("Actually, make that X instead"). */
function isRevision(act: unknown): boolean {
  return typeof act === 'string' && (act === 'Reveal.Revise' || act.startsWith('Reveal.Revise.'));
}

const noSilentContradiction: Invariant = {
  id: 'no-silent-contradiction',
  statement:
    "a user that states a value for an attribute it already stated (said.constraints) states the same value, unless that turn is a revision (Reveal.Revise); a Reveal.Expand adds the values it says and takes back the constraints it drops from goal.disclosed, and an attribute it takes back stays relaxed: a later turn states a value for it only as a revision (Reveal.Revise) or another Reveal.Expand; a value a turn states is its goal's value on that turn (goal.constraints), a disclosed goal value changes only on a turn that says the new value, and on every turn the goal's value of an attribute the user said is the last value it said (meta users too: a target switch changes it only with a Reveal.Revise that says it)",
  needs: 'trace.said.constraints',
  source:
    "Zhang & Balog KDD'20 Sect. 4.1 (one goal constraint per slot; Reveal.Revise is the act that changes it); SimLens docs/simulation.md (one value per attribute)",
  check(ctx) {
    const last = new Map<string, string[]>();
    /** What the user stated last per attribute, before this turn (the revision's baseline). */
    const previous = new Map<string, string>();
    let prevGoal: Record<string, unknown> | undefined;
    const negatedBefore = new Set<string>();
    let disclosedBefore: readonly string[] | undefined;
    let turns = 0;
    let any = false;
    const out: Violation[] = [];
    /** Attributes this turn already has a violation for (not reported twice). */
    const reported = new Set<string>();
    /** Attributes a Reveal.Expand took back and no revision has stated since. */
    const relaxed = new Set<string>();
    /**
     * The goal holds the user to the last value it said for each attribute (not taken back by a
     * Reveal.Expand), on every turn, meta users included: a target switch changes a said goal
     * value only on the turn that says the new one (a Reveal.Revise), never silently.
     */
    const goalAgainstSaid = (i: number, goal: Record<string, unknown> | undefined, act: unknown): boolean => {
      if (!goal) return false;
      let hit = false;
      for (const [a, values] of last) {
        const want = goal[a];
        if (a === 'category' || reported.has(a) || want === undefined || want === null) continue;
        if (values.some((v) => equalValue(v, String(want)))) continue;
        hit = true;
        out.push({
          turn: i,
          detail: `its goal wants ${show(a)}=${show(want)} but the user last said ${show(values.join('|'))} and has not said the change (act ${show(typeof act === 'string' ? act : '?')})`,
        });
      }
      return hit;
    };
    ctx.conversation.turns.forEach((turn, i) => {
      const tr = turn.trace;
      const act = tr?.user_act;
      const expand = act === 'Reveal.Expand';
      const disclosed = disclosedOf(tr);
      reported.clear();
      const goalBefore = prevGoal;
      const disclosedEarlier = disclosedBefore;
      if (tr?.goal?.constraints) prevGoal = tr.goal.constraints;
      const negatedEarlier = isRevision(act) ? new Set(negatedBefore) : negatedBefore;
      for (const n of stringArray(tr?.said?.negated) ?? []) negatedBefore.add(n.toLowerCase());
      // Only a relaxing turn takes a constraint back; a goal that drops one silently (a target
      // switch) still holds the user to what it said.
      if (expand && disclosed !== undefined && disclosedBefore !== undefined) {
        for (const attr of disclosedBefore)
          if (!disclosed.includes(attr)) {
            last.delete(attr);
            relaxed.add(attr);
          }
      }
      if (disclosed !== undefined) disclosedBefore = disclosed;
      const said = ctx.said(i);
      // Once relaxed, an attribute stays relaxed: stating a value for it again without a revision
      // requires it again silently (a Reveal.Expand may name values it is happy with).
      let reRequired = false;
      for (const [a, v] of said ?? []) {
        if (a === 'category' || !relaxed.has(a) || expand) continue;
        relaxed.delete(a);
        if (isRevision(act)) continue;
        reRequired = true;
        reported.add(a);
        out.push({
          turn: i,
          detail: `${show(a)}=${show(v)} (act ${show(act ?? '?')}) requires again an attribute the user relaxed with a Reveal.Expand, without a revision: ${quote(turn.user_utterance)}`,
        });
      }
      // A disclosed goal value changes only on a turn that says the new value (a revision); a meta
      // user's goal follows its target instead (meta-consistent-with-target checks that).
      const goalNow = tr?.goal?.constraints;
      let silentGoal = false;
      if (
        goalNow &&
        goalBefore &&
        disclosedEarlier &&
        !expand &&
        tr?.target === undefined &&
        tr?.switched_from === undefined
      ) {
        for (const a of disclosedEarlier) {
          const was = goalBefore[a];
          const now = goalNow[a];
          if (
            a === 'category' ||
            was === undefined ||
            was === null ||
            now === undefined ||
            now === null ||
            equalValue(String(was), String(now))
          )
            continue;
          if (said?.some(([x, v]) => x === a && equalValue(v, String(now)))) continue;
          silentGoal = true;
          reported.add(a);
          out.push({
            turn: i,
            detail: `the goal's disclosed ${show(a)} changes ${show(was)} -> ${show(now)} on a turn that does not say it (act ${show(act ?? '?')}): ${quote(turn.user_utterance)}`,
          });
        }
      }
      if (silentGoal) {
        any = true;
        turns++;
      }
      if (!said) {
        if (goalAgainstSaid(i, goalNow, act) && !silentGoal) {
          any = true;
          turns++;
        }
        return;
      }
      any = true;
      let restated = false;
      for (const [attr, value] of said) {
        const before = last.get(attr);
        if (before !== undefined) {
          restated = true;
          if (!isRevision(act) && !expand && !before.some((b) => equalValue(b, value))) {
            out.push({
              turn: i,
              detail: `${show(attr)}=${show(value)} (act ${show(act ?? '?')}) contradicts the earlier ${show(before.join('|'))} without a revision: ${quote(turn.user_utterance)}`,
            });
          }
        }
        last.set(attr, expand ? [...(before ?? []), value] : [value]);
      }
      if (isRevision(act) && !revisesSomething(said, previous) && !revisesGoal(said, tr, goalBefore, negatedEarlier)) {
        out.push({
          turn: i,
          detail: `labelled ${show(act)} but changes no value stated before: ${quote(turn.user_utterance)}`,
        });
      }
      // what the user says is what its goal wants on that turn: a goal that changes a value the
      // turn states (or states again) changed silently
      let againstGoal = false;
      if (goalNow && !silentGoal) {
        for (const [a, v] of said) {
          const want = goalNow[a];
          if (a === 'category' || want === undefined || want === null || equalValue(String(want), v)) continue;
          againstGoal = true;
          reported.add(a);
          out.push({
            turn: i,
            detail: `says ${show(a)}=${show(v)} but its goal on this turn wants ${show(want)} (a silent goal change): ${quote(turn.user_utterance)}`,
          });
        }
      }
      for (const [a, v] of said) previous.set(a, v);
      const held = goalAgainstSaid(i, goalNow, act);
      if ((restated || reRequired || isRevision(act) || againstGoal || held) && !silentGoal) turns++;
    });
    return any ? finding(turns, out) : undefined;
  },
};

/**
 * A revision of the goal: a said value that the goal did not hold on the previous turn (the goal
 * changed with it, as a meta user's does before taking a new target), or one the user had negated.
 */
function revisesGoal(
  said: readonly [string, string][],
  tr: SimulatorTrace | undefined,
  prevGoal: Record<string, unknown> | undefined,
  negated: Set<string>,
): boolean {
  const goal = tr?.goal?.constraints;
  return said.some(([a, v]) => {
    if (negated.has(v.toLowerCase()) || negated.has(`${a}=${v}`.toLowerCase())) return true;
    if (!goal || !prevGoal) return false;
    return equalValue(String(goal[a] ?? ''), v) && !equalValue(String(prevGoal[a] ?? ''), v);
  });
}

/** A revision changes at least one value stated earlier (a new value for an attribute already stated). */
function revisesSomething(said: readonly [string, string][], previous: Map<string, string>): boolean {
  return said.some(([a, v]) => previous.has(a) && !equalValue(previous.get(a), v));
}

const metaStatedMatchesTarget: Invariant = {
  id: 'meta-consistent-with-target',
  statement:
    "a meta-simulated user's goal constraints, stated values (this turn's and the last one it said earlier for each attribute) and negated values agree with its current target's attributes; on a last turn where the user leaves without taking anything, a goal value it said and has not revised may still be the one it said (it leaves before saying the switch's change); no member of its target group (target.item_id, target.alternatives) is an item it owns by then (preferences.consumed_items of any state so far)",
  needs: 'trace.target with a known target item (a meta user; --catalog for targets no carousel shows)',
  source:
    'Vlachou et al., Fashion-AlterEval Sect. 4 (the wrapped user critiques towards the current target, I3; a target is an item the user would buy); Kim et al., PEPPER (targets are held out of the history)',
  check(ctx) {
    let turns = 0;
    let any = false;
    const out: Violation[] = [];
    const ownedAt = ownedByTurn(ctx);
    const ownedReported = new Set<string>();
    // What the user has said up to this turn (as statedUpTo) and the attributes a Reveal.Expand
    // took back and it has not said again (as relaxedUpTo), kept turn by turn.
    const soFar = new SaidSoFar(ctx);
    const { stated, relaxed } = soFar;
    ctx.conversation.turns.forEach((turn, i) => {
      const tr = turn.trace;
      soFar.fold(i);
      const id = tr?.target?.item_id;
      if (!tr || typeof id !== 'string') return;
      // a target group member the user already owns is reported once, on the first turn naming it
      const owned = ownedAt[i];
      if (owned.size) {
        const alternatives = Array.isArray(tr.target?.alternatives) ? tr.target.alternatives : [];
        for (const member of [id, ...alternatives])
          if (typeof member === 'string' && owned.has(member) && !ownedReported.has(member)) {
            ownedReported.add(member);
            any = true;
            out.push({
              turn: i,
              detail: `${member === id ? 'target' : 'alternative'} ${show(member)} is an item the user already owns (preferences.consumed_items)`,
            });
          }
      }
      const target = ctx.item(id);
      if (!target) return;
      const goal = tr.goal?.constraints;
      const said = ctx.said(i);
      const negated = Array.isArray(tr.said?.negated)
        ? tr.said.negated.filter((v): v is string => typeof v === 'string')
        : [];
      if (!goal && !said && !negated.length) return;
      any = true;
      turns++;
      const check = (attr: string, value: string, where: string) => {
        const have = attr === 'category' ? target.category : target.attributes[attr];
        if (have !== undefined && !equalValue(have, value)) {
          out.push({
            turn: i,
            detail: `${where} ${show(attr)}=${show(value)} but target ${show(id)} has ${show(have)}`,
          });
        }
      };
      // A user that leaves on the turn its target switched says nothing more: the goal keeps what
      // it said (no-silent-contradiction holds the goal to that), the target moved on.
      const leaving =
        i === ctx.conversation.turns.length - 1 &&
        typeof tr.user_act === 'string' &&
        mainOf(tr.user_act) === 'Complete' &&
        !isAcceptAct(tr.user_act);
      if (goal)
        for (const a in goal) {
          const kept = leaving && stated.get(a)?.some((v) => equalValue(v, String(goal[a])));
          if (!kept) check(a, String(goal[a]), 'goal');
        }
      for (const [a, v] of said ?? []) if (!(goal && equalValue(String(goal[a] ?? ''), v))) check(a, v, 'said');
      // What the user said on earlier turns and has not revised holds too (a switch's change is
      // said on the switch turn, see docs/simulation.md), except on the leaving turn.
      if (!leaving)
        for (const [a, values] of stated) {
          if (relaxed.has(a) || said?.some(([b]) => b === a)) continue;
          if (goal && values.some((v) => equalValue(String(goal[a] ?? ''), v))) continue;
          const have = a === 'category' ? target.category : target.attributes[a];
          if (have !== undefined && !values.some((v) => equalValue(have, v)))
            out.push({
              turn: i,
              detail: `said ${show(a)}=${show(values.join('|'))} earlier and has not revised it, but target ${show(id)} has ${show(have)}`,
            });
        }
      // Saying "not X" about a value the target has contradicts the target just as much.
      for (const v of negated) {
        const hit = negatedMatch(target, v);
        if (hit)
          out.push({ turn: i, detail: `said it does not want ${show(v)} but target ${show(id)} has ${show(hit)}` });
      }
    });
    return any ? finding(turns, out) : undefined;
  },
};

function negatedMatch(item: ItemFacts, negated: string): string | undefined {
  const eq = negated.indexOf('=');
  if (eq > 0) {
    const attr = negated.slice(0, eq);
    const value = negated.slice(eq + 1);
    return equalValue(item.attributes[attr], value) ? `${attr}=${value}` : undefined;
  }
  const attrs = item.attributes;
  for (const k in attrs) if (equalValue(attrs[k], negated)) return `${k}=${attrs[k]}`;
  return undefined;
}

const negationHonoured: Invariant = {
  id: 'negation-honoured',
  statement:
    'local-good never shows, in its top three, an item with a value the user negated (trace.said.negated) on that turn or earlier and has not asked for since',
  needs: 'agent local-good (or --negation agents) and trace.said.negated',
  source: 'SimLens local-good contract (README "Simulation without LLMs": exclusions are hard filters)',
  check(ctx) {
    const conv = ctx.conversation;
    const agents = ctx.options.negationAgents ?? ['local-good'];
    if (!conv.agent || !agents.includes(conv.agent)) return undefined;
    let turns = 0;
    let any = false;
    const out: Violation[] = [];
    const active = new Map<string, number>();
    const turnList = conv.turns;
    for (let i = 0; i < turnList.length; i++) {
      const turn = turnList[i];
      const here = stringArray(turn.trace?.said?.negated);
      if (active.size > 0)
        for (const [, v] of ctx.said(i) ?? []) {
          for (const n of [...active.keys()])
            if (equalValue(n.includes('=') ? n.slice(n.indexOf('=') + 1) : n, v)) active.delete(n);
        }
      if (here) for (const n of here) active.set(n, i);
      if (here) any = true;
      const recs = turn.recommendations ?? [];
      if (active.size === 0 || recs.length === 0) continue;
      turns++;
      for (let k = 0; k < recs.length && k < 3; k++) {
        const rec = recs[k];
        const item = factsAt(ctx, rec);
        for (const [n, at] of active) {
          const hit = negatedMatch(item, n);
          if (hit)
            out.push({
              turn: i,
              detail: `item #${k + 1} ${show(rec.item_id)} has ${show(hit)}, which the user negated${at === i ? '' : ` on turn ${at}`}`,
            });
        }
      }
    }
    return any ? finding(turns, out) : undefined;
  },
};

const errorOnFailingTurn: Invariant = {
  id: 'agent-error-on-failing-turn',
  statement:
    'trace.error sits only on the turn whose agent call failed (no assistant answer, or an error_kind), never copied to the next turn',
  needs: 'trace.error or trace.error_kind (an agent failure)',
  source: 'SimLens run contract (src/core/failures.ts, SimulatorTrace.error)',
  check(ctx) {
    const turns = ctx.conversation.turns;
    if (!turns.some((t) => t.trace?.error !== undefined || t.trace?.error_kind !== undefined)) return undefined;
    let n = 0;
    const out: Violation[] = [];
    turns.forEach((turn, i) => {
      const tr = turn.trace;
      if (!tr || (tr.error === undefined && tr.error_kind === undefined)) return;
      n++;
      if (tr.error === undefined) {
        out.push({ turn: i, detail: `error_kind ${show(tr.error_kind)} without an error message` });
        return;
      }
      if ((turn.assistant_utterance ?? '') !== '' && tr.error_kind === undefined) {
        out.push({
          turn: i,
          detail: `error ${quote(tr.error, 40)} on a turn with an assistant answer and no error_kind`,
        });
      }
      const before = i > 0 ? turns[i - 1].trace?.error : undefined;
      if (before !== undefined && before === tr.error)
        out.push({ turn: i, detail: `the error of turn ${i - 1} is repeated on turn ${i}: ${quote(tr.error, 40)}` });
    });
    return finding(n, out);
  },
};

/** A turn's recorded error is the recommender's (an `agent_*` kind, or no kind: files before kinds). */
function isAgentErrorTurn(t: Turn): boolean {
  const kind = t.trace?.error_kind;
  return t.trace?.error !== undefined && (kind === undefined || String(kind).startsWith('agent_'));
}

/** The failure kinds of the simulator's side (src/core/failures.ts). */
const SIMULATOR_FAILURE_KINDS = new Set(['user_llm', 'simulator_error']);

const errorNoUserEffect: Invariant = {
  id: 'agent-error-no-user-effect',
  statement:
    'an agent failure ends the conversation on that turn with outcome agent_error; the user never reacts to it (patience unchanged)',
  needs: 'an agent failure (trace.error) or outcome agent_error',
  source: 'SimLens run contract (Outcome agent_error in src/core/model.ts: never a user outcome, never costs patience)',
  check(ctx) {
    const conv = ctx.conversation;
    const turns = conv.turns;
    const failed = turns.findIndex(isAgentErrorTurn);
    if (failed < 0 && conv.outcome !== 'agent_error') return undefined;
    const out: Violation[] = [];
    const last = turns.length - 1;
    if (failed < 0) {
      out.push({
        turn: last >= 0 ? last : undefined,
        detail: 'outcome agent_error but no turn records the agent error',
      });
      return finding(0, out);
    }
    if (failed < last) {
      out.push({ turn: failed + 1, detail: `the conversation went on after the agent failed on turn ${failed}` });
      const before = turns[failed].trace?.patience;
      const after = turns[failed + 1].trace?.patience;
      if (typeof before === 'number' && typeof after === 'number' && after < before) {
        out.push({ turn: failed + 1, detail: `patience fell from ${before} to ${after} after the agent failure` });
      }
    }
    if (conv.outcome !== 'agent_error')
      out.push({ turn: failed, detail: `the agent failed but the outcome is ${show(conv.outcome ?? '(none)')}` });
    return finding(turns.length - failed, out);
  },
};

const simulatorErrorOutcome: Invariant = {
  id: 'simulator-error-outcome',
  statement:
    'when the simulated user cannot produce a turn (user_llm) or the simulator fails (simulator_error), the conversation ends there with outcome simulator_error; that outcome always names its reason',
  needs: 'a simulator failure (error_kind user_llm or simulator_error) or outcome simulator_error',
  source:
    'SimLens run contract (Outcome simulator_error in src/core/model.ts: a failure of the run, never a user outcome)',
  check(ctx) {
    const conv = ctx.conversation;
    const turns = conv.turns;
    const kind = conv.metadata?.['error_kind'];
    const failedTurn = turns.findIndex(
      (t) => t.trace?.error !== undefined && SIMULATOR_FAILURE_KINDS.has(String(t.trace.error_kind)),
    );
    const recorded = typeof kind === 'string' && SIMULATOR_FAILURE_KINDS.has(kind);
    if (failedTurn < 0 && !recorded && conv.outcome !== 'simulator_error') return undefined;
    const out: Violation[] = [];
    const last = turns.length - 1;
    const at = failedTurn >= 0 ? failedTurn : last >= 0 ? last : undefined;
    if (conv.outcome !== 'simulator_error') {
      out.push({
        turn: at,
        detail: `the simulator failed (${show(failedTurn >= 0 ? turns[failedTurn].trace?.error_kind : kind)}) but the outcome is ${show(conv.outcome ?? '(none)')}`,
      });
    } else if (!recorded) {
      out.push({
        turn: at,
        detail: `outcome simulator_error but metadata.error_kind is ${kind === undefined ? 'absent' : show(kind)}`,
      });
    }
    if (failedTurn >= 0 && failedTurn < last)
      out.push({
        turn: failedTurn + 1,
        detail: `the conversation went on after the simulated user failed on turn ${failedTurn}`,
      });
    return finding(Math.max(1, turns.length - Math.max(0, failedTurn)), out);
  },
};

const acceptEndsDialogue: Invariant = {
  id: 'accept-ends-dialogue',
  statement:
    'an accept is the last user turn, empties the agenda and gives outcome accepted; outcome accepted implies a final accept',
  needs: 'trace.user_act',
  source: "Zhang & Balog KDD'20 Table 3 (finding a liked item empties the agenda and ends the dialogue)",
  check(ctx) {
    const conv = ctx.conversation;
    const turns = conv.turns;
    if (!turns.some((t) => typeof t.trace?.user_act === 'string')) return undefined;
    const out: Violation[] = [];
    let n = 0;
    let lastAct: string | undefined;
    let lastActTurn = -1;
    turns.forEach((turn, i) => {
      const act = turn.trace?.user_act;
      if (typeof act !== 'string') return;
      lastAct = act;
      lastActTurn = i;
      if (!isAcceptAct(act)) return;
      n++;
      if (i !== turns.length - 1)
        out.push({ turn: i, detail: `the dialogue went on for ${turns.length - 1 - i} turn(s) after the accept` });
      const agenda = stringArray(turn.trace?.agenda);
      if (agenda && agenda.length)
        out.push({ turn: i, detail: `the agenda still holds ${show(agenda.join(', '))} after the accept` });
      if (i === turns.length - 1 && conv.outcome !== undefined && conv.outcome !== 'accepted')
        out.push({ turn: i, detail: `final accept but outcome ${show(conv.outcome)}` });
    });
    if (conv.outcome === 'accepted' && !isAcceptAct(lastAct)) {
      out.push({ turn: lastActTurn, detail: `outcome accepted but the last user act is ${show(lastAct ?? '?')}` });
    }
    return finding(n, out);
  },
};

function turnCap(ctx: ConversationContext): number | undefined {
  if (ctx.options.maxTurns !== undefined) return ctx.options.maxTurns;
  const recorded = ctx.conversation.metadata?.['turn_cap'];
  if (typeof recorded === 'number') return recorded;
  return isSimulated(ctx.conversation.turns) ? DEFAULT_MAX_TURNS : undefined;
}

const turnCapRespected: Invariant = {
  id: 'turn-cap',
  statement:
    "no conversation has more user turns than the run's cap (--max-turns, else metadata.turn_cap, else the simulate default 20)",
  needs: 'a turn cap (--max-turns, metadata.turn_cap) or a simulator trace',
  source: "SimLens run rule (simlens simulate --max-turns; KDD'20 and PEPPER bound dialogue length)",
  check(ctx) {
    const cap = turnCap(ctx);
    if (cap === undefined) return undefined;
    const n = userTurnCount(ctx.conversation.turns);
    return finding(
      n,
      n > cap ? [{ turn: ctx.conversation.turns.length - 1, detail: `${n} user turns, cap ${cap}` }] : [],
    );
  },
};

const metaTurnCap: Invariant = {
  id: 'meta-turn-cap',
  statement: 'a meta-simulated conversation (source meta-*) has at most 10 user turns (or --max-turns)',
  needs: 'source meta-* (a meta-simulated conversation)',
  source:
    'Vlachou et al., Fashion-AlterEval Sect. 5 (dialogues are evaluated up to turn 10); simlens simulate default with --meta',
  check(ctx) {
    const conv = ctx.conversation;
    if (!conv.source?.startsWith('meta-')) return undefined;
    const cap = ctx.options.maxTurns ?? ALTEREVAL_MAX_TURNS;
    const n = userTurnCount(conv.turns);
    return finding(
      n,
      n > cap ? [{ turn: conv.turns.length - 1, detail: `${n} user turns, AlterEval cap ${cap}` }] : [],
    );
  },
};

const initialAgendaRule: Invariant = {
  id: 'initial-agenda',
  statement:
    'the initial agenda (first act plus the pending ones) has Disclose among its first 5 acts and at most 12 acts',
  needs: 'an init turn with trace.pulled and trace.agenda (an agenda-based user)',
  source: "Zhang & Balog KDD'20 Sect. 4.2 and its code (agendas are resampled until the rule holds)",
  check(ctx) {
    const first = ctx.conversation.turns.find((t) => t.trace?.operation === 'init');
    const tr = first?.trace;
    const pending = stringArray(tr?.agenda);
    if (!tr || pending === undefined || !tr.pulled?.length) return undefined;
    const i = ctx.conversation.turns.indexOf(first!);
    const agenda = [tr.pulled[0], ...pending];
    const out: Violation[] = [];
    if (agenda.length > AGENDA_MAX_LENGTH)
      out.push({ turn: i, detail: `initial agenda has ${agenda.length} acts (max ${AGENDA_MAX_LENGTH})` });
    if (!agenda.slice(0, AGENDA_DISCLOSE_WITHIN).some((a) => mainOf(a) === 'Disclose')) {
      out.push({
        turn: i,
        detail: `no Disclose among the first ${AGENDA_DISCLOSE_WITHIN} acts: ${show(agenda.slice(0, AGENDA_DISCLOSE_WITHIN).join(', '), 80)}`,
      });
    }
    return finding(1, out);
  },
};

const patienceNonIncreasing: Invariant = {
  id: 'patience-non-increasing',
  statement:
    'patience never rises, and falls by exactly one on each push and only on a push; a PEPPER user weighs a liked item once: a carousel whose liked items it all liked on an earlier carousel and did not take (the meta target aside) is no pull, and a carousel the agent keeps on screen while it only asks is no push; a built-in user counts an agent turn with nothing in it as a push (nothing shown and no recommender move, unless a first question; or the third turn in a row that shows nothing), and is exempt only from a failed agent turn (ignored_agent_error after a turn with an error); the built-in target-free user pushes on a carousel with an item it likes for the first time (or its target) only when the agent showed again the first three items just turned down or only first items with a value the user said it is not keen on',
  needs: 'trace.patience',
  source:
    "Zhang & Balog KDD'20 Sect. 4.1 (an inappropriate answer triggers a push) and Sect. 6 (patience); SimLens agenda user; SimLens target-free user (docs/simulation.md: a liked item is weighed once)",
  check(ctx) {
    let prev: number | undefined;
    let n = 0;
    let any = false;
    const out: Violation[] = [];
    /** Items a PEPPER user reflected as liked on an earlier carousel. */
    const likedBefore = new Set<string>();
    const turns = ctx.conversation.turns;
    // The built-in users (agenda, target-free, either under a meta-simulator; docs/simulation.md, "An
    // answer with nothing in it") are not pleased by an agent turn with nothing in it: nothing shown,
    // and either no recommender move (read as Other, Traverse.End, or Reveal.Show) unless it asks
    // something (an Inquire act) and the agent's turn before was not such a turn, or the third agent
    // turn in a row that shows nothing. Such a turn is a push.
    const builtIn = builtInUser(ctx.conversation.source) !== undefined;
    const pepperBuiltIn = /^(meta-(tol|prob)\()?target-free/.test(ctx.conversation.source ?? '');
    /** Values the user said so far it is not keen on (lowercase; a value it later says it wants is taken back). */
    const notKeen = new Set<string>();
    let noMoveBefore = false;
    let emptyRun = 0;
    ctx.conversation.turns.forEach((turn, i) => {
      const tr = turn.trace;
      // A built-in user ignores a failed agent turn (`ignored_agent_error`, no turn counted) only
      // when that turn failed: the mark exempts a turn from the rule below, so it must be true.
      if (builtIn && tr && (tr as Loose)['ignored_agent_error'] === true && !(i > 0 && turns[i - 1].trace?.error))
        out.push({
          turn: i,
          detail:
            "marked as ignoring a failed agent turn (ignored_agent_error), but the agent's turn before did not fail",
        });
      if (
        builtIn &&
        i >= 1 &&
        tr?.nlu &&
        typeof tr.patience === 'number' &&
        (tr as Loose)['ignored_agent_error'] !== true
      ) {
        const nothing = (turns[i - 1].recommendations ?? []).length === 0;
        const acts = stringArray((tr.nlu as Loose)['acts']) ?? [tr.nlu.agent_act];
        const noMove = nothing && acts.some((a) => a === 'Other' || a === 'Traverse.End' || a === 'Reveal.Show');
        const asks = acts.some((a) => typeof a === 'string' && a.startsWith('Inquire'));
        const why =
          noMove && (!asks || noMoveBefore)
            ? asks
              ? 'nothing shown, the same empty answer again'
              : 'nothing shown, no question'
            : nothing && emptyRun >= 2
              ? 'nothing shown for the third turn in a row'
              : undefined;
        if (why && tr.operation !== 'push' && !isAcceptAct(tr.user_act))
          out.push({
            turn: i,
            detail: `a ${show(tr.operation ?? 'turn')} on an agent turn with nothing in it (${why})`,
          });
        noMoveBefore = noMove;
        emptyRun = nothing ? emptyRun + 1 : 0;
      }
      const p = turn.trace?.patience;
      const prefs = turn.trace?.preferences;
      const refl =
        prefs?.model === 'pepper' && prefs.kind === 'delta' && prefs.reflected && typeof prefs.reflected === 'object'
          ? (prefs.reflected as Record<string, unknown>)
          : undefined;
      if (refl) {
        const liked = Object.keys(refl).filter((id) => refl[id] === 'like');
        const target = turn.trace?.target?.item_id;
        if (
          liked.length > 0 &&
          turn.trace?.operation === 'pull' &&
          !isAcceptAct(turn.trace.user_act) &&
          liked.every((id) => likedBefore.has(id) && id !== target)
        )
          out.push({
            turn: i,
            detail: `a pull on a carousel whose liked items (${liked.map(show).join(', ')}) the user all liked on an earlier carousel and did not take`,
          });
        // The built-in target-free user pushes on a carousel it likes an item of (for the first
        // time, or its target) only when the agent showed again the first items it just turned
        // down, or only first items with a value it said it is not keen on (docs/simulation.md).
        const fresh = liked.find((id) => !likedBefore.has(id) || id === target);
        if (pepperBuiltIn && fresh !== undefined && turn.trace?.operation === 'push' && i >= 1) {
          const top = (turns[i - 1].recommendations ?? []).slice(0, 3);
          const before = i >= 2 ? (turns[i - 2].recommendations ?? []).slice(0, 3) : [];
          const reshown =
            top.length > 0 && top.map((r) => r.item_id).join('\u0000') === before.map((r) => r.item_id).join('\u0000');
          const ignoresNot =
            top.length > 0 &&
            top.every((r) => {
              const values = Object.values(r.attributes ?? {});
              // an item without attributes cannot be judged: it counts as holding one
              return values.length === 0 || values.some((v) => notKeen.has(String(v).toLowerCase()));
            });
          if (!reshown && !ignoresNot)
            out.push({
              turn: i,
              detail: `a push (${show(turn.trace.push_reason ?? 'push')}) although the user likes ${show(fresh)}, on screen for the first time${fresh === target ? ' (its target)' : ''}, and the agent neither showed again the first items just turned down nor only items with a value the user said it is not keen on`,
            });
        }
        for (const id of liked) likedBefore.add(id);
        // A carousel the agent keeps on screen while it only asks is not weighed again: no push.
        if (turn.trace?.operation === 'push' && i >= 2) {
          const turns = ctx.conversation.turns;
          const ids = (t: Turn) => (t.recommendations ?? []).map((r) => r.item_id).join('\u0000');
          const acts = stringArray((turn.trace.nlu as Loose | undefined)?.['acts']) ?? [turn.trace.nlu?.agent_act];
          if (ids(turns[i - 1]) !== '' && ids(turns[i - 1]) === ids(turns[i - 2]) && !acts.includes('Reveal.Show'))
            out.push({
              turn: i,
              detail: `a push on the carousel the agent kept on screen while it only asked (${show(turn.trace.push_reason ?? 'push')})`,
            });
        }
      }
      for (const v of stringArray(turn.trace?.said?.negated) ?? []) notKeen.add(v.toLowerCase());
      for (const v of Object.values(turn.trace?.said?.constraints ?? {})) notKeen.delete(String(v).toLowerCase());
      if (typeof p !== 'number') return;
      any = true;
      if (prev !== undefined) {
        n++;
        const op = turn.trace?.operation;
        if (p > prev) out.push({ turn: i, detail: `patience rose from ${prev} to ${p}` });
        else if (p < prev && prev - p > 1) out.push({ turn: i, detail: `patience fell by ${prev - p} in one turn` });
        else if (p < prev && op !== undefined && op !== 'push')
          out.push({ turn: i, detail: `patience fell on a ${show(op)}` });
        else if (p === prev && op === 'push')
          out.push({
            turn: i,
            detail: `a push (${show(turn.trace?.push_reason ?? 'inappropriate answer')}) cost no patience (${p})`,
          });
      }
      prev = p;
    });
    return any ? finding(n, out) : undefined;
  },
};

/** The built-in user a run's source names (agenda, target-free, either under a meta-simulator), if any. */
export function builtInUser(source: string | undefined): 'agenda' | 'target-free' | undefined {
  const m = /^(?:meta-(?:tol|prob)\()?(agenda|target-free)/.exec(source ?? '');
  return m ? (m[1] as 'agenda' | 'target-free') : undefined;
}

/** Items a built-in user looks at on a carousel (its browse depth: 3 in every built-in run, not recorded per run). */
const BROWSE_DEPTH = 3;

/**
 * Was a user that leaves on the last turn never shown what it came for (docs/simulation.md,
 * Endings: among the first BROWSE_DEPTH items of a carousel it read before leaving, its target when
 * the last trace has one (a meta user), else an item in the task category with every goal
 * constraint of the last trace and no value the user said it does not want)? Returns why when it
 * was not, `true` when it was shown one, undefined when an item it looked at has no known
 * attributes and none it could judge meets its goal (not judged either way).
 * Built-in users look at the first BROWSE_DEPTH items; other simulators' carousels count whole.
 */
function shownWhatItCameFor(ctx: ConversationContext): string | true | undefined {
  const turns = ctx.conversation.turns;
  const last = turns.length - 1;
  const lastTrace = turns[last]?.trace;
  if (!lastTrace) return undefined;
  // a built-in user looks at the first BROWSE_DEPTH items; another simulator may read the whole carousel
  const builtIn = builtInUser(ctx.conversation.source) !== undefined;
  const depth = builtIn ? BROWSE_DEPTH : Infinity;
  const looked: ItemFacts[] = [];
  for (let j = 0; j < last; j++)
    for (const rec of (turns[j].recommendations ?? []).slice(0, depth)) looked.push(factsAt(ctx, rec));
  const target = lastTrace.target?.item_id;
  if (typeof target === 'string') {
    return looked.some((f) => f.item_id === target) ? true : `its target ${show(target)} never shown`;
  }
  if (looked.length === 0) return 'never shown an item (no carousel before it left)';
  const judged = looked.filter(hasAttributes);
  if (judged.length === 0) return undefined;
  const constraints = lastTrace.goal?.constraints ?? {};
  const task =
    constraints['category'] !== undefined ? String(constraints['category']) : conversationTask(ctx.conversation);
  const negated = [...negatedUpTo(ctx, last).keys()];
  const meets = (f: ItemFacts): boolean => {
    if (task !== undefined && f.category !== undefined && !equalValue(f.category, task)) return false;
    for (const [a, v] of Object.entries(constraints)) {
      if (a === 'category' || v === undefined || v === null) continue;
      if (!equalValue(f.attributes[a], String(v))) return false;
    }
    return !negated.some((n) => negatedMatch(f, n) !== undefined);
  };
  if (judged.some(meets)) return true;
  // an item it looked at whose attributes are unknown may have been the one: not judged
  return judged.length < looked.length ? undefined : 'never shown an item meeting its goal';
}

const abandonAtZero: Invariant = {
  id: 'abandon-at-zero',
  statement:
    'a user abandons exactly when its patience reaches 0 (unless it takes an item on that last turn), abandoning is its last turn and is recorded as outcome abandoned with end_reason patience (end_reason patience never with patience left); a user that gives up (outcome gave_up) leaves on its last turn with patience left and end_reason gave_up, and end_reason completed means nothing pending, no pushed Complete, no patience lost, every goal request answered and shown what it came for (its target, or an item meeting its goal, among the first 3 of a carousel)',
  needs: 'trace.patience',
  source: "Zhang & Balog KDD'20 Sect. 6 (patience); SimLens agenda user (Complete.Abandon at patience 0)",
  check(ctx) {
    const conv = ctx.conversation;
    const turns = conv.turns;
    if (!turns.some((t) => typeof t.trace?.patience === 'number')) return undefined;
    let n = 0;
    const out: Violation[] = [];
    turns.forEach((turn, i) => {
      const tr = turn.trace;
      const p = tr?.patience;
      const abandons = tr?.user_act === 'Complete.Abandon';
      if (typeof p !== 'number' && !abandons) return;
      n++;
      if (abandons && typeof p === 'number' && p > 0) out.push({ turn: i, detail: `abandoned with patience ${p}` });
      const takesAtLast = i === turns.length - 1 && isAcceptAct(tr?.user_act);
      if (!abandons && !takesAtLast && typeof p === 'number' && p <= 0)
        out.push({ turn: i, detail: `patience ${p} but the user did not abandon` });
      if (abandons && i !== turns.length - 1)
        out.push({ turn: i, detail: 'the dialogue went on after the user abandoned' });
    });
    const lastTr = turns[turns.length - 1]?.trace;
    const lastAct = lastTr?.user_act;
    const lastAt = turns.length - 1;
    if (conv.outcome === 'abandoned' && typeof lastAct === 'string' && lastAct !== 'Complete.Abandon') {
      out.push({ turn: lastAt, detail: `outcome abandoned but the last user act is ${show(lastAct)}` });
    }
    if (
      lastAct === 'Complete.Abandon' &&
      conv.outcome !== undefined &&
      conv.outcome !== 'abandoned' &&
      conv.outcome !== 'agent_error' &&
      conv.outcome !== 'simulator_error'
    ) {
      out.push({ turn: lastAt, detail: `the user abandoned but the outcome is ${show(conv.outcome)}` });
    }
    const reason = lastTr ? (lastTr as Loose)['end_reason'] : undefined;
    if (typeof reason === 'string') {
      const patienceEnd = reason.toLowerCase().startsWith('patience');
      if (lastAct === 'Complete.Abandon' && !patienceEnd)
        out.push({
          turn: lastAt,
          detail: `abandoned at patience ${show(lastTr?.patience ?? '?')} with end_reason ${show(reason)} (expected patience)`,
        });
      if (patienceEnd && typeof lastTr?.patience === 'number' && lastTr.patience > 0)
        out.push({ turn: lastAt, detail: `end_reason ${show(reason)} with patience ${lastTr.patience} left` });
    }
    const lastTrace = turns[turns.length - 1]?.trace;
    const endReason = (lastTrace as Loose | undefined)?.['end_reason'];
    if (conv.outcome === 'gave_up' || endReason === 'gave_up') {
      const lp = lastTrace?.patience;
      if (conv.outcome !== undefined && conv.outcome !== 'gave_up')
        out.push({ turn: turns.length - 1, detail: `end_reason gave_up but outcome ${show(conv.outcome)}` });
      else if (endReason !== 'gave_up' && lastTrace !== undefined)
        out.push({
          turn: turns.length - 1,
          detail: `outcome gave_up but end_reason ${endReason === undefined ? 'absent' : show(endReason)}`,
        });
      if (typeof lp === 'number' && lp <= 0)
        out.push({ turn: turns.length - 1, detail: `gave up with patience ${lp} (that is abandoning)` });
      if (typeof lastAct === 'string' && (lastAct === 'Complete.Abandon' || isAcceptAct(lastAct)))
        out.push({ turn: turns.length - 1, detail: `gave up with the act ${show(lastAct)}` });
      n = Math.max(n, 1);
    }
    // The other side of the line: `completed` is leaving with nothing left to do, so a user that
    // completes with acts still pending, on a pushed Complete, or after losing patience gave up
    // (docs/simulation.md, Endings). Judged only where the trace carries the agenda and patience.
    if (endReason === 'completed' && lastTrace !== undefined && Array.isArray(lastTrace.agenda)) {
      const initial = turns.find((t) => typeof t.trace?.patience === 'number')?.trace?.patience;
      const lp = lastTrace.patience;
      const why: string[] = [];
      if (lastTrace.agenda.length > 0) why.push(`${lastTrace.agenda.length} act(s) still pending`);
      if (lastTrace.operation === 'push') why.push('a pushed Complete');
      if (typeof initial === 'number' && typeof lp === 'number' && lp < initial)
        why.push(`patience ${lp} of ${initial}`);
      const goal = lastTrace.goal;
      if (goal && Array.isArray(goal.requests)) {
        const fulfilled = new Set((goal.fulfilled_requests ?? []).map(String));
        const pending = goal.requests.map(String).filter((r) => !fulfilled.has(r));
        if (pending.length) why.push(`the goal request(s) ${show(pending.join(', '))} unanswered`);
      }
      const shown = shownWhatItCameFor(ctx);
      if (typeof shown === 'string') why.push(shown);
      if (why.length)
        out.push({
          turn: turns.length - 1,
          detail: `end_reason completed with ${why.join(', ')} (that is giving up: gave_up)`,
        });
      n = Math.max(n, 1);
    }
    // The mirror (seventeenth round): a built-in user whose last turn is a Complete pulled on an
    // appropriate answer, with nothing pending, no patience lost, every goal request answered and
    // shown what it came for, completed (docs/simulation.md, Endings): `gave_up` there names a
    // reason to leave it did not have. Judged only where the trace carries the agenda, the
    // patience and the goal's requests, and where what it came for could be judged.
    if (
      endReason === 'gave_up' &&
      lastTrace !== undefined &&
      Array.isArray(lastTrace.agenda) &&
      builtInUser(conv.source) !== undefined &&
      typeof lastAct === 'string' &&
      mainOf(lastAct) === 'Complete' &&
      lastAct !== 'Complete.Abandon'
    ) {
      const initial = turns.find((t) => typeof t.trace?.patience === 'number')?.trace?.patience;
      const lp = lastTrace.patience;
      const goal = lastTrace.goal;
      const fulfilled = new Set((goal?.fulfilled_requests ?? []).map(String));
      const answered = Array.isArray(goal?.requests) && goal.requests.every((r) => fulfilled.has(String(r)));
      if (
        lastTrace.agenda.length === 0 &&
        lastTrace.operation === 'pull' &&
        typeof initial === 'number' &&
        lp === initial &&
        answered &&
        shownWhatItCameFor(ctx) === true
      )
        out.push({
          turn: turns.length - 1,
          detail:
            'end_reason gave_up on a pulled Complete with nothing pending, no patience lost, every goal request answered and shown what it came for (that is completing: completed)',
        });
      n = Math.max(n, 1);
    }
    return finding(n, out);
  },
};

const coverageBoundedMonotone: Invariant = {
  id: 'coverage-monotone',
  statement: 'PEPPER preference coverage stays in [0, 1] and never decreases',
  needs: 'trace.preference_coverage (a PEPPER user)',
  source: 'Kim et al., PEPPER Sect. 4 (PC_t is cumulative over the items recommended up to turn t)',
  check(ctx) {
    let prev: number | undefined;
    let n = 0;
    const out: Violation[] = [];
    ctx.conversation.turns.forEach((turn, i) => {
      const pc = turn.trace?.preference_coverage;
      if (typeof pc !== 'number') return;
      n++;
      if (!(pc >= 0 && pc <= 1)) out.push({ turn: i, detail: `coverage ${pc} is outside [0, 1]` });
      if (prev !== undefined && pc < prev - COVERAGE_EPSILON)
        out.push({ turn: i, detail: `coverage fell from ${prev} to ${pc}` });
      prev = pc;
    });
    return n ? finding(n, out) : undefined;
  },
};

const coverageMatchesTargets: Invariant = {
  id: 'coverage-definition',
  statement: 'PEPPER preference coverage equals |targets ∩ items shown so far| / |targets| (three decimals)',
  needs: 'trace.targets and trace.preference_coverage (a PEPPER user)',
  source: 'Kim et al., PEPPER Sect. 4 (definition of Preference Coverage)',
  check(ctx) {
    const turns = ctx.conversation.turns;
    const targets = stringArray(turns.find((t) => t.trace?.targets !== undefined)?.trace?.targets);
    if (!targets) return undefined;
    const set = new Set(targets);
    const shown = new Set<string>();
    let n = 0;
    const out: Violation[] = [];
    turns.forEach((turn, i) => {
      for (const r of turn.recommendations ?? []) shown.add(r.item_id);
      const pc = turn.trace?.preference_coverage;
      if (typeof pc !== 'number') return;
      n++;
      let hit = 0;
      for (const t of set) if (shown.has(t)) hit++;
      const expected = set.size ? round3(hit / set.size) : 0;
      if (Math.abs(pc - expected) > COVERAGE_EPSILON)
        out.push({
          turn: i,
          detail: `coverage ${pc}, expected ${expected} (${hit} of ${set.size} targets shown so far)`,
        });
    });
    return n ? finding(n, out) : undefined;
  },
};

const targetNotNamedEarly: Invariant = {
  id: 'target-free-no-early-target',
  statement:
    'a target-free user never names one of its target items (said.items or its title) or describes it by all its attributes before the agent has shown it',
  needs: 'trace.targets (a target-free user)',
  source: "Kim et al., PEPPER Sect. 3 (target-free simulation: targets stay hidden from the user's utterances)",
  check(ctx) {
    const turns = ctx.conversation.turns;
    const targets = stringArray(turns.find((t) => t.trace?.targets !== undefined)?.trace?.targets);
    if (!targets || targets.length === 0) return undefined;
    const titles = new Map<string, { title: string; words: string[] }>();
    /** The attribute values of each target (at least three), to catch a user describing one it was never shown. */
    const described = new Map<string, string[][]>();
    let unknown = 0;
    for (const id of targets) {
      const f = ctx.item(id);
      const t = f?.title;
      if (t) titles.set(id, { title: t, words: phraseWords(t) });
      else unknown++;
      const values = Object.values(f?.attributes ?? {}).filter((v) => v.trim() !== '');
      if (values.length >= 3)
        described.set(
          id,
          values.map((v) => phraseWords(v)),
        );
    }
    const shown = new Set<string>();
    /** Targets whose name a shown item also carries (naming them is naming what was shown). */
    const nameShown = new Set<string>();
    let n = 0;
    const out: Violation[] = [];
    turns.forEach((turn, i) => {
      if (turn.user_utterance !== undefined) {
        n++;
        const said = stringArray(turn.trace?.said?.items) ?? [];
        const text = ctx.words(i);
        let wordSet: ReadonlySet<string> | undefined;
        for (const id of targets) {
          if (shown.has(id)) continue;
          if (said.includes(id)) {
            out.push({ turn: i, detail: `names target ${show(id)} (said.items) before it was shown` });
            continue;
          }
          const values = described.get(id);
          if (
            values &&
            values.every((v) => v.every((w) => (wordSet ??= ctx.wordSet(i)).has(w))) &&
            values.every((v) => mentionsWords(text, v))
          ) {
            out.push({ turn: i, detail: `describes target ${show(id)} by all its attributes before it was shown` });
            continue;
          }
          const title = titles.get(id);
          if (!title || nameShown.has(id)) continue;
          if (mentionsWords(text, title.words))
            out.push({ turn: i, detail: `names target ${show(id)} ${quote(title.title, 40)} before it was shown` });
        }
      }
      for (const r of turn.recommendations ?? []) {
        if (shown.has(r.item_id)) continue;
        shown.add(r.item_id);
        if (!r.title || nameShown.size === titles.size) continue;
        const shownWords = phraseWords(r.title);
        for (const [id, title] of titles)
          if (!nameShown.has(id) && mentionsWords(shownWords, title.words)) nameShown.add(id);
      }
    });
    const f = finding(n, out);
    if (unknown > 0)
      f.unchecked = [
        `titles and attributes of targets no carousel shows are unknown without a catalog, so naming or describing them is unchecked (pass --catalog)`,
      ];
    return f;
  },
};

/** How many of the first items a meta user looks at for its target (src/core/sim/users/meta.ts). */
const META_SEEN_DEPTH = 3;
const SIMILARITY_EPSILON = 1e-9;

function metaModeOf(source: string | undefined): 'tol' | 'prob' | undefined {
  if (source?.startsWith('meta-tol')) return 'tol';
  if (source?.startsWith('meta-prob')) return 'prob';
  return undefined;
}

/** Item similarities per catalog (the same pairs recur across a run's conversations), bounded. */
const SIMILARITIES = new WeakMap<ItemLookup, Map<string, Map<string, number | undefined>>>();
const SIMILARITY_ROWS_MAX = 20000;

/** `catalog.similarity` of two item ids (undefined when either is not in the catalog), memoized per catalog. */
function similarityIn(catalog: ItemLookup, a: string, b: string): number | undefined {
  let rows = SIMILARITIES.get(catalog);
  if (!rows) SIMILARITIES.set(catalog, (rows = new Map()));
  let row = rows.get(a);
  if (!row) {
    if (rows.size >= SIMILARITY_ROWS_MAX) rows.clear();
    rows.set(a, (row = new Map()));
  }
  if (row.has(b)) return row.get(b);
  const x = catalog.get(a);
  const y = catalog.get(b);
  const v = x && y ? (catalog.similarity as (p: unknown, q: unknown) => number)(x, y) : undefined;
  row.set(b, v);
  return v;
}

const metaSwitchRule: Invariant = {
  id: 'meta-switch-rule',
  statement:
    "a meta-simulator switches target only after the tolerance, never while its target is among the first three items shown, only to the member of its fixed target group most similar to the agent's top item, records switched_from; MetaSimTol re-targets whenever a member is more similar to the top item than its target; MetaSimProb switches only after a loss (the top item moved away from the target)",
  source:
    'Vlachou et al., Fashion-AlterEval Algorithms 1 and 2 (turn > tolerance; target = argmax over the alternatives; Prob: switch on delta < 0 with P_switch)',
  needs: 'trace.target (a meta-simulated user)',
  check(ctx) {
    const tolerance = ctx.options.metaTolerance ?? DEFAULT_META_TOLERANCE;
    const mode = metaModeOf(ctx.conversation.source);
    const catalog = ctx.options.catalog;
    const sim = catalog?.similarity ? (a: string, b: string) => similarityIn(catalog, a, b) : undefined;
    const turns = ctx.conversation.turns;
    let group: readonly string[] | undefined;
    let prev: string | undefined;
    let previousTop: string | undefined;
    let failed = false;
    let n = 0;
    const out: Violation[] = [];
    const unchecked = new Set<string>();
    /** The member of the group most similar to `top` (the current target wins ties, then group order). */
    const closest = (top: string, current: string, members: readonly string[]): string | undefined => {
      let best = current;
      let bestSim = sim!(top, current);
      if (bestSim === undefined) return undefined;
      for (const id of members) {
        if (id === current) continue;
        const s = sim!(top, id);
        if (s === undefined) return undefined;
        if (s > bestSim + SIMILARITY_EPSILON) {
          best = id;
          bestSim = s;
        }
      }
      return best;
    };
    turns.forEach((turn, i) => {
      const target = turn.trace?.target;
      const seenRecs = i > 0 ? (turns[i - 1].recommendations ?? []) : [];
      const top = seenRecs[0]?.item_id;
      if (i > 0 && turns[i - 1].trace?.error !== undefined) failed = true;
      if (target && typeof target.item_id === 'string') {
        n++;
        const alts = stringArray(target.alternatives) ?? [];
        if (group === undefined) group = alts;
        else if (!sameList(group, alts)) out.push({ turn: i, detail: 'the target group changed during the dialogue' });
        const switched = prev !== undefined && target.item_id !== prev;
        if (switched || target.switched_from !== undefined) {
          if (i <= tolerance) out.push({ turn: i, detail: `target switched on turn ${i}, tolerance ${tolerance}` });
          if (group.length && !group.includes(target.item_id))
            out.push({ turn: i, detail: `new target ${show(target.item_id)} is not in the target group` });
          if (switched && target.switched_from !== prev)
            out.push({
              turn: i,
              detail: `switch from ${show(prev)} recorded as switched_from ${show(target.switched_from ?? '(none)')}`,
            });
          if (!switched)
            out.push({
              turn: i,
              detail: `switched_from ${show(target.switched_from)} but the target stayed ${show(target.item_id)}`,
            });
        }
        if (switched && prev !== undefined && !failed) {
          const shownAt = seenRecs.slice(0, META_SEEN_DEPTH).findIndex((r) => r.item_id === prev);
          if (shownAt >= 0)
            out.push({ turn: i, detail: `switched away from ${show(prev)} while it was shown at #${shownAt + 1}` });
          if (top === undefined) out.push({ turn: i, detail: 'switched target with no item on screen' });
          else if (sim && group.includes(target.item_id)) {
            const best = closest(top, prev, group);
            const chosen = sim(top, target.item_id);
            const bestSim = best === undefined ? undefined : sim(top, best);
            if (best === undefined || chosen === undefined || bestSim === undefined)
              unchecked.add(
                'an item of the target group is not in the catalog, so the most-similar rule is unchecked for it',
              );
            else if (chosen < bestSim - SIMILARITY_EPSILON)
              out.push({
                turn: i,
                detail: `switched to ${show(target.item_id)} (similarity ${round3(chosen)} to the top item) but ${show(best)} is more similar (${round3(bestSim)})`,
              });
            if (mode === 'prob') {
              const now = sim(top, prev);
              const before = previousTop === undefined ? undefined : sim(previousTop, prev);
              if (previousTop === undefined)
                out.push({
                  turn: i,
                  detail: 'MetaSimProb switched before it had an earlier top item to compare with (no loss possible)',
                });
              else if (now !== undefined && before !== undefined && now - before >= 0)
                out.push({
                  turn: i,
                  detail: `MetaSimProb switched on a gain: delta=${round3(now - before)} (the top item moved closer to ${show(prev)})`,
                });
            }
          }
        }
        if (
          !switched &&
          mode === 'tol' &&
          prev !== undefined &&
          i > tolerance &&
          top !== undefined &&
          !failed &&
          group.length
        ) {
          const shown = seenRecs.slice(0, META_SEEN_DEPTH).some((r) => r.item_id === prev);
          if (!shown && sim) {
            const best = closest(top, prev, group);
            if (best === undefined)
              unchecked.add(
                'an item of the target group is not in the catalog, so the MetaSimTol re-target rule is unchecked for it',
              );
            else if (best !== prev)
              out.push({
                turn: i,
                detail: `MetaSimTol kept ${show(prev)} after the tolerance although ${show(best)} is more similar to the top item ${show(top)}`,
              });
          }
        }
        prev = target.item_id;
      }
      if (top !== undefined) previousTop = top;
    });
    if (!n) return undefined;
    const f = finding(n, out);
    if (!sim && mode !== undefined)
      unchecked.add(
        'without a catalog (item similarity) the most-similar member, MetaSimTol re-target and MetaSimProb loss rules are unchecked (pass --catalog)',
      );
    if (unchecked.size) f.unchecked = [...unchecked];
    return f;
  },
};

const acceptedItemShown: Invariant = {
  id: 'accepted-item-shown',
  statement:
    "an item the user accepts (trace.said.items on the accepting turn) was shown in a carousel before that turn; an item any other user turn speaks about (trace.said.items of a Note, an item question, a comparison) is in the carousel of the agent's turn right before it: an agent turn without items (a question, a text-only answer) shows nothing to note; and the words of a built-in user's turn that speaks about items name by title no shown item but those (an item whose title is one of theirs, word for word or within it, counts as theirs): the trace naming one item and the words another is a turn about the wrong item",
  source:
    "Zhang & Balog KDD'20 Sect. 4.1 (Note.Accept answers a recommendation; a Note is realised against the items the agent's act shows); SimLens trace contract (said.items); docs/simulation.md, State and words agree, rules 11 and 16",
  needs: 'a user turn naming items in trace.said.items (an accept, a Note, an item question)',
  check(ctx) {
    const turns = ctx.conversation.turns;
    const names = (t: Turn) => (stringArray(t.trace?.said?.items)?.length ?? 0) > 0;
    if (!turns.some((t) => isAcceptAct(t.trace?.user_act) || names(t))) return undefined;
    let n = 0;
    const out: Violation[] = [];
    const unchecked: string[] = [];
    const shown = new Set<string>();
    const builtIn = builtInUser(ctx.conversation.source) !== undefined;
    /** The titles of the items shown so far, as words. */
    const titles = new Map<string, string[]>();
    turns.forEach((turn, i) => {
      const tr = turn.trace;
      const said = stringArray(tr?.said?.items);
      if (builtIn && said?.length && typeof turn.user_utterance === 'string') {
        const other = otherTitleNamed(turn.user_utterance, said, titles);
        if (other !== undefined)
          out.push({
            turn: i,
            detail: `${show(tr?.user_act ?? '?')} speaks about ${show(said.join(', '))} (said.items) but its words name ${show(other)}: ${quote(turn.user_utterance)}`,
          });
      }
      if (tr && isAcceptAct(tr.user_act)) {
        const said = stringArray(tr.said?.items);
        if (said?.length) {
          n++;
          for (const id of said)
            if (!shown.has(id)) out.push({ turn: i, detail: `accepted ${show(id)}, which no earlier carousel showed` });
        } else
          unchecked.push('an accept that does not name its item in trace.said.items cannot be matched to a shown item');
      } else if (tr && names(turn)) {
        // What is on screen is the agent's last carousel, only when its last turn showed one.
        n++;
        const onScreen = new Set((turns[i - 1]?.recommendations ?? []).map((r) => r?.item_id));
        for (const id of stringArray(tr.said?.items)!)
          if (!onScreen.has(id))
            out.push({
              turn: i,
              detail: `${show(tr.user_act ?? '?')} speaks about ${show(id)}, which the agent's last turn did not show${onScreen.size ? '' : ' (it showed no items)'}: ${quote(turn.user_utterance)}`,
            });
      }
      for (const r of turn.recommendations ?? []) {
        if (typeof r?.item_id !== 'string') continue;
        shown.add(r.item_id);
        if (r.title && !titles.has(r.item_id)) titles.set(r.item_id, phraseWords(r.title));
      }
    });
    if (!n && !unchecked.length) return undefined;
    const f = finding(n, out);
    if (unchecked.length) f.unchecked = unchecked;
    return f;
  },
};

/**
 * A shown item other than `said` whose title `text` names (one typo allowed), if any: an item
 * whose title is a said item's, word for word or within it ("Harbor Tote" in "Harbor Tote Bag";
 * two catalog items may share a title), counts as that item.
 */
function otherTitleNamed(
  text: string,
  said: readonly string[],
  titles: ReadonlyMap<string, string[]>,
): string | undefined {
  let words: string[] | undefined;
  for (const [id, t] of titles) {
    if (said.includes(id) || t.length === 0) continue;
    if (
      said.some((x) => {
        const own = titles.get(x);
        return own !== undefined && own.length >= t.length && mentionStarts(own, t).length > 0;
      })
    )
      continue;
    words ??= tokenize(text);
    if (mentionStarts(words, t).length > 0) return id;
  }
  return undefined;
}

const SCORE_EPSILON = 0.0005;

const satisfactionFrustration: Invariant = {
  id: 'satisfaction-frustration',
  statement:
    'satisfaction and frustration stay in [0, 1]; satisfaction does not rise on an inappropriate answer (push) and does not fall on an appropriate one (pull) the user does not turn down; frustration rises exactly when patience falls, and is 0 only while no patience was lost',
  source:
    "Zhang & Balog KDD'20 Sect. 4.1 and 6 (pull on an appropriate answer, push and patience loss on an inappropriate one); SimLens agenda user (satisfaction = share of appropriate answers, frustration = patience lost)",
  needs: 'trace.satisfaction or trace.frustration',
  check(ctx) {
    let prevSat: number | undefined;
    let prevFr: number | undefined;
    let prevPatience: number | undefined;
    let firstPatience: number | undefined;
    let n = 0;
    let any = false;
    const out: Violation[] = [];
    ctx.conversation.turns.forEach((turn, i) => {
      const tr = turn.trace;
      if (!tr) return;
      const sat = typeof tr.satisfaction === 'number' ? tr.satisfaction : undefined;
      const fr = typeof tr.frustration === 'number' ? tr.frustration : undefined;
      const p = typeof tr.patience === 'number' ? tr.patience : undefined;
      if (sat === undefined && fr === undefined) {
        if (p !== undefined) prevPatience = p;
        return;
      }
      any = true;
      n++;
      if (p !== undefined && firstPatience === undefined) firstPatience = p;
      if (sat !== undefined && !(sat >= 0 && sat <= 1))
        out.push({ turn: i, detail: `satisfaction ${sat} is outside [0, 1]` });
      if (fr !== undefined && !(fr >= 0 && fr <= 1))
        out.push({ turn: i, detail: `frustration ${fr} is outside [0, 1]` });
      const op = tr.operation;
      if (sat !== undefined && prevSat !== undefined) {
        if (op === 'push' && sat > prevSat + SCORE_EPSILON)
          out.push({
            turn: i,
            detail: `satisfaction rose from ${prevSat} to ${sat} on an inappropriate answer (${show(tr.push_reason ?? 'push')})`,
          });
        // An appropriate answer whose items the user turns down may count as unsatisfying (docs/simulation.md).
        const rejects =
          tr.user_act === 'Note.Dislike' ||
          (typeof tr.user_act === 'string' && convApparelOf(tr.user_act) === 'reject_recommendation');
        if (op === 'pull' && !rejects && sat < prevSat - SCORE_EPSILON && !keptPassedOver(ctx, i))
          out.push({
            turn: i,
            detail: `satisfaction fell from ${prevSat} to ${sat} on an appropriate answer (pull, act ${show(tr.user_act ?? '?')})`,
          });
      }
      if (fr !== undefined && p !== undefined) {
        if (prevFr !== undefined && prevPatience !== undefined) {
          if (p < prevPatience && !(fr > prevFr + SCORE_EPSILON))
            out.push({
              turn: i,
              detail: `patience fell from ${prevPatience} to ${p} but frustration stayed ${prevFr} -> ${fr}`,
            });
          if (p >= prevPatience && Math.abs(fr - prevFr) > SCORE_EPSILON)
            out.push({ turn: i, detail: `frustration moved ${prevFr} -> ${fr} while patience stayed ${p}` });
        }
        if (firstPatience !== undefined) {
          if (p < firstPatience && fr <= SCORE_EPSILON)
            out.push({ turn: i, detail: `frustration ${fr} at patience ${p} of ${firstPatience}` });
          if (p >= firstPatience && fr > SCORE_EPSILON)
            out.push({ turn: i, detail: `frustration ${fr} before any patience was lost` });
        }
      }
      if (sat !== undefined) prevSat = sat;
      if (fr !== undefined) prevFr = fr;
      if (p !== undefined) prevPatience = p;
    });
    return any ? finding(n, out) : undefined;
  },
};

/**
 * Did the agent's answer read on turn `i` only keep on screen the item the user passed over on
 * turn i-1 (the same carousel as before, first the passed-over item, no showing act)? Such an
 * answer costs no patience but is not satisfying (docs/simulation.md).
 */
function keptPassedOver(ctx: ConversationContext, i: number): boolean {
  const turns = ctx.conversation.turns;
  if (i < 2) return false;
  const ids = (t: Turn | undefined) => (t?.recommendations ?? []).map((r) => r.item_id).join('\u0000');
  const now = ids(turns[i - 1]);
  // the carousel before: the last one shown (a turn without items leaves it on screen)
  let lastShown: Turn | undefined;
  for (let j = i - 2; j >= 0 && !lastShown; j--) if (turns[j].recommendations?.length) lastShown = turns[j];
  const before = turns[i - 1].trace;
  // The item passed over: the one the Note named, else the first of the carousel it answered ("I own that one").
  const passes = ['Note.Dislike', 'Note.Seen', 'Note.Like'].includes(String(before?.user_act));
  const passed = passes ? (before?.said?.items?.[0] ?? lastShown?.recommendations?.[0]?.item_id) : undefined;
  const acts = stringArray((turns[i].trace?.nlu as Loose | undefined)?.['acts']) ?? [turns[i].trace?.nlu?.agent_act];
  return (
    now !== '' &&
    now === ids(lastShown) &&
    passed !== undefined &&
    turns[i - 1].recommendations![0].item_id === passed &&
    !acts.includes('Reveal.Show')
  );
}

/**
 * Does the agent's answer on turn `at` state the value of `attr` of an item shown up to then? The
 * agenda user's own rule (`statesItemValue`: statements only, the item's title aside, a price for
 * the price band), so the check and the simulator read an answer alike.
 */
function answerStatesAttribute(
  ctx: ConversationContext,
  at: number,
  attr: string,
  about?: ReadonlySet<string>,
): boolean {
  const answer = ctx.conversation.turns[at]?.assistant_utterance;
  if (!answer) return false;
  for (let j = 0; j <= at; j++) {
    for (const r of ctx.conversation.turns[j].recommendations ?? []) {
      if (about && !about.has(r.item_id)) continue;
      const f = factsAt(ctx, r);
      if (statesItemValue(answer, attr, f.attributes[attr], r.title, f.price)) return true;
    }
  }
  return false;
}

/** Does the title of an item shown up to turn `at` state its value of `attr` (`titleShowsValue`)? */
function titleStatesAttribute(
  ctx: ConversationContext,
  at: number,
  attr: string,
  about?: ReadonlySet<string>,
): boolean {
  for (let j = 0; j <= at; j++) {
    for (const r of ctx.conversation.turns[j]?.recommendations ?? []) {
      if (about && !about.has(r.item_id)) continue;
      if (titleShowsValue(r.title, attr, factsAt(ctx, r).attributes[attr])) return true;
    }
  }
  return false;
}

/**
 * The cards a user reads a requested value off on turn `at`: the item it names (said.items), else
 * the first three of the last carousel shown before the turn.
 */
function cardsReadAt(ctx: ConversationContext, at: number): ReadonlySet<string> | undefined {
  const named = stringArray(ctx.conversation.turns[at]?.trace?.said?.items);
  if (named?.length) return new Set(named);
  for (let j = at - 1; j >= 0; j--) {
    const recs = ctx.conversation.turns[j].recommendations ?? [];
    if (recs.length) return new Set(recs.slice(0, BROWSE_DEPTH).map((r) => r.item_id));
  }
  return undefined;
}

/** The words of an item question without the titles of the items it names (a title's words ask nothing). */
function questionWords(text: string, items: readonly string[], ctx: ConversationContext, at: number): string[] {
  let rest = text;
  for (let j = at - 1; j >= 0; j--)
    for (const r of ctx.conversation.turns[j].recommendations ?? [])
      if (items.includes(r.item_id) && r.title) rest = rest.split(r.title).join(' ');
  return tokenize(rest);
}

/** Navigate acts that ask about no attribute: more items, back, a repeat. */
const NOT_A_QUESTION = new Set(['Navigate.More', 'Navigate.Back', 'Navigate.Repeat']);

const goalRequests: Invariant = {
  id: 'goal-requests',
  statement:
    "fulfilled goal requests are requests of the goal, stay fulfilled, and a request becomes fulfilled only on the turn after the user asked about an item (a Navigate other than More, Back and Repeat) and the agent's answer stated the requested value of a shown item, the item asked about when the trace names it (said.items) (in a statement, not a question, outside the item's title; a price for the price band), or on an item question or a request for more (Navigate, Navigate.More) when the title of the item asked about (said.items; else of one of the first three on screen) states it (read off the card); and a built-in user takes in what it is told: after its question about an item, every request still pending whose value of that item the answer states is fulfilled on the next turn; and a built-in agenda user's item question (a Navigate naming its item) asks about no attribute the user stated a value of itself (said.constraints on an earlier turn, still in its goal): words that name such an attribute and no pending request it has not stated ask what it already said",
  source:
    "Zhang & Balog KDD'20 Sect. 4.1 (goal G = (C, R): requests are filled by the agent's answers); SimLens agenda user (fulfilled_requests)",
  needs: 'trace.goal.requests',
  check(ctx) {
    const turns = ctx.conversation.turns;
    const builtIn = builtInUser(ctx.conversation.source) !== undefined;
    const agenda = builtInUser(ctx.conversation.source) === 'agenda';
    /** Attributes the user stated a value of on the turns before. */
    const stated = new Set<string>();
    let prevDone: readonly string[] | undefined;
    let n = 0;
    let any = false;
    const out: Violation[] = [];
    turns.forEach((turn, i) => {
      const goal = turn.trace?.goal;
      const requests = stringArray(goal?.requests);
      if (!goal || requests === undefined) return;
      any = true;
      n++;
      const done = stringArray(goal.fulfilled_requests) ?? [];
      for (const r of done)
        if (!requests.includes(r))
          out.push({
            turn: i,
            detail: `fulfilled request ${show(r)} is not a request of the goal [${show(requests.join(', '))}]`,
          });
      if (prevDone !== undefined) {
        for (const r of prevDone)
          if (!done.includes(r)) out.push({ turn: i, detail: `request ${show(r)} was fulfilled and is open again` });
        const fresh = done.filter((r) => !prevDone!.includes(r) && requests.includes(r));
        // read off a card: on an item question or a request for more (not back, not a repeat), the
        // title of the item asked about (said.items), else of one of the first three on screen
        const act = String(turn.trace?.user_act ?? '');
        const readsCard = mainOf(act) === 'Navigate' && act !== 'Navigate.Back' && act !== 'Navigate.Repeat';
        const cards = readsCard && fresh.length ? cardsReadAt(ctx, i) : undefined;
        // the rest was answered, if at all, by the agent's answer to the turn before
        const answered = readsCard ? fresh.filter((r) => !titleStatesAttribute(ctx, i - 1, r, cards)) : fresh;
        if (answered.length) {
          const askedAct = String(turns[i - 1]?.trace?.user_act ?? '');
          // a question about an item (Navigate, not a request for more, back or a repeat; an Inquire
          // asks for items, not for an attribute's value)
          const asked = mainOf(askedAct);
          const question = asked === 'Navigate' && !NOT_A_QUESTION.has(askedAct);
          // answered means the value is said (KDD'20 goal requests; the agenda user's rule 6): an
          // agent act labelled Explain whose words never say the value has not answered; the value
          // of the item the user asked about when its trace names it (said.items), not another's
          const askedItems = stringArray(turns[i - 1]?.trace?.said?.items);
          const about = askedItems?.length ? new Set(askedItems) : undefined;
          const explained = answered.every((r) => answerStatesAttribute(ctx, i - 1, r, about));
          if (!question || !explained) {
            out.push({
              turn: i,
              detail: `request ${show(answered.join(', '))} fulfilled although ${question ? `the agent's answer does not state the value${about ? ` of ${show([...about].join(', '))}` : ''}` : `the user did not ask (act ${show(askedAct || '?')})`}`,
            });
          }
        }
        // A built-in user takes in what it is told (agenda rule 6, seventeenth round): after its
        // question about an item, every request still pending whose value for that item the answer
        // states is fulfilled on the next turn (it never asks next what it was just told).
        const askedAct = String(turns[i - 1]?.trace?.user_act ?? '');
        const askedItems = stringArray(turns[i - 1]?.trace?.said?.items);
        if (builtIn && askedAct === 'Navigate' && askedItems?.length) {
          const about = new Set(askedItems);
          const told = requests.filter(
            (r) => !prevDone!.includes(r) && !done.includes(r) && answerStatesAttribute(ctx, i - 1, r, about),
          );
          if (told.length)
            out.push({
              turn: i,
              detail: `the answer stated ${show([...about].join(', '))}'s ${show(told.join(', '))}, yet the request stays pending`,
            });
        }
      } else if (done.some((r) => requests.includes(r))) {
        out.push({ turn: i, detail: `request ${show(done.join(', '))} fulfilled before anything was asked` });
      }
      // an item question about an attribute the user stated itself (agenda rule 16, eighteenth round)
      const items = stringArray(turn.trace?.said?.items);
      if (agenda && turn.trace?.user_act === 'Navigate' && items?.length && typeof turn.user_utterance === 'string') {
        const held = new Set(Object.keys(goal.constraints ?? {}).filter((a) => stated.has(a)));
        if (held.size) {
          const words = questionWords(turn.user_utterance, items, ctx, i);
          const names = (a: string) => mentionsWords(words, phraseWords(a.replace(/[_-]+/g, ' ')));
          const askedStated = [...held].filter(names);
          const pendingAsked = requests.filter((r) => !done.includes(r) && !held.has(r) && names(r));
          if (askedStated.length && !pendingAsked.length)
            out.push({
              turn: i,
              detail: `the item question asks about ${show(askedStated.join(', '))}, which the user stated itself: ${quote(turn.user_utterance)}`,
            });
        }
      }
      for (const a of Object.keys(turn.trace?.said?.constraints ?? {})) if (a !== 'category') stated.add(a);
      prevDone = done;
    });
    return any ? finding(n, out) : undefined;
  },
};

const noRepetition: Invariant = {
  id: 'no-repetition',
  statement:
    'a simulated user never says, word for word, an utterance it already said in the conversation (except to repeat itself after an agent failure)',
  source:
    'SimLens realism rule (repeated templated turns are the first thing a reviewer notices; ConvApparel human dialogues rarely repeat a turn verbatim)',
  needs: 'simulated turns (a trace) with user utterances',
  check(ctx) {
    const turns = ctx.conversation.turns;
    if (!isSimulated(turns)) return undefined;
    const seen = new Map<string, number>();
    let n = 0;
    const out: Violation[] = [];
    turns.forEach((turn, i) => {
      const text = turn.user_utterance;
      if (typeof text !== 'string' || !turn.trace) return;
      const key = ctx.wordKey(i);
      if (key === '') return;
      n++;
      const ignored =
        (turn.trace as Loose)['ignored_agent_error'] === true || (i > 0 && turns[i - 1].trace?.error !== undefined);
      const at = seen.get(key);
      if (at !== undefined && !ignored)
        out.push({ turn: i, detail: `repeats turn ${at} word for word: ${quote(text)}` });
      if (at === undefined) seen.set(key, i);
    });
    return n ? finding(n, out) : undefined;
  },
};

interface OpinionModel {
  liked: Set<string>;
  disliked: Set<string>;
}

const oppositeOpinion = { like: 'dislike', dislike: 'like' } as const;

/** Words with which a user turns down the items on screen as a whole ("none of these", "nothing in this batch"). */
const TURNS_DOWN_CAROUSEL =
  /\b(none of (these|those|them)|these (don't|do not|aren't|are not|miss)|this (lot|batch)|nothing (here|in this)|feeling these)\b/i;

const opinionMatchesPreferences: Invariant = {
  id: 'opinion-matches-preferences',
  statement:
    'an opinion the user voices (Note.Like, Note.Dislike, an accept, a request for similar items (Inquire.Similar: a like), on the first item of trace.said.items; users without a meta target) agrees with its preference model: never a like of an item the model dislikes (or reflects as disliked), never a dislike of one it likes, unless the item breaks a value the user disclosed; a Note.Like of an item lacking a value the user said it wants (every user) says a value the item has; an Inquire.Similar (every user) names no item lacking a value the user said it wants; and a PEPPER user turns down no carousel ("none of these") before any item was shown',
  source:
    "Zhang & Balog KDD'20 Sect. 5 (the preference model answers Note acts); Kim et al., PEPPER Sect. 3 (reflected preferences)",
  needs:
    'opinions on trace.said.items, with trace.preferences (liked/disliked items or reflected opinions) or a value the user said the liked item lacks',
  check(ctx) {
    const turns = ctx.conversation.turns;
    const hasModel = turns.some((t) => t.trace?.preferences !== undefined);
    const pepper = turns.some((t) => t.trace?.preferences?.model === 'pepper');
    const model: OpinionModel = { liked: new Set(), disliked: new Set() };
    let n = 0;
    const out: Violation[] = [];
    // A PEPPER user has no opinion of items it was never shown: before the first carousel it
    // turns none down (docs/simulation.md, target-free user: it asks to see some instead).
    if (pepper) {
      for (let i = 1; i < turns.length && !turns[i - 1].recommendations?.length; i++) {
        n++;
        const text = turns[i].user_utterance;
        if (typeof text === 'string' && TURNS_DOWN_CAROUSEL.test(text))
          out.push({ turn: i, detail: `turns down a carousel before any item was shown: ${quote(text)}` });
      }
    }
    // What the user said it wants before the turn at hand (statedUpTo / relaxedUpTo, kept as the
    // turns go: a conversation is read once).
    const soFar = new SaidSoFar(ctx);
    const { stated: wanted, relaxed } = soFar;
    const fold = (j: number) => soFar.fold(j);
    /** A value the user said it wants (category aside, relaxations aside) that the item has otherwise. */
    const lacking = (id: string): [string, string] | undefined => {
      const f = ctx.item(id);
      if (!f) return undefined;
      for (const [a, values] of wanted) {
        const have = a === 'category' || relaxed.has(a) ? undefined : f.attributes[a];
        if (have !== undefined && !values.some((v) => equalValue(v, have))) return [a, values.join('|')];
      }
      return undefined;
    };
    turns.forEach((turn, i) => {
      if (i > 0) fold(i - 1);
      const tr = turn.trace;
      if (!tr) return;
      const prefs = tr.preferences;
      // PEPPER: an item lacking a value the user said it wants is reflected as liked only when it
      // has one of them (what it said it wants wins over the reflected opinion)
      if (prefs?.model === 'pepper' && prefs.reflected && typeof prefs.reflected === 'object') {
        const reflected = prefs.reflected as Record<string, unknown>;
        // a turn whose reflected opinions are read counts as checked (a violation found here on a
        // conversation with no opinion voiced was dropped with the finding)
        if (Object.keys(reflected).length) n++;
        for (const id in reflected) {
          if (!Object.hasOwn(reflected, id)) continue;
          if (reflected[id] !== 'like' || id === tr.target?.item_id) continue;
          const lack = lacking(id);
          const f = lack && ctx.item(id);
          if (!f) continue;
          let holds = false;
          for (const [a, values] of wanted) {
            const have = f.attributes[a];
            if (a !== 'category' && !relaxed.has(a) && have !== undefined && values.some((v) => equalValue(v, have))) {
              holds = true;
              break;
            }
          }
          if (!holds)
            out.push({
              turn: i,
              detail: `reflected like of ${show(id)}, which lacks the ${show(lack![0])} ${show(lack![1])} the user said it wants and has none of the values it said it wants`,
            });
        }
      }
      if (prefs) {
        if (prefs.kind !== 'delta') {
          model.liked.clear();
          model.disliked.clear();
        }
        for (const id of stringArray(prefs.liked_items) ?? []) {
          model.liked.add(id);
          model.disliked.delete(id);
        }
        for (const id of stringArray(prefs.disliked_items) ?? []) {
          model.disliked.add(id);
          model.liked.delete(id);
        }
      }
      const act = tr.user_act;
      // A request for items like one (Inquire.Similar) says the user wants that one's kind: a like
      // (docs/simulation.md, agenda user rule 15).
      const opinion =
        act === 'Note.Like' || isAcceptAct(act) || act === 'Inquire.Similar'
          ? 'like'
          : act === 'Note.Dislike'
            ? 'dislike'
            : undefined;
      // The act's opinion is about the first item it names ("I like X. Not Y." is a Note.Like on X);
      // a meta user judges by similarity to its target instead of its preferences (AlterEval).
      const items = stringArray(tr.said?.items)?.slice(0, 1);
      if (!opinion || !items?.length) return;
      // A like of an item lacking a value the user said it wants says why: a value it has that the
      // user wants, said before or a goal value (every user, meta ones too: an item is not liked
      // against the user's own words).
      let checked = false;
      const goalNow = tr.goal?.constraints ?? {};
      const isWanted = (a: string, v: string) =>
        (!relaxed.has(a) && (wanted.get(a) ?? []).some((w) => equalValue(w, v))) ||
        (goalNow[a] !== undefined && goalNow[a] !== null && equalValue(String(goalNow[a]), v));
      if (act === 'Inquire.Similar') {
        // Never more like an item that misses what the user said it wants, has a value it said it
        // does not want, or is not of the category it shops for (every user, meta too).
        const f = ctx.item(items[0]);
        if (f) {
          checked = true;
          const lack = lacking(items[0]);
          const task = tr.goal?.constraints?.['category'];
          const unwanted = [...negatedUpTo(ctx, i - 1).keys()].map((v) => negatedMatch(f, v)).find((m) => m);
          const why = lack
            ? `lacks the ${show(lack[0])} ${show(lack[1])} the user said it wants`
            : task !== undefined && f.category !== undefined && !equalValue(f.category, String(task))
              ? `is of category ${show(f.category)}, not the task ${show(String(task))}`
              : unwanted
                ? `has ${show(unwanted)}, a value the user said it does not want`
                : undefined;
          if (why)
            out.push({
              turn: i,
              detail: `Inquire.Similar on ${show(items[0])}, which ${why}: ${quote(turn.user_utterance)}`,
            });
        }
      }
      if (act === 'Note.Like') {
        const lack = lacking(items[0]);
        if (lack) {
          checked = true;
          const f = ctx.item(items[0])!;
          const reason = (ctx.said(i) ?? []).some(
            ([a, v]) =>
              a !== 'category' && f.attributes[a] !== undefined && equalValue(f.attributes[a]!, v) && isWanted(a, v),
          );
          if (!reason)
            out.push({
              turn: i,
              detail: `Note.Like on ${show(items[0])}, which lacks the ${show(lack[0])} ${show(lack[1])} the user said it wants, without saying a wanted value it has: ${quote(turn.user_utterance)}`,
            });
        }
      }
      if (tr.target !== undefined || !hasModel) {
        if (checked) n++;
        return;
      }
      n++;
      const reflected = (prefs?.reflected ?? {}) as Record<string, string>;
      for (const id of items) {
        const modelSays = model.liked.has(id)
          ? 'like'
          : model.disliked.has(id)
            ? 'dislike'
            : reflected[id] === 'like' || reflected[id] === 'dislike'
              ? reflected[id]
              : undefined;
        if (modelSays !== oppositeOpinion[opinion]) continue;
        if (opinion === 'dislike' && breaksDisclosed(ctx, i, id)) continue;
        out.push({
          turn: i,
          detail: `${show(act)} on ${show(id)} but the preference model ${modelSays === 'like' ? 'likes' : 'dislikes'} it`,
        });
      }
    });
    return n ? finding(n, out) : undefined;
  },
};

/** Does the item break a value the user disclosed by turn `at` (a dislike for the constraint's sake)? */
function breaksDisclosed(ctx: ConversationContext, at: number, id: string): boolean {
  const f = ctx.item(id);
  if (!f) return true; // unknown item: a dislike cannot be ruled out as a constraint's
  const goal = ctx.conversation.turns[at].trace?.goal;
  const disclosed = disclosedOf(ctx.conversation.turns[at].trace);
  const constraints = goal?.constraints ?? {};
  for (const a of disclosed ?? Object.keys(constraints)) {
    const want = constraints[a];
    if (want === undefined) continue;
    const have = a === 'category' ? f.category : f.attributes[a];
    if (have !== undefined && !equalValue(have, String(want))) return true;
  }
  for (const [a, values] of statedUpTo(ctx, at) ?? []) {
    const have = a === 'category' ? f.category : f.attributes[a];
    if (have !== undefined && !values.some((v) => equalValue(v, have))) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Push reasons and reflected opinions (fifteenth round): what a built-in user gives as the reason
// of a push, and the opinions a PEPPER user reflects, are read against the conversation itself.

/** The default answers table of the agenda users (data the simulator reads too; `--answers` replaces it). */
const DEFAULT_ANSWERS = (answersJson as { answers: Record<string, string[]> }).answers;

/** Does `agentAct` answer `userAct` in an answers table (a Main.Sub entry overrides Main; a bare main act accepts its sub-acts)? */
function answersIn(table: Readonly<Record<string, readonly string[]>>, userAct: string, agentAct: string): boolean {
  const list = table[userAct] ?? table[mainOf(userAct)];
  if (!list) return false;
  return list.some((e) => e === agentAct || e === mainOf(agentAct));
}

/** The ids of a turn's carousel joined (the order kept). */
function carouselKey(t: Turn | undefined, depth = Infinity): string {
  return (t?.recommendations ?? [])
    .slice(0, depth)
    .map((r) => r.item_id)
    .join('\u0000');
}

/** A turn's NLU acts (every act read, else the main one). */
function nluActs(tr: SimulatorTrace | undefined): string[] {
  const acts = stringArray((tr?.nlu as Loose | undefined)?.['acts']);
  if (acts) return [...acts];
  return tr?.nlu?.agent_act ? [tr.nlu.agent_act] : [];
}

const AGENDA_SOURCE = /^(meta-(tol|prob)\()?agenda/;
const PEPPER_SOURCE = /^(meta-(tol|prob)\()?target-free/;

/** The values of an item's attributes (lowercase). */
function lowerValues(f: ItemFacts): string[] {
  return Object.values(f.attributes).map((v) => String(v).toLowerCase());
}

/**
 * Why a push reason of a built-in user does not hold on turn `i` (undefined: it holds), or
 * `unknown` for a reason kind the checker cannot read.
 */
function falseReason(
  ctx: ConversationContext,
  i: number,
  reason: string,
  state: { negatedEver: Set<string>; notKeen: Set<string>; likedBefore: Set<string> },
): string | undefined | 'unknown' {
  const turns = ctx.conversation.turns;
  const tr = turns[i].trace!;
  const prev = turns[i - 1];
  const before = prev.trace;
  const recs = prev.recommendations ?? [];
  const looked = recs.slice(0, BROWSE_DEPTH).map((r) => factsAt(ctx, r));
  const text = prev.assistant_utterance ?? '';
  let m: RegExpExecArray | null;
  if (reason === 'the agent had nothing to show')
    return recs.length === 0 ? undefined : `the agent showed ${recs.length} items`;
  if (reason === 'the agent showed nothing for the third turn in a row') {
    const empty = i >= 3 && [1, 2, 3].every((k) => (turns[i - k].recommendations ?? []).length === 0);
    return empty ? undefined : 'the agent showed items on one of its last three turns';
  }
  if ((m = /^none of the first items is in (.+)$/.exec(reason))) {
    const task = m[1];
    const goalCat = before?.goal?.constraints?.['category'];
    if (goalCat !== undefined && String(goalCat) !== task)
      return `the user's category is ${show(goalCat)}, not ${show(task)}`;
    const inTask = looked.find((f) => f.category === undefined || f.category === task);
    return looked.length === 0
      ? 'nothing was shown'
      : inTask
        ? `${show(inTask.item_id)} is in ${show(task)}`
        : undefined;
  }
  if ((m = /^none of the first items has ([^=]+)=(.+)$/.exec(reason))) {
    const [, a, v] = m;
    if (!(ctx.said(i - 1) ?? []).some(([x, y]) => x === a && y === v))
      return `the user did not say ${a}=${v} on the turn before`;
    const has = looked.find((f) => f.attributes[a] === undefined || f.attributes[a] === v);
    return looked.length === 0 ? 'nothing was shown' : has ? `${show(has.item_id)} has ${a}=${v}` : undefined;
  }
  if ((m = /^none of the first items keeps what the user said \((.+)\)$/.exec(reason))) {
    const pairs = m[1].split(', ').map((p) => {
      const eq = p.indexOf('=');
      return [p.slice(0, eq), p.slice(eq + 1)] as const;
    });
    const goal = before?.goal?.constraints ?? {};
    const disclosed = disclosedOf(before) ?? [];
    const unsaid = pairs.find(([a, v]) => String(goal[a]) !== v || !disclosed.includes(a));
    if (unsaid) return `${unsaid[0]}=${unsaid[1]} is not a value of the goal the user said`;
    const keeps = looked.find((f) => pairs.every(([a, v]) => f.attributes[a] === undefined || f.attributes[a] === v));
    return looked.length === 0 ? 'nothing was shown' : keeps ? `${show(keeps.item_id)} keeps all of them` : undefined;
  }
  if ((m = /^the agent showed (\S+) again right after the user passed it over$/.exec(reason))) {
    const id = m[1];
    if (looked[0]?.item_id !== id)
      return `the first item shown is ${show(looked[0]?.item_id ?? 'none')}, not ${show(id)}`;
    // the item passed over: the one the Note named, else the first of the carousel it answered
    const passes = ['Note.Dislike', 'Note.Seen', 'Note.Like'].includes(String(before?.user_act));
    const passed = before?.said?.items?.[0] ?? (i >= 2 ? turns[i - 2].recommendations?.[0]?.item_id : undefined);
    if (!passes || passed !== id) return `the user's turn before did not pass ${show(id)} over`;
    return undefined;
  }
  if ((m = /^every one of the first items has a value the user said it does not want \((.+)\)$/.exec(reason))) {
    const values = m[1].split(', ');
    const unsaid = values.find((v) => !state.negatedEver.has(v.toLowerCase()));
    if (unsaid) return `the user never said it does not want ${show(unsaid)}`;
    const want = new Set(values.map((v) => v.toLowerCase()));
    const free = looked.find((f) => !lowerValues(f).some((v) => want.has(v)));
    return looked.length === 0 ? 'nothing was shown' : free ? `${show(free.item_id)} has none of them` : undefined;
  }
  if ((m = /^(\S+) does not answer (\S+)$/.exec(reason))) {
    const [, agentAct, userAct] = m;
    if (agentAct !== tr.nlu?.agent_act) return `the agent's act read is ${show(tr.nlu?.agent_act ?? 'none')}`;
    if (userAct !== before?.user_act) return `the user's act before was ${show(before?.user_act ?? 'none')}`;
    const table = ctx.options.answers === undefined ? DEFAULT_ANSWERS : ctx.options.answers;
    if (table === null) return 'unknown';
    const answering = nluActs(tr).find((a) => answersIn(table, userAct, a));
    return answering ? `${answering} answers ${userAct} in the run's answers table` : undefined;
  }
  if ((m = /^the agent asked again about a preference already given \((.+)\)$/.exec(reason))) {
    if (!text.includes('?')) return "the agent's turn asks nothing";
    const disclosed = disclosedOf(before) ?? [];
    // which attribute a question asks about is the user's reading (its cue words): the checker
    // checks that there was a question and that each attribute was given before
    const given = m[1].split(', ').find((a) => !disclosed.includes(a));
    return given ? `the user had not given its ${given}` : undefined;
  }
  if ((m = /^the agent did not say what the user asked about the item \((\S+) of (\S+)\)$/.exec(reason))) {
    const [, attr, id] = m;
    const asked = before?.said?.items ?? [];
    if (!['Navigate', 'Inquire'].includes(mainOf(String(before?.user_act ?? ''))) || !asked.includes(id))
      return `the user's turn before did not ask about ${show(id)}`;
    const item = ctx.item(id);
    if (!item) return 'unknown';
    return statesItemValue(text, attr, item.attributes[attr], item.title, item.price)
      ? `the agent said the ${attr} of ${show(id)}`
      : undefined;
  }
  // the built-in target-free user
  const reflected = reflectedOf(tr);
  const liked = Object.keys(reflected ?? {}).filter((id) => reflected![id] === 'like');
  const aboutLikes =
    reason === 'none of the items shown is one the user likes' ||
    reason === 'the only items shown the user likes are ones it liked before and did not take';
  // (a last turn carries no reflected opinions: what the user liked there is not in the trace)
  if (aboutLikes && !reflected) return 'unknown';
  if (reason === 'none of the items shown is one the user likes') {
    if (recs.length === 0) return 'nothing was shown';
    return liked.length ? `the user reflects ${show(liked[0])} as liked` : undefined;
  }
  if (reason === 'the only items shown the user likes are ones it liked before and did not take') {
    const fresh = liked.find((id) => !state.likedBefore.has(id) || id === tr.target?.item_id);
    return liked.length === 0
      ? 'the user reflects no item as liked'
      : fresh
        ? `${show(fresh)} is liked for the first time${fresh === tr.target?.item_id ? ' (or is its target)' : ''}`
        : undefined;
  }
  if (reason === 'the agent showed again the items the user just turned down') {
    const now = carouselKey(prev, BROWSE_DEPTH);
    const last = i >= 2 ? carouselKey(turns[i - 2], BROWSE_DEPTH) : '';
    if (now === '' || now !== last) return 'the first items shown are not the ones shown before, in the same order';
    return isAcceptAct(before?.user_act) || before?.user_act === 'Note.Like'
      ? `the user's turn before (${show(before?.user_act)}) did not turn them down`
      : undefined;
  }
  if (reason === 'every one of the first items has a value the user said it is not keen on') {
    const free = looked.find((f) => !lowerValues(f).some((v) => state.notKeen.has(v)));
    return looked.length === 0 ? 'nothing was shown' : free ? `${show(free.item_id)} has none of them` : undefined;
  }
  return 'unknown';
}

/** A PEPPER turn's reflected opinions (id -> like, neutral, dislike), or undefined. */
function reflectedOf(tr: SimulatorTrace | undefined): Record<string, unknown> | undefined {
  const prefs = tr?.preferences;
  return prefs?.model === 'pepper' && prefs.reflected && typeof prefs.reflected === 'object'
    ? (prefs.reflected as Record<string, unknown>)
    : undefined;
}

const pushReasonHolds: Invariant = {
  id: 'push-reason-holds',
  statement:
    "a built-in user's push gives a reason (trace.push_reason) and the reason is true of the conversation: the items shown (the first three, in order), the goal, values and items the user said before, the agent's text and acts; for the agenda user 'X does not answer Y' needs X to be the act read and Y the user's act before, and none of the agent's acts read to answer Y in the run's answers table (appropriate-answers.json, or the manifest's --answers file)",
  source:
    "Zhang & Balog KDD'20 Sect. 4.2.1 (the indicator: an inappropriate answer is what triggers a push); SimLens agenda and target-free users (docs/simulation.md)",
  needs: 'a built-in user (source agenda… or target-free…) with trace.operation',
  check(ctx) {
    const source = ctx.conversation.source ?? '';
    const agenda = AGENDA_SOURCE.test(source);
    if (!agenda && !PEPPER_SOURCE.test(source)) return undefined;
    const turns = ctx.conversation.turns;
    const out: Violation[] = [];
    const unchecked = new Set<string>();
    const state = { negatedEver: new Set<string>(), notKeen: new Set<string>(), likedBefore: new Set<string>() };
    let n = 0;
    let any = false;
    turns.forEach((turn, i) => {
      const tr = turn.trace;
      if (tr?.operation) any = true;
      if (i >= 1 && tr?.operation === 'push') {
        n++;
        const reason = tr.push_reason;
        if (typeof reason !== 'string' || reason === '')
          out.push({ turn: i, detail: 'a push without a reason (trace.push_reason)' });
        else {
          const why = falseReason(ctx, i, reason, state);
          if (why === 'unknown') {
            unchecked.add(
              ctx.options.answers === null && / does not answer /.test(reason)
                ? "push reasons 'X does not answer Y': the run's own --answers table could not be read (keep it where the manifest says)"
                : / likes/.test(reason)
                  ? 'push reasons about the items the user likes, on a turn without reflected opinions (the last turn)'
                  : `a push reason the checker cannot read (${reason.replace(/\(.*$/, '(…)').slice(0, 60)})`,
            );
          } else if (why !== undefined)
            out.push({ turn: i, detail: `push reason ${quote(reason)} does not hold: ${why}` });
        }
      }
      for (const v of stringArray(tr?.said?.negated) ?? []) {
        state.negatedEver.add(v.toLowerCase());
        state.notKeen.add(v.toLowerCase());
      }
      for (const v of Object.values(tr?.said?.constraints ?? {})) state.notKeen.delete(String(v).toLowerCase());
      const refl = reflectedOf(tr);
      for (const id in refl ?? {}) if (refl![id] === 'like') state.likedBefore.add(id);
    });
    if (!any) return undefined;
    const f = finding(n, out);
    if (unchecked.size) f.unchecked = [...unchecked];
    return f;
  },
};

/** The attribute key the PEPPER snapshot lists ("colour=navy"). */
function valueKey(attr: string, value: string): string {
  return `${attr}=${value}`;
}

const reflectedOpinionsHold: Invariant = {
  id: 'reflected-opinions-hold',
  statement:
    "the built-in target-free user's reflected opinion of a shown item follows from its snapshot and what it said: its target is liked; an item of another category is disliked; a seen item by its rating (3.5 and up liked, 2.5 and down disliked, else neutral); another by its values' sum over the liked and disliked attribute values of the snapshot (above 0 liked, below disliked, else neutral); a liked item lacking a value the user said it wants is neutral unless it has one of the values it said it wants (that its target has too); an item with a value the user said it is not keen on is not judged here",
  source:
    'Kim et al., PEPPER Sect. 3 (reflected preferences from general preferences and seen items); SimLens target-free user (docs/simulation.md)',
  needs:
    'a built-in target-free user whose first turn carries the preference snapshot (preferences.kind snapshot with liked_attributes, disliked_attributes)',
  check(ctx) {
    if (!PEPPER_SOURCE.test(ctx.conversation.source ?? '')) return undefined;
    const turns = ctx.conversation.turns;
    const snap = turns[0]?.trace?.preferences as Loose | undefined;
    if (!snap || snap['kind'] !== 'snapshot') return undefined;
    const liked = new Set(stringArray(snap['liked_attributes']) ?? []);
    const disliked = new Set(stringArray(snap['disliked_attributes']) ?? []);
    const ratings = (snap['item_ratings'] ?? {}) as Record<string, unknown>;
    const task =
      conversationTask(ctx.conversation) ?? saidConstraints(turns[0].trace)?.find(([a]) => a === 'category')?.[1];
    const out: Violation[] = [];
    const unchecked = new Set<string>();
    /** What the user said it wants, per attribute, in the order first said (the category aside). */
    const stated = new Map<string, string>();
    const notKeen = new Set<string>();
    let n = 0;
    turns.forEach((turn, i) => {
      const tr = turn.trace;
      const refl = reflectedOf(tr);
      if (i >= 1 && refl && tr) {
        n++;
        const target = tr.target?.item_id;
        const targetFacts = target ? ctx.item(target) : undefined;
        const switched = (tr as Loose)['switched_from'] !== undefined;
        const shown = new Map((turns[i - 1].recommendations ?? []).map((r) => [r.item_id, r]));
        for (const id of Object.keys(refl)) {
          const rec = shown.get(id);
          const got = refl[id];
          let want: string | undefined;
          if (id === target) want = 'like';
          else if (switched) continue;
          else {
            const f = rec ? factsAt(ctx, rec) : ctx.item(id);
            if (!f) continue;
            if (lowerValues(f).some((v) => notKeen.has(v))) continue;
            const r = ratings[id];
            if (typeof r === 'number') want = r >= 3.5 ? 'like' : r <= 2.5 ? 'dislike' : 'neutral';
            else if (f.category !== undefined && task !== undefined && f.category !== task) want = 'dislike';
            else {
              let s = 0;
              for (const [k, v] of Object.entries(f.attributes))
                s += liked.has(valueKey(k, v)) ? 1 : disliked.has(valueKey(k, v)) ? -1 : 0;
              want = s > 0 ? 'like' : s < 0 ? 'dislike' : 'neutral';
            }
            if (want === 'like') {
              const lacks = [...stated].some(([k, v]) => f.attributes[k] !== undefined && f.attributes[k] !== v);
              if (lacks) {
                if (target && !targetFacts) {
                  unchecked.add("a liked item lacking a wanted value: its target's values unknown (pass --catalog)");
                  continue;
                }
                const held = [...stated].some(
                  ([k, v]) => f.attributes[k] === v && (!targetFacts || targetFacts.attributes[k] === v),
                );
                if (!held) want = 'neutral';
              }
            }
          }
          if (got !== want)
            out.push({
              turn: i,
              detail: `reflected ${show(got)} of ${show(id)}, which the user's snapshot and words make ${want}${id === target ? ' (its target)' : ''}`,
            });
        }
      }
      for (const v of stringArray(tr?.said?.negated) ?? []) notKeen.add(v.toLowerCase());
      for (const [k, v] of saidConstraints(tr) ?? []) {
        notKeen.delete(String(v).toLowerCase());
        if (k !== 'category') stated.set(k, String(v));
      }
    });
    const f = finding(n, out);
    if (unchecked.size) f.unchecked = [...unchecked];
    return f;
  },
};

/** Every invariant, in report order. */
export const INVARIANTS: readonly Invariant[] = [
  disclosedValueStated,
  noEndBeforeRecommendation,
  agendaPullOrder,
  acceptedMeetsConstraints,
  metaStatedMatchesTarget,
  noSilentContradiction,
  negationHonoured,
  errorOnFailingTurn,
  errorNoUserEffect,
  simulatorErrorOutcome,
  acceptEndsDialogue,
  turnCapRespected,
  metaTurnCap,
  initialAgendaRule,
  patienceNonIncreasing,
  abandonAtZero,
  coverageBoundedMonotone,
  coverageMatchesTargets,
  targetNotNamedEarly,
  metaSwitchRule,
  acceptedItemShown,
  satisfactionFrustration,
  goalRequests,
  noRepetition,
  opinionMatchesPreferences,
  pushReasonHolds,
  reflectedOpinionsHold,
];
