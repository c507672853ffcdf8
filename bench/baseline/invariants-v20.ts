// Frozen copy of src/core/check/invariants.ts as of commit bae946f (the 20 invariants before issue 22).
// bench/invariants.ts checks the same conversations with it and with the current checker, for the
// side-by-side speed and the BEFORE mutation score. Not used by the product; do not edit.
/**
 * Named behavioural invariants of simulated conversations. Each one reads only what a SimLens JSONL
 * line carries (turns, carousels, outcome, metadata and the simulator trace) and says "not
 * applicable" (undefined) when the fields it needs are absent, so a run of another tool is never
 * passed by default. Sources: Zhang & Balog, KDD'20 (agenda-based user, CIR6/QRFA, PKG); Kim et al.,
 * PEPPER (target-free user, preference coverage); Vlachou et al., Fashion-AlterEval (meta-simulators);
 * and SimLens' own run rules (README, src/core/run).
 */
import { conversationTask, type RecommendedItem, type SimulatorTrace, type Turn } from '../../src/core/model';
import type {
  ConversationContext,
  Invariant,
  InvariantFinding,
  ItemFacts,
  Violation,
} from '../../src/core/check/types';
import { mentions, mentionsWords, quote, show } from '../../src/core/check/text';
import { tokenize } from '../../src/core/text/tokenize';
import { toConvApparelUserAct } from '../../src/core/taxonomy/acts';

/**
 * An accept in any taxonomy a simulator records its user act in: `Note.Accept` (agenda users) or
 * ConvApparel's `accept_recommendation` (LLM users), in any spelling or alias.
 */
