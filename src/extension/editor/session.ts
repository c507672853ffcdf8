/**
 * One editor panel: validates webview messages, answers them from the document, and queues
 * host messages until the webview says it is ready (messages to a hidden webview are dropped by
 * VS Code, and with retainContextWhenHidden off a re-shown webview starts from scratch).
 */
import type { EditorViewState } from '../../shared/editorProtocol';
import * as vscode from 'vscode';
import { basename } from 'node:path';
import { parseWebviewMessage, type HostMessage, type SummaryFilter, type WebviewMessage } from '../../shared/editorProtocol';
import type { ConversationDocument, DocumentListener } from './conversationDocument';
import { readEditorSettings, type EditorSettings } from './settings';
import { askAnnotatorId, annotationSettingsPicker, useTaxonomy } from './annotationSettings';
import { computeAgreement } from '../../core/document/agreement';
import { readFirstConversation, type ConversationRead } from '../../core/document';
import { convertToJsonl } from './convert';
import { trace } from './trace';
import { NoticeLog } from './noticeLog';

/** The editor a converted file opens in (VIEW_TYPE in provider.ts; *.conv.jsonl is its default). */
const CONVERTED_VIEW_TYPE = 'simlens.conversations';

/** VS Code will not open files above this size as text documents. */
const TEXT_EDITOR_LIMIT = 50 * 1024 * 1024;

/** Host messages worth replaying to a webview that was hidden when they were sent. */
const KEEP_WHILE_HIDDEN = new Set<HostMessage['type']>(['reveal', 'notice']);

export class EditorSession implements DocumentListener, vscode.Disposable {
  private ready = false;
  private queue: HostMessage[] = [];
  /** Notices of the last seconds, offered again to a page that reloads (see NoticeLog). */
  private readonly notices = new NoticeLog();
  private filter: SummaryFilter = {};
  private view: Uint32Array = new Uint32Array(0);
  private viewVersion = 0;
  private filterAbort: AbortController | undefined;
  private settings: EditorSettings | undefined;
  private pendingReveal: { line: number; turn?: number } | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private editChain: Promise<unknown> = Promise.resolve();
  /** Set once the panel is gone: answers to requests still in flight are dropped, not posted. */
  private disposed = false;

