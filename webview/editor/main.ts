/**
 * Conversation editor webview: composes the list, filter bar, player, annotation, keyboard and
 * view-state controllers, routes host messages, and renders the main area (transcript + side panel
 * or the agreement view).
 *
 * The host owns the document; this page only renders what it is sent (pages of summaries and
 * one conversation at a time) and sends back small requests and annotation edits.
 */
import type { Conversation } from '../../src/shared/model';
import type {
  AgreementResult,
  EditorBoot,
  EditorInit,
  HostMessage,
  ImportPreview,
  SearchStats,
} from '../../src/shared/editorProtocol';
import { isEmptyFilter } from '../../src/shared/editorView';
import { HostApi, type ViewState } from './api';
import { renderAnnotationPanel } from './annotation';
import { AnnotationController } from './annotator';
import { renderAgreement } from './agreementView';
import { button, fmt, h, icon, replace, setAttr } from './dom';
import { FilterBar } from './filters';
import { handleKey } from './keyboard';
import { VirtualList } from './list';
import { Player } from './player';
import { renderStatePanel } from './tracePanel';
import {
  conversationHeader,
  firstHitTurn,
  fillDeferredCards,
  renderTranscript,
  updateTranscriptMarks,
  type TranscriptSearch,
  type UtteranceRef,
} from './transcript';
import { ViewStateStore } from './viewState';

type Mode = ViewState['mode'];

/**
 * Where the page is in showing its first conversation: the load sequence as one explicit state
 * (the answers themselves are correlated by the channel, src/shared/rpc.ts).
 * - `starting`: "ready" sent, waiting for init; `asked` says which conversation went with it
 *   (the restored one, line 1 of a fresh unfiltered view, or none).
 * - `first`: that conversation (or a revealed one) is on its way; `eager` when it is line 1
 *   asked for before the view (a blank line 1 is not in the list: the list's first row opens).
 * - `firstRow`: the list's first row opens once its page arrives.
 * - `import`: not conversation JSONL; the conversion view is shown and nothing opens.
 * - `shown`: a conversation is on screen; later openings are the user's.
 */
type Load =
  | { phase: 'starting'; asked: 'restored' | 'line1' | undefined }
  | { phase: 'first'; eager: boolean }
  | { phase: 'firstRow' }
  | { phase: 'import' }
  | { phase: 'shown' };

type Reply<T extends HostMessage['type']> = Extract<HostMessage, { type: T }>;

interface Current {
  line: number;
  id: string;
  conversation?: Conversation;
  error?: string;
}

export class EditorApp {
  private readonly api = new HostApi();
  private readonly store: ViewStateStore;
  private readonly filters: FilterBar;
  private readonly player: Player;
  private readonly annotation: AnnotationController;
  private init: EditorInit | undefined;
  private search: SearchStats | undefined;
  private viewCount = 0;
  private partial = false;
  private filterMs = 0;
  private progress = { scanned: 0, total: 0, done: false };
  private current: Current | undefined;
  private load: Load = { phase: 'starting', asked: undefined };
  /** A selected row whose page has not arrived yet (opened by afterPage), or -1. */
  private pendingIndex = -1;
  private pendingTurn: number | undefined;
  /** The line of the conversation last asked for (on screen once its answer arrives). */
  private heading: number | undefined;
  private agreement: AgreementResult | undefined;
  private agreementLoading = false;
  private restoreScroll: number | undefined;
  private restoreTranscriptScroll: number | undefined;
  private openTimer = 0;
  private convertButton: HTMLButtonElement | undefined;

  // Elements.
  private readonly root: HTMLElement;
  private readonly list: VirtualList;
  private readonly fileLabel = h('span', 'file-name');
  private readonly progressLabel = h('span', { class: 'progress muted', attrs: { 'aria-live': 'polite' } });
  private readonly countLabel = h('div', { class: 'list-status', attrs: { 'aria-live': 'polite' } });
  private readonly modeButtons = new Map<Mode, HTMLButtonElement>();
  private readonly main = h('main', { class: 'main', attrs: { 'aria-label': 'Conversation' } });
  private readonly notices = h('div', { class: 'notices', attrs: { 'aria-live': 'assertive' } });
  /** Ids of the host notices shown by this page (a reloading page is offered recent ones again). */
  private readonly noticesShown = new Set<number>();
  private transcriptEl: HTMLElement | undefined;
  /** The text search the transcript on screen marks (JSON), to tell whether a reply needs drawing it again. */
  private drawnSearch = '';
  private transcriptScroll: HTMLElement | undefined;
  private sideEl: HTMLElement | undefined;