function isAcceptAct(act: string | undefined): boolean {
  return typeof act === 'string' && (act === 'Note.Accept' || toConvApparelUserAct(act) === 'accept_recommendation');
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

function stringArray(v: unknown): string[] | undefined {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;
}

function disclosedOf(trace: SimulatorTrace | undefined): string[] | undefined {
  if (!trace?.goal) return undefined;
  return stringArray((trace.goal as Loose)['disclosed']) ?? [];
}

function saidConstraints(trace: SimulatorTrace | undefined): [string, string][] | undefined {
  const c = trace?.said?.constraints;
  if (!c || typeof c !== 'object') return undefined;
  return Object.entries(c).map(([k, v]) => [k, String(v)]);
}

function equalValue(a: string | undefined, b: string | undefined): boolean {
  return a !== undefined && b !== undefined && a.trim().toLowerCase() === b.trim().toLowerCase();
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** An item's facts as shown in a carousel (attributes flattened to strings). */
export function factsOfRecommendation(rec: RecommendedItem): ItemFacts {
  const attributes: Record<string, string> = {};
  for (const [k, v] of Object.entries(rec.attributes ?? {})) {
    if (typeof v === 'string') attributes[k] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') attributes[k] = String(v);
  }
  return { item_id: rec.item_id, title: rec.title, category: rec.category, attributes };
}

/** The facts of a carousel entry, completed from the catalog when the carousel omits its attributes. */
function factsAt(ctx: ConversationContext, rec: RecommendedItem): ItemFacts {
  const f = factsOfRecommendation(rec);
  if (Object.keys(f.attributes).length === 0 || f.category === undefined) {
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
export const DOCUMENTED_END_REASONS = ['patience', 'early_quit', 'max_turns', 'turn_cap'] as const;

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
  source:
    "Zhang & Balog KDD'20 Sect. 4 (goal constraints are disclosed through the NLG); SimLens trace contract (trace.said)",
  check(ctx) {
    let prev = new Set<string>();
    let turns = 0;
    let any = false;
    const out: Violation[] = [];
    ctx.conversation.turns.forEach((turn, i) => {
      const tr = turn.trace;
      const disclosed = disclosedOf(tr);
      const said = saidConstraints(tr);
      if (disclosed === undefined && said === undefined) return;
      any = true;
      const claims: { attr: string; value: string; why: string }[] = [];
      for (const [attr, value] of said ?? []) claims.push({ attr, value, why: 'said' });
      if (disclosed !== undefined) {
        const constraints = tr?.goal?.constraints ?? {};
        for (const attr of disclosed) {
          if (prev.has(attr) || constraints[attr] === undefined) continue;
          const value = String(constraints[attr]);
          if (!claims.some((c) => c.attr === attr && equalValue(c.value, value)))
            claims.push({ attr, value, why: 'newly disclosed in goal' });
        }
        prev = new Set(disclosed);
      }
      if (claims.length === 0) return;
      turns++;
      const text = turn.user_utterance ?? '';
      for (const c of claims) {
        if (!mentions(text, c.value))
          out.push({
            turn: i,
            detail: `${show(c.attr)}=${show(c.value)} (${c.why}) is not in the utterance ${quote(turn.user_utterance)}`,
          });
      }
    });
    return any ? finding(turns, out) : undefined;
  },
};

const noEndBeforeRecommendation: Invariant = {
  id: 'no-end-before-recommendation',
  statement:
    'a user ends the dialogue only after being shown an item, unless its patience ran out or trace.end_reason names a documented parameter (patience, early_quit, max_turns, turn_cap)',
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
    "a pull takes the top of the previous turn's agenda (Complete only when the agenda is empty) and leaves the rest; a push leaves the pending agenda unchanged",
  source: "Zhang & Balog KDD'20 Sect. 4.1 (agenda as a stack: pull/push; the dialogue ends when the agenda is empty)",
  check(ctx) {
    let prev: string[] | undefined;
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
          if (!sameList(agenda, rest) && !(accepted && agenda.length === 0)) {
            out.push({
              turn: i,
              detail: `after the pull the agenda is [${show(agenda.join(', '))}], expected [${show(rest.join(', '))}]`,
            });
          }
        } else if (!sameList(agenda, prev) && !(accepted && agenda.length === 0)) {
          out.push({
            turn: i,
            detail: `a push changed the pending agenda from [${show(prev.join(', '))}] to [${show(agenda.join(', '))}]`,
          });
        }
      }
      prev = agenda;
    });
    return any ? finding(turns, out) : undefined;
  },
};

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
function statedUpTo(turns: readonly Turn[], at: number): Map<string, string[]> | undefined {
  let any = false;
  const out = new Map<string, string[]>();
  for (let j = 0; j <= at; j++) {
    const said = saidConstraints(turns[j].trace);
    if (!said) continue;
    any = true;
    const expand = turns[j].trace?.user_act === 'Reveal.Expand';
    for (const [attr, value] of said) out.set(attr, expand ? [...(out.get(attr) ?? []), value] : [value]);
  }
  return any ? out : undefined;
}

