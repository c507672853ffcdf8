// Runs several test files in one test process (scripts/run-tests.mjs writes one small entry file
// per batch that calls this with the batch's files). Node 20's runner starts a process per file it
// is given, and a process that loads tsx and our modules costs about 1 CPU s before its first
// test: over some 150 unit files that was a fifth of the test run's CPU time. Here each file
// loads inside a suite named by its path (`describe('test/unit/x.test.ts', () => require(x))`),
// so its tests and its top-level before/after hooks belong to that suite: they run in order, one
// file after another, and a file's hooks never reach another file's tests. The tests, their
// names and the counts are those of one process per file; files that change the process for
// the files after them stay in a process of their own (ISOLATED in scripts/run-tests.mjs).
// With $SIMLENS_CPU_DIR set (`run-tests.mjs --durations`) each file's CPU time (this process and
// the children it waited for, from /proc/self/stat) is recorded between its suite's first and last
// hook plus what loading it took, in the format of scripts/cpu-probe.cjs.
'use strict';
const { describe, before, after, test } = require('node:test');
const { appendFileSync, existsSync, readFileSync } = require('node:fs');
const path = require('node:path');

function cpuSeconds() {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime, stime, cutime, cstime: fields 14-17, in clock ticks of 1/100 s.
  return [14, 15, 16, 17].reduce((sum, i) => sum + Number(f[i - 3]) / 100, 0);
}

module.exports = function runBatch(root, files) {
  const cpuDir = process.env.SIMLENS_CPU_DIR;
  const measure = Boolean(cpuDir) && existsSync('/proc/self/stat');
  for (const file of files) {
    const absolute = path.resolve(root, file);
    describe(file, () => {
      let start = 0;
      if (measure) before(() => (start = cpuSeconds())); // before the file's own hooks
      const loadStart = measure ? cpuSeconds() : 0;
      try {
        require(absolute);
      } catch (error) {
        // A file that does not load is a failed test, counted as in a process of its own; the
        // process also exits 1, so a --test-name-pattern that filters that test out cannot hide it.
        process.exitCode = 1;
        console.error(`${file} does not load: ${error instanceof Error ? error.message : String(error)}`);
        test(`${file} loads`, () => {
          throw error;
        });
      }
      if (!measure) return;
      const load = cpuSeconds() - loadStart;
      after(() =>
        appendFileSync(
          path.join(cpuDir, `${process.pid}.jsonl`),
          `${JSON.stringify({ file: absolute, cpu: load + cpuSeconds() - start, batched: true })}\n`,
        ),
      );
    });
  }
};
