/**
 * E2E harness: the packaged SimLens VSIX in a real VS Code (the local VS Code server from
 * `npm run setup`), driven by playwright-core and Debian's Chromium.
 *
 * Writing a spec (test/e2e/<area>.test.ts, node:test):
 *
 *   import { test } from 'node:test';
 *   import { e2eReady, makeWorkspace, startVsCode, runCommand, openFileInEditor, webviewFrame, screenshot } from './harness';
 *
 *   test('my feature', { timeout: 180_000 }, async (t) => {
 *     if (!e2eReady(t)) return;                       // skips on a dev box without `npm run setup`, fails in CI
 *     const workspace = makeWorkspace();              // temp folder with sample.conv.jsonl (or pass your own files)
 *     const vscode = await startVsCode({ workspace, theme: 'light' });
 *     t.after(() => vscode.close());                  // always stop the server and the browser
 *     await openFileInEditor(vscode.page, 'sample.conv.jsonl');
 *     const view = webviewFrame(vscode.page);         // FrameLocator inside the visible webview
 *     await view.locator('text=…').click();
 *     await screenshot(vscode.page, 'my-feature-light');  // test-results/my-feature-light.png, checked non-blank
 *   });
 *
 * The VSIX is built once for all E2E files from the current sources (production bundles in a
 * staging folder, so dist/ is never rewritten while other tests run; cached by a hash of the
 * sources); SIMLENS_E2E_VSIX=file.vsix uses a given one. Specs run
 * their tests one after another; keep to one VS Code per test (each start costs ~8-14 s wall and
 * about 6-8 CPU s until the workbench is ready: scripts/e2e-session-cpu.ts).
 */
import type { TestContext } from 'node:test';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Frame, type FrameLocator, type Locator, type Page } from 'playwright-core';
import {
  findChromium,
  installExtension,
  REPO_ROOT,
  serverInstalled,
  SERVER_DIR,
  startServer,
  type RunningServer,
} from '../../scripts/vscode-server.cjs';
import { callingTestFile, chromiumChildren, logSessionCpu, selfCpu, sessionCpu, type SessionCpuRecord } from './cpu';
import { colourStats, decodePng } from './png';

export { REPO_ROOT };
/** Screenshots and logs land here (gitignored). */
export const RESULTS_DIR = path.join(REPO_ROOT, 'test-results');
/** Title of the test-only command that runs the in-host mocha suites (src/extension/testHooks.ts). */
export const INTEGRATION_COMMAND_TITLE = 'SimLens Test: Run Integration Suites';

export type Theme = 'light' | 'dark' | 'hc-dark' | 'hc-light';
/** `name` is the settings id, `label` what the theme picker shows, `webviewClass` the class VS Code puts on a webview's body. */
export const THEMES: Record<Theme, { name: string; label: string; bodyClass: string; webviewClass: string }> = {
  light: { name: 'Default Light Modern', label: 'Light Modern', bodyClass: 'vs', webviewClass: 'vscode-light' },
  dark: { name: 'Default Dark Modern', label: 'Dark Modern', bodyClass: 'vs-dark', webviewClass: 'vscode-dark' },
  'hc-dark': {
    name: 'Default High Contrast',
    label: 'Dark High Contrast',
    bodyClass: 'hc-black',
    webviewClass: 'vscode-high-contrast',
  },
  'hc-light': {
    name: 'Default High Contrast Light',
    label: 'Light High Contrast',
    bodyClass: 'hc-light',
    webviewClass: 'vscode-high-contrast-light',
  },
};

/** True when running in CI, where missing E2E prerequisites are failures, not skips. */
export function inCi(): boolean {
  const ci = process.env.CI;
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
}

/** What the E2E tests need and is missing on this machine (empty when ready). */
function missingPrerequisites(): string[] {
  const missing: string[] = [];
  if (!serverInstalled()) missing.push(`the local VS Code server (${SERVER_DIR})`);
  if (!findChromium()) missing.push('Chromium (`chromium` on PATH or SIMLENS_CHROMIUM)');
  return missing;
}

/**
 * Call first in every E2E test. Returns true when the prerequisites are present. Otherwise, on a
 * developer machine it skips the test with a message and returns false; in CI it throws.
 */
export function e2eReady(t: TestContext): boolean {
  const missing = missingPrerequisites();
  if (missing.length === 0) return true;
  const message = `E2E prerequisites missing: ${missing.join(', ')}; run \`npm run setup\``;
  if (inCi()) throw new Error(`${message} (CI=true: E2E must run here)`);
  t.skip(message);
  return false;
}

// ---- VSIX -------------------------------------------------------------------------------------

