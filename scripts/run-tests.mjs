// Runs every unit test file (test/unit/**/*.test.ts), then the end-to-end files
// (test/e2e/**/*.test.ts: a real VS Code server + Chromium; they skip with a message when
// `npm run setup` has not been run, and fail instead when CI=true), in ONE run of node's own test
// runner so its closing summary covers everything. TypeScript loads through tsx's CommonJS hook
// (`--require tsx/cjs`: the tests are CommonJS; `--import tsx` also starts its ES-module hooks in
// a loader thread, about 0.1-0.4 CPU s more for each test process). Node 20's runner
// does not expand globs, so the files are listed here.
// `--no-e2e` runs the unit files only. Extra arguments narrow the run:
// `node scripts/run-tests.mjs engine importers` runs only files whose path contains one of the words;
// `--test-name-pattern=RE` narrows further to the tests whose name matches.
// `--durations[=N]` also writes every file's duration to test-results/durations.txt (slowest
// first) and prints the N slowest (default 20) after the summary; with `--save-weights` each
// file's time also goes to scripts/test-weights.json (the batching weights, see below).
// `--no-batch`: one test process per file (see "Test processes" below). `--plan` prints the test
// processes a run would start, and how many at a time, and runs nothing. `--e2e-lanes=N`: the E2E
// and cluster files in N processes of their own beside the two unit slots (below).
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
import { planJobs } from './test-plan.cjs';

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

const argv = process.argv.slice(2);
const filters = argv.filter((a) => !a.startsWith('-'));
// `--no-e2e` leaves the E2E files out (npm run test:unit).
const e2e = argv.includes('--no-e2e') ? [] : collect('test/e2e').sort();
// The Slurm suite (test/cluster: a real single-node Slurm, reduced size) runs with the E2E files;
// `--no-cluster` leaves it out.
const cluster = argv.includes('--no-e2e') || argv.includes('--no-cluster') ? [] : collect('test/cluster').sort();
let files = [...collect('test/unit').sort(), ...cluster, ...e2e];
if (filters.length) files = files.filter((f) => filters.some((w) => f.includes(w)));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// Test processes. Node 20's runner starts one process per file it is given, in the sorted order of
// their paths, `--test-concurrency` at a time; a process costs about 1 CPU s (node, tsx, our
// modules) before its first test. So the files run in batches (scripts/test-batch.cjs: each
// file's tests in a suite named by its path, one file after another, in one process), planned by
// scripts/test-plan.cjs: the unit files in batches of about BATCH_SECONDS on two slots, longest
// first (each file's weight: its wall-clock seconds on an idle machine, scripts/test-weights.json,
// written by `--durations --save-weights`), so the two slots finish close together; each E2E and
// cluster file in a process of its own among them. With `--e2e-lanes=N` (opt-in, see
// scripts/test-plan.cjs) the E2E and cluster files, which mostly wait on a browser or Slurm, run
// instead in N lanes of their own beside the two unit slots (one process each, its files one after
// another), started first. The batches are named so that the sorted order is the planned one.
// `--no-batch`: one process per file, in path order, two at a time.
// Unit files that need a process of their own: none so far (a file goes here when it changes
// the process for the files after it, e.g. a global it sets or a module it replaces).
const ISOLATED = [];
/** A batch is closed when its files' weights add up to this many seconds. */
const BATCH_SECONDS = 20;
/** Processes for the E2E and cluster files beside the unit slots (`--e2e-lanes=N`; 0: none, each its own process). */
const E2E_LANES = Number(argv.find((a) => a.startsWith('--e2e-lanes='))?.split('=')[1] ?? 0);
const WEIGHTS_FILE = 'scripts/test-weights.json';
/** Seconds assumed for a file missing from the weights (a new file). */
const DEFAULT_WEIGHT = 3;

function writeBatches(list, dir) {
  const weights = existsSync(WEIGHTS_FILE) ? JSON.parse(readFileSync(WEIGHTS_FILE, 'utf8')) : {};
  const { jobs, concurrency } = planJobs(list, weights, {
    batchSeconds: BATCH_SECONDS,
    defaultWeight: DEFAULT_WEIGHT,
    isolated: ISOLATED,
    lanes: E2E_LANES,
  });
  mkdirSync(dir);
  const runner = JSON.stringify(resolve('scripts/test-batch.cjs'));
  const entries = jobs.map((job, i) => {
    const entry = join(dir, `${String(i).padStart(3, '0')}.test.cjs`);
    writeFileSync(
      entry,
      `// ${job.lane ? 'E2E lane, ' : ''}${job.weight.toFixed(1)} s\nrequire(${runner})(${JSON.stringify(resolve('.'))}, ${JSON.stringify(job.files, null, 1)});\n`,
    );
    return entry;
  });
  return { entries, concurrency, jobs };
}

