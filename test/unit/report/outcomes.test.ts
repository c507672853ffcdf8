/**
 * Failures apart from user outcomes: counting (exact, on hand-made conversations), the Outcomes
 * table of the simulation report, the exclusion of failed conversations from every metric about
 * user behaviour (simulation panel, PLSA, fidelity report).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { reportedOutcome, type Conversation } from '../../../src/core/model';
import { zbOutcomes } from '../../../src/core/metrics/zhangBalog';
import { conversationFailure } from '../../../src/core/failures';
import { countOutcomes, userOutcomeShare, withoutFailures } from '../../../src/core/report/outcomes';
import { buildSimulationReport } from '../../../src/core/report/builders/simulation';
import { computePlsa, computeSimulation } from '../../../src/core/report/compute';
import { runFidelity } from '../../../src/core/report/fidelity';
import { parseReport, type Report, type TableSection } from '../../../src/core/report/model';
import { jsonl, tempDir, writeHumanFile } from './fixtures';

function turn(user: string, assistant?: string, trace?: Record<string, unknown>) {
  return {
    user_utterance: user,
    ...(assistant !== undefined ? { assistant_utterance: assistant } : {}),
    ...(trace ? { trace } : {}),
  };
}

/**
 * Seven simulated conversations: 2 accepted (4 turns each), 1 ended, 1 abandoned (2 turns each),
 * an agent timeout on turn 2, a simulator crash, and a bare `agent_error` (1 turn each).
 */
function population(): Conversation[] {
  const ok = (id: string, outcome: 'accepted' | 'ended' | 'abandoned', turns: number): Conversation => ({
    id,
    source: 'sim',
    outcome,
    turns: Array.from({ length: turns }, (_, t) => turn(`user says ${t}`, 'here you go')),
  });
  return [
    ok('a1', 'accepted', 4),
    ok('a2', 'accepted', 4),
    ok('e1', 'ended', 2),
    ok('ab1', 'abandoned', 2),
    {
      id: 'timeout',
      source: 'sim',
      outcome: 'agent_error',
      turns: [
        turn('hi', 'hello'),
        turn('boots please', undefined, { error: 'timeout after 30000 ms', error_kind: 'agent_timeout' }),
      ],
      metadata: { index: 4, error: 'timeout after 30000 ms', error_kind: 'agent_timeout' },
    },
    {
      id: 'crash',
      source: 'sim',
      outcome: 'ended',
      turns: [turn('hi', 'hello')],
      metadata: { index: 5, error: 'TypeError: x is undefined' },
    },
    { id: 'bare', source: 'sim', outcome: 'agent_error', turns: [turn('hi')] },
  ];
}

function table(report: Report, prefix: string): TableSection {
  const s = report.sections.find((x) => x.id.startsWith(prefix));
  assert.ok(s && s.type === 'table', `table ${prefix} in ${report.sections.map((x) => x.id).join(', ')}`);
  return s as TableSection;
}

function column(t: TableSection, key: string, row = 0): unknown {
  const i = t.columns.findIndex((c) => c.key === key);
  assert.ok(i >= 0, `column ${key} in ${t.columns.map((c) => c.key).join(', ')}`);
  return t.rows[row].cells[i];
}

