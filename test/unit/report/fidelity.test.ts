import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { runFidelity, DEFAULT_THRESHOLDS } from '../../../src/core/report/fidelity';
import { parseReport } from '../../../src/core/report/model';
import { reportCommand } from '../../../src/cli/commands/report';
import { tempDir, writeHumanFile } from './fixtures';

describe('fidelity report', () => {
  test('end to end on a tiny run: simulations, three verdicts, all files', { timeout: 120_000 }, async (t) => {
    const { dir, cleanup } = tempDir();
    t.after(cleanup);
    writeHumanFile(dir, 80);
    const out = path.join(dir, 'report');
    const phases: string[] = [];
    const result = await runFidelity(
      {
        human: { file: 'human.jsonl' },
        simulator: 'agenda:cir6:pkg',
        agents: ['local-good', 'local-bad'],
        n: 20,
        seed: 3,
        out,
        learningCurve: false,
      },
      { cwd: dir, progress: (m) => phases.push(m) },
    );
    const report = parseReport(JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')));
    assert.equal(report.kind, 'fidelity');
    assert.deepEqual(
      report.verdicts?.map((v) => v.pillar),
      ['Population alignment (PLSA)', 'Human-likeness (HLS)', 'Counterfactual validity'],
    );
    for (const v of report.verdicts ?? []) assert.ok(['pass', 'warn', 'fail'].includes(v.verdict));
    // the counterfactual pillar was assessed (both conditions exist in the human file)
    assert.doesNotMatch(report.verdicts![2].detail, /not assessed/);
    // 11 features each: tested ones in the denominator, features constant in both populations named apart.
    for (const [agent, human] of [
      ['local-good', 'good'],
      ['local-bad', 'bad'],
    ]) {
      const m = new RegExp(
        `${agent}: \\d+/(\\d+) features aligned with human \\(${human}\\)[^;]*?(?:\\((\\d+) constant in both, not tested\\))?(?:;|$)`,
      ).exec(report.verdicts![0].detail);
      assert.ok(m, report.verdicts![0].detail);
      assert.equal(Number(m[1]) + Number(m[2] ?? 0), 11, report.verdicts![0].detail);
    }
    assert.deepEqual(
      report.inputs.map((i) => [i.label, i.n]),
      [
        ['human', 80],
        ['local-good', 20],
        ['local-bad', 20],
      ],
    );
    // files
    const md = readFileSync(path.join(out, 'report.md'), 'utf8');
    assert.match(md, /^# Simulator fidelity: agenda:cir6:pkg vs human/);
    assert.match(md, /## Verdicts/);
    const charts = readdirSync(path.join(out, 'charts'));
    assert.ok(charts.length >= 20, `${charts.length} charts`);
    for (const c of charts) assert.ok(md.includes(`](charts/${c})`), `report.md links ${c}`);
    assert.ok(readdirSync(path.join(out, 'tables')).some((f) => f.startsWith('plsa-table')));
    assert.ok(existsSync(path.join(out, 'populations', 'local-good.sim.jsonl')));
    assert.ok(existsSync(path.join(out, 'populations', 'local-bad.sim.jsonl.manifest.json')));
    assert.equal(result.populations[0].conversations.length, 20);
    assert.equal(result.populations[0].condition, 'good');
    assert.equal(result.populations[1].condition, 'bad');
    assert.ok(phases.some((p) => /Simulating/.test(p)) && phases.some((p) => /Human-likeness/.test(p)));
    // the same seed gives the same simulated conversations
    const again = await runFidelity(
      {
        human: { file: 'human.jsonl' },
        simulator: 'agenda:cir6:pkg',
        agents: ['local-good'],
        n: 20,
        seed: 3,
        out: path.join(dir, 'again'),
        learningCurve: false,
      },
      { cwd: dir },
    );
    assert.equal(readFileSync(again.populations[0].file, 'utf8'), readFileSync(result.populations[0].file, 'utf8'));
    // one agent: no counterfactual, said so
    assert.match(again.report.verdicts![2].detail, /not assessed: needs two agents/);
    assert.equal(again.report.verdicts![2].verdict, 'warn');
  });

  test('thresholds decide the verdicts', { timeout: 120_000 }, async (t) => {
    const { dir, cleanup } = tempDir();
    t.after(cleanup);
    writeHumanFile(dir, 40);
    const lenient = await runFidelity(
      {
        human: { file: 'human.jsonl' },
        simulator: 'agenda:cir6:pkg',
        agents: ['local-good', 'local-bad'],
        n: 10,
        out: path.join(dir, 'r'),
        learningCurve: false,
        thresholds: { plsaPass: 0, hlsPass: 0, counterfactualPass: 0 },
      },
      { cwd: dir },
    );
    assert.deepEqual(
      lenient.report.verdicts?.map((v) => v.verdict),
      ['pass', 'pass', 'pass'],
    );
    const strict = await runFidelity(
      {
        human: { file: 'human.jsonl' },
        simulator: 'agenda:cir6:pkg',
        agents: ['local-good', 'local-bad'],
        n: 10,
        out: path.join(dir, 's'),
        learningCurve: false,
        thresholds: { plsaPass: 2, plsaWarn: 2, hlsPass: 2, hlsWarn: 2, counterfactualPass: 2, counterfactualWarn: 2 },
      },
      { cwd: dir },
    );
    assert.deepEqual(
      strict.report.verdicts?.map((v) => v.verdict),
      ['fail', 'fail', 'fail'],
    );
    assert.ok(DEFAULT_THRESHOLDS.plsaPass > DEFAULT_THRESHOLDS.plsaWarn);
  });

  test('CLI: simlens report writes the report and exits 1 when a pillar fails', { timeout: 120_000 }, async (t) => {
    const { dir, cleanup } = tempDir();
    t.after(cleanup);
    writeHumanFile(dir, 40, 'people.jsonl');
    let stdout = '';
    let stderr = '';
    const io = { stdout: (s: string) => (stdout += s), stderr: (s: string) => (stderr += s), cwd: dir, env: {} };
    const code = await reportCommand.run(
      [
        '--human',
        'people.jsonl',
        '--simulator',
        'agenda:cir6:pkg',
        '--n',
        '12',
        '--out',
        'out',
        '--no-learning-curve',
        '--json',
      ],
      io,
    );
    const summary = JSON.parse(stdout);
    assert.equal(summary.out, path.join(dir, 'out'));
    assert.equal(summary.verdicts.length, 3);
    assert.equal(code, summary.verdicts.some((v: { verdict: string }) => v.verdict === 'fail') ? 1 : 0);
    assert.ok(existsSync(path.join(dir, 'out', 'report.md')));
    assert.match(stderr, /simlens report: Simulating 12 conversations against local-good/);
    // usage and input errors
    await assert.rejects(reportCommand.run(['--simulator', 'agenda'], io), /--human FILE is required/);
    await assert.rejects(
      reportCommand.run(['--human', 'people.jsonl', '--simulator', 'agenda', '--n', '3'], io),
      /--n must be/,
    );
    stderr = '';
    assert.equal(
      await reportCommand.run(['--human', 'people.jsonl', '--simulator', 'agenda:warp9', '--out', 'x'], io),
      2,
    );
    assert.match(stderr, /unknown word "warp9"/);
    stderr = '';
    assert.equal(
      await reportCommand.run(['--human', 'nobody.jsonl', '--simulator', 'agenda', '--out', 'x', '-q'], io),
      2,
    );
    assert.match(stderr, /nobody\.jsonl: no such file/);
  });
});
