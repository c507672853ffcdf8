import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { JSDOM } from 'jsdom';
import {
  REPORT_SCHEMA,
  parseReport,
  type ChartSection,
  type Report,
  type TableSection,
} from '../../../src/core/report/model';
import { renderMarkdown, markdownTableOf } from '../../../src/core/report/render/markdown';
import { csvField, tableToCsv, tableToJson, chartToTable } from '../../../src/core/report/render/tables';
import { renderChartSvg, niceTicks } from '../../../src/core/report/render/svg';
import { escapeMarkdown, escapeXml } from '../../../src/core/text/escape';
import { formatCell, formatP, slug, IdAllocator } from '../../../src/core/report/format';

const HOSTILE = '<script>alert(1)</script>';
const HOSTILE_IMG = '<img src=x onerror=alert(2)>';

function hostileReport(): Report {
  const table: TableSection = {
    type: 'table',
    id: 'plsa-table',
    title: `Table for ${HOSTILE}`,
    caption: `caption ${HOSTILE_IMG}`,
    columns: [
      { key: 'feature', label: `Feature ${HOSTILE}`, format: 'text' },
      { key: 'p', label: 'MWU p', format: 'p' },
      { key: 'd', label: 'KS D', format: 'fixed' },
    ],
    rows: [
      { cells: [HOSTILE, 0.0004, 0.1234567], marks: [null, 'far', 'closest'] },
      { cells: ['a | b\nnext line', 0.5, null], marks: [null, 'close', null] },
      { cells: ['=HYPERLINK("http://evil")', 1, -0.25] },
    ],
    notes: [`note ${HOSTILE}`],
  };
  const chart: ChartSection = {
    type: 'chart',
    id: 'hist-num_turns',
    title: `Chart ${HOSTILE}`,
    chart: 'bar',
    categories: ['1', HOSTILE, '3'],
    series: [
      { name: HOSTILE, values: [0.2, 0.5, null] },
      { name: 'simulated "quoted" & more', values: [0.1, 0.3, 0.6] },
    ],
    xLabel: HOSTILE,
    yLabel: 'share',
    references: [{ value: 0.05, label: HOSTILE }],
  };
  return {
    schema: REPORT_SCHEMA,
    kind: 'plsa',
    title: `Report ${HOSTILE}`,
    generated: '2026-01-01T00:00:00.000Z',
    inputs: [{ label: HOSTILE, file: `data/${HOSTILE_IMG}.jsonl`, n: 3, filter: 'condition=<b>good</b>' }],
    params: { [HOSTILE]: HOSTILE },
    verdicts: [{ pillar: HOSTILE, verdict: 'fail', detail: `detail ${HOSTILE}`, rule: 'p > 0.05' }],
    sections: [
      {
        type: 'text',
        id: 'summary',
        title: 'Summary',
        group: `Group ${HOSTILE}`,
        paragraphs: [
          `# not a heading ${HOSTILE}`,
          '- not a list',
          '1. not a list either',
          'see https://evil.example and www.evil.example',
          '[link](javascript:alert(3))',
        ],
      },
      table,
      chart,
    ],
    warnings: [HOSTILE],
  };
}

describe('report model', () => {
  test('accepts a valid report and rejects broken ones with the path', () => {
    const r = hostileReport();
    assert.equal(parseReport(r).title, r.title);
    const dup = { ...r, sections: [r.sections[1], r.sections[1]] };
    assert.throws(() => parseReport(dup), /sections\[1\]\.id: duplicate section id "plsa-table"/);
    const badRow = structuredClone(r);
    (badRow.sections[1] as TableSection).rows[0].cells.pop();
    assert.throws(() => parseReport(badRow), /rows\[0\]\.cells: row has 2 cells for 3 columns/);
    const badChart = structuredClone(r);
    (badChart.sections[2] as ChartSection).series[0].values = [1];
    assert.throws(() => parseReport(badChart), /series\[0\]\.values: 1 values for 3 categories/);
    const badId = structuredClone(r);
    badId.sections[0].id = '../../etc/passwd';
    assert.throws(() => parseReport(badId), /sections\[0\]\.id/);
    const nan = structuredClone(r);
    (nan.sections[1] as TableSection).rows[0].cells[1] = NaN;
    assert.throws(() => parseReport(nan), /cells/);
    assert.throws(() => parseReport({ ...r, schema: 'other' }), /schema/);
  });

  test('formatting and ids', () => {
    assert.equal(formatP(0.04567), '0.046');
    assert.equal(formatP(0.00001234), '1.2e−5');
    assert.equal(formatP(1), '1.000');
    assert.equal(formatP(0), '0');
    assert.equal(formatCell(0.5, { key: 'x', label: 'x', format: 'percent' }), '50.0%');
    assert.equal(formatCell(3, { key: 'x', label: 'x', format: 'int' }), '3');
    assert.equal(formatCell(-0.0001, { key: 'x', label: 'x', format: 'fixed' }), '0.000');
    assert.equal(formatCell(null, { key: 'x', label: 'x' }), '–');
    assert.equal(slug('act:Critique <x>'), 'act-critique-x');
    assert.equal(slug('...'), 'x');
    const ids = new IdAllocator();
    assert.deepEqual([ids.id('a'), ids.id('a'), ids.id('A')], ['a', 'a-2', 'a-3']);
  });
});

