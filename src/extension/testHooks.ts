/**
 * Test-only hook: runs the in-host integration suites (test/integration) inside THIS extension
 * host and writes their result as JSON. The VS Code server used here cannot be given
 * `--extensionTestsPath` from the browser workbench, so the E2E test (test/e2e) starts the server
 * with these environment variables (the server passes its environment on to the extension host)
 * and runs the command from the command palette:
 *
 * - SIMLENS_INTEGRATION_RESULT  file to write `{ passed, failed, pending, failures[], tests[] }` to.
 *   Without it nothing is registered: users never see this command.
 * - SIMLENS_INTEGRATION_BUNDLE  the suite bundle (default: dist/test/integration/index.js inside
 *   the extension folder, which the VSIX does not ship).
 * - SIMLENS_INTEGRATION_GREP    optional mocha grep.
 *
 * The palette entry is also hidden unless the user setting `simlens.test.integrationHooks` is true
 * (a `config.` when-clause works before the extension activates; the E2E writes that setting).
 */
import * as vscode from 'vscode';
import { notify } from './safeOutput';
import { createRequire } from 'node:module';
import { mkdirSync } from 'node:fs';
import { writeFileAtomicSync } from '../core/atomicFile';
import * as path from 'node:path';

const RUN_INTEGRATION_COMMAND = 'simlens.test.runIntegration';

interface SuiteBundle {
  runSuites(options: { grep?: string; log?: (line: string) => void }): Promise<{
    passed: number;
    failed: number;
    pending: number;
    failures: Array<{ title: string; error: string }>;
  }>;
}

/** Registers the test-only command when SIMLENS_INTEGRATION_RESULT is set; otherwise does nothing. */
export function registerTestHooks(context: vscode.ExtensionContext, log?: vscode.LogOutputChannel): void {
  const resultFile = process.env.SIMLENS_INTEGRATION_RESULT;
  if (!resultFile) return;
  context.subscriptions.push(
    vscode.commands.registerCommand(RUN_INTEGRATION_COMMAND, async () => {
      const bundle =
        process.env.SIMLENS_INTEGRATION_BUNDLE ??
        path.join(context.extensionPath, 'dist', 'test', 'integration', 'index.js');
      const started = Date.now();
      let result: unknown;
      try {
        // A run-time path, so esbuild leaves it alone; drop a stale copy so a rebuilt bundle loads.
        const load = createRequire(__filename);
        delete load.cache[load.resolve(bundle)];
        const suites = load(bundle) as SuiteBundle;
        const outcome = await suites.runSuites({
          grep: process.env.SIMLENS_INTEGRATION_GREP,
          log: (line) => log?.info(`[integration] ${line}`),
        });
        result = { ...outcome, bundle, vscode: vscode.version, node: process.version };
        const summary = `SimLens integration suites: ${outcome.passed} passed, ${outcome.failed} failed`;
        log?.info(summary);
        void notify.info(summary);
      } catch (error) {
        // A bundle that does not load is a failure too, reported in the same file.
        const message = error instanceof Error ? error.message : String(error);
        result = {
          passed: 0,
          failed: 1,
          pending: 0,
          durationMs: Date.now() - started,
          tests: [],
          failures: [{ title: `loading ${bundle}`, error: message, stack: (error as Error)?.stack }],
        };
        log?.error(`integration suites could not run: ${message}`);
        void notify.error(`SimLens integration suites could not run: ${message}`);
      }
      mkdirSync(path.dirname(resultFile), { recursive: true });
      // Write to a temporary name, then rename: the E2E polls for the file and must never read half of it.
      writeFileAtomicSync(resultFile, JSON.stringify(result, null, 2));
      return result;
    }),
  );
}
