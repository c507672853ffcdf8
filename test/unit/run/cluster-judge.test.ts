/**
 * `simlens judge` / `discriminate` sharded like cluster tasks against the loopback
 * OpenAI-compatible server: the merged parts equal one process byte for byte (cold or warm cache,
 * with --limit), a rerun task resumes its part, and merge checks the parts of a pass.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FakeOpenAI, type RecordedRequest } from '../../support/fakeOpenAI';
import { judgeAnswer, promptKind } from '../../support/llmScripts';
import { FAKE_KEY, tmpDir } from '../../support/llm';
import { runCli } from '../../support/cli';
import { readManifest } from '../../../src/core/run/index';

/** Answers that differ per conversation (from the number in its first user turn), so a misplaced line shows. */
function perConversation(failFor: Set<number> = new Set()) {
  return (req: RecordedRequest) => {
    const text = JSON.stringify(req.body);
    const n = Number(/boots number (\d+)/.exec(text)?.[1] ?? 0);
    if (failFor.has(n)) return { status: 500 };
    if (promptKind(req) === 'discriminator')
      return {
        content: JSON.stringify({
          label: n % 2 ? 'human' : 'simulation',
          p_human: (n % 10) / 10,
          reason: `conversation ${n}`,
        }),
      };
    return {
      content: judgeAnswer({ overall_agent_rating: 1 + (n % 5), overall_summary_explanation: `conversation ${n}` }),
    };
  };
}

