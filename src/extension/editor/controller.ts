/**
 * The host side of one conversation editor, free of `vscode`: validates the page's messages at
 * the edge (zod, src/shared/rpc.ts), answers them from the document (the real
 * `ConversationDocumentModel` behind `DocumentCore`), and queues host messages until the page
 * says it is ready (messages to a hidden webview are dropped by VS Code, and with
 * retainContextWhenHidden off a re-shown webview starts from scratch).
 *
 * What needs VS Code (posting to the webview, settings, input boxes, commands, opening text
 * editors) goes through `EditorPort`, implemented by `EditorSession` (session.ts) and, in the
 * jsdom tests, by a port that wires this controller to the real page in jsdom.
 */
import { basename } from 'node:path';
import type { EditorBoot, EditorInit, EditorViewState } from '../../shared/editorProtocol';
import {
  isEmptyFilter,
  parseWebviewMessage,
  type HostMessage,
  type ImportPreview,
  type SummaryFilter,
  type WebviewMessage,
} from '../../shared/editorProtocol';
import type { Taxonomy } from '../../core/taxonomy';
import type { DocumentCore, DocumentListener, EditorLog } from './documentCore';
import { computeAgreement } from '../../core/document/agreement';
import type { ConversationRead } from '../../core/document';
import { trace } from './trace';
import { NoticeLog } from './noticeLog';

/** The page's message of one kind. */
type PageMessage<K extends WebviewMessage['type']> = Extract<WebviewMessage, { type: K }>;

/** The editor's settings as plain values (read from VS Code's configuration by settings.ts). */
export interface EditorSettings {
  /** The annotator id; '' when the setting is empty (asked for on the first annotation). */
  annotator: string;
  taxonomy: Taxonomy;
  taxonomyError?: string;
  allowRemoteImages: boolean;
  replayIntervalMs: number;
}

/** The commands the page may run in the workbench (see the `command` message). */
export type WorkbenchCommand = 'undo' | 'redo' | 'save' | 'goToConversation' | 'checkInvariants';

/** Everything the controller asks of VS Code. */
export interface EditorPort {
  /** Delivers a message to the page. */
  postToPage(message: HostMessage): void;
  readonly log: EditorLog;
  readSettings(): Promise<EditorSettings>;
  /** Asks the user for an annotator id (stored in the user settings); undefined when cancelled. */
  askAnnotatorId(): Promise<string | undefined>;
  /** The gear button's quick pick (annotator id, taxonomy). */
  openAnnotationSettings(annotator: string, taxonomy: string): Promise<void>;
  /** Sets simlens.taxonomy to a built-in taxonomy for this file; false for an unknown name. */
  useTaxonomy(name: string): Promise<boolean>;
  runCommand(command: WorkbenchCommand): Promise<void>;
  fork(args: { file: string; id: string; turn: number }): Promise<void>;
  openLineAsText(line: number): Promise<void>;
  /** Converts the (importable) file to conversation JSONL and opens the result. */
  convert(): Promise<void>;
  /** Re-renders the page's HTML (its CSP changed). */
  rebuildHtml(): void;
  /** Keeps the page's view state for the next time this file is opened. */
  saveViewState(state: EditorViewState): void;
}

/** Host messages worth replaying to a webview that was hidden when they were sent. */
const KEEP_WHILE_HIDDEN = new Set<HostMessage['type']>(['reveal', 'notice']);

export class EditorController implements DocumentListener {
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
  private editChain: Promise<unknown> = Promise.resolve();
  /** Set once the panel is gone: answers to requests still in flight are dropped, not posted. */
  private disposed = false;
  private readonly name: string;

  constructor(
    readonly document: DocumentCore,
    private readonly port: EditorPort,
  ) {
    this.name = basename(document.fsPath);
    document.listeners.add(this);
    // Line 1 is what a fresh page shows first: read it while the page loads.
    if (!document.indexed) void this.firstConversation();
    // And what `init` needs (settings, the format sniff), so "ready" is answered without waiting.
    this.initData = this.readInitData();
  }

  /** Settings and the import preview for the next `init`; read ahead while the page loads. */
  private initData: Promise<[EditorSettings, ImportPreview | undefined]> | undefined;