function run(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 180_000,
  });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} failed (exit ${result.status}) in ${cwd}:\n${result.stdout}${result.stderr}`,
    );
  }
  return result.stdout;
}

const VSCE = path.join(REPO_ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');

/**
 * The README of the VSIX (the Marketplace page): marketplace/README.md, without the repository's
 * commands and paths; `npm run package` passes the same option (test/unit/docs/marketplace.test.ts).
 */
export const VSCE_README_OPTIONS = ['--readme-path', 'marketplace/README.md'];

/** The files `vsce` would package from the repository as it is now (honours .vscodeignore). */
export function vsceFileList(): string[] {
  return run(process.execPath, [VSCE, 'ls', '--no-dependencies', ...VSCE_README_OPTIONS], REPO_ROOT)
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}

/** What the VSIX is built from: a change to any of these makes a new build. */
const VSIX_INPUT_DIRS = ['src', 'webview', 'media', 'test/integration'];
const VSIX_INPUT_FILES = [
  'package.json',
  'package-lock.json',
  'marketplace/README.md',
  'LICENSE',
  'CHANGELOG.md',
  '.vscodeignore',
  'scripts/build.mjs',
];

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? listFiles(full) : entry.isFile() ? [full] : [];
  });
}

/** Content hash of the VSIX inputs (paths and bytes). */
function vsixInputHash(): string {
  const hash = createHash('sha256');
  const files = [
    ...VSIX_INPUT_DIRS.flatMap((dir) => listFiles(path.join(REPO_ROOT, dir))),
    ...VSIX_INPUT_FILES.map((file) => path.join(REPO_ROOT, file)).filter((file) => existsSync(file)),
  ].sort();
  for (const file of files) {
    hash.update(path.relative(REPO_ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Builds the VSIX into `stage`: what `vsce ls` selects (except dist/), production bundles, `vsce package`. */
function buildVsixInto(stage: string): void {
  for (const file of vsceFileList()) {
    if (file.startsWith('dist/')) continue;
    mkdirSync(path.dirname(path.join(stage, file)), { recursive: true });
    cpSync(path.join(REPO_ROOT, file), path.join(stage, file));
  }
  cpSync(path.join(REPO_ROOT, '.vscodeignore'), path.join(stage, '.vscodeignore'));
  run(
    process.execPath,
    ['scripts/build.mjs', '--production', '--skip=bench', `--outdir=${path.join(stage, 'dist')}`],
    REPO_ROOT,
  );
  run(
    process.execPath,
    [
      VSCE,
      'package',
      '--no-dependencies',
      '--allow-missing-repository',
      ...VSCE_README_OPTIONS,
      '-o',
      path.join(stage, 'simlens.vsix'),
    ],
    stage,
  );
}

let builtVsix: { vsix: string; integrationBundle: string } | undefined;

/**
 * The VSIX under test and the integration-suite bundle built with it. Built from the current
 * sources into a staging folder (production bundles; dist/ is never touched, and .vscodeignore
 * keeps the integration bundle out of the VSIX), and shared by every E2E process through a cache
 * in the temp folder keyed by a hash of the sources: the first process builds (under a lock),
 * the others wait and reuse it. SIMLENS_E2E_VSIX=file.vsix uses a given VSIX instead.
 */
export function buildVsix(): { vsix: string; integrationBundle: string } {
  const given = process.env.SIMLENS_E2E_VSIX;
  if (given) {
    return {
      vsix: path.resolve(given),
      integrationBundle: path.join(REPO_ROOT, 'dist', 'test', 'integration', 'index.js'),
    };
  }
  // One VSIX per process even if the sources change while the tests run.
  builtVsix ??= buildOrReuseVsix();
  return builtVsix;
}

function buildOrReuseVsix(): { vsix: string; integrationBundle: string } {
  // Outlives the test run's private TMPDIR (scripts/run-tests.mjs sets SIMLENS_CACHE_DIR).
  const cacheRoot = path.join(process.env.SIMLENS_CACHE_DIR ?? os.tmpdir(), 'simlens-e2e-vsix');
  const ready = path.join(cacheRoot, vsixInputHash());
  const result = {
    vsix: path.join(ready, 'simlens.vsix'),
    integrationBundle: path.join(ready, 'dist', 'test', 'integration', 'index.js'),
  };
  const lock = `${ready}.lock`;
  mkdirSync(cacheRoot, { recursive: true });
  const deadline = Date.now() + 300_000;
  while (!existsSync(result.vsix)) {
    try {
      mkdirSync(lock); // atomic: this process builds
    } catch {
      // Another process is building: wait for it; take over a lock left by a dead build.
      const lockedAt = statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now();
      if (Date.now() - lockedAt > 300_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`timed out waiting for another process to build the VSIX (${lock})`);
      sleepSync(250);
      continue;
    }
    try {
      if (existsSync(result.vsix)) break;
      const stage = mkdtempSync(`${ready}.build-`);
      try {
        buildVsixInto(stage);
        rmSync(ready, { recursive: true, force: true });
        renameSync(stage, ready);
      } finally {
        rmSync(stage, { recursive: true, force: true });
      }
      // Drop builds of older sources (keep the cache small).
      for (const name of readdirSync(cacheRoot)) {
        const full = path.join(cacheRoot, name);
        if (full !== ready && !name.endsWith('.lock') && Date.now() - statSync(full).mtimeMs > 3_600_000) {
          rmSync(full, { recursive: true, force: true });
        }
      }
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
  // In use: its age restarts, so another checkout's clean-up (builds untouched for an hour) leaves
  // it alone while this run needs it.
  const now = new Date();
  utimesSync(ready, now, now);
  return result;
}

// ---- sample workspace ------------------------------------------------------------------------

/** Three small conversations in SimLens's JSONL format (ConvApparel-compatible). */
export function sampleConversations(): string {
  const conversations = [
    {
      id: 'h-1',
      task_id: 'task-jacket',
      source: 'human',
      condition: 'good',
      turns: [
        {
          user_utterance: 'I need a warm winter jacket under $150.',
          assistant_utterance: 'Here are two insulated jackets in your budget.',
          recommendations: [
            { item_id: 'J-100', title: 'Alpine Down Parka', category: 'jackets' },
            { item_id: 'J-200', title: 'Trail Puffer', category: 'jackets' },
          ],
          ratings: { helpful: true },
        },
        {
          user_utterance: 'Does the parka come in navy?',
          assistant_utterance: 'Yes, navy and black.',
          recommendations: [],
          ratings: {},
        },
      ],
      ratings: { satisfaction: 4 },
    },
    {
      id: 'h-2',
      task_id: 'task-shoes',
      source: 'human',
      condition: 'bad',
      turns: [
        {
          user_utterance: 'Show me running shoes.',
          assistant_utterance: 'Here are some sandals.',
          recommendations: [{ item_id: 'S-9', title: 'Beach Sandal' }],
          ratings: {},
        },
        {
          user_utterance: 'Those are not running shoes.',
          assistant_utterance: 'Sorry about that.',
          recommendations: [],
          ratings: {},
        },
      ],
      ratings: { satisfaction: 1 },
    },
    {
      id: 's-1',
      task_id: 'task-jacket',
      source: 'simulator',
      turns: [
        {
          user_utterance: 'Looking for a rain jacket.',
          assistant_utterance: 'Try the Storm Shell.',
          recommendations: [{ item_id: 'J-300', title: 'Storm Shell' }],
          ratings: {},
        },
      ],
      ratings: {},
    },
  ];
  return conversations.map((c) => JSON.stringify(c)).join('\n') + '\n';
}

const workspaces: string[] = [];
// Workspaces outlive their VS Code session (a test may look at the files after close), so they are
// removed when the test process exits.
process.on('exit', () => {
  for (const dir of workspaces) rmSync(dir, { recursive: true, force: true });
});

/** Creates a temporary workspace folder (removed at exit); default content is `sample.conv.jsonl`. */
export function makeWorkspace(files: Record<string, string> = { 'sample.conv.jsonl': sampleConversations() }): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'simlens-e2e-ws-'));
  workspaces.push(dir);
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), content);
  }
  return dir;
}

// ---- VS Code session -------------------------------------------------------------------------

interface StartVsCodeOptions {
  workspace: string;
  theme?: Theme;
  /** false leaves workspace trust on and never prompts: the folder opens in Restricted Mode. Default true. */
  trusted?: boolean;
  /** Extra user settings. */
  settings?: Record<string, unknown>;
  /** Extra environment for the server and its extension host. */
  env?: Record<string, string>;
  /** Viewport size (default 1400x900). */
  viewport?: { width: number; height: number };
  /** Unpacked test-only extensions (folders with a package.json) to install beside SimLens. */
  extraExtensions?: string[];
}

export interface VsCodeSession {
  page: Page;
  browser: Browser;
  server: RunningServer;
  workspace: string;
  userDataDir: string;
  /** Where the test-only command writes the in-host suites' result. */
  resultFile: string;
  integrationBundle: string;
  /** Page errors and console errors seen so far (all frames, webviews included). */
  errors: string[];
  /**
   * Uncaught errors and console errors raised by SimLens's own webview code (its bundles under
   * dist/webview/). `close()` throws when there are any, so every E2E test that calls it in
   * `t.after` fails on them.
   */
  webviewErrors: string[];
  /** Switches the colour theme through settings.json and waits until the workbench shows it. */
  setTheme(theme: Theme): Promise<void>;
  /** Closes the browser, stops the server, writes its log to test-results/, removes temp folders. */
  close(): Promise<void>;
}

const BASE_SETTINGS: Record<string, unknown> = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'chat.commandCenter.enabled': false,
  'extensions.ignoreRecommendations': true,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'window.restoreWindows': 'none',
  'files.hotExit': 'off',
  // The browser workbench saves after a second by default (files.autoSave is afterDelay in VS Code
  // for the Web): an edit's dirty state would race the test on a loaded machine. The tests save by hand.
  'files.autoSave': 'off',
  'security.workspace.trust.startupPrompt': 'never',
  'security.workspace.trust.banner': 'always',
  // Shows the test-only command in the palette (see src/extension/testHooks.ts).
  'simlens.test.integrationHooks': true,
};

let sessionCounter = 0;

/** Installs the VSIX into a fresh VS Code server, opens `workspace` in Chromium and waits for the workbench. */
export async function startVsCode(options: StartVsCodeOptions): Promise<VsCodeSession> {
  const startedAt = Date.now();
  const cpuLog = Boolean(process.env.SIMLENS_E2E_CPU_LOG);
  const testFile = cpuLog ? callingTestFile() : '';
  const harnessAtStart = selfCpu();
  const { vsix, integrationBundle } = buildVsix();
  const base = mkdtempSync(path.join(os.tmpdir(), 'simlens-e2e-vscode-'));
  const extensionsDir = path.join(base, 'extensions');
  const userDataDir = path.join(base, 'user-data');
  const resultFile = path.join(base, 'integration-result.json');
  const serverTmp = path.join(base, 'tmp');
  mkdirSync(serverTmp, { recursive: true });
  const settingsFile = path.join(userDataDir, 'User', 'settings.json');
  const settings: Record<string, unknown> = {
    ...BASE_SETTINGS,
    'workbench.colorTheme': THEMES[options.theme ?? 'light'].name,
    ...options.settings,
  };
  mkdirSync(path.dirname(settingsFile), { recursive: true });
  writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
  installFromTemplate(installedTemplate(vsix), extensionsDir, userDataDir);
  for (const folder of options.extraExtensions ?? []) installUnpacked(folder, extensionsDir);

  const server = await startServer({
    workspace: options.workspace,
    extensionsDir,
    userDataDir,
    disableWorkspaceTrust: options.trusted ?? true,
    extraArgs: ['--builtin-extensions-dir', builtinExtensionsDir()],
    // The server's own temporary files (its IPC and git sockets) go into the session folder,
    // removed by close().
    env: {
      TMPDIR: serverTmp,
      SIMLENS_INTEGRATION_RESULT: resultFile,
      SIMLENS_INTEGRATION_BUNDLE: integrationBundle,
      ...options.env,
    },
  });
  const errors: string[] = [];
  const webviewErrors: string[] = [];
  let browser: Browser | undefined;
  const id = `${process.pid}-${++sessionCounter}`;
  let browserPid: number | undefined;
  let atReady: { wall: number; cpu: SessionCpuRecord['ready'] } | undefined;
  const readCpu = () => ({ ...sessionCpu(server.pid, browserPid), harness: selfCpu() - harnessAtStart });
  const close = async () => {
    if (cpuLog && atReady)
      logSessionCpu({
        file: testFile,
        session: id,
        readyWall: atReady.wall,
        closeWall: (Date.now() - startedAt) / 1000,
        ready: atReady.cpu,
        close: readCpu(),
      });
    await browser?.close().catch(() => undefined);
    await server.stop();
    mkdirSync(RESULTS_DIR, { recursive: true });
    writeFileSync(
      path.join(RESULTS_DIR, `vscode-server-${id}.log`),
      server.output() + '\n--- page errors ---\n' + errors.join('\n'),
    );
    rmSync(base, { recursive: true, force: true });
    if (webviewErrors.length)
      throw new Error(`SimLens webviews raised ${webviewErrors.length} error(s):\n${webviewErrors.join('\n')}`);
  };
  try {
    const browsersBefore = cpuLog ? new Set(chromiumChildren()) : undefined;
    browser = await chromium.launch({
      executablePath: findChromium() ?? undefined,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    });
    if (browsersBefore) browserPid = chromiumChildren().find((pid) => !browsersBefore.has(pid));
    const context = await browser.newContext({
      viewport: options.viewport ?? { width: 1400, height: 900 },
      // code-server gzips every response on the fly (its `compression` middleware), the 11 MB
      // workbench script included, in every session: about 0.5 CPU s of the server's per session
      // (scripts/e2e-session-cpu.ts). Over loopback, uncompressed costs nothing.
      extraHTTPHeaders: { 'Accept-Encoding': 'identity' },
    });
    const page = await context.newPage();
    page.on('pageerror', (error) => {
      errors.push(`pageerror: ${error.message}`);
      if (isSimLensWebviewError(error.stack ?? '')) webviewErrors.push(`pageerror: ${error.stack}`);
    });
    page.on('console', (message) => {
      if (message.type() !== 'error') return;
      errors.push(`console: ${message.text()}`);
      if (isSimLensWebviewError(message.location().url))
        webviewErrors.push(`console: ${message.text()} (${message.location().url}:${message.location().lineNumber})`);
    });
    await page.goto(server.workspaceUrl);
    await openWorkbench(page);
    if (cpuLog) atReady = { wall: (Date.now() - startedAt) / 1000, cpu: readCpu() };
    const setTheme = async (theme: Theme) => {
      // Through the UI, as a user would (the server does not pick up edits of settings.json
      // made behind its back reliably).
      await runCommand(page, 'Preferences: Color Theme');
      await pickQuickInput(page, THEMES[theme].label);
      await page.waitForFunction(
        (cls) => document.querySelector('.monaco-workbench')?.classList.contains(cls) ?? false,
        THEMES[theme].bodyClass,
        { timeout: 30_000 },
      );
    };
    return {
      page,
      browser,
      server,
      workspace: options.workspace,
      userDataDir,
      resultFile,
      integrationBundle,
      errors,
      webviewErrors,
      setTheme,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * Built-in extensions with code of their own that no E2E test uses and that would still run (or be
 * scanned and registered) in every session: source control (git activates on start-up and runs
 * `git`), GitHub and Microsoft sign-in, Emmet (activates on the first editor of any language),
 * merge conflicts and debug auto-attach (on start-up), the JavaScript debugger and profiler, task
 * providers, port forwarding, terminal suggestions, the simple browser, references view, notebooks,
 * and the TypeScript, CSS, HTML and PHP language servers. Measured with scripts/e2e-session-cpu.ts:
 * the server's process group uses about 0.4 CPU s less per session until the editor shows, most
 * of it in the extension host (more in tests that edit files or open other languages). Everything
 * declarative stays (languages, grammars, themes, the Seti file icons), and so do the JSON and
 * Markdown language features, configuration editing and media preview, which a test may reach.
 */
const UNUSED_BUILTIN_EXTENSIONS = [
  'debug-auto-launch',
  'debug-server-ready',
  'emmet',
  'git',
  'git-base',
  'github',
  'github-authentication',
  'grunt',
  'gulp',
  'ipynb',
  'jake',
  'merge-conflict',
  'microsoft-authentication',
  'ms-vscode.js-debug',
  'ms-vscode.js-debug-companion',
  'ms-vscode.vscode-js-profile-table',
  'npm',
  'references-view',
  'simple-browser',
  'terminal-suggest',
  'tunnel-forwarding',
  'typescript-language-features',
  'css-language-features',
  'html-language-features',
  'php-language-features',
];

/**
 * The server's built-in extensions folder without UNUSED_BUILTIN_EXTENSIONS, passed to every
 * session as `--builtin-extensions-dir`: a folder of symbolic links to the others, made once per
 * test run (in its temporary folder, shared by its E2E processes).
 */
function builtinExtensionsDir(): string {
  const source = path.join(SERVER_DIR, 'node_modules', 'code-server', 'lib', 'vscode', 'extensions');
  const kept = readdirSync(source, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !UNUSED_BUILTIN_EXTENSIONS.includes(e.name))
    .map((e) => e.name)
    .sort();
  const key = createHash('sha256')
    .update(`${source}\0${kept.join('\0')}`)
    .digest('hex')
    .slice(0, 16);
  const dir = path.join(os.tmpdir(), `simlens-e2e-builtins-${key}`);
  if (existsSync(dir)) return dir; // appears complete: renamed into place
  const stage = mkdtempSync(`${dir}.stage-`);
  try {
    for (const name of kept) symlinkSync(path.join(source, name), path.join(stage, name), 'dir');
    try {
      renameSync(stage, dir); // atomic; fails when another process got there first
    } catch (error) {
      if (!existsSync(dir)) throw error;
    }
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
  return dir;
}

/**
 * The VSIX installed once by the server's own `--install-extension` (per VSIX and test run: in the
 * run's temporary folder, shared by its E2E processes): its extensions folder, the user-data
 * folder's cache of the built-in extensions that the install wrote, and the extensions folder's
 * path at install time (source.json). Each session copies it (installFromTemplate) instead of
 * starting the server's CLI again (about a second of CPU each).
 */
function installedTemplate(vsix: string): string {
  const key = createHash('sha256')
    .update(`${path.resolve(vsix)}\0${statSync(vsix).size}\0${statSync(vsix).mtimeMs}`)
    .digest('hex')
    .slice(0, 16);
  const dir = path.join(os.tmpdir(), `simlens-e2e-installed-${key}`);
  if (existsSync(path.join(dir, 'source.json'))) return dir;
  const stage = mkdtempSync(`${dir}.stage-`);
  try {
    const extensionsDir = path.join(stage, 'extensions');
    installExtension({ vsix, extensionsDir, userDataDir: path.join(stage, 'user-data') });
    writeFileSync(path.join(stage, 'source.json'), JSON.stringify({ extensionsDir }));
    try {
      renameSync(stage, dir); // atomic; fails when another process got there first
    } catch (error) {
      if (!existsSync(path.join(dir, 'source.json'))) throw error;
    }
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
  return dir;
}

/** A session's copy of an installed template: its extensions (their listed paths moved) and the built-in cache. */
function installFromTemplate(template: string, extensionsDir: string, userDataDir: string): void {
  const source = (JSON.parse(readFileSync(path.join(template, 'source.json'), 'utf8')) as { extensionsDir: string })
    .extensionsDir;
  cpSync(path.join(template, 'extensions'), extensionsDir, { recursive: true });
  const listFile = path.join(extensionsDir, 'extensions.json');
  const inJson = (p: string) => JSON.stringify(p).slice(1, -1);
  const list = readFileSync(listFile, 'utf8').split(inJson(source)).join(inJson(extensionsDir));
  if (list.includes(source)) throw new Error(`${listFile} still names the template's folder ${source}`);
  writeFileSync(listFile, list);
  const cache = path.join(template, 'user-data', 'CachedProfilesData');
  if (existsSync(cache)) cpSync(cache, path.join(userDataDir, 'CachedProfilesData'), { recursive: true });
}

