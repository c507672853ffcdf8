import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { loadReference, close } from './reference';
import { mannWhitneyU } from '../../../src/core/stats/mannwhitney';
import { ks2samp } from '../../../src/core/stats/ks2samp';
import { kendallTau } from '../../../src/core/stats/kendall';
import { cohenKappa, klDivergence } from '../../../src/core/stats/agreement';

interface TwoSample {
  name: string;
  x: number[];
  y: number[];
  mannwhitneyu: { statistic: number; pvalue: number; method_used: string };
  ks_2samp: { statistic: number; pvalue: number; method_used: string; exact_fell_back_to_asymp: boolean };
}
interface Vectors {
  two_sample: TwoSample[];
  kendall: {
    name: string;
    x: number[];
    y: number[];
    statistic: number | string | null;
    pvalue: number | string | null;
    method_used: string;
  }[];
  cohen_kappa: { name: string; a: (number | string)[]; b: (number | string)[]; kappa: number }[];
  kl_divergence: { name: string; p: number[]; q: number[]; kl_nats: number | string; kl_bits: number | string }[];
}

const vectors = loadReference<Vectors>('vectors.json');

const num = (v: number | string | null): number =>
  v === null ? NaN : typeof v === 'number' ? v : v === 'Infinity' ? Infinity : v === '-Infinity' ? -Infinity : NaN;

// p-values are compared relative to the value (they reach 1e-179 here).
const RTOL = 1e-12;

describe('SciPy reference vectors', () => {
  test('Mann-Whitney U: statistic, p-value and method for every case', () => {
    assert.ok(vectors.two_sample.length >= 30);
    for (const c of vectors.two_sample) {
      const r = mannWhitneyU(c.x, c.y);
      assert.equal(r.method, c.mannwhitneyu.method_used, `${c.name}: method`);
      assert.ok(
        close(r.statistic, c.mannwhitneyu.statistic, 0, 1e-9),
        `${c.name}: U ${r.statistic} vs ${c.mannwhitneyu.statistic}`,
      );
      assert.ok(
        close(r.pvalue, c.mannwhitneyu.pvalue, RTOL, 1e-300),
        `${c.name}: p ${r.pvalue} vs ${c.mannwhitneyu.pvalue}`,
      );
    }
  });

  test('two-sample KS: statistic, p-value, method and fallback for every case', () => {
    for (const c of vectors.two_sample) {
      const r = ks2samp(c.x, c.y);
      assert.equal(r.method, c.ks_2samp.method_used, `${c.name}: method`);
      assert.equal(r.fellBack, c.ks_2samp.exact_fell_back_to_asymp, `${c.name}: fallback`);
      assert.ok(
        close(r.statistic, c.ks_2samp.statistic, 1e-15, 1e-15),
        `${c.name}: D ${r.statistic} vs ${c.ks_2samp.statistic}`,
      );
      assert.ok(close(r.pvalue, c.ks_2samp.pvalue, RTOL, 1e-300), `${c.name}: p ${r.pvalue} vs ${c.ks_2samp.pvalue}`);
    }
  });

  test("Kendall's tau-b: statistic, p-value and method", () => {
    for (const c of vectors.kendall) {
      const r = kendallTau(c.x, c.y);
      const tau = num(c.statistic);
      const p = num(c.pvalue);
      assert.ok(close(r.statistic, tau, 1e-13, 1e-15), `${c.name}: tau ${r.statistic} vs ${tau}`);
      assert.ok(close(r.pvalue, p, RTOL, 1e-300), `${c.name}: p ${r.pvalue} vs ${p}`);
      if (!Number.isNaN(tau)) assert.equal(r.method, c.method_used, `${c.name}: method`);
    }
  });

  test("Cohen's kappa", () => {
    for (const c of vectors.cohen_kappa) {
      const k = cohenKappa(c.a, c.b);
      assert.ok(close(k, c.kappa, 1e-13, 1e-15), `${c.name}: ${k} vs ${c.kappa}`);
    }
  });

  test('KL divergence in nats and bits', () => {
    for (const c of vectors.kl_divergence) {
      assert.ok(close(klDivergence(c.p, c.q), num(c.kl_nats), 1e-13, 1e-16), `${c.name}: nats`);
      assert.ok(close(klDivergence(c.p, c.q, 2), num(c.kl_bits), 1e-13, 1e-16), `${c.name}: bits`);
    }
  });
});
