/**
 * Renders a `Report` into the panel's DOM: header with actions, verdict badges, inputs, and the
 * sections (text, tables with closeness highlighting, charts). Charts are mounted through a hook
 * (chart.js in the panel, nothing in DOM tests); a chart that cannot be drawn shows its data
 * table instead. Every string from the report is inserted as text.
 */
import {
  type ChartSection,
  type Mark,
  type Report,
  type Section,
  type TableSection,
  type Verdict,
  formatCell,
  chartToTable,
} from '../../src/shared/report';
import { button, clear, h } from './dom';

/** A drawn chart. */
export interface ChartMount {
  /** PNG data URL of the chart as drawn now. */
  toPng(): string | undefined;
  /** Redraws with the current theme colours. */
  retheme(): void;
  destroy(): void;
}

export interface RenderHooks {
  mountChart(canvas: HTMLCanvasElement, section: ChartSection): ChartMount | undefined;
  exportPng(sectionId: string): void;
  exportTable(sectionId: string, format: 'csv' | 'json'): void;
  exportMarkdown(): void;
  exportJson(): void;
  recompute(chart?: 'histogram' | 'box'): void;
  openInput(index: number): void;
  /** Opens the conversation row `row` of table `sectionId` links to. */
  openLink(sectionId: string, row: number): void;
}

interface RenderOptions {
  restored?: boolean;
  canRecompute: boolean;
  /** For PLSA: which distribution style is shown (offers the other one). */
  distribution?: 'histogram' | 'box';
}

export interface Rendered {
  charts: Map<string, ChartMount>;
  destroy(): void;
}

const KIND_LABEL: Record<Report['kind'], string> = {
  plsa: 'Population alignment',
  'human-likeness': 'Human-likeness',
  counterfactual: 'Counterfactual validation',
  simulation: 'Simulation metrics',
  fidelity: 'Simulator fidelity',
  invariants: 'Behavioural invariants',
};

const VERDICT_ICON: Record<Verdict['verdict'], string> = { pass: 'pass', warn: 'warning', fail: 'error' };

const MARK_TITLE: Record<Mark, string> = {
  closest: 'closest to the reference in this row',
  close: 'no significant difference',
  far: 'significantly different',
  pass: 'agrees',
  warn: 'warning',
  fail: 'disagrees',
};

function verdictCard(v: Verdict): HTMLElement {
  return h(
    'div',
    { class: `verdict verdict-${v.verdict}`, attrs: { role: 'group', 'aria-label': `${v.pillar}: ${v.verdict}` } },
    h(
      'div',
      'verdict-head',
      h(
        'span',
        { class: `badge badge-${v.verdict}` },
        h('span', { class: `codicon codicon-${VERDICT_ICON[v.verdict]}`, attrs: { 'aria-hidden': 'true' } }),
        h('span', { text: v.verdict.toUpperCase() }),
      ),
      h('span', { class: 'verdict-pillar', text: v.pillar }),
    ),
    h('p', { class: 'verdict-detail', text: v.detail }),
    v.rule ? h('p', { class: 'verdict-rule muted', text: `Rule: ${v.rule}` }) : null,
  );
}

/**
 * Closeness to the reference is one scale everywhere: `mark-close` (no significant difference)
 * and `mark-far` (significantly different), as tints of one pair of colours (see panels.css and
 * the legend). `closest` ranks a cell within its row and has no colour of its own: a p-value cell
 * marked closest still gets its place on the scale from its p and the report's alpha, so a
 * "closest" p of 2.5e-7 reads as far, like its neighbours.
 */
function markClasses(
  mark: Mark | null,
  cell: unknown,
  format: string | undefined,
  alpha: number | undefined,
): string[] {
  if (!mark) return [];
  if (mark !== 'closest') return [`mark-${mark}`];
  if (format === 'p' && alpha !== undefined && typeof cell === 'number' && Number.isFinite(cell))
    return ['mark-closest', cell > alpha ? 'mark-close' : 'mark-far'];
  return ['mark-closest'];
}

