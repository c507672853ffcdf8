/**
 * "Break on a violation": where a finished conversation should stop a run for the researcher to look
 * at, the first turn that breaks a behavioural invariant (src/core/check) or a condition such as
 * `act == "Complete" && agenda.length > 0`. One definition for the VS Code run and for tests.
 *
 * Conditions are a small expression language, parsed here (never evaluated as code): literals
 * (numbers, "strings", 'strings', true, false, null), names and dotted paths, `.length`, the
 * comparisons == != < <= > >=, && || ! and parentheses. A name is looked up in the turn first
 * (`act` = the user act, `utterance`, `reply` = the recommender's answer, `turn` = 0-based index,
 * `recommendations` = the carousel size, `last` = the conversation's last turn, `outcome`), then in
 * the turn's trace (`agenda`, `patience`, `goal.constraints.colour`, any extra field).
 */
import type { Conversation } from '../model';
import { InvariantChecker } from '../check/checker';

type Node =
  | { k: 'lit'; v: unknown }
  | { k: 'path'; parts: string[] }
  | { k: 'not'; e: Node }
  | { k: 'and' | 'or'; a: Node; b: Node }
  | { k: 'cmp'; op: '==' | '!=' | '<' | '<=' | '>' | '>='; a: Node; b: Node };

/** A parsed condition (`source` is its text). */
export interface Condition {
  source: string;
  node: Node;
}

export class ConditionError extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
    this.name = 'ConditionError';
  }
}

