/**
 * VS Code's view of a conversation file: the vscode-free `DocumentCore` (model, summaries,
 * listeners) plus edit events for undo/redo, dirty tracking for VS Code, backups and a file watcher.
 */
import * as vscode from 'vscode';
import { notify } from '../safeOutput';
import { basename, dirname } from 'node:path';
import { editNotice, type ConversationDocumentModel, type AnnotationEdit } from '../../core/document';
import type { ImportPreview } from '../../shared/editorProtocol';
import { DocumentCore } from './documentCore';
import { trace } from './trace';

export class ConversationDocument extends DocumentCore implements vscode.CustomDocument {
  private readonly changeEmitter = new vscode.EventEmitter<vscode.CustomDocumentEditEvent<ConversationDocument>>();
  /** Fired once per annotation edit; the provider forwards it to VS Code. */
  readonly onDidChange = this.changeEmitter.event;
  private readonly disposeEmitter = new vscode.EventEmitter<void>();
  readonly onDidDispose = this.disposeEmitter.event;
  private watcher: vscode.FileSystemWatcher | undefined;
  private watchTimer: NodeJS.Timeout | undefined;
  private prompting = false;

  constructor(
    readonly uri: vscode.Uri,
    model: ConversationDocumentModel | Promise<ConversationDocumentModel>,
    restoredFromBackup: boolean,
    log: vscode.LogOutputChannel,
    importable?: ImportPreview | Promise<ImportPreview | undefined>,
  ) {
    super(uri.fsPath, model, restoredFromBackup, log, importable);
    this.watch();
  }

  /** VS Code's undo step for an edit. */
  protected override edited(edit: AnnotationEdit): void {
    this.changeEmitter.fire({
      document: this,
      label: edit.label,
      undo: async () => {
        trace(() => `undo ${edit.label}`);
        const e = await this.model.undoEdit(edit.seq);
        if (e) this.notifyLine(e.key.line, editNotice('undo', e));
      },
      redo: async () => {
        const e = await this.model.redoEdit(edit.seq);
        if (e) this.notifyLine(e.key.line, editNotice('redo', e));
      },
    });
  }

  async save(): Promise<void> {
    await this.ready;
    await this.model.save();
    this.savedMarker = this.model.journal.lastAppliedSeq;
  }

  async saveAs(target: vscode.Uri): Promise<void> {
    await this.ready;
    if (target.scheme !== 'file')
      throw new Error(`SimLens can only save conversation files on disk (got ${target.scheme}:)`);
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
      const choice = await notify.warning(
        `${name} changed on disk while you have unsaved annotations.`,
        {
          modal: true,
          detail:
            'Reload reads the new file and drops your unsaved annotations. Keep re-applies your annotations to the new file ' +
            '(matched by conversation id); save to write them.',
        },
        reload,
        keep,
      );
      if (choice === reload) {
        await this.model.reload({ keepEdits: false });
        this.savedMarker = this.model.journal.lastAppliedSeq;
        this.restartSummaries();
        for (const l of this.listeners) l.reloaded('changed on disk; your annotations were discarded');
        // VS Code still counts the old edits as unsaved: a revert clears its dirty flag.
        await vscode.commands
          .executeCommand('workbench.action.files.revert', this.uri)
          .then(undefined, () => undefined);
      } else if (choice === keep) {
        const { lost } = await this.model.reload({ keepEdits: true });
        this.restartSummaries();
        for (const l of this.listeners) l.reloaded('changed on disk; your annotations were kept');
        if (lost.length) {
          const msg =
            `Annotations for ${lost.length} conversation(s) could not be kept because they are no longer in ${name}: ` +
            `${lost.slice(0, 5).join(', ')}${lost.length > 5 ? ', …' : ''}`;
          void notify.warning(msg);
        }
      }
    } catch (e) {
      const msg = `Could not reload ${name}: ${(e as Error).message}`;
      this.log.error(msg);
      void notify.error(msg);
    } finally {
      this.prompting = false;
    }
  }

  dispose(): void {
    if (!this.close()) return;
    clearTimeout(this.watchTimer);
    this.watcher?.dispose();
    this.disposeEmitter.fire();
    this.disposeEmitter.dispose();
    this.changeEmitter.dispose();
  }
}
