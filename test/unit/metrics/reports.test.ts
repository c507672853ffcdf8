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
    // the bundle is plain data: it survives a JSON round trip unchanged
    assert.deepEqual(JSON.parse(JSON.stringify(b)), b);
  });

  test('buildPlsa on hand-made populations: tests, summaries, bins, closer-than and Markdown', () => {
    // Conversation = [user turns, words in every user utterance]; so num_turns and
    // user_words_per_turn are exactly these two numbers.
    const make = (file: string, rows: [number, number][]): Population => ({
      file,
      conversations: rows.map(([turns, words], i) => ({
        id: `${file}-${i}`,
        turns: Array.from({ length: turns }, () => ({ user_utterance: Array(words).fill('word').join(' '), assistant_utterance: 'ok' })),
      })),
      problems: [],
      warnings: [],
    });
    const ref = make('ref.jsonl', [[1, 2], [3, 4], [5, 9]]);
    const a = make('a.jsonl', [[2, 1], [4, 3], [6, 5], [8, 7]]);
    const far = make('far.jsonl', [[6, 10], [7, 11], [8, 12], [9, 13]]);
    const features = ['num_turns', 'user_words_per_turn'];
    const b = buildPlsa(ref, [a, far], { features });

    // Every statistic against an exhaustive permutation computation (no ties, so SciPy's exact
    // methods apply): all C(7, 3) = 35 ways to split the pooled 7 values into 3 + 4.
    const column = (p: Population, f: string) => p.conversations.map((c) => (f === 'num_turns' ? c.turns.length : c.turns[0].user_utterance!.split(' ').length));
    const byHand = (x: number[], y: number[]) => {
      const u1 = (xs: number[], ys: number[]) => xs.reduce((s, v) => s + ys.filter((w) => v > w).length, 0);
      // n1·n2·D as an integer: max over pooled values of |n2·#(x <= v) - n1·#(y <= v)|
      const scaledD = (xs: number[], ys: number[]) => Math.max(...[...xs, ...ys].map((v) => Math.abs(ys.length * xs.filter((w) => w <= v).length - xs.length * ys.filter((w) => w <= v).length)));
      const pooled = [...x, ...y];
      const mid = (x.length * y.length) / 2;
      const u = u1(x, y);
      const d = scaledD(x, y);
      let asFarU = 0;
      let asFarD = 0;
      let splits = 0;
      for (let i = 0; i < pooled.length; i++) for (let j = i + 1; j < pooled.length; j++) for (let k = j + 1; k < pooled.length; k++) {
        const xs = [pooled[i], pooled[j], pooled[k]];
        const ys = pooled.filter((_, m) => m !== i && m !== j && m !== k);
        splits++;
        if (Math.abs(u1(xs, ys) - mid) >= Math.abs(u - mid)) asFarU++;
        if (scaledD(xs, ys) >= d) asFarD++;
      }
      return { u, d: d / (x.length * y.length), mwuP: asFarU / splits, ksP: asFarD / splits, splits };
    };
    assert.deepEqual(b.report.features, features);
    assert.deepEqual(b.report.reference, { file: 'ref.jsonl', n: 3 });
    assert.deepEqual(b.report.candidates, [{ file: 'a.jsonl', n: 4 }, { file: 'far.jsonl', n: 4 }]);
    assert.equal(b.report.comparisons.length, 4);
    for (const cand of [a, far]) {
      for (const f of features) {
        const x = column(ref, f);
        const y = column(cand, f);
        const c = b.report.comparisons.find((r) => r.candidate === cand.file && r.feature === f)!;
        const h = byHand(x, y);
        assert.equal(h.splits, 35);
        const label = `${cand.file} ${f}`;
        assert.equal(c.n_reference, 3, label);
        assert.equal(c.n_candidate, 4, label);
        assert.equal(c.reference_mean, x.reduce((s, v) => s + v, 0) / 3, label);
        assert.equal(c.candidate_mean, y.reduce((s, v) => s + v, 0) / 4, label);
        assert.equal(c.mwu_u, h.u, label);
        assert.ok(Math.abs(c.mwu_p - h.mwuP) < 1e-12, `${label}: MWU p ${c.mwu_p} vs ${h.mwuP}`);
        assert.ok(Math.abs(c.ks_statistic - h.d) < 1e-15, `${label}: KS D ${c.ks_statistic} vs ${h.d}`);
        assert.ok(Math.abs(c.ks_p - h.ksP) < 1e-12, `${label}: KS p ${c.ks_p} vs ${h.ksP}`);
      }
    }
    // The same numbers worked out on paper for num_turns, ref [1, 3, 5] vs a [2, 4, 6, 8]:
    // U1 = 3 (3 > 2; 5 > 2, 4); 7 of 35 splits have U1 <= 3, 7 have U1 >= 9, so p = 14/35;
    // the ECDFs differ most at 5 (3/3 - 2/4), D = 1/2, reached or passed by 23 of 35 splits.
    const nt = b.report.comparisons.find((r) => r.candidate === 'a.jsonl' && r.feature === 'num_turns')!;
    assert.deepEqual([nt.mwu_u, nt.ks_statistic], [3, 0.5]);
    assert.ok(Math.abs(nt.mwu_p - 14 / 35) < 1e-12 && Math.abs(nt.ks_p - 23 / 35) < 1e-12);

    // a is closer than far on both features by both tests; far on none.
    assert.deepEqual(b.closer, [
      { a: 'a.jsonl', b: 'far.jsonl', features: 2, ksCloser: 2, mwuCloser: 2 },
      { a: 'far.jsonl', b: 'a.jsonl', features: 2, ksCloser: 0, mwuCloser: 0 },
    ]);

    // Chart data: integers in a small range get one bin per value, shared by all populations.
    const [turns, words] = b.distributions;
    assert.equal(turns.feature, 'num_turns');
    assert.deepEqual(turns.populations[0].histogram.edges, [0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5]);
    assert.deepEqual(turns.populations.map((p) => [p.file, p.histogram.counts]), [
      ['ref.jsonl', [1, 0, 1, 0, 1, 0, 0, 0, 0]],
      ['a.jsonl', [0, 1, 0, 1, 0, 1, 0, 1, 0]],
      ['far.jsonl', [0, 0, 0, 0, 0, 1, 1, 1, 1]],
    ]);
    // ref [1, 3, 5]: mean 3, sample sd 2, quartiles by linear interpolation
    assert.deepEqual(turns.populations[0].summary, { n: 3, mean: 3, sd: 2, min: 1, q1: 2, median: 3, q3: 4, max: 5 });
    // a [2, 4, 6, 8]: sd = sqrt(20/3), q1 at position 0.75 = 3.5, q3 at 2.25 = 6.5
    assert.deepEqual(turns.populations[1].summary, { n: 4, mean: 5, sd: Math.sqrt(20 / 3), min: 2, q1: 3.5, median: 5, q3: 6.5, max: 8 });
    assert.equal(words.feature, 'user_words_per_turn');
    assert.equal(words.populations[0].histogram.edges.length, 14, 'values 1..13: 13 bins');
    assert.deepEqual(words.populations[2].histogram.counts, [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1]);

    // The Markdown table: one MWU p / KS pair per candidate, three decimals.
    const md = plsaBundleMarkdown(b);
    assert.ok(md.includes('Reference: ref.jsonl (n = 3); a: a.jsonl (n = 4); far: far.jsonl (n = 4).'), md);
    assert.ok(md.includes('| Metric | ref–a MWU p | ref–a KS stat | ref–far MWU p | ref–far KS stat |'), md);
    assert.ok(md.includes('| Num turns | 0.400 | 0.500 | 0.057 | 1.000 |'), md);
    assert.ok(md.includes('| Num user words | 0.857 | 0.333 | 0.057 | 1.000 |'), md);
    assert.ok(md.includes('- a is closer to the reference than far on 2 of 2 features by KS statistic (lower), and on 2 of 2 by MWU p (higher).'), md);
  });

  test('featureDistributions skip missing values', () => {
    const table = { features: ['x'], n: 3, values: { x: Float64Array.from([1, NaN, 3]) } };
    const [d] = featureDistributions([{ file: 'a', table }], ['x']);
    assert.equal(d.populations[0].summary.n, 2);
    assert.equal(d.populations[0].summary.mean, 2);
    assert.deepEqual(d.populations[0].histogram, { edges: [0.5, 1.5, 2.5, 3.5], counts: [1, 0, 1] });
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
