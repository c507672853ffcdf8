/**
 * Activation: the size of the production bundles dist/extension.js loads at activation, and the
 * time to load it (`require`, VS Code's "code loading time") and run activate() ("activate call
 * time"), each in a fresh Node process with the recording stand-in for `vscode`
 * (test/support/fakeVscode.cjs), so what is measured is SimLens's own work, not VS Code's.
 * `--base=DIR` measures a second checkout (e.g. a worktree of an older commit) side by side, in
 * interleaved runs.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './gen';
import { fmtMs, loadInfo, machineInfo, median, updateResultsSection } from './harness';

interface Sample {
  loadMs: number;
  activateMs: number;
  heapMb: number;
  error?: string;
}

/** Builds the production bundles of the checkout at `root` into `out` (the VSIX's build). */
function buildProduction(root: string, out: string): void {
  const r = spawnSync(
    process.execPath,
    ['scripts/build.mjs', '--production', `--outdir=${join(out, 'dist')}`, '--skip=cli,reportWorker,bench,index'],
    { cwd: root, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`build in ${root} failed: ${r.stderr}`);
}

/** One cold load + activate() of `<out>/dist/extension.js` in a new process. */
function measureOnce(out: string): Sample {
  const fake = join(repoRoot(), 'test', 'support', 'fakeVscode.cjs');
  const script = `
    const { createFakeVscode, installFakeVscode } = require(${JSON.stringify(fake)});
    const fake = createFakeVscode();
    fake.context.extensionPath = ${JSON.stringify(out)};
    installFakeVscode(fake);
    const heap0 = process.memoryUsage().heapUsed;
    const t0 = performance.now();
    const ext = require(${JSON.stringify(join(out, 'dist', 'extension.js'))});
    const t1 = performance.now();
    let error;
    try { ext.activate(fake.context); } catch (e) { error = String(e && e.message || e); }
    const t2 = performance.now();
    const heapMb = (process.memoryUsage().heapUsed - heap0) / 1e6;
    process.stdout.write(JSON.stringify({ loadMs: t1 - t0, activateMs: t2 - t1, heapMb, error }));
    process.exit(0);`;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`activation run failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Sample;
}

const kb = (file: string): string => (existsSync(file) ? `${(statSync(file).size / 1024).toFixed(0)} KB` : '-');

export async function run(args: string[] = []): Promise<void> {
  const reps = Number(args.find((a) => a.startsWith('--reps='))?.slice(7) ?? 15);
  const base = args.find((a) => a.startsWith('--base='))?.slice(7);
  const tmp = mkdtempSync(join(tmpdir(), 'simlens-bench-activation-'));
  try {
    const builds: Array<{ label: string; root: string; out: string }> = [];
    if (base) builds.push({ label: `base (${base})`, root: base, out: join(tmp, 'base') });
    builds.push({ label: 'this tree', root: repoRoot(), out: join(tmp, 'new') });
    for (const b of builds) buildProduction(b.root, b.out);
    const samples = new Map(builds.map((b) => [b.label, [] as Sample[]]));
    for (let i = 0; i < reps; i++) {
      for (const b of builds) samples.get(b.label)!.push(measureOnce(b.out));
    }
    const rows = builds.map((b) => {
      const s = samples.get(b.label)!;
      const dist = join(b.out, 'dist');
      const errors = [...new Set(s.map((x) => x.error).filter(Boolean))];
      return `| ${b.label} | ${kb(join(dist, 'extension.js'))} | ${kb(join(dist, 'features.js'))} | ${kb(join(dist, 'languageClient.js'))} | ${fmtMs(median(s.map((x) => x.loadMs)))} | ${fmtMs(median(s.map((x) => x.activateMs)))} | ${median(s.map((x) => x.heapMb)).toFixed(1)} MB |${errors.length ? ` ${errors.join('; ')}` : ''}`;
    });
    for (const r of rows) console.log(r);
    const body = `Machine: ${machineInfo()}. Date: ${new Date().toISOString().slice(0, 10)}. ${loadInfo()} at the end. Reproduce: \`npm run build && node dist/bench.js activation\` (\`-- --reps=N\`, \`--base=<checkout>\` to compare another tree; it builds both with \`--production\`, as the VSIX).

What VS Code loads when SimLens activates: dist/extension.js. The other areas (simulation, play, fork, LLM, metric panels, runs, compare: dist/features.js) load on their first command or restored panel, and the language client (dist/languageClient.js) when the first conversation document opens (src/extension/lazy.ts). Load = \`require\` of dist/extension.js in a fresh Node process (VS Code's "code loading time"), activate = the \`activate()\` call with a stand-in for \`vscode\` (test/support/fakeVscode.cjs), heap = heap used after both (a tree that starts the language client at activation, as before issue 25, also spawns the server process afterwards: not counted); medians of ${reps} runs, interleaved.

| build | extension.js | features.js | languageClient.js | load | activate | heap |
|---|---|---|---|---|---|---|
${rows.join('\n')}`;
    updateResultsSection('Activation', body);
    console.log('\nwrote the Activation section of bench/RESULTS.md');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