  constructor(root: HTMLElement) {
    this.root = root;
    this.store = new ViewStateStore(this.api);
    const state = this.store.state;
    this.restoreScroll = state.listIndex;
    this.restoreTranscriptScroll = state.transcriptScroll;
    this.agreement = state.agreement;
    this.list = new VirtualList({
      requestPage: (start, count, viewVersion) =>
        this.api.rpc.request(
          `page:${start}`,
          (requestId) => ({ type: 'requestPage', requestId, viewVersion, start, count }),
          (m) => {
            if (m.type !== 'page') return;
            this.list.receivePage(m.viewVersion, m.start, m.rows);
            this.afterPage();
          },
        ),
      select: (row, index, how) => this.onListSelect(row?.line, index, how),
      openAsText: (line) => this.api.post({ type: 'openLineAsText', line }),
      scrolled: (first) => {
        if (this.restoreScroll === undefined && this.store.state.listIndex !== first) {
          this.store.state.listIndex = first;
          this.store.save();
        }
      },
    });
    this.filters = new FilterBar(this.api, this.store, () => this.list.focus());
    this.player = new Player(this.store, {
      conversation: () => this.current?.conversation,
      intervalMs: () => this.init?.replayIntervalMs ?? 1500,
      turnChanged: () => {
        this.updateMarks();
        if (this.store.state.mode !== 'annotate') this.renderSide();
        this.scrollToFocus();
      },
      fork: (turn) => {
        const cur = this.current;
        if (cur && cur.id !== undefined) this.api.post({ type: 'fork', line: cur.line, id: cur.id, turn });
      },
    });
    this.annotation = new AnnotationController(this.api, this.store, {
      current: () => this.current,
      annotator: () => this.init?.annotator ?? '',
      taxonomy: () => this.init?.taxonomy,
      cursorMoved: (turn) => {
        this.player.turn = turn;
        this.store.state.turn = turn;
        this.store.save();
        this.updateMarks();
        this.renderSide();
        this.scrollToFocus();
      },
      annotationsEdited: () => this.renderConversation(true),
      documentState: (msg) => this.onAnnotationsChanged(msg),
    });
    this.build();
    this.listen();
    document.addEventListener('keydown', (e) =>
      handleKey(e, {
        store: this.store,
        player: this.player,
        annotation: this.annotation,
        focusSearch: () => this.filters.focusSearch(),
        neighbour: (d) => this.list.move(d),
        focusNote: () => {
          const note = this.sideEl?.querySelector('textarea');
          if (!note) return false;
          note.focus();
          return true;
        },
        status: (message) => this.notice('info', message),
      }),
    );
    this.sendReady();
  }

  /**
   * "ready", with the conversation to show first asked for in the same message so that the host
   * answers it right after `init` (one round trip before the first render, not two): the one
   * selected before the webview was hidden, or line 1 of a fresh, unfiltered view. The host leaves
   * it unanswered when it has a conversation to reveal or the file is not conversation JSONL;
   * `onInit` decides. With boot data in the HTML (EditorBoot) the page takes `init`, and that
   * conversation when it is the one it would ask for, from there: no round trip at all.
   */
  private sendReady(): void {
    const boot = this.takeBoot();
    const state = this.store.state;
    let line: number | undefined;
    let asked: 'restored' | 'line1' | undefined;
    if (state.line !== undefined) {
      this.pendingTurn = state.turn;
      line = state.line;
      asked = 'restored';
    } else if (isEmptyFilter(state.filter)) {
      line = 0;
      asked = 'line1';
    }
    this.load = { phase: 'starting', asked };
    const booted = boot ? ({ booted: true } as const) : {};
    const first = boot?.first && boot.first.line === line ? boot.first : undefined;
    this.heading = line;
    if (line === undefined || first) this.api.post({ type: 'ready', ...booted });
    else {
      const ask = line;
      this.api.rpc.request(
        'conversation',
        (requestId) => ({ type: 'ready', first: { requestId, line: ask }, ...booted }),
        (m) => this.onConversationReply(m),
      );
    }
    mark('simlens:ready');
    if (!boot) return;
    mark('simlens:init');
    this.onInit(boot.init);
    // onInit moved the load state on (TypeScript still sees the 'starting' set above).
    const load = this.load as Load;
    if (first && load.phase === 'first') {
      mark('simlens:conversation');
      this.onConversation({ type: 'conversation', requestId: 0, viewIndex: -1, ...first });
    }
  }

  /** The boot data in the page's HTML (#app data-boot), read once; undefined without it or when unreadable. */
  private takeBoot(): EditorBoot | undefined {
    const raw = this.root.dataset.boot;
    if (raw === undefined) return undefined;
    delete this.root.dataset.boot;
    try {
      return JSON.parse(raw) as EditorBoot;
    } catch {
      return undefined;
    }
  }

  // Layout ---------------------------------------------------------------------------------

  private build(): void {
    const modes: Array<[Mode, string, string]> = [
      ['replay', 'play-circle', 'Replay'],
      ['annotate', 'tag', 'Annotate'],
      ['agreement', 'graph', 'Agreement'],
    ];
    const modeGroup = h('div', { class: 'modes', attrs: { role: 'tablist', 'aria-label': 'Mode' } });
    for (const [mode, ic, label] of modes) {
      const b = button({ icon: ic, label, title: `${label} mode`, class: 'mode', onClick: () => this.setMode(mode) });
      setAttr(b, 'role', 'tab');
      this.modeButtons.set(mode, b);
      modeGroup.appendChild(b);
    }
    const toolbar = h(
      'header',
      'toolbar',
      this.filters.element,
      modeGroup,
      button({
        icon: 'go-to-file',
        title: 'Go to conversation by id (Ctrl+Alt+G)',
        class: 'icon',
        onClick: () => this.api.post({ type: 'command', command: 'goToConversation' }),
      }),
      button({
        icon: 'checklist',
        title: 'Check the behavioural invariants of this file (violations link back here)',
        class: 'icon check-invariants',
        onClick: () => this.api.post({ type: 'command', command: 'checkInvariants' }),
      }),
    );
    const listPane = h(
      'aside',
      { class: 'list-pane', attrs: { 'aria-label': 'Conversation list' } },
      h('div', 'file', icon('comment-discussion'), this.fileLabel, this.progressLabel),
      this.countLabel,
      this.list.element,
    );
    replace(this.root, toolbar, listPane, this.main, this.notices);
    setAttr(this.root, 'aria-busy', 'false');
    this.renderMain();
    this.updateModeButtons();
  }