/**
 * Copies an unpacked extension into the extensions folder as `publisher.name-version` and lists
 * it in the folder's extensions.json (which the server reads instead of scanning the folder).
 */
function installUnpacked(folder: string, extensionsDir: string): void {
  const manifest = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')) as {
    publisher: string;
    name: string;
    version: string;
  };
  const id = `${manifest.publisher}.${manifest.name}`;
  const relativeLocation = `${id}-${manifest.version}`;
  const target = path.join(extensionsDir, relativeLocation);
  cpSync(folder, target, { recursive: true });
  const listFile = path.join(extensionsDir, 'extensions.json');
  const list = existsSync(listFile) ? (JSON.parse(readFileSync(listFile, 'utf8')) as unknown[]) : [];
  list.push({
    identifier: { id },
    version: manifest.version,
    location: { $mid: 1, path: target, scheme: 'file' },
    relativeLocation,
    metadata: { installedTimestamp: Date.now(), source: 'vsix' },
  });
  writeFileSync(listFile, JSON.stringify(list));
}

/** True when a stack trace or script URL points into SimLens's webview bundles (dist/webview/*.js). */
function isSimLensWebviewError(stackOrUrl: string): boolean {
  return /\/dist\/webview\/[\w-]+\.js/.test(stackOrUrl);
}

