// Preloaded into every test process by `scripts/run-tests.mjs --durations` (node --require, so the
// test file still loads as it does without it): when the process exits, it appends one line to a
// file in $SIMLENS_CPU_DIR with its test file and CPU seconds: its own, and those of the child
// processes it waited for (a CLI, a VS Code server, Chromium). scripts/durations-reporter.mjs
// shows them beside each file's wall time, so the run can tell waiting from computing. Linux only
// (/proc/self/stat, in clock ticks of 1/100 s); elsewhere it records nothing.
const { appendFileSync, existsSync, readFileSync } = require('node:fs');
const path = require('node:path');

/**
 * CPU seconds of this process and of the children it waited for (user + system), from
 * /proc/self/stat: fields 14-17 (utime, stime, cutime, cstime) after the command name, in clock
 * ticks of 1/100 s. Also used by scripts/test-batch.cjs for each file of a batch.
 */
function cpuSeconds() {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return [14, 15, 16, 17].reduce((sum, i) => sum + Number(f[i - 3]) / 100, 0);
}

const dir = process.env.SIMLENS_CPU_DIR;
if (dir && existsSync('/proc/self/stat')) {
  process.on('exit', () => {
    const record = { file: path.resolve(process.argv[1] ?? ''), cpu: cpuSeconds() };
    appendFileSync(path.join(dir, `${process.pid}.jsonl`), `${JSON.stringify(record)}\n`);
  });
}

module.exports = { cpuSeconds };