  private updateModeButtons(): void {
    const mode = this.store.state.mode;
    for (const [m, b] of this.modeButtons) {
      b.classList.toggle('active', m === mode);
      setAttr(b, 'aria-selected', m === mode ? 'true' : 'false');
    }
    this.root.dataset.mode = mode;
  }

  // Messages ------------------------------------------------------------------------------

  /** Host events (answers to requests go to the handler given with each request). */
  private listen(): void {
    this.api.rpc
      .on('init', (msg) => {
        mark('simlens:init');
        this.onInit(msg.init);
      })
      .on('indexed', (msg) => {
        if (this.init)
          this.init = { ...this.init, lineCount: msg.lineCount, fileSize: msg.fileSize, indexing: undefined };
        this.updateProgress();
      })
      .on('progress', (msg) => {
        this.progress = msg;
        this.updateProgress();
      })
      .on('view', (msg) => this.onView(msg))
      .on('reveal', (msg) => {
        this.pendingTurn = msg.turn;
        this.openLine(msg.line);
      })
      // Undo/redo, another editor of the file, or an edit answered after this page reloaded.
      .on('annotationsChanged', (msg) => this.onAnnotationsChanged(msg))
      .allowUnmatched('annotationsChanged')
      .on('reloaded', (msg) => {
        this.notice('info', `File ${msg.reason}.`);
        // Re-read the conversation the page is heading to (a reveal or a click whose answer is still on
        // its way), not the one on screen: re-opening that would replace the newer request.
        const line = this.heading ?? this.current?.line;
        if (line !== undefined) this.openLine(Math.min(line, Math.max(0, msg.lineCount - 1)));
      })
      .on('settings', (msg) => {
        if (this.init) {
          this.init = {
            ...this.init,
            annotator: msg.annotator,
            taxonomy: msg.taxonomy,
            taxonomyError: msg.taxonomyError,
            allowRemoteImages: msg.allowRemoteImages,
            replayIntervalMs: msg.replayIntervalMs,
          };
          this.renderConversation(true);
        }
      })
      .on('notice', (msg) => {
        // The host offers recent notices again to a page that (re)loads: show each one once.
        if (msg.id !== undefined) {
          if (this.noticesShown.has(msg.id)) return;
          this.noticesShown.add(msg.id);
        }
        // A failed conversion: let the user try again.
        if (msg.level === 'error' && this.convertButton) {
          this.convertButton.disabled = false;
          this.convertButton.parentElement?.querySelector('.convert-status')?.replaceChildren();
        }
        this.notice(msg.level, msg.message);
      });
  }

  private onAnnotationsChanged(msg: Reply<'annotationsChanged'>): void {
    if (this.current && this.current.line === msg.line) {
      this.current.conversation = msg.conversation;
      this.renderConversation(true);
    }
    this.list.refresh();
  }

  private onConversationReply(msg: HostMessage): void {
    if (msg.type !== 'conversation') return;
    if (!this.current) mark('simlens:conversation');
    this.onConversation(msg);
  }

  private onAgreement(msg: HostMessage): void {
    if (msg.type !== 'agreement') return;
    this.agreementLoading = false;
    this.agreement = msg.result;
    this.store.state.agreement = msg.result;
    this.store.save();
    if (msg.error) this.notice('error', msg.error);
    if (this.store.state.mode === 'agreement') this.renderMain();
  }

  private onInit(init: EditorInit): void {
    this.init = init;
    replace(this.fileLabel, init.fileName);
    setAttr(this.fileLabel, 'title', init.filePath);
    this.updateProgress();
    const asked = this.load.phase === 'starting' ? this.load.asked : undefined;
    if (init.importable) {
      // Not conversation JSONL: offer the conversion instead of listing lines (the host does not
      // answer the request sent with "ready").
      this.api.rpc.cancel('conversation');
      this.load = { phase: 'import' };
      this.renderImport(init.importable);
      return;
    }
    if (asked === 'line1' && !init.indexing && init.lineCount === 0) {
      // An empty file has no line 1 (the host leaves that request unanswered).
      this.api.rpc.cancel('conversation');
      this.load = { phase: 'firstRow' };
    } else this.load = asked ? { phase: 'first', eager: asked === 'line1' } : { phase: 'firstRow' };
    const state = this.store.state;
    this.filters.apply(state.filter);
    this.api.post({ type: 'setFilter', filter: state.filter });
    if (init.reveal) {
      // A conversation to reveal replaces the one asked for with "ready" (the host did not answer it).
      this.load = { phase: 'first', eager: false };
      this.pendingTurn = init.reveal.turn;
      this.openLine(init.reveal.line);
    }
    // Otherwise the first conversation (the restored one, or line 1 of a fresh unfiltered view) was
    // asked for with "ready", in parallel with the view and its first page; the view opens the
    // list's first row instead when the filter hides line 1 (onView).
    if (state.mode === 'agreement' && !this.agreement && !this.agreementLoading) {
      this.requestAgreement();
      this.renderMain();
    }
  }

