// `npm run typecheck`: type-checks every TypeScript project of SimLens, each with only what its
// part may see (docs/architecture.md):
//   core       src/core       Node, no DOM, no vscode (composite: built first, see below)
//   server     src/server     Node              cli   src/cli   Node
//   extension  src/extension  Node + vscode, no DOM
//   webview    webview        DOM, no Node (src/shared is checked here too)
//   tests      tsconfig.tests.json  tests, benchmarks, scripts (Node, mocha, vscode, DOM for jsdom)
// core is checked once (`tsc -b src/core`, which writes its declarations and build info to
// node_modules/.cache/tsc, so an unchanged core costs about a second); the other projects
// reference it and read those declarations, two at a time. Exit 1 on any error.
// `node scripts/typecheck.mjs cli webview` checks only the named projects (and core).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
const PROJECTS = {
  tests: 'tsconfig.tests.json',
  webview: 'webview',
  extension: 'src/extension',
  cli: 'src/cli',
  server: 'src/server',
};
const wanted = process.argv.slice(2).filter((n) => n !== 'core');
const unknown = wanted.filter((n) => !(n in PROJECTS));
if (unknown.length) {
  console.error(`typecheck: unknown project ${unknown.join(', ')} (known: core, ${Object.keys(PROJECTS).join(', ')})`);
  process.exit(2);
}

function run(name, args) {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [tsc, ...args, '--pretty', 'false'], { cwd: root });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => {
      const errors = (out.match(/error TS\d+/g) ?? []).length;
      console.log(
        `${code === 0 ? 'ok  ' : 'FAIL'} ${name.padEnd(9)} tsc ${args.join(' ').padEnd(24)} ${((Date.now() - t0) / 1000).toFixed(1)} s${errors ? `, ${errors} error(s)` : ''}`,
      );
      if (code !== 0 && out.trim()) console.log(out.trimEnd().replace(/^/gm, '     '));
      resolve(code === 0);
    });
  });
}

const t0 = Date.now();
let ok = await run('core', ['-b', 'src/core']);
if (ok) {
  const queue = Object.entries(PROJECTS).filter(([name]) => !wanted.length || wanted.includes(name));
  const worker = async () => {
    for (let p = queue.shift(); p; p = queue.shift()) if (!(await run(p[0], ['--noEmit', '-p', p[1]]))) ok = false;
  };
  await Promise.all([worker(), worker()]);
}
console.log(`typecheck: ${ok ? 'all projects clean' : 'FAILED'} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
process.exit(ok ? 0 : 1);
