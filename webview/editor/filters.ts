/**
 * Filter bar: utterance search with its speaker scope in the toolbar row, and the facet selects
 * (task, condition, source, outcome, validity, annotator) in a "Filters (n)" popover, so the bar
 * is one row at any width (a split editor half included); sends `setFilter` when the filter
 * changes. The popover closes on Escape (focus back on its button) and on a click outside.
 */
import type { Facets, SummaryFilter } from '../../src/shared/editorProtocol';
import type { HostApi } from './api';
import { button, fmt, h, icon, replace } from './dom';
import type { ViewStateStore } from './viewState';

type SelectName = 'task' | 'condition' | 'source' | 'outcome' | 'validity' | 'annotator' | 'speaker';

export class FilterBar {
  readonly element: HTMLElement;
  facets: Facets | undefined;
  private readonly selects: Record<SelectName, HTMLSelectElement>;
  private readonly searchInput: HTMLInputElement;
  private readonly toggle: HTMLButtonElement;
  private readonly toggleCount: HTMLElement;
  private readonly popover: HTMLElement;
  private pendingFilterValues: SummaryFilter | undefined;
  private searchTimer = 0;

  constructor(
    private readonly api: HostApi,
    private readonly store: ViewStateStore,
    /** Escape in the search box gives focus back to the list. */
    private readonly leaveSearch: () => void,
  ) {
    const select = (name: string, label: string) => {
      const s = h('select', { class: 'filter', attrs: { title: label, name } });
      s.addEventListener('change', () => this.changed());
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
    for (const [v, t] of [
      ['both', 'all utterances'],
      ['user', 'user utterances'],
      ['assistant', 'assistant utterances'],
    ]) {
      this.selects.speaker.appendChild(h('option', { attrs: { value: v } }, t));
    }
    this.searchInput = h('input', {
      class: 'search',
      attrs: {
        type: 'search',
        placeholder: 'Search utterances ( / )',
        'aria-label': 'Search utterances',
        spellcheck: 'false',
      },
    });
    this.searchInput.addEventListener('input', () => {
      clearTimeout(this.searchTimer);
      this.searchTimer = window.setTimeout(() => this.changed(), 250);
    });
    this.searchInput.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        clearTimeout(this.searchTimer);
        this.changed();
      }
      if (e.key === 'Escape') {
        this.searchInput.blur();
        this.leaveSearch();
      }
      e.stopPropagation();
    });
    const labelled = (text: string, control: HTMLSelectElement) =>
      h('label', 'filter-field', h('span', 'filter-label', text), control);
    this.popover = h(
      'div',
      {
        class: 'filter-popover',
        attrs: { id: 'filter-popover', role: 'group', 'aria-label': 'Filters', hidden: true },
      },
      labelled('Task', this.selects.task),
      labelled('Condition', this.selects.condition),
      labelled('Source', this.selects.source),
      labelled('Outcome', this.selects.outcome),
      labelled('Lines', this.selects.validity),
      labelled('Annotated by', this.selects.annotator),
      button({
        icon: 'clear-all',
        label: 'Clear filters',
        title: 'Clear filters',
        class: 'clear-filters',
        onClick: () => this.clear(),
      }),
    );
    this.popover.addEventListener('keydown', (e) => {
      if (e.key !== 'Escape') return;
      e.preventDefault();
      e.stopPropagation();
      this.setOpen(false);
      this.toggle.focus();
    });
    this.toggleCount = h('span', 'filters-count');
    this.toggle = button({
      icon: 'filter',
      label: 'Filters',
      title: 'Filter by task, condition, source, outcome, validity or annotator',
      class: 'filters-toggle',
      onClick: () => this.setOpen(this.popover.hidden),
    });
    this.toggle.appendChild(this.toggleCount);
    this.toggle.setAttribute('aria-expanded', 'false');
    this.toggle.setAttribute('aria-controls', 'filter-popover');
    this.toggle.setAttribute('aria-haspopup', 'true');
    this.element = h(
      'div',
      'filters',
      h('span', 'filters-anchor', this.toggle, this.popover),
      h('span', 'search-box', icon('search'), this.searchInput, this.selects.speaker),
    );
    this.selects.speaker.setAttribute('aria-label', 'Search in');
    document.addEventListener('mousedown', (e) => {
      if (!this.popover.hidden && !this.element.querySelector('.filters-anchor')!.contains(e.target as Node))
        this.setOpen(false);
    });
  }

  /** Shows or hides the facet popover. */
  setOpen(open: boolean): void {
    this.popover.hidden = !open;
    this.toggle.setAttribute('aria-expanded', String(open));
    if (open) (this.popover.querySelector('select') as HTMLSelectElement | null)?.focus();
  }

  /** "Filters (n)": how many facet filters are set (the search box shows its own). */
  private updateCount(): void {
    const f = this.current();
    const n = (['task', 'condition', 'source', 'outcome', 'validity', 'annotator'] as const).filter(
      (k) => f[k] !== undefined,
    ).length;
    this.toggleCount.textContent = n ? ` (${n})` : '';
    this.toggle.classList.toggle('active', n > 0);
  }

  focusSearch(): void {
    this.searchInput.focus();
  }

  /** The filter the controls currently show. */
  current(): SummaryFilter {
    const f: SummaryFilter = {};
    const v = (s: HTMLSelectElement) => (s.value === '' ? undefined : s.value);
    f.task = v(this.selects.task);
    f.condition = v(this.selects.condition);
    f.source = v(this.selects.source);
    const outcome = v(this.selects.outcome);
    if (
      outcome === 'accepted' ||
      outcome === 'ended' ||
      outcome === 'gave_up' ||
      outcome === 'abandoned' ||
      outcome === 'agent_error' ||
      outcome === 'simulator_error' ||
      outcome === 'unknown'
    )
      f.outcome = outcome;
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

  /** Sends the filter to the host when it differs from the saved one. */
  changed(): void {
    clearTimeout(this.searchTimer);
    const next = this.current();
    const state = this.store.state;
    if (JSON.stringify(next) === JSON.stringify(state.filter) && this.facets) return;
    this.updateCount();
    state.filter = next;
    state.listIndex = 0;
    this.store.save();
    this.api.post({ type: 'setFilter', filter: state.filter });
  }

  clear(): void {
    this.apply({});
    this.changed();
  }

  /** Shows `f` in the controls (facet selects are filled when the facets arrive). */
  apply(f: SummaryFilter): void {
    this.searchInput.value = f.text ?? '';
    this.selects.speaker.value = f.speaker ?? 'both';
    this.pendingFilterValues = f;
    this.updateOptions();
  }

  setFacets(facets: Facets): void {
    this.facets = facets;
    this.updateOptions();
  }

  private updateOptions(): void {
    const f = this.pendingFilterValues ?? this.current();
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
    const validity: Array<[string, number]> = fc
      ? [
          ['valid', fc.valid],
          ['invalid', fc.invalid],
        ]
      : [];
    fill(this.selects.validity, 'Valid + invalid', validity, f.validity);
    fill(this.selects.annotator, 'Any annotation', fc?.annotator ?? [], f.annotator);
    this.updateCount();
  }
}
