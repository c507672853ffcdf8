import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { counterfactualValidation } from '../../../src/core/metrics/counterfactual';
import type { FeatureTable } from '../../../src/core/metrics/features';

const t = (v: number[]): FeatureTable => ({
  features: ['frustration'],
  n: v.length,
  values: { frustration: Float64Array.from(v) },
});

describe('counterfactual validation', () => {
  test('shift direction, magnitude and unseen-condition tests by hand', () => {
    const human = { from: t([0, 1, 2]), to: t([1, 2, 3]) }; // +1
    const r = counterfactualValidation(
      human,
      [
        { name: 'good-sim', from: t([0, 0, 1]), to: t([0.5, 0.5, 1.5]) }, // +0.5
        { name: 'bad-sim', from: t([2, 2, 2]), to: t([1, 1, 2.5]) }, // -0.5
        { name: 'flat-sim', from: t([1, 1]), to: t([1, 1]) }, // 0
      ],
      ['frustration'],
      { fromName: 'good', toName: 'bad' },
    );
    const [a, b, c] = r.shifts;
    assert.equal(a.human_shift, 1);
    assert.equal(a.sim_shift, 0.5);
    assert.equal(a.direction_agrees, true);
    assert.equal(a.magnitude_ratio, 0.5);
    assert.equal(b.direction_agrees, false);
    assert.equal(c.direction_agrees, false);
    assert.equal(a.unseen.n_reference, 3);
    assert.equal(a.unseen.candidate, 'good-sim');
    assert.deepEqual(
      r.summary.map((s) => s.direction_agrees),
      [1, 0, 0],
    );
    assert.ok(Math.abs(r.summary[0].mean_abs_log_ratio - Math.log(2)) < 1e-15);
  });
});
