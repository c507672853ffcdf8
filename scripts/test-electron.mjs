// Runs the in-host integration suites (test/integration, bundled to dist/test/integration/index.js)
// under @vscode/test-electron, the standard harness: it DOWNLOADS a VS Code build from Microsoft at
// run time, so it only works on machines with internet access (not in this project's CI, where the
// same suites run inside the local VS Code server instead: see test/e2e/workbench.test.ts).
//
//   npm run build && node scripts/test-electron.mjs [--version 1.100.3] [--grep TEXT]
//
// The extension is loaded from this folder (extensionDevelopmentPath) into a throw-away profile,
// with a small generated workspace open. Exit code 0 when every suite passes.
import { runTests } from '@vscode/test-electron';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};

const bundle = path.join(root, 'dist', 'test', 'integration', 'index.js');
if (!existsSync(bundle)) {
  console.error(`missing ${bundle}: run \`npm run build\` first`);
  process.exit(1);
}

const base = mkdtempSync(path.join(os.tmpdir(), 'simlens-electron-'));
const workspace = path.join(base, 'workspace');
mkdirSync(workspace);
writeFileSync(
  path.join(workspace, 'sample.conv.jsonl'),
  JSON.stringify({
    id: 'c1',
    task_id: 't1',
    turns: [{ user_utterance: 'Hi', assistant_utterance: 'Hello', recommendations: [], ratings: {} }],
    ratings: {},
  }) + '\n',
);

try {
  await runTests({
    version: option('--version') ?? '1.100.3',
    extensionDevelopmentPath: root,
    extensionTestsPath: bundle,
    launchArgs: [
      workspace,
      '--disable-extensions',
      '--disable-workspace-trust',
      '--user-data-dir',
      path.join(base, 'user-data'),
    ],
    extensionTestsEnv: option('--grep') ? { SIMLENS_INTEGRATION_GREP: option('--grep') } : {},
  });
} catch (error) {
  console.error(`integration suites failed: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
}
