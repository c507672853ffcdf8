// A reporter for node's test runner (used by `scripts/run-tests.mjs --durations`): writes each test
// file's duration, slowest first, one `<seconds> s  <file>` line each. A file's duration is the sum
// of its top-level tests' durations (the time its tests ran; process start and module loading are
// left out), and its wall-clock span between its first and last event is given beside it.
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
  const rows = [...files].sort((a, b) => b[1].ms - a[1].ms);
  const cwd = process.cwd() + '/';
  for (const [file, row] of rows) {
    yield `${(row.ms / 1000).toFixed(1).padStart(7)} s  (span ${((row.last - row.first) / 1000).toFixed(1).padStart(6)} s)  ${file.startsWith(cwd) ? file.slice(cwd.length) : file}\n`;
  }
}
