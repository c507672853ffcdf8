/**
 * Mutation testing of the invariant checker: operators that take a clean simulated conversation
 * and make exactly one thing wrong (a label, a text, a silent state change, a shifted turn, a
 * swapped or unshown item, a relabelled outcome or end reason, a meta switch against one rule),
 * each aimed at one invariant and one turn. `mutationScore` applies every operator to every
 * conversation it fits (the site is drawn from a seeded generator, never hand-picked) and counts,
 * per invariant, the mutants the checker catches with that invariant on that turn.
 *
 * The test suite (test/unit/check/mutation.test.ts) requires >= 95 % per invariant; the
 * invariants bench (bench/invariants.ts) reports the score of the current checker and of the
 * frozen 20-invariant checker of before (bench/baseline) side by side.
 */
import type { Conversation, RecommendedItem, SimulatorTrace, Turn } from '../model';
import { createRng, type Rng } from '../random';
import { InvariantChecker } from './checker';
import { ReadbackChecker } from './readback';
import { INVARIANTS, builtInUser } from './invariants';
import { mentionsWords, phraseWords } from './text';
import { statesItemValue } from '../text/saysValue';
import answersJson from '../sim/users/agenda/appropriate-answers.json';
import type { CheckOptions, Invariant, ItemFacts, ItemLookup } from './types';

/** What an operator may use besides the conversation: the run's catalog (meta and PEPPER targets) and settings. */
interface MutationContext {
  catalog?: ItemLookup & { similarity?(a: never, b: never): number };
  maxTurns?: number;
  metaTolerance?: number;
}

interface Mutant {
  conversation: Conversation;
  /** The turn the target invariant must name (0-based). */
  turn: number;
  /** What was made wrong, for a report line. */
  detail: string;
}

/**
 * The target of operators whose fault only the words show (a label that the text contradicts): the
 * read-back (./readback.ts) must report a disagreement on the mutant's turn.
 */
export const READBACK_TARGET = 'self-consistency';

/** The synthetic catalog's price bands (src/core/catalog/apparel.ts). */
const PRICE_BANDS = ['budget', 'mid-range', 'premium', 'luxury'];

interface MutationOperator {
  id: string;
  /** The invariant that must catch it (INVARIANTS id), or READBACK_TARGET. */
  invariant: string;
  /** Kind of change: label, text, negation, state, shift, item, outcome, meta. */
  kind: 'label' | 'text' | 'negation' | 'state' | 'shift' | 'item' | 'outcome' | 'meta';
  /** One line: what the operator does. */
  description: string;
  /** undefined: the conversation has no site for this operator. */
  apply(conversation: Conversation, rng: Rng, ctx: MutationContext): Mutant | undefined;
}

// ---------------------------------------------------------------------------------------------
// Readers and small helpers

type Loose = Record<string, unknown>;

function clone(c: Conversation): Conversation {
  return structuredClone(c);
}

function tr(t: Turn | undefined): SimulatorTrace | undefined {
  return t?.trace ?? undefined;
}

function sites(c: Conversation, pred: (t: Turn, i: number) => boolean): number[] {
  const out: number[] = [];
  c.turns.forEach((t, i) => {
    if (pred(t, i)) out.push(i);
  });
  return out;
}

function pickSite(rng: Rng, list: readonly number[]): number | undefined {
  return list.length ? list[rng.int(list.length)] : undefined;
}

function mainOf(act: string | undefined): string {
  if (!act) return '';
  const dot = act.indexOf('.');
  return dot < 0 ? act : act.slice(0, dot);
}

/**
 * The turns of a PEPPER user (a trace with `preferences.reflected`) where `test` holds, given the
 * items it reflects as liked on that turn and those it liked on an earlier turn.
 */
function pepperSites(
  c: Conversation,
  test: (i: number, x: SimulatorTrace, liked: readonly string[], before: ReadonlySet<string>) => boolean,
): number[] {
  const before = new Set<string>();
  const out: number[] = [];
  c.turns.forEach((t, i) => {
    const x = tr(t);
    const refl = x?.preferences?.model === 'pepper' ? (x.preferences.reflected as Loose | undefined) : undefined;
    if (!x || !refl || typeof refl !== 'object') return;
    const liked = Object.keys(refl).filter((id) => refl[id] === 'like');
    if (test(i, x, liked, before)) out.push(i);
    for (const id of liked) before.add(id);
  });
  return out;
}

function isAccept(act: unknown): boolean {
  return act === 'Note.Accept' || act === 'accept_recommendation';
}

function strList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function constraintsSaid(t: Turn): [string, string][] {
  const c = tr(t)?.said?.constraints;
  return c && typeof c === 'object' ? Object.entries(c).map(([k, v]) => [k, String(v)]) : [];
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Every item a conversation shows with its attributes (first showing wins). */
function shownItems(c: Conversation, upTo = c.turns.length): Map<string, RecommendedItem> {
  const out = new Map<string, RecommendedItem>();
  for (let i = 0; i < upTo && i < c.turns.length; i++)
    for (const r of c.turns[i].recommendations ?? []) if (!out.has(r.item_id)) out.set(r.item_id, r);
  return out;
}

function attrsOf(r: RecommendedItem | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(r?.attributes ?? {}))
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
  return out;
}

function factsOf(c: Conversation, id: string, ctx: MutationContext): ItemFacts | undefined {
  const shown = shownItems(c).get(id);
  if (shown && Object.keys(attrsOf(shown)).length)
    return { item_id: id, title: shown.title, category: shown.category, attributes: attrsOf(shown) };
  const k = ctx.catalog?.get(id);
  return k ? { item_id: k.item_id, title: k.title, category: k.category, attributes: { ...k.attributes } } : undefined;
}

/** The values an attribute takes among the items of this conversation. */
function valuesOf(c: Conversation, attr: string): string[] {
  const out = new Set<string>();
  for (const r of shownItems(c).values()) {
    const v = attrsOf(r)[attr];
    if (v !== undefined) out.add(v);
  }
  return [...out].sort();
}

function lastTurnIndex(c: Conversation): number {
  return c.turns.length - 1;
}

function endReasonOf(t: Turn | undefined): unknown {
  return (tr(t) as Loose | undefined)?.['end_reason'];
}

function setLoose(t: SimulatorTrace, key: string, value: unknown): void {
  (t as Loose)[key] = value;
}

function metaMode(c: Conversation): 'tol' | 'prob' | undefined {
  const s = c.source ?? '';
  return s.startsWith('meta-tol') ? 'tol' : s.startsWith('meta-prob') ? 'prob' : undefined;
}

/** The agent's top item and whether the target was among the first three, as the user saw them before turn i. */
function switchSites(c: Conversation): number[] {
  const out: number[] = [];
  c.turns.forEach((t, i) => {
    const target = tr(t)?.target;
    if (i > 0 && target?.switched_from !== undefined && tr(c.turns[i - 1])?.target?.item_id === target.switched_from)
      out.push(i);
  });
  return out;
}

function setTargetFrom(c: Conversation, from: number, id: string, switchedFrom: string | undefined): void {
  for (let j = from; j < c.turns.length; j++) {
    const t = tr(c.turns[j])?.target;
    if (!t) continue;
    if (j > from && t.switched_from !== undefined) break;
    t.item_id = id;
    if (j === from && switchedFrom !== undefined) {
      t.switched_from = switchedFrom;
      t.switch_reason = 'mutated';
    } else {
      delete t.switched_from;
      delete t.switch_reason;
    }
  }
}

function similarityOf(ctx: MutationContext, a: string, b: string): number | undefined {
  const cat = ctx.catalog;
  if (!cat?.similarity) return undefined;
  const x = cat.get(a);
  const y = cat.get(b);
  return x && y ? (cat.similarity as (p: unknown, q: unknown) => number)(x, y) : undefined;
}

const TOP_SEEN = 3;

/** Does the item keep every value the user stated or its goal disclosed by turn `at` (category included)? */
function keepsStated(c: Conversation, at: number, id: string, ctx: MutationContext): boolean {
  const f = factsOf(c, id, ctx);
  if (!f) return false;
  const want = new Map<string, string[]>();
  for (let j = 0; j <= at; j++) {
    const expand = tr(c.turns[j])?.user_act === 'Reveal.Expand';
    for (const [a, v] of constraintsSaid(c.turns[j])) want.set(a, expand ? [...(want.get(a) ?? []), v] : [v]);
  }
  const x = tr(c.turns[at]);
  const goal = x?.goal?.constraints ?? {};
  for (const a of strList((x?.goal as Loose | undefined)?.['disclosed']))
    if (goal[a] !== undefined) want.set(a, [...(want.get(a) ?? []), String(goal[a])]);
  for (const [a, values] of want) {
    const have = a === 'category' ? f.category : f.attributes[a];
    if (have !== undefined && !values.every((v) => v.toLowerCase() === have.toLowerCase())) return false;
  }
  return true;
}

/**
 * What the user said it wants before turn `at` (attribute -> value, lower case, category aside);
 * undefined when a relaxation (Reveal.Expand) came before it, to keep the operators that use it plain.
 */
function wantedBefore(c: Conversation, at: number): Map<string, string> | undefined {
  const want = new Map<string, string>();
  for (let j = 0; j < at; j++) {
    if (tr(c.turns[j])?.user_act === 'Reveal.Expand') return undefined;
    for (const [a, v] of constraintsSaid(c.turns[j])) if (a !== 'category') want.set(a, v.toLowerCase());
  }
  return want;
}

/**
 * A mutant that makes a turn of `act` (a like: Note.Like, Inquire.Similar) name instead another item of
 * the carousel that lacks a value the user said it wants and has none of the values the turn says,
 * its title swapped in the words (opinion-matches-preferences).
 */
function lackingItemMutant(id: string, act: string, description: string): MutationOperator {
  return otherItemMutant(id, act, description, 'opinion-matches-preferences', (c0, i, first) => {
    const want = wantedBefore(c0, i);
    if (!want) return undefined;
    const now = constraintsSaid(c0.turns[i]);
    return (c0.turns[i - 1]?.recommendations ?? []).find((r) => {
      if (r.item_id === first) return false;
      const a = attrsOf(r);
      const lacks = [...want].some(([k, v]) => a[k] !== undefined && a[k].toLowerCase() !== v);
      const reason = now.some(([k, v]) => k !== 'category' && a[k]?.toLowerCase() === v.toLowerCase());
      return lacks && !reason;
    });
  });
}

/**
 * A mutant that makes the words of a turn of `act` name another item of the carousel (its title
 * swapped in for the named item's) while the trace still names the first (said.items kept):
 * accepted-item-shown (the words name an item the turn does not speak about).
 */
function wordsNameOtherMutant(id: string, act: string, description: string): MutationOperator {
  return otherItemMutant(
    id,
    act,
    description,
    'accepted-item-shown',
    (c0, i, first) => {
      const recs = c0.turns[i - 1]?.recommendations ?? [];
      const was = recs.find((r) => r.item_id === first);
      const text = c0.turns[i].user_utterance;
      // the named item's title is in the words, and the other's title is not one of its (or its within the other's)
      if (!was?.title || text === undefined || !new RegExp(escapeRe(was.title), 'i').test(text)) return undefined;
      const own = phraseWords(was.title);
      return recs.find((r) => {
        if (r.item_id === first || !r.title) return false;
        const t = phraseWords(r.title);
        return !mentionsWords(own, t) && !mentionsWords(t, own);
      });
    },
    true,
  );
}

/**
 * The mutant factory of `lackingItemMutant` and `wordsNameOtherMutant`: on a turn of `act` naming an
 * item (said.items), `pick` chooses another item of the carousel; its title replaces the named
 * item's in the words, and, unless `wordsOnly`, it replaces the named item in said.items too.
 */