describe('failures apart from user outcomes', () => {
  test('conversationFailure: reason, who failed, failed turn', () => {
    const [a1, , , , timeout, crash, bare] = population();
    assert.equal(conversationFailure(a1), undefined);
    assert.deepEqual(conversationFailure(timeout), {
      reason: 'agent_timeout',
      agent: true,
      message: 'timeout after 30000 ms',
      turn: 1,
    });
    assert.deepEqual(conversationFailure(crash), {
      reason: 'simulator_error',
      agent: false,
      message: 'TypeError: x is undefined',
    });
    assert.deepEqual(conversationFailure(bare), { reason: undefined, agent: true, message: 'the recommender failed' });
    // A user failure recorded on its turn is not the recommender's.
    const user = {
      turns: [turn('', undefined, { error: 'empty reply', error_kind: 'user_llm' })],
      metadata: { error: 'empty reply', error_kind: 'user_llm' },
    };
    assert.deepEqual(conversationFailure(user), { reason: 'user_llm', agent: false, message: 'empty reply', turn: 0 });
    // An unknown kind from a file is not trusted as a reason.
    assert.equal(
      conversationFailure({ turns: [turn('x', undefined, { error: 'boom', error_kind: '<script>' })] })?.reason,
      undefined,
    );
  });

  test('countOutcomes: shares exclude failures; failures per reason', () => {
    const c = countOutcomes(population());
    assert.deepEqual(c, {
      conversations: 7,
      completed: 4,
      accepted: 2,
      ended: 1,
      gave_up: 0,
      abandoned: 1,
      agentErrors: 2,
      otherFailures: 1,
      byReason: { agent_timeout: 1, simulator_error: 1, unknown: 1 },
    });
    assert.deepEqual(
      withoutFailures(population()).map((x) => x.id),
      ['a1', 'a2', 'e1', 'ab1'],
    );
  });

  test('gave_up is its own user outcome: from `outcome` or from the last trace (end_reason gave_up), counted, shared and tabled apart from ended and abandoned', () => {
    const traced = (id: string, trace: Record<string, unknown>): Conversation => ({
      id,
      source: 'sim',
      turns: [{ user_utterance: 'x', trace: { user_act: 'Complete', patience: 2, ...trace } }],
    });
    const convs: Conversation[] = [
      { ...traced('g1', { end_reason: 'gave_up' }), outcome: 'gave_up' },
      traced('g2', { end_reason: 'gave_up' }),
      traced('e1', { end_reason: 'completed' }),
      traced('ab', { user_act: 'Complete.Abandon', patience: 0, end_reason: 'patience' }),
    ];
    assert.deepEqual(
      convs.map((c) => reportedOutcome(c)),
      ['gave_up', 'gave_up', 'ended', 'abandoned'],
    );
    const c = countOutcomes(convs);
    assert.deepEqual([c.accepted, c.ended, c.gave_up, c.abandoned], [0, 1, 2, 1]);
    assert.equal(userOutcomeShare(c, 'gave_up'), 0.5);
    const zb = zbOutcomes(convs);
    assert.deepEqual([zb.known, zb.ended, zb.gave_up, zb.abandoned], [4, 1, 2, 1]);
    const t = table(
      parseReport(
        buildSimulationReport({ populations: [{ label: 'sim', outcomes: c }], generated: '2026-01-01T00:00:00Z' }),
      ),
      'outcomes',
    );
    assert.deepEqual(t.rows[0].cells.slice(3, 7), [0, 0.25, 0.5, 0.25]);
    assert.match(t.caption ?? '', /gave up: left unserved with patience left/);
  });

  test('no outcome, rating or trace: "outcome unknown", never ended; shares over those that report one', () => {
    const human = (id: string, outcome?: 'accepted' | 'ended') => ({
      id,
      source: 'human',
      turns: [{ user_utterance: 'hi', assistant_utterance: 'It (2017)?' }],
      ...(outcome ? { outcome } : {}),
    });
    const convs = [
      ...Array.from({ length: 73 }, (_, i) => human(`a${i}`, 'accepted')),
      human('e1', 'ended'),
      human('e2', 'ended'),
      human('u1'),
      human('u2'),
    ];
    const c = countOutcomes(convs);
    assert.deepEqual([c.completed, c.accepted, c.ended, c.abandoned, c.unknown], [77, 73, 2, 0, 2]);
    assert.ok(Math.abs(userOutcomeShare(c, 'accepted') - 73 / 75) < 1e-12);
    const t = table(
      parseReport(
        buildSimulationReport({ populations: [{ label: 'human', outcomes: c }], generated: '2026-01-01T00:00:00Z' }),
      ),
      'outcomes',
    );
    assert.deepEqual(t.columns.map((x) => x.key).slice(0, 10), [
      'population',
      'conversations',
      'without_failures',
      'accepted',
      'ended',
      'gave_up',
      'abandoned',
      'outcome_unknown',
      'agent_errors',
      'other_failures',
    ]);
    assert.equal(t.rows[0].cells[7], 2);
    assert.match(t.caption ?? '', /human: outcome unknown: 2 of 77/);
  });

  test('simulation builder: Outcomes table with exact shares and per-reason columns', () => {
    const report = parseReport(
      buildSimulationReport({
        populations: [
          { label: 'sim', outcomes: countOutcomes(population()) },
          { label: 'human', outcomes: countOutcomes(population().slice(0, 4)) },
        ],
        generated: '2026-01-01T00:00:00Z',
      }),
    );
    const t = table(report, 'outcomes');
    assert.deepEqual(
      t.columns.map((c) => c.key),
      [
        'population',
        'conversations',
        'without_failures',
        'accepted',
        'ended',
        'gave_up',
        'abandoned',
        'agent_errors',
        'other_failures',
        'failed_agent_timeout',
        'failed_simulator_error',
        'failed_unknown',
      ],
    );
    assert.deepEqual(t.rows[0].cells, ['sim', 7, 4, 0.5, 0.25, 0, 0.25, 2, 1, 1, 1, 1]);
    assert.deepEqual(t.rows[1].cells, ['human', 4, 4, 0.5, 0.25, 0, 0.25, 0, 0, 0, 0, 0]);
    assert.equal(t.rows[0].marks?.[7], 'fail');
    assert.equal(t.rows[1].marks?.[7], null);
    // Only Outcomes: the "no metrics" note is still there.
    assert.ok(report.sections.some((s) => s.id.startsWith('simulation-empty')));
  });

  test('simulation panel: metrics about user behaviour leave failed conversations out, and say so', async (t) => {
    const { dir, cleanup } = tempDir();
    t.after(cleanup);
    writeFileSync(path.join(dir, 'sim.jsonl'), jsonl(population()));
    const report = parseReport(
      await computeSimulation({ kind: 'simulation', populations: [{ file: 'sim.jsonl' }] }, { cwd: dir }),
    );
    assert.equal(report.sections[0].id, 'outcomes');
    const outcomes = table(report, 'outcomes');
    assert.deepEqual(outcomes.rows[0].cells.slice(0, 9), ['sim', 7, 4, 0.5, 0.25, 0, 0.25, 2, 1]);
    const zb = table(report, 'zb-table');
    assert.equal(column(zb, 'conversations'), 4);
    // AvgTurns = speaker changes / 2: 3.5, 3.5, 1.5, 1.5 (with the failed ones it would be 11.5 / 7).
    assert.equal(column(zb, 'avg_turns'), 2.5);
    assert.match(zb.caption ?? '', /Failed conversations \(3 of 7.*\) are excluded/);
    assert.deepEqual(
      report.inputs.map((i) => i.n),
      [7],
    );
  });

  test('PLSA: failed conversations are left out with a warning', async (t) => {
    const { dir, cleanup } = tempDir();
    t.after(cleanup);
    writeFileSync(path.join(dir, 'sim.jsonl'), jsonl(population()));
    writeHumanFile(dir, 10);
    const report = await computePlsa(
      { kind: 'plsa', reference: { file: 'human.jsonl' }, candidates: [{ file: 'sim.jsonl' }], baseline: false },
      { cwd: dir },
    );
    assert.deepEqual(
      report.inputs.map((i) => i.n),
      [10, 4],
    );
    assert.ok(
      report.warnings?.some(
        (w) =>
          w ===
          'sim: 3 of 7 conversations failed (agent_timeout 1, simulator_error 1, unknown 1) and are left out of the metrics',
      ),
      report.warnings?.join('\n'),
    );
  });

  test('fidelity: agent errors are counted apart and left out of every metric', { timeout: 120_000 }, async (t) => {
    const { dir, cleanup } = tempDir();
    t.after(cleanup);
    writeHumanFile(dir, 40);
    // A recommender that answers HTTP 500 on the first turn of every conversation whose index is 1 mod 4.
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const { conversation_id, history } = JSON.parse(body) as { conversation_id: string; history: unknown[] };
        const index = Number(/(\d+)$/.exec(conversation_id)?.[1]);
        if (index % 4 === 1 && history.length === 0) {
          res.writeHead(500, { 'content-type': 'text/plain' }).end('overloaded');
          return;
        }
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ utterance: 'Here are some boots you may like.', recommendations: [] }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    t.after(() => server.close());
    const agent = `http:http://127.0.0.1:${(server.address() as AddressInfo).port}/chat`;
    const result = await runFidelity(
      {
        human: { file: 'human.jsonl' },
        simulator: 'agenda:cir6:pkg',
        agents: [agent],
        n: 20,
        seed: 5,
        out: path.join(dir, 'out'),
        learningCurve: false,
        concurrency: 1,
      },
      { cwd: dir },
    );
    const pop = result.populations[0];
    assert.equal(pop.outcomes.conversations, 20);
    assert.equal(pop.outcomes.agentErrors, 5);
    assert.deepEqual(pop.outcomes.byReason, { agent_http: 5 });
    assert.equal(pop.failed, 5);
    assert.equal(pop.conversations.length, 15);
    assert.ok(pop.conversations.every((c) => conversationFailure(c) === undefined));
    const report = result.report;
    assert.deepEqual(
      report.inputs.map((i) => i.n),
      [40, 15],
    );
    const outcomes = table(report, 'outcomes');
    const sim = outcomes.rows.findIndex((r) => r.cells[0] === agent);
    assert.deepEqual(outcomes.rows[sim].cells.slice(1, 3), [20, 15]);
    assert.equal(column(outcomes, 'agent_errors', sim), 5);
    assert.equal(column(outcomes, 'failed_agent_http', sim), 5);
    // accepted, ended, gave up, abandoned (since the thirteenth round these users abandon: the
    // agent's "Here are some boots you may like." shows nothing, an empty answer)
    const shares = [3, 4, 5, 6].map((i) => outcomes.rows[sim].cells[i] as number);
    assert.deepEqual(
      outcomes.columns.slice(3, 7).map((c) => c.key),
      ['accepted', 'ended', 'gave_up', 'abandoned'],
    );
    assert.ok(
      Math.abs(shares.reduce((a, b) => a + b, 0) - 1) < 1e-9,
      `user-outcome shares over 15 sum to 1: ${shares}`,
    );
    const runs = table(report, 'runs');
    assert.equal(column(runs, 'conversations'), 20);
    assert.equal(column(runs, 'failed'), 5);
    const about = report.sections.find((s) => s.id === 'about');
    assert.ok(
      about?.type === 'text' && about.paragraphs.some((p) => /Failed conversations \(5 of 40/.test(p)),
      'the report says failures are excluded',
    );
    // The invariants of all 20 simulated conversations (failed ones included), links into that population's file.
    assert.equal(pop.invariants.conversations, 20);
    const inv = table(report, 'invariants');
    assert.equal(inv.rows.length, pop.invariants.invariants.length);
    const links = report.sections.flatMap((s) =>
      s.type === 'table' ? s.rows.flatMap((r) => (r.link ? [r.link] : [])) : [],
    );
    assert.ok(
      links.every((l) => l.input === 1),
      JSON.stringify(links.slice(0, 3)),
    );
    assert.ok(
      about?.type === 'text' &&
        about.paragraphs.some((p) => p.startsWith('Behavioural invariants (not part of the verdict):')),
    );
  });
});
