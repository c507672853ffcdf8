import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { loadReference, close } from './reference';
import {
  wilcoxonSignedRank,
  wilcoxonNullPmf,
  mcnemarExact,
  binomialPmf,
  bootstrapMeanInterval,
} from '../../../src/core/stats/paired';

interface Paired {
  generated_with: { scipy: string };
  wilcoxon: {
    label: string;
    d: number[];
    statistic?: number | string;
    pvalue?: number | string;
    method: string;
    error?: string;
  }[];
  mcnemar: { b: number; c: number; statistic: number; pvalue: number | string }[];
}
const ref = loadReference<Paired>('paired.json');
const num = (v: number | string | undefined): number =>
  v === undefined ? NaN : typeof v === 'number' ? v : v === 'Infinity' ? Infinity : v === '-Infinity' ? -Infinity : NaN;

describe('paired tests against SciPy (test/fixtures/stats/paired.json)', () => {
  test('Wilcoxon signed-rank: statistic, p-value (1e-9) and method for every case', () => {
    const methods = new Set<string>();
    assert.ok(ref.wilcoxon.length >= 150);
    for (const c of ref.wilcoxon) {
      if (c.error) {
        assert.throws(() => wilcoxonSignedRank(c.d), RangeError, c.label);
        continue;
      }
      const r = wilcoxonSignedRank(c.d);
      methods.add(r.method);
      assert.equal(r.method, c.method, `${c.label}: method`);
      assert.ok(close(r.statistic, num(c.statistic), 0, 1e-9), `${c.label}: T ${r.statistic} vs ${c.statistic}`);
      assert.ok(close(r.pvalue, num(c.pvalue), 1e-9, 1e-300), `${c.label}: p ${r.pvalue} vs ${c.pvalue}`);
    }
    assert.deepEqual([...methods].sort(), ['asymptotic', 'exact', 'permutation']);
  });

  test('McNemar exact: statistic and p-value (1e-9 relative) for every case', () => {
    for (const c of ref.mcnemar) {
      const r = mcnemarExact(c.b, c.c);
      assert.equal(r.statistic, c.statistic);
      assert.ok(close(r.pvalue, num(c.pvalue), 1e-9, 1e-300), `b=${c.b} c=${c.c}: p ${r.pvalue} vs ${c.pvalue}`);
    }
  });
});

describe('paired tests by hand', () => {
  test('the exact null pmf sums to 1 and is symmetric', () => {
    for (const n of [1, 5, 17, 50]) {
      const pmf = wilcoxonNullPmf(n);
      let s = 0;
      for (let i = 0; i < pmf.length; i++) {
        s += pmf[i];
        assert.ok(Math.abs(pmf[i] - pmf[pmf.length - 1 - i]) < 1e-15);
      }
      assert.ok(Math.abs(s - 1) < 1e-12);
    }
    // n = 3: R+ in {0,1,2,3,3,4,5,6} over 8 sign assignments
    assert.deepEqual(
      [...wilcoxonNullPmf(3)].map((p) => p * 8),
      [1, 1, 1, 2, 1, 1, 1],
    );
  });

  test('swapping A and B leaves the p-value unchanged', () => {
    const d = [3, -1, 2, 0, 5, 2, -4, 1, 1, 6, 0, 2, 3, 7, -1, 2];
    const a = wilcoxonSignedRank(d);
    const b = wilcoxonSignedRank(d.map((v) => -v));
    assert.equal(a.pvalue, b.pvalue);
    assert.equal(a.rPlus, b.rMinus);
  });

  test('binomial pmf sums to 1 for large n and McNemar with no discordant pair is 1', () => {
    for (const n of [1, 7, 40, 1001, 100000]) {
      let s = 0;
      for (let k = 0; k <= n; k++) s += binomialPmf(k, n, 0.5);
      assert.ok(Math.abs(s - 1) < 1e-12, `n=${n}: ${s}`);
    }
    assert.equal(mcnemarExact(0, 0).pvalue, 1);
    assert.throws(() => mcnemarExact(-1, 3), /b must be a non-negative integer/);
  });

  test('bootstrap interval: seeded, contains the mean, narrows with n', () => {
    const d = Array.from({ length: 200 }, (_, i) => ((i * 37) % 11) - 4);
    const a = bootstrapMeanInterval(d, { seed: 's', resamples: 500 });
    const b = bootstrapMeanInterval(d, { seed: 's', resamples: 500 });
    assert.deepEqual(a, b);
    assert.ok(a.low <= a.mean && a.mean <= a.high && a.low < a.high);
    const c = bootstrapMeanInterval(d, { seed: 'other', resamples: 500 });
    assert.notDeepEqual([a.low, a.high], [c.low, c.high]);
    const big = bootstrapMeanInterval([...d, ...d, ...d, ...d], { seed: 's', resamples: 500 });
    assert.ok(big.high - big.low < a.high - a.low);
    const constant = bootstrapMeanInterval([2, 2, 2], { seed: 's', resamples: 50 });
    assert.deepEqual([constant.low, constant.high], [2, 2]);
  });
});
