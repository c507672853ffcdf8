import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { metricsCommand } from '../../../src/cli/commands/metrics';
import { syntheticPopulation, DEMO_PROFILES } from '../../../src/core/metrics/synthetic';
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

describe('simlens metrics CLI', () => {
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'simlens-metrics-'));
    const write = (name: string, convs: unknown[]) => writeFileSync(path.join(dir, name), convs.map((c) => JSON.stringify(c)).join('\n') + '\n');
    write('human.jsonl', [
      ...syntheticPopulation({ ...DEMO_PROFILES.human, condition: 'good' }, 40, 1),
      ...syntheticPopulation({ ...DEMO_PROFILES.human, name: 'hb', condition: 'bad', frustrated: 0.3 }, 20, 1),
    ]);
    write('sim.jsonl', [
      ...syntheticPopulation({ ...DEMO_PROFILES.prompted, condition: 'good' }, 40, 1),
      ...syntheticPopulation({ ...DEMO_PROFILES.prompted, name: 'pb', condition: 'bad' }, 20, 1),
    ]);
    writeFileSync(path.join(dir, 'broken.jsonl'), '{"turns": []}\nnot json\n');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('plsa --json prints exactly the documented shape', async () => {
    const r = await run('plsa', '--reference', 'human.jsonl', '--candidate', 'sim.jsonl', '--features', 'num_turns,act:critique,satisfaction', '--json');
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.deepEqual(Object.keys(j), ['reference', 'candidates', 'comparisons']);
    assert.deepEqual(j.reference, { file: 'human.jsonl', n: 60 });
    assert.deepEqual(j.candidates, [{ file: 'sim.jsonl', n: 60 }]);
    assert.equal(j.comparisons.length, 3);
    for (const c of j.comparisons) {
      assert.deepEqual(Object.keys(c), ['feature', 'candidate', 'reference_mean', 'candidate_mean', 'mwu_u', 'mwu_p', 'ks_statistic', 'ks_p']);
      assert.equal(c.candidate, 'sim.jsonl');
    }
    const sat = j.comparisons.find((c: { feature: string }) => c.feature === 'satisfaction');
    assert.equal(sat.candidate_mean, null, 'simulator has no ratings: missing, printed as null');
    assert.ok(j.comparisons[0].mwu_p < 0.05);
  });

  test('plsa Markdown with baseline and closer-than summary', async () => {
    const r = await run('plsa', '--reference', 'human.jsonl', '--candidate', 'sim.jsonl', '--candidate', 'human.jsonl', '--baseline', '--baseline-size', '20');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /\| Metric \| human–sim MWU p \| human–sim KS stat \| human–human MWU p/);
    assert.match(r.stdout, /human is closer to the reference than sim on 11 of 11 features by KS/);
    assert.match(r.stdout, /Two disjoint random subsets of 20 conversations/);
  });

  test('features, hls, counterfactual, zb, pepper, altereval, tagger run', async () => {
    let r = await run('features', 'human.jsonl', '--csv', '--features', 'num_turns,accepted');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.split('\r\n')[0], 'id,num_turns,accepted');
    r = await run('hls', '--human', 'human.jsonl', '--simulated', 'sim.jsonl', '--k', '3', '--json');
    assert.equal(r.code, 0, r.stderr);
    assert.ok(JSON.parse(r.stdout).cross_validation.metrics.accuracy > 0.9);
    r = await run('counterfactual', '--human', 'human.jsonl', '--simulator', 'sim.jsonl', '--features', 'frustration,num_turns');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /good → bad/);
    r = await run('zb', '--real', 'human.jsonl', '--simulated', 'sim.jsonl', '--json');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).populations.length, 2);
    r = await run('ranking', '--real', 'A=human.jsonl', '--real', 'B=sim.jsonl', '--simulated', 'A=human.jsonl', '--simulated', 'B=sim.jsonl', '--json');
    assert.equal(JSON.parse(r.stdout).kendall_tau, 1);
    r = await run('pepper', 'sim.jsonl');
    assert.equal(r.code, 0);
    assert.match(r.stderr, /no conversation has targets/);
    r = await run('tagger', '--text', 'thanks, bye', '--json');
    assert.deepEqual(JSON.parse(r.stdout)[0].acts, ['greet_thank']);
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
    await assert.rejects(run('plsa', '--reference', 'human.jsonl', '--candidate', 'sim.jsonl', '--ux', 'psychic'), /--ux must be/);
    r = await run('counterfactual', '--human', 'human.jsonl', '--simulator', 'sim.jsonl', '--to', 'ugly');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /needs conversations in both conditions "good" and "ugly"/);
  });
});
