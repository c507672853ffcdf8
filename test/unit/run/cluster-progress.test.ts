/**
 * The progress model behind "SimLens: Open Run…": a cluster run's state per task from its
 * manifests (a folder of parts, a part, the OUT path, or the merged file).
 */
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { main } from '../../../src/cli/cli';
import type { CliIo } from '../../../src/cli/types';
import { describeRun, describeTask, loadClusterRunProgress, runsInFolder } from '../../../src/core/run/index';

const dir = mkdtempSync(path.join(tmpdir(), 'simlens-progress-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string) => path.join(dir, name);

async function run(env: NodeJS.ProcessEnv, ...argv: string[]): Promise<number> {
  const io: CliIo = { stdout: () => {}, stderr: () => {}, cwd: dir, env };
  return main(argv, io);
}
const slurm = (id: number) => ({
  SLURM_ARRAY_TASK_ID: String(id),
  SLURM_ARRAY_TASK_COUNT: '4',
  SLURM_ARRAY_TASK_MIN: '0',
  SLURM_ARRAY_TASK_MAX: '3',
});
const task = (id: number, out = 'runs/all.jsonl') =>
  run(
    slurm(id),
    'simulate',
    '--n',
    '14',
    '--seed',
    '2',
    '--catalog-size',
    '300',
    '--quiet',
    '--out',
    out,
    '--agent',
    'local-bad',
  );

describe('cluster run progress from manifests', () => {
  test('a folder of parts: finished, running (and stale), stopped and missing tasks', async () => {
    for (const id of [0, 1, 2]) assert.equal(await task(id), 0);
    // Task 1 is still running (its manifest says so and was written just now); task 2 stopped.
    const m1 = file('runs/all.part-0001-of-0004.jsonl.manifest.json');
    writeFileSync(
      m1,
      JSON.stringify({
        ...JSON.parse(readFileSync(m1, 'utf8')),
        status: 'running',
        counts: { planned: 4, finished: 2, failed: 1, agent_errors: 0, by_reason: { simulator_error: 1 } },
      }),
    );
    const m2 = file('runs/all.part-0002-of-0004.jsonl.manifest.json');
    writeFileSync(
      m2,
      JSON.stringify({
        ...JSON.parse(readFileSync(m2, 'utf8')),
        status: 'stopped',
        stop_reason: '10 consecutive failures (last: agent_timeout)',
      }),
    );
    const now = Date.now();
    const p = loadClusterRunProgress(file('runs'), { now });
    assert.equal(p.task, 'simulate');
    assert.equal(p.taskCount, 4);
    assert.equal(p.merged, undefined);
    assert.equal(p.complete, false);
    assert.deepEqual(
      p.tasks.map((t) => t.status),
      ['finished', 'running', 'stopped', 'missing'],
    );
    assert.equal(p.tasks[1].stale, false);
    assert.deepEqual(
      [p.totals.tasksFinished, p.totals.tasksRunning, p.totals.tasksFailed, p.totals.tasksMissing],
      [1, 1, 1, 1],
    );
    assert.equal(p.totals.finished, 4 + 2 + 3);
    assert.equal(p.totals.failures.by_reason.simulator_error, 1);
    assert.match(
      describeRun(p),
      /^simulate: 1\/4 tasks finished, 1 running, 1 failed or stopped, 1 missing · 9\/11 · 1 failed \(simulator_error 1\)/,
    );
    assert.deepEqual(describeTask(p.tasks[2]).detail, '10 consecutive failures (last: agent_timeout)');
    assert.match(describeTask(p.tasks[3]).description, /^missing/);

    // A running manifest not refreshed for 20 minutes: the task probably died (time limit, node lost).
    const old = new Date(now - 20 * 60 * 1000);
    utimesSync(m1, old, old);
    const stale = loadClusterRunProgress(file('runs/all.part-0001-of-0004.jsonl'), { now });
    assert.equal(stale.tasks[1].stale, true);
    assert.equal(stale.totals.tasksRunning, 0);
    assert.match(describeTask(stale.tasks[1]).description, /^running\? no update for 20 min · 2\/4/);
  });

  test('after the merge: the merged file shows every task and is the file to open', async () => {
    for (const id of [1, 2, 3]) assert.equal(await task(id), 0); // reruns resume and finish
    assert.equal(await run({}, 'merge', 'runs/all.jsonl'), 0);
    const p = loadClusterRunProgress(file('runs/all.jsonl'));
    assert.equal(p.merged, file('runs/all.jsonl'));
    assert.equal(p.complete, true);
    assert.deepEqual(
      p.tasks.map((t) => t.status),
      ['finished', 'finished', 'finished', 'finished'],
    );
    // The parts deleted after merging: the merged manifest alone tells the story.
    for (let i = 0; i < 4; i++) {
      unlinkSync(file(`runs/all.part-000${i}-of-0004.jsonl`));
      unlinkSync(file(`runs/all.part-000${i}-of-0004.jsonl.manifest.json`));
    }
    const merged = loadClusterRunProgress(file('runs/all.jsonl'));
    assert.equal(merged.complete, true);
    assert.deepEqual(
      merged.tasks.map((t) => [t.index, t.status, t.planned]),
      [
        [0, 'finished', 4],
        [1, 'finished', 4],
        [2, 'finished', 3],
        [3, 'finished', 3],
      ],
    );
    assert.equal(merged.totals.finished, 14);
  });

  test('a folder with two runs is named, an unsharded run is refused with a reason', async () => {
    assert.equal(await task(0, 'two/a.jsonl'), 0);
    assert.equal(await task(0, 'two/b.jsonl'), 0);
    assert.deepEqual(
      runsInFolder(file('two')).map((r) => path.basename(r)),
      ['a.jsonl', 'b.jsonl'],
    );
    assert.throws(() => loadClusterRunProgress(file('two')), /holds the parts of 2 runs \(a\.jsonl, b\.jsonl\)/);
    assert.equal(loadClusterRunProgress(file('two/b.jsonl')).tasks[0].status, 'finished');
    assert.equal(await run({}, 'simulate', '--n', '3', '--catalog-size', '300', '--quiet', '--out', 'plain.jsonl'), 0);
    assert.throws(() => loadClusterRunProgress(file('plain.jsonl')), /not sharded/);
    assert.throws(() => loadClusterRunProgress(file('nothing.jsonl')), /neither a merged run .* nor parts beside it/);
  });
});
