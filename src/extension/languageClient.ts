/**
 * Starts the SimLens language server for JSONL files and keeps a status bar item with the
 * active file's problem counts. Files VS Code does not sync to extensions (over 50 MB) are
 * validated by the server from disk, with progress shown in the same status bar item.
 * Entry of dist/languageClient.js, loaded when the first conversation document opens
 * (src/extension/lazy.ts).
 */
import * as vscode from 'vscode';
import {
  LanguageClient,
  TransportKind,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import { stat } from 'node:fs/promises';

/** VS Code does not give files above this size to extensions as text documents. */
const SYNC_LIMIT_BYTES = 50 * 1024 * 1024;

export function registerLanguageClient(
  context: vscode.ExtensionContext,
  output: vscode.LogOutputChannel,
): LanguageClient {
  const serverModule = context.asAbsolutePath('dist/server.js');
  const serverOptions: ServerOptions = {
    run: { module: serverModule, transport: TransportKind.ipc },
    debug: {
      module: serverModule,
      transport: TransportKind.ipc,
      options: { execArgv: ['--nolazy', '--inspect=6019'] },
    },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file', pattern: '**/*.jsonl' }],
    diagnosticCollectionName: 'simlens',
    outputChannel: output,
  };
  const client = new LanguageClient('simlens', 'SimLens Language Server', serverOptions, clientOptions);

  const status = vscode.window.createStatusBarItem('simlens.problems', vscode.StatusBarAlignment.Left, 50);
  status.name = 'SimLens validation';
  status.command = 'workbench.actions.view.problems';
  context.subscriptions.push(status);

  const progress = new Map<string, number>();
  const diskValidated = new Set<string>();

  const activeUri = (): vscode.Uri | undefined => {
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    const input = tab?.input;
    if (input instanceof vscode.TabInputText) return input.uri;
    if (input instanceof vscode.TabInputCustom) return input.uri;
    return vscode.window.activeTextEditor?.document.uri;
  };

  const refresh = (): void => {
    const uri = activeUri();
    if (!uri || !uri.path.endsWith('.jsonl')) {
      status.hide();
      return;
    }
    const pct = progress.get(uri.toString());
    if (pct !== undefined) {
      status.text = `$(sync~spin) SimLens: validating ${pct}%`;
      status.tooltip = `Validating ${uri.fsPath} from disk`;
      status.show();
      return;
    }
    const diags = vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'simlens');
    const errors = diags.filter((d) => d.severity === vscode.DiagnosticSeverity.Error).length;
    const warnings = diags.length - errors;
    status.text = errors || warnings ? `$(error) ${errors} $(warning) ${warnings} SimLens` : '$(check) SimLens';
    status.tooltip =
      errors || warnings
        ? `${errors} errors and ${warnings} warnings in ${vscode.workspace.asRelativePath(uri)}`
        : 'No problems found by SimLens';
    status.show();
  };

  /** Asks the server to validate a file VS Code did not sync (too large), once per file version. */
  const validateLargeFile = async (uri: vscode.Uri): Promise<void> => {
    if (uri.scheme !== 'file' || !uri.path.endsWith('.jsonl')) return;
    if (vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString())) return;
    let size: number;
    let mtime: number;
    try {
      const st = await stat(uri.fsPath);
      size = st.size;
      mtime = st.mtimeMs;
    } catch {
      return;
    }
    if (size < SYNC_LIMIT_BYTES) return;
    const key = `${uri.toString()}@${mtime}`;
    if (diskValidated.has(key)) return;
    diskValidated.add(key);
    progress.set(uri.toString(), 0);
    refresh();
    try {
      const result = await client.sendRequest<{
        lines: number;
        conversations: number;
        errors: number;
        warnings: number;
      }>('simlens/validateFromDisk', { uri: uri.toString() });
      output.info(
        `Validated ${uri.fsPath} from disk: ${result.lines} lines, ${result.conversations} conversations, ${result.errors} errors, ${result.warnings} warnings`,
      );
    } catch (err) {
      output.error(`Validating ${uri.fsPath} from disk failed: ${(err as Error).message}`);
    } finally {
      progress.delete(uri.toString());
      refresh();
    }
  };

  context.subscriptions.push(
    vscode.languages.onDidChangeDiagnostics(refresh),
    vscode.window.tabGroups.onDidChangeTabs((e) => {
      for (const tab of [...e.opened, ...e.changed]) {
        if (tab.input instanceof vscode.TabInputText) void validateLargeFile(tab.input.uri);
      }
      refresh();
    }),
    vscode.window.onDidChangeActiveTextEditor(refresh),
  );

  void client.start().then(() => {
    client.onNotification('simlens/validationProgress', (p: { uri: string; done: number; total: number }) => {
      progress.set(p.uri, p.total > 0 ? Math.floor((100 * p.done) / p.total) : 0);
      refresh();
    });
    for (const group of vscode.window.tabGroups.all) {
      for (const tab of group.tabs) if (tab.input instanceof vscode.TabInputText) void validateLargeFile(tab.input.uri);
    }
    refresh();
  });
  context.subscriptions.push({ dispose: () => void client.stop() });
  return client;
}
