/**
 * The conversation custom editor (viewType `simlens.conversations`): a `CustomEditorProvider`
 * with its own document, because VS Code does not give files over 50 MB to extensions as text.
 */
import { parseViewState, type EditorViewState } from '../../shared/editorProtocol';
import * as vscode from 'vscode';
import { notify } from '../safeOutput';
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import { ConversationDocumentModel } from '../../core/document';
import { ConversationDocument } from './conversationDocument';
import { importPreview } from './convert';
import { indexGate } from './indexGate';
import { editorHtml, editorResourceRoots } from './html';
import { EditorSession } from './session';
import { allowRemoteImages } from './settings';
import { trace } from './trace';

/** The default editor for *.conv.jsonl and *.sim.jsonl. */
export const VIEW_TYPE = 'simlens.conversations';
/** The same editor offered through "Open With…" for any *.jsonl. */
export const VIEW_TYPE_ANY_JSONL = 'simlens.conversationsAnyJsonl';

/**
 * State shared by the providers of both view types, so commands find the active editor whichever
 * view type opened it. Keys are the document URI strings.
 */
/** How long the page's HTML waits for its boot data (EditorBoot) before it is set without it. */
const BOOT_WAIT_MS = 60;

export class EditorRegistry {
  /** Per file: the session of its most recently active editor (reveals go there). */
  readonly sessions = new Map<string, EditorSession>();
  /** Per file: the sessions of all its open editors (a file can be open in several groups). */
  readonly panels = new Map<string, Set<EditorSession>>();
  readonly documents = new Map<string, ConversationDocument>();
  /** Deep-link targets waiting for their editor to open. */
  readonly pendingReveals = new Map<string, { id?: string; line?: number; turn?: number }>();
  activeUri: string | undefined;
  /** Fires when an editor page says "ready" (its first conversation is drawn or on its way). */
  readonly pageReady = new vscode.EventEmitter<vscode.Uri>();
}

