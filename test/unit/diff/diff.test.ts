import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scratchDir } from '../../support/scratch';
import { runCli } from '../../support/cli';
import {
  comparePair,
  sameJson,
  turnDifferences,
  diffRuns,
  parseGate,
  evaluateGate,
  diffToMarkdown,
  safeCell,
} from '../../../src/core/diff';
import { InputProblemError } from '../../../src/core/report/inputProblem';
import { mcnemarExact, wilcoxonSignedRank } from '../../../src/core/stats/paired';
import type { Conversation, Turn } from '../../../src/core/model';
import { canonicalJson } from '../../../src/core/llm/canonical';
import { createRng } from '../../../src/core/random';

function turn(
  user: string,
  act: string,
  assistant: string,
  extra: Partial<Turn['trace']> = {},
  items: string[] = [],
): Turn {
  return {
    user_utterance: user,
    assistant_utterance: assistant,
    trace: { user_act: act, patience: 3, ...extra },
    ...(items.length ? { recommendations: items.map((item_id) => ({ item_id })) } : {}),
  };
}

function conv(
  id: string,
  index: number,
  turns: Turn[],
  outcome: Conversation['outcome'] = 'ended',
  meta: Record<string, unknown> = {},
): Conversation {
  return { id, turns, outcome, metadata: { index, ...meta } };
}

function writeRun(dir: string, name: string, convs: Conversation[], seed?: string | number): string {
  const p = join(dir, name);
  writeFileSync(p, convs.map((c) => JSON.stringify(c)).join('\n') + '\n');
  if (seed !== undefined) writeFileSync(`${p}.manifest.json`, JSON.stringify({ seed }));
  return p;
}

describe('comparePair', () => {
  const base = [
    turn('hi', 'Disclose', 'hello'),
    turn('red shoes', 'Disclose', 'here', {}, ['x1', 'x2']),
    turn('thanks', 'Complete', 'bye'),
  ];
  test('identical conversations', () => {
    const c = comparePair(conv('a', 0, base), conv('a', 0, structuredClone(base)));
    assert.equal(c.identical, true);
    assert.equal(c.turn, undefined);
    assert.equal(c.traceTurn, undefined);
  });
  test('each part is found as what diverged first, at the right turn', () => {
    const cases: [string, (t: Turn[]) => void, string, number][] = [
      ['user utterance', (t) => (t[1].user_utterance = 'blue shoes'), 'user_utterance', 1],
      ['user act', (t) => (t[2].trace!.user_act = 'Quit'), 'user_act', 2],
      ['recommendations', (t) => (t[1].recommendations = [{ item_id: 'x2' }, { item_id: 'x1' }]), 'recommendations', 1],
      ['assistant', (t) => (t[0].assistant_utterance = 'hey'), 'assistant_utterance', 0],
      ['ended', (t) => t.pop(), 'ended', 2],
    ];
    for (const [name, mutate, part, at] of cases) {
      const b = structuredClone(base);
      mutate(b);
      const c = comparePair(conv('a', 0, base), conv('a', 0, b));
      assert.equal(c.turn, at, name);
      assert.equal(c.parts[0], part, name);
      assert.equal(c.identical, false, name);
    }
  });
  test('a trace field that differs before the dialogue is reported apart, llm calls are ignored', () => {
    const b = structuredClone(base).map((t) => ({ ...t, trace: { ...t.trace, patience: 4, llm_call_ids: ['other'] } }));
    b[2].user_utterance = 'bye now';
    b[2].trace!.frustration = 1;
    const c = comparePair(conv('a', 0, base), conv('a', 0, b));
    assert.equal(c.traceTurn, 0);
    assert.deepEqual(c.traceFields, ['patience']);
    assert.equal(c.turn, 2);
    assert.deepEqual(c.traceFieldsAtTurn, ['frustration', 'patience']);
    const turns = turnDifferences(conv('a', 0, base), conv('a', 0, b));
    assert.deepEqual(
      turns.map((t) => t.parts.length),
      [0, 0, 1],
    );
  });
});

