/**
 * Virtualized conversation list. Only the visible rows exist in the DOM, pages of summaries are
 * fetched from the host on demand and only a bounded number are cached, so memory does not grow
 * with the file. Chromium caps an element's scrollable height near 33.5 million px, so when
 * `count * rowHeight` exceeds MAX_SCROLL_PX the scrollbar works in scaled coordinates: the
 * scroll offset maps linearly onto the full virtual height.
 */
import type { ConversationSummary } from '../../src/shared/editorProtocol';
import { PAGE_SIZE } from '../../src/shared/editorView';
import { h, icon, replace, setAttr } from './dom';

/** Largest spacer height we create (well below Chromium's ~33.5M px limit). */
export const MAX_SCROLL_PX = 8_000_000;
/** Pages kept in memory (2,000 rows). */
const MAX_PAGES = 20;

/** Maps between the scroll offset and the virtual (unscaled) offset. Pure, for tests. */
export function scrollGeometry(count: number, rowHeight: number, viewportHeight: number) {
  const total = count * rowHeight;
  const spacer = Math.min(total, MAX_SCROLL_PX);
  const scrollRange = Math.max(0, spacer - viewportHeight);
  const virtualRange = Math.max(0, total - viewportHeight);
  const ratio = scrollRange > 0 && virtualRange > scrollRange ? virtualRange / scrollRange : 1;
  return {
    total,
    spacer,
    /** Virtual offset of the viewport top for a scroll offset. */
    toVirtual: (scrollTop: number) => Math.min(virtualRange, Math.max(0, scrollTop * ratio)),
    /** Scroll offset that puts virtual offset `v` at the viewport top. */
    toScroll: (v: number) => Math.min(scrollRange, Math.max(0, v / ratio)),
    /** First visible row and the pixel offset of the layer of rows for a scroll offset. */
    window: (scrollTop: number) => {
      const v = Math.min(virtualRange, Math.max(0, scrollTop * ratio));
      const first = Math.floor(v / rowHeight);
      const offset = v - first * rowHeight;
      return { first, layerTop: scrollTop - offset };
    },
  };
}

/** The outcomes that are failures of the run, not user outcomes (src/core/model.ts `Outcome`). */
const FAILURE_OUTCOMES: Record<string, string> = {
  agent_error: 'The recommender failed: a run failure, not a user outcome',
  simulator_error: 'The simulated user or the simulator failed: a run failure, not a user outcome',
};

/**
 * The outcome chip of a row. `agent_error` and `simulator_error` are failures of the run, not user
 * outcomes: they get an error icon and the error style, so they do not read as one more outcome by
 * colour alone.
 */
function outcomeBadge(outcome: string): HTMLElement {
  const failure = FAILURE_OUTCOMES[outcome];
  if (failure !== undefined) {
    return h(
      'span',
      { class: `chip outcome-${outcome} error`, attrs: { title: failure } },
      icon('error'),
      ` ${outcome}`,
    );
  }
  return h('span', `chip outcome-${outcome}`, outcome);
}

interface ListCallbacks {
  requestPage(start: number, count: number, viewVersion: number): void;
  select(row: ConversationSummary | undefined, index: number, how: 'click' | 'key'): void;
  openAsText(line: number): void;
  scrolled(firstIndex: number): void;
}

export class VirtualList {
  readonly element: HTMLElement;
  private readonly viewport: HTMLElement;
  private readonly spacer: HTMLElement;
  private readonly layer: HTMLElement;
  private readonly pool: HTMLElement[] = [];
  private pages = new Map<number, ConversationSummary[]>();
  private requested = new Set<number>();
  private count = 0;
  private viewVersion = 0;
  private selectedLine: number | undefined;
  private selectedIndex = -1;
  /** False while a new view re-finds the selected conversation's position (EditorApp.onView). */
  private indexKnown = true;
  /** List moves (keys) made before the view or the selection's position in it arrived. */
  private pendingMove = 0;
  private frame = 0;
  readonly rowHeight = 62;

  constructor(private readonly cb: ListCallbacks) {
    this.spacer = h('div', 'list-spacer');
    this.layer = h('div', { class: 'list-layer', attrs: { role: 'presentation' } });
    this.viewport = h(
      'div',
      { class: 'list-viewport', attrs: { tabindex: 0, role: 'listbox', 'aria-label': 'Conversations' } },
      this.spacer,
      this.layer,
    );
    this.element = h('div', 'list', this.viewport);
    this.viewport.addEventListener('scroll', () => this.schedule());
    this.viewport.addEventListener('keydown', (e) => this.onKey(e));
    if (typeof ResizeObserver !== 'undefined') new ResizeObserver(() => this.schedule()).observe(this.viewport);
    else window.addEventListener('resize', () => this.schedule());
  }

