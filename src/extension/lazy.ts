/**
 * Parts of the extension bundled apart from dist/extension.js and loaded on first use, so that
 * activation reads only what the conversation editor needs. `dist/features.js` holds the
 * simulation, play, fork, LLM, metric panel, run and compare areas (the simulators, the OpenAI
 * client and the report code); `dist/languageClient.js` holds the language client, started when the
 * first conversation document opens. scripts/build.mjs builds both; in a unit test (tsx, no
 * bundle) nothing here runs.
 */
import * as vscode from 'vscode';
import { createRequire } from 'node:module';
import type { FeatureApi } from './features';
import type { registerLanguageClient } from './languageClient';
import { PANEL_VIEW_TYPE } from '../shared/panelViewType';
import { FEATURE_COMMANDS } from './featureCommands';

/** Requires a sibling bundle of dist/extension.js by name (a run-time path: esbuild leaves it alone). */
function requireBundle<T>(context: vscode.ExtensionContext, name: string): T {
  const load = createRequire(__filename);
  return load(context.asAbsolutePath(`dist/${name}.js`)) as T;
}

/**
 * Registers a stub for each feature command and the metric panels' serializer (VS Code needs it
 * registered during activation to restore a panel kept from the last session), and returns the
 * loader of dist/features.js. The first call loads the bundle once and registers its areas; later
 * calls return the same API.
 */
export function lazyFeatures(context: vscode.ExtensionContext, output: vscode.LogOutputChannel): () => FeatureApi {
  let api: FeatureApi | undefined;
  const stubs: vscode.Disposable[] = [];
  const load = (): FeatureApi => {
    if (api) return api;
    const started = Date.now();
    // The stubs go first: the bundle registers the same ids, and VS Code refuses a second registration.
    for (const stub of stubs.splice(0)) stub.dispose();
    api = requireBundle<typeof import('./features')>(context, 'features').registerFeatures(context, output);
    output.info(`SimLens features loaded in ${Date.now() - started} ms`);
    return api;
  };
  for (const id of FEATURE_COMMANDS) {
    const stub = vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      load();
      return vscode.commands.executeCommand(id, ...args);
    });
    stubs.push(stub);
  }
  context.subscriptions.push(
    vscode.window.registerWebviewPanelSerializer(PANEL_VIEW_TYPE, {
      async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown) {
        load().reviveMetricPanel(panel, state);
      },
    }),
  );
  context.subscriptions.push({ dispose: () => stubs.splice(0).forEach((s) => s.dispose()) });
  return load;
}

/** A file the language server checks: any `.jsonl` file on disk (its document selector). */
function isConversationUri(uri: vscode.Uri | undefined): boolean {
  return uri !== undefined && uri.scheme === 'file' && uri.path.endsWith('.jsonl');
}

function tabUri(tab: vscode.Tab): vscode.Uri | undefined {
  const input = tab.input;
  if (input instanceof vscode.TabInputText || input instanceof vscode.TabInputCustom) return input.uri;
  return undefined;
}

/**
 * How long after the first conversation editor's page says "ready" the language client starts: the
 * client's bundle, the server process and its validation of the file (from disk, for files over
 * 50 MB) then run after the page has painted its first conversation, not beside it on two cores.
 */
const LANGUAGE_CLIENT_AFTER_PAGE_MS = 1500;
/** A conversation editor whose page never says "ready" (hidden, failed) does not hold the client back longer. */
const LANGUAGE_CLIENT_PAGE_WAIT_MS = 10_000;

/**
 * Starts the language client (dist/languageClient.js) when the first `.jsonl` file is open, and not
 * before: at once for a text document (or a tab of one); for the SimLens editor (a custom tab,
 * e.g. a file too large for VS Code to sync) after its page said "ready" (`pageReady`), so the
 * first conversation is on screen before the server starts.
 */
export function startLanguageClientOnFirstConversation(
  context: vscode.ExtensionContext,
  output: vscode.LogOutputChannel,
  pageReady: vscode.Event<vscode.Uri>,
): void {
  let started = false;
  let deferred = false;
  const watchers: vscode.Disposable[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, f: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      f();
    }, ms);
    timers.add(t);
  };
  const start = (why: string): void => {
    if (started) return;
    started = true;
    for (const w of watchers.splice(0)) w.dispose();
    for (const t of timers) clearTimeout(t);
    timers.clear();
    const bundle = requireBundle<{ registerLanguageClient: typeof registerLanguageClient }>(context, 'languageClient');
    bundle.registerLanguageClient(context, output);
    output.info(`SimLens language server starting (${why})`);
  };
  /** A conversation editor opened: start once its page is up (or after LANGUAGE_CLIENT_PAGE_WAIT_MS). */
  const startAfterPage = (): void => {
    if (started || deferred) return;
    deferred = true;
    const sub = pageReady(() => {
      sub.dispose();
      later(LANGUAGE_CLIENT_AFTER_PAGE_MS, () => start('after the first conversation editor page'));
    });
    watchers.push(sub);
    later(LANGUAGE_CLIENT_PAGE_WAIT_MS, () => start('a conversation editor is open'));
  };
  const isTextTab = (t: vscode.Tab) => t.input instanceof vscode.TabInputText && isConversationUri(t.input.uri);
  const isConversationTab = (t: vscode.Tab) => isConversationUri(tabUri(t));
  const tabs = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs);
  if (vscode.workspace.textDocuments.some((d) => isConversationUri(d.uri)) || tabs().some(isTextTab)) {
    start('a conversation document is open');
    return;
  }
  watchers.push(
    vscode.workspace.onDidOpenTextDocument((d) => {
      if (isConversationUri(d.uri)) start('a conversation document opened');
    }),
    vscode.window.tabGroups.onDidChangeTabs((e) => {
      const changed = [...e.opened, ...e.changed];
      if (changed.some(isTextTab)) start('a conversation document opened');
      else if (changed.some(isConversationTab)) startAfterPage();
    }),
  );
  if (tabs().some(isConversationTab)) startAfterPage();
  context.subscriptions.push({
    dispose: () => {
      watchers.splice(0).forEach((w) => w.dispose());
      for (const t of timers) clearTimeout(t);
    },
  });
}
