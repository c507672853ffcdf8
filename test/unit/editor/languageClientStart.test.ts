/**
 * When the language client starts (src/extension/lazy.ts): at once for a `.jsonl` text document; for
 * a file open in the conversation editor only after its page said "ready" (plus a delay), so the
 * client's bundle and the server process do not compete with the editor's first render; and at the
 * latest 10 s after the tab opened. Runs lazy.ts against the recording stand-in for `vscode` and a
 * stand-in dist/languageClient.js that counts its starts; node's mock timers drive the delays.
 */
import { after, before, beforeEach, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { scratchDir } from '../../support/scratch';

const requireHere = createRequire(__filename);
const { createFakeVscode, installFakeVscode } = requireHere('../../support/fakeVscode.cjs');

type Listener<T> = (value: T) => void;
/** A VS Code style event the test can fire. */
function emitter<T>() {
  const listeners = new Set<Listener<T>>();
  const event = (l: Listener<T>) => {
    listeners.add(l);
    return { dispose: () => listeners.delete(l) };
  };
  return { event, fire: (v: T) => [...listeners].forEach((l) => l(v)), count: () => listeners.size };
}

// One stand-in for the whole file: lazy.ts is loaded once and keeps the `vscode` it was loaded with.
const fake = createFakeVscode();
let uninstall: () => void = () => undefined;
const starts = () => (globalThis as { __simlensLanguageClientStarts?: number }).__simlensLanguageClientStarts ?? 0;

before(() => {
  const dir = scratchDir('simlens-lazy-client-');
  mkdirSync(path.join(dir, 'dist'));
  writeFileSync(
    path.join(dir, 'dist', 'languageClient.js'),
    'exports.registerLanguageClient = () => { globalThis.__simlensLanguageClientStarts = (globalThis.__simlensLanguageClientStarts || 0) + 1; };\n',
  );
  fake.context.extensionPath = dir;
  uninstall = installFakeVscode(fake);
});
after(() => uninstall());
beforeEach(() => {
  (globalThis as { __simlensLanguageClientStarts?: number }).__simlensLanguageClientStarts = 0;
});

function setUp(t: TestContext) {
  const tabs = emitter<{ opened: unknown[]; changed: unknown[]; closed: unknown[] }>();
  const textOpened = emitter<{ uri: unknown }>();
  const pageReady = emitter<unknown>();
  fake.vscode.window.tabGroups = { all: [], onDidChangeTabs: tabs.event, activeTabGroup: { activeTab: undefined } };
  fake.vscode.workspace.onDidOpenTextDocument = textOpened.event;
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const lazy = requireHere('../../../src/extension/lazy.ts') as typeof import('../../../src/extension/lazy');
  const output = fake.vscode.window.createOutputChannel('SimLens', { log: true });
  lazy.startLanguageClientOnFirstConversation(
    fake.context,
    output,
    pageReady.event as Parameters<typeof lazy.startLanguageClientOnFirstConversation>[2],
  );
  const uri = fake.vscode.Uri.file('/data/run.sim.jsonl');
  const customTab = () => {
    const input = new fake.vscode.TabInputCustom();
    input.uri = uri;
    return { input };
  };
  const textTab = () => {
    const input = new fake.vscode.TabInputText();
    input.uri = uri;
    return { input };
  };
  return { tabs, textOpened, pageReady, uri, customTab, textTab, log: fake.log as string[] };
}

test('a conversation editor tab: the client starts 1.5 s after its page says ready, once', (t) => {
  const s = setUp(t);
  s.tabs.fire({ opened: [s.customTab()], changed: [], closed: [] });
  t.mock.timers.tick(5_000);
  assert.equal(starts(), 0, 'not while the editor page loads');
  s.pageReady.fire(s.uri);
  t.mock.timers.tick(1_499);
  assert.equal(starts(), 0, 'not right after "ready" (the page paints then)');
  t.mock.timers.tick(1);
  assert.equal(starts(), 1);
  // Later tabs, pages and the fallback timer start nothing more.
  s.tabs.fire({ opened: [s.customTab()], changed: [], closed: [] });
  s.pageReady.fire(s.uri);
  t.mock.timers.tick(20_000);
  assert.equal(starts(), 1);
  assert.equal(s.pageReady.count(), 0, 'no listener left');
  assert.ok(s.log.some((l) => /language server starting \(after the first conversation editor page\)/.test(l)));
});

test('a conversation editor whose page never says ready: the client starts 10 s after the tab opened', (t) => {
  const s = setUp(t);
  s.tabs.fire({ opened: [s.customTab()], changed: [], closed: [] });
  t.mock.timers.tick(9_999);
  assert.equal(starts(), 0);
  t.mock.timers.tick(1);
  assert.equal(starts(), 1);
});

test('a .jsonl text document: the client starts at once', (t) => {
  const s = setUp(t);
  s.textOpened.fire({ uri: s.uri });
  assert.equal(starts(), 1);
});

test('a .jsonl text tab: the client starts at once', (t) => {
  const s = setUp(t);
  s.tabs.fire({ opened: [s.textTab()], changed: [], closed: [] });
  assert.equal(starts(), 1);
});

test('files that are not .jsonl start nothing', (t) => {
  const s = setUp(t);
  s.textOpened.fire({ uri: { scheme: 'file', path: '/data/notes.md' } });
  s.pageReady.fire(s.uri);
  t.mock.timers.tick(20_000);
  assert.equal(starts(), 0);
});
