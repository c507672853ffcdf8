/**
 * The metric panels' computations, in the asking thread (as before) and in the report worker
 * (src/core/worker/worker.ts, as the extension runs them now): total time and the longest pause of
 * the asking thread's event loop (a 5 ms interval timer's largest gap), for a human-likeness and a
 * PLSA report of the 1x ConvApparel-scale file (4,146 conversations) against 4,000 simulated ones.
 * In VS Code the asking thread is the extension host, shared with every extension: a pause there
 * freezes SimLens's editor and everyone else's features.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBenchFile, repoRoot } from './gen';
import { fmtMs, loadInfo, machineInfo, median, updateResultsSection } from './harness';
import { computeReport } from '../src/core/report/compute';
import { computeReportInWorker } from '../src/core/worker/worker';
import type { ReportSpec } from '../src/core/report/specs';

type Spec = Exclude<ReportSpec, { kind: 'fidelity' }>;

async function timed(run: () => Promise<unknown>): Promise<{ ms: number; longestPauseMs: number }> {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  const t0 = performance.now();
  try {
    await run();
  } finally {
    clearInterval(timer);
  }
  // The gap still open when the run ended counts too.
  longest = Math.max(longest, performance.now() - last);
  return { ms: performance.now() - t0, longestPauseMs: longest };
}

export async function run(args: string[] = []): Promise<void> {
  const reps = Number(args.find((a) => a.startsWith('--reps='))?.slice(7) ?? 3);
  const worker = join(repoRoot(), 'dist', 'reportWorker.js');
  if (!existsSync(worker)) throw new Error(`${worker} is missing: run npm run build first`);
  const human = await ensureBenchFile(1);
  const dir = mkdtempSync(join(tmpdir(), 'simlens-bench-worker-'));
  try {
    symlinkSync(human.path, join(dir, 'human.jsonl'));
    const sim = spawnSync(
      process.execPath,
      [join(repoRoot(), 'dist', 'cli.js'), 'simulate', '--n', '4000', '--seed', '1', '-o', join(dir, 'sim.jsonl')],
      { encoding: 'utf8' },
    );
    if (sim.status !== 0) throw new Error(`simulate failed: ${sim.stderr}`);
    const specs: Array<[string, Spec]> = [
      [
        'human-likeness (5-fold CV)',
        { kind: 'human-likeness', human: { file: 'human.jsonl' }, simulated: [{ file: 'sim.jsonl' }] },
      ],
      [
        'PLSA (11 features, split-half baseline)',
        { kind: 'plsa', reference: { file: 'human.jsonl' }, candidates: [{ file: 'sim.jsonl' }] },
      ],
    ];
    const rows: string[] = [];
    for (const [label, spec] of specs) {
      const here: Array<{ ms: number; longestPauseMs: number }> = [];
      const off: Array<{ ms: number; longestPauseMs: number }> = [];
      for (let i = 0; i < reps; i++) {
        here.push(await timed(() => computeReport(spec, { cwd: dir })));
        off.push(await timed(() => computeReportInWorker(spec, { cwd: dir }, { file: worker })));
        console.log(
          `  ${label} rep ${i + 1}: here ${fmtMs(here[i].ms)} (longest pause ${fmtMs(here[i].longestPauseMs)}), worker ${fmtMs(off[i].ms)} (longest pause ${fmtMs(off[i].longestPauseMs)})`,
        );
      }
      const m = (xs: typeof here, f: (x: (typeof here)[number]) => number) => median(xs.map(f));
      rows.push(
        `| ${label} | ${fmtMs(m(here, (x) => x.ms))} | **${fmtMs(m(here, (x) => x.longestPauseMs))}** | ${fmtMs(m(off, (x) => x.ms))} | **${fmtMs(m(off, (x) => x.longestPauseMs))}** |`,
      );
    }
    const body = `Machine: ${machineInfo()}. Date: ${new Date().toISOString().slice(0, 10)}. ${loadInfo()} at the end. Reproduce: \`npm run build && node dist/bench.js report-worker\` (\`-- --reps=N\`).

The metric panels compute their reports in a worker thread (\`computeReportInWorker\`, src/core/worker/worker.ts; the same \`computeReport\` the CLI runs). Human: the 1x ConvApparel-scale file (${human.conversations.toLocaleString('en-US')} conversations); simulated: 4,000 agenda-based conversations. "Longest pause" is the largest gap of a 5 ms interval timer in the asking thread, which in VS Code is the extension host shared by every extension; medians of ${reps} runs each, interleaved.

| report | in the asking thread: total | longest pause | in the worker: total | longest pause |
|---|---|---|---|---|
${rows.join('\n')}`;
    updateResultsSection('Report worker', body);
    console.log('\nwrote the Report worker section of bench/RESULTS.md');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