// Every temporary file of this run goes into one private folder (TMPDIR), removed at the end, so a
// test that forgets its cleanup cannot litter /tmp; what was left is listed in
// test-results/leftover-temp.txt so it can be fixed.
// SIMLENS_CACHE_DIR keeps caches meant to outlive a run (the E2E VSIX) outside that folder.
// `--test-name-pattern=RE` is passed on to node's runner (only tests whose name matches run).
const namePatterns = argv.filter((a) => a.startsWith('--test-name-pattern='));
const runTmp = mkdtempSync(join(tmpdir(), 'simlens-testrun-'));
const durationsArg = argv.find((a) => a === '--durations' || a.startsWith('--durations='));
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
// One process per file also when tests are picked by name: a batch's suites are named by their
// files' paths, and node's runner runs every test of a suite whose name matches the pattern (a
// pattern such as "cli" would run all of test/unit/cli/*); and under --test-only, which would skip
// the suites that wrap the files.
const testOnly = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].includes('--test-only');
const { entries, concurrency, jobs } =
  argv.includes('--no-batch') || namePatterns.length || testOnly
    ? { entries: files, concurrency: 2, jobs: files.map((f) => ({ files: [f], lane: false })) }
    : writeBatches(files, join(runTmp, 'batches'));
// `--plan`: print the test processes this run would start (in order) and how many at a time, as
// JSON, and run nothing.
if (argv.includes('--plan')) {
  console.log(JSON.stringify({ concurrency, jobs: jobs.map(({ files: f, lane }) => ({ lane, files: f })) }, null, 1));
  rmSync(runTmp, { recursive: true, force: true });
  process.exit(0);
}
const result = spawnSync(
  process.execPath,
  [
    ...cpuProbe,
    '--require',
    'tsx/cjs',
    '--test',
    ...reporters,
    `--test-concurrency=${concurrency}`,
    ...namePatterns,
    ...entries,
  ],
  {
    stdio: 'inherit',
    env: {
      ...process.env,
      SIMLENS_TEST: '1',
      TMPDIR: runTmp,
      SIMLENS_CACHE_DIR: process.env.SIMLENS_CACHE_DIR ?? join(tmpdir(), 'simlens-cache'),
      ...(durationsArg ? { SIMLENS_CPU_DIR: cpuDir } : {}),
      SIMLENS_TEST_BATCHES: join(runTmp, 'batches'),
    },
  },
);
if (durationsArg && existsSync(durationsFile)) {
  const lines = readFileSync(durationsFile, 'utf8').trimEnd().split('\n');
  mkdirSync('test-results', { recursive: true });
  writeFileSync('test-results/durations.txt', `${lines.join('\n')}\n`);
  if (argv.includes('--save-weights')) {
    // Each file's time (the sum of its top-level tests: in a process of its own, the span from its
    // first to its last event also counts the wait for a slot) becomes its batching weight; files
    // this run did not include keep theirs.
    const weights = existsSync(WEIGHTS_FILE) ? JSON.parse(readFileSync(WEIGHTS_FILE, 'utf8')) : {};
    for (const line of lines) {
      const m = /^ *([\d.]+) s {2}\(span .*\) {2}(test\/\S+\.test\.ts)$/.exec(line);
      if (m) weights[m[2]] = Math.max(0.1, Number(m[1]));
    }
    const sorted = Object.fromEntries(Object.entries(weights).sort(([a], [b]) => a.localeCompare(b)));
    writeFileSync(WEIGHTS_FILE, `${JSON.stringify(sorted, null, 1)}\n`);
  }
  const total = lines.pop(); // the sum over all files
  const n = Number(durationsArg.split('=')[1] ?? 20);
  const fileCount = lines.filter((l) => / {2}test\/\S+\.test\.ts$/.test(l)).length;
  console.log(
    `\nslowest ${Math.min(n, lines.length)} of ${fileCount} files (all in test-results/durations.txt):\n${lines.slice(0, n).join('\n')}\n${total}`,
  );
}
rmSync(durationsFile, { force: true });
rmSync(cpuDir, { recursive: true, force: true });
// tsx keeps its compile cache in TMPDIR (tsx-<uid>), and the E2E harness the VSIX it installed
// once for all sessions (simlens-e2e-installed-<key>) and the folder of the built-in extensions
// its sessions load (simlens-e2e-builtins-<key>): not leaks.
const left = existsSync(runTmp)
  ? readdirSync(runTmp).filter((n) => !/^(tsx-\d+|simlens-e2e-(installed|builtins)-[0-9a-f]{16})$/.test(n))
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
