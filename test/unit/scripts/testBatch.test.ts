/**
 * scripts/test-batch.cjs (the unit files run several to a process, scripts/run-tests.mjs): each
 * file's tests count as they do in a process of their own. Checked by running planted files in a
 * batch under node's test runner and reading its closing summary and exit code: a failing test is
 * one failure; a file that does not load is one failure and the batch exits 1 even when a
 * --test-name-pattern filters its "loads" test out; a file that ends the process (process.exit)
 * fails the batch instead of silently dropping the files after it; what a file's tests change in
 * process.env and the working folder does not reach the next file, and a change made as a file loads
 * (before any test of the batch runs) fails by name; a file that sets process.exitCode fails the
 * batch by name; a file's top-level hooks run around its own tests only, not the next file's.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { scratchDir } from '../../support/scratch';

const REPO = resolve(__dirname, '../../..');
const BATCH = join(REPO, 'scripts', 'test-batch.cjs');

function runBatch(files: Record<string, string>, extra: string[] = []) {
  const dir = scratchDir('test-batch');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const entry = join(dir, 'entry.test.cjs');
  writeFileSync(
    entry,
    `require(${JSON.stringify(BATCH)})(${JSON.stringify(dir)}, ${JSON.stringify(Object.keys(files))});\n`,
  );
  // A runner of its own: without NODE_TEST_CONTEXT (set in this test process) node would not run the files.
  const env: NodeJS.ProcessEnv = { ...process.env, SIMLENS_CPU_DIR: '' };
  delete env.NODE_TEST_CONTEXT;
  const r = spawnSync(process.execPath, ['--require', 'tsx/cjs', '--test', '--test-reporter=spec', ...extra, entry], {
    cwd: REPO,
    encoding: 'utf8',
    env,
  });
  const count = (key: string) => Number(new RegExp(`ℹ ${key} (\\d+)`).exec(r.stdout)?.[1] ?? NaN);
  return {
    status: r.status,
    out: r.stdout + r.stderr,
    pass: count('pass'),
    fail: count('fail'),
    skipped: count('skipped'),
  };
}

const passing = `const { test } = require('node:test');\ntest('a passes', () => {});\n`;
const failing = `const { test } = require('node:test');\ntest('b fails', () => { throw new Error('planted'); });\n`;
const broken = `throw new Error('planted load error');\n`;

describe('test batches count as processes of their own', () => {
  test('a failing test is one failure and the batch exits 1', () => {
    const r = runBatch({ 'a.test.cjs': passing, 'b.test.cjs': failing });
    assert.deepEqual([r.status, r.pass, r.fail], [1, 1, 1], r.out);
  });
  test('a file that does not load is one failure, named by its path; the others still run', () => {
    const r = runBatch({ 'a.test.cjs': passing, 'c.test.cjs': broken });
    assert.deepEqual([r.status, r.pass, r.fail], [1, 1, 1], r.out);
    assert.match(r.out, /c\.test\.cjs loads/);
    assert.match(r.out, /planted load error/);
  });
  test('a name pattern that filters the "loads" test out does not hide a file that does not load', () => {
    const r = runBatch({ 'a.test.cjs': passing, 'c.test.cjs': broken }, ['--test-name-pattern=a passes']);
    assert.equal(r.status, 1, r.out);
    assert.ok(r.fail >= 1, r.out);
  });
  test('a file that ends the process fails the batch and names the files that never ran', () => {
    const exits = `const { test } = require('node:test');\ntest('f exits', () => { process.exit(0); });\n`;
    const r = runBatch({ 'f.test.cjs': exits, 'a.test.cjs': passing });
    assert.equal(r.status, 1, r.out);
    assert.ok(r.fail >= 1, r.out);
    assert.match(r.out, /the process ended before these files finished: f\.test\.cjs, a\.test\.cjs/);
  });
  test('what a file changes in process.env and the working folder is put back before the next file', () => {
    const leaks = `const { test } = require('node:test');\ntest('g leaks', () => { process.env.ZZ_LEAK = '1'; delete process.env.HOME; process.chdir('/'); });\n`;
    const sees = `const { test } = require('node:test');\ntest('h sees its own process', () => {\n  if (process.env.ZZ_LEAK !== undefined) throw new Error('env leaked');\n  if (process.env.HOME === undefined) throw new Error('HOME deleted');\n  if (process.cwd() === '/') throw new Error('cwd leaked');\n});\n`;
    const r = runBatch({ 'g.test.cjs': leaks, 'h.test.cjs': sees });
    assert.deepEqual([r.status, r.pass, r.fail], [0, 2, 0], r.out);
  });
  test('a file that changes process.env as it loads fails, named, and the other files do not see the change', () => {
    const atLoad = `process.env.ZZ_AT_LOAD = '1';\nconst { test } = require('node:test');\ntest('i runs', () => {});\n`;
    const other = `const { test } = require('node:test');\ntest('j does not see it', () => { if (process.env.ZZ_AT_LOAD) throw new Error('seen'); });\n`;
    const r = runBatch({ 'i.test.cjs': atLoad, 'j.test.cjs': other });
    assert.equal(r.status, 1, r.out);
    assert.equal(r.fail, 1, r.out);
    assert.match(r.out, /i\.test\.cjs changes process\.env \(ZZ_AT_LOAD\) as it loads/);
  });
  test('a file that sets process.exitCode fails the batch by name, even when a later file resets it', () => {
    const sets = `const { test } = require('node:test');\ntest('k sets it', () => { process.exitCode = 3; });\n`;
    const resets = `const { test } = require('node:test');\ntest('l resets it', () => { process.exitCode = 0; });\n`;
    const r = runBatch({ 'k.test.cjs': sets, 'l.test.cjs': resets });
    assert.equal(r.status, 1, r.out);
    assert.match(r.out, /k\.test\.cjs set process\.exitCode to 3/);
  });
  test("a file's top-level hooks run around its own tests, not the next file's", () => {
    const hooks = `const { test, before, after } = require('node:test');\nlet open = false;\nbefore(() => { open = true; globalThis.__batchOpen = true; });\nafter(() => { open = false; globalThis.__batchOpen = false; });\ntest('d sees its before hook', () => { if (!open) throw new Error('no before'); });\n`;
    const next = `const { test } = require('node:test');\ntest('e runs after d closed', () => { if (globalThis.__batchOpen !== false) throw new Error('hook leaked: ' + globalThis.__batchOpen); });\n`;
    const r = runBatch({ 'd.test.cjs': hooks, 'e.test.cjs': next });
    assert.deepEqual([r.status, r.pass, r.fail], [0, 2, 0], r.out);
  });
});