  /** The "this file can be converted" view: detected format, the import summary and a Convert button. */
  private renderImport(p: ImportPreview): void {
    replace(this.countLabel, 'Not conversation JSONL');
    const convert = button({
      icon: 'arrow-swap',
      label: `Convert to ${p.target} and open`,
      class: 'primary convert',
      onClick: () => {
        this.convertButton = convert;
        convert.disabled = true;
        replace(status, 'Converting…');
        this.api.post({ type: 'convert' });
      },
    });
    const status = h('p', { class: 'muted convert-status', attrs: { 'aria-live': 'polite' } });
    const intro = p.error
      ? h(
          'div',
          'error-box big',
          icon('error'),
          h('div', null, h('strong', null, 'SimLens cannot import this file'), h('p', null, p.error)),
        )
      : h(
          'p',
          null,
          `SimLens can convert it to conversation JSONL: ${p.target} is written beside it (the file itself is not ` +
            `changed), with the same conversion as "SimLens: Convert to Conversation JSONL".`,
        );
    replace(
      this.main,
      h(
        'div',
        { class: 'import-view', attrs: { role: 'region', 'aria-label': 'Convert this file' } },
        h('div', 'conv-header', h('h2', 'import-format', p.headline)),
        intro,
        p.text ? h('pre', 'import-summary', p.text) : '',
        p.error ? '' : convert,
        status,
      ),
    );
  }

  private onView(msg: Extract<HostMessage, { type: 'view' }>): void {
    this.search = msg.search;
    this.viewCount = msg.count;
    this.partial = msg.partial;
    this.filterMs = msg.ms;
    this.filters.setFacets(msg.facets);
    this.list.setView(msg.count, msg.viewVersion);
    if (this.restoreScroll !== undefined) {
      this.list.scrollToIndex(this.restoreScroll);
      this.restoreScroll = undefined;
    }
    this.updateCounts();
    if (this.current) {
      // Re-find the selected conversation's position in the new view (or the one being opened: a
      // reveal or a click whose answer is on its way, which re-opening the shown one would replace).
      this.openLine(this.heading ?? this.current.line);
    } else if (this.load.phase === 'firstRow' && msg.count > 0) {
      // Nothing selected yet: open the first conversation once its row arrives.
      this.pendingIndex = 0;
    }
  }

  private afterPage(): void {
    if (this.pendingIndex >= 0) {
      const row = this.list.rowAt(this.pendingIndex);
      if (row) {
        this.pendingIndex = -1;
        this.openLine(row.line);
      }
    }
  }

  private onConversation(msg: Reply<'conversation'>): void {
    if (this.load.phase === 'first' && this.load.eager && msg.error === 'blank line') {
      // Line 1 is blank: it is not in the list; open the list's first row when it arrives instead.
      this.load = { phase: 'firstRow' };
      this.pendingIndex = 0;
      this.afterPage();
      return;
    }
    this.load = { phase: 'shown' };
    const sameLine = this.current?.line === msg.line && this.current?.id === msg.id;
    // The conversation on screen again, unchanged (the list's view arrived and the page asked where
    // it now stands in it): the reply moves the list's selection; the transcript stays as drawn
    // (drawing it again cost a whole render, on a first open often before the first paint).
    const unchanged =
      sameLine &&
      this.pendingTurn === undefined &&
      this.transcriptEl?.isConnected === true &&
      this.drawnSearch === JSON.stringify(this.searchTerms() ?? null) &&
      this.current?.error === msg.error &&
      JSON.stringify(this.current?.conversation) === JSON.stringify(msg.conversation);
    const state = this.store.state;
    this.current = { line: msg.line, id: msg.id, conversation: msg.conversation, error: msg.error };
    this.list.select(msg.line, msg.viewIndex, true);
    const n = msg.conversation?.turns.length ?? 0;
    if (this.pendingTurn !== undefined) {
      this.player.turn = Math.max(0, Math.min(n - 1, this.pendingTurn));
      this.pendingTurn = undefined;
      this.annotation.cursor = state.line === msg.line ? (state.cursor ?? 0) : 0;
    } else if (!sameLine) {
      // A new conversation opens fully shown (state panel at the last turn); Home / play restart it.
      // With a text search it opens at the first hit instead, so the match is on screen.
      const hitTurn = msg.conversation ? firstHitTurn(msg.conversation, this.searchTerms()) : undefined;
      this.player.turn = hitTurn ?? Math.max(0, n - 1);
      this.annotation.cursor = 0;
      this.player.stop();
      if (state.mode === 'annotate') this.startAnnotating();
    }
    // Whole cards are kept for the conversation they were asked for.
    if (state.line !== msg.line) state.wholeCards = undefined;
    state.line = msg.line;
    state.turn = this.player.turn;
    state.cursor = this.annotation.cursor;
    this.store.save();
    if (!unchanged) this.renderMain(sameLine);
  }

