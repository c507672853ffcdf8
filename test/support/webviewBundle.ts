/**
 * Builds a webview entry (webview/<name>/main.ts) into one browser IIFE string with the same
 * esbuild settings as scripts/build.mjs, once per test process, for the jsdom webview tests.
 */
import * as esbuild from 'esbuild';
import { resolve } from 'node:path';

const bundles = new Map<string, Promise<string>>();

export function webviewBundleFor(name: 'editor' | 'panels'): Promise<string> {
  let bundle = bundles.get(name);
  if (!bundle) {
    bundle = esbuild
      .build({
        entryPoints: [resolve(__dirname, '../../webview', name, 'main.ts')],
        bundle: true,
        write: false,
        format: 'iife',
        platform: 'browser',
        target: 'chrome120',
        logLevel: 'silent',
      })
      .then((r) => r.outputFiles[0].text);
    bundles.set(name, bundle);
  }
  return bundle;
}
