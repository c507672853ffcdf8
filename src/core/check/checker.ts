/**
 * Runs the behavioural invariants over a population, one conversation at a time (so a CLI can
 * stream a file of any size): counts, per invariant, the conversations and turns it applied to and
 * its violations, and keeps the first few as examples.
 */
import { conversationId, type Conversation } from '../model';
import { INVARIANTS, factsOfRecommendation, hasAttributes, saidConstraints, shownFactsOf } from './invariants';
import type {
  CheckOptions,
  CheckReport,
  ConversationContext,
  Invariant,
  InvariantResult,
  ItemFacts,
  ViolationExample,
} from './types';
import { clauses, hasNegator, show } from './text';
import { ReadbackChecker } from './readback';
import { tokenize } from '../text/tokenize';

interface Tally {
  conversations: number;
  turns: number;
  violations: number;
  violatingConversations: number;
  examples: ViolationExample[];
  unchecked?: Map<string, number>;
}

/** The invariants `options.only` selects (all by default); unknown ids throw, naming the known ones. */
function selectInvariants(only?: readonly string[], from: readonly Invariant[] = INVARIANTS): readonly Invariant[] {
  if (!only || only.length === 0) return from;
  const known = new Map(from.map((i) => [i.id, i]));
  return only.map((id) => {
    const inv = known.get(id);
    if (!inv) throw new Error(`unknown invariant "${id}" (known: ${[...known.keys()].join(', ')})`);
    return inv;
  });
}

/** What the invariants read of one utterance text: its words, and on demand their key and set, its clauses and whether it may negate (all functions of the text alone). */
interface Reading {
  text: string;
  words: readonly string[];
  key?: string;
  set?: ReadonlySet<string>;
  clauses?: readonly string[][];
  negates?: boolean;
}

/**
 * Readings per utterance text, across conversations: simulated users repeat their wording (about
 * half the utterances of a run), so each text is cut once. Bounded: cleared when full.
 */
const READINGS = new Map<string, Reading>();
const READINGS_MAX = 50000;

function readingOf(text: string): Reading {
  let r = READINGS.get(text);
  if (r === undefined) {
    if (READINGS.size >= READINGS_MAX) READINGS.clear();
    r = { text, words: tokenize(text) };
    READINGS.set(text, r);
  }
  return r;
}

/**
 * One conversation as the invariants see it: what several invariants read (the words, clauses
 * and said constraints of each turn, item facts) is read once, on first use, and shared.
 */
class Context implements ConversationContext {
  readonly id: string;
  private memo: Map<string, ItemFacts | undefined> | undefined;
  private readings: (Reading | undefined)[] | undefined;
  private saidOf: (readonly [string, string][] | null | undefined)[] | undefined;

  constructor(
    readonly conversation: Conversation,
    readonly line: number | undefined,
    readonly options: CheckOptions,
  ) {
    this.id = conversationId(conversation, line);
  }

  item(id: string): ItemFacts | undefined {
    this.memo ??= new Map();
    const memo = this.memo;
    if (memo.has(id)) return memo.get(id);
    const f = this.lookup(id);
    memo.set(id, f);
    return f;
  }

  private lookup(id: string): ItemFacts | undefined {
    // The first carousel entry of the item with attributes (else its first entry), read on demand.
    let shown: ItemFacts | undefined;
    for (const t of this.conversation.turns) {
      for (const r of t.recommendations ?? []) {
        if (r?.item_id !== id) continue;
        const f = r !== null && typeof r === 'object' ? shownFactsOf(r) : factsOfRecommendation(r);
        if (!shown || (!hasAttributes(shown) && hasAttributes(f))) shown = f;
        if (hasAttributes(shown)) break;
      }
      if (shown && hasAttributes(shown)) break;
    }
    if (shown && shown.category !== undefined && hasAttributes(shown)) return shown;
    const known = this.options.catalog?.get(id);
    if (known)
      return {
        item_id: known.item_id,
        title: known.title ?? shown?.title,
        category: known.category,
        attributes: { ...known.attributes },
        ...(typeof known.price === 'number'
          ? { price: known.price }
          : typeof shown?.price === 'number'
            ? { price: shown.price }
            : {}),
      };
    return shown;
  }

  /** The reading of turn i's user utterance (shared by every conversation with the same text). */
  private reading(i: number): Reading {
    const a = (this.readings ??= []);
    return (a[i] ??= readingOf(this.conversation.turns[i]?.user_utterance ?? ''));
  }

  words(i: number): readonly string[] {
    return this.reading(i).words;
  }

  wordKey(i: number): string {
    const r = this.reading(i);
    return (r.key ??= r.words.join(' '));
  }

  wordSet(i: number): ReadonlySet<string> {
    const r = this.reading(i);
    return (r.set ??= new Set(r.words));
  }

  clauses(i: number): readonly string[][] {
    const r = this.reading(i);
    return (r.clauses ??= clauses(r.text));
  }

  mayNegate(i: number): boolean {
    const r = this.reading(i);
    return (r.negates ??= hasNegator(r.words));
  }

  said(i: number): readonly [string, string][] | undefined {
    const a = (this.saidOf ??= []);
    let v = a[i];
    if (v === undefined) a[i] = v = saidConstraints(this.conversation.turns[i]?.trace) ?? null;
    return v ?? undefined;
  }
}