/** The legend of the closeness scale, for a table that uses it. */
function closenessLegend(table: TableSection, alpha: number | undefined): HTMLElement | null {
  const used = new Set(table.rows.flatMap((r) => r.marks ?? []));
  if (!used.has('close') && !used.has('far') && !used.has('closest')) return null;
  const a = alpha !== undefined ? ` (p > ${alpha})` : '';
  const b = alpha !== undefined ? ` (p ≤ ${alpha})` : '';
  const item = (cls: string, text: string) =>
    h(
      'li',
      { class: `legend-entry ${cls}` },
      h('span', { class: 'swatch', attrs: { 'aria-hidden': 'true' } }),
      h('span', { text }),
    );
  return h(
    'ul',
    { class: 'closeness-legend', attrs: { 'aria-label': 'Legend' } },
    item('mark-close', `No significant difference from the reference${a}`),
    item('mark-far', `Significantly different from the reference${b}`),
    used.has('closest')
      ? item('mark-closest', 'Closest: the best value of its row (bold, ★); its colour still follows its p-value')
      : null,
  );
}

/**
 * Text cells longer than this wrap inside a block of bounded width (e.g. an invariant's statement),
 * so one long cell does not push the columns after it off-screen.
 */
const LONG_CELL = 48;

/** A horizontally scrollable wrapper a keyboard can reach (Tab, then arrow keys scroll it). */
function tableWrap(label: string, table: HTMLTableElement): HTMLElement {
  return h(
    'div',
    { class: 'table-wrap', attrs: { tabindex: 0, role: 'region', 'aria-label': `${label} (table)` } },
    table,
  );
}

/**
 * A table element for a table section (marks become classes and titles). With `onLink`, the cells
 * of the link column of rows that carry a `link` are buttons that open the linked conversation.
 * `alpha` (the report's significance level) places closest p-values on the closeness scale.
 */
function tableElement(table: TableSection, onLink?: (row: number) => void, alpha?: number): HTMLTableElement {
  const linkKey = table.linkColumn ?? table.columns[0]?.key;
  const numeric = table.columns.map((c) => c.format !== undefined && c.format !== 'text');
  // Header text in a block of bounded width: table cells ignore max-width, so a long label (a file
  // name) would otherwise size its column to one line or be cut off.
  const thead = h(
    'thead',
    null,
    h(
      'tr',
      null,
      ...table.columns.map((c, i) =>
        h(
          'th',
          { class: numeric[i] ? 'num' : undefined, attrs: { scope: 'col' } },
          h('span', { class: 'th-text', text: c.label }),
        ),
      ),
    ),
  );
  const tbody = h('tbody');
  table.rows.forEach((r, ri) => {
    const tr = h('tr');
    r.cells.forEach((cell, i) => {
      const col = table.columns[i];
      const mark = r.marks?.[i] ?? null;
      const classes = [numeric[i] ? 'num' : '', ...markClasses(mark, cell, col.format, alpha)]
        .filter(Boolean)
        .join(' ');
      const text = formatCell(cell, col);
      const title = mark
        ? MARK_TITLE[mark]
        : typeof cell === 'number' && text !== String(cell)
          ? String(cell)
          : undefined;
      const td = h(i === 0 ? 'th' : 'td', {
        class: classes || undefined,
        attrs: { title, scope: i === 0 ? 'row' : undefined },
      });
      if (mark === 'pass' || mark === 'fail' || mark === 'warn')
        td.appendChild(
          h('span', {
            class: `codicon codicon-${mark === 'pass' ? 'check' : mark === 'fail' ? 'close' : 'warning'}`,
            attrs: { 'aria-hidden': 'true' },
          }),
        );
      if (onLink && r.link && col.key === linkKey) {
        const where = r.link.turn !== undefined ? ` at turn ${r.link.turn + 1}` : '';
        const open = h('button', {
          class: 'link',
          attrs: {
            type: 'button',
            title: `Open ${r.link.conversation}${where} in the SimLens editor`,
            'data-action': 'open-link',
            'data-row': ri,
          },
          text,
        });
        open.addEventListener('click', () => onLink(ri));
        td.appendChild(open);
      } else if (text.length > LONG_CELL) td.appendChild(h('div', { class: 'cell-long', text }));
      else td.appendChild(document.createTextNode(text));
      tr.appendChild(td);
    });
    tbody.appendChild(tr);
  });
  return h('table', { class: 'report-table' }, thead, tbody);
}

