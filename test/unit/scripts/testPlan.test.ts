/**
 * scripts/test-plan.cjs and `scripts/run-tests.mjs --plan`: which test processes a run starts and
 * how many at a time. By default each E2E and cluster file has a process of its own among the unit
 * batches, longest first, two at a time. With lanes (`--e2e-lanes=N`) the E2E and cluster files
 * (which mostly wait on a browser or Slurm) run in lanes of their own beside the two unit slots:
 * every such file in exactly one lane, the lanes filled longest first into the lightest one,
 * started before the unit batches, and the concurrency is two plus the lanes; the unit files are
 * batched as before.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { planJobs, UNIT_SLOTS } from '../../../scripts/test-plan.cjs';

const REPO = resolve(__dirname, '../../..');
const OPTIONS = { batchSeconds: 20, defaultWeight: 3, isolated: [] as string[], lanes: 2 };

describe('test plan', () => {
  test('E2E and cluster files run in two lanes, balanced longest first, started first, beside two unit slots', () => {
    const weights = {
      'test/e2e/a.test.ts': 100,
      'test/e2e/b.test.ts': 60,
      'test/e2e/c.test.ts': 50,
      'test/e2e/d.test.ts': 10,
      'test/cluster/s.test.ts': 30,
      'test/unit/x.test.ts': 45,
      'test/unit/y.test.ts': 5,
    };
    const { jobs, concurrency } = planJobs(Object.keys(weights).sort(), weights, OPTIONS);
    assert.equal(UNIT_SLOTS, 2);
    assert.equal(concurrency, 4);
    // a (100) to lane 1, b (60) and c (50) to lane 2 (110), s (30) to lane 1 (130), d (10) to lane 2 (120).
    assert.deepEqual(
      jobs.map((j) => [j.lane, j.weight, j.files]),
      [
        [true, 130, ['test/e2e/a.test.ts', 'test/cluster/s.test.ts']],
        [true, 120, ['test/e2e/b.test.ts', 'test/e2e/c.test.ts', 'test/e2e/d.test.ts']],
        [false, 45, ['test/unit/x.test.ts']],
        [false, 5, ['test/unit/y.test.ts']],
      ],
    );
  });

  test('unit files: batches of about batchSeconds, heavy and isolated files alone, longest first', () => {
    const weights = {
      'test/unit/a.test.ts': 8,
      'test/unit/b.test.ts': 8,
      'test/unit/c.test.ts': 8,
      'test/unit/d.test.ts': 25,
      'test/unit/e.test.ts': 1,
      'test/unit/f.test.ts': 2,
    };
    const { jobs, concurrency } = planJobs(Object.keys(weights).sort(), weights, {
      ...OPTIONS,
      isolated: ['test/unit/e.test.ts'],
    });
    assert.equal(concurrency, 2, 'no lane without E2E files');
    assert.deepEqual(
      jobs.map((j) => [j.lane, j.files]),
      [
        [false, ['test/unit/d.test.ts']],
        [false, ['test/unit/a.test.ts', 'test/unit/b.test.ts', 'test/unit/c.test.ts']],
        [false, ['test/unit/f.test.ts']],
        [false, ['test/unit/e.test.ts']],
      ],
    );
  });

  test('without lanes (the default): each E2E and cluster file alone among the unit batches, longest first, two at a time', () => {
    const weights = {
      'test/e2e/a.test.ts': 100,
      'test/cluster/s.test.ts': 30,
      'test/unit/x.test.ts': 45,
      'test/unit/y.test.ts': 5,
    };
    const { jobs, concurrency } = planJobs(Object.keys(weights).sort(), weights, { ...OPTIONS, lanes: 0 });
    assert.equal(concurrency, 2);
    assert.deepEqual(
      jobs.map((j) => [j.lane, j.files]),
      [
        [false, ['test/e2e/a.test.ts']],
        [false, ['test/unit/x.test.ts']],
        [false, ['test/cluster/s.test.ts']],
        [false, ['test/unit/y.test.ts']],
      ],
    );
  });

  test('fewer E2E files than lanes: one lane per file; a file without a weight counts defaultWeight', () => {
    const { jobs, concurrency } = planJobs(['test/e2e/new.test.ts', 'test/unit/u.test.ts'], {}, OPTIONS);
    assert.equal(concurrency, 3);
    assert.deepEqual(
      jobs.map((j) => [j.lane, j.weight, j.files]),
      [
        [true, 3, ['test/e2e/new.test.ts']],
        [false, 3, ['test/unit/u.test.ts']],
      ],
    );
  });

  test('run-tests.mjs --plan --e2e-lanes=2: the repository’s E2E files in lanes before the unit batches; default and --no-e2e: two slots', () => {
    const plan = (...args: string[]) => {
      const r = spawnSync(process.execPath, ['scripts/run-tests.mjs', '--plan', ...args], {
        cwd: REPO,
        encoding: 'utf8',
      });
      assert.equal(r.status, 0, r.stderr);
      return JSON.parse(r.stdout) as { concurrency: number; jobs: { lane: boolean; files: string[] }[] };
    };
    const all = plan('--e2e-lanes=2');
    const lanes = all.jobs.filter((j) => j.lane);
    assert.equal(all.concurrency, UNIT_SLOTS + lanes.length);
    assert.equal(lanes.length, 2);
    assert.deepEqual(
      all.jobs.map((j) => j.lane),
      [true, true, ...Array(all.jobs.length - 2).fill(false)],
    );
    const laneFiles = lanes.flatMap((j) => j.files).sort();
    const other = all.jobs.filter((j) => !j.lane).flatMap((j) => j.files);
    assert.ok(laneFiles.includes('test/e2e/editor.test.ts') && laneFiles.includes('test/cluster/slurm.test.ts'));
    assert.ok(laneFiles.every((f) => /^test\/(e2e|cluster)\//.test(f)));
    assert.ok(other.length > 100 && other.every((f) => f.startsWith('test/unit/')));
    assert.equal(new Set([...laneFiles, ...other]).size, laneFiles.length + other.length, 'each file once');
    const unitOnly = plan('--no-e2e', '--e2e-lanes=2');
    assert.equal(unitOnly.concurrency, 2);
    assert.ok(unitOnly.jobs.every((j) => !j.lane));
    const byDefault = plan();
    assert.equal(byDefault.concurrency, 2);
    assert.ok(byDefault.jobs.every((j) => !j.lane));
    const alone = byDefault.jobs.filter((j) => j.files.some((f) => !f.startsWith('test/unit/')));
    assert.deepEqual(
      alone.map((j) => j.files.length),
      Array(laneFiles.length).fill(1),
      'each E2E file alone',
    );
  });
});