/** Waits until the workbench is rendered and the extension host has connected. */
async function openWorkbench(page: Page, timeoutMs = 90_000): Promise<void> {
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: timeoutMs });
  await page.locator('.part.statusbar').waitFor({ state: 'visible', timeout: timeoutMs });
  // The explorer shows the folder once the remote file system answers.
  await page
    .locator('.explorer-folders-view, .explorer-viewlet')
    .first()
    .waitFor({ state: 'attached', timeout: timeoutMs });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Matches a label that is exactly `text` (surrounding white space aside). */
function exactly(text: string): RegExp {
  return new RegExp(`^\\s*${escapeRegExp(text)}\\s*$`);
}

/**
 * Opens the quick input (the command palette, F1) and returns its text box. A key press can be lost
 * while focus moves into or out of a webview (its keys reach the workbench by message, and not
 * before the frame is ready), so a palette that does not show within a few seconds is asked for
 * again: F1, then Ctrl+Shift+P, then F1 after a click on the side bar's title, which takes focus
 * back to the workbench. Throws only when none of these opened it before `timeoutMs`.
 */
export async function openQuickInput(page: Page, timeoutMs = 20_000): Promise<Locator> {
  const deadline = Date.now() + timeoutMs;
  const input = page.locator('.quick-input-widget input').first();
  const attempts: Array<() => Promise<void>> = [
    () => page.keyboard.press('F1'),
    () => page.keyboard.press('Control+Shift+P'),
    async () => {
      const title = page.locator('.part.sidebar .composite.title').first();
      if (await title.isVisible().catch(() => false)) await title.click().catch(() => undefined);
      await page.keyboard.press('F1');
    },
  ];
  for (let i = 0; ; i++) {
    await page.keyboard.press('Escape');
    await attempts[i % attempts.length]();
    try {
      await input.waitFor({ state: 'visible', timeout: Math.max(500, Math.min(3_000, deadline - Date.now())) });
      return input;
    } catch (e) {
      if (Date.now() >= deadline)
        throw new Error(`the command palette did not open: ${(e as Error).message.split('\n')[0]}`);
    }
  }
}

