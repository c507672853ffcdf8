/**
 * Conversation editor webview: list + transcript + replay + annotation + agreement.
 *
 * The host owns the document; this page only renders what it is sent (pages of summaries and
 * one conversation at a time) and sends back small requests and annotation edits. View state
 * (filter, conversation, turn, scroll, mode) is kept with getState/setState so it survives the
 * tab being hidden (retainContextWhenHidden is off).
 */
import type { Conversation } from '../../src/core/model';
import type { AgreementResult, EditorInit, Facets, HostMessage, SearchStats, SummaryFilter } from '../../src/shared/editorProtocol';
import { HostApi, type ViewState } from './api';
import { renderAnnotationPanel, actIndexForKey, currentAnnotation } from './annotation';
import { renderAgreement } from './agreementView';
import { button, fmt, h, icon, replace, setAttr } from './dom';
import { VirtualList } from './list';
import { renderStatePanel } from './tracePanel';
import { conversationHeader, renderTranscript, updateTranscriptMarks, utterancesOf, type UtteranceRef } from './transcript';

type Mode = ViewState['mode'];

const SPEEDS = [0.5, 1, 2, 4];

interface Current {
  line: number;
  id: string;
  conversation?: Conversation;
  error?: string;
}

export class EditorApp {
  private readonly api = new HostApi();
  private init: EditorInit | undefined;
  private state: ViewState;
  private facets: Facets | undefined;
  private search: SearchStats | undefined;
  private viewCount = 0;
  private partial = false;
  private filterMs = 0;
  private progress = { scanned: 0, total: 0, done: false };
  private current: Current | undefined;
  private turn = 0;
  private cursor = 0;
  private playing: number | undefined;
  private nextRequest = 1;
  private conversationRequest = 0;
  private pendingIndex = -1;
  private pendingTurn: number | undefined;
  private agreement: AgreementResult | undefined;
  private agreementLoading = false;
  private restoreScroll: number | undefined;
  private restoreTranscriptScroll: number | undefined;
  private openTimer = 0;
  private searchTimer = 0;

  // Elements.
  private readonly root: HTMLElement;
  private readonly list: VirtualList;
  private readonly fileLabel = h('span', 'file-name');
  private readonly progressLabel = h('span', { class: 'progress muted', attrs: { 'aria-live': 'polite' } });
  private readonly countLabel = h('div', { class: 'list-status', attrs: { 'aria-live': 'polite' } });
  private readonly selects: Record<'task' | 'condition' | 'source' | 'outcome' | 'validity' | 'annotator' | 'speaker', HTMLSelectElement>;
  private readonly searchInput: HTMLInputElement;
  private readonly modeButtons = new Map<Mode, HTMLButtonElement>();
  private readonly main = h('main', { class: 'main', attrs: { 'aria-label': 'Conversation' } });
  private readonly notices = h('div', { class: 'notices', attrs: { 'aria-live': 'assertive' } });
  private transcriptEl: HTMLElement | undefined;
  private transcriptScroll: HTMLElement | undefined;
  private sideEl: HTMLElement | undefined;
  private replayBar: HTMLElement | undefined;

