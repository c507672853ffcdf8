import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  comparePopulations,
  compareFeature,
  closerSummary,
  splitHalfBaseline,
  allCloserSummaries,
} from '../../../src/core/metrics/plsa';
import type { FeatureTable } from '../../../src/core/metrics/features';
import { shortNames } from '../../../src/core/report/format';
import { mannWhitneyU } from '../../../src/core/stats/mannwhitney';
import { ks2samp } from '../../../src/core/stats/ks2samp';

function table(cols: Record<string, number[]>): FeatureTable {
  const features = Object.keys(cols);
  const n = cols[features[0]].length;
  return { features, n, values: Object.fromEntries(features.map((f) => [f, Float64Array.from(cols[f])])) };
}

describe('PLSA', () => {
  const ref = table({ num_turns: [1, 2, 3, 4, 5, 6], 'act:critique': [0, 0, 1, 0, NaN, 1] });
  const a = table({ num_turns: [2, 3, 4, 5, 6, 7, 8], 'act:critique': [0, 1, 1, 1, 2, 1, 0] });
  const b = table({ num_turns: [10, 11, 12, 13], 'act:critique': [5, 6, 7, 8] });

  test('each comparison equals the tests run directly, missing values dropped', () => {
    const r = comparePopulations({ file: 'h.jsonl', table: ref }, [
      { file: 'a.jsonl', table: a },
      { file: 'b.jsonl', table: b },
    ]);
    assert.deepEqual(r.reference, { file: 'h.jsonl', n: 6 });
    assert.equal(r.comparisons.length, 4);
    const c = r.comparisons.find((x) => x.candidate === 'a.jsonl' && x.feature === 'act:critique')!;
    const x = [0, 0, 1, 0, 1];
    const y = [0, 1, 1, 1, 2, 1, 0];
    assert.equal(c.n_reference, 5);
    assert.equal(c.reference_mean, 2 / 5);
    assert.equal(c.candidate_mean, 6 / 7);
    assert.equal(c.mwu_u, mannWhitneyU(x, y).statistic);
    assert.equal(c.mwu_p, mannWhitneyU(x, y).pvalue);
    assert.equal(c.ks_statistic, ks2samp(x, y).statistic);
    assert.equal(c.ks_p, ks2samp(x, y).pvalue);
  });

  test('empty side gives NaN statistics', () => {
    const c = compareFeature('f', 'c', Float64Array.from([1, 2]), Float64Array.from([NaN]));
    assert.ok(Number.isNaN(c.mwu_p) && Number.isNaN(c.ks_statistic) && Number.isNaN(c.candidate_mean));
  });

  test('closer-than summaries count lower KS and higher MWU p', () => {
    const r = comparePopulations({ file: 'h', table: ref }, [
      { file: 'a', table: a },
      { file: 'b', table: b },
    ]);
    const s = closerSummary(r, 'a', 'b');
    assert.deepEqual(s, { a: 'a', b: 'b', features: 2, ksCloser: 2, mwuCloser: 2 });
    assert.equal(closerSummary(r, 'b', 'a').ksCloser, 0);
    assert.equal(allCloserSummaries(r).length, 2);
  });

  test('split-half baseline: disjoint, seeded, deterministic', () => {
    const big = table({ v: Array.from({ length: 100 }, (_, i) => i) });
    const b1 = splitHalfBaseline(big, 'h', { size: 30, seed: 7 });
    const b2 = splitHalfBaseline(big, 'h', { size: 30, seed: 7 });
    const b3 = splitHalfBaseline(big, 'h', { size: 30, seed: 8 });
    assert.equal(b1.size, 30);
    assert.deepEqual(b1, b2);
    assert.notDeepEqual(b1.comparisons[0].mwu_p, b3.comparisons[0].mwu_p);
    // the two halves are disjoint: together they hold 60 distinct values of 0..99
    assert.equal(b1.comparisons[0].n_reference + b1.comparisons[0].n_candidate, 60);
    assert.equal(splitHalfBaseline(big, 'h', { size: 80 }).size, 50, 'clipped to half the population');
    assert.throws(() => splitHalfBaseline(table({ v: [1] }), 'h.jsonl'), /h\.jsonl: 1 conversation/);
  });

  test('display names', () => {
    assert.deepEqual([...shortNames(['a/x.jsonl', 'b/x.json', 'c.jsonl', 'c.jsonl']).values()], ['a/x', 'b/x', 'c']);
  });
});
