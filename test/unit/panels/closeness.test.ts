import { test } from 'node:test';
import assert from 'node:assert/strict';
import { REPORT_SCHEMA, type Report } from '../../../src/core/report/model';
import { tableColumns } from '../../../src/core/report/builders/common';
import type { ReportSpec } from '../../../src/core/report/specs';
import { openPanel } from './harness';

/** A PLSA-shaped table: per candidate MWU p and KS D, the closest candidate of each row marked. */
function report(): Report {
  return {
    schema: REPORT_SCHEMA,
    kind: 'plsa',
    title: 'Alignment',
    generated: '2026-01-01T00:00:00.000Z',
    inputs: [],
    params: { alpha: 0.05 },
    sections: [
      {
        type: 'table',
        id: 'plsa-table',
        title: 'MWU and KS',
        columns: tableColumns(
          ['feature', 'Feature', 'text'],
          ['a_p', 'A MWU p', 'p'],
          ['a_d', 'A KS D', 'fixed'],
          ['b_p', 'B MWU p', 'p'],
          ['b_d', 'B KS D', 'fixed'],
        ),
        rows: [
          // The closest candidate is still significantly different (p = 2.5e-7).
          { cells: ['Num turns', 2.5e-7, 0.3, 1e-9, 0.5], marks: [null, 'closest', 'closest', 'far', null] },
          { cells: ['Critique', 0.4, 0.1, 0.01, 0.2], marks: [null, 'closest', 'closest', 'far', null] },
        ],
      },
      { type: 'text', id: 'summary', title: 'Summary', paragraphs: ['no marks here'] },
    ],
  };
}

const SPEC: ReportSpec = {
  kind: 'plsa',
  reference: { file: 'human.jsonl' },
  candidates: [{ file: 'a.jsonl' }, { file: 'b.jsonl' }],
};

test('closeness: one colour scale from the p-value, "closest" is a marker without a colour of its own, with a legend', async (t) => {
  const p = await openPanel(t, { type: 'report', report: report(), spec: SPEC, canRecompute: false });
  const rows = [...p.document.querySelectorAll('[data-section="plsa-table"] tbody tr')].map((tr) =>
    [...tr.children].map((c) => c.className),
  );
  // Row 1: the closest MWU p (2.5e-7) is coloured "far" like its neighbour, not "close".
  assert.deepEqual(rows[0], ['', 'num mark-closest mark-far', 'num mark-closest', 'num mark-far', 'num']);
  // Row 2: p = 0.4 is close (and closest).
  assert.deepEqual(rows[1], ['', 'num mark-closest mark-close', 'num mark-closest', 'num mark-far', 'num']);
  // The legend explains the scale with the report's alpha, once per marked table.
  const legends = [...p.document.querySelectorAll('.closeness-legend')];
  assert.equal(legends.length, 1);
  assert.match(legends[0].textContent ?? '', /no significant difference.*p > 0\.05/i);
  assert.match(legends[0].textContent ?? '', /significantly different.*p ≤ 0\.05/i);
  assert.match(legends[0].textContent ?? '', /closest/i);
  assert.ok(legends[0].closest('[data-section="plsa-table"]'), 'the legend sits with its table');
});

test('tables scroll sideways in a keyboard-focusable, labelled region', async (t) => {
  const p = await openPanel(t, { type: 'report', report: report(), spec: SPEC, canRecompute: false });
  const wrap = p.document.querySelector('[data-section="plsa-table"] .table-wrap')!;
  assert.equal(wrap.getAttribute('tabindex'), '0');
  assert.equal(wrap.getAttribute('role'), 'region');
  assert.equal(wrap.getAttribute('aria-label'), 'MWU and KS (table)');
});
