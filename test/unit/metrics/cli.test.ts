import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { metricsCommand } from '../../../src/cli/commands/metrics';
import { syntheticPopulation, DEMO_PROFILES } from '../../../src/core/metrics/synthetic';
import { computeReport } from '../../../src/core/report/compute';
import type { Report, ReportSpec, TableSection } from '../../../src/core/report';
import { UsageError } from '../../../src/cli/types';

let dir: string;
const out: string[] = [];
const err: string[] = [];
const io = () => ({ stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t), cwd: dir, env: {} });
async function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  out.length = 0;
  err.length = 0;
  const code = await metricsCommand.run(args, io());
  return { code, stdout: out.join(''), stderr: err.join('') };
}

/** A report without its time stamp (the only field that differs between two computations). */
const timeless = (r: Report) => ({ ...JSON.parse(JSON.stringify(r)), generated: undefined });
const table = (r: Report, id: string) => r.sections.find((s): s is TableSection => s.type === 'table' && s.id === id)!;

describe('simlens metrics CLI', () => {
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'simlens-metrics-'));
    const write = (name: string, convs: unknown[]) =>
      writeFileSync(path.join(dir, name), convs.map((c) => JSON.stringify(c)).join('\n') + '\n');
    write('human.jsonl', [
      ...syntheticPopulation({ ...DEMO_PROFILES.human, condition: 'good' }, 40, 1),
      ...syntheticPopulation({ ...DEMO_PROFILES.human, name: 'hb', condition: 'bad', frustrated: 0.3 }, 20, 1),
    ]);
    write('sim.jsonl', [
      ...syntheticPopulation({ ...DEMO_PROFILES.prompted, condition: 'good' }, 40, 1),
      ...syntheticPopulation({ ...DEMO_PROFILES.prompted, name: 'pb', condition: 'bad' }, 20, 1),
    ]);
    // The same simulated run plus 5 conversations whose recommender failed.
    const failed = syntheticPopulation({ ...DEMO_PROFILES.prompted, name: 'failed', condition: 'good' }, 5, 9).map(
      (c) => ({ ...c, outcome: 'agent_error' }),
    );
    write('sim-failures.jsonl', [
      ...syntheticPopulation({ ...DEMO_PROFILES.prompted, condition: 'good' }, 40, 1),
      ...syntheticPopulation({ ...DEMO_PROFILES.prompted, name: 'pb', condition: 'bad' }, 20, 1),
      ...failed,
    ]);
    // A file name that a spreadsheet would run as a formula, and one with Markdown emphasis.
    write('=HYPERLINK(1).jsonl', syntheticPopulation(DEMO_PROFILES.prompted, 30, 2));
    write('*loud*.jsonl', syntheticPopulation(DEMO_PROFILES.prompted, 30, 2));
    writeFileSync(path.join(dir, 'broken.jsonl'), '{"turns": []}\nnot json\n');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  // For every report subcommand: the CLI's --json is the report the panels compute from the same spec.
  const SAME_AS_PANELS: { args: string[]; spec: Exclude<ReportSpec, { kind: 'fidelity' }> }[] = [
    {
      args: [
        'plsa',
        '--reference',
        'human.jsonl',
        '--candidate',
        'sim.jsonl',
        '--features',
        'num_turns,act:critique,satisfaction',
        '--baseline',
        '--baseline-size',
        '20',
      ],
      spec: {
        kind: 'plsa',
        reference: { file: 'human.jsonl' },
        candidates: [{ file: 'sim.jsonl' }],
        features: ['num_turns', 'act:critique', 'satisfaction'],
        baseline: true,
        baselineSize: 20,
        seed: 1,
      },
    },
    {
      args: ['hls', '--human', 'human.jsonl', '--simulated', 'sim.jsonl', '--k', '3'],
      spec: {
        kind: 'human-likeness',
        human: { file: 'human.jsonl' },
        simulated: [{ file: 'sim.jsonl' }],
        folds: 3,
        learningCurve: false,
        cross: false,
      },
    },
    {
      args: [
        'counterfactual',
        '--human',
        'human.jsonl',
        '--simulator',
        'sim.jsonl',
        '--features',
        'frustration,num_turns',
      ],
      spec: {
        kind: 'counterfactual',
        human: { file: 'human.jsonl', label: 'human' },
        simulators: [{ label: 'sim', from: { file: 'sim.jsonl' }, to: { file: 'sim.jsonl' } }],
        from: 'good',
        to: 'bad',
        features: ['frustration', 'num_turns'],
      },
    },
    {
      args: ['zb', '--real', 'human.jsonl', '--simulated', 'sim.jsonl'],
      spec: {
        kind: 'simulation',
        reference: { file: 'human.jsonl' },
        populations: [{ file: 'sim.jsonl' }],
        metrics: ['zb'],
      },
    },
    {
      args: ['pepper', 'sim.jsonl', '--k', '10'],
      spec: { kind: 'simulation', populations: [{ file: 'sim.jsonl' }], pepperK: 10, metrics: ['pepper'] },
    },
    {
      args: ['altereval', 'sim.jsonl', '--horizon', '5'],
      spec: {
        kind: 'simulation',
        populations: [{ file: 'sim.jsonl' }],
        horizon: 5,
        relevant: 'alternatives',
        metrics: ['altereval'],
      },
    },
  ];
  for (const { args, spec } of SAME_AS_PANELS) {
    test(`metrics ${args[0]} --json is the panels' report of the same spec`, async () => {
      const r = await run(...args, '--json');
      assert.equal(r.code, 0, r.stderr);
      const cli = JSON.parse(r.stdout) as Report;
      assert.equal(cli.schema, 'simlens-report/1');
      assert.deepEqual(timeless(cli), timeless(await computeReport(spec, { cwd: dir })));
      // The text output is the same report's tables: every table title appears (plain text, no Markdown escapes).
      const md = await run(...args);
      assert.equal(md.code, 0, md.stderr);
      for (const s of cli.sections.filter((x) => x.type === 'table'))
        assert.ok(md.stdout.includes(`### ${s.title}`), `${args[0]}: ${s.title}`);
    });
  }

  test('ranking: the report of systems given as SYSTEM=FILE', async () => {
    const r = await run(
      'ranking',
      '--real',
      'A=human.jsonl',
      '--real',
      'B=sim.jsonl',
      '--simulated',
      'A=human.jsonl',
      '--simulated',
      'B=sim.jsonl',
      '--json',
    );
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as Report;
    const systems = [
      {
        name: 'A',
        real: { file: 'human.jsonl', label: 'A (real)' },
        simulated: { file: 'human.jsonl', label: 'A (simulated)' },
      },
      {
        name: 'B',
        real: { file: 'sim.jsonl', label: 'B (real)' },
        simulated: { file: 'sim.jsonl', label: 'B (simulated)' },
      },
    ];
    const spec = {
      kind: 'simulation' as const,
      populations: systems.flatMap((s) => [s.real, s.simulated]),
      systems,
      rankBy: 'reward' as const,
      reward: { unsupported: [] },
      metrics: ['zb' as const],
    };
    assert.deepEqual(timeless(report), timeless(await computeReport(spec, { cwd: dir })));
    const ranking = table(report, 'ranking-reward');
    assert.match(
      ranking.title,
      /System ranking by Reward: .*Kendall's tau = 1\.000/,
      'identical real and simulated scores',
    );
  });

  test('failed conversations are left out as in the panels', async () => {
    const r = await run(
      'plsa',
      '--reference',
      'human.jsonl',
      '--candidate',
      'sim-failures.jsonl',
      '--features',
      'num_turns',
      '--json',
    );
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as Report;
    assert.deepEqual(
      report.inputs.map((i) => [i.label, i.n]),
      [
        ['human', 60],
        ['sim-failures', 60],
      ],
    );
    assert.match(r.stderr, /sim-failures: 5 of 65 conversations failed/);
    const clean = JSON.parse(
      (await run('plsa', '--reference', 'human.jsonl', '--candidate', 'sim.jsonl', '--features', 'num_turns', '--json'))
        .stdout,
    ) as Report;
    assert.deepEqual(
      table(report, 'plsa-comparisons').rows[0].cells.slice(2),
      table(clean, 'plsa-comparisons').rows[0].cells.slice(2),
    );
  });

  test('CSV cells that a spreadsheet would run are guarded; terminal text shows data as it is', async () => {
    let r = await run(
      'plsa',
      '--reference',
      'human.jsonl',
      '--candidate',
      '=HYPERLINK(1).jsonl',
      '--features',
      'num_turns',
      '--csv',
    );
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split('\r\n');
    assert.equal(
      lines[0],
      'feature,candidate,reference mean,candidate mean,MWU U,MWU p,KS D,KS p,n reference,n candidate',
    );
    assert.match(lines[1], /^num_turns,'=HYPERLINK\(1\),/);
    r = await run('plsa', '--reference', 'human.jsonl', '--candidate', '*loud*.jsonl', '--features', 'num_turns');
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.includes('*loud* MWU p'), r.stdout);
    assert.ok(!r.stdout.includes('\\*loud\\*'), r.stdout);
  });

  test('features and tagger use the report renderers', async () => {
    let r = await run('features', 'human.jsonl', '--csv', '--features', 'num_turns,accepted');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.split('\r\n')[0], 'id,num_turns,accepted');
    r = await run('features', 'human.jsonl', '--features', 'num_turns');
    assert.match(
      r.stdout,
      /\| Feature \| n \| Mean \| Min \| Max \|\n\|---\|---:\|---:\|---:\|---:\|\n\| num_turns \| 60 \| \d\.\d{3} \| \d\.000 \| \d+\.000 \|/,
    );
    r = await run('tagger', '--text', 'thanks, bye', '--json');
    assert.deepEqual(JSON.parse(r.stdout)[0].acts, ['greet_thank']);
    r = await run('pepper', 'sim.jsonl');
    assert.equal(r.code, 0);
    assert.match(r.stderr, /no conversation has targets/);
  });

  test('bad input: clear messages and exit code 2', async () => {
    let r = await run('plsa', '--reference', 'missing.jsonl', '--candidate', 'sim.jsonl');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /missing\.jsonl/);
    r = await run('features', 'broken.jsonl');
    assert.equal(r.code, 0);
    assert.match(r.stderr, /broken\.jsonl:2:/);
    await assert.rejects(run('nosuch'), UsageError);
    await assert.rejects(run('plsa', '--candidate', 'sim.jsonl'), /missing --reference/);
    await assert.rejects(
      run('plsa', '--reference', 'human.jsonl', '--candidate', 'sim.jsonl', '--ux', 'psychic'),
      /--ux must be/,
    );
    await assert.rejects(
      run('ranking', '--real', 'A=human.jsonl', '--simulated', 'A=sim.jsonl'),
      /at least two systems/,
    );
    r = await run('counterfactual', '--human', 'human.jsonl', '--simulator', 'sim.jsonl', '--to', 'ugly');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /human\.jsonl: no conversations match condition=ugly/);
  });
});
