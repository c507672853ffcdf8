// A reporter for node's test runner (used by `scripts/run-tests.mjs --durations`): writes each test
// file's duration, slowest first, one `<seconds> s  (span <s> s, cpu <s> s)  <file>` line each. A
// file's duration is the sum of its top-level tests' durations (the time its tests ran; process
// start and module loading are left out), its span the wall-clock time between its first and last
// event (in a batch, scripts/test-batch.cjs: its suite's duration), and its CPU time what its test
// process and the children it waited for used (recorded in $SIMLENS_CPU_DIR by
// scripts/cpu-probe.cjs per process and by scripts/test-batch.cjs per file in a batch, loading
// included; `-` where none was recorded). The start-up of the batch processes (what each used
// beyond its files) is one more line. The last line sums the files' times and every CPU second.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const BATCH = path.resolve('scripts/test-batch.cjs');

function cpuRecords() {
  const perFile = new Map();
  let startup = 0;
  let batches = 0;
  const dir = process.env.SIMLENS_CPU_DIR;
  if (!dir || !existsSync(dir)) return { perFile, startup, batches };
  // One file per test process: the process's own record (cpu-probe.cjs) and, in a batch, one per file.
  for (const name of readdirSync(dir)) {
    const records = readFileSync(path.join(dir, name), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    const files = records.filter((r) => r.batched);
    const whole = records.find((r) => !r.batched);
    if (files.length === 0) {
      if (whole) perFile.set(whole.file, (perFile.get(whole.file) ?? 0) + whole.cpu);
      continue;
    }
    for (const r of files) perFile.set(r.file, (perFile.get(r.file) ?? 0) + r.cpu);
    if (whole) {
      startup += whole.cpu - files.reduce((sum, r) => sum + r.cpu, 0);
      batches++;
    }
  }
  return { perFile, startup, batches };
}

export default async function* durations(source) {
  const files = new Map();
  const batched = new Set();
  const row = (file) => {
    const now = Date.now();
    const r = files.get(file) ?? { ms: 0, first: now, last: now };
    r.last = now;
    files.set(file, r);
    return r;
  };
  const batchDir = process.env.SIMLENS_TEST_BATCHES;
  for await (const event of source) {
    const file = event.data?.file;
    // Events of a batch's entry file itself (its process) carry no test of their own.
    if (!file || (batchDir && path.dirname(path.resolve(file)) === batchDir)) continue;
    const done = event.type === 'test:pass' || event.type === 'test:fail';
    if (path.resolve(file) === BATCH) {
      // A batch's suites, one per file, named by the file's path.
      if (event.data.nesting !== 0) continue;
      const real = path.resolve(event.data.name);
      batched.add(real);
      const r = row(real);
      if (done) r.span = (event.data.details?.duration_ms ?? 0) / 1000;
      continue;
    }
    const r = row(path.resolve(file));
    if (done && event.data.nesting === (batched.has(path.resolve(file)) ? 1 : 0))
      r.ms += event.data.details?.duration_ms ?? 0;
  }
  // Every test process has exited once the source ends: their CPU records are complete.
  const { perFile, startup, batches } = cpuRecords();
  const cwd = process.cwd() + path.sep;
  const s = (x) => (x === undefined ? '-' : x.toFixed(1)).padStart(6);
  const rows = [...files]
    .map(([file, r]) => ({
      ms: r.ms,
      span: r.span ?? (r.last - r.first) / 1000,
      cpu: perFile.get(file),
      name: file.startsWith(cwd) ? file.slice(cwd.length) : file,
    }))
    .sort((a, b) => b.ms - a.ms);
  if (batches) rows.push({ ms: 0, span: undefined, cpu: startup, name: `start-up of the ${batches} batch processes` });
  let total = { ms: 0, cpu: 0 };
  for (const r of rows) {
    total = { ms: total.ms + r.ms, cpu: total.cpu + (r.cpu ?? 0) };
    yield `${(r.ms / 1000).toFixed(1).padStart(7)} s  (span ${s(r.span)} s, cpu ${s(r.cpu)} s)  ${r.name}\n`;
  }
  yield `${(total.ms / 1000).toFixed(1).padStart(7)} s  (cpu ${total.cpu.toFixed(1)} s)  all ${files.size} files\n`;
}
