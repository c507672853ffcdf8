/**
 * VS Code's view of a conversation file: wraps the pure `ConversationDocumentModel` (core) with
 * edit events for undo/redo, dirty tracking, a file watcher and notifications to the webview.
 */
import * as vscode from 'vscode';
import { basename, dirname } from 'node:path';
import { ConversationDocumentModel, editNotice, type AnnotateInput, type AnnotationEdit } from '../../core/document';
import type { ImportPreview } from '../../shared/editorProtocol';
import { trace } from './trace';

/** Something that shows the document (the webview session) and must hear about changes. */
export interface DocumentListener {
  annotationsChanged(line: number, requestId?: number): void;
  reloaded(reason: string): void;
  summaryProgress(done: number, total: number, finished: boolean): void;
  notice(level: 'info' | 'warning' | 'error', message: string): void;
}

export class ConversationDocument implements vscode.CustomDocument {
  private readonly changeEmitter = new vscode.EventEmitter<vscode.CustomDocumentEditEvent<ConversationDocument>>();
  /** Fired once per annotation edit; the provider forwards it to VS Code. */
  readonly onDidChange = this.changeEmitter.event;
  private readonly disposeEmitter = new vscode.EventEmitter<void>();
  readonly onDidDispose = this.disposeEmitter.event;
  readonly listeners = new Set<DocumentListener>();
  private savedMarker = 0;
  private indexedModel: ConversationDocumentModel | undefined;
  /**
   * Resolves once the file is indexed (at once for a model passed in ready-made). The editor
   * shows line 1 before that; saving, editing, backups, reloads and summaries wait for it.
   */
  readonly ready: Promise<void>;
  /** Set when the file is an importable format rather than conversation JSONL (once `importableReady` settles). */
  importable: ImportPreview | undefined;
  /** Settles when the file has been sniffed (see the constructor's `importable`). */
  readonly importableReady: Promise<ImportPreview | undefined>;
  private watcher: vscode.FileSystemWatcher | undefined;
  private watchTimer: NodeJS.Timeout | undefined;
  private prompting = false;
  private progressTimer = 0;
  private disposed = false;

  constructor(
    readonly uri: vscode.Uri,
    model: ConversationDocumentModel | Promise<ConversationDocumentModel>,
    restoredFromBackup: boolean,
    private readonly log: vscode.LogOutputChannel,
    /**
     * Whether the file is an importable format rather than conversation JSONL (nothing to
     * summarize): sniffed while VS Code creates the webview, settled before the page's `init`.
     */
    importable?: ImportPreview | Promise<ImportPreview | undefined>,
  ) {
    this.importableReady = Promise.resolve(importable).then(
      (p) => (this.importable = p),
      () => undefined,
    );
    this.ready = Promise.all([model, this.importableReady]).then(([m]) => {
      if (this.disposed) {
        void m.close();
        throw new Error(`${basename(uri.fsPath)} was closed while it was being indexed`);
      }
      this.indexedModel = m;
      this.savedMarker = restoredFromBackup ? -1 : m.journal.lastAppliedSeq;
      // The summary pass is CPU-heavy on large files; it starts once the webview has its first page
      // (see EditorSession), so it does not slow the editor's first render, or after a few seconds.
      if (!this.importable) this.startTimer = setTimeout(() => void this.ensureSummaries(), 3000);
    });
    this.ready.catch((e: unknown) => {
      if (!this.disposed) this.log.error(`indexing ${uri.fsPath} failed: ${(e as Error).message}`);
    });
    this.watch();
  }

  /** The indexed model; throws while the file is still being indexed (await `ready` first). */
  get model(): ConversationDocumentModel {
    if (!this.indexedModel) throw new Error(`${basename(this.uri.fsPath)} is still being indexed`);
    return this.indexedModel;
  }

  /** The model once indexed, else undefined. */
  get indexed(): ConversationDocumentModel | undefined {
    return this.indexedModel;
  }

  private startTimer: NodeJS.Timeout | undefined;
  private summaryRun: Promise<void> | undefined;

  /** Starts the background summary pass if it is not running (progress goes to listeners); resolves when done. */
  ensureSummaries(): Promise<void> {
    clearTimeout(this.startTimer);
    this.summaryRun ??= this.ready.then(() => this.startSummaries(), () => undefined);
    return this.summaryRun;
  }

  /** Unsaved annotation edits exist (as VS Code sees it: since the last save / revert). */
  get dirty(): boolean {
    return this.indexedModel !== undefined && this.indexedModel.journal.lastAppliedSeq !== this.savedMarker;
  }

  /** Background pass over every line; progress is sent to listeners at most 4 times a second. */
  private startSummaries(): Promise<void> {
    const started = Date.now();
    return this.model
      .summarizeAll({
        onProgress: (done, total) => {
          const now = Date.now();
          if (done < total && now - this.progressTimer < 250) return;
          this.progressTimer = now;
          for (const l of this.listeners) l.summaryProgress(done, total, done >= total);
        },
      })
      .then(() => this.log.info(`summarized ${this.model.lineCount} lines of ${basename(this.uri.fsPath)} in ${Date.now() - started} ms`))
      .catch((e: unknown) => {
        if (!this.disposed) this.log.error(`summary pass over ${this.uri.fsPath} failed: ${(e as Error).message}`);
      });
  }

  /** After the model re-read the file (revert, reload): a new summary pass. */
  private restartSummaries(): void {
    this.summaryRun = undefined;
    void this.ensureSummaries();
  }

