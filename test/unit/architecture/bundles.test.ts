/**
 * The extension's bundles as built by scripts/build.mjs (production, like the VSIX): activation
 * loads dist/extension.js only, without the simulators, the LLM client, the report code or the
 * language client; the rest (dist/features.js, dist/languageClient.js) loads on first use and
 * every contributed command is there from activation on. The bundles are loaded with a recording
 * stand-in for `vscode` (test/support/fakeVscode.cjs).
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { scratchDir } from '../../support/scratch';
import { FEATURE_COMMANDS } from '../../../src/extension/featureCommands';

const root = path.resolve(__dirname, '../../..');
const requireHere = createRequire(__filename);
const { createFakeVscode, installFakeVscode } = requireHere('../../support/fakeVscode.cjs');

interface Metafile {
  inputs: Record<string, { bytes: number }>;
  outputs: Record<string, { bytes: number; inputs: Record<string, { bytesInOutput: number }> }>;
}

let out = '';
const meta = (name: string): Metafile =>
  JSON.parse(readFileSync(path.join(out, 'dist', `${name}.meta.json`), 'utf8')) as Metafile;
const inputsOf = (name: string): string[] => Object.keys(Object.values(meta(name).outputs)[0].inputs);

before(() => {
  out = scratchDir('simlens-bundles-');
  const r = spawnSync(
    process.execPath,
    [
      'scripts/build.mjs',
      '--production',
      '--metafile',
      `--outdir=${path.join(out, 'dist')}`,
      '--skip=cli,reportWorker,bench,index',
    ],
    { cwd: root, encoding: 'utf8' },
  );
  assert.equal(r.status, 0, `build failed: ${r.stderr}`);
});

test('the activation bundle leaves out the simulators, the LLM client, the report code and the language client', () => {
  const inputs = inputsOf('extension');
  // Each of these must come from dist/features.js or dist/languageClient.js, loaded on first use.
  const lazy = [
    /^node_modules\/openai\//,
    /^node_modules\/vscode-languageclient\//,
    /^node_modules\/vscode-jsonrpc\//,
    // The simulators; the act taxonomy the editor labels turns with (acts, their aliases and the
    // act list of transitions.ts, tree-shaken) stays.
    /^src\/core\/sim\/(?!users\/(acts\.ts|act-aliases\.json|transitions\.ts)$)/,
    /^src\/core\/(llm|report|run|metrics|check|stats\/(?!index))\//,
    /^src\/extension\/(simulation|play|fork|llm|runs|languageClient)\.ts$/,
    /^src\/extension\/(panels|compare)\//,
  ];
  const loaded = inputs.filter((f) => lazy.some((re) => re.test(f)));
  assert.deepEqual(loaded, [], 'modules in dist/extension.js that belong to a bundle loaded on first use');
  // ...and they really are in the lazy bundles (the list above names real paths).
  const features = inputsOf('features');
  for (const f of [
    'node_modules/openai/',
    'src/core/sim/users/',
    'src/core/report/',
    'src/core/llm/',
    'src/extension/panels/',
  ]) {
    assert.ok(
      features.some((i) => i.startsWith(f)),
      `${f} in dist/features.js`,
    );
  }
  assert.ok(inputsOf('languageClient').some((i) => i.startsWith('node_modules/vscode-languageclient/')));
});

test('zod is bundled without its translations (namespace import), in every bundle', () => {
  // `import { z } from 'zod'` makes esbuild keep the whole namespace, 49 locales included (260 KB).
  for (const name of [
    'extension',
    'features',
    'languageClient',
    'server',
    'webview/editor',
    'webview/panels',
    'webview/compare',
  ]) {
    const locales = inputsOf(name).filter((f) => /^node_modules\/zod\/.*\/locales\/(?!en\.js|index\.js)/.test(f));
    assert.deepEqual(locales, [], `zod locales in dist/${name}.js`);
  }
});

test('the conversation editor page carries no zod (the host validates; the page parses and runs only what it draws)', () => {
  // One value import from a module that builds zod schemas at load (src/shared/editorProtocol.ts) put
  // zod in the page: 171 KB minified instead of 67 KB, parsed and run before the first conversation is drawn.
  const inputs = inputsOf('webview/editor');
  assert.deepEqual(
    inputs.filter((f) => f.startsWith('node_modules/zod/') || f === 'src/shared/editorProtocol.ts'),
    [],
    'zod in dist/webview/editor.js',
  );
  const bytes = Object.values(meta('webview/editor').outputs)[0].bytes;
  assert.ok(bytes < 100_000, `dist/webview/editor.js is ${bytes} bytes minified`);
});

test('every contributed command is registered at activation; feature commands load dist/features.js once, on first use', async () => {
  const fake = createFakeVscode();
  fake.context.extensionPath = out;
  const uninstall = installFakeVscode(fake);
  try {
    const bundle = path.join(out, 'dist', 'extension.js');
    const extension = requireHere(bundle) as { activate(context: unknown): void };
    extension.activate(fake.context);
    const loadedBundles = () =>
      Object.keys(requireHere.cache)
        .filter((f) => f.startsWith(out))
        .map((f) => path.basename(f))
        .sort();
    assert.deepEqual(loadedBundles(), ['extension.js'], 'only the activation bundle is loaded');

    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      contributes: { commands: { command: string }[] };
    };
    // The test-only command exists only when its environment variable is set (testHooks.ts).
    const contributed = pkg.contributes.commands
      .map((c) => c.command)
      .filter((id) => !id.startsWith('simlens.test.'))
      .sort();
    const atActivation = [...(fake.commands as Map<string, unknown>).keys()]
      .filter((id) => !id.startsWith('simlens.test.'))
      .sort();
    assert.deepEqual(
      contributed.filter((id) => !atActivation.includes(id)),
      [],
      'contributed commands missing at activation',
    );
    assert.ok(fake.serializers.has('simlens.metricPanel'), 'the metric panel serializer is registered at activation');
    assert.ok(fake.customEditors.has('simlens.conversations'));
    const stubs = new Map(FEATURE_COMMANDS.map((id) => [id, fake.commands.get(id)]));

    // A harmless feature command (it only talks to the inert secret storage) loads the bundle.
    await fake.vscode.commands.executeCommand('simlens.llm.clearApiKey');
    assert.deepEqual(loadedBundles(), ['extension.js', 'features.js']);
    for (const id of FEATURE_COMMANDS) {
      assert.ok(fake.commands.has(id), `${id} registered by dist/features.js`);
      assert.notEqual(fake.commands.get(id), stubs.get(id), `${id} replaced its stub`);
    }
    // The same set of commands as before, no more: features registers nothing it was not stubbed for.
    const after = [...(fake.commands as Map<string, unknown>).keys()]
      .filter((id) => !id.startsWith('simlens.test.'))
      .sort();
    assert.deepEqual(after, atActivation);
    await fake.vscode.commands.executeCommand('simlens.llm.clearApiKey');
    assert.equal(fake.log.filter((l: string) => l.includes('features loaded')).length, 1, 'loaded once');
    assert.ok(!loadedBundles().includes('languageClient.js'), 'no conversation document open: no language server');
  } finally {
    uninstall();
  }
});
