// Runs every unit test file (test/unit/**/*.test.ts) with node's own test runner, loading
// TypeScript through tsx. Node 20's runner does not expand globs, so the files are listed here.
// Extra arguments narrow the run: `node scripts/run-tests.mjs engine importers` runs only
// files whose path contains one of the words.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...collect(path));
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const filters = process.argv.slice(2).filter((a) => !a.startsWith('-'));
let files = collect('test/unit').sort();
if (filters.length) files = files.filter((f) => filters.some((w) => f.includes(w)));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=2', ...files],
  { stdio: 'inherit', env: { ...process.env, SIMLENS_TEST: '1' } },
);
process.exit(result.status ?? 1);
