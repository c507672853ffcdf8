// Bundles every entry point with esbuild. One bundle per shell: extension host (node,
// `vscode` external), language server (node), CLI (node), benchmarks (node), and one per
// webview (browser). `--production` minifies and drops source maps; `--watch` rebuilds.
import * as esbuild from 'esbuild';
import { existsSync, mkdirSync, chmodSync, readFileSync, writeFileSync } from 'node:fs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

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
  ['src/server/server.ts', 'dist/server.js'],
  ['src/cli/cli.ts', 'dist/cli.js'],
  ['bench/bench.ts', 'dist/bench.js'],
  ['test/integration/index.ts', 'dist/test/integration/index.js'],
];

/** Browser entry points (webviews). */
const webEntries = [
  ['webview/editor/main.ts', 'dist/webview/editor.js'],
  ['webview/panels/main.ts', 'dist/webview/panels.js'],
];

const configs = [];
for (const [entry, outfile] of nodeEntries) {
  if (!existsSync(entry)) continue;
  configs.push({
    ...common,
    entryPoints: [entry],
    outfile,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    external: ['vscode', 'mocha', 'playwright-core'],
  });
}
for (const [entry, outfile] of webEntries) {
  if (!existsSync(entry)) continue;
  configs.push({
    ...common,
    entryPoints: [entry],
    outfile,
    platform: 'browser',
    target: 'chrome120',
    format: 'iife',
  });
}

mkdirSync('dist', { recursive: true });
if (watch) {
  for (const config of configs) {
    const ctx = await esbuild.context(config);
    await ctx.watch();
  }
  console.log(`watching ${configs.length} bundles`);
} else {
  await Promise.all(configs.map((config) => esbuild.build(config)));
  if (existsSync('dist/cli.js')) {
    const cli = readFileSync('dist/cli.js', 'utf8');
    if (!cli.startsWith('#!')) writeFileSync('dist/cli.js', '#!/usr/bin/env node\n' + cli);
    chmodSync('dist/cli.js', 0o755);
  }
  console.log(`built ${configs.length} bundles${production ? ' (production)' : ''}`);
}
