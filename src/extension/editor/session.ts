/**
 * One editor panel in VS Code: the thin adapter between the webview panel and the vscode-free
 * `EditorController` (controller.ts), which holds the seam's logic. This file only does what
 * needs the VS Code API: posting to the webview, visibility and configuration events, settings,
 * input boxes and quick picks, workbench commands and opening a line as text.
 */
import * as vscode from 'vscode';
import { notify } from '../safeOutput';
import { basename } from 'node:path';
import type { EditorViewState } from '../../shared/editorProtocol';
import type { ConversationDocument } from './conversationDocument';
import { readEditorSettings } from './settings';
import { askAnnotatorId, annotationSettingsPicker, useTaxonomy } from './annotationSettings';
import { convertToJsonl } from './convert';
import { trace } from './trace';
import { EditorController, type EditorPort, type WorkbenchCommand } from './controller';

/** The editor a converted file opens in (VIEW_TYPE in provider.ts; *.conv.jsonl is its default). */
const CONVERTED_VIEW_TYPE = 'simlens.conversations';

/** VS Code will not open files above this size as text documents. */
const TEXT_EDITOR_LIMIT = 50 * 1024 * 1024;

const WORKBENCH_COMMANDS: Record<WorkbenchCommand, string> = {
  undo: 'undo',
  redo: 'redo',
  save: 'workbench.action.files.save',
  goToConversation: 'simlens.goToConversation',
  checkInvariants: 'simlens.checkInvariants',
};

export class EditorSession implements vscode.Disposable {
  readonly controller: EditorController;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    readonly document: ConversationDocument,
    readonly panel: vscode.WebviewPanel,
    log: vscode.LogOutputChannel,
  ) {
    const uri = document.uri;
    const port: EditorPort = {
      postToPage: (message) => void panel.webview.postMessage(message),
      log,
      readSettings: () => readEditorSettings(uri),
      askAnnotatorId: () => askAnnotatorId(''),
      openAnnotationSettings: (annotator, taxonomy) => annotationSettingsPicker(uri, annotator, taxonomy),
      useTaxonomy: (name) => useTaxonomy(uri, name),
      runCommand: async (command) => {
        // The invariants of this file, in a metric panel whose violations link back here.
        if (command === 'checkInvariants') await vscode.commands.executeCommand(WORKBENCH_COMMANDS[command], uri);
        else await vscode.commands.executeCommand(WORKBENCH_COMMANDS[command]);
      },
      fork: async (args) => {
        await vscode.commands.executeCommand('simlens.forkFromHere', args);
      },
      openLineAsText: (line) => this.openLineAsText(line),
      convert: async () => {
        const conversion = await convertToJsonl(uri.fsPath, basename(uri.fsPath));
        log.info(`Converted to ${conversion.target}\n${conversion.summary.text}`);
        await vscode.commands.executeCommand(
          'vscode.openWith',
          vscode.Uri.file(conversion.target),
          CONVERTED_VIEW_TYPE,
        );
      },
      rebuildHtml: () => this.onHtmlRebuild?.(),
      saveViewState: (state) => this.onViewState?.(state),
    };
    this.controller = new EditorController(document, port);
    this.disposables.push(
      panel.webview.onDidReceiveMessage((raw: unknown) => void this.controller.receive(raw)),
      panel.onDidDispose(() => this.controller.dispose()),
      panel.onDidChangeViewState(() => {
        // A hidden webview is torn down; it will say "ready" again when shown.
        if (!panel.visible) this.controller.pageHidden();
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('simlens', uri)) void this.controller.settingsChanged();
      }),
    );
    trace(() => `session for ${uri.toString()}`);
  }

  /** Moves the view to a conversation (and turn), now or as soon as the webview is ready. */
  reveal(line: number, turn?: number): void {
    this.controller.reveal(line, turn);
  }

  private async openLineAsText(line: number): Promise<void> {
    const model = this.document.model;
    const read = await model.readConversation(line);
    const where = `${basename(this.document.uri.fsPath)}:${line + 1}`;
    if (model.index.size > TEXT_EDITOR_LIMIT) {
      void notify.info(
        `${where} — ${read.error ?? 'valid conversation'}. The file is larger than 50 MB, which VS Code does not open as text; use "simlens validate" on the command line or open it in another editor.`,
      );
      return;
    }
    const column = read.error ? Math.max(0, Number(/^\d+:(\d+)/.exec(read.error)?.[1] ?? 1) - 1) : 0;
    const doc = await vscode.workspace.openTextDocument(this.document.uri);
    const pos = new vscode.Position(line, Math.min(column, doc.lineAt(Math.min(line, doc.lineCount - 1)).text.length));
    await vscode.window.showTextDocument(doc, { selection: new vscode.Range(pos, pos), preview: false });
  }

  /** Set by the provider: re-renders the HTML (CSP change). */
  onHtmlRebuild: (() => void) | undefined;
  /** Keeps the page's view state for the next time this file is opened (set by the provider). */
  onViewState: ((state: EditorViewState) => void) | undefined;

  dispose(): void {
    this.controller.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
