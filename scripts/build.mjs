// Bundles every entry point with esbuild. One bundle per shell: extension host (node,
// `vscode` external), language server (node), CLI (node), benchmarks (node), and one per
// webview (browser). `--production` minifies and drops source maps; `--watch` rebuilds.
import * as esbuild from 'esbuild';
import { existsSync, mkdirSync, chmodSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
// `--outdir=DIR` writes the bundles to DIR instead of dist/ (the E2E test packages a VSIX from a
// staging folder so it never rewrites dist/ while other tests read it).
const outDir = (process.argv.find((a) => a.startsWith('--outdir=')) ?? '--outdir=dist').slice('--outdir='.length);
const out = (file) => (outDir === 'dist' ? file : file.replace(/^dist\//, `${outDir}/`));
// `--skip=bench,…` leaves out bundles by output name (the E2E's VSIX build does not need bench).
const skip = new Set(
  (process.argv.find((a) => a.startsWith('--skip=')) ?? '--skip=').slice('--skip='.length).split(',').filter(Boolean),
);
const skipped = (outfile) => skip.has(outfile.replace(/^.*\//, '').replace(/\.js$/, ''));
// `--metafile` writes esbuild's account of each bundle's inputs next to it (`<bundle>.meta.json`;
// test/unit/architecture/bundles.test.ts reads what the activation bundle holds).
const metafile = process.argv.includes('--metafile');

const common = {
  bundle: true,
  sourcemap: production ? false : 'linked',
  minify: production,
  logLevel: 'warning',
  legalComments: 'none',
};

/** Node entry points: [entry, outfile]. Missing entries are skipped so the build works while areas land. */
const nodeEntries = [
  ['src/extension/extension.ts', 'dist/extension.js'],
  // Loaded by dist/extension.js on first use (src/extension/lazy.ts): the areas with the
  // simulators, the LLM client and the report code; the language client.
  ['src/extension/features.ts', 'dist/features.js'],
  ['src/extension/languageClient.ts', 'dist/languageClient.js'],
  ['src/server/server.ts', 'dist/server.js'],
  ['src/cli/cli.ts', 'dist/cli.js'],
  // The metric panels' computations run in this worker thread, off the extension host's event loop.
  ['src/core/worker/workerMain.ts', 'dist/reportWorker.js'],
  ['bench/bench.ts', 'dist/bench.js'],
  ['test/integration/index.ts', 'dist/test/integration/index.js'],
];

/** Browser entry points (webviews). */
const webEntries = [
  ['webview/editor/main.ts', 'dist/webview/editor.js'],
  ['webview/panels/main.ts', 'dist/webview/panels.js'],
  ['webview/compare/main.ts', 'dist/webview/compare.js'],
];

const configs = [];
for (const [entry, outfile] of nodeEntries) {
  if (!existsSync(entry) || skipped(outfile)) continue;
  configs.push({
    ...common,
    entryPoints: [entry],
    outfile: out(outfile),
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    // The integration bundle carries mocha inside it: it is loaded by path into an extension
    // host whose extension folder has no node_modules.
    external: entry.startsWith('test/integration/') ? ['vscode'] : ['vscode', 'mocha', 'playwright-core'],
    // mocha's parallel mode (unused here) resolves worker files at run time.
    logOverride: { 'require-resolve-not-external': 'silent' },
  });
}
for (const [entry, outfile] of webEntries) {
  if (!existsSync(entry) || skipped(outfile)) continue;
  configs.push({
    ...common,
    entryPoints: [entry],
    outfile: out(outfile),
    platform: 'browser',
    target: 'chrome120',
    format: 'iife',
  });
}

mkdirSync(outDir, { recursive: true });
// Webview assets: the codicon font and stylesheet are copied next to the webview bundles, because
// a VSIX is packaged without node_modules and webviews may only load from localResourceRoots.
mkdirSync(out('dist/webview'), { recursive: true });
for (const file of ['codicon.css', 'codicon.ttf']) {
  copyFileSync(`node_modules/@vscode/codicons/dist/${file}`, out(`dist/webview/${file}`));
}
if (watch) {
  for (const config of configs) {
    const ctx = await esbuild.context(config);
    await ctx.watch();
  }
  console.log(`watching ${configs.length} bundles`);
} else {
  const results = await Promise.all(configs.map((config) => esbuild.build({ ...config, metafile })));
  if (metafile)
    results.forEach((r, i) =>
      writeFileSync(configs[i].outfile.replace(/\.js$/, '.meta.json'), JSON.stringify(r.metafile)),
    );
  const cliFile = out('dist/cli.js');
  if (existsSync(cliFile)) {
    const cli = readFileSync(cliFile, 'utf8');
    if (!cli.startsWith('#!')) writeFileSync(cliFile, '#!/usr/bin/env node\n' + cli);
    chmodSync(cliFile, 0o755);
  }
  console.log(`built ${configs.length} bundles${production ? ' (production)' : ''}`);
}
