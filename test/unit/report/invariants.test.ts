/**
 * The behavioural invariants as a report: the builder (exact cells, links to conversations at
 * their turn), the report model's link validation, and the computation on a small file.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CheckReport } from '../../../src/core/check/types';
import { buildInvariantsReport, invariantVerdict } from '../../../src/core/report/builders/invariants';
import { computeInvariants, computeReport } from '../../../src/core/report/compute';
import { parseReport, type Report, type TableSection } from '../../../src/core/report/model';
import { ReportSpecSchema } from '../../../src/core/report/specs';
import { jsonl, tempDir } from './fixtures';

function check(): CheckReport {
  return {
    conversations: 3,
    invariants: [
      {
        id: 'turn-cap',
        statement: 'no conversation exceeds the turn cap',
        source: 'SimLens',
        status: 'pass',
        conversations: 3,
        turns: 9,
        violations: 0,
        violatingConversations: 0,
        examples: [],
      },
      {
        id: 'agent-error-no-user-effect',
        statement: 'an agent failure ends the conversation',
        source: 'SimLens run contract',
        status: 'fail',
        conversations: 2,
        turns: 3,
        violations: 2,
        violatingConversations: 2,
        examples: [
          {
            conversation: 'went-on',
            line: 2,
            turn: 2,
            detail: 'the conversation went on after the agent failed on turn 1',
          },
          { conversation: 'line:3', line: 3, detail: 'outcome agent_error but no turn records the agent error' },
        ],
      },
      {
        id: 'patience-non-increasing',
        statement: 'patience never grows',
        source: 'Zhang & Balog',
        status: 'tolerated',
        tolerance: { share: 0.05, reason: 'rounding' },
        conversations: 40,
        turns: 100,
        violations: 1,
        violatingConversations: 1,
        examples: [{ conversation: 'p1', line: 7, turn: 0, detail: 'patience rose' }],
      },
      {
        id: 'coverage-monotone',
        statement: 'coverage never falls',
        source: 'PEPPER',
        status: 'not-applicable',
        conversations: 0,
        turns: 0,
        violations: 0,
        violatingConversations: 0,
        examples: [],
      },
    ],
    failed: ['agent-error-no-user-effect'],
    ok: false,
  };
}

function table(report: Report, id: string): TableSection {
  const s = report.sections.find((x) => x.id === id);
  assert.ok(s && s.type === 'table', `table ${id} in ${report.sections.map((x) => x.id).join(', ')}`);
  return s as TableSection;
}

describe('invariants report', () => {
  test('builder: one row per invariant with status marks; violations link to conversation and turn', () => {
    const report = parseReport(
      buildInvariantsReport({
        label: 'run',
        file: 'runs/run.sim.jsonl',
        check: check(),
        generated: '2026-01-01T00:00:00Z',
      }),
    );
    assert.equal(report.kind, 'invariants');
    assert.deepEqual(report.inputs, [{ label: 'run', file: 'runs/run.sim.jsonl', n: 3 }]);
    const summary = table(report, 'invariants');
    // Status right after the invariant (the long statement must not push it off-screen).
    assert.deepEqual(
      summary.columns.map((c) => c.key),
      [
        'invariant',
        'status',
        'statement',
        'conversations',
        'violations',
        'violating_conversations',
        'tolerance',
        'not_checked',
        'source',
      ],
    );
    assert.deepEqual(
      summary.rows.map((r) => [r.cells[0], r.cells[1], r.cells[3], r.cells[4], r.cells[5], r.marks?.[1]]),
      [
        ['turn-cap', 'pass', 3, 0, 0, 'pass'],
        ['agent-error-no-user-effect', 'FAIL', 2, 2, 2, 'fail'],
        ['patience-non-increasing', 'tolerated', 40, 1, 1, 'warn'],
        ['coverage-monotone', 'not applicable', 0, 0, 0, null],
      ],
    );
    assert.equal(summary.rows[2].cells[6], '≤ 5% of conversations: rounding');
    const v = table(report, 'invariant-violations-run');
    assert.equal(v.linkColumn, 'conversation');
    assert.deepEqual(
      v.rows.map((r) => r.cells),
      [
        ['agent-error-no-user-effect', 'went-on', 3, 'the conversation went on after the agent failed on turn 1'],
        ['agent-error-no-user-effect', 'line:3', null, 'outcome agent_error but no turn records the agent error'],
        ['patience-non-increasing', 'p1', 1, 'patience rose'],
      ],
    );
    assert.deepEqual(
      v.rows.map((r) => r.link),
      [
        { input: 0, conversation: 'went-on', line: 2, turn: 2 },
        { input: 0, conversation: 'line:3', line: 3 },
        { input: 0, conversation: 'p1', line: 7, turn: 0 },
      ],
    );
    assert.match(v.caption ?? '', /^All 3 violations/);
    assert.deepEqual(
      report.verdicts?.map((x) => x.verdict),
      ['fail'],
    );
    assert.match(
      report.verdicts![0].detail,
      /run: 4 invariants on 3 conversations: 1 hold, 1 fail \(agent-error-no-user-effect\), 1 within their tolerance, 1 not applicable\./,
    );
  });

  test('verdict: warn when only tolerated or nothing applied; pass when all hold', () => {
    const c = check();
    const only = (ids: string[]): CheckReport => ({
      ...c,
      invariants: c.invariants.filter((r) => ids.includes(r.id)),
      failed: c.failed.filter((f) => ids.includes(f)),
    });
    assert.equal(invariantVerdict([{ label: 'a', input: 0, check: only(['turn-cap']) }]).verdict, 'pass');
    assert.equal(
      invariantVerdict([{ label: 'a', input: 0, check: only(['turn-cap', 'patience-non-increasing']) }]).verdict,
      'warn',
    );
    assert.equal(invariantVerdict([{ label: 'a', input: 0, check: only(['coverage-monotone']) }]).verdict, 'warn');
  });

  test('model: a link must name an existing input and the link column must exist', () => {
    const good = buildInvariantsReport({ label: 'run', file: 'run.jsonl', check: check() });
    const badInput = structuredClone(good);
    (badInput.sections[1] as TableSection).rows[0].link!.input = 1;
    assert.throws(() => parseReport(badInput), /sections\[1\]\.rows\[0\]\.link\.input: link to input 1 of 1/);
    const badColumn = structuredClone(good);
    (badColumn.sections[1] as TableSection).linkColumn = 'nope';
    assert.throws(() => parseReport(badColumn), /sections\[1\]\.linkColumn: no column "nope"/);
  });

  test('computeInvariants on a file: counts, 1-based lines, ids of id-less lines, links at the violating turn', async (t) => {
    const { dir, cleanup } = tempDir();
    t.after(cleanup);
    const convs = [
      {
        id: 'fine',
        source: 'human',
        turns: [{ user_utterance: 'hi', assistant_utterance: 'hello' }],
        outcome: 'ended',
      },
      {
        id: 'went-on',
        source: 'sim',
        outcome: 'agent_error',
        turns: [
          { user_utterance: 'hi', assistant_utterance: 'hello' },
          { user_utterance: 'boots', trace: { error: 'HTTP 500', error_kind: 'agent_http' } },
          { user_utterance: 'hello?' },
        ],
      },
      { source: 'sim', outcome: 'agent_error', turns: [{ user_utterance: 'hi', assistant_utterance: 'hello' }] },
    ];
    writeFileSync(path.join(dir, 'run.jsonl'), '\n' + jsonl(convs));
    const spec = ReportSpecSchema.parse({
      kind: 'invariants',
      population: { file: 'run.jsonl' },
      only: ['agent-error-no-user-effect'],
    });
    const report = parseReport(await computeReport(spec as Exclude<typeof spec, { kind: 'fidelity' }>, { cwd: dir }));
    assert.equal(report.kind, 'invariants');
    assert.deepEqual(
      report.inputs.map((i) => [i.file, i.n]),
      [['run.jsonl', 3]],
    );
    const summary = table(report, 'invariants');
    assert.deepEqual(
      summary.rows.map((r) => [r.cells[0], r.cells[1], r.cells[3], r.cells[4], r.cells[5]]),
      [['agent-error-no-user-effect', 'FAIL', 2, 2, 2]],
    );
    const v = table(report, 'invariant-violations-run');
    // A blank first line: the conversations sit on lines 2-4.
    assert.deepEqual(
      v.rows.map((r) => r.link),
      [
        { input: 0, conversation: 'went-on', line: 3, turn: 2 },
        { input: 0, conversation: 'line:4', line: 4, turn: 0 },
      ],
    );
    assert.equal(v.rows[0].cells[2], 3);
    assert.equal(report.params?.only, 'agent-error-no-user-effect');
    // Examples per invariant follow the spec.
    const one = await computeInvariants(
      { kind: 'invariants', population: { file: 'run.jsonl' }, only: ['agent-error-no-user-effect'], examples: 1 },
      { cwd: dir },
    );
    assert.equal(table(one, 'invariant-violations-run').rows.length, 1);
    assert.match(table(one, 'invariant-violations-run').caption ?? '', /^The first 1 of 2 violations/);
  });

  test('computeInvariants reads the turn cap from the run manifest beside the file, as simlens check does', async (t) => {
    const { dir, cleanup } = tempDir();
    t.after(cleanup);
    const conv = {
      id: 'long',
      source: 'sim',
      turns: [0, 1, 2].map((i) => ({
        user_utterance: `u${i}`,
        assistant_utterance: 'a',
        trace: { user_act: 'Disclose' },
      })),
      outcome: 'ended',
    };
    const file = path.join(dir, 'run.sim.jsonl');
    writeFileSync(file, jsonl([conv]));
    const spec = { kind: 'invariants' as const, population: { file: 'run.sim.jsonl' }, only: ['turn-cap'] };
    // No manifest: the simulate default (20) applies.
    assert.deepEqual(
      table(await computeInvariants(spec, { cwd: dir }), 'invariants').rows[0].cells.filter(
        (_, i) => i === 1 || i === 3 || i === 4,
      ),
      ['pass', 1, 0],
    );
    const manifest = {
      run_id: 'r',
      created: '2026-01-01T00:00:00Z',
      simlens_version: '0.1.0',
      config: { max_turns: 2 },
      seed: 1,
      counts: { planned: 1, finished: 1, failed: 0 },
      timings: { started: '2026-01-01T00:00:00Z' },
      status: 'finished',
    };
    writeFileSync(`${file}.manifest.json`, JSON.stringify(manifest));
    const capped = await computeInvariants(spec, { cwd: dir });
    assert.deepEqual(
      table(capped, 'invariants').rows[0].cells.filter((_, i) => i === 1 || i === 3 || i === 4),
      ['FAIL', 1, 1],
    );
    assert.equal(capped.params?.max_turns, 2);
    assert.deepEqual(table(capped, 'invariant-violations-run').rows[0].link, {
      input: 0,
      conversation: 'long',
      line: 1,
      turn: 2,
    });
    // The spec's own cap wins; a broken manifest is a warning, not an error.
    assert.deepEqual(
      table(await computeInvariants({ ...spec, maxTurns: 5 }, { cwd: dir }), 'invariants').rows[0].cells.filter(
        (_, i) => i === 1 || i === 3 || i === 4,
      ),
      ['pass', 1, 0],
    );
    writeFileSync(`${file}.manifest.json`, '{nope');
    const broken = await computeInvariants(spec, { cwd: dir });
    assert.ok(
      broken.warnings?.some((w) => /run\.sim\.jsonl\.manifest\.json: not valid JSON/.test(w)),
      broken.warnings?.join('\n'),
    );
  });
});