describe('Markdown renderer', () => {
  test('escapes hostile text everywhere', () => {
    const md = renderMarkdown(hostileReport(), { chartImage: (c) => `charts/${c.id}.svg` });
    assert.ok(!md.includes('<script>'), 'no raw <script>');
    assert.ok(!md.includes('<img'), 'no raw <img>');
    assert.ok(!md.includes('<b>'), 'no raw <b>');
    assert.ok(md.includes('# Report &lt;script&gt;alert(1)&lt;/script&gt;'));
    assert.ok(md.includes('\\# not a heading'), 'a leading # is escaped');
    assert.ok(md.includes('\\- not a list'));
    assert.ok(md.includes('1\\. not a list either'));
    assert.ok(md.includes('https\\://evil.example'), 'autolinks broken');
    assert.ok(md.includes('www\\.evil.example'));
    assert.ok(md.includes('\\[link\\](javascript:alert(3))'), 'link syntax escaped');
    assert.ok(md.includes('a \\| b next line'), 'pipes escaped and newlines folded in cells');
    assert.ok(md.includes('![Chart &lt;script&gt;'), 'image alt text escaped');
    assert.ok(md.includes('](charts/hist-num_turns.svg)'));
    assert.ok(md.includes('❌ FAIL'));
    assert.ok(md.includes('## Group &lt;script&gt;'));
  });

  test('table cells show marks and formats', () => {
    const t = hostileReport().sections[1] as TableSection;
    const lines = markdownTableOf(t).split('\n');
    assert.equal(lines[1], '|---|---:|---:|');
    assert.match(lines[2], /\| _4\.0e−4_ \| \*\*0\.123\*\* \|$/);
    assert.match(lines[4], /\| 1\.000 \| -0\.250 \|$/);
    // The rendered report says what bold and italic mean, in Markdown and in plain text.
    for (const plain of [false, true]) {
      const md = renderMarkdown({ ...hostileReport(), sections: [t] }, { plain });
      assert.match(
        md,
        /- Marks: \*\*bold\*\* = closest to the reference .*it may still differ significantly.*; _italic_ = far/,
      );
    }
    const unmarked = { ...t, rows: t.rows.map((r) => ({ ...r, marks: undefined })) };
    assert.doesNotMatch(renderMarkdown({ ...hostileReport(), sections: [unmarked] }), /Marks:/);
  });

  test('charts without images are rendered as data tables', () => {
    const md = renderMarkdown(hostileReport());
    assert.ok(!md.includes('!['));
    assert.ok(md.includes('| 0.200 | 0.100 |'));
  });

  test('escapeMarkdown leaves plain words and numbers readable', () => {
    assert.equal(escapeMarkdown('Num turns 3.5 -0.25'), 'Num turns 3.5 -0.25');
    assert.equal(escapeMarkdown('a_b*c'), 'a\\_b\\*c');
  });
});

