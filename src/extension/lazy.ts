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
 * Starts the language client (dist/languageClient.js) when the first `.jsonl` file is open, as a
 * text document or in a tab (the SimLens editor, or a file too large for VS Code to sync), and
 * not before.
 */
export function startLanguageClientOnFirstConversation(
  context: vscode.ExtensionContext,
  output: vscode.LogOutputChannel,
): void {
  let started = false;
  const watchers: vscode.Disposable[] = [];
  const start = (): void => {
    if (started) return;
    started = true;
    for (const w of watchers.splice(0)) w.dispose();
    const bundle = requireBundle<{ registerLanguageClient: typeof registerLanguageClient }>(context, 'languageClient');
    bundle.registerLanguageClient(context, output);
    output.info('SimLens language server starting (first conversation document open)');
  };
  const anyOpen = (): boolean =>
    vscode.workspace.textDocuments.some((d) => isConversationUri(d.uri)) ||
    vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => isConversationUri(tabUri(t))));
  if (anyOpen()) {
    start();
    return;
  }
  watchers.push(
    vscode.workspace.onDidOpenTextDocument((d) => {
      if (isConversationUri(d.uri)) start();
    }),
    vscode.window.tabGroups.onDidChangeTabs((e) => {
      if ([...e.opened, ...e.changed].some((t) => isConversationUri(tabUri(t)))) start();
    }),
  );
  context.subscriptions.push({ dispose: () => watchers.splice(0).forEach((w) => w.dispose()) });
}