  private updateCounts(): void {
    const fc = this.filters.facets;
    const total = fc ? fc.valid + fc.invalid + fc.pending : 0;
    // Invalid lines are lines, not conversations: with some, the count says lines and splits them.
    const conversations = fc ? fc.valid + fc.pending : 0;
    const parts: Array<string | HTMLElement> = fc?.invalid
      ? [
          h('strong', null, fmt(this.viewCount)),
          ` of ${fmt(total)} lines: ${fmt(conversations)} conversation${conversations === 1 ? '' : 's'}`,
          h('span', 'error-text', `, ${fmt(fc.invalid)} invalid line${fc.invalid === 1 ? '' : 's'}`),
        ]
      : [h('strong', null, fmt(this.viewCount)), ` of ${fmt(total)} conversation${total === 1 ? '' : 's'}`];
    if (this.search) {
      parts.push(` · ${fmt(this.search.utterances)} matching utterance${this.search.utterances === 1 ? '' : 's'}`);
      if (this.search.capped) parts.push(' (stopped at the first matches)');
    }
    parts.push(h('span', 'muted', ` · ${this.filterMs} ms`));
    if (this.partial) parts.push(h('span', 'muted', ' · still reading the file'));
    replace(this.countLabel, ...parts);
  }

  private updateProgress(): void {
    const p = this.progress;
    if (this.init?.indexing) replace(this.progressLabel, icon('loading'), ' indexing');
    else if (p.done || p.total === 0)
      replace(
        this.progressLabel,
        this.init ? `${fmt(this.init.lineCount)} lines · ${(this.init.fileSize / 1048576).toFixed(1)} MB` : '',
      );
    else replace(this.progressLabel, icon('loading'), ` reading ${Math.floor((100 * p.scanned) / p.total)}%`);
  }

  // Selection -----------------------------------------------------------------------------

  private onListSelect(line: number | undefined, index: number, how: 'click' | 'key'): void {
    if (line === undefined) {
      this.pendingIndex = index;
      return;
    }
    clearTimeout(this.openTimer);
    if (how === 'key') this.openTimer = window.setTimeout(() => this.openLine(line), 60);
    else this.openLine(line);
  }

  /** Asks for a conversation; an answer to an earlier request that arrives after it is dropped (rpc). */
  private openLine(line: number): void {
    this.heading = line;
    this.api.rpc.request(
      'conversation',
      (requestId) => ({ type: 'openConversation', requestId, line }),
      (m) => this.onConversationReply(m),
    );
  }

  // Rendering -----------------------------------------------------------------------------

  private renderMain(keepScroll = false): void {
    const prevScroll = this.transcriptScroll?.scrollTop;
    if (this.store.state.mode === 'agreement') {
      this.player.stop();
      replace(
        this.main,
        renderAgreement({
          result: this.agreement,
          loading: this.agreementLoading,
          map: this.store.state.agreementMap === true,
          onCompute: (map) => {
            this.store.state.agreementMap = map;
            this.requestAgreement();
            this.renderMain();
          },
        }),
      );
      this.transcriptEl = this.transcriptScroll = this.sideEl = undefined;
      this.player.detach();
      return;
    }
    const cur = this.current;
    if (!cur) {
      replace(
        this.main,
        h(
          'div',
          'empty-state',
          icon('comment-discussion'),
          h('p', null, this.viewCount ? 'Select a conversation.' : 'No conversations match.'),
        ),
      );
      return;
    }
    if (!cur.conversation) {
      const open = button({
        icon: 'go-to-file',
        label: `Open line ${cur.line + 1} as text`,
        onClick: () => this.api.post({ type: 'openLineAsText', line: cur.line }),
      });
      replace(
        this.main,
        h('div', 'conv-header', h('h2', 'conv-id', `Line ${cur.line + 1}`)),
        h(
          'div',
          'error-box big',
          icon('error'),
          h(
            'div',
            null,
            h('strong', null, 'This line is not a valid conversation'),
            h('p', null, cur.error ?? 'invalid'),
          ),
        ),
        open,
      );
      return;
    }
    this.renderConversation(keepScroll, prevScroll);
  }

  /**
   * Element Timing reports an element's first paint only, and a page painted while its webview was
   * still hidden may report none (an E2E open in CI waited 10 s for it with the text on screen).
   * Once the page is visible and loaded, a first text still untimed is drawn again (the same
   * transcript, new elements, scroll and focus kept) and marked, so its first visible paint is timed.
   */
  retimeFirstText(): void {
    if (document.body.dataset.textVisibleEpoch || document.visibilityState !== 'visible') return;
    if (!this.current?.conversation || !this.transcriptScroll?.isConnected) return;
    this.renderConversation(true);
    (this.transcriptEl?.querySelector('.msg .bubble') ?? this.main.querySelector('.conv-id'))?.setAttribute(
      'elementtiming',
      FIRST_TEXT,
    );
  }

