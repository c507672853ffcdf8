import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { buildPlsa, buildHls, buildCounterfactual, plsaBundleMarkdown, featureDistributions } from '../../../src/core/metrics/reports';
import { syntheticPopulation, DEMO_PROFILES } from '../../../src/core/metrics/synthetic';
import type { Population } from '../../../src/core/metrics/load';

const pop = (file: string, n: number, profile = DEMO_PROFILES.human, condition?: string): Population => ({
  file, conversations: syntheticPopulation({ ...profile, condition }, n, 3), problems: [], warnings: [],
});

describe('report builders', () => {
  test('buildPlsa: tests, summaries, baseline and chart data', () => {
    const b = buildPlsa(pop('h.jsonl', 80), [pop('p.jsonl', 60, DEMO_PROFILES.prompted), pop('s.jsonl', 60, DEMO_PROFILES.sft)], { baselineSize: 30 });
    assert.equal(b.report.comparisons.length, 22);
    assert.equal(b.closer.length, 2);
    assert.equal(b.baseline!.size, 30);
    assert.equal(b.distributions.length, 11);
    const d = b.distributions[0];
    assert.equal(d.feature, 'num_turns');
    assert.equal(d.populations.length, 3);
    assert.deepEqual(d.populations[0].histogram.edges, d.populations[1].histogram.edges, 'shared bins');
    assert.equal(d.populations[0].histogram.counts.reduce((s, v) => s + v, 0), 80);
    assert.equal(d.populations[0].summary.n, 80);
    assert.match(plsaBundleMarkdown(b), /## Population-level statistical alignment/);
    // the bundle is JSON-serialisable
    assert.ok(JSON.stringify(b).length > 1000);
  });

  test('featureDistributions skip missing values', () => {
    const table = { features: ['x'], n: 3, values: { x: Float64Array.from([1, NaN, 3]) } };
    const [d] = featureDistributions([{ file: 'a', table }], ['x']);
    assert.equal(d.populations[0].summary.n, 2);
  });

  test('buildHls and buildCounterfactual', () => {
    const h = buildHls(pop('h', 40), [pop('p', 40, DEMO_PROFILES.prompted)], { k: 4, curve: true });
    assert.equal(h.crossValidation.k, 4);
    assert.ok(h.learningCurve!.length > 0);
    const human: Population = { file: 'h', conversations: [...pop('h', 30, DEMO_PROFILES.human, 'good').conversations, ...pop('h', 30, { ...DEMO_PROFILES.human, frustrated: 0.4 }, 'bad').conversations], problems: [], warnings: [] };
    const sim: Population = { file: 's', conversations: [...pop('s', 30, DEMO_PROFILES.sft, 'good').conversations, ...pop('s', 30, DEMO_PROFILES.sft, 'bad').conversations], problems: [], warnings: [] };
    const r = buildCounterfactual(human, [sim], { features: ['num_turns'] });
    assert.equal(r.shifts.length, 1);
    assert.throws(() => buildCounterfactual(human, [pop('only-good.jsonl', 10, DEMO_PROFILES.sft, 'good')]), /only-good\.jsonl: needs conversations in both conditions/);
  });
});