/** Accumulates invariant results over conversations added one by one. */
export class InvariantChecker {
  private readonly invariants: readonly Invariant[];
  private readonly tallies: Tally[];
  private readonly maxExamples: number;
  private count = 0;
  private traced = 0;
  private readonly readback: ReadbackChecker | undefined;

  constructor(private readonly options: CheckOptions = {}) {
    this.invariants = selectInvariants(options.only, options.invariants);
    const rb = options.readback ?? true;
    if (rb !== false) this.readback = new ReadbackChecker(rb === true ? { examples: options.examples } : rb);
    this.tallies = this.invariants.map(() => ({
      conversations: 0,
      turns: 0,
      violations: 0,
      violatingConversations: 0,
      examples: [],
    }));
    this.maxExamples = Math.max(0, options.examples ?? 5);
  }

  /** Checks one conversation; `line` (1-based) names it in examples when it has no id. */
  add(conversation: Conversation, line?: number): void {
    this.count++;
    for (const t of conversation.turns)
      if (t.trace !== undefined && t.trace !== null) {
        this.traced++;
        break;
      }
    const ctx = new Context(conversation, line, this.options);
    this.readback?.add(conversation, line);
    for (let k = 0; k < this.invariants.length; k++) {
      const inv = this.invariants[k];
      let f;
      try {
        f = inv.check(ctx);
      } catch (err) {
        // A malformed trace (wrong types from another tool) is a finding, not a crash of the checker.
        f = {
          turns: 0,
          violations: [{ detail: `could not check: ${show(err instanceof Error ? err.message : String(err), 80)}` }],
        };
      }
      if (!f) continue;
      const t = this.tallies[k];
      t.conversations++;
      t.turns += f.turns;
      if (f.unchecked) {
        t.unchecked ??= new Map();
        for (const u of new Set(f.unchecked)) t.unchecked.set(u, (t.unchecked.get(u) ?? 0) + 1);
      }
      if (f.violations.length === 0) continue;
      t.violations += f.violations.length;
      t.violatingConversations++;
      for (const v of f.violations) {
        if (t.examples.length >= this.maxExamples) break;
        const ex: ViolationExample = { conversation: ctx.id, detail: v.detail };
        if (line !== undefined) ex.line = line;
        if (v.turn !== undefined) ex.turn = v.turn;
        t.examples.push(ex);
      }
    }
  }

  /** The results so far. */
  report(): CheckReport {
    const invariants: InvariantResult[] = this.invariants.map((inv, k) => {
      const t = this.tallies[k];
      let status: InvariantResult['status'];
      if (t.conversations === 0) status = 'not-applicable';
      else if (t.violations === 0) status = 'pass';
      else if (inv.tolerance && t.violatingConversations / t.conversations <= inv.tolerance.share) status = 'tolerated';
      else status = 'fail';
      const r: InvariantResult = {
        id: inv.id,
        statement: inv.statement,
        source: inv.source,
        status,
        conversations: t.conversations,
        turns: t.turns,
        violations: t.violations,
        violatingConversations: t.violatingConversations,
        examples: t.examples.slice(),
      };
      if (inv.tolerance) r.tolerance = { ...inv.tolerance };
      if (status === 'not-applicable') r.na_reason = `no conversation carries ${inv.needs ?? 'the fields it needs'}`;
      if (t.unchecked?.size)
        r.unchecked = [...t.unchecked].map(([reason, conversations]) => ({ reason, conversations }));
      return r;
    });
    const failed = invariants.filter((r) => r.status === 'fail').map((r) => r.id);
    const out: CheckReport = {
      conversations: this.count,
      traced: this.traced,
      invariants,
      failed,
      ok: failed.length === 0,
    };
    if (this.readback) out.readback = this.readback.report();
    return out;
  }
}

/**
 * How many invariants applied to at least one conversation. 0 means nothing was checked (human
 * data, or traces without the fields any invariant needs): that is never a pass.
 */
export function checkedInvariants(report: CheckReport): number {
  return report.invariants.filter((r) => r.status !== 'not-applicable').length;
}

/**
 * Why nothing was checked, in one sentence (for a report with `checkedInvariants(report) === 0`
 * and at least one conversation).
 */
export function nothingCheckedReason(report: CheckReport): string {
  const n = report.invariants.length;
  const all = n === 1 ? `the 1 invariant selected is n/a` : `all ${n} invariants are n/a`;
  if (report.traced === 0)
    return `nothing checked: no conversation carries a simulator trace (${all}); check reads simulator runs`;
  return `nothing checked: no conversation carries the trace fields any invariant needs (${all})`;
}

/**
 * What the report could not check, one line each: the invariants that are n/a (and why) and the
 * parts of rules left unchecked (and how to get them checked). Empty when everything applied.
 */
export function uncheckedSummary(report: CheckReport): string[] {
  const out: string[] = [];
  const na = report.invariants.filter((r) => r.status === 'not-applicable');
  for (const r of na) out.push(`${r.id}: n/a, ${r.na_reason ?? 'no conversation carries the fields it needs'}`);
  for (const r of report.invariants)
    for (const u of r.unchecked ?? [])
      out.push(`${r.id}: partly unchecked in ${u.conversations} conversation(s): ${u.reason}`);
  return out;
}

/** Checks a whole population in memory. */
export function checkConversations(conversations: Iterable<Conversation>, options: CheckOptions = {}): CheckReport {
  const checker = new InvariantChecker(options);
  for (const c of conversations) checker.add(c);
  return checker.report();
}
