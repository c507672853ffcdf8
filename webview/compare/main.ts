/**
 * The Compare Runs webview: draws the diff report the host sends (src/core/diff), filters its
 * pairs, and replays one pair side by side: one row per turn with run A on the left and run B on
 * the right (so both scroll together), the first divergent turn marked, the differing parts
 * outlined and the differing trace fields listed with both values. Everything from the files is
 * text (webview/shared/dom.ts: no innerHTML), never markup.
 */
import type {
  CompareToHost,
  DiffReport,
  HostToCompare,
  PairSummary,
  TurnDifference,
} from '../../src/shared/compareProtocol';
import { DIALOGUE_PARTS, describeDivergence, formatFixed, formatP, partLabel } from '../../src/shared/compareView';
import type { Conversation, Turn } from '../../src/shared/model';
import { clear, h, type Child } from '../shared/dom';
import { HostBridge } from '../shared/host';

const host = new HostBridge<CompareToHost, HostToCompare>();
const post = (m: CompareToHost) => host.post(m);

const app = document.getElementById('app') ?? document.body.appendChild(h('div', { attrs: { id: 'app' } }));
const status = h('div', { class: 'status', attrs: { role: 'status', 'aria-live': 'polite' } });
const summary = h('section', { class: 'summary', attrs: { 'aria-label': 'Summary' } });
const filters = h('section', { class: 'filters', attrs: { 'aria-label': 'Filters' } });
const pairList = h('section', { class: 'pairs', attrs: { 'aria-label': 'Pairs' } });
const replay = h('section', { class: 'replay', attrs: { 'aria-label': 'Side-by-side replay' } });
clear(app);
app.append(status, summary, filters, pairList, replay);

document.addEventListener('securitypolicyviolation', (e) => {
  document.body.dataset.cspViolations = String(Number(document.body.dataset.cspViolations ?? 0) + 1);
  document.body.dataset.cspLast = `${e.violatedDirective} ${e.blockedURI || '(inline)'}`;
  post({ type: 'log', level: 'error', message: `CSP blocked ${e.violatedDirective}: ${e.blockedURI || '(inline)'}` });
});

let report: DiffReport | undefined;
let selected: number | undefined;
const state = { outcomeChanged: false, before: '', field: '' };
const LIST_LIMIT = 500;

function setStatus(text: string | undefined, kind: 'busy' | 'error' = 'busy'): void {
  status.hidden = text === undefined;
  status.className = `status status-${kind}`;
  status.textContent = text ?? '';
  app.setAttribute('aria-busy', text !== undefined && kind === 'busy' ? 'true' : 'false');
}

