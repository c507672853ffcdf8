/**
 * Rows that link to a conversation (invariant violations): the panel renders the link column as
 * buttons (text only, hostile ids stay text) that post `openLink` with the section and row; the
 * protocol accepts exactly that message.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { REPORT_SCHEMA, parseReport, type Report } from '../../../src/core/report/model';
import { tableColumns } from '../../../src/core/report/builders/common';
import { parsePanelMessage } from '../../../src/shared/panelProtocol';
import { openPanel } from './harness';

const HOSTILE = '<img src=x onerror="window.__xss=1">';

function report(): Report {
  return parseReport({
    schema: REPORT_SCHEMA,
    kind: 'invariants',
    title: 'Behavioural invariants: run',
    generated: '2026-01-01T00:00:00.000Z',
    inputs: [{ label: 'run', file: 'run.jsonl', n: 3 }],
    verdicts: [{ pillar: 'Behavioural invariants', verdict: 'fail', detail: 'run: 1 fail' }],
    sections: [
      {
        type: 'table',
        id: 'invariant-violations-run',
        title: 'Violations',
        columns: tableColumns(
          ['invariant', 'Invariant', 'text'],
          ['conversation', 'Conversation', 'text'],
          ['turn', 'Turn', 'int'],
          ['detail', 'Detail', 'text'],
        ),
        linkColumn: 'conversation',
        rows: [
          {
            cells: ['agent-error-no-user-effect', 'went-on', 3, 'went on'],
            link: { input: 0, conversation: 'went-on', line: 2, turn: 2 },
          },
          { cells: ['turn-cap', HOSTILE, null, HOSTILE], link: { input: 0, conversation: HOSTILE } },
          { cells: ['turn-cap', 'no-link', null, 'plain row'] },
        ],
      },
    ],
  });
}

describe('panel links to conversations', () => {
  test('link cells are buttons that post openLink with the section and row', async (t) => {
    const p = await openPanel(t, {
      type: 'report',
      report: report(),
      spec: { kind: 'invariants', population: { file: 'run.jsonl' } },
      canRecompute: true,
    });
    const links = Array.from(
      p.document.querySelectorAll<HTMLButtonElement>(
        '[data-section="invariant-violations-run"] button[data-action="open-link"]',
      ),
    );
    assert.equal(links.length, 2, 'rows without a link have none');
    assert.equal(links[0].textContent, 'went-on');
    assert.equal(links[0].getAttribute('title'), 'Open went-on at turn 3 in the SimLens editor');
    assert.equal(links[0].closest('td')?.cellIndex, 1, 'in the link column');
    assert.equal(links[1].textContent, HOSTILE);
    assert.equal(p.document.querySelectorAll('img').length, 0);
    assert.equal((p.window as unknown as { __xss?: number }).__xss, undefined);
    links[1].click();
    links[0].click();
    const sent = p.posted.filter((m) => m.type === 'openLink');
    assert.deepEqual(sent, [
      { type: 'openLink', sectionId: 'invariant-violations-run', row: 1 },
      { type: 'openLink', sectionId: 'invariant-violations-run', row: 0 },
    ]);
    assert.match(p.document.querySelector('.kind')?.textContent ?? '', /Behavioural invariants/);
  });

  test('protocol: openLink takes a section id and a row index only', () => {
    assert.equal(parsePanelMessage({ type: 'openLink', sectionId: 'invariant-violations-run', row: 0 }).ok, true);
    const bad: unknown[] = [
      { type: 'openLink', sectionId: '../x', row: 0 },
      { type: 'openLink', sectionId: 'v', row: -1 },
      { type: 'openLink', sectionId: 'v', row: 1.5 },
      { type: 'openLink', sectionId: 'v' },
    ];
    for (const m of bad) assert.equal(parsePanelMessage(m).ok, false, JSON.stringify(m));
  });
});
