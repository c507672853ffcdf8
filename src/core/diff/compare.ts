/**
 * Where two conversations of a pair first differ: the dialogue (what the user and the recommender
 * said and showed) and, separately, the simulator's trace (the state behind each user turn).
 *
 * Within a turn the parts are compared in the order they happen: the user's act and utterance,
 * then the recommender's act, utterance and carousel. A conversation that has ended while the
 * other goes on differs at the first turn the shorter one lacks ("ended"). Trace fields are the
 * top-level keys of `turn.trace`, compared as JSON values (key order ignored); LLM call records (ids and latencies
 * that differ on every run) are left out.
 */
import type { Conversation, Turn } from '../model';
import type { DialoguePart, PairComparison, TurnDifference } from './model';

/** Trace keys never compared: they differ on every run without saying anything about behaviour. */
const IGNORED_TRACE_FIELDS: readonly string[] = ['llm_calls', 'llm_call_ids'];

/** Deep equality of JSON values, key order ignored (what comparing canonical JSON texts decides, without building them). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++)
      if (!sameJson(a[i] === undefined ? null : a[i], b[i] === undefined ? null : b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  let na = 0;
  for (const k in ra) {
    if (ra[k] === undefined) continue;
    na++;
    if (!(k in rb) || !sameJson(ra[k], rb[k])) return false;
  }
  let nb = 0;
  for (const k in rb) if (rb[k] !== undefined) nb++;
  return na === nb;
}

function userActs(t: Turn): string {
  if (t.trace?.user_act !== undefined) return t.trace.user_act;
  const a = t.annotations?.find((x) => x.speaker === 'user');
  return a ? a.acts.join('+') : '';
}

function agentActs(t: Turn): string {
  if (t.trace?.agent_act !== undefined) return t.trace.agent_act;
  const a = t.annotations?.find((x) => x.speaker === 'assistant');
  return a ? a.acts.join('+') : '';
}

function itemIds(t: Turn): string {
  return (t.recommendations ?? []).map((r) => r.item_id).join('\u0000');
}

/** The dialogue parts of turn `i` that differ (both turns present). */
function dialogueDifferences(a: Turn, b: Turn): DialoguePart[] {
  const out: DialoguePart[] = [];
  if (userActs(a) !== userActs(b)) out.push('user_act');
  if ((a.user_utterance ?? '') !== (b.user_utterance ?? '')) out.push('user_utterance');
  if (agentActs(a) !== agentActs(b)) out.push('agent_act');
  if ((a.assistant_utterance ?? '') !== (b.assistant_utterance ?? '')) out.push('assistant_utterance');
  if (itemIds(a) !== itemIds(b)) out.push('recommendations');
  return out;
}

/** The trace fields of two turns that differ (a field present on one side only differs), sorted. */
function traceDifferences(a: Turn | undefined, b: Turn | undefined): string[] {
  const ta = (a?.trace ?? {}) as Record<string, unknown>;
  const tb = (b?.trace ?? {}) as Record<string, unknown>;
  const keys = new Set([...Object.keys(ta), ...Object.keys(tb)]);
  const out: string[] = [];
  for (const k of keys) {
    if (IGNORED_TRACE_FIELDS.includes(k)) continue;
    const va = ta[k];
    const vb = tb[k];
    if (va === vb) continue;
    if (va === undefined || vb === undefined || !sameJson(va, vb)) out.push(k);
  }
  return out.sort();
}

/** Every turn's differences (turns present on one side only included, with part "ended"). */
export function turnDifferences(a: Conversation, b: Conversation): TurnDifference[] {
  const n = Math.max(a.turns.length, b.turns.length);
  const out: TurnDifference[] = [];
  for (let i = 0; i < n; i++) {
    const ta = a.turns[i];
    const tb = b.turns[i];
    const parts: DialoguePart[] = ta && tb ? dialogueDifferences(ta, tb) : ['ended'];
    out.push({ turn: i, parts, traceFields: traceDifferences(ta, tb) });
  }
  return out;
}

/** Where the conversations of a pair first differ (stops at the first dialogue difference once the trace one is known). */
export function comparePair(a: Conversation, b: Conversation): PairComparison {
  const n = Math.max(a.turns.length, b.turns.length);
  const out: PairComparison = { identical: true, parts: [], traceFieldsAtTurn: [], traceFields: [] };
  for (let i = 0; i < n; i++) {
    const ta = a.turns[i];
    const tb = b.turns[i];
    const trace = traceDifferences(ta, tb);
    if (trace.length && out.traceTurn === undefined) {
      out.traceTurn = i;
      out.traceFields = trace;
    }
    if (out.turn === undefined) {
      const parts: DialoguePart[] = ta && tb ? dialogueDifferences(ta, tb) : ['ended'];
      if (parts.length) {
        out.turn = i;
        out.parts = parts;
        out.traceFieldsAtTurn = trace;
      }
    }
    if (out.turn !== undefined && out.traceTurn !== undefined) break;
  }
  out.identical = out.turn === undefined && out.traceTurn === undefined;
  return out;
}