const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)}%` : '–');

function card(label: string, value: string, detail?: string): HTMLElement {
  return h(
    'div',
    'card',
    h('div', 'card-value', value),
    h('div', 'card-label', label),
    detail ? h('div', 'card-detail muted', detail) : null,
  );
}

function renderSummary(r: DiffReport): void {
  clear(summary);
  const g = r.aggregate;
  summary.append(
    h('h1', null, 'Compare runs'),
    h(
      'p',
      'files',
      h('span', 'run-tag run-a', 'A'),
      ` ${r.a.file} (${r.a.conversations}) `,
      h('span', 'run-tag run-b', 'B'),
      ` ${r.b.file} (${r.b.conversations}) · paired by ${r.pairing}`,
    ),
    h(
      'div',
      'cards',
      card('pairs', String(g.pairs), r.unpaired.length ? `${r.unpaired.length} unpaired` : 'none unpaired'),
      card('dialogue diverged', pct(g.diverged, g.pairs), `${g.diverged} pairs`),
      card('outcome changed', pct(g.outcomeChanged, g.pairs), `${g.outcomeChanged} pairs`),
      card('identical', pct(g.identical, g.pairs), `${g.traceOnly} differ in trace only`),
      card(
        'accepted',
        `${pct(r.success.acceptedA, r.success.n)} → ${pct(r.success.acceptedB, r.success.n)}`,
        `McNemar exact p = ${formatP(r.success.mcnemar.pvalue)}`,
      ),
    ),
  );
  // Outcome transitions
  const labels = [...new Set(g.transitions.flatMap((t) => [t.from, t.to]))].sort();
  if (labels.length) {
    const table = h('table', 'matrix', h('caption', null, 'Outcome A → B'));
    table.append(
      h(
        'tr',
        null,
        h('th', { attrs: { scope: 'col' } }, 'A \\ B'),
        ...labels.map((l) => h('th', { attrs: { scope: 'col' } }, l)),
      ),
    );
    for (const from of labels) {
      const cells = labels.map((to) => {
        const c = g.transitions.find((t) => t.from === from && t.to === to)?.count ?? 0;
        return h('td', { class: c && from !== to ? 'changed num' : 'num' }, String(c));
      });
      table.append(h('tr', null, h('th', { attrs: { scope: 'row' } }, from), ...cells));
    }
    const firstTurns = h(
      'table',
      'matrix',
      h('caption', null, 'First divergent turn'),
      h('tr', null, h('th', { attrs: { scope: 'col' } }, 'turn'), h('th', { attrs: { scope: 'col' } }, 'pairs')),
    );
    g.firstTurn.forEach(
      (c, t) => c && firstTurns.append(h('tr', null, h('td', 'num', String(t + 1)), h('td', 'num', String(c)))),
    );
    const fields = Object.entries(g.firstTraceFields)
      .sort((x, y) => y[1] - x[1])
      .slice(0, 8);
    const traceTable = h(
      'table',
      'matrix',
      h('caption', null, 'Trace fields differing first'),
      h('tr', null, h('th', { attrs: { scope: 'col' } }, 'field'), h('th', { attrs: { scope: 'col' } }, 'pairs')),
    );
    for (const [f, c] of fields) traceTable.append(h('tr', null, h('td', null, f), h('td', 'num', String(c))));
    summary.append(h('div', 'tables', table, firstTurns, traceTable));
  }
  const feats = r.features
    .filter((f) => f.n > 0)
    .sort((x, y) => Math.abs(y.effect) - Math.abs(x.effect))
    .slice(0, 8);
  if (feats.length) {
    const t = h('table', 'features', h('caption', null, 'Largest paired changes (B − A)'));
    t.append(
      h(
        'tr',
        null,
        ...['feature', 'pairs', 'mean A', 'mean B', 'B − A', '95% CI', 'Wilcoxon p'].map((x) =>
          h('th', { attrs: { scope: 'col' } }, x),
        ),
      ),
    );
    for (const f of feats) {
      t.append(
        h(
          'tr',
          null,
          h('td', null, f.label),
          h('td', 'num', String(f.n)),
          h('td', 'num', formatFixed(f.meanA)),
          h('td', 'num', formatFixed(f.meanB)),
          h('td', 'num', formatFixed(f.meanDiff)),
          h('td', 'num', f.ci ? `[${formatFixed(f.ci.low)}, ${formatFixed(f.ci.high)}]` : ''),
          h('td', 'num', f.wilcoxon && !Number.isNaN(f.wilcoxon.pvalue) ? formatP(f.wilcoxon.pvalue) : '–'),
        ),
      );
    }
    summary.append(t);
  }
}

function fieldOptions(r: DiffReport): string[] {
  const trace = new Set<string>();
  for (const p of r.pairs) for (const f of [...p.traceFields, ...p.traceFieldsAtTurn]) trace.add(f);
  return [
    ...DIALOGUE_PARTS.filter((d) => r.aggregate.firstPart[d] || r.pairs.some((p) => p.parts.includes(d))),
    ...[...trace].sort().map((t) => `trace.${t}`),
  ];
}

function renderFilters(r: DiffReport): void {
  clear(filters);
  const changed = h('input', { attrs: { type: 'checkbox', id: 'f-outcome', checked: state.outcomeChanged } });
  changed.addEventListener('change', () => {
    state.outcomeChanged = changed.checked;
    renderPairs();
  });
  const before = h('input', {
    attrs: { type: 'number', id: 'f-before', min: 1, placeholder: 'any', value: state.before },
  });
  before.addEventListener('input', () => {
    state.before = before.value;
    renderPairs();
  });
  const field = h('select', { attrs: { id: 'f-field' } }, h('option', { attrs: { value: '' } }, 'any field'));
  for (const f of fieldOptions(r))
    field.append(
      h('option', { attrs: { value: f, selected: state.field === f } }, f.startsWith('trace.') ? f : partLabel(f)),
    );
  field.addEventListener('change', () => {
    state.field = field.value;
    renderPairs();
  });
  filters.append(
    h('label', { attrs: { for: 'f-outcome' } }, changed, ' outcome changed'),
    h('label', { attrs: { for: 'f-before' } }, 'diverged before turn ', before),
    h('label', { attrs: { for: 'f-field' } }, 'field ', field),
  );
}

function matches(p: PairSummary): boolean {
  if (state.outcomeChanged && p.outcomeA === p.outcomeB) return false;
  const k = Number(state.before);
  if (state.before !== '' && Number.isFinite(k) && (p.turn === undefined || p.turn + 1 >= k)) return false;
  if (state.field) {
    if (state.field.startsWith('trace.')) {
      const f = state.field.slice(6);
      if (!p.traceFields.includes(f) && !p.traceFieldsAtTurn.includes(f)) return false;
    } else if (!p.parts.includes(state.field as never)) return false;
  }
  return true;
}

function renderPairs(): void {
  clear(pairList);
  if (!report) return;
  const shown: number[] = [];
  report.pairs.forEach((p, i) => matches(p) && shown.push(i));
  pairList.append(
    h(
      'h2',
      null,
      `Pairs (${shown.length} of ${report.pairs.length}${shown.length > LIST_LIMIT ? `, first ${LIST_LIMIT} shown` : ''})`,
    ),
  );
  const t = h('table', 'pair-table');
  t.append(
    h(
      'tr',
      null,
      ...['conversation', 'outcome A → B', 'turns A → B', 'first divergence'].map((x) =>
        h('th', { attrs: { scope: 'col' } }, x),
      ),
    ),
  );
  for (const i of shown.slice(0, LIST_LIMIT)) {
    const p = report.pairs[i];
    const row = h(
      'tr',
      {
        class: `pair${i === selected ? ' selected' : ''}${p.outcomeA !== p.outcomeB ? ' outcome-changed' : ''}`,
        attrs: { tabindex: 0, 'data-pair': i, 'aria-selected': i === selected, role: 'button' },
      },
      h('td', null, p.idA === p.idB ? p.idA : `${p.idA} / ${p.idB}`),
      h('td', null, p.outcomeA === p.outcomeB ? p.outcomeA : `${p.outcomeA} → ${p.outcomeB}`),
      h('td', 'num', `${p.turnsA} → ${p.turnsB}`),
      h('td', null, describeDivergence(p)),
    );
    const pick = () => {
      selected = i;
      for (const r of pairList.querySelectorAll('tr.selected')) r.classList.remove('selected');
      row.classList.add('selected');
      clear(replay);
      replay.append(h('p', 'muted', 'Loading the pair…'));
      post({ type: 'selectPair', index: i });
    };
    row.addEventListener('click', pick);
    row.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        pick();
      }
    });
    t.append(row);
  }
  pairList.append(t);
  if (report.unpaired.length) {
    const u = h('details', 'unpaired', h('summary', null, `${report.unpaired.length} unpaired conversations`));
    const ul = h('ul');
    for (const e of report.unpaired.slice(0, 200))
      ul.append(h('li', null, `${e.side} line ${e.line} ${e.id}: ${e.reason}`));
    u.append(ul);
    pairList.append(u);
  }
}

function acts(t: Turn, speaker: 'user' | 'assistant'): string {
  const fromTrace = speaker === 'user' ? t.trace?.user_act : t.trace?.agent_act;
  if (fromTrace) return fromTrace;
  return t.annotations?.find((a) => a.speaker === speaker)?.acts.join(', ') ?? '';
}

function short(v: unknown): string {
  const s = v === undefined ? '(absent)' : JSON.stringify(v);
  return s.length > 160 ? `${s.slice(0, 157)}…` : s;
}

function side(t: Turn | undefined, d: TurnDifference, label: string): HTMLElement {
  if (!t) return h('div', 'cell missing', h('span', 'muted', `${label}: conversation ended`));
  const mark = (part: string) => (d.parts.includes(part as never) ? ' diff' : '');
  const blocks: Child[] = [];
  if (t.user_utterance !== undefined) {
    blocks.push(
      h(
        'div',
        `utt user${mark('user_utterance')}${mark('user_act')}`,
        h('span', 'who', 'User'),
        acts(t, 'user') ? h('span', `act${mark('user_act')}`, acts(t, 'user')) : null,
        h('div', 'text', t.user_utterance),
      ),
    );
  }
  if (t.assistant_utterance !== undefined) {
    blocks.push(
      h(
        'div',
        `utt assistant${mark('assistant_utterance')}${mark('agent_act')}`,
        h('span', 'who', 'Recommender'),
        acts(t, 'assistant') ? h('span', `act${mark('agent_act')}`, acts(t, 'assistant')) : null,
        h('div', 'text', t.assistant_utterance),
      ),
    );
  }
  if (t.recommendations?.length) {
    blocks.push(
      h(
        'ul',
        `recs${mark('recommendations')}`,
        ...t.recommendations.map((r) => h('li', null, r.title ? `${r.title} (${r.item_id})` : r.item_id)),
      ),
    );
  }
  return h('div', 'cell', ...blocks);
}

function renderReplay(index: number, a: Conversation, b: Conversation, turns: TurnDifference[]): void {
  clear(replay);
  const p = report?.pairs[index];
  if (!p) return;
  const openA = h('button', { class: 'btn', attrs: { type: 'button' } }, 'Open A in editor');
  openA.addEventListener('click', () => post({ type: 'openConversation', index, side: 'A' }));
  const openB = h('button', { class: 'btn', attrs: { type: 'button' } }, 'Open B in editor');
  openB.addEventListener('click', () => post({ type: 'openConversation', index, side: 'B' }));
  replay.append(
    h('h2', null, `Replay: ${p.idA}`),
    h('p', null, `${describeDivergence(p)} · outcome ${p.outcomeA} → ${p.outcomeB} `, openA, ' ', openB),
  );
  const grid = h('div', { class: 'grid', attrs: { role: 'table', 'aria-label': 'Turns of A and B side by side' } });
  grid.append(
    h(
      'div',
      { class: 'grid-head', attrs: { role: 'row' } },
      h('div', 'turn-no', ''),
      h('div', 'col-head', h('span', 'run-tag run-a', 'A'), ` ${p.idA} (line ${p.lineA})`),
      h('div', 'col-head', h('span', 'run-tag run-b', 'B'), ` ${p.idB} (line ${p.lineB})`),
    ),
  );
  let first: HTMLElement | undefined;
  for (const d of turns) {
    const divergent = p.turn === d.turn;
    const row = h(
      'div',
      {
        class: `grid-row${divergent ? ' divergent' : ''}${d.parts.length ? ' differs' : ''}`,
        attrs: { role: 'row', 'data-turn': d.turn, 'data-divergent': divergent ? 'true' : undefined },
      },
      h('div', 'turn-no', `turn ${d.turn + 1}`, divergent ? h('div', 'badge', 'first divergence') : null),
      side(a.turns[d.turn], d, 'A'),
      side(b.turns[d.turn], d, 'B'),
    );
    grid.append(row);
    if (d.traceFields.length) {
      const ta = (a.turns[d.turn]?.trace ?? {}) as Record<string, unknown>;
      const tb = (b.turns[d.turn]?.trace ?? {}) as Record<string, unknown>;
      const list = h(
        'div',
        { class: 'trace-diff', attrs: { role: 'row', 'data-turn': d.turn } },
        h('div', 'turn-no muted', 'trace'),
      );
      const left = h('div', 'cell');
      const right = h('div', 'cell');
      for (const f of d.traceFields) {
        const highlight = divergent || d.turn === p.traceTurn ? ' hl' : '';
        left.append(h('div', `field${highlight}`, h('span', 'field-name', f), ' ', short(ta[f])));
        right.append(h('div', `field${highlight}`, h('span', 'field-name', f), ' ', short(tb[f])));
      }
      list.append(left, right);
      grid.append(list);
    }
    if (divergent) first = row;
  }
  replay.append(grid);
  first?.scrollIntoView({ block: 'center' });
}

function receive(m: HostToCompare): void {
  switch (m.type) {
    case 'busy':
      setStatus(`${m.message}${m.fraction !== undefined ? ` ${Math.round(m.fraction * 100)}%` : ''}`);
      break;
    case 'error':
      setStatus(m.message, 'error');
      break;
    case 'report':
      report = m.report;
      setStatus(undefined);
      renderSummary(m.report);
      renderFilters(m.report);
      renderPairs();
      document.body.dataset.pairs = String(m.report.pairs.length);
      break;
    case 'pair':
      if (m.index === selected || selected === undefined) {
        selected = m.index;
        renderReplay(m.index, m.a, m.b, m.turns);
      }
      break;
  }
}
host.onEvery({ busy: true, error: true, report: true, pair: true }, receive);

setStatus('Waiting for the diff…');
post({ type: 'ready' });