test('sameJson decides what comparing canonical JSON decides (5,000 random pairs)', () => {
  const rng = createRng('same-json');
  const value = (depth: number): unknown => {
    const k = rng.int(depth > 2 ? 4 : 7);
    if (k === 0) return rng.int(3);
    if (k === 1) return rng.pick(['a', 'b', '']);
    if (k === 2) return rng.chance(0.5) ? null : rng.chance(0.5);
    if (k === 3) return rng.int(2) ? undefined : 1.5;
    if (k <= 4) return Array.from({ length: rng.int(3) }, () => value(depth + 1));
    const o: Record<string, unknown> = {};
    for (const key of rng.shuffle(['x', 'y', 'z']).slice(0, rng.int(4))) o[key] = value(depth + 1);
    return o;
  };
  let equal = 0;
  for (let i = 0; i < 5000; i++) {
    const a = value(0);
    const b = rng.chance(0.5) ? value(0) : JSON.parse(JSON.stringify(a ?? null));
    const c =
      rng.chance(0.3) && a && typeof a === 'object' && !Array.isArray(a)
        ? Object.fromEntries(Object.entries(a).reverse())
        : b;
    const same = canonicalJson(a) === canonicalJson(c);
    if (same) equal++;
    assert.equal(sameJson(a, c), same, `${canonicalJson(a)} vs ${canonicalJson(c)}`);
  }
  assert.ok(equal > 500 && equal < 4500, `both outcomes occur (${equal} equal)`);
});