  constructor(
    readonly document: ConversationDocument,
    readonly panel: vscode.WebviewPanel,
    private readonly log: vscode.LogOutputChannel,
    private readonly onOpenSettings: () => void,
  ) {
    document.listeners.add(this);
    // Line 1 is what a fresh page shows first: read it while the page loads.
    if (!document.indexed) void this.firstConversation();
    this.disposables.push(
      panel.webview.onDidReceiveMessage((raw: unknown) => void this.receive(raw)),
      panel.onDidDispose(() => (this.disposed = true)),
      panel.onDidChangeViewState(() => {
        // A hidden webview is torn down; it will say "ready" again when shown.
        if (!panel.visible) this.ready = false;
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('simlens', document.uri)) void this.settingsChanged();
      }),
    );
  }

  /**
   * Moves the view to a conversation (and turn), now or as soon as the webview is ready. Kept until
   * the page asks for that line: a page that is reloading (moved to another group) gets it with init.
   */
  reveal(line: number, turn?: number): void {
    this.pendingReveal = { line, turn };
    this.post({ type: 'reveal', line, turn });
  }

  // DocumentListener ------------------------------------------------------------------------

  annotationsChanged(line: number, requestId?: number): void {
    void this.document.model.readConversation(line).then((read) => {
      if (read.conversation) this.post({ type: 'annotationsChanged', line, conversation: read.conversation, requestId });
    });
  }

  reloaded(reason: string): void {
    this.post({ type: 'reloaded', reason, lineCount: this.document.model.lineCount });
    void this.applyFilter(this.filter);
  }

  summaryProgress(done: number, total: number, finished: boolean): void {
    this.post({ type: 'progress', scanned: done, total, done: finished });
    // Counts and facet lists grow during the pass; refresh the view when it completes.
    if (finished) void this.applyFilter(this.filter);
  }

  notice(level: 'info' | 'warning' | 'error', message: string): void {
    this.post({ type: 'notice', level, message });
  }

  // Messages --------------------------------------------------------------------------------

  /**
   * Posts now, or queues (reveal, notice) while the page is hidden. A notice gets an id and is
   * remembered for a reloading page unless `replayable` is false (a notice every "ready" posts anew).
   */
  private post(message: HostMessage, replayable = true): void {
    if (this.disposed) return;
    if (message.type === 'notice' && message.id === undefined && replayable) message = this.notices.record(message);
    if (!this.ready) {
      if (KEEP_WHILE_HIDDEN.has(message.type)) this.queue.push(message);
      return;
    }
    trace(() => `post ${message.type}`);
    void this.panel.webview.postMessage(message);
  }

  private async receive(raw: unknown): Promise<void> {
    const parsed = parseWebviewMessage(raw);
    trace(() => `received ${JSON.stringify(raw).slice(0, 300)} ok=${parsed.ok}`);
    if (!parsed.ok) {
      this.log.warn(`${basename(this.document.uri.fsPath)}: ${parsed.error}`);
      return;
    }
    await this.receiveParsed(parsed.message);
  }

  /** Handles one validated message; a failure is logged and shown in the page, never thrown. */
  private async receiveParsed(message: WebviewMessage): Promise<void> {
    try {
      // Edits are applied strictly in the order they were sent (each builds on the previous one);
      // reads (pages, conversations) run concurrently.
      if (message.type === 'annotate') {
        const run = this.editChain.then(() => this.handle(message));
        this.editChain = run.catch(() => undefined);
        await run;
      } else await this.handle(message);
    } catch (e) {
      const error = (e as Error).message;
      this.log.error(`${basename(this.document.uri.fsPath)}: ${message.type} failed: ${error}`);
      this.post({ type: 'notice', level: 'error', message: error });
    }
  }

  /** The webview loaded: `init` at once (before the index when it is still being built), then the rest. */
  private async onReady(first: { requestId: number; line: number } | undefined): Promise<void> {
    this.ready = true;
    const [settings, importable] = await Promise.all([readEditorSettings(this.document.uri), this.document.importableReady]);
    this.settings = settings;
    const reveal = this.pendingReveal;
    const indexed = this.document.indexed;
    this.post({
      type: 'init',
      init: {
        fileName: basename(this.document.uri.fsPath),
        filePath: this.document.uri.fsPath,
        fileSize: indexed?.index.size ?? 0,
        lineCount: indexed?.lineCount ?? 0,
        indexing: indexed ? undefined : true,
        ...this.settings,
        reveal: this.pendingReveal,
        importable,
      },
    });
    this.pendingReveal = undefined;
    // Notices this page may have missed while it (re)loaded; the page drops ids it already shows.
    const replayed = new Set<number>();
    for (const n of this.notices.replay()) {
      replayed.add(n.id ?? 0);
      this.post(n);
    }
    // The conversation the page asked for with "ready", unless it is told to reveal another one
    // or offered a conversion instead (see the webview's onInit).
    if (first && !reveal && !importable) void this.receiveParsed({ type: 'openConversation', ...first });
    if (this.settings.taxonomyError) this.post({ type: 'notice', level: 'warning', message: this.settings.taxonomyError }, false);
    if (!indexed) {
      await this.document.ready;
      this.post({ type: 'indexed', lineCount: this.document.model.lineCount, fileSize: this.document.model.index.size });
    }
    const s = this.document.model.summaries;
    this.post({ type: 'progress', scanned: s.summarized, total: s.lineCount, done: s.complete });
    const queued = this.queue;
    this.queue = [];
    for (const m of queued) if (!(m.type === 'notice' && m.id !== undefined && replayed.has(m.id))) this.post(m);
  }

  private firstRead: Promise<ConversationRead | undefined> | undefined;

  /** Line 1 read from the first bytes of the file (undefined when that fails: the indexed read answers). */
  private firstConversation(): Promise<ConversationRead | undefined> {
    this.firstRead ??= readFirstConversation(this.document.uri.fsPath).catch((e: unknown) => {
      trace(() => `reading line 1 before the index failed: ${(e as Error).message}`);
      return undefined;
    });
    return this.firstRead;
  }

  private async handle(msg: WebviewMessage): Promise<void> {
    if (msg.type === 'ready') return this.onReady(msg.first);
    // The page opened the revealed conversation: a later reload of the page (a move to another
    // editor group, hide and show) must restore what the user selected since, not reveal it again.
    if (msg.type === 'openConversation' && this.pendingReveal?.line === msg.line) this.pendingReveal = undefined;
    // Line 1 is served from the file's first bytes while the line index is still being built.
    if (msg.type === 'openConversation' && msg.line === 0 && !this.document.indexed) {
      const read = await this.firstConversation();
      if (read && !read.blank) {
        this.post({ type: 'conversation', requestId: msg.requestId, line: 0, id: read.id, conversation: read.conversation, error: read.error ?? (read.blank ? 'blank line' : undefined), viewIndex: -1 });
        return;
      }
    }
    await this.document.ready;
    const model = this.document.model;
    switch (msg.type) {
      case 'setFilter':
        await this.applyFilter(msg.filter);
        // The first page is on its way: now the background summary pass may start.
        void this.document.ensureSummaries();
        return;
      case 'requestPage': {
        if (msg.viewVersion !== this.viewVersion) return; // a newer view is on its way
        const view = this.view;
        const rows = await model.page(view, msg.start, msg.count);
        if (view !== this.view) return;
        this.post({ type: 'page', requestId: msg.requestId, viewVersion: this.viewVersion, start: msg.start, rows });
        return;
      }
      case 'openConversation': {
        // An empty file: the webview asked for line 1 before the index said there is none.
        if (msg.line === 0 && model.lineCount === 0) return;
        if (msg.line >= model.lineCount) throw new Error(`line ${msg.line + 1} does not exist (the file has ${model.lineCount} lines)`);
        const read = await model.readConversation(msg.line);
        this.post({
          type: 'conversation',
          requestId: msg.requestId,
          line: msg.line,
          id: read.id,
          conversation: read.conversation,
          error: read.error ?? (read.blank ? 'blank line' : undefined),
          viewIndex: indexOfSorted(this.view, msg.line),
        });
        return;
      }
      case 'openLineAsText':
        await this.openLineAsText(msg.line);
        return;
      case 'fork':
        // The fork command (src/extension/fork.ts) runs the simulator and opens the continuations beside.
        await vscode.commands.executeCommand('simlens.forkFromHere', { file: this.document.uri.fsPath, id: msg.id, turn: msg.turn });
        return;
      case 'annotate': {
        const settings = this.settings ?? (await readEditorSettings(this.document.uri));
        let annotator = settings.annotator;
        if (!annotator) {
          // First annotation without an id: ask once instead of silently using the OS user.
          annotator = (await askAnnotatorId('')) ?? '';
          if (!annotator) {
            this.annotationsChanged(msg.line, msg.requestId);
            this.post({ type: 'notice', level: 'warning', message: 'Annotation not saved: set an annotator id first (gear button, or the simlens.annotator setting).' });
            return;
          }
          this.settings = { ...settings, annotator };
          this.post({ type: 'settings', ...this.settings });
        }
        // Answer every annotate message (even a no-op or a failure) so the webview's optimistic
        // state is replaced by the document's.
        const answer = () => this.annotationsChanged(msg.line, msg.requestId);
        await this.document.annotate({
          line: msg.line,
          turn: msg.turn,
          speaker: msg.speaker,
          segment: msg.segment,
          acts: msg.acts,
          note: msg.note,
          // The annotator id comes from the settings, never from the webview.
          annotator,
          taxonomy: settings.taxonomy.name,
        }, this).finally(answer);
        return;
      }
      case 'viewState':
        this.onViewState?.(msg.state);
        return;
      case 'setTaxonomy':
        if (!(await useTaxonomy(this.document.uri, msg.name))) this.post({ type: 'notice', level: 'error', message: `Unknown taxonomy "${msg.name}".` });
        return;
      case 'requestAgreement': {
        const taxonomy = (this.settings ?? (await readEditorSettings(this.document.uri))).taxonomy;
        const result = await computeAgreement(model, { order: { user: taxonomy.user, assistant: taxonomy.assistant }, map: msg.map === true });
        this.post({ type: 'agreement', requestId: msg.requestId, result });
        return;
      }
      case 'command': {
        const map = {
          undo: 'undo',
          redo: 'redo',
          save: 'workbench.action.files.save',
          goToConversation: 'simlens.goToConversation',
          openSettings: '',
          checkInvariants: '',
        } as const;
        if (msg.command === 'openSettings') {
          const current = this.settings ?? (await readEditorSettings(this.document.uri));
          await annotationSettingsPicker(this.document.uri, current.annotator, current.taxonomy.name);
        }
        // The invariants of this file, in a metric panel whose violations link back here.
        else if (msg.command === 'checkInvariants') await vscode.commands.executeCommand('simlens.checkInvariants', this.document.uri);
        else await vscode.commands.executeCommand(map[msg.command]);
        return;
      }
      case 'convert': {
        // The same conversion as "SimLens: Convert to Conversation JSONL", then the result opens here.
        const conversion = await convertToJsonl(this.document.uri.fsPath, basename(this.document.uri.fsPath));
        this.log.info(`Converted to ${conversion.target}\n${conversion.summary.text}`);
        await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(conversion.target), CONVERTED_VIEW_TYPE);
        return;
      }
      case 'log':
        this.log[msg.level === 'warning' ? 'warn' : msg.level](`webview: ${msg.message}`);
        return;
    }
  }

  /** Recomputes the view for a filter (cancelling a running text search) and sends its counts. */
  private async applyFilter(filter: SummaryFilter): Promise<void> {
    this.filterAbort?.abort();
    const abort = new AbortController();
    this.filterAbort = abort;
    this.filter = filter;
    let result;
    try {
      result = await this.document.model.filter(filter, { signal: abort.signal });
    } catch (e) {
      if (abort.signal.aborted) return;
      throw e;
    }
    if (abort.signal.aborted) return;
    this.view = result.lines;
    this.viewVersion++;
    this.post({
      type: 'view',
      viewVersion: this.viewVersion,
      count: result.lines.length,
      facets: this.document.model.summaries.facets(),
      filter,
      search: result.search,
      partial: result.partial,
      ms: Math.round(result.ms * 10) / 10,
    });
  }

  private async openLineAsText(line: number): Promise<void> {
    const model = this.document.model;
    const read = await model.readConversation(line);
    const where = `${basename(this.document.uri.fsPath)}:${line + 1}`;
    if (model.index.size > TEXT_EDITOR_LIMIT) {
      void vscode.window.showInformationMessage(
        `${where} — ${read.error ?? 'valid conversation'}. The file is larger than 50 MB, which VS Code does not open as text; use "simlens validate" on the command line or open it in another editor.`,
      );
      return;
    }
    const column = read.error ? Math.max(0, Number(/^\d+:(\d+)/.exec(read.error)?.[1] ?? 1) - 1) : 0;
    const doc = await vscode.workspace.openTextDocument(this.document.uri);
    const pos = new vscode.Position(line, Math.min(column, doc.lineAt(Math.min(line, doc.lineCount - 1)).text.length));
    await vscode.window.showTextDocument(doc, { selection: new vscode.Range(pos, pos), preview: false });
  }

  private async settingsChanged(): Promise<void> {
    const before = this.settings;
    this.settings = await readEditorSettings(this.document.uri);
    if (before && before.allowRemoteImages !== this.settings.allowRemoteImages) {
      // The CSP changes: rebuild the page (the webview restores its state from getState).
      this.ready = false;
      this.onHtmlRebuild?.();
      return;
    }
    this.post({ type: 'settings', ...this.settings });
    // Not replayable: every "ready" posts the current settings' warning anyway.
    if (this.settings.taxonomyError) this.post({ type: 'notice', level: 'warning', message: this.settings.taxonomyError }, false);
  }

  /** Set by the provider: re-renders the HTML (CSP change). */
  onHtmlRebuild: (() => void) | undefined;
  /** Keeps the page's view state for the next time this file is opened (set by the provider). */
  onViewState: ((state: EditorViewState) => void) | undefined;

  dispose(): void {
    this.disposed = true;
    this.filterAbort?.abort();
    this.document.listeners.delete(this);
    for (const d of this.disposables) d.dispose();
  }
}

/** Index of `value` in an ascending array, or -1. */
export function indexOfSorted(arr: Uint32Array, value: number): number {
  let lo = 0;
  let hi = arr.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (arr[mid] === value) return mid;
    if (arr[mid] < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
