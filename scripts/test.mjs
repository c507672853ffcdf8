// `npm test`: the whole test run from a fresh clone, bootstrapping what is missing first:
//   1. npm dependencies (npm ci) when node_modules lacks them;
//   2. the Debian packages and the local VS Code server the E2E tests drive (scripts/setup.sh;
//      a second run checks in about a second), unless --no-e2e is given;
//   3. build (esbuild), type-check (tsc, one run per project), the import-boundary check
//      (dependency-cruiser: a violation fails the run), the dead-code check (knip: an unused file,
//      export or dependency fails the run), lint (ESLint) and the format check (Prettier --check),
//      then every test file in one run of node's
//      test runner (scripts/run-tests.mjs), whose closing summary is the result.
// Extra arguments go to run-tests.mjs (e.g. `npm test -- --no-e2e`, `npm test -- importers`).
// Uses only Node's own modules, so it runs before `npm ci`.
import { spawnSync } from 'node:child_process';
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
run('type-check (tsc, every project: scripts/typecheck.mjs)', process.execPath, ['scripts/typecheck.mjs']);
run('import boundaries (dependency-cruiser, .dependency-cruiser.cjs)', process.execPath, [
  'node_modules/dependency-cruiser/bin/dependency-cruise.mjs',
  '--config',
  '.dependency-cruiser.cjs',
  'src',
  'webview',
]);
run('dead code (knip, knip.json)', process.execPath, ['node_modules/knip/bin/knip.js', '--no-progress']);
run('lint (ESLint, eslint.config.mjs)', process.execPath, ['node_modules/eslint/bin/eslint.js', '.']);
run('format (Prettier --check, .prettierrc.json)', process.execPath, [
  'node_modules/prettier/bin/prettier.cjs',
  '--check',
  '--log-level',
  'warn',
  '.',
]);
const r = spawnSync(process.execPath, ['scripts/run-tests.mjs', ...args], { stdio: 'inherit' });
process.exit(r.status ?? 1);