/**
 * Opens the command palette and returns the row whose label is exactly `title` (e.g.
 * "SimLens: Run Simulation"), or undefined after `timeoutMs`. The palette's list is computed when
 * it opens, and right after start-up the extensions' commands may not be known yet, so it is
 * closed and reopened until the row shows up.
 */
async function paletteRow(page: Page, title: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  const input = page.locator('.quick-input-widget input').first();
  const row = page
    .locator('.quick-input-list .monaco-list-row')
    .filter({ has: page.locator('.label-name', { hasText: new RegExp(`^\\s*${escapeRegExp(title)}\\s*$`) }) })
    .first();
  do {
    await openQuickInput(page);
    await input.fill(`>${title}`);
    try {
      await row.waitFor({ state: 'visible', timeout: Math.max(500, Math.min(3_000, deadline - Date.now())) });
      return row;
    } catch {
      // not offered (yet): reopen
    }
  } while (Date.now() < deadline);
  return undefined;
}

/**
 * Runs a command that opens a quick pick and picks `label` in it. A pick closes when the focus
 * leaves it (VS Code's default for a "go to" pick); in a full E2E run the focus sometimes moved before
 * the text was typed (CI at 32b37cf: "Go to Conversation…" left its pick hidden for 60 s; alone the
 * same test passes), so a pick that is not visible within 10 s is opened again, up to three times.
 */
