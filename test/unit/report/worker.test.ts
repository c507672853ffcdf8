import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CancelledError, computeReport } from '../../../src/core/report/compute';
import { computeReportInWorker, diffRunsInWorker, runFidelityInWorker } from '../../../src/core/worker/worker';
import { diffRuns } from '../../../src/core/diff';
import { InputProblemError } from '../../../src/core/report/inputProblem';
import { runFidelity } from '../../../src/core/report/fidelity';
import type { Report } from '../../../src/core/report/model';
import { syntheticPopulation, DEMO_PROFILES } from '../../../src/core/metrics/synthetic';
import { tempDir, writeHumanFile, writeJsonl as write } from './fixtures';

/**
 * The panels compute their reports in a worker thread (src/core/worker/worker.ts): the same
 * `computeReport`, so the same report, with progress, errors and cancellation carried across.
 * The worker runs the TypeScript entry through tsx here (test/support/reportWorker.cjs); the
 * extension runs the bundle, dist/reportWorker.js.
 */
const WORKER = { file: path.join(__dirname, '..', '..', 'support', 'reportWorker.cjs') };
const NOW = () => new Date('2026-11-25T12:00:00Z');

describe('report worker', () => {
  test('the report from the worker equals the one computed here, and its progress arrives', async (t) => {
    const { dir, cleanup } = tempDir();
    t.after(cleanup);
    write(dir, 'h.jsonl', syntheticPopulation(DEMO_PROFILES.human, 80, 3));
    write(dir, 's.jsonl', syntheticPopulation(DEMO_PROFILES.sft, 60, 3));
    const specs: Array<Parameters<typeof computeReport>[0]> = [
      { kind: 'plsa', reference: { file: 'h.jsonl' }, candidates: [{ file: 's.jsonl' }], baselineSize: 30 },
      { kind: 'human-likeness', human: { file: 'h.jsonl' }, simulated: [{ file: 's.jsonl' }], folds: 4 },
    ];
    for (const spec of specs) {
      const progress: string[] = [];
      const inWorker = await computeReportInWorker(
        spec,
        { cwd: dir, now: NOW, progress: (m) => progress.push(m) },
        WORKER,
      );
      const here = await computeReport(spec, { cwd: dir, now: NOW });
      assert.deepEqual(JSON.parse(JSON.stringify(inWorker)), JSON.parse(JSON.stringify(here)), spec.kind);
      assert.ok(progress.length > 0, `${spec.kind}: progress messages arrived`);
    }
  });

  test('an error in the worker is the same error here', async (t) => {
    const { dir, cleanup } = tempDir();
    t.after(cleanup);
    const spec: Parameters<typeof computeReport>[0] = {
      kind: 'plsa',
      reference: { file: 'missing.jsonl' },
      candidates: [{ file: 'also-missing.jsonl' }],
    };
    const expected = await computeReport(spec, { cwd: dir }).then(
      () => assert.fail('computeReport should fail'),
      (e: Error) => e.message,
    );
    await assert.rejects(computeReportInWorker(spec, { cwd: dir }, WORKER), (e: Error) => e.message === expected);
  });

  test('cancelling stops the worker and rejects with CancelledError', async (t) => {
    const { dir, cleanup } = tempDir();
    t.after(cleanup);
    write(dir, 'h.jsonl', syntheticPopulation(DEMO_PROFILES.human, 400, 5));
    write(dir, 's.jsonl', syntheticPopulation(DEMO_PROFILES.sft, 400, 5));
    const controller = new AbortController();
    const started = computeReportInWorker(
      { kind: 'human-likeness', human: { file: 'h.jsonl' }, simulated: [{ file: 's.jsonl' }], folds: 10 },
      {
        cwd: dir,
        signal: controller.signal,
        progress: () => controller.abort(),
      },
      WORKER,
    );
    await assert.rejects(started, (e: unknown) => e instanceof CancelledError);
    const before = new AbortController();
    before.abort();
    await assert.rejects(
      computeReportInWorker(
        { kind: 'plsa', reference: { file: 'h.jsonl' }, candidates: [{ file: 's.jsonl' }] },
        { cwd: dir, signal: before.signal },
        WORKER,
      ),
      (e: unknown) => e instanceof CancelledError,
    );
  });

  test('a fidelity run in the worker writes the same report as one run here', { timeout: 120_000 }, async (t) => {
    const { dir, cleanup } = tempDir();
    t.after(cleanup);
    writeHumanFile(dir, 60);
    const options = {
      human: { file: 'human.jsonl' },
      simulator: 'agenda:cir6:pkg',
      agents: ['local-good', 'local-bad'],
      n: 12,
      seed: 3,
      learningCurve: false,
    };
    const progress: string[] = [];
    const off = await runFidelityInWorker(
      { ...options, out: path.join(dir, 'worker') },
      { cwd: dir, now: NOW, progress: (m) => progress.push(m) },
      WORKER,
    );
    const here = await runFidelity({ ...options, out: path.join(dir, 'here') }, { cwd: dir, now: NOW });
    // The same report but for where it was written and how long the simulations took ("Seconds").
    const plain = (x: unknown) =>
      JSON.parse(
        JSON.stringify(x).split(path.join(dir, 'worker')).join('OUT').split(path.join(dir, 'here')).join('OUT'),
      );
    const untimed = (r: Report) => {
      const out = plain(r) as Report;
      for (const section of out.sections) {
        if (section.type !== 'table') continue;
        const k = section.columns.findIndex((c) => c.key === 'seconds');
        if (k >= 0) for (const row of section.rows) row.cells[k] = null;
      }
      return out;
    };
    assert.deepEqual(untimed(off.report), untimed(here.report));
    assert.deepEqual(plain(off.files), plain(here.files));
    assert.equal(
      readFileSync(path.join(dir, 'worker', 'populations', 'local-bad.sim.jsonl'), 'utf8'),
      readFileSync(path.join(dir, 'here', 'populations', 'local-bad.sim.jsonl'), 'utf8'),
    );
    assert.ok(
      progress.some((p) => /Simulating/.test(p)),
      progress.join(' | '),
    );
  });
});