  private renderConversation(keepScroll: boolean, prevScroll?: number): void {
    const cur = this.current;
    if (!cur?.conversation || this.store.state.mode === 'agreement') return;
    const conv = cur.conversation;
    this.drawnSearch = JSON.stringify(this.searchTerms() ?? null);
    const shown = this.transcriptScroll;
    if (keepScroll && shown?.isConnected && this.main.dataset.line === String(cur.line)) {
      // Same conversation (an annotation edit, a settings change): swap the transcript inside the
      // same scroller so the scroll position and focus stay where they are.
      const focusedRef =
        document.activeElement instanceof HTMLElement && shown.contains(document.activeElement)
          ? document.activeElement
          : undefined;
      const sel = focusedRef
        ? `.msg[data-turn="${focusedRef.dataset.turn}"][data-speaker="${focusedRef.dataset.speaker}"]`
        : undefined;
      const top = shown.scrollTop;
      this.transcriptEl = renderTranscript(conv, this.transcriptOptions());
      replace(shown, this.transcriptEl);
      shown.scrollTop = top;
      if (sel) this.transcriptEl.querySelector<HTMLElement>(sel)?.focus({ preventScroll: true });
      // Leave the side panel alone while its note box is being typed in.
      if (!(document.activeElement instanceof HTMLTextAreaElement && this.sideEl?.contains(document.activeElement)))
        this.renderSide();
      return;
    }
    const scrollBefore = prevScroll ?? this.transcriptScroll?.scrollTop;
    this.main.dataset.line = String(cur.line);
    // The page's first render draws the cards likely on screen; the others right after the first paint.
    const deferCards = !document.body.dataset.firstRenderMs && browserSkipsOffscreen();
    const near = this.store.state.mode === 'annotate' ? (this.annotation.cursorRef()?.turn ?? 0) : this.player.turn;
    this.transcriptEl = renderTranscript(conv, {
      ...this.transcriptOptions(),
      deferCards: deferCards ? { near } : undefined,
    });
    // Focusable, so the transcript scrolls from the keyboard (arrow keys, Page Up/Down) like any scroll area.
    const scroller = h(
      'div',
      { class: 'transcript-scroll', attrs: { tabindex: 0, role: 'region', 'aria-label': 'Transcript' } },
      this.transcriptEl,
    );
    this.transcriptScroll = scroller;
    scroller.addEventListener('scroll', () => {
      this.store.state.transcriptScroll = scroller.scrollTop;
      this.store.saveSoon();
    });
    this.sideEl = h('div', 'side');
    replace(
      this.main,
      conversationHeader(conv, cur.id, cur.line),
      this.player.buildBar(),
      h('div', 'content', scroller, this.sideEl),
    );
    this.renderSide();
    // The transcript's scroll position (restored, kept, or the focused turn in view). Setting it makes
    // the browser lay the page out at once; on the first render that is left to the first frame, so
    // the page is laid out once, whole, when it is painted (not once for the scroll, again for the frame).
    const restore = this.restoreTranscriptScroll;
    this.restoreTranscriptScroll = undefined;
    const scroll = () => {
      if (this.transcriptScroll !== scroller) return;
      if (restore !== undefined) {
        scroller.scrollTop = restore;
      } else if (keepScroll && scrollBefore !== undefined) {
        scroller.scrollTop = scrollBefore;
      } else {
        this.scrollToFocus();
      }
    };
    // Time from page start to the first conversation on screen (read by the E2E benchmark).
    if (!document.body.dataset.firstRenderMs) {
      document.body.dataset.firstRenderMs = String(Math.round(performance.now()));
      mark('simlens:rendered');
      const scrollOnce = once(scroll);
      // And on the machine's clock, in the frame that paints it (the E2E compares it with the
      // moment the file was chosen in Quick Open).
      requestAnimationFrame(() => {
        scrollOnce();
        document.body.dataset.firstPaintEpoch = String(Math.round(performance.timeOrigin + performance.now()));
      });
      // A hidden page paints no frame: its scroll is set soon anyway.
      setTimeout(scrollOnce, DEFERRED_CARDS_MAX_MS);
      if (deferCards) afterFirstVisibleFrame(fillDeferredCards);
    } else scroll();
    // The first text a person reads (the first utterance, or the id of an empty conversation): the
    // browser reports when it is painted (Element Timing, see observeFirstText). Marked on every render
    // until then: a render replaced before any frame was painted (a webview not shown yet) paints nothing.
    if (!document.body.dataset.textVisibleEpoch)
      (this.transcriptEl.querySelector('.msg .bubble') ?? this.main.querySelector('.conv-id'))?.setAttribute(
        'elementtiming',
        FIRST_TEXT,
      );
  }

  /** The list's text search, for highlighting (undefined without one). */
  private searchTerms(): TranscriptSearch | undefined {
    const f = this.store.state.filter;
    const needle = f?.text?.trim().toLowerCase();
    return needle ? { needle, speaker: f?.speaker ?? 'both' } : undefined;
  }

