import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { parsePanelMessage, PanelStateSchema, pngBytes } from '../../../src/shared/panelProtocol';

/** A 1×1 PNG. */
const PNG =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

describe('panel protocol', () => {
  test('accepts every well-formed webview message', () => {
    const ok = [
      { type: 'ready' },
      { type: 'exportPng', sectionId: 'plsa-ks', dataUrl: PNG },
      { type: 'exportTable', sectionId: 'hist-act-critique-2', format: 'csv' },
      { type: 'exportTable', sectionId: 'x', format: 'json' },
      { type: 'exportMarkdown', charts: [{ sectionId: 'a', dataUrl: PNG }] },
      { type: 'exportReportJson' },
      { type: 'recompute' },
      { type: 'recompute', chart: 'box' },
      { type: 'openInput', index: 0 },
      { type: 'log', level: 'error', message: 'CSP blocked style-src' },
    ];
    for (const m of ok) assert.equal(parsePanelMessage(m).ok, true, JSON.stringify(m));
  });

  test('rejects malformed or hostile messages with the reason', () => {
    const bad: [unknown, RegExp][] = [
      [null, /message/],
      ['ready', /message/],
      [{ type: 'eval', code: 'x' }, /type/],
      [{ type: 'exportPng', sectionId: '../../../etc/passwd', dataUrl: PNG }, /sectionId/],
      [
        { type: 'exportPng', sectionId: 'a', dataUrl: 'data:text/html;base64,PHNjcmlwdD4=' },
        /dataUrl: expected a PNG data URL/,
      ],
      [{ type: 'exportPng', sectionId: 'a', dataUrl: 'data:image/png;base64,<script>' }, /dataUrl/],
      [{ type: 'exportTable', sectionId: 'a', format: 'xlsx' }, /format/],
      [{ type: 'recompute', chart: 'pie' }, /chart/],
      [{ type: 'openInput', index: -1 }, /index/],
      [{ type: 'openInput', index: 1.5 }, /index/],
      [{ type: 'log', level: 'fatal', message: 'x' }, /level/],
      [{ type: 'exportMarkdown', charts: [{ sectionId: 'a b', dataUrl: PNG }] }, /charts\[0\]\.sectionId/],
    ];
    for (const [m, re] of bad) {
      const r = parsePanelMessage(m);
      assert.equal(r.ok, false, JSON.stringify(m));
      if (!r.ok) assert.match(r.error, re);
    }
  });

  test('pngBytes checks the PNG signature', () => {
    const bytes = pngBytes(PNG);
    assert.deepEqual([...bytes.slice(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
    // valid base64 of "GIF89a..." passes the data-URL pattern but is not a PNG
    assert.throws(() => pngBytes('data:image/png;base64,R0lGODlhAQABAAAAACw='), /not a PNG/);
  });

  test('persisted state: spec validated, report kept for parseReport', () => {
    const spec = {
      kind: 'plsa',
      reference: { file: 'h.jsonl' },
      candidates: [{ file: 's.jsonl', filter: { condition: 'good' } }],
    };
    assert.ok(PanelStateSchema.safeParse({ version: 1, spec, report: { anything: true } }).success);
    assert.ok(PanelStateSchema.safeParse({ version: 1, spec: null }).success);
    assert.ok(!PanelStateSchema.safeParse({ version: 2, spec }).success);
    assert.ok(!PanelStateSchema.safeParse({ version: 1, spec: { ...spec, candidates: [] } }).success);
    assert.ok(
      !PanelStateSchema.safeParse({
        version: 1,
        spec: { kind: 'fidelity', human: { file: 'h' }, simulator: 'agenda', agents: [], n: 20 },
      }).success,
    );
  });
});