  constructor(root: HTMLElement) {
    this.root = root;
    this.state = this.api.getState() ?? { filter: {}, mode: 'replay' };
    this.restoreScroll = this.state.listIndex;
    this.restoreTranscriptScroll = this.state.transcriptScroll;
    this.list = new VirtualList({
      requestPage: (start, count, viewVersion) => this.api.post({ type: 'requestPage', requestId: this.nextRequest++, viewVersion, start, count }),
      select: (row, index, how) => this.onListSelect(row?.line, index, how),
      openAsText: (line) => this.api.post({ type: 'openLineAsText', line }),
      scrolled: (first) => {
        if (this.restoreScroll === undefined && this.state.listIndex !== first) {
          this.state.listIndex = first;
          this.saveState();
        }
      },
    });
    const select = (name: string, label: string) => {
      const s = h('select', { class: 'filter', attrs: { 'aria-label': label, title: label, name } });
      s.addEventListener('change', () => this.filterChanged());
      return s;
    };
    this.selects = {
      task: select('task', 'Task'),
      condition: select('condition', 'Condition'),
      source: select('source', 'Source'),
      outcome: select('outcome', 'Outcome'),
      validity: select('validity', 'Valid / invalid lines'),
      annotator: select('annotator', 'Annotated by'),
      speaker: select('speaker', 'Search in'),
    };
    for (const [v, t] of [['both', 'all utterances'], ['user', 'user utterances'], ['assistant', 'assistant utterances']]) {
      this.selects.speaker.appendChild(h('option', { attrs: { value: v } }, t));
    }
    this.searchInput = h('input', { class: 'search', attrs: { type: 'search', placeholder: 'Search utterances ( / )', 'aria-label': 'Search utterances', spellcheck: 'false' } });
    this.searchInput.addEventListener('input', () => {
      clearTimeout(this.searchTimer);
      this.searchTimer = window.setTimeout(() => this.filterChanged(), 250);
    });
    this.searchInput.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        clearTimeout(this.searchTimer);
        this.filterChanged();
      }
      if (e.key === 'Escape') {
        this.searchInput.blur();
        this.list.focus();
      }
      e.stopPropagation();
    });
    this.build();
    window.addEventListener('message', (e: MessageEvent) => this.onMessage(e.data as HostMessage));
    document.addEventListener('keydown', (e) => this.onKey(e));
    this.api.post({ type: 'ready' });
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
      h(
        'div',
        'filters',
        icon('filter'),
        this.selects.task,
        this.selects.condition,
        this.selects.source,
        this.selects.outcome,
        this.selects.validity,
        this.selects.annotator,
        h('span', 'search-box', icon('search'), this.searchInput, this.selects.speaker),
        button({ icon: 'clear-all', title: 'Clear filters', class: 'icon', onClick: () => this.clearFilters() }),
      ),
      modeGroup,
      button({ icon: 'go-to-file', title: 'Go to conversation by id (Ctrl+Alt+G)', class: 'icon', onClick: () => this.api.post({ type: 'command', command: 'goToConversation' }) }),
      button({ icon: 'checklist', title: 'Check the behavioural invariants of this file (violations link back here)', class: 'icon check-invariants', onClick: () => this.api.post({ type: 'command', command: 'checkInvariants' }) }),
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
    for (const [mode, b] of this.modeButtons) {
      b.classList.toggle('active', mode === this.state.mode);
      setAttr(b, 'aria-selected', mode === this.state.mode ? 'true' : 'false');
    }
    this.root.dataset.mode = this.state.mode;
  }

  // Messages ------------------------------------------------------------------------------

  private onMessage(msg: HostMessage): void {
    if (!msg || typeof msg !== 'object') return;
    switch (msg.type) {
      case 'init':
        this.onInit(msg.init);
        return;
      case 'progress':
        this.progress = msg;
        this.updateProgress();
        return;
      case 'view':
        this.onView(msg);
        return;
      case 'page':
        this.list.receivePage(msg.viewVersion, msg.start, msg.rows);
        this.afterPage();
        return;
      case 'conversation':
        if (msg.requestId !== this.conversationRequest) return;
        this.onConversation(msg);
        return;
      case 'reveal':
        this.pendingTurn = msg.turn;
        this.openLine(msg.line, -1);
        return;
      case 'annotationsChanged':
        // An answer to an older annotate message: a newer optimistic state is already shown.
        if (msg.requestId !== undefined && msg.requestId < this.lastAnnotateRequest) return;
        if (this.current && this.current.line === msg.line) {
          this.current.conversation = msg.conversation;
          this.renderConversation(true);
        }
        this.list.refresh();
        return;
      case 'agreement':
        this.agreementLoading = false;
        this.agreement = msg.result;
        if (msg.error) this.notice('error', msg.error);
        if (this.state.mode === 'agreement') this.renderMain();
        return;
      case 'reloaded':
        this.notice('info', `File ${msg.reason}.`);
        if (this.current) this.openLine(Math.min(this.current.line, Math.max(0, msg.lineCount - 1)), -1);
        return;
      case 'settings':
        if (this.init) {
          this.init = { ...this.init, annotator: msg.annotator, taxonomy: msg.taxonomy, taxonomyError: msg.taxonomyError, allowRemoteImages: msg.allowRemoteImages, replayIntervalMs: msg.replayIntervalMs };
          this.renderConversation(true);
        }
        return;
      case 'notice':
        this.notice(msg.level, msg.message);
        return;
    }
  }

  private onInit(init: EditorInit): void {
    this.init = init;
    replace(this.fileLabel, init.fileName);
    setAttr(this.fileLabel, 'title', init.filePath);
    this.applyFilterToControls(this.state.filter);
    this.api.post({ type: 'setFilter', filter: this.state.filter });
    if (init.reveal) {
      this.pendingTurn = init.reveal.turn;
      this.openLine(init.reveal.line, -1);
    } else if (this.state.line !== undefined) {
      this.pendingTurn = this.state.turn;
      this.openLine(this.state.line, -1);
    }
  }

  private onView(msg: Extract<HostMessage, { type: 'view' }>): void {
    this.facets = msg.facets;
    this.search = msg.search;
    this.viewCount = msg.count;
    this.partial = msg.partial;
    this.filterMs = msg.ms;
    this.updateFacetOptions();
    this.list.setView(msg.count, msg.viewVersion);
    if (this.restoreScroll !== undefined) {
      this.list.scrollToIndex(this.restoreScroll);
      this.restoreScroll = undefined;
    }
    this.updateCounts();
    if (this.current) {
      // Re-find the selected conversation's position in the new view.
      this.conversationRequest = this.nextRequest++;
      this.api.post({ type: 'openConversation', requestId: this.conversationRequest, line: this.current.line });
    } else if (this.state.line === undefined && msg.count > 0 && !this.init?.reveal) {
      // Nothing selected yet: open the first conversation once its row arrives.
      this.pendingIndex = 0;
    }
  }

  private afterPage(): void {
    if (this.pendingIndex >= 0) {
      const row = this.list.rowAt(this.pendingIndex);
      if (row) {
        const index = this.pendingIndex;
        this.pendingIndex = -1;
        this.openLine(row.line, index);
      }
    }
  }

  private onConversation(msg: Extract<HostMessage, { type: 'conversation' }>): void {
    const sameLine = this.current?.line === msg.line && this.current?.id === msg.id;
    this.current = { line: msg.line, id: msg.id, conversation: msg.conversation, error: msg.error };
    this.list.select(msg.line, msg.viewIndex, true);
    const n = msg.conversation?.turns.length ?? 0;
    if (this.pendingTurn !== undefined) {
      this.turn = Math.max(0, Math.min(n - 1, this.pendingTurn));
      this.pendingTurn = undefined;
      this.cursor = this.state.line === msg.line ? this.state.cursor ?? 0 : 0;
    } else if (!sameLine) {
      // A new conversation opens fully shown (state panel at the last turn); Home / play restart it.
      this.turn = Math.max(0, n - 1);
      this.cursor = 0;
      this.stop();
    }
    this.state.line = msg.line;
    this.state.turn = this.turn;
    this.state.cursor = this.cursor;
    this.saveState();
    this.renderMain(sameLine);
  }

  // Filters -------------------------------------------------------------------------------

  private currentFilter(): SummaryFilter {
    const f: SummaryFilter = {};
    const v = (s: HTMLSelectElement) => (s.value === '' ? undefined : s.value);
    f.task = v(this.selects.task);
    f.condition = v(this.selects.condition);
    f.source = v(this.selects.source);
    const outcome = v(this.selects.outcome);
    if (outcome === 'accepted' || outcome === 'ended' || outcome === 'abandoned' || outcome === 'agent_error') f.outcome = outcome;
    const validity = v(this.selects.validity);
    if (validity === 'valid' || validity === 'invalid') f.validity = validity;
    f.annotator = v(this.selects.annotator);
    const text = this.searchInput.value.trim();
    if (text) f.text = text;
    const sp = this.selects.speaker.value;
    if (sp === 'user' || sp === 'assistant') f.speaker = sp;
    for (const k of Object.keys(f) as Array<keyof SummaryFilter>) if (f[k] === undefined) delete f[k];
    return f;
  }

  private filterChanged(): void {
    clearTimeout(this.searchTimer);
    const next = this.currentFilter();
    if (JSON.stringify(next) === JSON.stringify(this.state.filter) && this.facets) return;
    this.state.filter = next;
    this.state.listIndex = 0;
    this.saveState();
    this.api.post({ type: 'setFilter', filter: this.state.filter });
  }

  private clearFilters(): void {
    this.applyFilterToControls({});
    this.filterChanged();
  }

  private applyFilterToControls(f: SummaryFilter): void {
    this.searchInput.value = f.text ?? '';
    this.selects.speaker.value = f.speaker ?? 'both';
    this.pendingFilterValues = f;
    this.updateFacetOptions();
  }

  private pendingFilterValues: SummaryFilter | undefined;

  private updateFacetOptions(): void {
    const f = this.pendingFilterValues ?? this.currentFilter();
    this.pendingFilterValues = undefined;
    const fill = (s: HTMLSelectElement, all: string, values: Array<[string, number]>, selected: string | undefined) => {
      const opts = [h('option', { attrs: { value: '' } }, all)];
      const present = new Set(values.map(([v]) => v));
      for (const [v, n] of values) opts.push(h('option', { attrs: { value: v } }, `${v} (${fmt(n)})`));
      if (selected && !present.has(selected)) opts.push(h('option', { attrs: { value: selected } }, `${selected} (0)`));
      replace(s, ...opts);
      s.value = selected ?? '';
    };
    const fc = this.facets;
    fill(this.selects.task, 'All tasks', fc?.task ?? [], f.task);
    fill(this.selects.condition, 'All conditions', fc?.condition ?? [], f.condition);
    fill(this.selects.source, 'All sources', fc?.source ?? [], f.source);
    fill(this.selects.outcome, 'All outcomes', fc?.outcome ?? [], f.outcome);
    const validity: Array<[string, number]> = fc ? [['valid', fc.valid], ['invalid', fc.invalid]] : [];
    fill(this.selects.validity, 'Valid + invalid', validity, f.validity);
    fill(this.selects.annotator, 'Any annotation', fc?.annotator ?? [], f.annotator);
  }

  private updateCounts(): void {
    const fc = this.facets;
    const total = fc ? fc.valid + fc.invalid + fc.pending : 0;
    const parts: Array<string | HTMLElement> = [h('strong', null, fmt(this.viewCount)), ` of ${fmt(total)} conversation${total === 1 ? '' : 's'}`];
    if (fc?.invalid) parts.push(h('span', 'error-text', ` · ${fmt(fc.invalid)} invalid`));
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
    if (p.done || p.total === 0) replace(this.progressLabel, this.init ? `${fmt(this.init.lineCount)} lines · ${(this.init.fileSize / 1048576).toFixed(1)} MB` : '');
    else replace(this.progressLabel, icon('loading'), ` reading ${Math.floor((100 * p.scanned) / p.total)}%`);
  }

  // Selection -----------------------------------------------------------------------------

  private onListSelect(line: number | undefined, index: number, how: 'click' | 'key'): void {
    if (line === undefined) {
      this.pendingIndex = index;
      return;
    }
    clearTimeout(this.openTimer);
    if (how === 'key') this.openTimer = window.setTimeout(() => this.openLine(line, index), 60);
    else this.openLine(line, index);
  }

  private openLine(line: number, _index: number): void {
    this.conversationRequest = this.nextRequest++;
    this.api.post({ type: 'openConversation', requestId: this.conversationRequest, line });
  }

  private neighbour(delta: number): void {
    this.list.move(delta);
  }

  // Rendering -----------------------------------------------------------------------------

  private renderMain(keepScroll = false): void {
    const prevScroll = this.transcriptScroll?.scrollTop;
    if (this.state.mode === 'agreement') {
      this.stop();
      replace(
        this.main,
        renderAgreement(this.agreement, this.agreementLoading, () => {
          this.agreementLoading = true;
          this.api.post({ type: 'requestAgreement', requestId: this.nextRequest++ });
          this.renderMain();
        }),
      );
      this.transcriptEl = this.transcriptScroll = this.sideEl = this.replayBar = undefined;
      return;
    }
    const cur = this.current;
    if (!cur) {
      replace(this.main, h('div', 'empty-state', icon('comment-discussion'), h('p', null, this.viewCount ? 'Select a conversation.' : 'No conversations match.')));
      return;
    }
    if (!cur.conversation) {
      const open = button({ icon: 'go-to-file', label: `Open line ${cur.line + 1} as text`, onClick: () => this.api.post({ type: 'openLineAsText', line: cur.line }) });
      replace(
        this.main,
        h('div', 'conv-header', h('h2', 'conv-id', `Line ${cur.line + 1}`)),
        h('div', 'error-box big', icon('error'), h('div', null, h('strong', null, 'This line is not a valid conversation'), h('p', null, cur.error ?? 'invalid'))),
        open,
      );
      return;
    }
    this.renderConversation(keepScroll, prevScroll);
  }

  private renderConversation(keepScroll: boolean, prevScroll?: number): void {
    const cur = this.current;
    if (!cur?.conversation || this.state.mode === 'agreement') return;
    const conv = cur.conversation;
    const scrollBefore = prevScroll ?? this.transcriptScroll?.scrollTop;
    this.transcriptEl = renderTranscript(conv, this.transcriptOptions());
    this.transcriptScroll = h('div', 'transcript-scroll', this.transcriptEl);
    this.transcriptScroll.addEventListener('scroll', () => {
      this.state.transcriptScroll = this.transcriptScroll?.scrollTop;
      this.saveStateSoon();
    });
    this.sideEl = h('div', 'side');
    this.replayBar = this.state.mode === 'replay' ? this.buildReplayBar(conv) : undefined;
    replace(this.main, conversationHeader(conv, cur.id, cur.line), this.replayBar, h('div', 'content', this.transcriptScroll, this.sideEl));
    this.renderSide();
    // Time from page start to the first conversation on screen (read by the E2E benchmark).
    if (!document.body.dataset.firstRenderMs) document.body.dataset.firstRenderMs = String(Math.round(performance.now()));
    if (this.restoreTranscriptScroll !== undefined) {
      this.transcriptScroll.scrollTop = this.restoreTranscriptScroll;
      this.restoreTranscriptScroll = undefined;
    } else if (keepScroll && scrollBefore !== undefined) {
      this.transcriptScroll.scrollTop = scrollBefore;
    } else {
      this.scrollToFocus();
    }
  }

  private transcriptOptions() {
    return {
      allowRemoteImages: this.init?.allowRemoteImages ?? false,
      turn: this.turn,
      mode: this.state.mode,
      cursor: this.cursorRef(),
      annotator: this.init?.annotator ?? '',
      onSelectUtterance: (ref: UtteranceRef) => {
        if (this.state.mode === 'annotate') {
          const i = this.utterances().findIndex((u) => u.turn === ref.turn && u.speaker === ref.speaker);
          if (i >= 0) this.setCursor(i);
        } else this.setTurn(ref.turn);
      },
      onSelectTurn: (t: number) => this.setTurn(t),
    };
  }

  private buildReplayBar(conv: Conversation): HTMLElement {
    const n = conv.turns.length;
    const speed = h('select', { class: 'speed', attrs: { 'aria-label': 'Replay speed', title: 'Replay speed' } });
    for (const s of SPEEDS) speed.appendChild(h('option', { attrs: { value: s } }, `${s}×`));
    speed.value = String(this.state.speed ?? 1);
    speed.addEventListener('change', () => {
      this.state.speed = Number(speed.value);
      this.saveState();
      if (this.playing !== undefined) {
        this.stop();
        this.play();
      }
    });
    const playing = this.playing !== undefined;
    return h(
      'div',
      { class: 'replay-bar', attrs: { role: 'toolbar', 'aria-label': 'Replay' } },
      button({ icon: 'debug-restart', title: 'First turn (Home)', class: 'icon', onClick: () => this.setTurn(0) }),
      button({ icon: 'chevron-left', title: 'Previous turn (← or k)', class: 'icon', onClick: () => this.step(-1) }),
      button({ icon: playing ? 'debug-pause' : 'play', title: playing ? 'Pause (Space)' : 'Play (Space)', class: 'icon play', onClick: () => this.togglePlay() }),
      button({ icon: 'chevron-right', title: 'Next turn (→ or j)', class: 'icon', onClick: () => this.step(1) }),
      h('span', { class: 'turn-pos', attrs: { 'aria-live': 'polite' } }, `Turn ${Math.min(this.turn + 1, n)} / ${n}`),
      speed,
      button({
        icon: 'repo-forked',
        title: 'Fork from here: simulate other continuations after this turn and open them beside',
        class: 'icon fork',
        onClick: () => {
          const cur = this.current;
          if (cur && cur.id !== undefined) this.api.post({ type: 'fork', line: cur.line, id: cur.id, turn: Math.min(this.turn, n - 1) });
        },
      }),
      h('span', 'muted keys', '← → / j k step · Space play · [ ] conversation'),
    );
  }

  private renderSide(): void {
    const conv = this.current?.conversation;
    if (!conv || !this.sideEl) return;
    if (this.state.mode === 'annotate') {
      const refs = this.utterances();
      replace(
        this.sideEl,
        renderAnnotationPanel({
          conv,
          ref: refs[this.cursor],
          index: this.cursor,
          total: refs.length,
          annotator: this.init?.annotator ?? '',
          taxonomy: this.init?.taxonomy ?? { name: 'convapparel', user: [], assistant: [] },
          onToggle: (act) => this.toggleAct(act),
          onNote: (note) => this.setNote(note),
          onMove: (d) => this.moveCursor(d),
          onOpenSettings: () => this.api.post({ type: 'command', command: 'openSettings' }),
        }),
      );
    } else {
      replace(this.sideEl, renderStatePanel(conv, this.turn));
    }
  }

  private scrollToFocus(): void {
    const root = this.transcriptEl;
    if (!root) return;
    let target: Element | null = null;
    if (this.state.mode === 'annotate') {
      const ref = this.cursorRef();
      if (ref) target = root.querySelector(`.msg[data-turn="${ref.turn}"][data-speaker="${ref.speaker}"]`);
    } else target = root.querySelector(`section.turn[data-turn="${this.turn}"]`);
    (target as HTMLElement | null)?.scrollIntoView?.({ block: 'nearest' });
  }

  // Replay --------------------------------------------------------------------------------

  private setTurn(t: number): void {
    const n = this.current?.conversation?.turns.length ?? 0;
    if (n === 0) return;
    this.turn = Math.max(0, Math.min(n - 1, t));
    this.state.turn = this.turn;
    this.saveState();
    if (this.transcriptEl) updateTranscriptMarks(this.transcriptEl, { turn: this.turn, mode: this.state.mode, cursor: this.cursorRef() });
    if (this.state.mode === 'replay' && this.current?.conversation) {
      const bar = this.buildReplayBar(this.current.conversation);
      this.replayBar?.replaceWith(bar);
      this.replayBar = bar;
    }
    if (this.state.mode !== 'annotate') this.renderSide();
    this.scrollToFocus();
  }

  private step(d: number): void {
    this.setTurn(this.turn + d);
  }

  private togglePlay(): void {
    if (this.playing !== undefined) this.stop();
    else this.play();
    if (this.current?.conversation && this.replayBar) {
      const bar = this.buildReplayBar(this.current.conversation);
      this.replayBar.replaceWith(bar);
      this.replayBar = bar;
    }
  }

  private play(): void {
    const n = this.current?.conversation?.turns.length ?? 0;
    if (n === 0) return;
    if (this.turn >= n - 1) this.setTurn(0);
    const interval = (this.init?.replayIntervalMs ?? 1500) / (this.state.speed ?? 1);
    this.playing = window.setInterval(() => {
      if (this.turn >= n - 1) {
        this.stop();
        this.setTurn(this.turn);
        return;
      }
      this.setTurn(this.turn + 1);
    }, interval);
  }

  private stop(): void {
    if (this.playing !== undefined) clearInterval(this.playing);
    this.playing = undefined;
  }

  // Annotation ----------------------------------------------------------------------------

  private utterances(): UtteranceRef[] {
    return this.current?.conversation ? utterancesOf(this.current.conversation) : [];
  }

  private cursorRef(): UtteranceRef | undefined {
    return this.utterances()[this.cursor];
  }

  private setCursor(i: number): void {
    const refs = this.utterances();
    if (refs.length === 0) return;
    this.cursor = Math.max(0, Math.min(refs.length - 1, i));
    this.turn = refs[this.cursor].turn;
    this.state.cursor = this.cursor;
    this.state.turn = this.turn;
    this.saveState();
    if (this.transcriptEl) updateTranscriptMarks(this.transcriptEl, { turn: this.turn, mode: this.state.mode, cursor: this.cursorRef() });
    this.renderSide();
    this.scrollToFocus();
  }

  private moveCursor(d: number): void {
    this.setCursor(this.cursor + d);
  }

  private toggleAct(act: string): void {
    const conv = this.current?.conversation;
    const ref = this.cursorRef();
    if (!conv || !ref || !this.current) return;
    const mine = currentAnnotation(conv, ref, this.init?.annotator ?? '');
    const acts = mine.acts.includes(act) ? mine.acts.filter((a) => a !== act) : [...mine.acts, act];
    this.sendAnnotation(ref, acts, mine.note);
  }

  private setNote(note: string): void {
    const conv = this.current?.conversation;
    const ref = this.cursorRef();
    if (!conv || !ref) return;
    const mine = currentAnnotation(conv, ref, this.init?.annotator ?? '');
    this.sendAnnotation(ref, mine.acts, note);
  }

  private lastAnnotateRequest = 0;

  /**
   * Sends an edit and shows it at once (optimistically) so fast key presses build on each other;
   * the host's answer (the document's state) replaces it.
   */
  private sendAnnotation(ref: UtteranceRef, acts: string[], note: string): void {
    const cur = this.current;
    if (!cur?.conversation) return;
    const annotator = this.init?.annotator ?? '';
    const requestId = this.nextRequest++;
    this.lastAnnotateRequest = requestId;
    const trimmed = note.trim() ? note : undefined;
    const turn = cur.conversation.turns[ref.turn];
    if (turn) {
      const list = (turn.annotations ??= []).filter((a) => !(a.speaker === ref.speaker && a.annotator === annotator && a.segment === undefined));
      if (acts.length || trimmed) list.push({ speaker: ref.speaker, annotator, acts, ...(trimmed ? { note: trimmed } : {}) });
      turn.annotations = list;
      this.renderConversation(true);
    }
    this.api.post({ type: 'annotate', requestId, line: cur.line, turn: ref.turn, speaker: ref.speaker, acts, note: trimmed });
  }

  // Modes & keys --------------------------------------------------------------------------

  private setMode(mode: Mode): void {
    if (this.state.mode === mode) return;
    this.state.mode = mode;
    this.saveState();
    this.updateModeButtons();
    if (mode === 'annotate') {
      this.stop();
      // Start annotating at the first utterance of the current turn.
      const i = this.utterances().findIndex((u) => u.turn === this.turn);
      if (i >= 0) this.cursor = i;
    }
    if (mode === 'agreement' && !this.agreement && !this.agreementLoading) {
      this.agreementLoading = true;
      this.api.post({ type: 'requestAgreement', requestId: this.nextRequest++ });
    }
    this.renderMain();
  }

  private onKey(e: KeyboardEvent): void {
    const target = e.target as HTMLElement | null;
    const tag = target?.tagName;
    if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT') return;
    if (e.ctrlKey || e.metaKey || e.altKey) return; // leave undo/redo/save etc. to VS Code
    const key = e.key;
    const handled = () => {
      e.preventDefault();
      e.stopPropagation();
    };
    if (key === '/') {
      handled();
      this.searchInput.focus();
      return;
    }
    if (key === '[' || key === ']') {
      handled();
      this.neighbour(key === ']' ? 1 : -1);
      return;
    }
    const mode = this.state.mode;
    if (mode === 'replay') {
      if (key === 'ArrowRight' || key === 'j') return handled(), this.step(1);
      if (key === 'ArrowLeft' || key === 'k') return handled(), this.step(-1);
      if (key === 'Home') return handled(), this.setTurn(0);
      if (key === 'End') return handled(), this.setTurn(Number.MAX_SAFE_INTEGER);
      if (key === ' ') return handled(), this.togglePlay();
    }
    if (mode === 'annotate') {
      if (key === 'n' || key === 'ArrowDown') return handled(), this.moveCursor(1);
      if (key === 'p' || key === 'ArrowUp') return handled(), this.moveCursor(-1);
      if (key === 'Enter') {
        const note = this.sideEl?.querySelector('textarea');
        if (note) return handled(), (note as HTMLTextAreaElement).focus();
      }
      const i = actIndexForKey(e);
      const ref = this.cursorRef();
      if (i >= 0 && ref && this.init) {
        const acts = ref.speaker === 'user' ? this.init.taxonomy.user : this.init.taxonomy.assistant;
        if (i < acts.length) {
          handled();
          this.toggleAct(acts[i]);
        }
      }
    }
  }

  // Notices & state -----------------------------------------------------------------------

  private notice(level: 'info' | 'warning' | 'error', message: string): void {
    const el = h('div', { class: `notice ${level}`, attrs: { role: level === 'error' ? 'alert' : 'status' } }, icon(level === 'info' ? 'info' : level), h('span', null, message));
    const close = button({ icon: 'close', title: 'Dismiss', class: 'icon', onClick: () => el.remove() });
    el.appendChild(close);
    this.notices.appendChild(el);
    while (this.notices.children.length > 3) this.notices.firstChild?.remove();
    if (level === 'info') window.setTimeout(() => el.remove(), 5000);
  }

  private saveTimer = 0;
  private saveStateSoon(): void {
    clearTimeout(this.saveTimer);
    this.saveTimer = window.setTimeout(() => this.saveState(), 200);
  }

  private saveState(): void {
    this.api.setState(this.state);
  }
}

/** Entry point: runs when the page loads (the bundle is an IIFE). */
export function start(): EditorApp | undefined {
  const root = document.getElementById('app');
  if (!root) return undefined;
  return new EditorApp(root);
}

start();