describe('CSV and JSON tables', () => {
  test('CSV quotes, guards formulas and keeps full precision', () => {
    const csv = tableToCsv(hostileReport().sections[1] as TableSection);
    const lines = csv.split('\r\n');
    assert.equal(lines[0], 'Feature <script>alert(1)</script>,MWU p,KS D');
    assert.equal(lines[1], '<script>alert(1)</script>,0.0004,0.1234567');
    assert.equal(lines[2], '"a | b\nnext line",0.5,');
    assert.equal(lines[3], `"'=HYPERLINK(""http://evil"")",1,-0.25`);
    assert.equal(csvField('-1 tricky'), "'-1 tricky");
    assert.equal(csvField(-1), '-1');
    assert.equal(csvField(true), 'true');
  });

  test('JSON rows are keyed by column key', () => {
    const rows = JSON.parse(tableToJson(hostileReport().sections[1] as TableSection));
    assert.deepEqual(rows[0], { feature: HOSTILE, p: 0.0004, d: 0.1234567 });
    assert.equal(rows[1].d, null);
  });

  test('chart data as a table', () => {
    const t = chartToTable(hostileReport().sections[2] as ChartSection);
    assert.deepEqual(
      t.rows.map((r) => r.cells),
      [
        ['1', 0.2, 0.1],
        [HOSTILE, 0.5, 0.3],
        ['3', null, 0.6],
      ],
    );
    const box = chartToTable({
      type: 'chart',
      id: 'b',
      title: 'b',
      chart: 'box',
      categories: ['x'],
      series: [{ name: 's', boxes: [{ min: 0, q1: 1, median: 2, q3: 3, max: 4, n: 5 }] }],
    });
    assert.deepEqual(box.rows[0].cells, ['x', 0, 1, 2, 3, 4, 5]);
  });
});

describe('SVG renderer', () => {
  function parseSvg(svg: string): Document {
    const dom = new JSDOM(svg, { contentType: 'image/svg+xml' });
    const doc = dom.window.document;
    assert.equal(doc.getElementsByTagName('parsererror').length, 0, 'well-formed XML');
    return doc;
  }

  test('hostile text is escaped and the document is well-formed', () => {
    const svg = renderChartSvg(hostileReport().sections[2] as ChartSection);
    assert.ok(!svg.includes('<script'), 'no script element');
    assert.ok(!svg.includes('<img'), 'no img element');
    assert.ok(svg.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
    assert.ok(svg.includes('simulated &quot;quoted&quot; &amp; more'));
    const doc = parseSvg(svg);
    assert.equal(doc.getElementsByTagName('script').length, 0);
    const texts = [...doc.getElementsByTagName('text')].map((t) => t.textContent);
    assert.ok(texts.includes('Chart <script>alert(1)</script>'), 'title text round-trips as text');
  });

  test('bar charts draw one rect per non-null value, lines and boxes draw their marks', () => {
    const bars = parseSvg(renderChartSvg(hostileReport().sections[2] as ChartSection));
    // background + 2 legend swatches + 5 bars (one value is null)
    assert.equal(bars.getElementsByTagName('rect').length, 1 + 2 + 5);
    const line = parseSvg(
      renderChartSvg({
        type: 'chart',
        id: 'l',
        title: 'l',
        chart: 'line',
        categories: ['1', '2', '3'],
        series: [
          { name: 'a', values: [0.1, null, 0.3] },
          { name: 'b', values: [1, 2, 3] },
        ],
      }),
    );
    assert.equal(line.getElementsByTagName('circle').length, 5);
    const paths = [...line.getElementsByTagName('path')].map((p) => p.getAttribute('d') ?? '');
    assert.equal(paths.length, 2);
    assert.equal((paths[0].match(/M/g) ?? []).length, 2, 'a null value breaks the line');
    const box = parseSvg(
      renderChartSvg({
        type: 'chart',
        id: 'b',
        title: 'b',
        chart: 'box',
        categories: ['h', 's'],
        series: [{ name: 'x', boxes: [{ min: 0, q1: 1, median: 2, q3: 3, max: 4, n: 5, mean: 2 }, null] }],
      }),
    );
    assert.equal(box.getElementsByTagName('g').length, 1);
  });

  test('deterministic and theme-aware', () => {
    const c = hostileReport().sections[2] as ChartSection;
    assert.equal(renderChartSvg(c), renderChartSvg(c));
    assert.ok(renderChartSvg(c, { theme: 'dark' }).includes('fill="#1e1e1e"'));
    assert.ok(escapeXml('\u0007a<b').startsWith('a&lt;'), 'control characters are dropped');
  });

  test('nice ticks cover the range', () => {
    assert.deepEqual(niceTicks(0, 1), [0, 0.2, 0.4, 0.6, 0.8, 1]);
    assert.deepEqual(niceTicks(0, 0.73), [0, 0.2, 0.4, 0.6, 0.8]);
    assert.deepEqual(niceTicks(-1.4, 1.1), [-1.5, -1, -0.5, 0, 0.5, 1, 1.5]);
    const flat = niceTicks(3, 3);
    assert.ok(flat[0] <= 3 && flat[flat.length - 1] >= 3);
  });
});
