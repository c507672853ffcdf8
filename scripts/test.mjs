// `npm test`: the whole test run from a fresh clone, bootstrapping what is missing first:
//   1. npm dependencies (npm ci) when node_modules lacks them;
//   2. the Debian packages and the local VS Code server the E2E tests drive (scripts/setup.sh;
//      a second run checks in about a second), unless --no-e2e is given;
//   3. build (esbuild), then two at a time, longest first: type-check (tsc, one run per project),
//      the import-boundary check (dependency-cruiser: a violation fails the run), the dead-code
//      check (knip: an unused file, export or dependency fails the run), lint (ESLint) and the
//      format check (Prettier --check); each one's output is printed whole when it ends, and the
//      run stops after them if any failed;
//   4. every test file in one run of node's test runner (scripts/run-tests.mjs), whose closing
//      summary is the result.
// Extra arguments go to run-tests.mjs (e.g. `npm test -- --no-e2e`, `npm test -- importers`).
// Uses only Node's own modules, so it runs before `npm ci`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const args = process.argv.slice(2);

function run(label, command, commandArgs) {
  const t0 = Date.now();
  console.log(`\n▶ ${label}`);
  const r = spawnSync(command, commandArgs, { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`test: ${label} failed (exit ${r.status ?? r.signal})`);
    process.exit(r.status || 1);
  }
  console.log(`  (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
}

/** Runs node scripts two at a time, in the order given; prints each one's output whole when it ends;
 * returns the labels of those that failed. */
async function runTwoAtATime(jobs) {
  const queue = [...jobs];
  const failed = [];
  const t0 = Date.now();
  console.log(`\n▶ ${jobs.length} checks, two at a time: ${jobs.map(([label]) => label.split(' (')[0]).join(', ')}`);
  const worker = async () => {
    for (let job = queue.shift(); job; job = queue.shift()) {
      const [label, commandArgs] = job;
      const started = Date.now();
      const child = spawn(process.execPath, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      const code = await new Promise((done) => child.on('close', (c, signal) => done(c ?? signal)));
      console.log(`\n▶ ${label}`);
      if (out.trim()) console.log(out.trimEnd());
      if (code !== 0) {
        console.error(`test: ${label} failed (exit ${code})`);
        failed.push(label);
      }
      console.log(`  (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    }
  };
  await Promise.all([worker(), worker()]);
  console.log(`  (checks: ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  return failed;
}

if (
  !existsSync('node_modules/.bin/esbuild') ||
  !existsSync('node_modules/.bin/tsc') ||
  !existsSync('node_modules/tsx') ||
  !existsSync('node_modules/dependency-cruiser')
) {
  run('installing npm dependencies (npm ci)', npm, ['ci', '--no-audit', '--no-fund']);
}
if (!args.includes('--no-e2e'))
  run('system packages and the local VS Code server (scripts/setup.sh)', 'bash', ['scripts/setup.sh']);
run('build (esbuild)', process.execPath, ['scripts/build.mjs']);
// The checks read the sources only (none reads dist/ or another check's output), so they run side
// by side: one after another they took 103 s in CI from a fresh clone (bbabf13: type-check 47.5,
// Prettier 21.9, ESLint 19.6, knip 7.7, boundaries 3.8) and left a core idle for all but the
// type-check's two-at-a-time part (the others are one single-threaded process each). On a machine
// busy with other work two at a time was slower (sixth round, bench/RESULTS.md); CI has the
// machine to itself.
const failed = await runTwoAtATime([
  ['type-check (tsc, every project: scripts/typecheck.mjs)', ['scripts/typecheck.mjs']],
  [
    'format (Prettier --check, .prettierrc.json)',
    ['node_modules/prettier/bin/prettier.cjs', '--check', '--log-level', 'warn', '.'],
  ],
  ['lint (ESLint, eslint.config.mjs)', ['node_modules/eslint/bin/eslint.js', '.']],
  ['dead code (knip, knip.json)', ['node_modules/knip/bin/knip.js', '--no-progress']],
  [
    'import boundaries (dependency-cruiser, .dependency-cruiser.cjs)',
    [
      'node_modules/dependency-cruiser/bin/dependency-cruise.mjs',
      '--config',
      '.dependency-cruiser.cjs',
      'src',
      'webview',
    ],
  ],
]);
if (failed.length) {
  console.error(`test: ${failed.join('; ')} failed`);
  process.exit(1);
}
const r = spawnSync(process.execPath, ['scripts/run-tests.mjs', ...args], { stdio: 'inherit' });
process.exit(r.status ?? 1);
