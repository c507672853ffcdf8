/**
 * VS Code shell: activation wires each area's thin registration function. Each area lives in its
 * own module under src/extension/ and keeps its logic in src/core. Activation loads only the
 * conversation editor; the other areas (dist/features.js) load on their first command or restored
 * panel, and the language client (dist/languageClient.js) when the first conversation document
 * opens, or once the first conversation editor's page is up (src/extension/lazy.ts).
 */
import * as vscode from 'vscode';
import { registerTestHooks } from './testHooks';
import { registerConversationEditor } from './editor';
import { registerConvertCommand } from './convertCommand';
import { lazyFeatures, startLanguageClientOnFirstConversation } from './lazy';
import { safeLogChannel } from './safeOutput';

export function activate(context: vscode.ExtensionContext): void {
  const channel = vscode.window.createOutputChannel('SimLens', { log: true });
  context.subscriptions.push(channel);
  const output = safeLogChannel(channel);
  output.info(`SimLens activated (VS Code ${vscode.version}, Node ${process.version})`);
  // Area registrations are added below, one line each.
  registerTestHooks(context, output);
  const editor = registerConversationEditor(context, output);
  registerConvertCommand(context, output);
  lazyFeatures(context, output);
  startLanguageClientOnFirstConversation(context, output, editor.onDidPageReady);
}

export function deactivate(): void {
  // Nothing to release: every resource is owned by context.subscriptions.
}