describe('diff in the report worker', () => {
  test('the diff from the worker equals diffRuns here, with progress; bad input keeps its class', async (t) => {
    const { dir, cleanup } = tempDir();
    t.after(cleanup);
    const a = syntheticPopulation(DEMO_PROFILES.human, 40, 3).map((c, i) => ({ ...c, id: `c${i}` }));
    const b = syntheticPopulation(DEMO_PROFILES.sft, 40, 3).map((c, i) => ({ ...c, id: `c${i}` }));
    write(dir, 'a.jsonl', a);
    write(dir, 'b.jsonl', b);
    const progress: number[] = [];
    const inWorker = await diffRunsInWorker(
      'a.jsonl',
      'b.jsonl',
      { resamples: 200 },
      { cwd: dir, progress: (_m, f) => f !== undefined && progress.push(f) },
      WORKER,
    );
    const here = await diffRuns(path.join(dir, 'a.jsonl'), path.join(dir, 'b.jsonl'), { resamples: 200 });
    assert.deepEqual(JSON.parse(JSON.stringify(inWorker)), JSON.parse(JSON.stringify(here)));
    assert.equal(inWorker.aggregate.pairs, 40);
    assert.ok(progress.length > 0 && progress[progress.length - 1] === 1, `progress reaches 1 (${progress.slice(-3)})`);
    write(dir, 'bad.jsonl', [{ id: 'x', turns: 'no' } as never]);
    await assert.rejects(
      diffRunsInWorker('a.jsonl', 'bad.jsonl', {}, { cwd: dir }, WORKER),
      (e: Error) => e instanceof InputProblemError && /bad\.jsonl:1/.test(e.message),
    );
  });
});
