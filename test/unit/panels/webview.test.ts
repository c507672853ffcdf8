import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { REPORT_SCHEMA, type Report } from '../../../src/core/report/model';
import { tableColumns } from '../../../src/core/report/builders/common';
import type { ReportSpec } from '../../../src/core/report/specs';
import { openPanel } from './harness';

const HOSTILE = '<script>window.__xss=1</script>';
const HOSTILE_IMG = '<img src=x onerror="window.__xss=2">';

function report(): Report {
  return {
    schema: REPORT_SCHEMA,
    kind: 'plsa',
    title: `Alignment ${HOSTILE}`,
    generated: '2026-01-01T00:00:00.000Z',
    inputs: [
      { label: HOSTILE_IMG, file: 'human.jsonl', n: 30, filter: 'condition=good' },
      { label: 'sim', file: `runs/${HOSTILE}.jsonl`, n: 20 },
    ],
    params: { acts: HOSTILE },
    verdicts: [
      {
        pillar: 'Population alignment (PLSA)',
        verdict: 'fail',
        detail: `2/11 aligned ${HOSTILE_IMG}`,
        rule: 'p > 0.05',
      },
      { pillar: 'Human-likeness (HLS)', verdict: 'pass', detail: 'mean HLS 0.41' },
    ],
    sections: [
      { type: 'text', id: 'summary', title: 'Summary', paragraphs: [`first ${HOSTILE}`, 'second'], tone: 'info' },
      {
        type: 'table',
        id: 'plsa-table',
        title: 'MWU and KS',
        group: `PLSA ${HOSTILE_IMG}`,
        columns: tableColumns(['feature', 'Feature', 'text'], ['p', `p ${HOSTILE}`, 'p'], ['d', 'KS D', 'fixed']),
        rows: [
          { cells: [HOSTILE_IMG, 0.4, 0.1234], marks: [null, 'closest', 'close'] },
          { cells: ['Critique', 0.00002, null], marks: [null, 'far', null] },
        ],
        notes: [`legend ${HOSTILE}`],
      },
      {
        type: 'chart',
        id: 'plsa-ks',
        title: `KS ${HOSTILE}`,
        group: `PLSA ${HOSTILE_IMG}`,
        chart: 'bar',
        categories: ['Num turns', HOSTILE],
        series: [{ name: HOSTILE_IMG, values: [0.2, 0.5] }],
      },
    ],
    warnings: [`line 3: ${HOSTILE}`],
  };
}

const SPEC: ReportSpec = { kind: 'plsa', reference: { file: 'human.jsonl' }, candidates: [{ file: 'sim.jsonl' }] };

function noInjectedMarkup(doc: Document): void {
  assert.equal(doc.querySelectorAll('script').length, 0, 'no <script> elements');
  assert.equal(doc.querySelectorAll('img').length, 0, 'no <img> elements');
  for (const el of doc.querySelectorAll('*')) {
    for (const a of el.getAttributeNames())
      assert.ok(!a.startsWith('on'), `no event-handler attribute (${el.tagName} ${a})`);
  }
}

