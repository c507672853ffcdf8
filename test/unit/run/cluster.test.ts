/**
 * Cluster runs without a cluster: shards read from Slurm array / Kubernetes indexed job
 * variables, part files named by index, resuming a rerun task's own part, and `simlens merge`
 * checking completeness and refusing parts that do not belong together.
 */
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../support/cli';
import {
  findPartFiles,
  parsePartFileName,
  partFileName,
  readManifest,
  resolveShard,
  shardFromEnvironment,
} from '../../../src/core/run/index';

const dir = mkdtempSync(path.join(tmpdir(), 'simlens-cluster-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string) => path.join(dir, name);

const run = (env: NodeJS.ProcessEnv, ...argv: string[]) => runCli(argv, dir, env);

const slurm = (id: number, count: number, min = 0, max = min + count - 1) => ({
  SLURM_ARRAY_JOB_ID: '77',
  SLURM_ARRAY_TASK_ID: String(id),
  SLURM_ARRAY_TASK_COUNT: String(count),
  SLURM_ARRAY_TASK_MIN: String(min),
  SLURM_ARRAY_TASK_MAX: String(max),
});
const small = ['--catalog-size', '300', '--quiet'];

describe('shards from the environment', () => {
  test('a Slurm array 0-3 gives shard ID/4 and names the variables', () => {
    const r = shardFromEnvironment(slurm(2, 4))!;
    assert.deepEqual(r.shard, { index: 2, count: 4 });
    assert.equal(r.source, 'slurm');
    assert.match(r.description, /shard 2\/4 from the Slurm array \(SLURM_ARRAY_TASK_ID=2, SLURM_ARRAY_TASK_COUNT=4\)/);
    assert.equal(r.variables!.SLURM_ARRAY_JOB_ID, '77');
  });

  test('arrays that do not start at 0 or have gaps are refused, not guessed; an explicit count takes the id as the index', () => {
    assert.throws(
      () => shardFromEnvironment(slurm(2, 4, 1, 4)),
      /starts at 1 .*numbered from 0: submit with --array=0-3/,
    );
    // sbatch --array=0,2,5: 3 tasks between 0 and 5.
    assert.throws(
      () =>
        shardFromEnvironment({
          SLURM_ARRAY_TASK_ID: '2',
          SLURM_ARRAY_TASK_COUNT: '3',
          SLURM_ARRAY_TASK_MIN: '0',
          SLURM_ARRAY_TASK_MAX: '5',
        }),
      /has 3 tasks .*gaps or a step/,
    );
    // Resubmitting only the failed task 2 (sbatch --array=2) with the run's count.
    assert.deepEqual(shardFromEnvironment({ ...slurm(2, 1, 2, 2), SIMLENS_SHARD_COUNT: '4' })!.shard, {
      index: 2,
      count: 4,
    });
    assert.deepEqual(shardFromEnvironment(slurm(2, 1, 2, 2), 4)!.shard, { index: 2, count: 4 });
    assert.throws(
      () => shardFromEnvironment(slurm(5, 1, 5, 5), 4),
      /SLURM_ARRAY_TASK_ID=5 is not below the shard count 4/,
    );
    assert.throws(
      () => shardFromEnvironment({ SLURM_ARRAY_TASK_ID: 'x' }),
      /SLURM_ARRAY_TASK_ID must be a whole number/,
    );
    assert.throws(
      () => shardFromEnvironment({ SLURM_ARRAY_TASK_ID: '1' }),
      /SLURM_ARRAY_TASK_COUNT, _MIN or _MAX is not/,
    );
  });

  test('a Kubernetes indexed job needs the completions count from SIMLENS_SHARD_COUNT or --shard-count', () => {
    assert.throws(
      () => shardFromEnvironment({ JOB_COMPLETION_INDEX: '1' }),
      /set SIMLENS_SHARD_COUNT to the Job's spec.completions/,
    );
    const r = shardFromEnvironment({ JOB_COMPLETION_INDEX: '1', SIMLENS_SHARD_COUNT: '3' })!;
    assert.deepEqual([r.shard, r.source], [{ index: 1, count: 3 }, 'kubernetes']);
    assert.deepEqual(shardFromEnvironment({ JOB_COMPLETION_INDEX: '0' }, 2)!.shard, { index: 0, count: 2 });
    assert.throws(
      () => shardFromEnvironment({ JOB_COMPLETION_INDEX: '3', SIMLENS_SHARD_COUNT: '3' }),
      /not below the shard count 3/,
    );
    assert.throws(
      () => shardFromEnvironment({ JOB_COMPLETION_INDEX: '0', SIMLENS_SHARD_COUNT: '0' }),
      /SIMLENS_SHARD_COUNT must be at least 1/,
    );
    assert.equal(shardFromEnvironment({}), undefined);
  });

  test('--shard I/K, auto, none and no option', () => {
    assert.deepEqual(resolveShard('1/3', slurm(2, 4))!.shard, { index: 1, count: 3 });
    assert.equal(resolveShard('1/3', {})!.source, 'option');
    assert.deepEqual(resolveShard(undefined, slurm(2, 4))!.shard, { index: 2, count: 4 });
    assert.deepEqual(resolveShard('auto', slurm(2, 4))!.shard, { index: 2, count: 4 });
    assert.equal(resolveShard('none', slurm(2, 4)), undefined);
    assert.equal(resolveShard(undefined, {}), undefined);
    assert.throws(() => resolveShard('auto', {}), /neither a Slurm array task .* nor a Kubernetes indexed job/);
    assert.throws(() => resolveShard('1/3', {}, 3), /--shard-count goes with --shard auto/);
  });

  test('part file names carry the index and count and are found beside OUT', () => {
    assert.equal(partFileName('runs/all.jsonl', { index: 2, count: 4 }), 'runs/all.part-0002-of-0004.jsonl');
    assert.equal(partFileName('x.sim.jsonl', { index: 12, count: 20000 }), 'x.sim.part-00012-of-20000.jsonl');
    assert.deepEqual(parsePartFileName('/a/all.part-0002-of-0004.jsonl'), { index: 2, count: 4 });
    assert.equal(parsePartFileName('/a/all.part-0004-of-0004.jsonl'), undefined);
    const d = mkdtempSync(path.join(dir, 'find-'));
    for (const name of [
      'all.part-0001-of-0002.jsonl',
      'all.part-0000-of-0002.jsonl',
      'allx.part-0000-of-0002.jsonl',
      'all.jsonl',
      'all.part-0000-of-0002.jsonl.manifest.json',
    ])
      writeFileSync(path.join(d, name), '');
    assert.deepEqual(
      findPartFiles(path.join(d, 'all.jsonl')).map((f) => path.basename(f)),
      ['all.part-0000-of-0002.jsonl', 'all.part-0001-of-0002.jsonl'],
    );
  });
});

describe('simulate as an array job, then merge', () => {
  const sim = (env: NodeJS.ProcessEnv, ...extra: string[]) =>
    run(env, 'simulate', '--n', '14', '--seed', '3', '--out', 'all.jsonl', ...small, ...extra);

  test('four Slurm tasks write parts named by index; merge OUT finds them and equals one process byte for byte', async () => {
    const one = await run({}, 'simulate', '--n', '14', '--seed', '3', '--out', 'one.jsonl', ...small);
    assert.equal(one.code, 0, one.err);
    for (const id of [3, 1, 0, 2]) {
      const r = await sim(slurm(id, 4));
      assert.equal(r.code, 0, r.err);
      assert.match(
        r.out,
        new RegExp(`^shard ${id}/4 from the Slurm array .* -> all\\.part-000${id}-of-0004\\.jsonl\\n`),
      );
      const m = readManifest(file(`all.part-000${id}-of-0004.jsonl`))!;
      assert.deepEqual(m.shard, { index: id, count: 4 });
      assert.equal((m as Record<string, { engine: string }>)['shard_source'].engine, 'slurm');
    }
    assert.equal(existsSync(file('all.jsonl')), false, 'no task writes OUT itself');
    const merged = await run({}, 'merge', 'all.jsonl');
    assert.equal(merged.code, 0, merged.err);
    assert.match(merged.out, /merged 4 parts \(of 4 tasks\) into all\.jsonl: 14 conversations/);
    assert.ok(readFileSync(file('all.jsonl')).equals(readFileSync(file('one.jsonl'))));
    const m = readManifest(file('all.jsonl'))! as Record<string, unknown>;
    assert.equal(m['status'], 'finished');
    assert.deepEqual(m['tasks'], { count: 4, finished: 4, missing: [], unfinished: [] });
    const parts = m['parts'] as {
      shard: { index: number };
      counts: { planned: number; finished: number };
      timings: { wall_ms: number };
    }[];
    assert.deepEqual(
      parts.map((p) => p.shard.index),
      [0, 1, 2, 3],
      'tasks listed in order',
    );
    assert.deepEqual(
      parts.map((p) => p.counts.finished),
      [4, 4, 3, 3],
    );
    assert.ok(parts.every((p) => typeof p.timings.wall_ms === 'number'));
    assert.equal(m['shard_source'], undefined);
  });

  test('a rerun of a failed task resumes its own part; the merge is still byte-identical', async () => {
    const part = file('all.part-0001-of-0004.jsonl');
    const size = statSync(part).size;
    truncateSync(part, Math.floor(size * 0.6)); // killed mid-line
    const r = await sim(slurm(1, 4));
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /resuming the part already there/);
    assert.match(r.out, /finished: 4\/4 conversations in all\.part-0001-of-0004\.jsonl \([1-3] from before\)/);
    const m = await run({}, 'merge', 'all.jsonl', '--force');
    assert.equal(m.code, 0, m.err);
    assert.ok(readFileSync(file('all.jsonl')).equals(readFileSync(file('one.jsonl'))));
  });

  test('Kubernetes indexed job pods shard the same way; --shard none runs everything', async () => {
    for (const i of [0, 1]) {
      const r = await run(
        { JOB_COMPLETION_INDEX: String(i), SIMLENS_SHARD_COUNT: '2' },
        'simulate',
        '--n',
        '14',
        '--seed',
        '3',
        '--out',
        'k8s/all.jsonl',
        ...small,
      );
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, new RegExp(`shard ${i}/2 from the Kubernetes indexed job`));
    }
    const m = await run({}, 'merge', 'k8s.jsonl', 'k8s');
    assert.equal(m.code, 0, m.err);
    assert.ok(readFileSync(file('k8s.jsonl')).equals(readFileSync(file('one.jsonl'))));
    const none = await run(
      slurm(1, 4),
      'simulate',
      '--n',
      '14',
      '--seed',
      '3',
      '--out',
      'none.jsonl',
      '--shard',
      'none',
      ...small,
    );
    assert.equal(none.code, 0, none.err);
    assert.ok(readFileSync(file('none.jsonl')).equals(readFileSync(file('one.jsonl'))));
    const bad = await run({ JOB_COMPLETION_INDEX: '0' }, 'simulate', '--n', '14', '--out', 'k.jsonl', ...small);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--shard: JOB_COMPLETION_INDEX is set .*SIMLENS_SHARD_COUNT/);
  });

  test('merge lists missing and unfinished tasks (exit 1) and refuses parts that do not belong together (exit 2)', async () => {
    for (const id of [0, 1, 3])
      assert.equal(
        (await run(slurm(id, 4), 'simulate', '--n', '14', '--seed', '3', '--out', 'gap/all.jsonl', ...small)).code,
        0,
      );
    const gap = await run({}, 'merge', 'gap/all.jsonl');
    assert.equal(gap.code, 1);
    assert.match(gap.err, /missing tasks: 2 \(no part file\)/);
    assert.match(gap.err, /missing 3 conversation indices \(first: 2, 6, 10\)/);
    const gm = readManifest(file('gap/all.jsonl'))! as Record<string, unknown>;
    assert.deepEqual(gm['tasks'], { count: 4, finished: 3, missing: [2], unfinished: [] });
    assert.equal(gm['status'], 'cancelled');

    // Task 2 cancelled after writing nothing more than its manifest says.
    assert.equal(
      (await run(slurm(2, 4), 'simulate', '--n', '14', '--seed', '3', '--out', 'gap/all.jsonl', ...small)).code,
      0,
    );
    const p2 = file('gap/all.part-0002-of-0004.jsonl');
    const manifest = JSON.parse(readFileSync(`${p2}.manifest.json`, 'utf8'));
    writeFileSync(
      `${p2}.manifest.json`,
      JSON.stringify({ ...manifest, status: 'stopped', stop_reason: '10 consecutive failures' }),
    );
    const unfinished = await run({}, 'merge', 'gap/all.jsonl', '--force', '--json');
    assert.equal(unfinished.code, 1);
    assert.match(unfinished.err, /task 2 stopped: 10 consecutive failures/);
    const summary = JSON.parse(unfinished.out);
    assert.deepEqual([summary.tasks, summary.missing_tasks, summary.complete], [4, [], false]);

    // Another seed in the same folder, another shard count, the same shard twice.
    assert.equal(
      (await run(slurm(0, 4), 'simulate', '--n', '14', '--seed', '4', '--out', 'mixed/all.jsonl', ...small)).code,
      0,
    );
    const mixed = await run(
      {},
      'merge',
      'mixed.jsonl',
      'gap/all.part-0001-of-0004.jsonl',
      'mixed/all.part-0000-of-0004.jsonl',
    );
    assert.equal(mixed.code, 2);
    assert.match(mixed.err, /configuration differs/);
    assert.equal(
      (await run(slurm(0, 2), 'simulate', '--n', '14', '--seed', '3', '--out', 'two/all.jsonl', ...small)).code,
      0,
    );
    const counts = await run(
      {},
      'merge',
      'counts.jsonl',
      'gap/all.part-0001-of-0004.jsonl',
      'two/all.part-0000-of-0002.jsonl',
    );
    assert.equal(counts.code, 2);
    assert.match(counts.err, /shard 0\/2 is of another shard count/);
    assert.equal(existsSync(file('counts.jsonl')), false, 'nothing is written when parts are refused');
    const twice = await run(
      { SIMLENS_SHARD_COUNT: '4', ...slurm(0, 1, 0, 0) },
      'simulate',
      '--n',
      '14',
      '--seed',
      '3',
      '--out',
      'again/all.jsonl',
      ...small,
    );
    assert.equal(twice.code, 0, twice.err);
    const dup = await run(
      {},
      'merge',
      'dup.jsonl',
      'gap/all.part-0000-of-0004.jsonl',
      'again/all.part-0000-of-0004.jsonl',
    );
    assert.equal(dup.code, 2);
    assert.match(dup.err, /are both shard 0\/4/);
  });
});