  private transcriptOptions() {
    return {
      search: this.searchTerms(),
      allowRemoteImages: this.init?.allowRemoteImages ?? false,
      turn: this.player.turn,
      mode: this.store.state.mode,
      cursor: this.annotation.cursorRef(),
      annotator: this.init?.annotator ?? '',
      onSelectUtterance: (ref: UtteranceRef) => {
        if (this.store.state.mode === 'annotate') {
          const i = this.annotation.utterances().findIndex((u) => u.turn === ref.turn && u.speaker === ref.speaker);
          if (i >= 0) this.annotation.setCursor(i);
        } else this.player.setTurn(ref.turn);
      },
      onSelectTurn: (t: number) => this.player.setTurn(t),
      wholeCards: new Set(this.store.state.wholeCards ?? []),
      onWholeCards: (t: number, on: boolean) => {
        const turns = new Set(this.store.state.wholeCards ?? []);
        if (on) turns.add(t);
        else turns.delete(t);
        this.store.state.wholeCards = turns.size ? [...turns].sort((a, b) => a - b) : undefined;
        this.store.save();
      },
    };
  }

  private updateMarks(): void {
    if (this.transcriptEl)
      updateTranscriptMarks(this.transcriptEl, {
        turn: this.player.turn,
        mode: this.store.state.mode,
        cursor: this.annotation.cursorRef(),
      });
  }

  private renderSide(): void {
    const conv = this.current?.conversation;
    if (!conv || !this.sideEl) return;
    if (this.store.state.mode === 'annotate') {
      const refs = this.annotation.utterances();
      const cursor = this.annotation.cursor;
      replace(
        this.sideEl,
        renderAnnotationPanel({
          conv,
          ref: refs[cursor],
          index: cursor,
          total: refs.length,
          annotator: this.init?.annotator ?? '',
          taxonomy: this.init?.taxonomy ?? { name: 'convapparel', user: [], assistant: [] },
          onToggle: (act) => this.annotation.toggleAct(act),
          onNote: (note) => this.annotation.setNote(note),
          onLeaveNote: () => this.focusCursor(),
          onMove: (d) => this.annotation.move(d),
          onOpenSettings: () => this.api.post({ type: 'command', command: 'openSettings' }),
          onUseTaxonomy: (name) => this.api.post({ type: 'setTaxonomy', name }),
        }),
      );
    } else {
      replace(this.sideEl, renderStatePanel(conv, this.player.turn));
    }
  }

  private scrollToFocus(): void {
    const root = this.transcriptEl;
    if (!root) return;
    let target: Element | null = null;
    if (this.store.state.mode === 'annotate') {
      const ref = this.annotation.cursorRef();
      if (ref) target = root.querySelector(`.msg[data-turn="${ref.turn}"][data-speaker="${ref.speaker}"]`);
    } else target = root.querySelector(`section.turn[data-turn="${this.player.turn}"]`);
    (target as HTMLElement | null)?.scrollIntoView?.({ block: 'nearest' });
  }

  // Modes -----------------------------------------------------------------------------------

  private setMode(mode: Mode): void {
    const state = this.store.state;
    if (state.mode === mode) return;
    state.mode = mode;
    this.store.save();
    this.updateModeButtons();
    if (mode === 'annotate') {
      this.player.stop();
      this.startAnnotating();
    }
    if (mode === 'agreement' && !this.agreement && !this.agreementLoading) this.requestAgreement();
    this.renderMain();
    // The utterance being labelled is on screen, whatever the transcript's scroll was.
    if (mode === 'annotate') this.scrollToFocus();
  }

  private requestAgreement(): void {
    this.agreementLoading = true;
    this.api.rpc.request(
      'agreement',
      (requestId) => ({ type: 'requestAgreement', requestId, map: this.store.state.agreementMap === true }),
      (m) => this.onAgreement(m),
    );
  }

  /** Puts the annotation cursor on the first utterance the annotator has not annotated yet. */
  private startAnnotating(): void {
    const refs = this.annotation.utterances();
    if (refs.length === 0) return;
    this.annotation.cursor = this.annotation.firstUnannotated();
    this.player.turn = refs[this.annotation.cursor].turn;
    this.store.state.cursor = this.annotation.cursor;
    this.store.state.turn = this.player.turn;
    this.store.save();
  }

  /** Focuses the utterance under the annotation cursor (after leaving the note box). */
  private focusCursor(): void {
    const ref = this.annotation.cursorRef();
    const el =
      ref &&
      this.transcriptEl?.querySelector<HTMLElement>(`.msg[data-turn="${ref.turn}"][data-speaker="${ref.speaker}"]`);
    if (el) {
      el.focus({ preventScroll: true });
      el.scrollIntoView?.({ block: 'nearest' });
    } else this.transcriptScroll?.focus();
  }

  // Notices ---------------------------------------------------------------------------------

  private notice(level: 'info' | 'warning' | 'error', message: string): void {
    const el = h(
      'div',
      { class: `notice ${level}`, attrs: { role: level === 'error' ? 'alert' : 'status' } },
      icon(level === 'info' ? 'info' : level),
      h('span', null, message),
    );
    const close = button({ icon: 'close', title: 'Dismiss', class: 'icon', onClick: () => el.remove() });
    el.appendChild(close);
    this.notices.appendChild(el);
    while (this.notices.children.length > 3) this.notices.firstChild?.remove();
    if (level === 'info') window.setTimeout(() => el.remove(), 5000);
  }
}

