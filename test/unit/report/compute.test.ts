import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  computePlsa,
  computeHls,
  computeCounterfactual,
  computeSimulation,
  CancelledError,
} from '../../../src/core/report/compute';
import { parseReport, type TableSection, type TextSection } from '../../../src/core/report/model';
import { PopulationLoader, describeFilter, defaultLabel, populationFacets } from '../../../src/core/report/populations';
import { parseInlineSimulator, resolveSimulator } from '../../../src/core/report/simulator';
import { ReportSpecSchema } from '../../../src/core/report/specs';
import { fidelityNeedsLlm } from '../../../src/core/report/fidelity';
import { humanConversations, jsonl, tempDir, writeHumanFile } from './fixtures';

/** Simulated-looking conversations: long, wordy, never negative. */
function simConversations(n: number, condition: string): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `s-${condition}-${i}`,
    condition,
    source: 'template-sim',
    agent: `local-${condition}`,
    turns: Array.from({ length: 4 + (i % 3) }, (_, t) => ({
      user_utterance:
        t === 0
          ? 'Hello, I would like to find a product that matches my preferences please'
          : 'Thank you, could you show me more options similar to that one please',
      assistant_utterance: 'Here are some options.',
      trace: { user_act: t === 0 ? 'disclose' : 'inquire', operation: t % 2 ? 'pull' : 'push' },
    })),
    outcome: i % 2 ? 'accepted' : 'ended',
  }));
}

describe('populations and simulator specs', () => {
  test('filters, facets and labels', async (t) => {
    const { dir, cleanup } = tempDir();
    t.after(cleanup);
    const file = writeHumanFile(dir, 10);
    const loader = new PopulationLoader(dir);
    const all = await loader.file('human.jsonl');
    const f = populationFacets(all.conversations);
    assert.equal(f.total, 10);
    assert.deepEqual(f.condition, [
      ['bad', 5],
      ['good', 5],
    ]);
    const good = await loader.load({ file: 'human.jsonl', filter: { condition: 'good' } });
    assert.equal(good.conversations.length, 5);
    assert.equal(good.label, 'human (good)');
    assert.equal(good.filter, 'condition=good');
    assert.equal(describeFilter({}), undefined);
    assert.equal(defaultLabel({ file: '/x/run.sim.jsonl' }), 'run');
    await assert.rejects(
      loader.load({ file: file, filter: { condition: 'ugly' } }),
      /no conversations match condition=ugly \(10 in the file\)/,
    );
    await assert.rejects(loader.load({ file: 'missing.jsonl' }), /missing\.jsonl: no such file/);
  });

  test('inline and JSON simulator specs', (t) => {
    assert.deepEqual(parseInlineSimulator('agenda:cir6:pkg'), {
      user: 'agenda',
      interaction: 'cir6',
      preferences: 'pkg',
    });
    assert.deepEqual(parseInlineSimulator('agenda:qrfa:single:patience=6:typo_rate=0.05'), {
      user: 'agenda',
      interaction: 'qrfa',
      preferences: 'single',
      patience: 6,
      typo_rate: 0.05,
    });
    assert.deepEqual(parseInlineSimulator('llm-prompted'), { user: 'llm-prompted' });
    assert.equal(fidelityNeedsLlm('llm-icl', ['local-good'], '.'), true);
    assert.equal(fidelityNeedsLlm('agenda:cir6:pkg', ['local-good', 'llm-bad'], '.'), true);
    assert.equal(fidelityNeedsLlm('agenda:cir6:pkg', ['local-good', 'local-bad'], '.'), false);
    assert.throws(() => parseInlineSimulator('agenda:cir7'), /unknown word "cir7"/);
    assert.throws(() => parseInlineSimulator('agenda:n=5'), /"n" is set by the report/);
    assert.throws(() => parseInlineSimulator('agenda:bogus=1'), /unknown option "bogus"/);
    assert.throws(() => parseInlineSimulator('cir6:qrfa'), /interaction given twice/);
    assert.throws(() => parseInlineSimulator('agenda:patience=-1'), /patience/);
    const { dir, cleanup } = tempDir();
    t.after(cleanup);
    writeFileSync(
      path.join(dir, 'sim.json'),
      JSON.stringify({ user: 'agenda', interaction: 'qrfa', agent: 'ignored', n: 5 }),
    );
    const r = resolveSimulator('sim.json', dir);
    assert.deepEqual(r.options, { user: 'agenda', interaction: 'qrfa' });
    assert.equal(r.name, 'agenda:qrfa:pkg');
    assert.equal(r.cwd, dir);
    writeFileSync(path.join(dir, 'bad.json'), '{"user": "robot"}');
    assert.throws(() => resolveSimulator('bad.json', dir), /bad\.json: user/);
    writeFileSync(path.join(dir, 'broken.json'), '{');
    assert.throws(() => resolveSimulator('broken.json', dir), /not valid JSON/);
    assert.throws(() => resolveSimulator('nope.json', dir), /no such file/);
  });

  test('report specs are validated', () => {
    assert.ok(
      ReportSpecSchema.safeParse({ kind: 'plsa', reference: { file: 'a' }, candidates: [{ file: 'b' }] }).success,
    );
    assert.ok(!ReportSpecSchema.safeParse({ kind: 'plsa', reference: { file: 'a' }, candidates: [] }).success);
    assert.ok(
      !ReportSpecSchema.safeParse({ kind: 'fidelity', human: { file: 'a' }, simulator: 'agenda', agents: ['x'], n: 3 })
        .success,
      'n >= 10',
    );
    assert.ok(!ReportSpecSchema.safeParse({ kind: 'nope' }).success);
  });
});

