// `npm test`: the whole test run from a fresh clone, bootstrapping what is missing first:
//   1. npm dependencies (npm ci) when node_modules lacks them;
//   2. the Debian packages and the local VS Code server the E2E tests drive (scripts/setup.sh;
//      a second run checks in about a second), unless --no-e2e is given;
//   3. build (esbuild): the tests run the built CLI and bundles;
//   4. at the same time:
//      - every test file in one run of node's test runner (scripts/run-tests.mjs), whose closing
//        summary is the result and stays the last lines of the output;
//      - the static checks, one after another at a lower CPU priority (nice 10), so they take the
//        cores the tests leave idle (E2E waits on VS Code and Chromium, tests wait on child
//        processes) instead of holding the tests back: type-check (tsc, one run per project), the
//        import-boundary check (dependency-cruiser), the dead-code check (knip), lint (ESLint) and
//        the format check (Prettier --check). A failing check is printed when it fails and fails
//        the run; the tests still run to their end.
// Extra arguments go to run-tests.mjs (e.g. `npm test -- --no-e2e`, `npm test -- importers`).
// Uses only Node's own modules, so it runs before `npm ci`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const args = process.argv.slice(2);
const seconds = (t0) => `${((Date.now() - t0) / 1000).toFixed(1)} s`;

function run(label, command, commandArgs) {
  const t0 = Date.now();
  console.log(`\n▶ ${label}`);
  const r = spawnSync(command, commandArgs, { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`test: ${label} failed (exit ${r.status ?? r.signal})`);
    process.exit(r.status || 1);
  }
  console.log(`  (${seconds(t0)})`);
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

const STATIC_CHECKS = [
  ['type-check (tsc, every project: scripts/typecheck.mjs)', ['scripts/typecheck.mjs']],
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
  ['dead code (knip, knip.json)', ['node_modules/knip/bin/knip.js', '--no-progress']],
  ['lint (ESLint, eslint.config.mjs)', ['node_modules/eslint/bin/eslint.js', '.']],
  [
    'format (Prettier --check, .prettierrc.json)',
    ['node_modules/prettier/bin/prettier.cjs', '--check', '--log-level', 'warn', '.'],
  ],
];

// The test runner's output passes through line by line; from its closing summary on (`ℹ tests N`)
// the lines are held back until the static checks are done, so the summary stays last. A static
// check's report is printed between two whole lines of the runner's output.
const held = [];
let holding = false;
function passLine(line) {
  if (!holding && /^ℹ tests \d+/.test(stripVTControlCharacters(line))) holding = true;
  if (holding) held.push(line);
  else process.stdout.write(`${line}\n`);
}
function report(text) {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

// `nice` lowers the checks' priority (Linux, macOS); without it they run at the normal priority.
const nice = process.platform !== 'win32' && spawnSync('nice', ['true']).status === 0;

function runCheck([label, checkArgs]) {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const command = nice ? 'nice' : process.execPath;
    const commandArgs = nice ? ['-n', '10', process.execPath, ...checkArgs] : checkArgs;
    const child = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', (e) => (out += `${e.message}\n`));
    child.on('close', (code, signal) => {
      const ok = code === 0;
      report(
        `\n▶ ${label}${out.trim() ? `\n${out.trimEnd()}` : ''}\n  (${seconds(t0)}${ok ? '' : `; FAILED, exit ${code ?? signal}`})`,
      );
      resolve({ label, ok, time: seconds(t0) });
    });
  });
}

async function staticChecks() {
  const results = [];
  for (const check of STATIC_CHECKS) results.push(await runCheck(check));
  return results;
}

function testRun() {
  return new Promise((resolve) => {
    // The runner writes straight into this pipe; colours as on a terminal when this one is one.
    const env = process.stdout.isTTY && !process.env.NO_COLOR ? { ...process.env, FORCE_COLOR: '1' } : process.env;
    const child = spawn(process.execPath, ['scripts/run-tests.mjs', ...args], {
      stdio: ['inherit', 'pipe', 'inherit'],
      env,
    });
    let partial = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop();
      for (const line of lines) passLine(line);
    });
    child.on('close', (code, signal) => {
      if (partial) passLine(partial);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

const t0 = Date.now();
console.log(`\n▶ the test files, and the static checks beside them${nice ? ' (nice 10)' : ''}`);
const [checks, testStatus] = await Promise.all([staticChecks(), testRun()]);
const failed = checks.filter((c) => !c.ok);
report(
  `\nstatic checks: ${failed.length ? `FAILED: ${failed.map((c) => c.label).join('; ')}` : 'all passed'} (${checks
    .map((c) => `${c.label.split(' (')[0]} ${c.time}`)
    .join(', ')}); tests and checks ${seconds(t0)}`,
);
for (const line of held) process.stdout.write(`${line}\n`);
process.exit(testStatus || (failed.length ? 1 : 0));
