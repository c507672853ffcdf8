// A reporter for node's test runner (used by `scripts/run-tests.mjs --durations`): writes each test
// file's duration, slowest first, one `<seconds> s  (span <s> s, cpu <s> s)  <file>` line each. A
// file's duration is the sum of its top-level tests' durations (the time its tests ran; process
// start and module loading are left out), its span the wall-clock time between its first and last
// event, and its CPU time what its test process and the children it waited for used, start-up
// included (recorded by scripts/cpu-probe.cjs in $SIMLENS_CPU_DIR; `-` where none was recorded).
// The last line sums them over all files.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

function cpuByFile() {
  const out = new Map();
  const dir = process.env.SIMLENS_CPU_DIR;
  if (!dir || !existsSync(dir)) return out;
  for (const name of readdirSync(dir))
    for (const line of readFileSync(path.join(dir, name), 'utf8').split('\n')) {
      if (!line) continue;
      const { file, cpu } = JSON.parse(line);
      out.set(file, (out.get(file) ?? 0) + cpu);
    }
  return out;
}

export default async function* durations(source) {
  const files = new Map();
  for await (const event of source) {
    const file = event.data?.file;
    if (!file) continue;
    const now = Date.now();
    const row = files.get(file) ?? { ms: 0, first: now, last: now };
    row.last = now;
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0)
      row.ms += event.data.details?.duration_ms ?? 0;
    files.set(file, row);
  }
  // Every test process has exited once the source ends: their CPU records are complete.
  const cpu = cpuByFile();
  const rows = [...files].sort((a, b) => b[1].ms - a[1].ms);
  const cwd = process.cwd() + path.sep;
  const s = (x) => (x === undefined ? '-' : x.toFixed(1)).padStart(6);
  let total = { ms: 0, cpu: 0 };
  for (const [file, row] of rows) {
    const fileCpu = cpu.get(path.resolve(file));
    total = { ms: total.ms + row.ms, cpu: total.cpu + (fileCpu ?? 0) };
    yield `${(row.ms / 1000).toFixed(1).padStart(7)} s  (span ${s((row.last - row.first) / 1000)} s, cpu ${s(fileCpu)} s)  ${file.startsWith(cwd) ? file.slice(cwd.length) : file}\n`;
  }
  yield `${(total.ms / 1000).toFixed(1).padStart(7)} s  (cpu ${total.cpu.toFixed(1)} s)  all ${rows.length} files\n`;
}