export class ConversationEditorProvider implements vscode.CustomEditorProvider<ConversationDocument> {
  private readonly changeEmitter = new vscode.EventEmitter<vscode.CustomDocumentEditEvent<ConversationDocument>>();
  readonly onDidChangeCustomDocument = this.changeEmitter.event;
  private readonly sessions: Map<string, EditorSession>;
  private readonly documents: Map<string, ConversationDocument>;
  private readonly pendingReveals: Map<string, { id?: string; line?: number; turn?: number }>;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    private readonly registry: EditorRegistry,
    readonly viewType: string = VIEW_TYPE,
  ) {
    this.sessions = registry.sessions;
    this.documents = registry.documents;
    this.pendingReveals = registry.pendingReveals;
  }

  private get activeUri(): string | undefined {
    return this.registry.activeUri;
  }

  private set activeUri(value: string | undefined) {
    this.registry.activeUri = value;
  }

  async openCustomDocument(
    uri: vscode.Uri,
    openContext: vscode.CustomDocumentOpenContext,
    token: vscode.CancellationToken,
  ): Promise<ConversationDocument> {
    trace(() => `openCustomDocument ${this.viewType} ${uri.toString()} backup=${openContext.backupId}`);
    if (uri.scheme !== 'file') {
      throw new Error(`SimLens opens conversation files from disk only; ${uri.toString()} is not a local file`);
    }
    const abort = new AbortController();
    const sub = token.onCancellationRequested(() => abort.abort());
    try {
      let model: ConversationDocumentModel | Promise<ConversationDocumentModel>;
      let restored = false;
      // Not conversation JSONL but a format SimLens imports: the editor offers the conversion.
      // (Sniffed while the webview is created and the file indexed: a conversation JSONL file pays
      // only for reading 64 KB, and the page's HTML does not wait for it.)
      const importablePending = openContext.backupId ? Promise.resolve(undefined) : importPreview(uri.fsPath);
      if (openContext.backupId) {
        const backupUri = vscode.Uri.parse(openContext.backupId);
        const text = Buffer.from(await vscode.workspace.fs.readFile(backupUri)).toString('utf8');
        const result = await ConversationDocumentModel.restore(uri.fsPath, text, { signal: abort.signal });
        model = result.doc;
        restored = true;
        if (result.lost.length) {
          void notify.warning(
            `${basename(uri.fsPath)}: unsaved annotations for ${result.lost.length} conversation(s) could not be restored ` +
              `because the file no longer contains them.`,
          );
        }
      } else {
        // Indexed in the background: VS Code creates the webview (and it shows line 1) meanwhile;
        // the document's `ready` gates everything that needs the index. Closing the editor cancels it.
        const indexing = new AbortController();
        model = this.indexStart(uri, indexing.signal).then(() =>
          ConversationDocumentModel.open(uri.fsPath, { signal: indexing.signal }),
        );
        showIndexingProgress(basename(uri.fsPath), model);
        abort.signal.addEventListener('abort', () => indexing.abort());
        const doc = this.track(new ConversationDocument(uri, model, false, this.log, importablePending));
        doc.onDidDispose(() => indexing.abort());
        // Line 1 too, for the page's HTML (EditorBoot): read while VS Code creates the webview.
        void doc.firstConversation();
        return doc;
      }
      const importable = await importablePending;
      return this.track(new ConversationDocument(uri, model, restored, this.log, importable));
    } finally {
      sub.dispose();
    }
  }

  /** When a file's index may start (see `indexGate`): after its page's first render when the file is large. */
  private indexStart(uri: vscode.Uri, signal: AbortSignal): Promise<void> {
    let size = 0;
    try {
      size = statSync(uri.fsPath).size;
    } catch {
      // missing or unreadable: the open reports it
    }
    const key = uri.toString();
    return indexGate({
      size,
      signal,
      onPageReady: (listener) => this.registry.pageReady.event((u) => u.toString() === key && listener()),
      onWait: () => trace(() => `index of ${basename(uri.fsPath)} (${size} bytes) waits for the page's first render`),
    });
  }

  /** Registers a new document and forwards its edit events to VS Code. */
  private track(doc: ConversationDocument): ConversationDocument {
    const uri = doc.uri;
    this.documents.set(uri.toString(), doc);
    doc.onDidChange((e) => {
      trace(() => `edit event via ${this.viewType}: ${e.label}`);
      this.changeEmitter.fire(e);
    });
    doc.onDidDispose(() => this.documents.delete(uri.toString()));
    return doc;
  }

  async resolveCustomEditor(document: ConversationDocument, panel: vscode.WebviewPanel): Promise<void> {
    trace(() => `resolveCustomEditor ${this.viewType} ${document.uri.toString()}`);
    const extensionUri = this.context.extensionUri;
    const key = document.uri.toString();
    panel.webview.options = { enableScripts: true, localResourceRoots: editorResourceRoots(extensionUri) };
    // The page's HTML needs only the image policy, read synchronously: nothing delays it.
    // The view state of this file from last time (conversation, mode, filters, cursor, ...), per file.
    const stateKey = `simlens.editor.viewState:${key}`;
    const savedView = (): EditorViewState | undefined => {
      const parsed = parseViewState(this.context.workspaceState.get(stateKey));
      if (parsed && !parsed.ok) {
        // Another version, or not a state at all: open fresh, say why, and forget it.
        this.log.info(`${basename(document.uri.fsPath)}: ${parsed.reason}`);
        void this.context.workspaceState.update(stateKey, undefined);
      }
      return parsed?.ok ? parsed.state : undefined;
    };
    // The page's first conversation goes in its HTML when the host has it at hand (the settings, the
    // format sniff and line 1 are read ahead while VS Code sets up the webview): the first text is then
    // drawn without a round trip through the extension host. Waited for at most BOOT_WAIT_MS; the page
    // asks by message for anything the HTML lacks.
    let disposed = false;
    const render = async () => {
      const view = savedView();
      const boot = await Promise.race([
        session.controller.boot(view),
        new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), BOOT_WAIT_MS)),
      ]);
      if (disposed) return;
      const html = editorHtml(panel.webview, extensionUri, allowRemoteImages(document.uri), view, boot);
      panel.webview.html = html;
      trace(
        () =>
          `html set (${html.length} characters, boot data ${boot ? (boot.first ? 'with' : 'without') + ' the first conversation' : 'not ready'})`,
      );
    };
    const session = new EditorSession(document, panel, this.log);
    const readySub = panel.webview.onDidReceiveMessage((raw: unknown) => {
      if ((raw as { type?: unknown } | null)?.type === 'ready') this.registry.pageReady.fire(document.uri);
    });
    session.onHtmlRebuild = () => void render();
    session.onViewState = (state) => void this.context.workspaceState.update(stateKey, state);
    const panels = this.registry.panels.get(key) ?? new Set<EditorSession>();
    this.registry.panels.set(key, panels.add(session));
    this.sessions.set(key, session);
    this.activeUri = key;
    panel.onDidChangeViewState(() => {
      if (!panel.active) return;
      this.activeUri = key;
      this.sessions.set(key, session);
    });
    panel.onDidDispose(() => {
      disposed = true;
      readySub.dispose();
      session.dispose();
      panels.delete(session);
      if (panels.size === 0) this.registry.panels.delete(key);
      if (this.sessions.get(key) === session) {
        // Another editor of the same file takes over, if there is one.
        const other = [...panels].pop();
        if (other) this.sessions.set(key, other);
        else this.sessions.delete(key);
      }
      if (this.activeUri === key && !panels.size) this.activeUri = undefined;
    });
    await render();
    const pending = this.pendingReveals.get(key);
    if (pending) {
      this.pendingReveals.delete(key);
      await this.revealIn(document, pending);
    }
  }

  saveCustomDocument(document: ConversationDocument): Thenable<void> {
    trace(() => `save ${document.uri.toString()}`);
    return document.save();
  }

  saveCustomDocumentAs(document: ConversationDocument, destination: vscode.Uri): Thenable<void> {
    return document.saveAs(destination);
  }

  revertCustomDocument(document: ConversationDocument): Thenable<void> {
    trace(() => `revert ${document.uri.toString()}`);
    return document.revert();
  }

  backupCustomDocument(
    document: ConversationDocument,
    context: vscode.CustomDocumentBackupContext,
  ): Thenable<vscode.CustomDocumentBackup> {
    trace(() => `backup ${document.uri.toString()}`);
    return document.backup(context.destination);
  }

  /** An editor page said "ready": its first conversation is drawn from its HTML, or asked for. */
  get onDidPageReady(): vscode.Event<vscode.Uri> {
    return this.registry.pageReady.event;
  }

  /** The document of the active (or only) conversation editor. */
  activeDocument(): ConversationDocument | undefined {
    if (this.activeUri) return this.documents.get(this.activeUri);
    return this.documents.size === 1 ? [...this.documents.values()][0] : undefined;
  }

  /** Moves an open editor to a conversation by id or line; remembers it if the editor is not open yet. */
  async reveal(uri: vscode.Uri, target: { id?: string; line?: number; turn?: number }): Promise<boolean> {
    const doc = this.documents.get(uri.toString());
    if (!doc || !this.sessions.has(uri.toString())) {
      this.pendingReveals.set(uri.toString(), target);
      return true;
    }
    return this.revealIn(doc, target);
  }

  private async revealIn(
    doc: ConversationDocument,
    target: { id?: string; line?: number; turn?: number },
  ): Promise<boolean> {
    await doc.ready;
    let line = target.line;
    if (target.id !== undefined) {
      line = doc.model.summaries.lineOfId(target.id);
      if (line === undefined) {
        await doc.ensureSummaries();
        line = doc.model.summaries.lineOfId(target.id);
      }
      if (line === undefined) {
        // A line a running simulation appended a moment ago: read the file now instead of after the watcher's delay.
        await doc.onDiskChange();
        await doc.ensureSummaries();
        line = doc.model.summaries.lineOfId(target.id);
      }
      if (line === undefined) {
        void notify.warning(`No conversation with id "${target.id}" in ${basename(doc.uri.fsPath)}.`);
        return false;
      }
    }
    if (line === undefined || line < 0 || line >= doc.model.lineCount) return false;
    const session = this.sessions.get(doc.uri.toString());
    session?.panel.reveal(undefined, false);
    session?.reveal(line, target.turn);
    return true;
  }

  /** Test hook: the open document for a URI. */
  documentFor(uri: vscode.Uri): ConversationDocument | undefined {
    return this.documents.get(uri.toString());
  }
}

/** How long indexing runs before the window's status bar says so (most files index faster). */
const INDEXING_PROGRESS_AFTER_MS = 500;

/**
 * "Indexing <file>" in the window's status bar while a file is indexed, once it has taken
 * INDEXING_PROGRESS_AFTER_MS: a progress item shown and hidden again within the first render costs
 * the workbench a status-bar update while it is creating the editor's webview.
 */
function showIndexingProgress(name: string, indexed: Promise<unknown>): void {
  const timer = setTimeout(
    () =>
      void vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `Indexing ${name}` }, () =>
        indexed.catch(() => undefined),
      ),
    INDEXING_PROGRESS_AFTER_MS,
  );
  const stop = () => clearTimeout(timer);
  indexed.then(stop, stop);
}