const TOKEN =
  /\s*(?:(\d+(?:\.\d+)?)|("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|([A-Za-z_][A-Za-z0-9_]*)|(==|!=|<=|>=|&&|\|\||[<>!().]))/y;

type Tok = { t: 'num' | 'str' | 'name' | 'op'; v: string; at: number };

function tokenize(src: string): Tok[] {
  const out: Tok[] = [];
  TOKEN.lastIndex = 0;
  let pos = 0;
  while (pos < src.length) {
    while (pos < src.length && /\s/.test(src[pos])) pos++;
    if (pos >= src.length) break;
    TOKEN.lastIndex = pos;
    const m = TOKEN.exec(src);
    if (!m)
      throw new ConditionError(
        `cannot read the condition at column ${pos + 1}: "${src.slice(pos).trim().slice(0, 20)}"`,
        pos,
      );
    const at = m.index + (m[0].length - m[0].trimStart().length);
    if (m[1] !== undefined) out.push({ t: 'num', v: m[1], at });
    else if (m[2] !== undefined) out.push({ t: 'str', v: m[2], at });
    else if (m[3] !== undefined) out.push({ t: 'name', v: m[3], at });
    else out.push({ t: 'op', v: m[4], at });
    pos = TOKEN.lastIndex;
  }
  return out;
}

/** Parses a condition; throws ConditionError naming the column. */
export function parseCondition(source: string): Condition {
  const toks = tokenize(source);
  let i = 0;
  const peek = () => toks[i];
  const fail = (what: string): never => {
    const at = toks[i]?.at ?? source.length;
    throw new ConditionError(`${what} at column ${at + 1} of "${source}"`, at);
  };
  const take = (v: string) => {
    if (peek()?.t === 'op' && peek().v === v) {
      i++;
      return true;
    }
    return false;
  };
  const primary = (): Node => {
    const tok = peek();
    if (!tok) return fail('expected a value');
    if (take('(')) {
      const e = or();
      if (!take(')')) fail('expected ")"');
      return e;
    }
    i++;
    if (tok.t === 'num') return { k: 'lit', v: Number(tok.v) };
    if (tok.t === 'str') return { k: 'lit', v: tok.v.slice(1, -1).replace(/\\(.)/g, '$1') };
    if (tok.t === 'name') {
      if (tok.v === 'true' || tok.v === 'false') return { k: 'lit', v: tok.v === 'true' };
      if (tok.v === 'null') return { k: 'lit', v: null };
      const parts = [tok.v];
      while (take('.')) {
        const n = peek();
        if (n?.t !== 'name') fail('expected a field name after "."');
        parts.push(n.v);
        i++;
      }
      return { k: 'path', parts };
    }
    i--;
    return fail(`unexpected "${tok.v}"`);
  };
  const not = (): Node => (take('!') ? { k: 'not', e: not() } : cmp());
  const cmp = (): Node => {
    const a = primary();
    const tok = peek();
    if (tok?.t === 'op' && ['==', '!=', '<', '<=', '>', '>='].includes(tok.v)) {
      i++;
      return { k: 'cmp', op: tok.v as '==', a, b: primary() };
    }
    return a;
  };
  const and = (): Node => {
    let a = not();
    while (take('&&')) a = { k: 'and', a, b: not() };
    return a;
  };
  const or = (): Node => {
    let a = and();
    while (take('||')) a = { k: 'or', a, b: and() };
    return a;
  };
  if (!toks.length) throw new ConditionError('the condition is empty', 0);
  const node = or();
  if (i < toks.length) fail(`unexpected "${toks[i].v}"`);
  return { source, node };
}

function lookup(scope: Record<string, unknown>, trace: Record<string, unknown>, parts: string[]): unknown {
  let v: unknown = parts[0] in scope ? scope[parts[0]] : trace[parts[0]];
  for (const p of parts.slice(1)) {
    if (p === 'length' && (Array.isArray(v) || typeof v === 'string')) v = v.length;
    else if (v && typeof v === 'object' && !Array.isArray(v)) v = (v as Record<string, unknown>)[p];
    else return undefined;
  }
  return v;
}

function evaluate(n: Node, scope: Record<string, unknown>, trace: Record<string, unknown>): unknown {
  switch (n.k) {
    case 'lit':
      return n.v;
    case 'path':
      return lookup(scope, trace, n.parts);
    case 'not':
      return !truthy(evaluate(n.e, scope, trace));
    case 'and':
      return truthy(evaluate(n.a, scope, trace)) && truthy(evaluate(n.b, scope, trace));
    case 'or':
      return truthy(evaluate(n.a, scope, trace)) || truthy(evaluate(n.b, scope, trace));
    case 'cmp': {
      const a = evaluate(n.a, scope, trace);
      const b = evaluate(n.b, scope, trace);
      if (n.op === '==') return a === b;
      if (n.op === '!=') return a !== b;
      if (typeof a !== typeof b || (typeof a !== 'number' && typeof a !== 'string')) return false;
      const x = a as number;
      const y = b as number;
      return n.op === '<' ? x < y : n.op === '<=' ? x <= y : n.op === '>' ? x > y : x >= y;
    }
  }
}

function truthy(v: unknown): boolean {
  return Array.isArray(v) ? v.length > 0 : !!v;
}

/** The turns of `conversation` where `condition` holds (0-based). */
export function conditionTurns(conversation: Conversation, condition: Condition): number[] {
  const out: number[] = [];
  const turns = conversation.turns;
  turns.forEach((t, i) => {
    const trace = (t.trace ?? {}) as Record<string, unknown>;
    const scope: Record<string, unknown> = {
      act: trace['user_act'],
      utterance: t.user_utterance,
      reply: t.assistant_utterance,
      turn: i,
      recommendations: t.recommendations?.length ?? 0,
      last: i === turns.length - 1,
      outcome: conversation.outcome,
    };
    if (truthy(evaluate(condition.node, scope, trace))) out.push(i);
  });
  return out;
}

/** Why a conversation stops the run: where, and what broke. */
interface BreakHit {
  /** 0-based turn (absent: the conversation as a whole). */
  turn?: number;
  reason: string;
}

export interface BreakOptions {
  /** Stop on any violation of an invariant without a documented tolerance. */
  invariants?: boolean;
  condition?: Condition;
  /** The run's turn cap (for the turn-cap invariant). */
  maxTurns?: number;
}

/** The first turn of `conversation` that should stop the run, or undefined. */
export function firstBreak(conversation: Conversation, options: BreakOptions): BreakHit | undefined {
  const hits: BreakHit[] = [];
  if (options.condition) {
    const [turn] = conditionTurns(conversation, options.condition);
    if (turn !== undefined) hits.push({ turn, reason: `condition ${options.condition.source}` });
  }
  if (options.invariants) {
    const checker = new InvariantChecker({ maxTurns: options.maxTurns, examples: 1 });
    checker.add(conversation);
    for (const r of checker.report().invariants) {
      if (r.violations === 0 || r.tolerance) continue;
      const ex = r.examples[0];
      hits.push({ turn: ex?.turn, reason: `invariant ${r.id}: ${ex?.detail ?? r.statement}` });
    }
  }
  if (!hits.length) return undefined;
  hits.sort((a, b) => (a.turn ?? Infinity) - (b.turn ?? Infinity));
  return hits[0];
}