  private readInitData(): Promise<[EditorSettings, ImportPreview | undefined]> {
    const data = Promise.all([this.port.readSettings(), this.document.importableReady]);
    data.catch(() => undefined); // read again (and reported) by onReady
    return data;
  }

  /**
   * Moves the view to a conversation (and turn), now or as soon as the webview is ready. Kept until
   * the page asks for that line: a page that is reloading (moved to another group) gets it with init.
   */
  reveal(line: number, turn?: number): void {
    this.pendingReveal = { line, turn };
    this.post({ type: 'reveal', line, turn });
  }

  /** The webview was hidden (torn down): it will say "ready" again when shown. */
  pageHidden(): void {
    this.ready = false;
  }

  // DocumentListener ------------------------------------------------------------------------

  /** Posts the document's state of `line`; the promise ends once it is posted (an annotate waits for its answer). */
  annotationsChanged(line: number, requestId?: number): Promise<void> {
    return this.document.model.readConversation(line).then((read) => {
      if (read.conversation)
        this.post({ type: 'annotationsChanged', line, conversation: read.conversation, requestId });
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
    this.port.postToPage(message);
  }

  /** One raw message from the page: validated at the edge, then handled; an invalid one is logged and dropped. */
  async receive(raw: unknown): Promise<void> {
    const parsed = parseWebviewMessage(raw);
    trace(() => `received ${JSON.stringify(raw).slice(0, 300)} ok=${parsed.ok}`);
    if (!parsed.ok) {
      this.port.log.warn(`${this.name}: ${parsed.error}`);
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
      this.port.log.error(`${this.name}: ${message.type} failed: ${error}`);
      this.post({ type: 'notice', level: 'error', message: error });
    }
  }

  private async currentSettings(): Promise<EditorSettings> {
    return this.settings ?? (await this.port.readSettings());
  }

  /** Settings and the import preview, read ahead while the page loads (kept for the next `init`). */
  private async initInputs(): Promise<[EditorSettings, ImportPreview | undefined]> {
    this.initData ??= this.readInitData();
    return this.initData.catch(() => (this.initData = this.readInitData()));
  }

  /** What `init` says now. */
  private initMessage(settings: EditorSettings, importable: ImportPreview | undefined): EditorInit {
    const indexed = this.document.indexed;
    return {
      fileName: this.name,
      filePath: this.document.fsPath,
      fileSize: indexed?.index.size ?? 0,
      lineCount: indexed?.lineCount ?? 0,
      indexing: indexed ? undefined : true,
      ...settings,
      reveal: this.pendingReveal,
      importable,
    };
  }

  /**
   * The page's boot data (EditorBoot, put in its HTML): `init` as "ready" would get it, and the
   * conversation a page with `viewState` asks for first (line 1 of a fresh unfiltered view, or the
   * restored line) when it can be read now. Undefined when `init` cannot be read; never throws.
   */
  async boot(viewState?: EditorViewState): Promise<EditorBoot | undefined> {
    try {
      const [settings, importable] = await this.initInputs();
      const init = this.initMessage(settings, importable);
      if (importable || init.reveal) return { init };
      const line = viewState?.line ?? (isEmptyFilter(viewState?.filter) ? 0 : undefined);
      if (line === undefined) return { init };
      const indexed = this.document.indexed;
      let read: ConversationRead | undefined;
      if (indexed) read = line < indexed.lineCount ? await indexed.readConversation(line) : undefined;
      else if (line === 0) read = await this.firstConversation();
      if (!read || read.blank) return { init };
      return { init, first: { line, id: read.id, conversation: read.conversation, error: read.error } };
    } catch (e) {
      trace(() => `boot data failed: ${(e as Error).message}`);
      return undefined;
    }
  }

  /**
   * The webview loaded: `init` at once (before the index when it is still being built), then the rest.
   * A booted page (EditorBoot) already has `init`, and its first conversation unless it asks for `first`.
   */
  private async onReady(first: { requestId: number; line: number } | undefined, booted = false): Promise<void> {
    this.ready = true;
    const [settings, importable] = await this.initInputs();
    this.initData = undefined;
    this.settings = settings;
    const reveal = this.pendingReveal;
    const indexed = this.document.indexed;
    if (!booted) this.post({ type: 'init', init: this.initMessage(settings, importable) });
    this.pendingReveal = undefined;
    // Notices this page may have missed while it (re)loaded; the page drops ids it already shows.
    const replayed = new Set<number>();
    for (const n of this.notices.replay()) {
      replayed.add(n.id ?? 0);
      this.post(n);
    }
    // The conversation the page asked for with "ready", unless it is told to reveal another one
    // or offered a conversion instead (the page cancels that request then: see its load states).
    if (first && !reveal && !importable) void this.receiveParsed({ type: 'openConversation', ...first });
    if (this.settings.taxonomyError)
      this.post({ type: 'notice', level: 'warning', message: this.settings.taxonomyError }, false);
    if (!indexed) {
      await this.document.ready;
      this.post({
        type: 'indexed',
        lineCount: this.document.model.lineCount,
        fileSize: this.document.model.index.size,
      });
    }
    const s = this.document.model.summaries;
    this.post({ type: 'progress', scanned: s.summarized, total: s.lineCount, done: s.complete });
    const queued = this.queue;
    this.queue = [];
    for (const m of queued) if (!(m.type === 'notice' && m.id !== undefined && replayed.has(m.id))) this.post(m);
  }

  /** Line 1 read from the first bytes of the file (undefined when that fails: the indexed read answers). */
  private firstConversation(): Promise<ConversationRead | undefined> {
    return this.document.firstConversation();
  }

  /** Answers one message of the page: a line for the simple kinds, a method for the others. */
  private async handle(msg: WebviewMessage): Promise<void> {
    if (msg.type === 'ready') return this.onReady(msg.first, msg.booted);
    if (msg.type === 'openConversation') {
      // The page opened the revealed conversation: a later reload of the page (a move to another
      // editor group, hide and show) must restore what the user selected since, not reveal it again.
      if (this.pendingReveal?.line === msg.line) this.pendingReveal = undefined;
      if (await this.sentBeforeIndex(msg)) return;
    }
    await this.document.ready;
    switch (msg.type) {
      case 'setFilter':
        await this.applyFilter(msg.filter);
        // The first page is on its way: now the background summary pass may start.
        void this.document.ensureSummaries();
        return;
      case 'requestPage':
        return this.sendPage(msg);
      case 'openConversation':
        return this.sendConversation(msg);
      case 'openLineAsText':
        await this.port.openLineAsText(msg.line);
        return;
      case 'fork':
        // The fork command (src/extension/fork.ts) runs the simulator and opens the continuations beside.
        await this.port.fork({ file: this.document.fsPath, id: msg.id, turn: msg.turn });
        return;
      case 'annotate':
        return this.annotate(msg);
      case 'viewState':
        this.port.saveViewState(msg.state);
        return;
      case 'setTaxonomy':
        if (!(await this.port.useTaxonomy(msg.name)))
          this.post({ type: 'notice', level: 'error', message: `Unknown taxonomy "${msg.name}".` });
        return;
      case 'requestAgreement':
        return this.sendAgreement(msg);
      case 'command':
        return this.runPageCommand(msg.command);
      case 'convert':
        // The same conversion as "SimLens: Convert to Conversation JSONL", then the result opens here.
        await this.port.convert();
        return;
      case 'log':
        this.port.log[msg.level === 'warning' ? 'warn' : msg.level](`webview: ${msg.message}`);
        return;
    }
  }

  /**
   * Line 1 served from the file's first bytes while the line index is still being built; false
   * when that does not apply or the read failed (the indexed read answers then).
   */
  private async sentBeforeIndex(msg: PageMessage<'openConversation'>): Promise<boolean> {
    if (msg.line !== 0 || this.document.indexed) return false;
    const read = await this.firstConversation();
    if (!read || read.blank) return false;
    this.post({
      type: 'conversation',
      requestId: msg.requestId,
      line: 0,
      id: read.id,
      conversation: read.conversation,
      error: read.error ?? (read.blank ? 'blank line' : undefined),
      viewIndex: -1,
    });
    return true;
  }

  /** The rows of a page of the current view (nothing when a newer view is on its way). */
  private async sendPage(msg: PageMessage<'requestPage'>): Promise<void> {
    const model = this.document.model;
    if (msg.viewVersion !== this.viewVersion) return; // a newer view is on its way
    const view = this.view;
    const rows = await model.page(view, msg.start, msg.count);
    if (view !== this.view) return;
    this.post({ type: 'page', requestId: msg.requestId, viewVersion: this.viewVersion, start: msg.start, rows });
  }

  /** One conversation read from the indexed file, with its place in the current view. */
  private async sendConversation(msg: PageMessage<'openConversation'>): Promise<void> {
    const model = this.document.model;
    // An empty file: the webview asked for line 1 before the index said there is none.
    if (msg.line === 0 && model.lineCount === 0) return;
    if (msg.line >= model.lineCount)
      throw new Error(`line ${msg.line + 1} does not exist (the file has ${model.lineCount} lines)`);
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
  }

  /**
   * Saves an annotation under the annotator id of the settings (asked for once when there is
   * none; nothing is saved without one) and always answers with the document's annotations.
   */
  private async annotate(msg: PageMessage<'annotate'>): Promise<void> {
    const settings = await this.currentSettings();
    let annotator = settings.annotator;
    if (!annotator) {
      // First annotation without an id: ask once instead of silently using the OS user.
      annotator = (await this.port.askAnnotatorId()) ?? '';
      if (!annotator) {
        await this.annotationsChanged(msg.line, msg.requestId);
        this.post({
          type: 'notice',
          level: 'warning',
          message: 'Annotation not saved: set an annotator id first (gear button, or the simlens.annotator setting).',
        });
        return;
      }
      this.settings = { ...settings, annotator };
      this.post({ type: 'settings', ...this.settings });
    }
    // Answer every annotate message (even a no-op or a failure) so the webview's optimistic
    // state is replaced by the document's.
    const answer = () => this.annotationsChanged(msg.line, msg.requestId);
    await this.document
      .annotate(
        {
          line: msg.line,
          turn: msg.turn,
          speaker: msg.speaker,
          segment: msg.segment,
          acts: msg.acts,
          note: msg.note,
          // The annotator id comes from the settings, never from the webview.
          annotator,
          taxonomy: settings.taxonomy.name,
        },
        this,
      )
      .finally(answer);
  }

  /** Inter-annotator agreement over the whole file, in the order of the current taxonomy. */
  private async sendAgreement(msg: PageMessage<'requestAgreement'>): Promise<void> {
    const model = this.document.model;
    const taxonomy = (await this.currentSettings()).taxonomy;
    const result = await computeAgreement(model, {
      order: { user: taxonomy.user, assistant: taxonomy.assistant },
      map: msg.map === true,
    });
    this.post({ type: 'agreement', requestId: msg.requestId, result });
  }

  /** A command the page asks for: the annotation settings (with the current values) or a SimLens command. */
  private async runPageCommand(command: PageMessage<'command'>['command']): Promise<void> {
    if (command === 'openSettings') {
      const current = await this.currentSettings();
      await this.port.openAnnotationSettings(current.annotator, current.taxonomy.name);
    } else await this.port.runCommand(command);
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

  /** The settings changed (the adapter heard it from VS Code). */
  async settingsChanged(): Promise<void> {
    this.initData = undefined;
    const before = this.settings;
    this.settings = await this.port.readSettings();
    if (before && before.allowRemoteImages !== this.settings.allowRemoteImages) {
      // The CSP changes: rebuild the page (the webview restores its state from getState).
      this.ready = false;
      this.port.rebuildHtml();
      return;
    }
    this.post({ type: 'settings', ...this.settings });
    // Not replayable: every "ready" posts the current settings' warning anyway.
    if (this.settings.taxonomyError)
      this.post({ type: 'notice', level: 'warning', message: this.settings.taxonomyError }, false);
  }

  dispose(): void {
    this.disposed = true;
    this.filterAbort?.abort();
    this.document.listeners.delete(this);
  }
}

/** Index of `value` in an ascending array, or -1. */
function indexOfSorted(arr: Uint32Array, value: number): number {
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
