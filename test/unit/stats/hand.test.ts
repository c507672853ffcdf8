import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mannWhitneyU, mwuNullPmf, binomial } from '../../../src/core/stats/mannwhitney';
import { ks2samp, probOutsideSquare, ksStatistic } from '../../../src/core/stats/ks2samp';
import { kendallTau, kendallExactP } from '../../../src/core/stats/kendall';
import { cohenKappa, symmetricKl, klDivergence } from '../../../src/core/stats/agreement';
import { rankAverage } from '../../../src/core/stats/rank';
import { summarize, sharedHistogram } from '../../../src/core/stats/descriptive';

describe('hand-computed statistics', () => {
  test('average ranks and tie groups', () => {
    const r = rankAverage([10, 20, 10, 30, 20, 20]);
    assert.deepEqual(Array.from(r.ranks), [1.5, 4, 1.5, 6, 4, 4]);
    assert.deepEqual(r.ties, [2, 3, 1]);
  });

  test('Mann-Whitney exact: x = [1, 2], y = [3, 4] gives U1 = 0 and p = 2/6', () => {
    const r = mannWhitneyU([1, 2], [3, 4]);
    assert.equal(r.method, 'exact');
    assert.equal(r.statistic, 0);
    assert.ok(Math.abs(r.pvalue - 1 / 3) < 1e-15);
    // null distribution of U for 2 vs 2: counts 1,1,2,1,1 over C(4,2) = 6
    assert.deepEqual(
      Array.from(mwuNullPmf(2, 2, 4), (v) => Math.round(v * 6)),
      [1, 1, 2, 1, 1],
    );
    assert.equal(binomial(10, 3), 120);
  });

  test('Mann-Whitney asymptotic with ties: z and p by hand', () => {
    // pooled 1,1,1,2 -> ranks 2,2,2,4; x = [1,1]: R1 = 4, U1 = 1, U2 = 3, U = 3
    const r = mannWhitneyU([1, 1], [1, 2]);
    assert.equal(r.method, 'asymptotic');
    assert.equal(r.statistic, 1);
    // sigma = sqrt(4/12 * (5 - (27 - 3)/(4*3))) = sqrt(1), z = (3 - 2 - 0.5)/1 = 0.5
    assert.ok(Math.abs(r.z! - 0.5) < 1e-15);
    assert.ok(Math.abs(r.pvalue - 0.6170750774519738) < 1e-14); // 2·Φ(-0.5)
    // all values equal: sigma = 0, p = 1
    assert.equal(mannWhitneyU([3, 3, 3], [3, 3]).pvalue, 1);
    assert.throws(() => mannWhitneyU([], [1]), /x is empty/);
    assert.throws(() => mannWhitneyU([1], [NaN]), /y\[0\] is NaN/);
  });

  test('KS exact falls back to asymptotic like SciPy when the exact p exceeds 1', () => {
    assert.ok(probOutsideSquare(5, 1) > 1);
    const r = ks2samp([1, 2, 3, 4, 5], [1, 2, 3, 4, 6]);
    assert.equal(r.statistic, 0.2);
    assert.equal(r.fellBack, true);
    assert.equal(r.method, 'asymp');
    assert.equal(r.pvalue, 1); // kstwo.sf(0.2, round_half_even(2.5) = 2) = 1
  });

  test('KS statistic and exact p for disjoint samples', () => {
    assert.deepEqual(ksStatistic([1, 2, 3], [4, 5, 6]), { d: 1, sign: 1 });
    assert.deepEqual(ksStatistic([4, 5, 6], [1, 2, 3]), { d: 1, sign: -1 });
    // P(D = 1) for 3 vs 3 = 2 / C(6,3) = 0.1
    assert.ok(Math.abs(ks2samp([1, 2, 3], [4, 5, 6]).pvalue - 0.1) < 1e-15);
  });

  test("Kendall's tau by hand", () => {
    const r = kendallTau([1, 2, 3], [1, 3, 2]);
    assert.ok(Math.abs(r.statistic - 1 / 3) < 1e-15);
    assert.equal(r.method, 'exact');
    assert.equal(r.pvalue, 1);
    // perfect order of 5: p = 2/5! = 1/60
    assert.ok(Math.abs(kendallTau([1, 2, 3, 4, 5], [2, 4, 6, 8, 10]).pvalue - 1 / 60) < 1e-16);
    // n = 4, c = 2 concordant of 6: counts of permutations with <= 2 inversions = 1 + 3 + 5 = 9
    assert.ok(Math.abs(kendallExactP(4, 2) - (2 * 9) / 24) < 1e-15);
    assert.ok(Number.isNaN(kendallTau([1, 1, 1], [1, 2, 3]).statistic));
  });

  test("Cohen's kappa and KL by hand", () => {
    assert.ok(Math.abs(cohenKappa([1, 1, 0, 0], [1, 0, 0, 0]) - 0.5) < 1e-15);
    assert.equal(symmetricKl([1, 0], [0, 1]), Infinity);
    assert.ok(Math.abs(symmetricKl([1, 0], [0, 1], 1) - Math.log(2) / 3) < 1e-15);
    assert.ok(Math.abs(klDivergence([1, 1], [1, 3]) - (0.5 * Math.log(2) + 0.5 * Math.log(2 / 3))) < 1e-15);
  });

  test('summary and shared histogram', () => {
    const s = summarize([1, 2, 3, 4]);
    assert.equal(s.median, 2.5);
    assert.equal(s.q1, 1.75);
    const [h1, h2] = sharedHistogram([[0, 1, 1], [2]]);
    assert.deepEqual(h1.counts, [1, 2, 0]);
    assert.deepEqual(h2.counts, [0, 0, 1]);
  });
});