describe('metric panel webview (jsdom)', () => {
  test('renders a report: title, verdicts, inputs, tables with marks, chart fallback — hostile text stays text', async (t) => {
    const p = await openPanel(t, { type: 'report', report: report(), spec: SPEC, canRecompute: true });
    const doc = p.document;
    assert.equal(doc.querySelector('h1')?.textContent, `Alignment ${HOSTILE}`);
    noInjectedMarkup(doc);
    assert.equal((p.window as unknown as { __xss?: number }).__xss, undefined);
    // verdicts
    const verdicts = [...doc.querySelectorAll('.verdict')];
    assert.deepEqual(
      verdicts.map((v) => v.className),
      ['verdict verdict-fail', 'verdict verdict-pass'],
    );
    assert.equal(verdicts[0].querySelector('.badge')?.textContent, 'FAIL');
    assert.equal(verdicts[0].querySelector('.verdict-detail')?.textContent, `2/11 aligned ${HOSTILE_IMG}`);
    // inputs
    const inputs = doc.querySelector('.inputs tbody')!;
    assert.equal(inputs.querySelectorAll('tr').length, 2);
    assert.equal(inputs.querySelector('th')?.textContent, HOSTILE_IMG);
    // the table: formats, marks, header text
    const table = doc.querySelector('[data-section="plsa-table"] table')!;
    assert.deepEqual(
      [...table.querySelectorAll('thead th')].map((th) => th.textContent),
      ['Feature', `p ${HOSTILE}`, 'KS D'],
    );
    const rows = [...table.querySelectorAll('tbody tr')].map((tr) =>
      [...tr.children].map((c) => [c.textContent, c.className]),
    );
    assert.deepEqual(rows[0], [
      [HOSTILE_IMG, ''],
      ['0.400', 'num mark-closest'],
      ['0.123', 'num mark-close'],
    ]);
    assert.deepEqual(rows[1], [
      ['Critique', ''],
      ['2.0e−5', 'num mark-far'],
      ['–', 'num'],
    ]);
    // group heading, text sections, notes, params, warnings
    assert.equal(doc.querySelector('.group > h2')?.textContent, `PLSA ${HOSTILE_IMG}`);
    assert.deepEqual(
      [...doc.querySelectorAll('[data-section="summary"] .para')].map((x) => x.textContent),
      [`first ${HOSTILE}`, 'second'],
    );
    assert.equal(doc.querySelector('.notes li')?.textContent, `legend ${HOSTILE}`);
    assert.equal(doc.querySelector('.params dd')?.textContent, HOSTILE);
    assert.equal(doc.querySelector('.warnings li')?.textContent, `line 3: ${HOSTILE}`);
    // no canvas context in jsdom: the chart shows its data table instead
    const chart = doc.querySelector('[data-section="plsa-ks"]')!;
    assert.equal(chart.querySelector('canvas'), null);
    assert.deepEqual(
      [...chart.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent)),
      [
        ['Num turns', '0.200'],
        [HOSTILE, '0.500'],
      ],
    );
    // the state keeps spec and report for a reload
    const state = p.state() as { version: number; spec: ReportSpec; report: Report };
    assert.equal(state.version, 1);
    assert.deepEqual(state.spec, SPEC);
    assert.equal(state.report.title, `Alignment ${HOSTILE}`);
  });

  test('buttons post export and recompute messages', async (t) => {
    const p = await openPanel(t, { type: 'report', report: report(), spec: SPEC, canRecompute: true });
    const click = (sel: string) => (p.document.querySelector(sel) as HTMLElement).click();
    p.posted.length = 0;
    click('[data-section="plsa-table"] [data-action="export-csv"]');
    click('[data-section="plsa-table"] [data-action="export-json"]');
    click('[data-section="plsa-ks"] [data-action="export-csv"]');
    click('[data-action="export-markdown"]');
    click('[data-action="export-report-json"]');
    click('[data-action="toggle-distribution"]');
    click('[data-action="recompute"]');
    click('[data-action="open-input"][data-index="1"]');
    assert.deepEqual(p.posted, [
      { type: 'exportTable', sectionId: 'plsa-table', format: 'csv' },
      { type: 'exportTable', sectionId: 'plsa-table', format: 'json' },
      { type: 'exportTable', sectionId: 'plsa-ks', format: 'csv' },
      { type: 'exportMarkdown', charts: [] },
      { type: 'exportReportJson' },
      { type: 'recompute', chart: 'box' },
      { type: 'recompute' },
      { type: 'openInput', index: 1 },
    ]);
  });

  test('busy, error and restored states', async (t) => {
    const p = await openPanel(t, { type: 'busy', message: 'Reading <b>x</b>…', fraction: 0.25 });
    const status = p.document.querySelector('.status') as HTMLElement;
    assert.equal(status.hidden, false);
    assert.equal(status.querySelector('.status-text')?.textContent, 'Reading <b>x</b>…');
    assert.equal((status.querySelector('progress') as HTMLProgressElement).value, 0.25);
    assert.equal(p.document.getElementById('app')?.getAttribute('aria-busy'), 'true');
    p.send({ type: 'error', message: 'human.jsonl: no such file', canRecompute: true });
    await p.settle();
    assert.equal(status.className, 'status status-error');
    assert.equal(status.querySelector('.status-text')?.textContent, 'human.jsonl: no such file');
    assert.ok(p.document.querySelector('[data-action="recompute"]'), 'try again button');
    p.send({ type: 'report', report: report(), spec: null, restored: true, canRecompute: false });
    await p.settle();
    assert.equal(status.hidden, true);
    assert.match(p.document.querySelector('.notice')?.textContent ?? '', /^Restored from the saved panel/);
    assert.equal(p.document.querySelector('[data-action="recompute"]'), null, 'no recompute without a spec');
  });
});