  /** A new view from the host: row count changes, all cached pages are dropped. */
  setView(count: number, viewVersion: number): void {
    this.count = count;
    this.viewVersion = viewVersion;
    this.pages.clear();
    this.requested.clear();
    this.spacer.style.height = `${scrollGeometry(count, this.rowHeight, 0).spacer}px`;
    this.selectedIndex = -1;
    this.indexKnown = this.selectedLine === undefined;
    this.render();
    this.applyPendingMove();
  }

  /**
   * Re-requests the visible pages (after annotations changed); the rows stay on screen until the
   * fresh ones arrive, and other cached pages are dropped as stale.
   */
  refresh(): void {
    const first = Math.floor(this.firstVisible() / PAGE_SIZE);
    const last = Math.floor(
      (this.firstVisible() + Math.ceil((this.viewport.clientHeight || 600) / this.rowHeight)) / PAGE_SIZE,
    );
    for (const p of [...this.pages.keys()]) if (p < first || p > last) this.pages.delete(p);
    this.requested.clear();
    for (let p = first; p <= last && p * PAGE_SIZE < this.count; p++) {
      this.requested.add(p);
      this.cb.requestPage(p * PAGE_SIZE, Math.min(PAGE_SIZE, this.count - p * PAGE_SIZE), this.viewVersion);
    }
  }

  receivePage(viewVersion: number, start: number, rows: ConversationSummary[]): void {
    if (viewVersion !== this.viewVersion) return;
    const page = Math.floor(start / PAGE_SIZE);
    this.pages.set(page, rows);
    this.requested.delete(page);
    // Keep the cache bounded: drop the pages farthest from the visible one.
    if (this.pages.size > MAX_PAGES) {
      const current = Math.floor(this.firstVisible() / PAGE_SIZE);
      const far = [...this.pages.keys()].sort((a, b) => Math.abs(b - current) - Math.abs(a - current));
      for (const p of far.slice(0, this.pages.size - MAX_PAGES)) this.pages.delete(p);
    }
    this.render();
  }

  /** Row at view index i, if its page is loaded. */
  rowAt(i: number): ConversationSummary | undefined {
    return this.pages.get(Math.floor(i / PAGE_SIZE))?.[i % PAGE_SIZE];
  }

  get size(): number {
    return this.count;
  }

  /** Marks a line as selected (and its view index, when known) and scrolls it into view. */
  select(line: number | undefined, index: number, scroll = true): void {
    this.selectedLine = line;
    this.selectedIndex = index;
    this.indexKnown = true;
    if (scroll && index >= 0) this.scrollToIndex(index, 'nearest');
    this.render();
    this.applyPendingMove();
  }

  private applyPendingMove(): void {
    if (!this.pendingMove || this.count === 0 || !this.indexKnown) return;
    const delta = this.pendingMove;
    this.pendingMove = 0;
    this.move(delta);
  }

  get selectedViewIndex(): number {
    return this.selectedIndex;
  }

  firstVisible(): number {
    const geo = scrollGeometry(this.count, this.rowHeight, this.viewport.clientHeight);
    return geo.window(this.viewport.scrollTop).first;
  }

  scrollToIndex(index: number, align: 'top' | 'nearest' = 'top'): void {
    const vh = this.viewport.clientHeight;
    const geo = scrollGeometry(this.count, this.rowHeight, vh);
    const rowTop = index * this.rowHeight;
    if (align === 'nearest') {
      const v = geo.toVirtual(this.viewport.scrollTop);
      if (rowTop >= v && rowTop + this.rowHeight <= v + vh) return;
      const target = rowTop < v ? rowTop : rowTop + this.rowHeight - vh;
      this.viewport.scrollTop = geo.toScroll(target);
    } else {
      this.viewport.scrollTop = geo.toScroll(rowTop);
    }
    this.render();
  }