describe('diffRuns', () => {
  const dir = scratchDir('simlens-diff-');
  const a: Conversation[] = [];
  const b: Conversation[] = [];
  // 40 pairs: 10 identical, 10 trace-only, 10 diverge at turn 2 with the same outcome, 10 change outcome at turn 1
  for (let i = 0; i < 40; i++) {
    const t = [turn(`hello ${i}`, 'Disclose', 'hi'), turn('more', 'Disclose', 'ok'), turn('thanks', 'Complete', 'bye')];
    a.push(conv(`sim-7-${i}`, i, t, i % 2 ? 'accepted' : 'ended'));
    const u = structuredClone(t);
    let outcome: Conversation['outcome'] = i % 2 ? 'accepted' : 'ended';
    if (i >= 10 && i < 20) for (const x of u) x.trace!.patience = 4;
    if (i >= 20 && i < 30) u[2].user_utterance = 'thanks a lot, really';
    if (i >= 30) {
      u[1].trace!.user_act = 'Quit';
      u.pop();
      outcome = 'abandoned';
    }
    b.push(conv(`sim-7-${i}`, i, u, outcome));
  }
  test('seed pairing, counts, transitions, first turns, McNemar and Wilcoxon from the same pairs', async () => {
    const pa = writeRun(dir, 'a.jsonl', a, 7);
    const pb = writeRun(dir, 'b.jsonl', [...b].reverse(), 7);
    const r = await diffRuns(pa, pb, { resamples: 200 });
    assert.equal(r.pairing, 'seed');
    assert.equal(r.aggregate.pairs, 40);
    assert.equal(r.aggregate.identical, 10);
    assert.equal(r.aggregate.traceOnly, 10);
    assert.equal(r.aggregate.diverged, 20);
    assert.equal(r.aggregate.outcomeChanged, 10);
    assert.deepEqual(r.aggregate.firstTurn, [0, 10, 10]);
    assert.equal(r.aggregate.firstPart.user_act, 10);
    assert.equal(r.aggregate.firstPart.user_utterance, 10);
    assert.equal(r.aggregate.firstTraceFields.patience, 10);
    assert.equal(r.aggregate.firstTraceFields.user_act, 10);
    const t = (from: string, to: string) =>
      r.aggregate.transitions.find((x) => x.from === from && x.to === to)?.count ?? 0;
    assert.equal(t('accepted', 'abandoned'), 5);
    assert.equal(t('ended', 'abandoned'), 5);
    assert.equal(t('accepted', 'accepted'), 15);
    assert.deepEqual([r.success.onlyA, r.success.onlyB], [5, 0]);
    assert.equal(r.success.mcnemar.pvalue, mcnemarExact(5, 0).pvalue);
    const turns = r.features.find((f) => f.feature === 'num_turns')!;
    assert.equal(turns.n, 40);
    assert.equal(turns.meanDiff, -10 / 40);
    assert.equal(turns.wilcoxon!.pvalue, wilcoxonSignedRank([...Array(30).fill(0), ...Array(10).fill(-1)]).pvalue);
    assert.ok(turns.ci && turns.ci.low <= turns.meanDiff && turns.meanDiff <= turns.ci.high);
    assert.equal(r.unpaired.length, 0);
    // the pair lines point at the right conversations
    for (const p of r.pairs) assert.equal(p.lineB, 40 - Number(p.idA.split('-')[2]));
  });

  test('different seeds pair nothing; id pairing pairs them; unpaired listed with reasons', async () => {
    const pa = writeRun(dir, 'a2.jsonl', a, 7);
    const pb = writeRun(dir, 'b2.jsonl', b.slice(5), 8);
    const bySeed = await diffRuns(pa, pb, { pairing: 'seed', resamples: 200 });
    assert.equal(bySeed.aggregate.pairs, 0);
    assert.equal(bySeed.unpaired.length, 75);
    const byId = await diffRuns(pa, pb, { pairing: 'id', resamples: 200 });
    assert.equal(byId.aggregate.pairs, 35);
    assert.deepEqual(
      byId.unpaired.map((u) => `${u.side}${u.line}`),
      ['A1', 'A2', 'A3', 'A4', 'A5'],
    );
    assert.match(byId.unpaired[0].reason, /no conversation with id sim-7-0 in B/);
  });

  test('auto falls back to id without seeds; profile pairs k-th with k-th', async () => {
    const noSeed = a.map((c) => ({ ...c, metadata: {} }));
    const pa = writeRun(dir, 'a3.jsonl', noSeed);
    const pb = writeRun(dir, 'b3.jsonl', b);
    assert.equal((await diffRuns(pa, pb, { resamples: 200 })).pairing, 'id');
    const prof = (cs: Conversation[]) =>
      cs.map((c, i) => ({ ...c, id: `x${i}`, metadata: { profile: { budget: i % 2 } } }));
    const r = await diffRuns(writeRun(dir, 'a4.jsonl', prof(a)), writeRun(dir, 'b4.jsonl', prof(b)), {
      pairing: 'profile',
      resamples: 200,
    });
    assert.equal(r.aggregate.pairs, 40);
    assert.ok(r.pairs.every((p) => p.idA === p.idB));
  });

  test('bad input names file, line and field; duplicates are refused', async () => {
    const pa = writeRun(dir, 'a5.jsonl', a, 7);
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, `${JSON.stringify(b[0])}\n{"id":"q","turns":[{"user_utterance":5}]}\n`);
    await assert.rejects(
      diffRuns(pa, bad),
      (e: Error) => e instanceof InputProblemError && /bad\.jsonl:2:\d+: turns\[0\]\.user_utterance/.test(e.message),
    );
    // A line of A that is JSON but not a conversation is found whether it has a partner or not.
    for (const index of [0, 99]) {
      const badA = join(dir, `bad-a-${index}.jsonl`);
      writeFileSync(
        badA,
        `${JSON.stringify(a[1])}\n${JSON.stringify({ id: 'q', turns: [{ user_utterance: 5 }], metadata: { index } })}\n`,
      );
      writeFileSync(`${badA}.manifest.json`, JSON.stringify({ seed: 7 }));
      await assert.rejects(
        diffRuns(badA, writeRun(dir, `good-b-${index}.jsonl`, [b[0], b[1]], 7)),
        (e: Error) =>
          e instanceof InputProblemError &&
          new RegExp(`bad-a-${index}\\.jsonl:2:\\d+: turns\\[0\\]\\.user_utterance`).test(e.message),
      );
    }
    // Shapes a plain JSON.parse would let through to the key readers are checked by the schema first.
    for (const line of ['{"turns":[null]}', '{"turns":[],"metadata":null}', '{"turns":[[1]]}']) {
      const odd = join(dir, 'odd.jsonl');
      writeFileSync(odd, `${line}\n`);
      await assert.rejects(
        diffRuns(odd, pa),
        (e: Error) => e instanceof InputProblemError && /odd\.jsonl:1:/.test(e.message),
        line,
      );
    }
    const dup = writeRun(dir, 'dup.jsonl', [a[0], a[1], a[0]], 7);
    await assert.rejects(
      diffRuns(dup, pa),
      (e: Error) =>
        e instanceof InputProblemError &&
        /dup\.jsonl:3: seed 7 #0 occurs twice in run A \(first on line 1\)/.test(e.message),
    );
  });

  test('failed conversations are never scores: counted as failure outcomes, left out of the statistics', async () => {
    const fa = structuredClone(a.slice(0, 10));
    const fb = structuredClone(b.slice(0, 10));
    fb[3] = { ...fb[3], outcome: 'agent_error', metadata: { index: 3, error: 'timeout', error_kind: 'agent_timeout' } };
    const r = await diffRuns(writeRun(dir, 'fa.jsonl', fa, 7), writeRun(dir, 'fb.jsonl', fb, 7), { resamples: 200 });
    assert.ok(r.aggregate.transitions.some((t) => t.to === 'failure:agent_timeout' && t.count === 1));
    assert.equal(r.success.n, 9);
    assert.equal(r.features.find((f) => f.feature === 'num_turns')!.excluded, 1);
  });
});

