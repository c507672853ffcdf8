/**
 * The fast parser of external user turns (src/core/sim/users/external/fastParse.ts) against zod, on
 * the real turns of built-in users (agenda, meta-simulator, target-free) and on thousands of broken
 * copies: whenever it answers, zod accepts the turn and gives the same value with the same key order;
 * whenever zod refuses a turn, it does not answer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import * as z from 'zod';
import { FAIL, fastParse } from '../../../src/core/sim/users/external/fastParse';
import { UserTurnFields, UserTurnResult, userTurnSpeaks } from '../../../src/core/sim/users/external/protocol';
import { parseSimulationConfig, prepareEnvironment } from '../../../src/core/run/config';
import { runSimulation } from '../../../src/core/run/orchestrator';
import { createRng } from '../../../src/core/random';
import type { Conversation } from '../../../src/core/model';
import { scratchDir } from '../../support/scratch';

const dir = scratchDir('simlens-fastparse-');
const fastTurn = fastParse(UserTurnFields);
const fast = (v: unknown) => {
  const r = fastTurn(v);
  return r !== FAIL && userTurnSpeaks(r as { utterance: string }) ? r : FAIL;
};

/** User turns as a simulator would send them: the user's own trace fields (the run adds the agent's). */
async function recordedTurns(
  user: string,
  extra: Record<string, unknown>,
  n: number,
): Promise<Record<string, unknown>[]> {
  const config = parseSimulationConfig({
    user,
    agent: 'local-good',
    n,
    seed: `fast-${user}`,
    catalog_size: 300,
    ...extra,
  });
  const env = await prepareEnvironment(config);
  const out = join(dir, `${user}-${Object.keys(extra).join('')}.jsonl`);
  await runSimulation(config, { out, concurrency: 1, maxConsecutiveFailures: 0, environment: env });
  const turns: Record<string, unknown>[] = [];
  for (const line of readFileSync(out, 'utf8').split('\n').filter(Boolean)) {
    const c = JSON.parse(line) as Conversation;
    c.turns.forEach((t, i) => {
      if (t.user_utterance === undefined) return;
      const trace = { ...(t.trace as Record<string, unknown>) };
      for (const k of ['agent', 'nlu', 'agent_act']) delete trace[k];
      const turn: Record<string, unknown> = {
        utterance: t.user_utterance,
        acts: [String(trace.user_act ?? 'Disclose')],
        trace,
      };
      if (i === c.turns.length - 1)
        Object.assign(turn, { done: true, outcome: c.outcome === 'accepted' ? 'accepted' : 'ended', end_reason: 'x' });
      turns.push(turn);
    });
  }
  return turns;
}

/** One random change somewhere in a copy of `v`: a value of another type, a removed or added key, keys reordered. */
function mutate(v: unknown, rng: ReturnType<typeof createRng>): unknown {
  const copy = structuredClone(v);
  const paths: (string | number)[][] = [];
  const walk = (x: unknown, p: (string | number)[]) => {
    paths.push(p);
    if (Array.isArray(x)) x.forEach((y, i) => walk(y, [...p, i]));
    else if (x && typeof x === 'object')
      for (const k of Object.keys(x)) walk((x as Record<string, unknown>)[k], [...p, k]);
  };
  walk(copy, []);
  const p = paths[rng.int(paths.length)];
  if (p.length === 0) return rng.int(3) === 0 ? null : [copy];
  const parent = p.slice(0, -1).reduce<any>((o, k) => o[k], copy);
  const key = p[p.length - 1];
  const replacements: unknown[] = ['', 'x', 0, -1, 1.5, 2 ** 60, true, null, [], {}, ['a'], { k: 1 }, [1], 'accepted'];
  const kind = rng.int(4);
  if (kind === 0) {
    if (Array.isArray(parent)) parent.splice(Number(key), 1);
    else delete parent[key];
  } else if (kind === 1 && !Array.isArray(parent)) {
    // Reordered keys: the same object, another insertion order.
    const entries = Object.entries(parent).reverse();
    for (const [k] of entries) delete parent[k];
    for (const [k, val] of entries) parent[k] = val;
  } else parent[key] = replacements[rng.int(replacements.length)];
  return copy;
}

test('the fast parser answers as zod on real user turns and on 12,000 broken copies', async () => {
  const turns = [
    ...(await recordedTurns('agenda', {}, 80)),
    ...(await recordedTurns('agenda', { meta: 'tol' }, 40)),
    ...(await recordedTurns('target-free', {}, 30)),
  ];
  assert.ok(turns.length > 800, `${turns.length} turns`);
  let proved = 0;
  let refusedByZod = 0;
  let answered = 0;
  const compare = (v: unknown, label: string) => {
    const z1 = UserTurnResult.safeParse(v);
    const f = fast(v);
    if (!z1.success) {
      refusedByZod++;
      assert.equal(f, FAIL, `${label}: zod refuses, the fast parser answers: ${JSON.stringify(v).slice(0, 300)}`);
      return;
    }
    if (f === FAIL) return;
    answered++;
    assert.equal(JSON.stringify(f), JSON.stringify(z1.data), `${label}: another value or key order`);
    assert.deepEqual(f, z1.data);
    assert.notEqual(f, v, 'a fresh copy, as zod gives');
  };
  for (const t of turns) {
    compare(t, 'recorded');
    if (fast(t) !== FAIL) proved++;
  }
  // Every real turn goes the fast way (else the fast path saves nothing).
  assert.equal(proved, turns.length);
  const rng = createRng('fast-parse-mutations');
  for (let i = 0; i < 12_000; i++) compare(mutate(turns[i % turns.length], rng), `mutant ${i}`);
  // The mutations reach both sides.
  assert.ok(refusedByZod > 1_500, `${refusedByZod} refused`);
  assert.ok(answered - proved > 3_000, `${answered} answered`);
});

test('the fast parser does not answer where zod would change the value or run code of its own', () => {
  const loose = z.looseObject({ a: z.string().optional(), b: z.number().optional() });
  // zod writes declared keys first: the fast parser does too.
  assert.equal(
    JSON.stringify(fastParse(loose)({ x: 1, b: 2, a: 'q' })),
    JSON.stringify(loose.parse({ x: 1, b: 2, a: 'q' })),
  );
  // A default to fill in, a stripped or refused key, a refinement, a transform: not proven.
  const cases: [z.ZodType, unknown][] = [
    [z.looseObject({ a: z.array(z.string()).default([]) }), {}],
    [z.looseObject({ a: z.string().default('x').optional() }), {}],
    [z.object({ a: z.string() }), { a: 'x', b: 1 }],
    [z.strictObject({ a: z.string() }), { a: 'x' }],
    [z.string().refine(() => true), 'x'],
    [z.string().transform((s) => s.length), 'x'],
    [z.string().email(), 'a@b.c'],
    [z.union([z.looseObject({ a: z.string() }), z.string()]), 'x'],
  ];
  for (const [schema, value] of cases) assert.equal(fastParse(schema)(value), FAIL, JSON.stringify(value));
  // Checks it knows, exactly as zod.
  const n = z.number().int().nonnegative();
  for (const v of [0, 1, -1, 1.5, 2 ** 53, Number.NaN, Infinity])
    assert.equal(fastParse(n)(v) !== FAIL, n.safeParse(v).success, String(v));
  const s = z.array(z.string().min(1).max(3)).min(1);
  for (const v of [[], [''], ['a'], ['abcd'], ['ab', 'abc']])
    assert.equal(fastParse(s)(v) !== FAIL, s.safeParse(v).success, JSON.stringify(v));
});
