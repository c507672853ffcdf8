/**
 * In-host integration suites (mocha, TDD interface: `suite` / `test`), run INSIDE a real VS Code
 * extension host with the SimLens extension loaded.
 *
 * Two ways in, both calling the functions below:
 * - `@vscode/test-electron` (machines that can download VS Code): `node scripts/test-electron.mjs`
 *   loads this bundle as `--extensionTestsPath` and calls `run()`, which rejects on failures.
 * - The local VS Code server (this CI): the test-only command `simlens.test.runIntegration`
 *   (src/extension/testHooks.ts, present only when SIMLENS_INTEGRATION_RESULT is set) loads this
 *   bundle and calls `runSuites()`; the E2E test runs it from the command palette and reads the
 *   JSON result file.
 *
 * ADDING A SUITE for your area: create `test/integration/suites/<area>.ts` exporting
 * `register(): void`, which declares `suite('…', () => { test('…', async () => { … }) })` with
 * node's `assert`; then add one import and one entry to `SUITES` below. Suites share one window:
 * close the editors you open (`workbench.action.closeAllEditors`) and write only under
 * `os.tmpdir()` or the workspace folder given by `workspaceFolder()` in ./helpers.
 * This file is bundled by scripts/build.mjs into dist/test/integration/index.js (mocha included).
 */
import Mocha from 'mocha';
import * as activation from './suites/activation';
import * as commands from './suites/commands';
import * as editor from './suites/editor';
import * as settings from './suites/settings';

/** Every suite module, in run order. Add yours here (one line). */
const SUITES: ReadonlyArray<{ register(): void }> = [activation, commands, editor, settings];

/** One failed test as written to the result file. */
export interface IntegrationFailure {
  title: string;
  error: string;
  stack?: string;
}

/** Summary of one run of the in-host suites. */
export interface IntegrationResult {
  passed: number;
  failed: number;
  pending: number;
  durationMs: number;
  tests: Array<{ title: string; state: 'passed' | 'failed' | 'pending'; durationMs?: number }>;
  failures: IntegrationFailure[];
}

/** Options for {@link runSuites}. */
export interface RunOptions {
  /** Only tests whose full title contains this text (mocha `grep`). */
  grep?: string;
  /** Per-test timeout in ms (default 20 s: the host is real and sometimes slow). */
  timeoutMs?: number;
  /** Receives one line per finished test (e.g. an output channel). */
  log?: (line: string) => void;
}

/** Runs every registered suite in this extension host and resolves with the counts. */
export function runSuites(options: RunOptions = {}): Promise<IntegrationResult> {
  const mocha = new Mocha({
    ui: 'tdd',
    color: false,
    timeout: options.timeoutMs ?? 20_000,
    // No reporter output to stdout: the extension host has no terminal. Results are collected
    // from runner events below.
    reporter: function SilentReporter() {} as unknown as Mocha.ReporterConstructor,
  });
  if (options.grep) mocha.grep(options.grep);
  // The bundle has no test files for mocha to require, so install the TDD globals by hand and
  // let each suite module declare its tests.
  mocha.suite.emit('pre-require', globalThis, 'simlens-integration', mocha);
  for (const module of SUITES) module.register();

  const log = options.log ?? (() => undefined);
  const result: IntegrationResult = { passed: 0, failed: 0, pending: 0, durationMs: 0, tests: [], failures: [] };
  const started = Date.now();
  return new Promise((resolve) => {
    const runner = mocha.run(() => {
      result.durationMs = Date.now() - started;
      resolve(result);
    });
    runner.on('pass', (t) => {
      result.passed++;
      result.tests.push({ title: t.fullTitle(), state: 'passed', durationMs: t.duration });
      log(`✔ ${t.fullTitle()} (${t.duration ?? 0} ms)`);
    });
    runner.on('fail', (t, err: Error) => {
      result.failed++;
      result.tests.push({ title: t.fullTitle(), state: 'failed', durationMs: t.duration });
      result.failures.push({ title: t.fullTitle(), error: String(err?.message ?? err), stack: err?.stack });
      log(`✘ ${t.fullTitle()}: ${err?.message ?? err}`);
    });
    runner.on('pending', (t) => {
      result.pending++;
      result.tests.push({ title: t.fullTitle(), state: 'pending' });
      log(`- ${t.fullTitle()} (pending)`);
    });
  });
}

/** Entry point expected by @vscode/test-electron: rejects when any test fails. */
export async function run(): Promise<void> {
  const result = await runSuites({ log: (line) => console.log(line), grep: process.env.SIMLENS_INTEGRATION_GREP });
  console.log(`${result.passed} passed, ${result.failed} failed, ${result.pending} pending`);
  if (result.failed > 0) throw new Error(`${result.failed} integration test(s) failed`);
  if (result.passed === 0) throw new Error('no integration test passed');
}