describe('gate and rendering', () => {
  test('parse and evaluate --fail-on', () => {
    assert.throws(() => parseGate('nonsense > 5%'), /unknown metric "nonsense"/);
    assert.throws(() => parseGate('outcome_changed >> 5'), /expected METRIC OP VALUE/);
    const [c] = parseGate('outcome_changed > 5%');
    assert.deepEqual([c.metric, c.op, c.value, c.percent], ['outcome_changed', '>', 0.05, true]);
    const fake = {
      a: { conversations: 100 },
      b: { conversations: 100 },
      unpaired: [],
      aggregate: { pairs: 100, outcomeChanged: 6, diverged: 10, identical: 90 },
      success: { n: 100, acceptedA: 50, acceptedB: 47, mcnemar: { pvalue: 0.2 } },
    } as never;
    const res = evaluateGate(
      fake,
      parseGate('outcome_changed > 5%, diverged > 10, accepted_change < -2%, success_p < 0.05'),
    );
    assert.deepEqual(
      res.map((r) => r.failed),
      [true, false, true, false],
    );
    assert.equal(evaluateGate(fake, parseGate('outcome_changed > 6%'))[0].failed, false);
  });
  test('ids with control characters and pipes cannot reach the terminal raw', () => {
    assert.equal(safeCell('a\u001b[31m|b\nc'), 'a\\u001b[31m\\|b\\u000ac');
    assert.equal(safeCell('x\u202ey'), 'x\\u202ey');
  });
});

describe('simlens diff (CLI)', () => {
  const dir = scratchDir('simlens-diff-cli-');
  const mk = (i: number, outcome: Conversation['outcome'], user = 'hello') =>
    conv(`c${i}`, i, [turn(user, 'Disclose', 'hi')], outcome);
  const a = Array.from({ length: 20 }, (_, i) => mk(i, 'accepted'));
  const b = Array.from({ length: 20 }, (_, i) => (i < 2 ? mk(i, 'abandoned', 'bye') : mk(i, 'accepted')));
  writeRun(dir, 'a.jsonl', a, 1);
  writeRun(dir, 'b.jsonl', b, 1);
  test('markdown by default, exit 1 when the gate fails and 0 when it passes', async () => {
    const fail = await runCli(['diff', 'a.jsonl', 'b.jsonl', '--fail-on', 'outcome_changed > 5%'], dir);
    assert.equal(fail.code, 1, fail.err);
    assert.match(fail.out, /\| outcome changed \| 2 \| 10\.0% \|/);
    assert.match(fail.err, /FAIL outcome_changed > 5% \(actual 10\.0% \(2 of 20\)\)/);
    const pass = await runCli(['diff', 'a.jsonl', 'b.jsonl', '--fail-on', 'outcome_changed > 10%'], dir);
    assert.equal(pass.code, 0, pass.err);
  });
  test('--json is the report model', async () => {
    const r = await runCli(['diff', 'a.jsonl', 'b.jsonl', '--json'], dir);
    assert.equal(r.code, 0);
    const j = JSON.parse(r.out);
    assert.equal(j.kind, 'simlens-diff/1');
    assert.equal(j.pairs.length, 20);
    assert.equal(j.pairs[0].turn, 0);
    assert.deepEqual(j.pairs[0].parts, ['user_utterance']);
  });
  test('bad usage exits 2, bad input 1 with file and line', async () => {
    assert.equal((await runCli(['diff', 'a.jsonl'], dir)).code, 2);
    assert.equal((await runCli(['diff', 'a.jsonl', 'b.jsonl', '--fail-on', 'x > 1'], dir)).code, 2);
    assert.equal((await runCli(['diff', 'a.jsonl', 'b.jsonl', '--json', '--md'], dir)).code, 2);
    assert.equal((await runCli(['diff', 'a.jsonl', 'missing.jsonl'], dir)).code, 2);
    writeFileSync(join(dir, 'broken.jsonl'), '{"turns": [}\n');
    const bad = await runCli(['diff', 'a.jsonl', 'broken.jsonl'], dir);
    assert.equal(bad.code, 1);
    assert.match(bad.err, /broken\.jsonl:1:\d+/);
  });
  test('markdown of a real report lists the pair and the first divergence', async () => {
    const r = await diffRuns(join(dir, 'a.jsonl'), join(dir, 'b.jsonl'), { resamples: 200 });
    const md = diffToMarkdown(r);
    assert.match(md, /c0 \(line 1\) \| c0 \(line 1\) \| accepted → abandoned \| 1 → 1 \| turn 1: user utterance/);
  });
});