function sectionHeader(section: Section, actions: HTMLElement[]): HTMLElement {
  return h('div', 'section-head', h('h3', { text: section.title }), h('div', 'section-actions', ...actions));
}

function renderSection(
  section: Section,
  hooks: RenderHooks,
  charts: Map<string, ChartMount>,
  alpha: number | undefined,
): HTMLElement {
  const card = h('section', {
    class: `card card-${section.type}`,
    attrs: { 'data-section': section.id, 'aria-label': section.title },
  });
  if (section.type === 'text') {
    card.appendChild(sectionHeader(section, []));
    if (section.caption) card.appendChild(h('p', { class: 'caption muted', text: section.caption }));
    for (const p of section.paragraphs)
      card.appendChild(h('p', { class: `para${section.tone ? ` tone-${section.tone}` : ''}`, text: p }));
    return card;
  }
  if (section.type === 'table') {
    card.appendChild(
      sectionHeader(section, [
        button('CSV', 'export', () => hooks.exportTable(section.id, 'csv'), {
          title: 'Export this table as CSV',
          action: 'export-csv',
        }),
        button('JSON', 'json', () => hooks.exportTable(section.id, 'json'), {
          title: 'Export this table as JSON',
          action: 'export-json',
        }),
      ]),
    );
    if (section.caption) card.appendChild(h('p', { class: 'caption muted', text: section.caption }));
    card.appendChild(
      tableWrap(
        section.title,
        tableElement(section, (row) => hooks.openLink(section.id, row), alpha),
      ),
    );
    const legend = closenessLegend(section, alpha);
    if (legend) card.appendChild(legend);
    if (section.notes?.length)
      card.appendChild(h('ul', 'notes muted', ...section.notes.map((n) => h('li', { text: n }))));
    return card;
  }
  card.appendChild(
    sectionHeader(section, [
      button('PNG', 'device-camera', () => hooks.exportPng(section.id), {
        title: 'Save this chart as PNG',
        action: 'export-png',
      }),
      button('CSV', 'export', () => hooks.exportTable(section.id, 'csv'), {
        title: "Export this chart's data as CSV",
        action: 'export-csv',
      }),
    ]),
  );
  if (section.caption) card.appendChild(h('p', { class: 'caption muted', text: section.caption }));
  const canvas = h('canvas', { attrs: { role: 'img', 'aria-label': section.title } });
  const box = h('div', { class: `chart-box chart-${section.chart}` }, canvas);
  card.appendChild(box);
  const data = tableElement(chartToTable(section));
  let mount: ChartMount | undefined;
  try {
    mount = hooks.mountChart(canvas, section);
  } catch {
    mount = undefined;
  }
  if (mount) {
    charts.set(section.id, mount);
    card.appendChild(h('details', 'chart-data', h('summary', { text: 'Data' }), tableWrap(section.title, data)));
  } else {
    box.remove();
    card.appendChild(h('p', { class: 'muted', text: 'The chart cannot be drawn here; its data:' }));
    card.appendChild(tableWrap(section.title, data));
  }
  return card;
}

/** The header: kind, title and time, and the export / distribution / recompute buttons. */
function reportHeader(report: Report, hooks: RenderHooks, opts: RenderOptions): HTMLElement {
  const actions: HTMLElement[] = [
    button('Markdown', 'markdown', () => hooks.exportMarkdown(), {
      title: 'Export the whole panel as a Markdown report (with PNG charts)',
      action: 'export-markdown',
    }),
    button('JSON', 'json', () => hooks.exportJson(), {
      title: 'Export the report as JSON',
      action: 'export-report-json',
    }),
  ];
  if (report.kind === 'plsa' && opts.canRecompute) {
    const other = opts.distribution === 'box' ? 'histogram' : 'box';
    actions.push(
      button(
        other === 'box' ? 'Box plots' : 'Histograms',
        other === 'box' ? 'symbol-numeric' : 'graph',
        () => hooks.recompute(other),
        {
          title: `Show distributions as ${other === 'box' ? 'box plots' : 'histograms'}`,
          action: 'toggle-distribution',
        },
      ),
    );
  }
  if (opts.canRecompute)
    actions.push(
      button('Recompute', 'refresh', () => hooks.recompute(), {
        title: 'Compute the report again from its inputs',
        action: 'recompute',
      }),
    );
  return h(
    'header',
    'report-header',
    h(
      'div',
      'report-titles',
      h('div', { class: 'kind muted', text: KIND_LABEL[report.kind] }),
      h('h1', { text: report.title }),
      h('div', { class: 'generated muted', text: `Generated ${report.generated}` }),
    ),
    h('div', 'report-actions', ...actions),
  );
}