export async function runCommandAndPick(page: Page, title: string, label: string): Promise<void> {
  const input = page.locator('.quick-input-widget input').first();
  for (let attempt = 1; ; attempt++) {
    await focusWorkbench(page);
    await runCommand(page, title);
    try {
      await input.waitFor({ state: 'visible', timeout: 10_000 });
    } catch (err) {
      if (attempt >= 3) throw err;
      continue;
    }
    await pickQuickInput(page, label);
    return;
  }
}

/** Types `label` into the open quick pick and picks the row whose label is exactly `label`. */
export async function pickQuickInput(page: Page, label: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const input = page.locator('.quick-input-widget input').first();
  await input.waitFor({ state: 'visible', timeout: timeoutMs });
  const row = page
    .locator('.quick-input-list .monaco-list-row')
    .filter({ has: page.locator('.label-name', { hasText: new RegExp(`^\\s*${escapeRegExp(label)}\\s*$`) }) })
    .first();
  // The quick input widget is shared by the command palette and every step of a pick: a step that
  // opens after the text was typed (a busy extension host is slow to show it) starts empty, so the
  // text is typed again until the row shows. Waits on the row, not on time; the deadline only
  // bounds a pick that never comes.
  for (;;) {
    if ((await input.inputValue().catch(() => '')) !== label) await input.fill(label).catch(() => undefined);
    try {
      await row.waitFor({ state: 'visible', timeout: Math.max(500, Math.min(2_000, deadline - Date.now())) });
      break;
    } catch (e) {
      if (Date.now() >= deadline) {
        // What the widget showed instead, so that a failure in CI says which pick (or the palette) was open.
        const typed = await input.inputValue().catch(() => '?');
        const rows = await page
          .locator('.quick-input-list .monaco-list-row')
          .allInnerTexts()
          .catch(() => [] as string[]);
        const shown = rows.slice(0, 5).map((r) => r.replace(/\s+/g, ' ').trim());
        throw new Error(
          `the quick pick never offered "${label}" (input "${typed}", rows ${JSON.stringify(shown)}): ${(e as Error).message.split('\n')[0]}`,
        );
      }
    }
  }
  await row.click();
}