  /**
   * Records an annotation edit and tells VS Code (one undo step per edit). The other editors of the
   * file are told too; `origin`, the editor that made the edit, answers its own request.
   */
  async annotate(input: AnnotateInput, origin?: DocumentListener): Promise<AnnotationEdit | undefined> {
    await this.ready;
    const edit = await this.model.annotate(input);
    trace(() => `annotate -> ${edit ? edit.label : 'no change'}`);
    if (!edit) return undefined;
    for (const l of this.listeners) if (l !== origin) l.annotationsChanged(input.line);
    this.changeEmitter.fire({
      document: this,
      label: edit.label,
      undo: async () => {
        const e = await this.model.undoEdit(edit.seq);
        if (e) this.notifyLine(e.key.line, editNotice('undo', e));
      },
      redo: async () => {
        const e = await this.model.redoEdit(edit.seq);
        if (e) this.notifyLine(e.key.line, editNotice('redo', e));
      },
    });
    return edit;
  }

  /** Tells every editor of the file that a line's annotations changed, and what changed (undo / redo). */
  private notifyLine(line: number, what?: string): void {
    for (const l of this.listeners) {
      l.annotationsChanged(line);
      if (what) l.notice('info', what);
    }
  }

  async save(): Promise<void> {
    await this.ready;
    await this.model.save();
    this.savedMarker = this.model.journal.lastAppliedSeq;
  }

  async saveAs(target: vscode.Uri): Promise<void> {
    await this.ready;
    if (target.scheme !== 'file') throw new Error(`SimLens can only save conversation files on disk (got ${target.scheme}:)`);
    await this.model.saveAs(target.fsPath);
  }

  async revert(): Promise<void> {
    await this.ready;
    await this.model.revert();
    this.savedMarker = this.model.journal.lastAppliedSeq;
    this.restartSummaries();
    for (const l of this.listeners) l.reloaded('reverted');
  }

  async backup(destination: vscode.Uri): Promise<vscode.CustomDocumentBackup> {
    await this.ready;
    const text = await this.model.backup();
    await vscode.workspace.fs.createDirectory(vscode.Uri.file(dirname(destination.fsPath)));
    await vscode.workspace.fs.writeFile(destination, Buffer.from(text, 'utf8'));
    return {
      id: destination.toString(),
      delete: () => {
        void vscode.workspace.fs.delete(destination).then(undefined, () => undefined);
      },
    };
  }

  /** Watches the file; changes made by our own save match the new index and are ignored. */
  private watch(): void {
    if (this.uri.scheme !== 'file') return;
    const pattern = new vscode.RelativePattern(vscode.Uri.file(dirname(this.uri.fsPath)), basename(this.uri.fsPath));
    this.watcher = vscode.workspace.createFileSystemWatcher(pattern);
    const schedule = () => {
      clearTimeout(this.watchTimer);
      this.watchTimer = setTimeout(() => void this.onDiskChange(), 300);
    };
    this.watcher.onDidChange(schedule);
    this.watcher.onDidCreate(schedule);
    this.watcher.onDidDelete(schedule);
  }

  /** Exposed for tests: checks the disk and reloads or prompts. */
  async onDiskChange(): Promise<void> {
    if (this.disposed || this.prompting) return;
    await this.ready;
    if (this.disposed) return;
    if (!(await this.model.changedOnDisk())) return;
    const name = basename(this.uri.fsPath);
    try {
      if (!this.dirty) {
        await this.model.reload({ keepEdits: false });
        this.savedMarker = this.model.journal.lastAppliedSeq;
        this.restartSummaries();
        this.log.info(`${name} changed on disk; reloaded`);
        for (const l of this.listeners) l.reloaded('changed on disk');
        return;
      }
      this.prompting = true;
      const reload = 'Reload (discard my annotations)';
      const keep = 'Keep my annotations';
      const choice = await vscode.window.showWarningMessage(
        `${name} changed on disk while you have unsaved annotations.`,
        { modal: true, detail: 'Reload reads the new file and drops your unsaved annotations. Keep re-applies your annotations to the new file (matched by conversation id); save to write them.' },
        reload,
        keep,
      );
      if (choice === reload) {
        await this.model.reload({ keepEdits: false });
        this.savedMarker = this.model.journal.lastAppliedSeq;
        this.restartSummaries();
        for (const l of this.listeners) l.reloaded('changed on disk; your annotations were discarded');
        // VS Code still counts the old edits as unsaved: a revert clears its dirty flag.
        await vscode.commands.executeCommand('workbench.action.files.revert', this.uri).then(undefined, () => undefined);
      } else if (choice === keep) {
        const { lost } = await this.model.reload({ keepEdits: true });
        this.restartSummaries();
        for (const l of this.listeners) l.reloaded('changed on disk; your annotations were kept');
        if (lost.length) {
          const msg = `Annotations for ${lost.length} conversation(s) could not be kept because they are no longer in ${name}: ${lost.slice(0, 5).join(', ')}${lost.length > 5 ? ', …' : ''}`;
          void vscode.window.showWarningMessage(msg);
        }
      }
    } catch (e) {
      const msg = `Could not reload ${name}: ${(e as Error).message}`;
      this.log.error(msg);
      void vscode.window.showErrorMessage(msg);
    } finally {
      this.prompting = false;
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    clearTimeout(this.watchTimer);
    clearTimeout(this.startTimer);
    this.watcher?.dispose();
    void this.indexedModel?.close();
    this.disposeEmitter.fire();
    this.disposeEmitter.dispose();
    this.changeEmitter.dispose();
  }
}
