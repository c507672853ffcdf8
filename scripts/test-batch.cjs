// Runs several test files in one test process (scripts/run-tests.mjs writes one small entry file
// per batch that calls this with the batch's files). Node 20's runner starts a process per file it
// is given, and a process that loads tsx and our modules costs about 1 CPU s before its first
// test: over some 150 unit files that was a fifth of the test run's CPU time. Here each file
// loads inside a suite named by its path (`describe('test/unit/x.test.ts', () => require(x))`),
// so its tests and its top-level before/after hooks belong to that suite: they run in order, one
// file after another, and a file's hooks never reach another file's tests. The tests, their
// names and the counts are those of one process per file, and the process is kept as a file of
// its own would leave it:
// - what a file's tests change in process.env and the working folder is put back after its last
//   test (as the end of its process would); a file that changes them as it LOADS (all files of a
//   batch load before the first test runs) fails with "loads without changing the process": run it
//   alone (ISOLATED in scripts/run-tests.mjs);
// - a file that does not load is a failed test ("<file> loads");
// - a file that sets process.exitCode, a file that does not load, and a batch that ends before
//   every file finished (process.exit in a test) make the batch exit 1, naming the files, even
//   when a later file resets process.exitCode or a --test-name-pattern filters the test out.
// With $SIMLENS_CPU_DIR set (`run-tests.mjs --durations`) each file's CPU time (this process and
// the children it waited for, from /proc/self/stat) is recorded between its suite's first and last
// hook plus what loading it took, in the format of scripts/cpu-probe.cjs.
'use strict';
const { describe, before, after, test } = require('node:test');
const { appendFileSync, existsSync } = require('node:fs');
const path = require('node:path');
const { cpuSeconds } = require('./cpu-probe.cjs');

/** The names whose values differ between two copies of process.env. */
function envChanges(before, now) {
  const names = new Set([...Object.keys(before), ...Object.keys(now)]);
  return [...names].filter((k) => before[k] !== now[k]).sort();
}

/** Puts process.env back to `saved` (names added since are removed). */
function restoreEnv(saved) {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  for (const [k, v] of Object.entries(saved)) if (process.env[k] !== v) process.env[k] = v;
}

module.exports = function runBatch(root, files) {
  const cpuDir = process.env.SIMLENS_CPU_DIR;
  const measure = Boolean(cpuDir) && existsSync('/proc/self/stat');
  const unfinished = new Set(files);
  /** Why the batch must fail whatever its tests reported, one line per file. */
  const problems = [];
  process.on('exit', () => {
    const lines = [...problems];
    if (unfinished.size) lines.push(`the process ended before these files finished: ${[...unfinished].join(', ')}`);
    if (lines.length === 0) return;
    console.error(`test batch:\n  ${lines.join('\n  ')}`);
    process.exitCode = 1;
  });
  for (const file of files) {
    const absolute = path.resolve(root, file);
    describe(file, () => {
      let env = {};
      let cwd = '';
      let exitCode;
      before(() => {
        env = { ...process.env };
        cwd = process.cwd();
        exitCode = process.exitCode;
      });
      let start = 0;
      if (measure) before(() => (start = cpuSeconds())); // before the file's own hooks
      const loadStart = measure ? cpuSeconds() : 0;
      const envAtLoad = { ...process.env };
      const cwdAtLoad = process.cwd();
      try {
        require(absolute);
      } catch (error) {
        problems.push(`${file} does not load: ${error instanceof Error ? error.message : String(error)}`);
        test(`${file} loads`, () => {
          throw error;
        });
      }
      const changed = envChanges(envAtLoad, process.env);
      if (changed.length || process.cwd() !== cwdAtLoad) {
        const what = [
          ...(changed.length ? [`process.env (${changed.join(', ')})`] : []),
          ...(process.cwd() !== cwdAtLoad ? [`the working folder (${process.cwd()})`] : []),
        ].join(' and ');
        problems.push(`${file} changes ${what} as it loads: add it to ISOLATED in scripts/run-tests.mjs`);
        test(`${file} loads without changing the process`, () => {
          throw new Error(`${file} changes ${what} as it loads, before the other files of its batch run their tests`);
        });
        restoreEnv(envAtLoad);
        process.chdir(cwdAtLoad);
      }
      if (measure) {
        const load = cpuSeconds() - loadStart;
        after(() =>
          appendFileSync(
            path.join(cpuDir, `${process.pid}.jsonl`),
            `${JSON.stringify({ file: absolute, cpu: load + cpuSeconds() - start, batched: true })}\n`,
          ),
        );
      }
      after(() => {
        if (process.exitCode !== exitCode && process.exitCode) {
          problems.push(`${file} set process.exitCode to ${process.exitCode}`);
          process.exitCode = exitCode;
        }
        restoreEnv(env);
        if (process.cwd() !== cwd) process.chdir(cwd);
        unfinished.delete(file);
      });
    });
  }
};