  focus(): void {
    this.viewport.focus();
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  private render(): void {
    if (this.count === 0) {
      // Nothing to show (no view yet, or an empty one): no row, and no need to ask the browser for the
      // viewport's size, which lays the page out at once (on a first render, before the frame does).
      this.layer.style.transform = 'translateY(0px)';
      for (const row of this.pool) row.hidden = true;
      this.cb.scrolled(0);
      return;
    }
    const vh = this.viewport.clientHeight || 600;
    const geo = scrollGeometry(this.count, this.rowHeight, vh);
    const { first, layerTop } = geo.window(this.viewport.scrollTop);
    this.layer.style.transform = `translateY(${layerTop}px)`;
    const visible = Math.min(this.count - first, Math.ceil(vh / this.rowHeight) + 1);
    while (this.pool.length < visible) {
      const row = h('div', { class: 'row', attrs: { role: 'option' } });
      row.addEventListener('click', (e) => this.onRowClick(row, e));
      this.pool.push(row);
      this.layer.appendChild(row);
    }
    for (let k = 0; k < this.pool.length; k++) {
      const row = this.pool[k];
      if (k >= visible) {
        row.hidden = true;
        continue;
      }
      row.hidden = false;
      const index = first + k;
      this.fillRow(row, index);
    }
    // Ask for missing pages around the visible window.
    const firstPage = Math.floor(first / PAGE_SIZE);
    const lastPage = Math.floor(Math.max(first, first + visible - 1) / PAGE_SIZE);
    for (let p = firstPage; p <= lastPage && this.count > 0; p++) {
      if (!this.pages.has(p) && !this.requested.has(p)) {
        this.requested.add(p);
        this.cb.requestPage(p * PAGE_SIZE, Math.min(PAGE_SIZE, this.count - p * PAGE_SIZE), this.viewVersion);
      }
    }
    this.cb.scrolled(first);
  }

  private fillRow(row: HTMLElement, index: number): void {
    const s = this.rowAt(index);
    row.dataset.index = String(index);
    const key = s
      ? `${this.viewVersion}:${index}:${s.line}:${s.state}:${s.annotators}:${s.line === this.selectedLine}`
      : `${this.viewVersion}:${index}:pending`;
    if (row.dataset.key === key) return;
    row.dataset.key = key;
    row.classList.toggle('selected', s !== undefined && s.line === this.selectedLine);
    setAttr(row, 'aria-selected', s !== undefined && s.line === this.selectedLine ? 'true' : 'false');
    row.classList.toggle('invalid', s?.state === 'invalid');
    if (!s || s.state === 'pending') {
      replace(
        row,
        h('div', 'row-main', h('span', 'row-id muted', s ? `line ${s.line + 1}` : '…')),
        h('div', 'row-sub muted', 'loading…'),
      );
      return;
    }
    if (s.state === 'invalid') {
      const open = h(
        'button',
        { class: 'link', attrs: { type: 'button', title: 'Open this line as text' } },
        `line ${s.line + 1}`,
      );
      open.addEventListener('click', (e) => {
        e.stopPropagation();
        this.cb.openAsText(s.line);
      });
      replace(
        row,
        h('div', 'row-main', icon('error', 'invalid line'), h('span', 'row-id', 'Invalid line '), open),
        h('div', 'row-error error-text', s.error ?? 'invalid'),
      );
      setAttr(row, 'title', s.error ?? 'invalid line');
      return;
    }
    setAttr(row, 'title', `${s.id} — line ${s.line + 1}`);
    const meta = [
      s.task,
      s.condition,
      s.source && s.source !== 'human' ? s.source : undefined,
      `${s.turns} turn${s.turns === 1 ? '' : 's'}`,
    ]
      .filter(Boolean)
      .join(' · ');
    replace(
      row,
      h(
        'div',
        'row-main',
        h('span', 'row-id', s.id),
        s.annotators
          ? h(
              'span',
              { class: 'row-meta', attrs: { title: `${s.annotators} annotator(s)` } },
              icon('tag'),
              String(s.annotators),
            )
          : null,
        s.outcome ? outcomeBadge(s.outcome) : null,
      ),
      h('div', 'row-sub', meta),
      h('div', 'row-snippet', s.snippet || '(no user utterance)'),
    );
  }

  private onRowClick(row: HTMLElement, _e: MouseEvent): void {
    const index = Number(row.dataset.index);
    if (!Number.isInteger(index) || index < 0 || index >= this.count) return;
    this.selectedIndex = index;
    // A row whose page has not arrived yet opens when it does.
    this.cb.select(this.rowAt(index), index, 'click');
  }

  /** Moves the selection by `delta` rows (keyboard), loading pages as needed. */
  move(delta: number): void {
    // The list or the selection's place in it is still on its way: keep the key (never lose input).
    if (this.count === 0 || !this.indexKnown) {
      this.pendingMove += delta;
      return;
    }
    const from = this.selectedIndex >= 0 ? this.selectedIndex : this.firstVisible() - (delta > 0 ? 1 : 0);
    const index = Math.max(0, Math.min(this.count - 1, from + delta));
    this.selectedIndex = index;
    this.scrollToIndex(index, 'nearest');
    this.cb.select(this.rowAt(index), index, 'key');
  }

  private onKey(e: KeyboardEvent): void {
    const page = Math.max(1, Math.floor((this.viewport.clientHeight || 600) / this.rowHeight) - 1);
    const moves: Record<string, number> = {
      ArrowDown: 1,
      ArrowUp: -1,
      PageDown: page,
      PageUp: -page,
      Home: -Infinity,
      End: Infinity,
    };
    const d = moves[e.key];
    if (d === undefined) return;
    e.preventDefault();
    e.stopPropagation();
    if (d === -Infinity) this.move(-this.count);
    else if (d === Infinity) this.move(this.count);
    else this.move(d);
  }
}