/** The inputs table: one row per population, its file a button that opens it in the editor. */
function inputsCard(report: Report, hooks: RenderHooks): HTMLElement {
  const rows = report.inputs.map((inp, i) =>
    h(
      'tr',
      null,
      h('th', { attrs: { scope: 'row' }, text: inp.label }),
      h(
        'td',
        null,
        h('button', {
          class: 'link',
          attrs: {
            type: 'button',
            title: 'Open in the SimLens editor',
            'data-action': 'open-input',
            'data-index': i,
          },
          text: inp.file,
        }),
      ),
      h('td', { class: 'num', text: String(inp.n) }),
      h('td', { text: inp.filter ?? '' }),
    ),
  );
  rows.forEach((tr) =>
    tr
      .querySelector('button')
      ?.addEventListener('click', () =>
        hooks.openInput(Number((tr.querySelector('button') as HTMLElement).dataset.index)),
      ),
  );
  return h(
    'section',
    { class: 'card inputs', attrs: { 'aria-label': 'Inputs' } },
    h('div', 'section-head', h('h3', { text: 'Inputs' })),
    tableWrap(
      'Inputs',
      h(
        'table',
        'report-table',
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            ...['Population', 'File', 'Conversations', 'Filter'].map((t, i) =>
              h('th', { class: i === 2 ? 'num' : undefined, attrs: { scope: 'col' }, text: t }),
            ),
          ),
        ),
        h('tbody', null, ...rows),
      ),
    ),
  );
}

/** Renders the report into `root` (replacing its content). */
export function renderReport(root: HTMLElement, report: Report, hooks: RenderHooks, opts: RenderOptions): Rendered {
  clear(root);
  const charts = new Map<string, ChartMount>();
  root.appendChild(reportHeader(report, hooks, opts));
  if (opts.restored) {
    root.appendChild(
      h('p', {
        class: 'notice',
        attrs: { role: 'status' },
        text: `Restored from the saved panel (computed ${report.generated}).${opts.canRecompute ? ' Recompute to refresh it.' : ''}`,
      }),
    );
  }
  if (report.verdicts?.length)
    root.appendChild(h('div', { class: 'verdicts', attrs: { role: 'list' } }, ...report.verdicts.map(verdictCard)));
  if (report.inputs.length) root.appendChild(inputsCard(report, hooks));
  const alphaParam = Number(report.params?.alpha);
  const alpha =
    report.params?.alpha !== undefined && report.params.alpha !== null && Number.isFinite(alphaParam)
      ? alphaParam
      : undefined;
  let group: string | undefined;
  let container: HTMLElement = root;
  for (const s of report.sections) {
    if (s.group !== group) {
      group = s.group;
      if (group !== undefined) {
        container = h(
          'div',
          { class: 'group', attrs: { role: 'region', 'aria-label': group } },
          h('h2', { text: group }),
        );
        root.appendChild(container);
      } else container = root;
    }
    container.appendChild(renderSection(s, hooks, charts, alpha));
  }
  if (report.params && Object.keys(report.params).length) {
    root.appendChild(
      h(
        'details',
        'card params',
        h('summary', { text: 'Parameters' }),
        h(
          'dl',
          null,
          ...Object.entries(report.params).flatMap(([k, v]) => [
            h('dt', { text: k }),
            h('dd', { text: v === null ? '–' : String(v) }),
          ]),
        ),
      ),
    );
  }
  if (report.warnings?.length) {
    root.appendChild(
      h(
        'section',
        { class: 'card warnings', attrs: { 'aria-label': 'Warnings' } },
        h('h3', { text: 'Warnings' }),
        h('ul', null, ...report.warnings.map((w) => h('li', { text: w }))),
      ),
    );
  }
  return {
    charts,
    destroy() {
      for (const c of charts.values()) c.destroy();
      charts.clear();
    },
  };
}