/** The Element Timing identifier of the first conversation text on screen. */
const FIRST_TEXT = 'simlens-first-text';

/** `f`, run by the first of its callers only. */
function once(f: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    f();
  };
}

/** Cards left empty on the first render are drawn at the latest this long after the page's load (a hidden page paints no frame). */
const DEFERRED_CARDS_MAX_MS = 200;

/**
 * Runs `f` once the first frame a person can see has been painted (the task after it), or
 * DEFERRED_CARDS_MAX_MS after the page's load event when no frame comes (a hidden page). VS Code
 * keeps a webview's frame hidden until the page's load event (its `pre/index.html`): the frames
 * before it are painted for nobody, so the first one that counts is the first after the load.
 */
function afterFirstVisibleFrame(f: () => void): void {
  const run = once(f);
  const afterLoad = () => {
    requestAnimationFrame(() => setTimeout(run, 0));
    setTimeout(run, DEFERRED_CARDS_MAX_MS);
  };
  if (document.readyState === 'complete') afterLoad();
  else window.addEventListener('load', () => afterLoad(), { once: true });
}

/**
 * A browser that skips the layout and paint of what is off screen (`content-visibility`, as
 * media/editor.css asks for the cards): there the first render leaves the cards out of view empty
 * (`deferCards`). Elsewhere (jsdom) every card is drawn at once.
 */
function browserSkipsOffscreen(): boolean {
  return typeof CSS !== 'undefined' && typeof CSS.supports === 'function' && CSS.supports('content-visibility', 'auto');
}

/** Element Timing's entry (not in TypeScript's DOM library yet). */
interface ElementTimingEntry extends PerformanceEntry {
  identifier: string;
  renderTime: number;
  loadTime: number;
}

/**
 * Records, on the machine's clock, when the browser painted the first conversation text
 * (`data-text-visible-epoch`, read by the E2E first-render benchmark): the moment a person can read it,
 * later than the animation frame that starts painting it. Absent where Element Timing is (jsdom).
 */
function elementTimingSupported(): boolean {
  return typeof PerformanceObserver === 'function' && !!PerformanceObserver.supportedEntryTypes?.includes('element');
}

function observeFirstText(): void {
  if (!elementTimingSupported()) return;
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries() as ElementTimingEntry[]) {
      if (e.identifier !== FIRST_TEXT) continue;
      document.body.dataset.textVisibleEpoch = String(
        Math.round(performance.timeOrigin + (e.renderTime || e.loadTime)),
      );
      observer.disconnect();
      return;
    }
  });
  observer.observe({ type: 'element', buffered: true });
}

/** A user-timing mark (see `start`); absent in jsdom. */
function mark(name: string): void {
  if (typeof performance.mark === 'function') performance.mark(name);
}

/**
 * Lets the icons take their font (codicon.ttf) once the page has loaded (media/editor.css keeps them
 * unpainted, in their box, until `body.codicons`). VS Code keeps a webview's frame hidden until the
 * page's load event, and a font fetched while the page loads holds that event back: the icon font,
 * fetched through VS Code's service worker and the extension host, delayed the first conversation
 * text on screen by the length of that fetch.
 */
function iconFontAfterLoad(): void {
  const on = () => {
    loadIconGlyphs();
    document.body.classList.add('codicons');
  };
  if (document.readyState === 'complete') on();
  else window.addEventListener('load', () => setTimeout(on, 0), { once: true });
}

/**
 * The icons' glyph rules: the HTML carries the codicon stylesheet without them (34 KB less to hand
 * over and parse before the first conversation is on screen); the whole stylesheet (its address in
 * #app data-icon-styles) is loaded with the font, before the page's own stylesheet so that the
 * cascade is the one of the inlined stylesheets.
 */
function loadIconGlyphs(): void {
  const app = document.getElementById('app');
  const href = app?.dataset.iconStyles;
  if (!href || document.getElementById('icon-glyphs')) return;
  const link = document.createElement('link');
  link.id = 'icon-glyphs';
  link.rel = 'stylesheet';
  link.href = href;
  const styles = document.head.querySelectorAll('style');
  const own = styles[styles.length - 1];
  if (own) document.head.insertBefore(link, own);
  else document.head.appendChild(link);
  // The font is fetched at once, beside the stylesheet, not once the first glyph rule applies.
  void document.fonts?.load('16px codicon').catch(() => undefined);
}

/** Entry point: runs when the page loads (the bundle is an IIFE). */
export function start(): EditorApp | undefined {
  // User-timing marks of the first render (read by the E2E first-render test): script start,
  // "ready" sent, init and the first conversation received, first conversation in the DOM.
  mark('simlens:script');
  observeFirstText();
  iconFontAfterLoad();
  const root = document.getElementById('app');
  if (!root) return undefined;
  const app = new EditorApp(root);
  if (elementTimingSupported()) {
    const retime = () => setTimeout(() => app.retimeFirstText(), 500);
    if (document.readyState === 'complete') retime();
    else window.addEventListener('load', retime, { once: true });
    document.addEventListener('visibilitychange', retime);
  }
  return app;
}

start();