function otherItemMutant(
  id: string,
  act: string,
  description: string,
  invariant: string,
  pick: (c0: Conversation, i: number, first: string) => RecommendedItem | undefined,
  wordsOnly = false,
): MutationOperator {
  return {
    id,
    invariant,
    kind: wordsOnly ? 'text' : 'item',
    description,
    apply(c0, rng) {
      const pickAt = (i: number): RecommendedItem | undefined => {
        const x = tr(c0.turns[i]);
        const first = strList(x?.said?.items)[0];
        if (x?.user_act !== act || first === undefined) return undefined;
        return pick(c0, i, first);
      };
      const i = pickSite(
        rng,
        sites(c0, (_t, i) => i > 0 && pickAt(i) !== undefined),
      );
      if (i === undefined) return undefined;
      const other = pickAt(i)!;
      const c = clone(c0);
      const t = tr(c.turns[i])!;
      const items = strList(t.said!.items);
      const was = c0.turns[i - 1].recommendations!.find((r) => r.item_id === items[0]);
      if (!wordsOnly) {
        items[0] = other.item_id;
        t.said!.items = items;
      }
      const text = c.turns[i].user_utterance;
      if (was?.title && other.title && text !== undefined)
        c.turns[i].user_utterance = text.replace(new RegExp(escapeRe(was.title), 'gi'), () => other.title!);
      return {
        conversation: c,
        turn: i,
        detail: wordsOnly
          ? `the words of the ${act} name ${other.item_id} instead of ${was?.item_id ?? '?'} (said.items kept)`
          : `the ${act} names ${other.item_id} instead of ${was?.item_id ?? '?'}`,
      };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The operators

/** The kind of built-in user a conversation is from (its `source`), if any. */
function builtInSource(c: Conversation): 'agenda' | 'target-free' | undefined {
  return builtInUser(c.source);
}

/** The default answers table of the agenda users (data: src/core/sim/users/agenda/appropriate-answers.json). */
function answersDefault(userAct: string, agentAct: string): boolean {
  const table = (answersJson as { answers: Record<string, string[]> }).answers;
  const list = table[userAct] ?? table[mainOf(userAct)];
  return (list ?? []).some((e) => e === agentAct || e === mainOf(agentAct));
}

const ONLY_LIKED_BEFORE = 'the only items shown the user likes are ones it liked before and did not take';

/**
 * Push reasons of the conversation's built-in user that the conversation shows false on turn `i`
 * (about the carousel of turn i-1), each made from what that carousel and the turns before hold.
 */
function falseReasonsAt(c: Conversation, i: number): string[] {
  const kind = builtInSource(c);
  const turns = c.turns;
  const recs = (turns[i - 1].recommendations ?? []).slice(0, TOP_SEEN);
  if (!recs.length) return [];
  const out: string[] = [];
  const negated = new Set<string>();
  for (const t of turns.slice(0, i)) for (const v of strList(tr(t)?.said?.negated)) negated.add(v.toLowerCase());
  const firstHas = Object.entries(attrsOf(recs[0])).filter(([a]) => a !== 'category' && a !== 'brand');
  const lacking = [...negated].filter((v) =>
    recs.some((r) => !Object.values(attrsOf(r)).some((x) => x.toLowerCase() === v)),
  );
  const ids = (t: Turn | undefined) =>
    (t?.recommendations ?? [])
      .slice(0, TOP_SEEN)
      .map((r) => r.item_id)
      .join('\u0000');
  if (kind === 'agenda') {
    const said = constraintsSaid(turns[i - 1]).filter(
      ([a, v]) => a !== 'category' && recs.some((r) => attrsOf(r)[a] === v),
    );
    for (const [a, v] of said) out.push(`none of the first items has ${a}=${v}`);
    if (!said.length && firstHas.length) {
      const [a, v] = firstHas[0];
      out.push(`none of the first items has ${a}=${v}`);
    }
    if (lacking.length)
      out.push(`every one of the first items has a value the user said it does not want (${lacking[0]})`);
    const passed = tr(turns[i - 1])?.said?.items?.[0];
    if (passed !== recs[0].item_id)
      out.push(`the agent showed ${recs[0].item_id} again right after the user passed it over`);
  } else if (kind === 'target-free') {
    if (i < 2 || ids(turns[i - 1]) !== ids(turns[i - 2]))
      out.push('the agent showed again the items the user just turned down');
    if (recs.some((r) => !Object.values(attrsOf(r)).some((x) => negated.has(x.toLowerCase()))))
      out.push('every one of the first items has a value the user said it is not keen on');
    const refl = tr(turns[i])?.preferences?.reflected as Loose | undefined;
    if (refl && Object.values(refl).includes('like')) out.push('none of the items shown is one the user likes');
  }
  return out;
}

const OPERATORS: MutationOperator[] = [
  // disclosed-value-stated
  {
    id: 'text-drop-disclosed',
    invariant: 'disclosed-value-stated',
    kind: 'text',
    description: 'the utterance no longer says a value its trace says it stated',
    apply(c0, rng) {
      const c = clone(c0);
      const i = pickSite(
        rng,
        sites(c, (t) =>
          constraintsSaid(t).some(
            ([, v]) => v.length > 2 && (t.user_utterance ?? '').toLowerCase().includes(v.toLowerCase()),
          ),
        ),
      );
      if (i === undefined) return undefined;
      const t = c.turns[i];
      const [attr, v] = rng.pick(
        constraintsSaid(t).filter(
          ([, v]) => v.length > 2 && (t.user_utterance ?? '').toLowerCase().includes(v.toLowerCase()),
        ),
      );
      t.user_utterance = (t.user_utterance ?? '').replace(new RegExp(escapeRe(v), 'gi'), 'something');
      return { conversation: c, turn: i, detail: `dropped ${attr}=${v} from the text` };
    },
  },
  {
    id: 'text-negate-disclosed',
    invariant: 'disclosed-value-stated',
    kind: 'negation',
    description: 'the utterance only negates a value its trace says it stated ("Anything but red.")',
    apply(c0, rng) {
      const c = clone(c0);
      const i = pickSite(
        rng,
        sites(c, (t) => constraintsSaid(t).some(([a]) => a !== 'category')),
      );
      if (i === undefined) return undefined;
      const [attr, v] = rng.pick(constraintsSaid(c.turns[i]).filter(([a]) => a !== 'category'));
      const forms = [`Anything but ${v}.`, `Not ${v}, please.`, `I don't want ${v}.`, `Nothing ${v}.`];
      c.turns[i].user_utterance = rng.pick(forms);
      return { conversation: c, turn: i, detail: `${attr}=${v} only negated in the text` };
    },
  },
  {
    id: 'label-unsaid-disclosure',
    invariant: 'disclosed-value-stated',
    kind: 'state',
    description: 'the trace claims a goal value was said that the utterance does not contain',
    apply(c0, rng) {
      const c = clone(c0);
      const candidates = sites(c, (t) => {
        const g = tr(t)?.goal?.constraints ?? {};
        const text = (t.user_utterance ?? '').toLowerCase();
        return (
          tr(t)?.said !== undefined &&
          Object.entries(g).some(([, v]) => String(v).length > 2 && !text.includes(String(v).toLowerCase()))
        );
      });
      const i = pickSite(rng, candidates);
      if (i === undefined) return undefined;
      const t = tr(c.turns[i])!;
      const text = (c.turns[i].user_utterance ?? '').toLowerCase();
      const [attr, v] = rng.pick(
        Object.entries(t.goal!.constraints).filter(
          ([, v]) => String(v).length > 2 && !text.includes(String(v).toLowerCase()),
        ),
      );
      t.said = { ...t.said, constraints: { ...(t.said?.constraints ?? {}), [attr]: v } };
      return { conversation: c, turn: i, detail: `said.constraints gained ${attr}=${String(v)}` };
    },
  },
  // no-end-before-recommendation
  {
    id: 'shift-end-before-shown',
    invariant: 'no-end-before-recommendation',
    kind: 'shift',
    description: 'the dialogue is cut so the user ends (completed, patience left) before any item was shown',
    apply(c0) {
      const first = c0.turns.findIndex((t) => (t.recommendations?.length ?? 0) > 0);
      if (first < 1) return undefined;
      const c = clone(c0);
      c.turns = c.turns.slice(0, first + 1);
      const last = c.turns[first];
      const t = tr(last);
      if (!t || !(typeof t.patience === 'number' ? t.patience > 0 : true)) return undefined;
      delete last.recommendations;
      t.user_act = 'Complete';
      setLoose(t, 'end_reason', 'completed');
      c.outcome = 'ended';
      delete c.metadata?.['turn_cap'];
      return { conversation: c, turn: first, detail: `ended on turn ${first} before any item` };
    },
  },
  // agenda-pull-order
  {
    id: 'label-pulled-act',
    invariant: 'agenda-pull-order',
    kind: 'label',
    description: 'a pull records an act that was not the top of the agenda',
    apply(c0, rng) {
      const c = clone(c0);
      const i = pickSite(
        rng,
        sites(
          c,
          (t, i) =>
            i > 0 &&
            tr(t)?.operation === 'pull' &&
            (tr(t)?.pulled?.length ?? 0) > 0 &&
            Array.isArray(tr(c.turns[i - 1])?.agenda),
        ),
      );
      if (i === undefined) return undefined;
      const t = tr(c.turns[i])!;
      const was = t.pulled![0];
      const other = ['Disclose', 'Navigate', 'Inquire', 'Note', 'Reveal'].filter(
        (a) => a !== mainOf(was) && a !== mainOf(strList(tr(c.turns[i - 1])?.agenda)[0]),
      );
      t.pulled = [rng.pick(other)];
      return { conversation: c, turn: i, detail: `pulled ${was} relabelled ${t.pulled[0]}` };
    },
  },
  {
    id: 'label-performed-act',
    invariant: 'agenda-pull-order',
    kind: 'label',
    description: 'the act performed differs from the act pulled (or pushed), with no planned act to explain it',
    apply(c0, rng) {
      const c = clone(c0);
      const i = pickSite(
        rng,
        sites(c, (t) => {
          const x = tr(t);
          const op = x?.operation;
          const act = op === 'pull' ? x?.pulled?.[0] : op === 'push' ? x?.pushed?.[0] : undefined;
          return (
            act !== undefined &&
            typeof x?.user_act === 'string' &&
            !isAccept(x.user_act) &&
            mainOf(x.user_act) !== 'Complete' &&
            (x as Loose)['planned_act'] === undefined
          );
        }),
      );
      if (i === undefined) return undefined;
      const t = tr(c.turns[i])!;
      const was = t.user_act!;
      const planned = (t as Loose)['planned_act'];
      const avoid = new Set([
        mainOf(was),
        mainOf(t.pulled?.[0] ?? t.pushed?.[0]),
        mainOf(typeof planned === 'string' ? planned : ''),
      ]);
      t.user_act = rng.pick(
        ['Disclose', 'Navigate.More', 'Inquire.Subset', 'Note.Dislike', 'Reveal.Refine'].filter(
          (a) => !avoid.has(mainOf(a)),
        ),
      );
      return { conversation: c, turn: i, detail: `user_act ${was} relabelled ${t.user_act}` };
    },
  },
  {
    id: 'silent-agenda-drop',
    invariant: 'agenda-pull-order',
    kind: 'state',
    description: 'an act silently disappears from the agenda',
    apply(c0, rng) {
      const c = clone(c0);
      const i = pickSite(
        rng,
        sites(
          c,
          (t, i) =>
            i > 0 &&
            (tr(t)?.operation === 'pull' || tr(t)?.operation === 'push') &&
            strList(tr(t)?.agenda).length > 0 &&
            Array.isArray(tr(c.turns[i - 1])?.agenda),
        ),
      );
      if (i === undefined) return undefined;
      const t = tr(c.turns[i])!;
      const k = rng.int(t.agenda!.length);
      const gone = t.agenda!.splice(k, 1)[0];
      return { conversation: c, turn: i, detail: `dropped ${gone} from the agenda` };
    },
  },
  {
    id: 'pulled-act-kept',
    invariant: 'agenda-pull-order',
    kind: 'state',
    description: 'a pull leaves the act it took on the agenda, with no elicitation answered first',
    apply(c0, rng) {
      const c = clone(c0);
      const i = pickSite(
        rng,
        sites(c, (t, i) => {
          const x = tr(t);
          const prev = tr(c.turns[i - 1])?.agenda;
          return (
            i > 0 &&
            x?.operation === 'pull' &&
            Array.isArray(prev) &&
            prev.length > 0 &&
            Array.isArray(x.agenda) &&
            x.agenda.length === prev.length - 1 &&
            typeof x.user_act === 'string' &&
            !isAccept(x.user_act) &&
            !(mainOf(x.user_act) === 'Disclose' && x.nlu?.agent_act === 'Inquire.Elicit') &&
            !(x.target !== undefined && mainOf(x.user_act) === 'Reveal')
          );
        }),
      );
      if (i === undefined) return undefined;
      const t = tr(c.turns[i])!;
      t.agenda = [...strList(tr(c.turns[i - 1])?.agenda)];
      return { conversation: c, turn: i, detail: `kept ${t.pulled?.[0]} on the agenda after pulling it` };
    },
  },
  {
    id: 'deferral-answers-nothing',
    invariant: 'agenda-pull-order',
    kind: 'state',
    description: 'a pulled act kept on the agenda by an answer to an elicitation that states nothing new',
    apply(c0, rng) {
      const c = clone(c0);
      const i = pickSite(
        rng,
        sites(c, (t, i) => {
          const x = tr(t);
          const prev = strList(tr(c.turns[i - 1])?.agenda);
          return (
            i > 0 &&
            x?.operation === 'pull' &&
            x.user_act === 'Disclose' &&
            x.nlu?.agent_act === 'Inquire.Elicit' &&
            prev.length > 0 &&
            JSON.stringify(strList(x.agenda)) === JSON.stringify(prev) &&
            Object.keys(x.said?.constraints ?? {}).length > 0
          );
        }),
      );
      if (i === undefined) return undefined;
      const t = tr(c.turns[i])!;
      const was = Object.keys(t.said!.constraints!).join(', ');
      t.said = { ...t.said, constraints: {} };
      return {
        conversation: c,
        turn: i,
        detail: `the answer's said values (${was}) dropped; the pulled act still kept`,
      };
    },
  },
  // accepted-meets-constraints
  {
    id: 'swap-accepted-item',
    invariant: 'accepted-meets-constraints',
    kind: 'item',
    description: 'the user accepts a shown item that breaks a value it disclosed',
    apply(c0, rng) {
      const i = lastTurnIndex(c0);
      const t0 = tr(c0.turns[i]);
      if (!t0 || !isAccept(t0.user_act) || !strList(t0.said?.items).length) return undefined;
      const disclosed = strList((t0.goal as Loose | undefined)?.['disclosed']).filter((a) => a !== 'category');
      const goal = t0.goal?.constraints ?? {};
      const shown = [...shownItems(c0, i).values()].filter((r) =>
        disclosed.some(
          (a) =>
            goal[a] !== undefined &&
            attrsOf(r)[a] !== undefined &&
            attrsOf(r)[a].toLowerCase() !== String(goal[a]).toLowerCase(),
        ),
      );
      if (!shown.length) return undefined;
      const c = clone(c0);
      const pick = rng.pick(shown);
      tr(c.turns[i])!.said!.items = [pick.item_id];
      return { conversation: c, turn: i, detail: `accepted ${pick.item_id} instead` };
    },
  },
  {
    id: 'silent-drop-constraint',
    invariant: 'accepted-meets-constraints',
    kind: 'state',
    description:
      'a disclosed constraint silently leaves the goal (no Reveal.Expand), then the user accepts an item that breaks it',
    apply(c0, rng) {
      const i = lastTurnIndex(c0);
      const t0 = tr(c0.turns[i]);
      if (!t0 || !isAccept(t0.user_act) || !strList(t0.said?.items).length) return undefined;
      const disclosed = strList((t0.goal as Loose | undefined)?.['disclosed']).filter((a) => a !== 'category');
      const goal = t0.goal?.constraints ?? {};
      const options: [string, RecommendedItem][] = [];
      for (const r of shownItems(c0, i).values())
        for (const a of disclosed)
          if (
            goal[a] !== undefined &&
            attrsOf(r)[a] !== undefined &&
            attrsOf(r)[a].toLowerCase() !== String(goal[a]).toLowerCase()
          )
            options.push([a, r]);
      if (!options.length) return undefined;
      const [attr, item] = rng.pick(options);
      const c = clone(c0);
      // From the turn after the attribute was first said on, the goal forgets it.
      const said = c.turns.findIndex(
        (t) =>
          constraintsSaid(t).some(([a]) => a === attr) ||
          strList((tr(t)?.goal as Loose | undefined)?.['disclosed']).includes(attr),
      );
      for (let j = Math.max(said + 1, 1); j <= i; j++) {
        const g = tr(c.turns[j])?.goal;
        if (!g) continue;
        const d = (g as Loose)['disclosed'];
        if (Array.isArray(d)) (g as Loose)['disclosed'] = d.filter((x) => x !== attr);
        delete g.constraints[attr];
      }
      tr(c.turns[i])!.said!.items = [item.item_id];
      return { conversation: c, turn: i, detail: `${attr} silently dropped, accepted ${item.item_id}` };
    },
  },
  {
    id: 'accept-breaks-unsaid-goal',
    invariant: 'accepted-meets-constraints',
    kind: 'item',
    description:
      'the user accepts a shown item that breaks a goal constraint it has not said yet (the words name the new item)',
    apply(c0, rng) {
      const i = lastTurnIndex(c0);
      const t0 = tr(c0.turns[i]);
      const old = strList(t0?.said?.items)[0];
      if (!t0 || !isAccept(t0.user_act) || old === undefined || t0.target !== undefined) return undefined;
      const disclosed = new Set(strList((t0.goal as Loose | undefined)?.['disclosed']));
      const stated = new Set<string>();
      for (let j = 0; j <= i; j++) for (const [a] of constraintsSaid(c0.turns[j])) stated.add(a);
      const goal = t0.goal?.constraints ?? {};
      const hidden = Object.keys(goal).filter((a) => a !== 'category' && !disclosed.has(a) && !stated.has(a));
      const options: [string, RecommendedItem][] = [];
      for (const r of shownItems(c0, i).values()) {
        if (r.item_id === old || !keepsStated(c0, i, r.item_id, {})) continue;
        for (const a of hidden)
          if (attrsOf(r)[a] !== undefined && attrsOf(r)[a].toLowerCase() !== String(goal[a]).toLowerCase())
            options.push([a, r]);
      }
      if (!options.length) return undefined;
      const [attr, item] = rng.pick(options);
      const c = clone(c0);
      tr(c.turns[i])!.said!.items = [item.item_id];
      const oldTitle = shownItems(c0, i).get(old)?.title;
      const u = c.turns[i].user_utterance ?? '';
      c.turns[i].user_utterance =
        oldTitle && u.includes(oldTitle)
          ? u.split(oldTitle).join(item.title ?? item.item_id)
          : `I'll take the ${item.title ?? item.item_id}.`;
      return {
        conversation: c,
        turn: i,
        detail: `accepted ${item.item_id} (${attr}=${attrsOf(item)[attr]}, the unsaid goal wants ${String(goal[attr])})`,
      };
    },
  },
  {
    id: 'accept-negated-value',
    invariant: 'accepted-meets-constraints',
    kind: 'negation',
    description: 'the user accepts an item with a value it said earlier it does not want',
    apply(c0, rng, ctx) {
      const i = lastTurnIndex(c0);
      const t0 = tr(c0.turns[i]);
      const id = strList(t0?.said?.items)[0];
      if (!t0 || !isAccept(t0.user_act) || !id || i < 1) return undefined;
      const f = factsOf(c0, id, ctx);
      if (!f) return undefined;
      const stated = new Set(c0.turns.flatMap((t) => constraintsSaid(t).map(([, v]) => v.toLowerCase())));
      const values = Object.entries(f.attributes).filter(([, v]) => !stated.has(v.toLowerCase()) && v.length > 2);
      const earlier = sites(c0, (t, j) => j < i && t.user_utterance !== undefined && tr(t) !== undefined);
      if (!values.length || !earlier.length) return undefined;
      const [attr, v] = rng.pick(values);
      const j = rng.pick(earlier);
      const c = clone(c0);
      const t = tr(c.turns[j])!;
      t.said = { ...(t.said ?? {}), negated: [...strList(t.said?.negated), v] };
      c.turns[j].user_utterance = `${c.turns[j].user_utterance ?? ''} Nothing ${v} though.`;
      return { conversation: c, turn: i, detail: `${attr}=${v} negated on turn ${j}, then accepted` };
    },
  },
  // accepted-item-shown
  {
    id: 'accept-unshown-item',
    invariant: 'accepted-item-shown',
    kind: 'item',
    description: 'the user accepts an item no carousel of the conversation showed',
    apply(c0, rng) {
      const i = lastTurnIndex(c0);
      const t0 = tr(c0.turns[i]);
      const id = strList(t0?.said?.items)[0];
      if (!t0 || !isAccept(t0.user_act) || !id) return undefined;
      const c = clone(c0);
      if (rng.chance(0.5)) {
        // the accepted item vanishes from every earlier carousel
        for (let j = 0; j < i; j++) {
          const recs = c.turns[j].recommendations;
          if (recs) c.turns[j].recommendations = recs.filter((r) => r.item_id !== id);
        }
        return { conversation: c, turn: i, detail: `${id} removed from the carousels` };
      }
      tr(c.turns[i])!.said!.items = [`${id}-unshown`];
      return { conversation: c, turn: i, detail: `accepted ${id}-unshown` };
    },
  },
  {
    id: 'note-offscreen-item',
    invariant: 'accepted-item-shown',
    kind: 'item',
    description:
      'a user turn that speaks about an item (a Note, an item question) follows an agent turn that showed no items, or names an item that turn did not show',
    apply(c0, rng) {
      const i = pickSite(
        rng,
        sites(
          c0,
          (t, i) =>
            i > 0 &&
            !isAccept(tr(t)?.user_act) &&
            strList(tr(t)?.said?.items).length > 0 &&
            (c0.turns[i - 1].recommendations?.length ?? 0) > 0,
        ),
      );
      if (i === undefined) return undefined;
      const c = clone(c0);
      if (rng.chance(0.5)) {
        // the agent's last turn asks without showing anything
        c.turns[i - 1].recommendations = [];
        return { conversation: c, turn: i, detail: `agent turn ${i - 1} shows no items` };
      }
      const t = tr(c.turns[i])!;
      const id = strList(t.said!.items)[0];
      t.said!.items = [`${id}-offscreen`, ...strList(t.said!.items).slice(1)];
      return { conversation: c, turn: i, detail: `speaks about ${id}-offscreen` };
    },
  },
  wordsNameOtherMutant(
    'similar-words-name-other',
    'Inquire.Similar',
    "a request for items like one names another item of the carousel in its words only (the trace's said.items kept: agenda rule 16)",
  ),
  // meta-consistent-with-target
  {
    id: 'goal-off-target',
    invariant: 'meta-consistent-with-target',
    kind: 'state',
    description: "a meta user's goal holds a value its current target does not have",
    apply(c0, rng, ctx) {
      const cands: [number, string, string][] = [];
      c0.turns.forEach((t, i) => {
        const x = tr(t);
        const id = x?.target?.item_id;
        if (!x || !id || !x.goal) return;
        const f = factsOf(c0, id, ctx);
        if (!f) return;
        for (const a of Object.keys(x.goal.constraints)) {
          if (a === 'category' || f.attributes[a] === undefined) continue;
          // a value neither the target's nor the goal's own (the goal may keep a said value the
          // switched target lacks until the user revises it: putting it back changes nothing)
          const now = String(x.goal.constraints[a]).toLowerCase();
          const other = valuesOf(c0, a).find(
            (v) => v.toLowerCase() !== f.attributes[a].toLowerCase() && v.toLowerCase() !== now,
          );
          if (other) cands.push([i, a, other]);
        }
      });
      if (!cands.length) return undefined;
      const [i, a, v] = rng.pick(cands);
      const c = clone(c0);
      tr(c.turns[i])!.goal!.constraints[a] = v;
      return { conversation: c, turn: i, detail: `goal ${a}=${v}` };
    },
  },
  {
    id: 'negate-target-value',
    invariant: 'meta-consistent-with-target',
    kind: 'negation',
    description: 'a meta user says it does not want a value its current target has',
    apply(c0, rng, ctx) {
      const cands = sites(c0, (t) => {
        const id = tr(t)?.target?.item_id;
        return (
          id !== undefined &&
          t.user_utterance !== undefined &&
          Object.keys(factsOf(c0, id, ctx)?.attributes ?? {}).length > 0
        );
      });
      const i = pickSite(rng, cands);
      if (i === undefined) return undefined;
      const c = clone(c0);
      const t = tr(c.turns[i])!;
      const f = factsOf(c0, t.target!.item_id, ctx)!;
      const [, v] = rng.pick(Object.entries(f.attributes));
      t.said = { ...(t.said ?? {}), negated: [...strList(t.said?.negated), v] };
      return { conversation: c, turn: i, detail: `negated ${v}` };
    },
  },
  // no-silent-contradiction
  {
    id: 'relabel-revision',
    invariant: 'no-silent-contradiction',
    kind: 'label',
    description: 'a real revision is relabelled as a plain disclosure',
    apply(c0, rng) {
      const c = clone(c0);
      const i = pickSite(
        rng,
        sites(
          c,
          (t) =>
            tr(t)?.user_act === 'Reveal.Revise' &&
            constraintsSaid(t).length > 0 &&
            c.turns.some(
              (u, j) =>
                j < c.turns.indexOf(t) &&
                constraintsSaid(u).some(([a, v]) =>
                  constraintsSaid(t).some(([b, w]) => a === b && v.toLowerCase() !== w.toLowerCase()),
                ),
            ),
        ),
      );
      if (i === undefined) return undefined;
      tr(c.turns[i])!.user_act = 'Disclose';
      return { conversation: c, turn: i, detail: 'Reveal.Revise relabelled Disclose' };
    },
  },
  {
    id: 'label-empty-revision',
    invariant: 'no-silent-contradiction',
    kind: 'label',
    description: 'a turn that revises nothing is labelled Reveal.Revise',
    apply(c0, rng) {
      const c = clone(c0);
      const i = pickSite(
        rng,
        sites(c, (t, i) => {
          const act = tr(t)?.user_act;
          if (
            typeof act !== 'string' ||
            act.startsWith('Reveal') ||
            isAccept(act) ||
            mainOf(act) === 'Complete' ||
            t.user_utterance === undefined
          )
            return false;
          // a meta user's target switch on this turn: a Reveal.Revise saying the switch's change
          // is the act the rule asks for (no mutant), even where the value was never said before
          const target = tr(t)?.target?.item_id;
          if (target !== undefined && i > 0 && tr(c.turns[i - 1])?.target?.item_id !== target) return false;
          // nothing it says differs from what was said before
          const before = new Map<string, string>();
          for (let j = 0; j < i; j++) for (const [a, v] of constraintsSaid(c.turns[j])) before.set(a, v.toLowerCase());
          return constraintsSaid(t).every(([a, v]) => !before.has(a) || before.get(a) === v.toLowerCase());
        }),
      );
      if (i === undefined) return undefined;
      const t = tr(c.turns[i])!;
      const was = t.user_act;
      t.user_act = 'Reveal.Revise';
      return { conversation: c, turn: i, detail: `${was} relabelled Reveal.Revise` };
    },
  },
  {
    id: 'silent-value-change',
    invariant: 'no-silent-contradiction',
    kind: 'state',
    description: 'a restated value silently becomes another value without a revision',
    apply(c0, rng) {
      const cands: [number, string, string][] = [];
      const seen = new Map<string, string>();
      c0.turns.forEach((t, i) => {
        const act = tr(t)?.user_act;
        for (const [a, v] of constraintsSaid(t)) {
          if (seen.has(a) && act !== 'Reveal.Revise' && act !== 'Reveal.Expand' && a !== 'category') {
            const other = valuesOf(c0, a).find(
              (w) => w.toLowerCase() !== v.toLowerCase() && w.toLowerCase() !== seen.get(a),
            );
            if (other) cands.push([i, a, other]);
          }
          seen.set(a, v.toLowerCase());
        }
      });
      if (!cands.length) return undefined;
      const [i, a, w] = rng.pick(cands);
      const c = clone(c0);
      const t = tr(c.turns[i])!;
      t.said!.constraints![a] = w;
      c.turns[i].user_utterance = (c.turns[i].user_utterance ?? '').replace(
        new RegExp(escapeRe(String(constraintsSaid(c0.turns[i]).find(([b]) => b === a)![1])), 'gi'),
        w,
      );
      return { conversation: c, turn: i, detail: `${a} restated as ${w}` };
    },
  },
  {
    id: 'silent-goal-change',
    invariant: 'no-silent-contradiction',
    kind: 'state',
    description: 'a disclosed goal value changes, from one turn on, without the user saying so (no meta target)',
    apply(c0, rng) {
      const cands: [number, string, string][] = [];
      c0.turns.forEach((t, i) => {
        const x = tr(t);
        if (i === 0 || !x?.goal || x.target !== undefined) return;
        const before = tr(c0.turns[i - 1])?.goal;
        if (!before) return;
        for (const a of strList((before as Loose)['disclosed'])) {
          const v = x.goal.constraints[a];
          if (a === 'category' || v === undefined || String(before.constraints[a]) !== String(v)) continue;
          const other = valuesOf(c0, a).find((w) => w.toLowerCase() !== String(v).toLowerCase());
          if (other) cands.push([i, a, other]);
        }
      });
      if (!cands.length) return undefined;
      const [i, a, w] = rng.pick(cands);
      const c = clone(c0);
      const was = String(tr(c0.turns[i])!.goal!.constraints[a]);
      for (let j = i; j < c.turns.length; j++) {
        const g = tr(c.turns[j])?.goal;
        if (g && String(g.constraints[a]).toLowerCase() === was.toLowerCase()) g.constraints[a] = w;
      }
      return { conversation: c, turn: i, detail: `goal ${a} ${was} -> ${w} from turn ${i}, nothing said` };
    },
  },
  {
    id: 'silent-switch-goal',
    invariant: 'no-silent-contradiction',
    kind: 'meta',
    description:
      "a meta user's goal takes another value for an attribute it said, from one turn on, and forgets it was said (goal.disclosed), with no revision: a target switch's change left unsaid",
    apply(c0, rng) {
      const cands: [number, string, string, string][] = [];
      const said = new Map<string, string>();
      for (let i = 0; i < c0.turns.length; i++) {
        const x = tr(c0.turns[i]);
        if (x?.user_act === 'Reveal.Expand') break;
        if (i > 0 && x?.target !== undefined && x.goal) {
          for (const [a, v] of said) {
            const now = x.goal.constraints[a];
            if (a === 'category' || now === undefined || String(now).toLowerCase() !== v) continue;
            const other = valuesOf(c0, a).find((w) => w.toLowerCase() !== v);
            if (other) cands.push([i, a, String(now), other]);
          }
        }
        for (const [a, v] of constraintsSaid(c0.turns[i])) said.set(a, v.toLowerCase());
      }
      if (!cands.length) return undefined;
      const [i, a, was, w] = rng.pick(cands);
      const c = clone(c0);
      for (let j = i; j < c.turns.length; j++) {
        const g = tr(c.turns[j])?.goal;
        if (!g || String(g.constraints[a]).toLowerCase() !== was.toLowerCase()) break;
        g.constraints[a] = w;
        const d = (g as Loose)['disclosed'];
        if (Array.isArray(d)) (g as Loose)['disclosed'] = d.filter((x) => x !== a);
      }
      return {
        conversation: c,
        turn: i,
        detail: `goal ${a} ${was} -> ${w} from turn ${i}, disclosed forgot it, nothing said`,
      };
    },
  },
  {
    id: 'rerequire-relaxed',
    invariant: 'no-silent-contradiction',
    kind: 'state',
    description:
      'an attribute the user relaxed (Reveal.Expand) is stated again on a later turn that is no revision: the value it had said before relaxing',
    apply(c0, rng) {
      const cands: [number, string, string][] = [];
      const said = new Map<string, string>();
      /** Relaxed attributes not stated since, with the value said before relaxing. */
      const relaxed = new Map<string, string>();
      let before: string[] | undefined;
      c0.turns.forEach((t, i) => {
        const x = tr(t);
        const act = x?.user_act;
        const disclosed = x?.goal ? strList((x.goal as Loose)['disclosed']) : undefined;
        if (act === 'Reveal.Expand' && disclosed && before)
          for (const a of before)
            if (!disclosed.includes(a) && a !== 'category' && said.has(a)) relaxed.set(a, said.get(a)!);
        if (
          i > 0 &&
          x &&
          typeof act === 'string' &&
          !act.startsWith('Reveal') &&
          !isAccept(act) &&
          mainOf(act) !== 'Complete' &&
          t.user_utterance !== undefined
        )
          for (const [a, v] of relaxed) if (!constraintsSaid(t).some(([b]) => b === a)) cands.push([i, a, v]);
        for (const [a, v] of constraintsSaid(t)) {
          said.set(a, v);
          relaxed.delete(a);
        }
        if (disclosed) before = disclosed;
      });
      if (!cands.length) return undefined;
      const [i, a, v] = rng.pick(cands);
      const c = clone(c0);
      const t = tr(c.turns[i])!;
      t.said = { ...(t.said ?? {}), constraints: { ...(t.said?.constraints ?? {}), [a]: v } };
      return { conversation: c, turn: i, detail: `${a}=${v} required again after a Reveal.Expand relaxed it` };
    },
  },
  // negation-honoured
  {
    id: 'show-negated-later',
    invariant: 'negation-honoured',
    kind: 'item',
    description: 'local-good shows, in its top three, an item with a value the user negated on this or an earlier turn',
    apply(c0, rng) {
      if (c0.agent !== 'local-good') return undefined;
      const cands: [number, string][] = [];
      const negated: string[] = [];
      c0.turns.forEach((t, i) => {
        negated.push(...strList(tr(t)?.said?.negated));
        if ((t.recommendations?.length ?? 0) > 0 && negated.length) for (const v of negated) cands.push([i, v]);
      });
      if (!cands.length) return undefined;
      const [i, v] = rng.pick(cands);
      const pool = [...shownItems(c0).values()].filter((r) =>
        Object.values(attrsOf(r)).some((x) => x.toLowerCase() === v.toLowerCase()),
      );
      if (!pool.length) return undefined;
      const bad = rng.pick(pool);
      const c = clone(c0);
      const recs = c.turns[i].recommendations!;
      recs.splice(rng.int(Math.min(TOP_SEEN, recs.length)), 1, structuredClone(bad));
      return { conversation: c, turn: i, detail: `${bad.item_id} (has ${v}) shown` };
    },
  },
  // agent-error-on-failing-turn
  {
    id: 'copy-error-forward',
    invariant: 'agent-error-on-failing-turn',
    kind: 'state',
    description: 'an agent error is repeated on the next turn',
    apply(c0, rng) {
      const i = pickSite(
        rng,
        sites(c0, (t, i) => i > 0 && tr(t) !== undefined && tr(c0.turns[i - 1]) !== undefined),
      );
      if (i === undefined) return undefined;
      const c = clone(c0);
      for (const j of [i - 1, i]) {
        const t = tr(c.turns[j])!;
        t.error = 'HTTP 500 from the recommender';
      }
      tr(c.turns[i - 1])!.error_kind = 'agent_http';
      c.turns[i - 1].assistant_utterance = '';
      return { conversation: c, turn: i, detail: `error of turn ${i - 1} copied to turn ${i}` };
    },
  },
  // agent-error-no-user-effect
  {
    id: 'continue-after-agent-error',
    invariant: 'agent-error-no-user-effect',
    kind: 'shift',
    description: 'the conversation goes on after an agent failure',
    apply(c0, rng) {
      const i = pickSite(
        rng,
        sites(c0, (t, i) => i < c0.turns.length - 1 && tr(t) !== undefined),
      );
      if (i === undefined) return undefined;
      const c = clone(c0);
      const t = tr(c.turns[i])!;
      t.error = 'timeout after 30 s';
      t.error_kind = 'agent_timeout';
      c.turns[i].assistant_utterance = '';
      delete c.turns[i].recommendations;
      return { conversation: c, turn: i + 1, detail: `agent failed on turn ${i}, the dialogue went on` };
    },
  },
  {
    id: 'relabel-agent-error-outcome',
    invariant: 'agent-error-no-user-effect',
    kind: 'outcome',
    description: 'an agent failure on the last turn is labelled as a user outcome',
    apply(c0) {
      const i = lastTurnIndex(c0);
      if (i < 0 || !tr(c0.turns[i]) || c0.outcome === undefined) return undefined;
      const c = clone(c0);
      const t = tr(c.turns[i])!;
      t.error = 'HTTP 502 from the recommender';
      t.error_kind = 'agent_http';
      c.turns[i].assistant_utterance = '';
      return { conversation: c, turn: i, detail: `agent failure labelled ${c.outcome}` };
    },
  },
  // simulator-error-outcome
  {
    id: 'relabel-simulator-error-outcome',
    invariant: 'simulator-error-outcome',
    kind: 'outcome',
    description: 'a turn the simulated user could not produce is labelled as a user outcome',
    apply(c0) {
      const i = lastTurnIndex(c0);
      if (i < 0 || !tr(c0.turns[i]) || c0.outcome === undefined || c0.outcome === 'simulator_error') return undefined;
      const c = clone(c0);
      const t = tr(c.turns[i])!;
      t.error = 'the user LLM gave no usable reply';
      t.error_kind = 'user_llm';
      return { conversation: c, turn: i, detail: `user failure labelled ${c.outcome}` };
    },
  },
  // accept-ends-dialogue
  {
    id: 'relabel-accepted-outcome',
    invariant: 'accept-ends-dialogue',
    kind: 'outcome',
    description: 'a final accept with outcome ended or abandoned',
    apply(c0, rng) {
      const i = lastTurnIndex(c0);
      if (c0.outcome !== 'accepted' || !isAccept(tr(c0.turns[i])?.user_act)) return undefined;
      const c = clone(c0);
      c.outcome = rng.pick(['ended', 'abandoned'] as const);
      return { conversation: c, turn: i, detail: `outcome ${c.outcome}` };
    },
  },
  {
    id: 'relabel-outcome-accepted',
    invariant: 'accept-ends-dialogue',
    kind: 'outcome',
    description: 'outcome accepted without a final accept',
    apply(c0) {
      const i = lastTurnIndex(c0);
      const act = tr(c0.turns[i])?.user_act;
      if (c0.outcome === 'accepted' || c0.outcome === undefined || typeof act !== 'string' || isAccept(act))
        return undefined;
      const c = clone(c0);
      c.outcome = 'accepted';
      return { conversation: c, turn: i, detail: 'outcome accepted' };
    },
  },
  {
    id: 'continue-after-accept',
    invariant: 'accept-ends-dialogue',
    kind: 'shift',
    description: 'the dialogue goes on after the accept',
    apply(c0) {
      const i = lastTurnIndex(c0);
      if (i < 1 || !isAccept(tr(c0.turns[i])?.user_act)) return undefined;
      const c = clone(c0);
      const extra = structuredClone(c.turns[i - 1]);
      c.turns.push(extra);
      return { conversation: c, turn: i, detail: 'a turn after the accept' };
    },
  },
  {
    id: 'agenda-left-on-accept',
    invariant: 'accept-ends-dialogue',
    kind: 'state',
    description: 'the agenda still holds acts after the accept',
    apply(c0) {
      const i = lastTurnIndex(c0);
      const t0 = tr(c0.turns[i]);
      if (!t0 || !isAccept(t0.user_act) || !Array.isArray(t0.agenda)) return undefined;
      const c = clone(c0);
      tr(c.turns[i])!.agenda = ['Inquire', 'Complete'];
      return { conversation: c, turn: i, detail: 'agenda [Inquire, Complete] after the accept' };
    },
  },
  // turn-cap, meta-turn-cap
  ...(['turn-cap', 'meta-turn-cap'] as const).map((inv): MutationOperator => ({
    id: `exceed-${inv}`,
    invariant: inv,
    kind: 'shift',
    description: 'turns are repeated until the dialogue is one user turn over its cap',
    apply(c0, _rng, ctx) {
      if (inv === 'meta-turn-cap' && !c0.source?.startsWith('meta-')) return undefined;
      if (!c0.turns.some((t) => tr(t) !== undefined) || c0.turns.length < 2) return undefined;
      const recorded = c0.metadata?.['turn_cap'];
      const cap =
        inv === 'meta-turn-cap'
          ? (ctx.maxTurns ?? 10)
          : (ctx.maxTurns ?? (typeof recorded === 'number' ? recorded : 20));
      const c = clone(c0);
      const last = c.turns.pop()!;
      let users = c.turns.filter((t) => t.user_utterance !== undefined).length + 1;
      const filler = c.turns[c.turns.length - 1];
      while (users <= cap) {
        c.turns.push(structuredClone(filler));
        users++;
      }
      c.turns.push(last);
      return { conversation: c, turn: c.turns.length - 1, detail: `${users} user turns, cap ${cap}` };
    },
  })),
  // initial-agenda
  {
    id: 'agenda-no-early-disclose',
    invariant: 'initial-agenda',
    kind: 'state',
    description: 'the initial agenda has no Disclose among its first five acts',
    apply(c0) {
      const i = c0.turns.findIndex((t) => tr(t)?.operation === 'init');
      const t0 = tr(c0.turns[i]);
      if (i < 0 || !t0?.pulled?.length || !Array.isArray(t0.agenda)) return undefined;
      const c = clone(c0);
      const t = tr(c.turns[i])!;
      t.pulled = ['Navigate.More'];
      t.agenda = ['Inquire', 'Note', 'Navigate', 'Inquire', ...t.agenda!.slice(0, 7)];
      return { conversation: c, turn: i, detail: 'no Disclose in the first five acts' };
    },
  },
  {
    id: 'agenda-too-long',
    invariant: 'initial-agenda',
    kind: 'state',
    description: 'the initial agenda has more than twelve acts',
    apply(c0) {
      const i = c0.turns.findIndex((t) => tr(t)?.operation === 'init');
      const t0 = tr(c0.turns[i]);
      if (i < 0 || !t0?.pulled?.length || !Array.isArray(t0.agenda)) return undefined;
      const c = clone(c0);
      const t = tr(c.turns[i])!;
      while (t.agenda!.length < 12) t.agenda!.splice(t.agenda!.length - 1, 0, 'Navigate.More');
      return { conversation: c, turn: i, detail: `${t.agenda!.length + 1} acts` };
    },
  },
  // patience-non-increasing
  {
    id: 'patience-rises',
    invariant: 'patience-non-increasing',
    kind: 'state',
    description: 'patience rises on a turn',
    apply(c0, rng) {
      const i = pickSite(
        rng,
        sites(
          c0,
          (t, i) => i > 0 && typeof tr(t)?.patience === 'number' && typeof tr(c0.turns[i - 1])?.patience === 'number',
        ),
      );
      if (i === undefined) return undefined;
      const c = clone(c0);
      tr(c.turns[i])!.patience = tr(c.turns[i - 1])!.patience! + 1;
      return { conversation: c, turn: i, detail: 'patience +1' };
    },
  },
  {
    id: 'forge-ignored-agent-error',
    invariant: 'patience-non-increasing',
    kind: 'state',
    description: "a built-in user's turn marked as ignoring a failed agent turn when the agent did not fail",
    apply(c0, rng) {
      if (builtInUser(c0.source) === undefined) return undefined;
      const i = pickSite(
        rng,
        sites(c0, (t, i) => i > 0 && tr(t) !== undefined && !tr(c0.turns[i - 1])?.error),
      );
      if (i === undefined) return undefined;
      const c = clone(c0);
      (tr(c.turns[i]) as Record<string, unknown>)['ignored_agent_error'] = true;
      return { conversation: c, turn: i, detail: 'ignored_agent_error set after an agent turn that did not fail' };
    },
  },
  {
    id: 'push-costs-nothing',
    invariant: 'patience-non-increasing',
    kind: 'state',
    description: 'a push (inappropriate answer) costs no patience',
    apply(c0, rng) {
      const i = pickSite(
        rng,
        sites(
          c0,
          (t, i) =>
            i > 0 &&
            tr(t)?.operation === 'push' &&
            typeof tr(t)?.patience === 'number' &&
            typeof tr(c0.turns[i - 1])?.patience === 'number',
        ),
      );
      if (i === undefined) return undefined;
      const c = clone(c0);
      for (let j = i; j < c.turns.length; j++) {
        const t = tr(c.turns[j]);
        if (typeof t?.patience === 'number') t.patience += 1;
      }
      return { conversation: c, turn: i, detail: 'the push kept patience' };
    },
  },
  {
    id: 'pull-costs-patience',
    invariant: 'patience-non-increasing',
    kind: 'state',
    description: 'an appropriate answer (pull) costs patience',
    apply(c0, rng) {
      const i = pickSite(
        rng,
        sites(
          c0,
          (t, i) =>
            i > 0 &&
            tr(t)?.operation === 'pull' &&
            typeof tr(t)?.patience === 'number' &&
            tr(t)!.patience! > 1 &&
            typeof tr(c0.turns[i - 1])?.patience === 'number',
        ),
      );
      if (i === undefined) return undefined;
      const c = clone(c0);
      for (let j = i; j < c.turns.length; j++) {
        const t = tr(c.turns[j]);
        if (typeof t?.patience === 'number') t.patience -= 1;
      }
      return { conversation: c, turn: i, detail: 'patience -1 on a pull' };
    },
  },
  {
    id: 'weighed-item-pulls',
    invariant: 'patience-non-increasing',
    kind: 'state',
    description:
      'a PEPPER carousel whose liked items the user all liked on an earlier carousel counts as a pull (patience kept)',
    apply(c0, rng) {
      const stale = pepperSites(
        c0,
        (i, x, liked, before) =>
          i > 0 &&
          liked.length > 0 &&
          x.operation === 'push' &&
          typeof x.patience === 'number' &&
          liked.every((id) => before.has(id) && id !== x.target?.item_id),
      );
      const i = pickSite(rng, stale);
      if (i === undefined) return undefined;
      const c = clone(c0);
      const t = tr(c.turns[i])!;
      t.operation = 'pull';
      delete t.push_reason;
      for (let j = i; j < c.turns.length; j++) {
        const u = tr(c.turns[j]);
        if (typeof u?.patience === 'number') u.patience += 1;
      }
      return { conversation: c, turn: i, detail: 'a carousel of weighed items read as a pull' };
    },
  },
  {
    id: 'unjustified-push',
    invariant: 'patience-non-increasing',
    kind: 'state',
    description:
      "a built-in PEPPER user's pull on a carousel with an item it likes for the first time turned into a push (patience one lower from there on)",
    apply(c0, rng) {
      if (!/^(meta-(tol|prob)\()?target-free/.test(c0.source ?? '')) return undefined;
      const liking = pepperSites(
        c0,
        (i, x, liked, before) =>
          i > 0 &&
          x.operation === 'pull' &&
          typeof x.patience === 'number' &&
          x.patience > 1 &&
          !isAccept(x.user_act) &&
          liked.some((id) => !before.has(id)),
      );
      const i = pickSite(rng, liking);
      if (i === undefined) return undefined;
      const c = clone(c0);
      const t = tr(c.turns[i])!;
      t.operation = 'push';
      t.push_reason = 'none of the items shown is one the user likes';
      for (let j = i; j < c.turns.length; j++) {
        const u = tr(c.turns[j]);
        if (typeof u?.patience === 'number') u.patience -= 1;
      }
      return { conversation: c, turn: i, detail: 'a liked carousel read as a push' };
    },
  },
  // abandon-at-zero
  {
    id: 'relabel-abandon-outcome',
    invariant: 'abandon-at-zero',
    kind: 'outcome',
    description: 'an abandon at patience 0 labelled ended (or accepted)',
    apply(c0, rng) {
      const i = lastTurnIndex(c0);
      if (c0.outcome !== 'abandoned' || tr(c0.turns[i])?.user_act !== 'Complete.Abandon') return undefined;
      const c = clone(c0);
      c.outcome = rng.pick(['ended', 'accepted'] as const);
      return { conversation: c, turn: i, detail: `outcome ${c.outcome}` };
    },
  },
  {
    id: 'relabel-abandon-end-reason',
    invariant: 'abandon-at-zero',
    kind: 'outcome',
    description: 'an abandon at patience 0 with end_reason completed (or accepted)',
    apply(c0, rng) {
      const i = lastTurnIndex(c0);
      if (tr(c0.turns[i])?.user_act !== 'Complete.Abandon' || endReasonOf(c0.turns[i]) === undefined) return undefined;
      const c = clone(c0);
      setLoose(tr(c.turns[i])!, 'end_reason', rng.pick(['completed', 'accepted']));
      return { conversation: c, turn: i, detail: `end_reason ${String(endReasonOf(c.turns[i]))}` };
    },
  },
  {
    id: 'relabel-gave-up-completed',
    invariant: 'abandon-at-zero',
    kind: 'outcome',
    description: 'a user that gave up relabelled as completed (outcome ended, end_reason completed)',
    apply(c0) {
      const i = lastTurnIndex(c0);
      if (c0.outcome !== 'gave_up' || endReasonOf(c0.turns[i]) !== 'gave_up') return undefined;
      const c = clone(c0);
      c.outcome = 'ended';
      setLoose(tr(c.turns[i])!, 'end_reason', 'completed');
      return { conversation: c, turn: i, detail: 'gave_up relabelled ended/completed' };
    },
  },
  {
    id: 'relabel-completed-gave-up',
    invariant: 'abandon-at-zero',
    kind: 'outcome',
    description: 'a user that completed relabelled as giving up (outcome gave_up, end_reason gave_up)',
    apply(c0) {
      const i = lastTurnIndex(c0);
      if (c0.outcome !== 'ended' || endReasonOf(c0.turns[i]) !== 'completed') return undefined;
      const c = clone(c0);
      c.outcome = 'gave_up';
      setLoose(tr(c.turns[i])!, 'end_reason', 'gave_up');
      return { conversation: c, turn: i, detail: 'ended/completed relabelled gave_up' };
    },
  },
  {
    id: 'end-reason-patience-with-patience',
    invariant: 'abandon-at-zero',
    kind: 'outcome',
    description: 'end_reason patience while patience is left',
    apply(c0) {
      const i = lastTurnIndex(c0);
      const t0 = tr(c0.turns[i]);
      if (!t0 || typeof t0.patience !== 'number' || t0.patience <= 0 || endReasonOf(c0.turns[i]) === undefined)
        return undefined;
      const c = clone(c0);
      setLoose(tr(c.turns[i])!, 'end_reason', 'patience');
      return { conversation: c, turn: i, detail: `end_reason patience with patience ${t0.patience}` };
    },
  },
  {
    id: 'zero-patience-goes-on',
    invariant: 'abandon-at-zero',
    kind: 'state',
    description: 'patience reaches 0 on a turn that is not an abandon',
    apply(c0, rng) {
      const i = pickSite(
        rng,
        sites(
          c0,
          (t, i) =>
            i < c0.turns.length - 1 && typeof tr(t)?.patience === 'number' && tr(t)!.user_act !== 'Complete.Abandon',
        ),
      );
      if (i === undefined) return undefined;
      const c = clone(c0);
      tr(c.turns[i])!.patience = 0;
      return { conversation: c, turn: i, detail: 'patience 0' };
    },
  },
  // coverage
  {
    id: 'coverage-out-of-range',
    invariant: 'coverage-monotone',
    kind: 'state',
    description: 'preference coverage outside [0, 1] or falling',
    apply(c0, rng) {
      const i = pickSite(
        rng,
        sites(c0, (t) => typeof tr(t)?.preference_coverage === 'number'),
      );
      if (i === undefined) return undefined;
      const c = clone(c0);
      const prevs = c.turns
        .slice(0, i)
        .map((t) => tr(t)?.preference_coverage)
        .filter((x): x is number => typeof x === 'number');
      const prev = prevs[prevs.length - 1];
      tr(c.turns[i])!.preference_coverage = prev !== undefined && prev >= 0.1 ? prev - 0.1 : rng.pick([1.25, -0.25]);
      return { conversation: c, turn: i, detail: `coverage ${tr(c.turns[i])!.preference_coverage}` };
    },
  },
  {
    id: 'coverage-miscounted',
    invariant: 'coverage-definition',
    kind: 'state',
    description: 'preference coverage off by one target',
    apply(c0, rng) {
      const targets = strList(c0.turns.find((t) => tr(t)?.targets)?.trace?.targets);
      const i = pickSite(
        rng,
        sites(c0, (t) => typeof tr(t)?.preference_coverage === 'number'),
      );
      if (i === undefined || !targets.length) return undefined;
      const c = clone(c0);
      const t = tr(c.turns[i])!;
      const step = 1 / targets.length;
      t.preference_coverage =
        Math.round((t.preference_coverage! + (t.preference_coverage! + step <= 1 ? step : -step)) * 1000) / 1000;
      return { conversation: c, turn: i, detail: `coverage ${t.preference_coverage}` };
    },
  },
  // target-free-no-early-target
  {
    id: 'name-target-early',
    invariant: 'target-free-no-early-target',
    kind: 'text',
    description: 'a target-free user names an unshown target by its title',
    apply(c0, rng, ctx) {
      const targets = strList(c0.turns.find((t) => tr(t)?.targets)?.trace?.targets);
      if (!targets.length) return undefined;
      const cands: [number, string, string][] = [];
      const shown = new Set<string>();
      // a title a shown item's title contains ("Slim Jeans" in "Slim Jeans - Navy") names that
      // item too: saying it is no violation (not a mutant)
      const shownTitles: string[][] = [];
      c0.turns.forEach((t, i) => {
        if (t.user_utterance !== undefined) {
          for (const id of targets) {
            const title = factsOf(c0, id, ctx)?.title;
            if (!shown.has(id) && title && !shownTitles.some((w) => mentionsWords(w, phraseWords(title))))
              cands.push([i, id, title]);
          }
        }
        for (const r of t.recommendations ?? []) {
          shown.add(r.item_id);
          if (r.title) shownTitles.push(phraseWords(r.title));
        }
      });
      if (!cands.length) return undefined;
      const [i, id, title] = rng.pick(cands);
      const c = clone(c0);
      c.turns[i].user_utterance = `${c.turns[i].user_utterance ?? ''} Do you have the ${title}?`;
      return { conversation: c, turn: i, detail: `names ${id}` };
    },
  },
  {
    id: 'describe-target-early',
    invariant: 'target-free-no-early-target',
    kind: 'text',
    description: 'a target-free user describes an unshown target by all its attributes',
    apply(c0, rng, ctx) {
      const targets = strList(c0.turns.find((t) => tr(t)?.targets)?.trace?.targets);
      if (!targets.length) return undefined;
      const cands: [number, string, string[]][] = [];
      const shown = new Set<string>();
      c0.turns.forEach((t, i) => {
        if (t.user_utterance !== undefined) {
          for (const id of targets) {
            const attrs = factsOf(c0, id, ctx)?.attributes;
            if (!shown.has(id) && attrs && Object.keys(attrs).length >= 3) cands.push([i, id, Object.values(attrs)]);
          }
        }
        for (const r of t.recommendations ?? []) shown.add(r.item_id);
      });
      if (!cands.length) return undefined;
      const [i, id, values] = rng.pick(cands);
      const c = clone(c0);
      c.turns[i].user_utterance = `${c.turns[i].user_utterance ?? ''} I want one that is ${values.join(', ')}.`;
      return { conversation: c, turn: i, detail: `describes ${id}` };
    },
  },
  {
    id: 'said-target-early',
    invariant: 'target-free-no-early-target',
    kind: 'label',
    description: "a target-free user's trace says it referred to an unshown target",
    apply(c0, rng) {
      const targets = strList(c0.turns.find((t) => tr(t)?.targets)?.trace?.targets);
      if (!targets.length) return undefined;
      const cands: [number, string][] = [];
      const shown = new Set<string>();
      c0.turns.forEach((t, i) => {
        if (t.user_utterance !== undefined && tr(t)) for (const id of targets) if (!shown.has(id)) cands.push([i, id]);
        for (const r of t.recommendations ?? []) shown.add(r.item_id);
      });
      if (!cands.length) return undefined;
      const [i, id] = rng.pick(cands);
      const c = clone(c0);
      const t = tr(c.turns[i])!;
      t.said = { ...(t.said ?? {}), items: [...strList(t.said?.items), id] };
      return { conversation: c, turn: i, detail: `said.items gained ${id}` };
    },
  },
  // meta-switch-rule
  {
    id: 'switch-before-tolerance',
    invariant: 'meta-switch-rule',
    kind: 'meta',
    description: 'a meta user switches target on a turn within its tolerance',
    apply(c0, rng, ctx) {
      const tol = ctx.metaTolerance ?? 2;
      const i = pickSite(
        rng,
        sites(
          c0,
          (t, i) => i > 0 && i <= tol && tr(t)?.target !== undefined && tr(c0.turns[i - 1])?.target !== undefined,
        ),
      );
      if (i === undefined) return undefined;
      const t = tr(c0.turns[i])!.target!;
      const other = strList(t.alternatives).filter((a) => a !== t.item_id);
      if (!other.length) return undefined;
      const c = clone(c0);
      setTargetFrom(c, i, rng.pick(other), t.item_id);
      return { conversation: c, turn: i, detail: `switch on turn ${i}, tolerance ${tol}` };
    },
  },
  {
    id: 'switch-outside-group',
    invariant: 'meta-switch-rule',
    kind: 'meta',
    description: 'a meta user switches to an item outside its target group',
    apply(c0, rng) {
      const i = pickSite(rng, switchSites(c0));
      if (i === undefined) return undefined;
      const c = clone(c0);
      const t = tr(c.turns[i])!.target!;
      setTargetFrom(c, i, `${t.item_id}-outside`, t.switched_from);
      return { conversation: c, turn: i, detail: 'switched outside the group' };
    },
  },
  {
    id: 'switch-unrecorded',
    invariant: 'meta-switch-rule',
    kind: 'meta',
    description: 'a target switch without switched_from',
    apply(c0, rng) {
      const i = pickSite(rng, switchSites(c0));
      if (i === undefined) return undefined;
      const c = clone(c0);
      delete tr(c.turns[i])!.target!.switched_from;
      return { conversation: c, turn: i, detail: 'switched_from removed' };
    },
  },
  {
    id: 'switch-not-most-similar',
    invariant: 'meta-switch-rule',
    kind: 'meta',
    description: "a meta user switches to a group member that is not the most similar to the agent's top item",
    apply(c0, rng, ctx) {
      const cands: [number, string][] = [];
      for (const i of switchSites(c0)) {
        const t = tr(c0.turns[i])!.target!;
        const top = c0.turns[i - 1].recommendations?.[0]?.item_id;
        if (!top) continue;
        const best = similarityOf(ctx, top, t.item_id);
        if (best === undefined) continue;
        for (const a of strList(t.alternatives)) {
          if (a === t.item_id || a === t.switched_from) continue;
          const s = similarityOf(ctx, top, a);
          if (s !== undefined && s < best - 1e-9) cands.push([i, a]);
        }
      }
      if (!cands.length) return undefined;
      const [i, a] = rng.pick(cands);
      const c = clone(c0);
      setTargetFrom(c, i, a, tr(c0.turns[i])!.target!.switched_from);
      return { conversation: c, turn: i, detail: `switched to ${a}, not the most similar` };
    },
  },
  {
    id: 'tol-no-retarget',
    invariant: 'meta-switch-rule',
    kind: 'meta',
    description:
      "MetaSimTol keeps its target after the tolerance although a group member is closer to the agent's top item",
    apply(c0, rng) {
      if (metaMode(c0) !== 'tol') return undefined;
      const i = pickSite(rng, switchSites(c0));
      if (i === undefined) return undefined;
      const c = clone(c0);
      const from = tr(c.turns[i])!.target!.switched_from!;
      setTargetFrom(c, i, from, undefined);
      return { conversation: c, turn: i, detail: `kept ${from}` };
    },
  },
  {
    id: 'switch-while-target-shown',
    invariant: 'meta-switch-rule',
    kind: 'meta',
    description: 'a meta user switches while its target is among the first items on screen',
    apply(c0, rng) {
      const i = pickSite(
        rng,
        switchSites(c0).filter((i) => (c0.turns[i - 1].recommendations?.length ?? 0) >= 2),
      );
      if (i === undefined) return undefined;
      const c = clone(c0);
      const from = tr(c.turns[i])!.target!.switched_from!;
      const recs = c.turns[i - 1].recommendations!;
      const shown = recs.find((r) => r.item_id === from) ?? {
        ...structuredClone(recs[1]),
        item_id: from,
        title: `Item ${from}`,
      };
      const k = 1 + rng.int(Math.min(TOP_SEEN, recs.length) - 1);
      recs.splice(k, 1, shown);
      return { conversation: c, turn: i, detail: `${from} shown at #${k + 1} before the switch` };
    },
  },
  {
    id: 'prob-switch-on-gain',
    invariant: 'meta-switch-rule',
    kind: 'meta',
    description: "MetaSimProb switches although the agent's top item got closer to the target (no loss)",
    apply(c0, rng, ctx) {
      if (metaMode(c0) !== 'prob') return undefined;
      const tol = ctx.metaTolerance ?? 2;
      const cands: [number, string, string][] = [];
      let previousTop: string | undefined;
      c0.turns.forEach((t, i) => {
        const target = tr(t)?.target;
        const top = i > 0 ? c0.turns[i - 1].recommendations?.[0]?.item_id : undefined;
        if (
          target &&
          i > tol &&
          top &&
          previousTop &&
          target.switched_from === undefined &&
          tr(c0.turns[i - 1])?.target?.item_id === target.item_id
        ) {
          const seen = (c0.turns[i - 1].recommendations ?? [])
            .slice(0, TOP_SEEN)
            .some((r) => r.item_id === target.item_id);
          const now = similarityOf(ctx, top, target.item_id);
          const before = similarityOf(ctx, previousTop, target.item_id);
          if (!seen && now !== undefined && before !== undefined && now - before >= 0) {
            let best = target.item_id;
            let bestSim = now;
            for (const a of strList(target.alternatives)) {
              const s = similarityOf(ctx, top, a);
              if (a !== target.item_id && s !== undefined && s > bestSim) {
                best = a;
                bestSim = s;
              }
            }
            if (best !== target.item_id) cands.push([i, best, target.item_id]);
          }
        }
        if (i > 0 && c0.turns[i - 1].recommendations?.[0]) previousTop = c0.turns[i - 1].recommendations![0].item_id;
      });
      if (!cands.length) return undefined;
      const [i, best, from] = rng.pick(cands);
      const c = clone(c0);
      setTargetFrom(c, i, best, from);
      return { conversation: c, turn: i, detail: `switch to ${best} on a gain` };
    },
  },
  // satisfaction-frustration
  {
    id: 'satisfaction-rises-on-push',
    invariant: 'satisfaction-frustration',
    kind: 'state',
    description: 'satisfaction rises on an inappropriate answer (push)',
    apply(c0, rng) {
      const i = pickSite(
        rng,
        sites(
          c0,
          (t, i) =>
            i > 0 &&
            tr(t)?.operation === 'push' &&
            typeof tr(t)?.satisfaction === 'number' &&
            typeof tr(c0.turns[i - 1])?.satisfaction === 'number' &&
            tr(c0.turns[i - 1])!.satisfaction! < 0.95,
        ),
      );
      if (i === undefined) return undefined;
      const c = clone(c0);
      tr(c.turns[i])!.satisfaction = Math.round((tr(c.turns[i - 1])!.satisfaction! + 0.05) * 1000) / 1000;
      return { conversation: c, turn: i, detail: 'satisfaction rose on a push' };
    },
  },
  {
    id: 'satisfaction-falls-on-pull',
    invariant: 'satisfaction-frustration',
    kind: 'state',
    description: 'satisfaction falls on an appropriate answer (pull)',
    apply(c0, rng) {
      const i = pickSite(
        rng,
        sites(
          c0,
          (t, i) =>
            i > 0 &&
            tr(t)?.operation === 'pull' &&
            tr(t)?.user_act !== 'Note.Dislike' &&
            typeof tr(t)?.satisfaction === 'number' &&
            typeof tr(c0.turns[i - 1])?.satisfaction === 'number' &&
            tr(c0.turns[i - 1])!.satisfaction! > 0.05,
        ),
      );
      if (i === undefined) return undefined;
      const c = clone(c0);
      tr(c.turns[i])!.satisfaction = Math.round((tr(c.turns[i - 1])!.satisfaction! - 0.05) * 1000) / 1000;
      return { conversation: c, turn: i, detail: 'satisfaction fell on a pull' };
    },
  },
  {
    id: 'frustration-zero-after-loss',
    invariant: 'satisfaction-frustration',
    kind: 'state',
    description: 'frustration 0 although patience was lost',
    apply(c0, rng) {
      const first = c0.turns.map((t) => tr(t)?.patience).find((p) => typeof p === 'number');
      const i = pickSite(
        rng,
        sites(
          c0,
          (t) =>
            typeof tr(t)?.patience === 'number' &&
            first !== undefined &&
            tr(t)!.patience! < first &&
            typeof tr(t)?.frustration === 'number',
        ),
      );
      if (i === undefined) return undefined;
      const c = clone(c0);
      tr(c.turns[i])!.frustration = 0;
      return { conversation: c, turn: i, detail: `frustration 0 at patience ${tr(c.turns[i])!.patience}` };
    },
  },
  {
    id: 'frustration-still-on-loss',
    invariant: 'satisfaction-frustration',
    kind: 'state',
    description: 'frustration does not rise when patience falls',
    apply(c0, rng) {
      const i = pickSite(
        rng,
        sites(
          c0,
          (t, i) =>
            i > 0 &&
            typeof tr(t)?.patience === 'number' &&
            typeof tr(c0.turns[i - 1])?.patience === 'number' &&
            tr(t)!.patience! < tr(c0.turns[i - 1])!.patience! &&
            typeof tr(c0.turns[i - 1])?.frustration === 'number' &&
            typeof tr(t)?.frustration === 'number',
        ),
      );
      if (i === undefined) return undefined;
      const c = clone(c0);
      tr(c.turns[i])!.frustration = tr(c.turns[i - 1])!.frustration;
      return { conversation: c, turn: i, detail: 'frustration unchanged on a patience loss' };
    },
  },
  // goal-requests
  {
    id: 'fulfil-unasked-request',
    invariant: 'goal-requests',
    kind: 'state',
    description: 'a goal request is marked fulfilled although the user did not ask and the agent did not explain',
    apply(c0, rng) {
      const cands: [number, string][] = [];
      c0.turns.forEach((t, i) => {
        const g = tr(t)?.goal;
        if (!g || i === 0) return;
        const prevAct = tr(c0.turns[i - 1])?.user_act;
        const explained =
          strList((tr(t)?.nlu as Loose | undefined)?.['acts']).includes('Explain') || tr(t)?.agent_act === 'Explain';
        if (explained && (mainOf(prevAct) === 'Navigate' || mainOf(prevAct) === 'Inquire')) return;
        // a Navigate turn may read a request off a shown item's title (the invariant allows it)
        if (mainOf(tr(t)?.user_act) === 'Navigate') return;
        const done = new Set(strList(g.fulfilled_requests));
        for (const r of strList(g.requests)) if (!done.has(r)) cands.push([i, r]);
      });
      if (!cands.length) return undefined;
      const [i, r] = rng.pick(cands);
      const c = clone(c0);
      for (let j = i; j < c.turns.length; j++) {
        const g = tr(c.turns[j])?.goal;
        if (g && !strList(g.fulfilled_requests).includes(r))
          g.fulfilled_requests = [...strList(g.fulfilled_requests), r];
      }
      return { conversation: c, turn: i, detail: `${r} fulfilled without an answer` };
    },
  },
  {
    id: 'unfulfil-request',
    invariant: 'goal-requests',
    kind: 'state',
    description: 'a fulfilled request is silently open again',
    apply(c0, rng) {
      const i = pickSite(
        rng,
        sites(c0, (t) => strList(tr(t)?.goal?.fulfilled_requests).length > 0),
      );
      if (i === undefined) return undefined;
      const c = clone(c0);
      const r = rng.pick(strList(tr(c.turns[i])!.goal!.fulfilled_requests));
      const j = c.turns.findIndex((t, k) => k > i && tr(t)?.goal !== undefined);
      if (j < 0) return undefined;
      for (let k = j; k < c.turns.length; k++) {
        const g = tr(c.turns[k])?.goal;
        if (g?.fulfilled_requests) g.fulfilled_requests = g.fulfilled_requests.filter((x) => x !== r);
      }
      return { conversation: c, turn: j, detail: `${r} open again` };
    },
  },
  {
    id: 'fulfil-foreign-request',
    invariant: 'goal-requests',
    kind: 'state',
    description: 'a request the goal never had is marked fulfilled',
    apply(c0, rng) {
      const i = pickSite(
        rng,
        sites(c0, (t) => tr(t)?.goal !== undefined && Array.isArray(tr(t)?.goal?.requests)),
      );
      if (i === undefined) return undefined;
      const c = clone(c0);
      for (let j = i; j < c.turns.length; j++) {
        const g = tr(c.turns[j])?.goal;
        if (g) g.fulfilled_requests = [...strList(g.fulfilled_requests), 'warranty'];
      }
      return { conversation: c, turn: i, detail: 'warranty fulfilled' };
    },
  },
  {
    id: 'stated-request-pending',
    invariant: 'goal-requests',
    kind: 'state',
    description:
      "a request the answer to the user's item question stated (the asked item's value) stays pending: the user would ask next what it was just told",
    apply(c0, rng, ctx) {
      // turns right after an item question whose answer stated a request that became fulfilled there
      const cands: [number, string][] = [];
      c0.turns.forEach((t, i) => {
        const asked = tr(c0.turns[i - 1]);
        const id = strList(asked?.said?.items)[0];
        if (i === 0 || asked?.user_act !== 'Navigate' || id === undefined) return;
        const facts = factsOf(c0, id, ctx);
        const answer = c0.turns[i - 1].assistant_utterance;
        if (!facts || !answer) return;
        const before = new Set(strList(asked.goal?.fulfilled_requests));
        for (const r of strList(tr(t)?.goal?.fulfilled_requests))
          if (!before.has(r) && statesItemValue(answer, r, facts.attributes[r], facts.title, facts.price))
            cands.push([i, r]);
      });
      if (!cands.length) return undefined;
      const [i, r] = rng.pick(cands);
      const c = clone(c0);
      for (let j = i; j < c.turns.length; j++) {
        const g = tr(c.turns[j])?.goal;
        if (g?.fulfilled_requests) g.fulfilled_requests = strList(g.fulfilled_requests).filter((x) => x !== r);
      }
      return { conversation: c, turn: i, detail: `${r} left pending after the answer stated it` };
    },
  },
  // (the synthetic catalog's price bands: a price-band answer is mutated to another one)
  {
    id: 'ask-stated-attribute',
    invariant: 'goal-requests',
    kind: 'text',
    description:
      "an agenda user's item question asks about an attribute the user stated a value of itself (the asked request's name swapped for the stated attribute's in the words; agenda rule 16)",
    apply(c0, rng) {
      if (builtInSource(c0) !== 'agenda') return undefined;
      const name = (a: string) => a.replace(/[_-]+/g, ' ');
      const swap = (i: number): [string, string] | undefined => {
        const t = c0.turns[i];
        const x = tr(t);
        if (x?.user_act !== 'Navigate' || !strList(x.said?.items).length || t.user_utterance === undefined)
          return undefined;
        const goal = x.goal;
        const pending = strList(goal?.requests).filter((r) => !strList(goal?.fulfilled_requests).includes(r));
        const asked = pending.find((r) => new RegExp(`\\b${escapeRe(name(r))}\\b`, 'i').test(t.user_utterance!));
        if (!asked) return undefined;
        const stated = new Set<string>();
        for (let j = 0; j < i; j++) for (const [a] of constraintsSaid(c0.turns[j])) if (a !== 'category') stated.add(a);
        const held = Object.keys(goal?.constraints ?? {}).find(
          (a) =>
            stated.has(a) &&
            !pending.includes(a) &&
            !new RegExp(`\\b${escapeRe(name(a))}\\b`, 'i').test(t.user_utterance!),
        );
        return held ? [asked, held] : undefined;
      };
      const i = pickSite(
        rng,
        sites(c0, (_t, i) => i > 0 && swap(i) !== undefined),
      );
      if (i === undefined) return undefined;
      const [asked, held] = swap(i)!;
      const c = clone(c0);
      c.turns[i].user_utterance = c.turns[i].user_utterance!.replace(
        new RegExp(`\\b${escapeRe(name(asked))}\\b`, 'gi'),
        name(held),
      );
      return { conversation: c, turn: i, detail: `the question asks about ${held} (stated) instead of ${asked}` };
    },
  },
  {
    id: 'price-of-another-item',
    invariant: 'goal-requests',
    kind: 'text',
    description:
      "the answer that fulfilled a price-band request gives another price than the asked item's, and another band if it said one (the trace kept)",
    apply(c0, rng) {
      const cands = sites(c0, (t, i) => {
        if (i === 0 || tr(c0.turns[i - 1])?.user_act !== 'Navigate') return false;
        const before = new Set(strList(tr(c0.turns[i - 1])?.goal?.fulfilled_requests));
        if (before.has('price_band') || !strList(tr(t)?.goal?.fulfilled_requests).includes('price_band')) return false;
        const asked = strList(tr(c0.turns[i - 1])?.said?.items)[0];
        const rec = c0.turns
          .slice(0, i)
          .flatMap((x) => x.recommendations ?? [])
          .find((r) => r.item_id === asked);
        const band = rec?.attributes?.['price_band'];
        return /\$\s?\d/.test(c0.turns[i - 1].assistant_utterance ?? '') && PRICE_BANDS.includes(String(band));
      });
      const i = pickSite(rng, cands);
      if (i === undefined) return undefined;
      const c = clone(c0);
      const asked = strList(tr(c.turns[i - 1])?.said?.items)[0];
      const band = String(
        c.turns
          .slice(0, i)
          .flatMap((x) => x.recommendations ?? [])
          .find((r) => r.item_id === asked)?.attributes?.['price_band'],
      );
      const other = rng.pick(PRICE_BANDS.filter((b) => b !== band));
      // another amount in place of every price said (whole dollars, far off the item's), another band
      c.turns[i - 1].assistant_utterance = (c.turns[i - 1].assistant_utterance ?? '')
        .replace(/\$\s?\d[\d,]*(\.\d+)?/g, (m) => `$${Math.round(Number(m.replace(/[^\d.]/g, '')) * 1.6 + 11)}`)
        .split(band)
        .join(other);
      return { conversation: c, turn: i, detail: `turn ${i - 1}'s answer gives another price` };
    },
  },
  {
    id: 'answer-as-question',
    invariant: 'goal-requests',
    kind: 'text',
    description:
      "the agent's answer that fulfilled a request only asks: every sentence of it ends in a question mark (the trace kept)",
    apply(c0, rng) {
      // turns where a request became fulfilled after the user asked (not read off a card)
      const cands = sites(c0, (t, i) => {
        if (i === 0) return false;
        const before = new Set(strList(tr(c0.turns[i - 1])?.goal?.fulfilled_requests));
        const fresh = strList(tr(t)?.goal?.fulfilled_requests).filter((r) => !before.has(r));
        const asked = mainOf(tr(c0.turns[i - 1])?.user_act);
        return (
          fresh.length > 0 && (asked === 'Navigate' || asked === 'Inquire') && mainOf(tr(t)?.user_act) !== 'Navigate'
        );
      });
      const i = pickSite(rng, cands);
      if (i === undefined) return undefined;
      const c = clone(c0);
      const answer = c.turns[i - 1].assistant_utterance ?? '';
      c.turns[i - 1].assistant_utterance = answer.replace(/[.!]+(?=\s|$)/g, '?').replace(/([^?\s])\s*$/, '$1?');
      return { conversation: c, turn: i, detail: `turn ${i - 1}'s answer only asks` };
    },
  },
  // no-repetition
  {
    id: 'repeat-utterance',
    invariant: 'no-repetition',
    kind: 'text',
    description: 'a user turn repeats an earlier utterance of the conversation word for word',
    apply(c0, rng) {
      const users = sites(
        c0,
        (t) => typeof t.user_utterance === 'string' && t.user_utterance.trim() !== '' && tr(t) !== undefined,
      );
      if (users.length < 2) return undefined;
      const k = 1 + rng.int(users.length - 1);
      const j = users[k];
      const i = users[rng.int(k)];
      const c = clone(c0);
      c.turns[j].user_utterance = c.turns[i].user_utterance;
      return { conversation: c, turn: j, detail: `turn ${j} repeats turn ${i}` };
    },
  },
  // opinion-matches-preferences
  {
    id: 'flip-opinion',
    invariant: 'opinion-matches-preferences',
    kind: 'label',
    description: 'a like becomes a dislike (or back) against what the preference model holds about the item',
    apply(c0, rng, ctx) {
      // turns whose first named item the preference model (accumulated, or reflected this turn) has an opinion on
      const firm: number[] = [];
      const liked = new Set<string>();
      const disliked = new Set<string>();
      c0.turns.forEach((t, i) => {
        const x = tr(t);
        const p = x?.preferences;
        if (p) {
          if (p.kind !== 'delta') {
            liked.clear();
            disliked.clear();
          }
          for (const id of strList(p.liked_items)) {
            liked.add(id);
            disliked.delete(id);
          }
          for (const id of strList(p.disliked_items)) {
            disliked.add(id);
            liked.delete(id);
          }
        }
        const first = strList(x?.said?.items)[0];
        if (
          !x ||
          x.target !== undefined ||
          first === undefined ||
          (x.user_act !== 'Note.Like' && x.user_act !== 'Note.Dislike')
        )
          return;
        const reflected = (p?.reflected ?? {}) as Record<string, string>;
        const opinion = liked.has(first) ? 'like' : disliked.has(first) ? 'dislike' : reflected[first];
        if (x.user_act === 'Note.Dislike' && opinion === 'dislike') firm.push(i);
        // a like turned dislike is allowed when the item breaks what the user asked for: only items that keep it
        if (x.user_act === 'Note.Like' && opinion === 'like' && keepsStated(c0, i, first, ctx)) firm.push(i);
      });
      const i = pickSite(rng, firm);
      if (i === undefined) return undefined;
      const c = clone(c0);
      const t = tr(c.turns[i])!;
      const was = t.user_act!;
      t.user_act = was === 'Note.Like' ? 'Note.Dislike' : 'Note.Like';
      return { conversation: c, turn: i, detail: `${was} relabelled ${t.user_act}` };
    },
  },
  lackingItemMutant(
    'like-item-lacking',
    'Note.Like',
    'a Like names instead another item of the carousel that lacks a value the user said it wants and has none of the values the turn says (the words kept)',
  ),
  lackingItemMutant(
    'similar-to-lacking',
    'Inquire.Similar',
    'a request for items like one names instead another item of the carousel that lacks a value the user said it wants (the words kept; agenda rule 15)',
  ),
  {
    id: 'reflect-like-lacking',
    invariant: 'opinion-matches-preferences',
    kind: 'state',
    description:
      'a PEPPER user reflects as liked a shown item that lacks a value it said it wants and has none of them (silent state change)',
    apply(c0, rng) {
      const pick = (i: number): string | undefined => {
        const x = tr(c0.turns[i]);
        const refl = x?.preferences?.model === 'pepper' ? (x.preferences.reflected as Loose | undefined) : undefined;
        if (!refl) return undefined;
        const want = wantedBefore(c0, i);
        if (!want?.size) return undefined;
        const shown = new Map((c0.turns[i - 1]?.recommendations ?? []).map((r) => [r.item_id, attrsOf(r)]));
        return Object.keys(refl).find((id) => {
          const a = shown.get(id);
          if (!a || refl[id] === 'like' || id === x?.target?.item_id) return false;
          const values = [...want].filter(([k]) => a[k] !== undefined);
          return values.length > 0 && values.every(([k, v]) => a[k].toLowerCase() !== v);
        });
      };
      const i = pickSite(
        rng,
        sites(c0, (_t, i) => i > 0 && pick(i) !== undefined),
      );
      if (i === undefined) return undefined;
      const id = pick(i)!;
      const c = clone(c0);
      (tr(c.turns[i])!.preferences!.reflected as Loose)[id] = 'like';
      return { conversation: c, turn: i, detail: `${id} reflected as liked` };
    },
  },
  // the read-back (self-consistency): labels the words contradict
  {
    id: 'like-text-dislike-label',
    invariant: READBACK_TARGET,
    kind: 'text',
    description: 'a Dislike turn about a shown item gets words that like it (the label kept)',
    apply(c0, rng) {
      const shownBefore = (i: number) => shownItems(c0, i);
      const cands = sites(c0, (t, i) => {
        const x = tr(t);
        const first = strList(x?.said?.items)[0];
        return x?.user_act === 'Note.Dislike' && first !== undefined && shownBefore(i).get(first)?.title !== undefined;
      });
      const i = pickSite(rng, cands);
      if (i === undefined) return undefined;
      const c = clone(c0);
      const title = shownBefore(i).get(strList(tr(c0.turns[i])?.said?.items)[0])!.title!;
      const forms = [
        `I really like the ${title}.`,
        `Oh, the ${title} looks great to me.`,
        `Love the ${title}, it's lovely.`,
        `The ${title} is perfect, honestly.`,
        `I quite like ${title}.`,
      ];
      c.turns[i].user_utterance = rng.pick(forms);
      return {
        conversation: c,
        turn: i,
        detail: `Dislike turn now reads ${JSON.stringify(c.turns[i].user_utterance)}`,
      };
    },
  },
  {
    id: 'relabel-like-dislike',
    invariant: READBACK_TARGET,
    kind: 'label',
    description: 'a Note.Like turn relabelled Note.Dislike (the words kept)',
    apply(c0, rng) {
      const i = pickSite(
        rng,
        sites(c0, (t) => tr(t)?.user_act === 'Note.Like'),
      );
      if (i === undefined) return undefined;
      const c = clone(c0);
      tr(c.turns[i])!.user_act = 'Note.Dislike';
      return { conversation: c, turn: i, detail: 'Note.Like relabelled Note.Dislike' };
    },
  },
  {
    id: 'relabel-dislike-like',
    invariant: READBACK_TARGET,
    kind: 'label',
    description: 'a Note.Dislike turn relabelled Note.Like (the words kept)',
    apply(c0, rng) {
      const i = pickSite(
        rng,
        sites(c0, (t) => tr(t)?.user_act === 'Note.Dislike'),
      );
      if (i === undefined) return undefined;
      const c = clone(c0);
      tr(c.turns[i])!.user_act = 'Note.Like';
      return { conversation: c, turn: i, detail: 'Note.Dislike relabelled Note.Like' };
    },
  },
  {
    id: 'relabel-disclose-dislike',
    invariant: READBACK_TARGET,
    kind: 'label',
    description: 'a Disclose turn that states a value relabelled Note.Dislike (the words kept)',
    apply(c0, rng) {
      const i = pickSite(
        rng,
        sites(c0, (t) => tr(t)?.user_act === 'Disclose' && constraintsSaid(t).some(([a]) => a !== 'category')),
      );
      if (i === undefined) return undefined;
      const c = clone(c0);
      tr(c.turns[i])!.user_act = 'Note.Dislike';
      return { conversation: c, turn: i, detail: 'Disclose relabelled Note.Dislike' };
    },
  },
  // push-reason-holds (fifteenth round): a push's reason that is not true of the conversation
  {
    id: 'push-reason-false',
    invariant: 'push-reason-holds',
    kind: 'label',
    description:
      "a built-in user's push gives a reason of its own kind that the conversation shows false (a value the first items have, items not shown again, a value never turned down, a liked item on screen)",
    apply(c0, rng) {
      const c = clone(c0);
      const options = new Map<number, string[]>();
      for (const i of sites(c, (t, i) => i >= 1 && tr(t)?.operation === 'push' && builtInSource(c) !== undefined)) {
        const falseOnes = falseReasonsAt(c, i).filter((r) => r !== tr(c.turns[i])!.push_reason);
        if (falseOnes.length) options.set(i, falseOnes);
      }
      const i = pickSite(rng, [...options.keys()]);
      if (i === undefined) return undefined;
      const reason = rng.pick(options.get(i)!);
      const was = tr(c.turns[i])!.push_reason;
      tr(c.turns[i])!.push_reason = reason;
      return { conversation: c, turn: i, detail: `push reason ${JSON.stringify(was)} -> ${JSON.stringify(reason)}` };
    },
  },
  {
    id: 'push-unjustified',
    invariant: 'push-reason-holds',
    kind: 'state',
    description:
      "an agenda user's pull turned into a push ('X does not answer Y') although an act the agent's turn was read as answers the user's act in the answers table; patience, frustration and satisfaction follow, the agenda is left as it was (the last turn, or a pull that left it unchanged)",
    apply(c0, rng) {
      const c = clone(c0);
      if (builtInSource(c) !== 'agenda') return undefined;
      const turns = c.turns;
      const i = pickSite(
        rng,
        sites(c, (t, i) => {
          const x = tr(t);
          const before = tr(turns[i - 1]);
          if (i < 1 || x?.operation !== 'pull' || isAccept(x.user_act) || !before?.user_act || !x.nlu?.agent_act)
            return false;
          // patience stays above 0 after the extra push (no abandonment rule comes into play)
          if (turns.slice(i).some((u) => typeof tr(u)?.patience !== 'number' || tr(u)!.patience! < 2)) return false;
          // a push leaves the agenda as it was: only where no later turn pulled from what this pull
          // left (the last turn, or a pull that left the agenda as it was)
          const agenda = strList(x.agenda);
          const prevAgenda = strList(before.agenda);
          if (i !== turns.length - 1 && agenda.join('\u0000') !== prevAgenda.join('\u0000')) return false;
          const acts = strList((x.nlu as Loose)['acts']);
          return (acts.length ? acts : [x.nlu.agent_act]).some((a) => answersDefault(before.user_act!, a));
        }),
      );
      if (i === undefined) return undefined;
      const x = tr(turns[i])!;
      const reason = `${x.nlu!.agent_act} does not answer ${tr(turns[i - 1])!.user_act}`;
      x.operation = 'push';
      x.push_reason = reason;
      if (Array.isArray(tr(turns[i - 1])!.agenda)) x.agenda = [...strList(tr(turns[i - 1])!.agenda)];
      const loose = x as Loose;
      if (loose['pulled'] !== undefined) {
        loose['pushed'] = loose['pulled'];
        delete loose['pulled'];
      }
      // patience one lower from here on, frustration (patience lost) with it, and one appropriate
      // answer fewer in satisfaction (the share of appropriate answers among the agent turns read)
      const first = tr(turns[0])?.patience;
      let read = 0;
      turns.forEach((u, j) => {
        const y = tr(u);
        if (!y) return;
        if (y.nlu) read++;
        if (j < i) return;
        y.patience! -= 1;
        if (typeof first === 'number' && first > 0 && typeof y.frustration === 'number')
          y.frustration = Math.round(1000 * (1 - y.patience! / first)) / 1000;
        if (typeof y.satisfaction === 'number' && read > 0)
          y.satisfaction = Math.max(0, Math.round(1000 * (y.satisfaction - 1 / read)) / 1000);
      });
      return { conversation: c, turn: i, detail: `pull -> push ${JSON.stringify(reason)}, patience -1 from turn ${i}` };
    },
  },
  {
    id: 'push-reshown-moved',
    invariant: 'push-reason-holds',
    kind: 'item',
    description:
      'on a push whose reason is that the agent showed again what the user just passed over or turned down, the carousel shows those items in another order, or at ranks 4-6',
    apply(c0, rng) {
      const c = clone(c0);
      const i = pickSite(
        rng,
        sites(c, (t, i) => {
          const r = tr(t)?.push_reason ?? '';
          const recs = c.turns[i - 1]?.recommendations ?? [];
          return (
            i >= 1 &&
            tr(t)?.operation === 'push' &&
            recs.length >= 2 &&
            recs[0].item_id !== recs[1].item_id &&
            (r === 'the agent showed again the items the user just turned down' ||
              / again right after the user passed it over$/.test(r))
          );
        }),
      );
      if (i === undefined) return undefined;
      const recs = c.turns[i - 1].recommendations!;
      let detail: string;
      if (recs.length >= 6 && rng.int(2) === 0) {
        c.turns[i - 1].recommendations = [...recs.slice(3, 6), ...recs.slice(0, 3), ...recs.slice(6)];
        detail = 'the first three items moved to ranks 4-6';
      } else {
        c.turns[i - 1].recommendations = [recs[1], recs[0], ...recs.slice(2)];
        detail = 'the first two items swapped';
      }
      return { conversation: c, turn: i, detail: `${detail} (push reason kept)` };
    },
  },
  // reflected-opinions-hold (fifteenth round)
  {
    id: 'reflected-like-neutral',
    invariant: 'reflected-opinions-hold',
    kind: 'label',
    description:
      "on a target-free user's push, an item it reflects as liked (not one its words name) is relabelled neutral; a push reason that named liked items then says none is liked",
    apply(c0, rng) {
      const c = clone(c0);
      const i = pickSite(
        rng,
        pepperSites(
          c,
          (i, x, liked) => x.operation === 'push' && liked.some((id) => !strList(x.said?.items).includes(id)),
        ),
      );
      if (i === undefined) return undefined;
      const x = tr(c.turns[i])!;
      const refl = x.preferences!.reflected as Loose;
      const id = rng.pick(Object.keys(refl).filter((k) => refl[k] === 'like' && !strList(x.said?.items).includes(k)));
      refl[id] = 'neutral';
      if (!Object.values(refl).includes('like') && x.push_reason === ONLY_LIKED_BEFORE)
        x.push_reason = 'none of the items shown is one the user likes';
      return { conversation: c, turn: i, detail: `reflected like of ${id} -> neutral` };
    },
  },
];

/** Every mutation operator, in report order. */
export const MUTATION_OPERATORS: readonly MutationOperator[] = OPERATORS;

export interface InvariantMutationScore {
  invariant: string;
  /** Mutants made (operators that found a site in a conversation). */
  applicable: number;
  /** Caught by the target invariant on the mutant's turn. */
  caught: number;
  /** Caught by the target invariant, but only on another turn. */
  wrongTurn: number;
  /** Per operator: [applicable, caught]. */
  operators: Record<string, [number, number]>;
  /** A few missed mutants (conversation id, operator, turn, what was changed). */
  missed: string[];
}

interface MutationScoreOptions extends MutationContext {
  /** Seed of the site draws (default "mutation"). */
  seed?: string;
  /** Check these invariants instead of the built-in ones (the bench's frozen baseline). */
  invariants?: readonly Invariant[];
  /** Operators to apply (default all). */
  operators?: readonly MutationOperator[];
  /** With `invariants` (a baseline): also score the read-back operators (default: only without `invariants`). */
  readback?: boolean;
}

export interface MutationScore {
  conversations: number;
  /** Clean conversations on which an operator's target invariant already failed (not mutated by it). */
  dirtyBases: number;
  invariants: InvariantMutationScore[];
}

/**
 * Applies every operator to every conversation it fits and checks each mutant with its target
 * invariant. A mutant counts as caught when that invariant reports a violation on the mutant's
 * turn. An invariant the checker does not know (a baseline without it) catches nothing.
 */
export function mutationScore(
  conversations: readonly Conversation[],
  options: MutationScoreOptions = {},
): MutationScore {
  const ops = options.operators ?? MUTATION_OPERATORS;
  const known = new Set((options.invariants ?? defaultInvariantIds()).map((x) => (typeof x === 'string' ? x : x.id)));
  if (!options.invariants || options.readback) known.add(READBACK_TARGET);
  /** The turns the read-back disagrees on. */
  const disagreeing = (c: Conversation): Set<number> => {
    const r = new ReadbackChecker({ examples: 100000 });
    r.add(c);
    return new Set(r.report().disagreements.map((d) => d.turn));
  };
  const cleanTurns = new Map<number, Set<number>>();
  const byInv = new Map<string, InvariantMutationScore>();
  const checkOptions: CheckOptions = {
    catalog: options.catalog,
    maxTurns: options.maxTurns,
    metaTolerance: options.metaTolerance,
    examples: 1000,
    readback: false,
  };
  if (options.invariants) checkOptions.invariants = options.invariants;
  let dirty = 0;
  const cleanCache = new Map<string, boolean>();
  const clean = (c: Conversation, k: number, inv: string): boolean => {
    const key = `${k}|${inv}`;
    let v = cleanCache.get(key);
    if (v === undefined) {
      const ch = new InvariantChecker({ ...checkOptions, only: [inv] });
      ch.add(c);
      v = ch.report().invariants[0].violations === 0;
      cleanCache.set(key, v);
    }
    return v;
  };
  conversations.forEach((conv, k) => {
    for (const op of ops) {
      const rng = createRng(`${options.seed ?? 'mutation'}/${op.id}/${k}`);
      const m = op.apply(conv, rng, options);
      if (!m) continue;
      let s = byInv.get(op.invariant);
      if (!s)
        byInv.set(
          op.invariant,
          (s = { invariant: op.invariant, applicable: 0, caught: 0, wrongTurn: 0, operators: {}, missed: [] }),
        );
      const per = (s.operators[op.id] ??= [0, 0]);
      if (!known.has(op.invariant)) {
        s.applicable++;
        per[0]++;
        if (s.missed.length < 5)
          s.missed.push(`${conv.id ?? k} ${op.id} turn ${m.turn}: ${m.detail} (no such invariant)`);
        continue;
      }
      if (op.invariant === READBACK_TARGET) {
        let base = cleanTurns.get(k);
        if (!base) cleanTurns.set(k, (base = disagreeing(conv)));
        if (base.has(m.turn)) {
          dirty++;
          continue;
        }
        s.applicable++;
        per[0]++;
        const got = disagreeing(m.conversation);
        if (got.has(m.turn)) {
          s.caught++;
          per[1]++;
        } else {
          if (got.size > 0) s.wrongTurn++;
          if (s.missed.length < 5)
            s.missed.push(
              `${conv.id ?? k} ${op.id} turn ${m.turn}: ${m.detail}${got.size ? ` (flagged turn ${[...got].join(',')})` : ''}`,
            );
        }
        continue;
      }
      if (!clean(conv, k, op.invariant)) {
        dirty++;
        continue;
      }
      s.applicable++;
      per[0]++;
      const ch = new InvariantChecker({ ...checkOptions, only: [op.invariant] });
      ch.add(m.conversation);
      const r = ch.report().invariants[0];
      if (r.examples.some((e) => e.turn === m.turn)) {
        s.caught++;
        per[1]++;
      } else {
        if (r.violations > 0) s.wrongTurn++;
        if (s.missed.length < 5)
          s.missed.push(
            `${conv.id ?? k} ${op.id} turn ${m.turn}: ${m.detail}${r.violations ? ` (flagged turn ${r.examples.map((e) => e.turn).join(',')})` : ''}`,
          );
      }
    }
  });
  const order = [...new Set(ops.map((o) => o.invariant))];
  return {
    conversations: conversations.length,
    dirtyBases: dirty,
    invariants: order.map((id) => byInv.get(id)).filter((x): x is InvariantMutationScore => x !== undefined),
  };
}

function defaultInvariantIds(): string[] {
  return INVARIANTS.map((i) => i.id);
}