describe('computing reports from specs', () => {
  test('PLSA with filters: human good vs human bad vs simulated', async (t) => {
    const { dir, cleanup } = tempDir();
    t.after(cleanup);
    writeHumanFile(dir, 60);
    writeFileSync(path.join(dir, 'sim.jsonl'), jsonl(simConversations(30, 'good')));
    const messages: string[] = [];
    const report = parseReport(
      await computePlsa(
        {
          kind: 'plsa',
          reference: { file: 'human.jsonl', filter: { condition: 'good' } },
          candidates: [
            { file: 'human.jsonl', filter: { condition: 'bad' } },
            { file: 'sim.jsonl', label: 'simulator' },
          ],
          baselineSize: 10,
        },
        { cwd: dir, progress: (m) => messages.push(m), now: () => new Date('2026-01-01T00:00:00Z') },
      ),
    );
    assert.equal(report.generated, '2026-01-01T00:00:00.000Z');
    assert.deepEqual(
      report.inputs.map((i) => [i.label, i.n, i.filter ?? null]),
      [
        ['human (good)', 30, 'condition=good'],
        ['human (bad)', 30, 'condition=bad'],
        ['simulator', 30, null],
      ],
    );
    const wide = report.sections.find((s) => s.id === 'plsa-table') as TableSection;
    assert.equal(wide.rows.length, 11);
    const summary = (report.sections[0] as TextSection).paragraphs.join('\n');
    assert.match(summary, /human \(bad\) is closer to human \(good\) than simulator on \d+ of \d+ features/);
    // The template simulator's turns are always 4-6 long while human good ones are 2-5: far apart.
    const numTurns = wide.rows[0];
    assert.equal(numTurns.cells[0], 'Num turns');
    assert.ok((numTurns.cells[6] as number) < 0.05, 'simulator num_turns differs');
    assert.ok(report.sections.some((s) => s.id === 'plsa-baseline'));
    assert.ok(report.sections.filter((s) => s.type === 'chart' && s.id.startsWith('hist-')).length >= 5);
    assert.ok(messages.some((m) => /Mann-Whitney/.test(m)));
  });

  test('human-likeness and counterfactual reports', async (t) => {
    const { dir, cleanup } = tempDir();
    t.after(cleanup);
    writeHumanFile(dir, 40);
    writeFileSync(
      path.join(dir, 'sim.jsonl'),
      jsonl([...simConversations(20, 'good'), ...simConversations(20, 'bad')]),
    );
    const hls = parseReport(
      await computeHls(
        {
          kind: 'human-likeness',
          human: { file: 'human.jsonl' },
          simulated: [{ file: 'sim.jsonl' }],
          folds: 3,
          learningCurve: false,
        },
        { cwd: dir },
      ),
    );
    const cv = hls.sections.find((s) => s.id === 'hls-cv') as TableSection;
    const acc = cv.rows[0].cells[1] as number;
    assert.ok(acc > 0.9, `template text is easy to tell apart (accuracy ${acc})`);
    const cf = parseReport(
      await computeCounterfactual(
        {
          kind: 'counterfactual',
          human: { file: 'human.jsonl' },
          simulators: [{ label: 'tmpl', from: { file: 'sim.jsonl' }, to: { file: 'sim.jsonl' } }],
          from: 'good',
          to: 'bad',
        },
        { cwd: dir },
      ),
    );
    assert.deepEqual(
      cf.inputs.map((i) => i.label),
      ['human (good)', 'human (bad)', 'tmpl (good)', 'tmpl (bad)'],
    );
    const shifts = cf.sections.find((s) => s.id === 'cf-shifts') as TableSection;
    // human bad conversations are shorter: negative human shift in num_turns
    assert.ok((shifts.rows[0].cells[3] as number) < 0);
  });

  test('simulation metrics with a real-user reference and ranking agreement', async (t) => {
    const { dir, cleanup } = tempDir();
    t.after(cleanup);
    const real = humanConversations(20).map((c, i) => ({ ...c, agent: i % 2 ? 'local-good' : 'local-bad' }));
    writeFileSync(path.join(dir, 'real.jsonl'), jsonl(real));
    writeFileSync(
      path.join(dir, 'sim.jsonl'),
      jsonl([...simConversations(10, 'good'), ...simConversations(10, 'bad')]),
    );
    const report = parseReport(
      await computeSimulation(
        { kind: 'simulation', populations: [{ file: 'sim.jsonl' }], reference: { file: 'real.jsonl' } },
        { cwd: dir },
      ),
    );
    const zb = report.sections.find((s) => s.id === 'zb-table') as TableSection;
    assert.deepEqual(
      zb.rows.map((r) => r.cells[0]),
      ['real', 'sim'],
    );
    assert.equal(zb.rows[1].cells[1], 20);
    assert.ok(typeof zb.rows[1].cells[4] === 'number', 'DS-KL against the reference');
    assert.ok(report.sections.some((s) => s.id.startsWith('ranking-avgturns')));
  });

  test('cancellation stops a computation', async (t) => {
    const { dir, cleanup } = tempDir();
    t.after(cleanup);
    writeHumanFile(dir, 20);
    const controller = new AbortController();
    const p = computePlsa(
      { kind: 'plsa', reference: { file: 'human.jsonl' }, candidates: [{ file: 'human.jsonl' }] },
      { cwd: dir, signal: controller.signal, progress: () => controller.abort() },
    );
    await assert.rejects(p, CancelledError);
  });
});