/** True when the command palette offers a command with this exact title (the palette is closed again). */
export async function commandInPalette(page: Page, title: string, timeoutMs = 5_000): Promise<boolean> {
  const row = await paletteRow(page, title, timeoutMs);
  await page.keyboard.press('Escape');
  return row !== undefined;
}

/**
 * Whether the command palette lists a command with this exact title, read from the list it draws
 * for that text, without waiting for a row that may never come: for a negative answer once the
 * extension's commands are known to be registered (wait for one of them with commandInPalette
 * first). The list is read once it shows the result for the typed text: a row with a highlighted
 * match, the "similar commands" VS Code offers when nothing matches, or "No matching commands"
 * (while an empty first result waits for the slower sources, the palette keeps showing its
 * unfiltered rows, which have neither).
 */
export async function paletteLists(page: Page, title: string): Promise<boolean> {
  const input = await openQuickInput(page);
  await input.fill(`>${title}`);
  const rows = page.locator('.quick-input-list .monaco-list-row');
  await rows
    .filter({ has: page.locator('.highlight') })
    .or(page.locator('.quick-input-list .monaco-list-row[aria-label$=", similar commands"]'))
    .or(rows.filter({ hasText: /^\s*No matching commands\s*$/ }))
    .first()
    .waitFor({ state: 'visible', timeout: 15_000 });
  const found = (await rows.filter({ has: page.locator('.label-name', { hasText: exactly(title) }) }).count()) > 0;
  await page.keyboard.press('Escape');
  return found;
}

/** Runs a command through the command palette (F1) by its exact title; throws when it is not offered. */
export async function runCommand(page: Page, title: string, timeoutMs = 15_000): Promise<void> {
  const row = await paletteRow(page, title, timeoutMs);
  if (!row) {
    await page.keyboard.press('Escape');
    throw new Error(`the command palette does not offer "${title}"`);
  }
  // Accepting a row closes the palette (or replaces its text with the command's own pick). A click
  // that lands while the list is being redrawn is lost and leaves the palette open with the
  // command's title typed, so whatever the test types next would go into the palette. The click is
  // repeated until the palette no longer shows the title: running the command twice cannot happen,
  // as a taken row closes the palette.
  const input = page.locator('.quick-input-widget input').first();
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    if (attempt === 0) await row.click();
    else await row.click({ timeout: 1_000 }).catch(() => input.press('Enter').catch(() => undefined));
    const taken = await page
      .waitForFunction(
        (typed) => {
          const el = document.querySelector<HTMLInputElement>('.quick-input-widget input');
          const widget = document.querySelector<HTMLElement>('.quick-input-widget');
          return !el || !widget || getComputedStyle(widget).display === 'none' || el.value !== typed;
        },
        `>${title}`,
        { timeout: 2_000 },
      )
      .then(() => true)
      .catch(() => false);
    if (taken) return;
    if (Date.now() >= deadline) throw new Error(`the command palette kept "${title}" open: the row was not taken`);
  }
}

/** Opens a workspace file (path relative to the folder) through Quick Open, in its default editor. */
export async function openFileInEditor(page: Page, relativePath: string): Promise<void> {
  const input = await openQuickInput(page);
  await input.fill(relativePath);
  const name = path.basename(relativePath);
  const row = page
    .locator('.quick-input-list .monaco-list-row')
    .filter({ has: page.locator('.label-name', { hasText: new RegExp(`^\\s*${escapeRegExp(name)}\\s*$`) }) })
    .first();
  await row.waitFor({ state: 'visible', timeout: 30_000 });
  await row.click();
  await page
    .locator(`.tabs-container .tab[aria-label*="${name}"]`)
    .first()
    .waitFor({ state: 'visible', timeout: 30_000 });
}

/**
 * The content of the visible webview (custom editor or panel). VS Code nests two iframes: the
 * outer host frame and the inner `#active-frame` that holds the extension's HTML. With several
 * webviews visible, `index` picks one (in DOM order).
 */
export function webviewFrame(page: Page, index = 0): FrameLocator {
  return page
    .locator('iframe.webview.ready')
    .filter({ visible: true })
    .nth(index)
    .contentFrame()
    .locator('iframe#active-frame')
    .contentFrame();
}

/**
 * Waits until the visible webview has loaded the extension's HTML and rendered something into its
 * body; returns its FrameLocator. Throws after `timeoutMs`.
 */
export async function waitForWebview(page: Page, index = 0, timeoutMs = 30_000): Promise<FrameLocator> {
  const frame = webviewFrame(page, index);
  await frame.locator('body', { hasText: /\S/ }).waitFor({ state: 'visible', timeout: timeoutMs });
  return frame;
}

/** Waits until `selector` in `frame` shows text matching `re`; the error says what it shows instead. */
export async function waitForText(
  frame: FrameLocator,
  selector: string,
  re: RegExp,
  timeout = 20_000,
  state: 'visible' | 'attached' = 'visible',
): Promise<void> {
  try {
    await frame.locator(selector, { hasText: re }).first().waitFor({ state, timeout });
  } catch (e) {
    const actual = await frame
      .locator(selector)
      .allInnerTexts()
      .catch(() => ['(unreadable)']);
    throw new Error(
      `${selector} never matched ${re}; it shows: ${JSON.stringify(actual).slice(0, 500)}\n${(e as Error).message.split('\n')[0]}`,
    );
  }
}

