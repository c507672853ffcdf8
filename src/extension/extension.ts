/**
 * VS Code shell: activation wires each area's thin registration function. Each area lives in its
 * own module under src/extension/ and keeps its logic in src/core.
 */
import * as vscode from 'vscode';
import { registerTestHooks } from './testHooks';
import { registerLanguageClient } from './languageClient';
import { registerConversationEditor } from './editor';
import { registerLlm } from './llm';
import { registerSimulation } from './simulation';
import { registerFork } from './fork';
import { registerPlay } from './play';
import { registerMetricPanels } from './panels';
import { registerRuns } from './runs';
import { registerCompareRuns } from './compare';
import { safeLogChannel } from './safeOutput';

export function activate(context: vscode.ExtensionContext): void {
  const channel = vscode.window.createOutputChannel('SimLens', { log: true });
  context.subscriptions.push(channel);
  const output = safeLogChannel(channel);
  output.info(`SimLens activated (VS Code ${vscode.version}, Node ${process.version})`);
  // Area registrations are added below, one line each.
  registerTestHooks(context, output);
  registerLanguageClient(context, output);
  registerConversationEditor(context, output);
  registerLlm(context, output);
  registerSimulation(context, output);
  registerFork(context, output);
  registerPlay(context, output);
  registerMetricPanels(context, output);
  registerRuns(context, output);
  registerCompareRuns(context, output);
}

export function deactivate(): void {
  // Nothing to release: every resource is owned by context.subscriptions.
}