const acceptedMeetsConstraints: Invariant = {
  id: 'accepted-meets-constraints',
  statement:
    'an accepted item is in the task category and has every value the user disclosed and did not take back (said.constraints, goal.disclosed)',
  source:
    "Zhang & Balog KDD'20 Sect. 4.1-4.3 (the goal constraints C define an acceptable item); SimLens checkContent rule",
  check(ctx) {
    const conv = ctx.conversation;
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
      const stated = statedUpTo(conv.turns, i);
      const disclosed = disclosedOf(tr);
      const constraints = tr.goal?.constraints ?? {};
      for (const [a, v] of stated ?? [])
        if (a !== 'category' && (disclosed === undefined || disclosed.includes(a))) wanted.set(a, v);
      for (const a of disclosed ?? []) {
        if (a !== 'category' && !wanted.has(a) && constraints[a] !== undefined) wanted.set(a, [String(constraints[a])]);
      }
      const problems = (item: ItemFacts): string[] => {
        const p: string[] = [];
        if (task !== undefined && item.category !== undefined && !equalValue(item.category, task))
          p.push(`category ${show(item.category)} is not the task ${show(task)}`);
        for (const [a, values] of wanted) {
          const have = item.attributes[a];
          if (have !== undefined && !values.some((v) => equalValue(v, have)))
            p.push(`${show(a)}=${show(have)}, disclosed ${show(values.join('|'))}`);
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
    'a user that states a value for an attribute it already stated (said.constraints) states the same value, unless that turn is a revision (Reveal.Revise); a Reveal.Expand adds the values it says and takes back the constraints it drops from goal.disclosed',
  source:
    "Zhang & Balog KDD'20 Sect. 4.1 (one goal constraint per slot; Reveal.Revise is the act that changes it); SimLens docs/simulation.md (one value per attribute)",
  check(ctx) {
    const last = new Map<string, string[]>();
    let disclosedBefore: string[] | undefined;
    let turns = 0;
    let any = false;
    const out: Violation[] = [];
    ctx.conversation.turns.forEach((turn, i) => {
      const tr = turn.trace;
      const act = tr?.user_act;
      const expand = act === 'Reveal.Expand';
      const disclosed = disclosedOf(tr);
      // Only a relaxing turn takes a constraint back; a goal that drops one silently (a target
      // switch) still holds the user to what it said.
      if (expand && disclosed !== undefined && disclosedBefore !== undefined) {
        for (const attr of disclosedBefore) if (!disclosed.includes(attr)) last.delete(attr);
      }
      if (disclosed !== undefined) disclosedBefore = disclosed;
      const said = saidConstraints(tr);
      if (!said) return;
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
      if (restated) turns++;
    });
    return any ? finding(turns, out) : undefined;
  },
};

const metaStatedMatchesTarget: Invariant = {
  id: 'meta-consistent-with-target',
  statement:
    "a meta-simulated user's goal constraints, stated values and negated values agree with its current target's attributes",
  source: 'Vlachou et al., Fashion-AlterEval Sect. 4 (the wrapped user critiques towards the current target, I3)',
  check(ctx) {
    let turns = 0;
    let any = false;
    const out: Violation[] = [];
    ctx.conversation.turns.forEach((turn, i) => {
      const tr = turn.trace;
      const id = tr?.target?.item_id;
      if (!tr || typeof id !== 'string') return;
      const target = ctx.item(id);
      if (!target) return;
      const goal = tr.goal?.constraints;
      const said = saidConstraints(tr);
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
      for (const [a, v] of Object.entries(goal ?? {})) check(a, String(v), 'goal');
      for (const [a, v] of said ?? []) if (!(goal && equalValue(String(goal[a] ?? ''), v))) check(a, v, 'said');
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
  for (const [k, v] of Object.entries(item.attributes)) if (equalValue(v, negated)) return `${k}=${v}`;
  return undefined;
}

const negationHonoured: Invariant = {
  id: 'negation-honoured',
  statement:
    'local-good never shows, in its top three, an item with a value the user negated in that turn (trace.said.negated)',
  source: 'SimLens local-good contract (README "Simulation without LLMs": exclusions are hard filters)',
  check(ctx) {
    const conv = ctx.conversation;
    const agents = ctx.options.negationAgents ?? ['local-good'];
    if (!conv.agent || !agents.includes(conv.agent)) return undefined;
    let turns = 0;
    let any = false;
    const out: Violation[] = [];
    conv.turns.forEach((turn, i) => {
      const negated = stringArray(turn.trace?.said?.negated);
      if (!negated) return;
      any = true;
      const recs = turn.recommendations ?? [];
      if (negated.length === 0 || recs.length === 0) return;
      turns++;
      recs.slice(0, 3).forEach((rec, k) => {
        const item = factsAt(ctx, rec);
        for (const n of negated) {
          const hit = negatedMatch(item, n);
          if (hit)
            out.push({
              turn: i,
              detail: `item #${k + 1} ${show(rec.item_id)} has ${show(hit)}, which the user negated`,
            });
        }
      });
    });
    return any ? finding(turns, out) : undefined;
  },
};

const errorOnFailingTurn: Invariant = {
  id: 'agent-error-on-failing-turn',
  statement:
    'trace.error sits only on the turn whose agent call failed (no assistant answer, or an error_kind), never copied to the next turn',
  source: 'SimLens run contract (src/core/run/failures.ts, SimulatorTrace.error)',
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

/** The failure kinds of the simulator's side (src/core/run/failures.ts). */
const SIMULATOR_FAILURE_KINDS = new Set(['user_llm', 'simulator_error']);

const errorNoUserEffect: Invariant = {
  id: 'agent-error-no-user-effect',
  statement:
    'an agent failure ends the conversation on that turn with outcome agent_error; the user never reacts to it (patience unchanged)',
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
  statement: 'patience never rises, and falls by one only on a push',
  source:
    "Zhang & Balog KDD'20 Sect. 4.1 (an inappropriate answer triggers a push) and Sect. 6 (patience); SimLens agenda user",
  check(ctx) {
    let prev: number | undefined;
    let n = 0;
    let any = false;
    const out: Violation[] = [];
    ctx.conversation.turns.forEach((turn, i) => {
      const p = turn.trace?.patience;
      if (typeof p !== 'number') return;
      any = true;
      if (prev !== undefined) {
        n++;
        const op = turn.trace?.operation;
        if (p > prev) out.push({ turn: i, detail: `patience rose from ${prev} to ${p}` });
        else if (p < prev && prev - p > 1) out.push({ turn: i, detail: `patience fell by ${prev - p} in one turn` });
        else if (p < prev && op !== undefined && op !== 'push')
          out.push({ turn: i, detail: `patience fell on a ${show(op)}` });
      }
      prev = p;
    });
    return any ? finding(n, out) : undefined;
  },
};

const abandonAtZero: Invariant = {
  id: 'abandon-at-zero',
  statement: 'a user abandons exactly when its patience reaches 0, and abandoning is its last turn',
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
      if (!abandons && typeof p === 'number' && p <= 0)
        out.push({ turn: i, detail: `patience ${p} but the user did not abandon` });
      if (abandons && i !== turns.length - 1)
        out.push({ turn: i, detail: 'the dialogue went on after the user abandoned' });
    });
    const lastAct = turns[turns.length - 1]?.trace?.user_act;
    if (conv.outcome === 'abandoned' && typeof lastAct === 'string' && lastAct !== 'Complete.Abandon') {
      out.push({ turn: turns.length - 1, detail: `outcome abandoned but the last user act is ${show(lastAct)}` });
    }
    return finding(n, out);
  },
};

const coverageBoundedMonotone: Invariant = {
  id: 'coverage-monotone',
  statement: 'PEPPER preference coverage stays in [0, 1] and never decreases',
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
  statement: 'a target-free user never names one of its target items before the agent has shown it',
  source: "Kim et al., PEPPER Sect. 3 (target-free simulation: targets stay hidden from the user's utterances)",
  check(ctx) {
    const turns = ctx.conversation.turns;
    const targets = stringArray(turns.find((t) => t.trace?.targets !== undefined)?.trace?.targets);
    if (!targets || targets.length === 0) return undefined;
    const titles = new Map<string, { title: string; words: string[] }>();
    for (const id of targets) {
      const t = ctx.item(id)?.title;
      if (t) titles.set(id, { title: t, words: tokenize(t) });
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
        const text = tokenize(turn.user_utterance);
        for (const id of targets) {
          if (shown.has(id)) continue;
          if (said.includes(id)) {
            out.push({ turn: i, detail: `names target ${show(id)} (said.items) before it was shown` });
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
        const shownWords = tokenize(r.title);
        for (const [id, title] of titles)
          if (!nameShown.has(id) && mentionsWords(shownWords, title.words)) nameShown.add(id);
      }
    });
    return finding(n, out);
  },
};

const metaSwitchRule: Invariant = {
  id: 'meta-switch-rule',
  statement:
    'a meta-simulator switches target only after the tolerance, only to a member of its fixed target group, and records switched_from',
  source:
    'Vlachou et al., Fashion-AlterEval Algorithms 1 and 2 (turn > tolerance; target = argmax over the alternatives)',
  check(ctx) {
    const tolerance = ctx.options.metaTolerance ?? DEFAULT_META_TOLERANCE;
    let group: string[] | undefined;
    let prev: string | undefined;
    let n = 0;
    const out: Violation[] = [];
    ctx.conversation.turns.forEach((turn, i) => {
      const target = turn.trace?.target;
      if (!target || typeof target.item_id !== 'string') return;
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
      prev = target.item_id;
    });
    return n ? finding(n, out) : undefined;
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
];
