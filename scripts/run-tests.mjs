// Runs every unit test file (test/unit/**/*.test.ts), then the end-to-end files
// (test/e2e/**/*.test.ts: a real VS Code server + Chromium; they skip with a message when
// `npm run setup` has not been run, and fail instead when CI=true), in ONE run of node's own test
// runner so its closing summary covers everything. TypeScript loads through tsx's CommonJS hook
// (`--require tsx/cjs`: the tests are CommonJS; `--import tsx` also starts its ES-module hooks in
// a loader thread, about 0.1-0.4 CPU s more for each of the ~190 test processes). Node 20's runner
// does not expand globs, so the files are listed here.
// `--no-e2e` runs the unit files only. Extra arguments narrow the run:
// `node scripts/run-tests.mjs engine importers` runs only files whose path contains one of the words;
// `--test-name-pattern=RE` narrows further to the tests whose name matches.
// `--durations[=N]` also writes every file's duration to test-results/durations.txt (slowest
// first) and prints the N slowest (default 20) after the summary.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';

function collect(dir) {
  const out = [];
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...collect(path));
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const filters = process.argv.slice(2).filter((a) => !a.startsWith('-'));
// `--no-e2e` leaves the E2E files out (npm run test:unit).
const e2e = process.argv.includes('--no-e2e') ? [] : collect('test/e2e').sort();
// The Slurm suite (test/cluster: a real single-node Slurm, reduced size) runs with the E2E files;
// `--no-cluster` leaves it out.
const cluster =
  process.argv.includes('--no-e2e') || process.argv.includes('--no-cluster') ? [] : collect('test/cluster').sort();
// Node 20's runner sorts the files it is given (test/cluster, test/e2e, then test/unit, each in
// path order) and starts them two at a time in that order: the order cannot be set from this list.
let files = [...collect('test/unit').sort(), ...cluster, ...e2e];
if (filters.length) files = files.filter((f) => filters.some((w) => f.includes(w)));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// Every temporary file of this run goes into one private folder (TMPDIR), removed at the end, so a
// test that forgets its cleanup cannot litter /tmp; what was left is listed in
// test-results/leftover-temp.txt so it can be fixed.
// SIMLENS_CACHE_DIR keeps caches meant to outlive a run (the E2E VSIX) outside that folder.
// `--test-name-pattern=RE` is passed on to node's runner (only tests whose name matches run).
const namePatterns = process.argv.slice(2).filter((a) => a.startsWith('--test-name-pattern='));
const runTmp = mkdtempSync(join(tmpdir(), 'simlens-testrun-'));
const durationsArg = process.argv.find((a) => a === '--durations' || a.startsWith('--durations='));
const durationsFile = join(runTmp, 'durations.txt');
// With --durations every test process also records its CPU time (scripts/cpu-probe.cjs).
const cpuDir = join(runTmp, 'cpu');
if (durationsArg) mkdirSync(cpuDir);
const cpuProbe = durationsArg ? ['--require', resolve('scripts/cpu-probe.cjs')] : [];
const reporters = durationsArg
  ? [
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=./scripts/durations-reporter.mjs',
      `--test-reporter-destination=${durationsFile}`,
    ]
  : ['--test-reporter=spec'];
const result = spawnSync(
  process.execPath,
  [...cpuProbe, '--require', 'tsx/cjs', '--test', ...reporters, '--test-concurrency=2', ...namePatterns, ...files],
  {
    stdio: 'inherit',
    env: {
      ...process.env,
      SIMLENS_TEST: '1',
      TMPDIR: runTmp,
      SIMLENS_CACHE_DIR: process.env.SIMLENS_CACHE_DIR ?? join(tmpdir(), 'simlens-cache'),
      ...(durationsArg ? { SIMLENS_CPU_DIR: cpuDir } : {}),
    },
  },
);
if (durationsArg && existsSync(durationsFile)) {
  const lines = readFileSync(durationsFile, 'utf8').trimEnd().split('\n');
  mkdirSync('test-results', { recursive: true });
  writeFileSync('test-results/durations.txt', `${lines.join('\n')}\n`);
  const total = lines.pop(); // the sum over all files
  const n = Number(durationsArg.split('=')[1] ?? 20);
  console.log(
    `\nslowest ${Math.min(n, lines.length)} of ${lines.length} files (all in test-results/durations.txt):\n${lines.slice(0, n).join('\n')}\n${total}`,
  );
}
rmSync(durationsFile, { force: true });
rmSync(cpuDir, { recursive: true, force: true });
// tsx keeps its compile cache in TMPDIR (tsx-<uid>), and the E2E harness the VSIX it installed
// once for all sessions (simlens-e2e-installed-<key>): not leaks.
const left = existsSync(runTmp)
  ? readdirSync(runTmp).filter((n) => !/^(tsx-\d+|simlens-e2e-installed-[0-9a-f]{16})$/.test(n))
  : [];
if (left.length) {
  const kinds = new Map();
  for (const name of left) {
    const kind = name.replace(/[-_.]?[A-Za-z0-9]{6}$/, '');
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  // Written to a file, not printed: the runner's closing summary must stay the last lines of output.
  mkdirSync('test-results', { recursive: true });
  writeFileSync(
    'test-results/leftover-temp.txt',
    `${left.length} temporary entries left behind by tests (removed): ${[...kinds].map(([k, n]) => `${k} x${n}`).join(', ')}\n`,
  );
} else rmSync('test-results/leftover-temp.txt', { force: true }); // a clean run leaves no stale report
rmSync(runTmp, { recursive: true, force: true });
process.exit(result.status ?? 1);