/** Moves keyboard focus from a webview to the workbench (F1 inside a webview is not always forwarded). */
export async function focusWorkbench(page: Page): Promise<void> {
  await page.locator('.part.sidebar .composite.title').first().click();
}

/**
 * The status of the page's icon font (codicon): 'loaded' when its glyphs show, 'error' when the
 * font file failed to load (icons render as empty boxes), 'missing' when no @font-face declares it.
 */
export async function iconFontStatus(frame: FrameLocator): Promise<string> {
  return frame.locator('body').evaluate(async () => {
    await document.fonts.ready;
    const face = [...document.fonts].find((f) => f.family.replace(/["']/g, '') === 'codicon');
    if (!face) return 'missing';
    if (face.status === 'unloaded') await face.load().catch(() => undefined);
    return face.status;
  });
}

/** The Frame (not a locator) holding the extension's HTML in the `index`-th visible webview: for `evaluate`. */
export async function webviewContentFrame(page: Page, index = 0): Promise<Frame> {
  const outer = await (
    await page.locator('iframe.webview.ready').filter({ visible: true }).nth(index).elementHandle({ timeout: 30_000 })
  )?.contentFrame();
  const inner = await (
    await outer?.waitForSelector('iframe#active-frame', { state: 'attached', timeout: 30_000 })
  )?.contentFrame();
  if (!inner) throw new Error(`webview ${index}: no content frame`);
  return inner;
}

/** One axe-core rule violation, reduced to what a report needs. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string; summary: string }>;
}

/**
 * Runs axe-core (node_modules/axe-core) in a webview frame against WCAG 2 A/AA rules and returns
 * the violations. The script is evaluated through the DevTools protocol, which the webview's CSP
 * does not restrict; nothing is added to the page's DOM.
 */
export async function axeCheck(frame: Frame, rules?: string[]): Promise<AxeViolation[]> {
  const loaded = await frame.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe === 'object');
  if (!loaded)
    await frame.evaluate(readFileSync(path.join(REPO_ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8'));
  return frame.evaluate(async (only) => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            ctx: unknown,
            opts: unknown,
          ): Promise<{
            violations: Array<{
              id: string;
              impact: string | null;
              help: string;
              nodes: Array<{ target: unknown[]; failureSummary?: string }>;
            }>;
          }>;
        };
      }
    ).axe;
    const runOnly = only
      ? { type: 'rule', values: only }
      : { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] };
    const result = await axe.run(document, { runOnly, resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({
        target: n.target.map(String).join(' '),
        summary: (n.failureSummary ?? '').replace(/\s+/g, ' ').slice(0, 300),
      })),
    }));
  }, rules ?? null);
}

/** Visible notification toasts' text. */
export async function notifications(page: Page): Promise<string[]> {
  return page.locator('.notifications-toasts .notification-toast').allInnerTexts();
}

/**
 * Reads `read()` until `done(value)` holds or `timeoutMs` has passed (checking every 100 ms), and
 * returns the last value read: for state outside the page (files on disk, input values), where
 * there is no event to wait on. The caller asserts on the value, so a timeout fails there.
 */
export async function pollUntil<T>(
  read: () => T | Promise<T>,
  done: (value: T) => boolean,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() >= deadline) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Resolves once the page in `frame` has run two animation frames (what was queued before is drawn). */
export async function nextFrames(frame: FrameLocator): Promise<void> {
  await frame
    .locator('body')
    .evaluate(
      () => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
    );
}

/**
 * Saves a screenshot as test-results/<name>.png and checks it is not blank (many distinct
 * colours, no single colour covering nearly everything). Returns the file path and the stats.
 */
export async function screenshot(
  page: Page,
  name: string,
): Promise<{ file: string; distinctColours: number; dominantShare: number; meanLuminance: number }> {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${name}.png`);
  const png = await page.screenshot({ path: file });
  const stats = colourStats(decodePng(png));
  if (stats.distinctColours < 32 || stats.dominantShare > 0.97) {
    throw new Error(
      `screenshot ${file} looks blank: ${stats.distinctColours} colours, dominant ${(stats.dominantShare * 100).toFixed(1)}%`,
    );
  }
  return { file, ...stats };
}

/** Result of the in-host mocha suites (see test/integration/index.ts). */
interface IntegrationResult {
  passed: number;
  failed: number;
  pending: number;
  failures: Array<{ title: string; error: string; stack?: string }>;
  tests: Array<{ title: string; state: string }>;
}

/** Runs the in-host integration suites from the command palette and returns their result. */
export async function runIntegrationSuites(session: VsCodeSession, timeoutMs = 180_000): Promise<IntegrationResult> {
  rmSync(session.resultFile, { force: true });
  await runCommand(session.page, INTEGRATION_COMMAND_TITLE, 60_000);
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(session.resultFile)) {
    if (Date.now() > deadline) {
      throw new Error(
        `no integration result in ${session.resultFile} after ${timeoutMs} ms\n--- server output ---\n${session.server.output()}`,
      );
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return JSON.parse(readFileSync(session.resultFile, 'utf8')) as IntegrationResult;
}
