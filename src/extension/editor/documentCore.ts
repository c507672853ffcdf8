/**
 * The part of an open conversation file that does not need VS Code: the indexed model (ready once
 * the line index is built), the importable-format sniff, the background summary pass with progress
 * to its listeners, and annotation edits told to every editor of the file. `ConversationDocument`
 * adds VS Code's edit events (undo/redo), backups and the file watcher; the editor controller and
 * the jsdom tests use this part directly. (No vscode import.)
 */
import { basename } from 'node:path';
import {
  readFirstConversation,
  type ConversationDocumentModel,
  type AnnotateInput,
  type AnnotationEdit,
  type ConversationRead,
} from '../../core/document';
import type { ImportPreview } from '../../shared/editorProtocol';
import { trace } from './trace';

/** Something that shows the document (the editor controller) and must hear about changes. */
export interface DocumentListener {
  annotationsChanged(line: number, requestId?: number): void;
  reloaded(reason: string): void;
  summaryProgress(done: number, total: number, finished: boolean): void;
  notice(level: 'info' | 'warning' | 'error', message: string): void;
}

/** Where the editor's host side logs (VS Code's LogOutputChannel has these). */
export interface EditorLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export class DocumentCore {
  readonly listeners = new Set<DocumentListener>();
  protected savedMarker = 0;
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
  private progressTimer = 0;
  private startTimer: NodeJS.Timeout | undefined;
  private summaryRun: Promise<void> | undefined;
  protected disposed = false;

  constructor(
    readonly fsPath: string,
    model: ConversationDocumentModel | Promise<ConversationDocumentModel>,
    restoredFromBackup: boolean,
    protected readonly log: EditorLog,
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
        throw new Error(`${basename(fsPath)} was closed while it was being indexed`);
      }
      this.indexedModel = m;
      this.savedMarker = restoredFromBackup ? -1 : m.journal.lastAppliedSeq;
      // The summary pass is CPU-heavy on large files; it starts once the webview has its first page
      // (see EditorController), so it does not slow the editor's first render, or after a few seconds.
      if (!this.importable) this.startTimer = setTimeout(() => void this.ensureSummaries(), 3000);
    });
    this.ready.catch((e: unknown) => {
      if (!this.disposed) this.log.error(`indexing ${fsPath} failed: ${(e as Error).message}`);
    });
  }

  private firstRead: Promise<ConversationRead | undefined> | undefined;

  /**
   * Line 1 read from the first bytes of the file, before the index (undefined when that fails: the
   * indexed read answers). Read once per document; the provider starts it as the document opens, so
   * it is at hand when VS Code asks for the editor (the page's HTML carries it).
   */
  firstConversation(): Promise<ConversationRead | undefined> {
    this.firstRead ??= readFirstConversation(this.fsPath).catch((e: unknown) => {
      trace(() => `reading line 1 before the index failed: ${(e as Error).message}`);
      return undefined;
    });
    return this.firstRead;
  }

  /** The indexed model; throws while the file is still being indexed (await `ready` first). */
  get model(): ConversationDocumentModel {
    if (!this.indexedModel) throw new Error(`${basename(this.fsPath)} is still being indexed`);
    return this.indexedModel;
  }

  /** The model once indexed, else undefined. */
  get indexed(): ConversationDocumentModel | undefined {
    return this.indexedModel;
  }

  /** Starts the background summary pass if it is not running (progress goes to listeners); resolves when done. */
  ensureSummaries(): Promise<void> {
    clearTimeout(this.startTimer);
    this.summaryRun ??= this.ready.then(
      () => this.startSummaries(),
      () => undefined,
    );
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
      .then(() =>
        this.log.info(
          `summarized ${this.model.lineCount} lines of ${basename(this.fsPath)} in ${Date.now() - started} ms`,
        ),
      )
      .catch((e: unknown) => {
        if (!this.disposed) this.log.error(`summary pass over ${this.fsPath} failed: ${(e as Error).message}`);
      });
  }

  /** After the model re-read the file (revert, reload): a new summary pass. */
  protected restartSummaries(): void {
    this.summaryRun = undefined;
    void this.ensureSummaries();
  }

  /**
   * Records an annotation edit. The other editors of the file are told; `origin`, the editor that
   * made the edit, answers its own request. `edited` hears about every edit that changed something.
   */
  async annotate(input: AnnotateInput, origin?: DocumentListener): Promise<AnnotationEdit | undefined> {
    await this.ready;
    const edit = await this.model.annotate(input);
    trace(() => `annotate -> ${edit ? edit.label : 'no change'}`);
    if (!edit) return undefined;
    for (const l of this.listeners) if (l !== origin) l.annotationsChanged(input.line);
    this.edited(edit);
    return edit;
  }

  /** Hook for the VS Code document: one undo step per edit. */
  protected edited(_edit: AnnotationEdit): void {}

  /** Tells every editor of the file that a line's annotations changed, and what changed (undo / redo). */
  protected notifyLine(line: number, what?: string): void {
    for (const l of this.listeners) {
      l.annotationsChanged(line);
      if (what) l.notice('info', what);
    }
  }

  /** Stops the summary timer and closes the model (idempotent). Returns false if already closed. */
  close(): boolean {
    if (this.disposed) return false;
    this.disposed = true;
    clearTimeout(this.startTimer);
    void this.indexedModel?.close();
    return true;
  }
}
