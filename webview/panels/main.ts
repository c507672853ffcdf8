/**
 * The metric panel webview: renders the `Report` the host sends, keeps it (with the spec) in the
 * webview state so VS Code can restore the panel after a reload, redraws charts when the theme
 * changes, and turns the export buttons into messages (PNG pixels come from the canvas; tables
 * and Markdown are rendered by the host from its own copy of the report).
 */
import type { Report, ReportSpec } from '../../src/shared/report';
import type { HostToPanel, PanelState, PanelToHost } from '../../src/shared/panelProtocol';
import { clear, h } from './dom';
import { renderReport, type Rendered, type RenderHooks } from './render';
import { loadCharts, mountChart, resetSeriesColours } from './charts';
import { HostBridge } from '../shared/host';

const host = new HostBridge<PanelToHost, HostToPanel, PanelState>();
const post = (m: PanelToHost) => host.post(m);

const app = document.getElementById('app') ?? document.body.appendChild(h('div', { attrs: { id: 'app' } }));
const status = h('div', { class: 'status', attrs: { role: 'status', 'aria-live': 'polite', hidden: true } });
const progress = h('progress', { attrs: { max: 1 } });
const statusText = h('span', 'status-text');
status.append(
  h('span', { class: 'codicon codicon-loading codicon-modifier-spin', attrs: { 'aria-hidden': 'true' } }),
  statusText,
  progress,
);
const content = h('main', 'report');
clear(app);
app.append(status, content);
app.setAttribute('aria-busy', 'false');

let rendered: Rendered | undefined;
let current: { report: Report; spec: ReportSpec | null } | undefined;
let canRecompute = false;

// Count CSP violations where tests (and curious users) can see them.
let cspViolations = 0;
document.addEventListener('securitypolicyviolation', (e) => {
  cspViolations++;
  document.body.dataset.cspViolations = String(cspViolations);
  post({ type: 'log', level: 'error', message: `CSP blocked ${e.violatedDirective}: ${e.blockedURI || '(inline)'}` });
});

function setStatus(text: string | undefined, fraction?: number, kind: 'busy' | 'error' | 'info' = 'busy'): void {
  if (text === undefined) {
    status.hidden = true;
    app.setAttribute('aria-busy', 'false');
    return;
  }
  status.hidden = false;
  status.className = `status status-${kind}`;
  statusText.textContent = text;
  const spinner = status.querySelector('.codicon');
  spinner?.classList.toggle('codicon-loading', kind === 'busy');
  spinner?.classList.toggle('codicon-modifier-spin', kind === 'busy');
  spinner?.classList.toggle('codicon-error', kind === 'error');
  spinner?.classList.toggle('codicon-info', kind === 'info');
  progress.hidden = kind !== 'busy';
  if (fraction === undefined) progress.removeAttribute('value');
  else progress.value = Math.max(0, Math.min(1, fraction));
  app.setAttribute('aria-busy', kind === 'busy' ? 'true' : 'false');
}

const hooks: RenderHooks = {
  mountChart,
  exportPng(sectionId) {
    const png = rendered?.charts.get(sectionId)?.toPng();
    if (png) post({ type: 'exportPng', sectionId, dataUrl: png });
    else post({ type: 'log', level: 'warn', message: `chart ${sectionId} has no image to export` });
  },
  exportTable(sectionId, format) {
    post({ type: 'exportTable', sectionId, format });
  },
  exportMarkdown() {
    const charts: { sectionId: string; dataUrl: string }[] = [];
    for (const [sectionId, c] of rendered?.charts ?? []) {
      const dataUrl = c.toPng();
      if (dataUrl) charts.push({ sectionId, dataUrl });
    }
    post({ type: 'exportMarkdown', charts });
  },
  exportJson() {
    post({ type: 'exportReportJson' });
  },
  recompute(chart) {
    post(chart ? { type: 'recompute', chart } : { type: 'recompute' });
  },
  openInput(index) {
    post({ type: 'openInput', index });
  },
  openLink(sectionId, row) {
    post({ type: 'openLink', sectionId, row });
  },
};

function show(report: Report, spec: ReportSpec | null, restored: boolean, outDir: string | undefined): void {
  rendered?.destroy();
  current = { report, spec };
  const distribution = spec?.kind === 'plsa' ? (spec.chart ?? 'histogram') : undefined;
  // Each population keeps one colour across the report's charts, the reference first.
  resetSeriesColours(report.inputs.map((i) => i.label));
  rendered = renderReport(content, report, hooks, { restored, canRecompute, distribution });
  const previous = host.getState() as Partial<PanelState> | undefined;
  const state: PanelState = { version: 1, spec, report };
  const dir = outDir ?? (previous && typeof previous.outDir === 'string' ? previous.outDir : undefined);
  if (dir) state.outDir = dir;
  host.setState(state);
}

function receive(m: HostToPanel): void {
  switch (m.type) {
    case 'report':
      canRecompute = m.canRecompute;
      setStatus(undefined);
      show(m.report, m.spec, m.restored === true, m.outDir);
      break;
    case 'busy':
      setStatus(m.message, m.fraction, 'busy');
      if (!current) {
        clear(content);
        content.appendChild(h('p', { class: 'placeholder muted', text: 'Computing the report…' }));
      }
      break;
    case 'error':
      canRecompute = m.canRecompute;
      setStatus(m.message, undefined, m.cancelled ? 'info' : 'error');
      if (!current) {
        clear(content);
        content.appendChild(
          h('p', {
            class: `placeholder ${m.cancelled ? 'muted' : 'error-text'}`,
            text: m.cancelled ? 'Cancelled.' : 'The report could not be computed.',
          }),
        );
        if (m.canRecompute)
          content.appendChild(
            h(
              'p',
              null,
              h('button', { class: 'btn', attrs: { type: 'button', 'data-action': 'recompute' }, text: 'Try again' }),
            ),
          );
        content.querySelector('[data-action="recompute"]')?.addEventListener('click', () => hooks.recompute());
      }
      break;
    case 'exported':
      setStatus(`Saved ${m.file}`, undefined, 'info');
      setTimeout(() => {
        if (statusText.textContent === `Saved ${m.file}`) setStatus(undefined);
      }, 4000);
      break;
  }
}
host.onEvery({ report: true, busy: true, error: true, exported: true }, receive);

// Redraw charts when VS Code switches theme (it changes the body class and the CSS variables).
let rethemeQueued = false;
const retheme = () => {
  if (rethemeQueued) return;
  rethemeQueued = true;
  requestAnimationFrame(() => {
    rethemeQueued = false;
    for (const c of rendered?.charts.values() ?? []) c.retheme();
  });
};
new MutationObserver(retheme).observe(document.body, {
  attributes: true,
  attributeFilter: ['class', 'data-vscode-theme-kind'],
});
new MutationObserver(retheme).observe(document.documentElement, { attributes: true, attributeFilter: ['style'] });

content.appendChild(h('p', { class: 'placeholder muted', text: 'Loading…' }));
// Charts load before "ready", so the first report is drawn with them; without them (no canvas
// support) reports still render, with data tables in place of charts.
loadCharts()
  .catch((e: unknown) => post({ type: 'log', level: 'error', message: `chart.js failed to load: ${String(e)}` }))
  .finally(() => post({ type: 'ready' }));