let fake: FakeOpenAI;
let failFor = new Set<number>();
const dir = tmpDir('simlens-cluster-judge-');
before(async () => {
  fake = await FakeOpenAI.start({ handler: (req) => perConversation(failFor)(req) });
  const rows = Array.from({ length: 11 }, (_, i) => ({
    id: `c${i + 1}`,
    task_id: 'footwear_good',
    source: i % 2 ? 'human' : 'llm-prompted',
    turns: [{ user_utterance: `black boots number ${i + 1}`, assistant_utterance: 'here are some' }],
  }));
  fs.writeFileSync(path.join(dir, 'data.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
});
after(async () => {
  await fake.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const run = (extraEnv: NodeJS.ProcessEnv, ...argv: string[]) =>
  runCli(argv, dir, { SIMLENS_BASE_URL: fake.url, SIMLENS_API_KEY: FAKE_KEY, ...extraEnv });
const slurm = (id: number, count: number) => ({
  SLURM_ARRAY_TASK_ID: String(id),
  SLURM_ARRAY_TASK_COUNT: String(count),
  SLURM_ARRAY_TASK_MIN: '0',
  SLURM_ARRAY_TASK_MAX: String(count - 1),
});
const read = (name: string) => fs.readFileSync(path.join(dir, name));

describe('judge and discriminate as array jobs', () => {
  for (const command of ['judge', 'discriminate'] as const) {
    test(`${command}: three tasks, merged, equal one process byte for byte (the tasks hit the warm cache)`, async () => {
      const one = await run({}, command, 'data.jsonl', '-o', `${command}-one.jsonl`, '--model', 'm1');
      assert.equal(one.code, 0, one.err);
      const first = JSON.parse(read(`${command}-one.jsonl`).toString().split('\n')[0]);
      const annotation = first.annotations[0];
      assert.equal(annotation.time, undefined, 'no wall-clock time in an annotation');
      assert.equal(annotation.llm_calls[0].latency_ms, undefined, 'no latency in an annotation');
      assert.equal(annotation.llm_calls[0].cached, undefined, 'no cache hit flag in an annotation');
      fake.requests.length = 0;
      for (const id of [2, 0, 1]) {
        const r = await run(slurm(id, 3), command, 'data.jsonl', '-o', `${command}.jsonl`, '--model', 'm1');
        assert.equal(r.code, 0, r.err);
        assert.match(
          r.err,
          new RegExp(`shard ${id}/3 from the Slurm array .* -> ${command}\\.part-000${id}-of-0003\\.jsonl`),
        );
      }
      assert.equal(fake.chatRequests.length, 0, 'every answer came from the cache the single run filled');
      const m = await run({}, 'merge', `${command}.jsonl`);
      assert.equal(m.code, 0, m.err);
      assert.match(m.out, /merged 3 parts \(of 3 tasks\) into .*: 11 conversations/);
      assert.ok(read(`${command}.jsonl`).equals(read(`${command}-one.jsonl`)), 'merged parts equal the single run');
      const manifest = readManifest(path.join(dir, `${command}.jsonl`))! as Record<string, unknown>;
      assert.equal(manifest['task'], command);
      assert.equal(manifest['status'], 'finished');
      assert.deepEqual(
        [manifest.counts, manifest['tasks']].map((x) => JSON.parse(JSON.stringify(x))).map((x) => x.count ?? x.planned),
        [11, 3],
      );
    });
  }

  test('judge with --limit and a cold cache (--no-cache): still the same bytes', async () => {
    const one = await run(
      {},
      'judge',
      'data.jsonl',
      '-o',
      'lim-one.jsonl',
      '--model',
      'm2',
      '--limit',
      '7',
      '--no-cache',
    );
    assert.equal(one.code, 0, one.err);
    for (const id of [0, 1, 2, 3]) {
      const r = await run(
        slurm(id, 4),
        'judge',
        'data.jsonl',
        '-o',
        'lim.jsonl',
        '--model',
        'm2',
        '--limit',
        '7',
        '--no-cache',
      );
      assert.equal(r.code, 0, r.err);
    }
    assert.equal((await run({}, 'merge', 'lim.jsonl')).code, 0);
    assert.ok(read('lim.jsonl').equals(read('lim-one.jsonl')));
    const judged = read('lim.jsonl')
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .map((c) => (c.annotations ?? []).length);
    assert.deepEqual(judged, [1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0]);
  });

  test('a task whose answers failed is rerun: it resumes its part and asks only for the failed ones', async () => {
    const one = await run({}, 'judge', 'data.jsonl', '-o', 'rr-one.jsonl', '--model', 'm3', '--no-cache');
    assert.equal(one.code, 0, one.err);
    failFor = new Set([2, 8]); // positions 1 and 7: both in shard 1/2
    try {
      const args = ['judge', 'data.jsonl', '-o', 'rr.jsonl', '--model', 'm3', '--no-cache', '--llm-max-retries', '0'];
      assert.equal((await run(slurm(0, 2), ...args)).code, 0);
      const failed = await run(slurm(1, 2), ...args);
      assert.equal(failed.code, 1);
      const pm = readManifest(path.join(dir, 'rr.part-0001-of-0002.jsonl'))!;
      assert.deepEqual([pm.counts.planned, pm.counts.failed, pm.counts.by_reason], [5, 2, { judge_llm: 2 }]);
      const incomplete = await run({}, 'merge', 'rr.jsonl');
      assert.equal(incomplete.code, 0, 'every line is there; failures are counted, as for simulate');
      assert.match(incomplete.out, /2 failed \(judge_llm 2\)/);
      failFor = new Set();
      fake.requests.length = 0;
      const rerun = await run(slurm(1, 2), ...args);
      assert.equal(rerun.code, 0, rerun.err);
      assert.match(rerun.err, /resuming rr\.part-0001-of-0002\.jsonl: 3 conversations already annotated there/);
      assert.equal(fake.chatRequests.length, 2, 'only the two failed conversations are asked again');
      const merged = await run({}, 'merge', 'rr.jsonl', '--force');
      assert.equal(merged.code, 0, merged.err);
      assert.ok(read('rr.jsonl').equals(read('rr-one.jsonl')));
    } finally {
      failFor = new Set();
    }
  });

  test('merge refuses judge parts of another model or of simulate, and lists a missing task', async () => {
    const other = await run(slurm(1, 3), 'judge', 'data.jsonl', '-o', 'other/judge.jsonl', '--model', 'zzz');
    assert.equal(other.code, 0, other.err);
    const mixed = await run(
      {},
      'merge',
      'mixed.jsonl',
      'judge.part-0000-of-0003.jsonl',
      'other/judge.part-0001-of-0003.jsonl',
    );
    assert.equal(mixed.code, 2);
    assert.match(mixed.err, /configuration differs/);
    const gap = await run({}, 'merge', 'gap.jsonl', 'judge.part-0000-of-0003.jsonl', 'judge.part-0002-of-0003.jsonl');
    assert.equal(gap.code, 1);
    assert.match(gap.err, /missing tasks: 1/);
    assert.match(gap.err, /missing 4 conversation indices \(first: 1, 4, 7, 10\)/);
    const sim = await run(
      slurm(1, 3),
      'simulate',
      '--n',
      '5',
      '--catalog-size',
      '300',
      '--quiet',
      '--out',
      'sim/judge.jsonl',
    );
    assert.equal(sim.code, 0, sim.err);
    const kinds = await run(
      {},
      'merge',
      'kinds.jsonl',
      'judge.part-0000-of-0003.jsonl',
      'sim/judge.part-0001-of-0003.jsonl',
    );
    assert.equal(kinds.code, 2);
    assert.match(kinds.err, /different commands \(judge, simulate\)/);
    // An explicit --shard writes --out as given; --out may not be IN then.
    const same = await run({}, 'judge', 'data.jsonl', '-o', 'data.jsonl', '--shard', '0/2', '--model', 'm1');
    assert.equal(same.code, 2);
    assert.match(same.err, /--out must not be IN/);
  });
});
