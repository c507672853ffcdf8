import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { computeReport } from '../../../src/core/report/compute';
import { renderMarkdown } from '../../../src/core/report/render/markdown';
import {
  parseReport,
  type ChartSection,
  type Report,
  type TableSection,
  type TextSection,
} from '../../../src/core/report/model';
import { syntheticPopulation, DEMO_PROFILES } from '../../../src/core/metrics/synthetic';
import { tempDir, writeJsonl as write } from '../report/fixtures';

/**
 * The report pipeline the CLI and the panels share (`computeReport` → builders → renderers),
 * checked against numbers worked out independently.
 */
const table = (r: Report, id: string) => r.sections.find((s): s is TableSection => s.type === 'table' && s.id === id)!;
const chart = (r: Report, id: string) => r.sections.find((s): s is ChartSection => s.type === 'chart' && s.id === id)!;
const text = (r: Report, id: string) => r.sections.find((s): s is TextSection => s.type === 'text' && s.id === id)!;

describe('report pipeline', () => {
  test('PLSA of synthetic populations: tests, summaries, baseline and chart data', async (t) => {
    const { dir, cleanup } = tempDir();
    t.after(cleanup);
    write(dir, 'h.jsonl', syntheticPopulation(DEMO_PROFILES.human, 80, 3));
    write(dir, 'p.jsonl', syntheticPopulation(DEMO_PROFILES.prompted, 60, 3));
    write(dir, 's.jsonl', syntheticPopulation(DEMO_PROFILES.sft, 60, 3));
    const r = await computeReport(
      {
        kind: 'plsa',
        reference: { file: 'h.jsonl' },
        candidates: [{ file: 'p.jsonl' }, { file: 's.jsonl' }],
        baselineSize: 30,
      },
      { cwd: dir },
    );
    const plain = JSON.parse(JSON.stringify(r));
    assert.deepEqual(parseReport(plain), plain, 'the report is plain, valid data');
    assert.equal(table(r, 'plsa-comparisons').rows.length, 22);
    assert.equal(text(r, 'plsa-summary').paragraphs.filter((p) => / is closer to h than /.test(p)).length, 2);
    assert.equal(table(r, 'plsa-baseline').rows.length, 11);
    assert.match(table(r, 'plsa-baseline').caption!, /halves of 30 conversations/);
    const hist = r.sections.filter((s): s is ChartSection => s.type === 'chart' && s.id.startsWith('hist-'));
    assert.equal(hist.length, 11);
    assert.equal(hist[0].id, 'hist-num_turns');
    assert.deepEqual(
      hist[0].series.map((s) => s.name),
      ['h', 'p', 's'],
    );
    for (const s of hist[0].series)
      assert.ok(
        Math.abs(s.values!.reduce((a, v) => a! + (v ?? 0), 0)! - 1) < 1e-12,
        'shares of one population sum to 1',
      );
  });

  test('PLSA on hand-made populations: tests, summaries, bins, closer-than and Markdown', async (t) => {
    // Conversation = [user turns, words in every user utterance]; so num_turns and
    // user_words_per_turn are exactly these two numbers.
    const { dir, cleanup } = tempDir();
    t.after(cleanup);
    const rows = {
      ref: [
        [1, 2],
        [3, 4],
        [5, 9],
      ],
      a: [
        [2, 1],
        [4, 3],
        [6, 5],
        [8, 7],
      ],
      far: [
        [6, 10],
        [7, 11],
        [8, 12],
        [9, 13],
      ],
    } as Record<string, [number, number][]>;
    for (const [name, rs] of Object.entries(rows)) {
      write(
        dir,
        `${name}.jsonl`,
        rs.map(([turns, words], i) => ({
          id: `${name}-${i}`,
          turns: Array.from({ length: turns }, () => ({
            user_utterance: Array(words).fill('word').join(' '),
            assistant_utterance: 'ok',
          })),
        })),
      );
    }
    const features = ['num_turns', 'user_words_per_turn'];
    const r = await computeReport(
      {
        kind: 'plsa',
        reference: { file: 'ref.jsonl' },
        candidates: [{ file: 'a.jsonl' }, { file: 'far.jsonl' }],
        features,
        baseline: false,
      },
      { cwd: dir },
    );

    // Every statistic against an exhaustive permutation computation (no ties, so SciPy's exact
    // methods apply): all C(7, 3) = 35 ways to split the pooled 7 values into 3 + 4.
    const column = (name: string, f: string) => rows[name].map(([turns, words]) => (f === 'num_turns' ? turns : words));
    const byHand = (x: number[], y: number[]) => {
      const u1 = (xs: number[], ys: number[]) => xs.reduce((s, v) => s + ys.filter((w) => v > w).length, 0);
      // n1·n2·D as an integer: max over pooled values of |n2·#(x <= v) - n1·#(y <= v)|
      const scaledD = (xs: number[], ys: number[]) =>
        Math.max(
          ...[...xs, ...ys].map((v) =>
            Math.abs(ys.length * xs.filter((w) => w <= v).length - xs.length * ys.filter((w) => w <= v).length),
          ),
        );
      const pooled = [...x, ...y];
      const mid = (x.length * y.length) / 2;
      const u = u1(x, y);
      const d = scaledD(x, y);
      let asFarU = 0;
      let asFarD = 0;
      let splits = 0;
      for (let i = 0; i < pooled.length; i++)
        for (let j = i + 1; j < pooled.length; j++)
          for (let k = j + 1; k < pooled.length; k++) {
            const xs = [pooled[i], pooled[j], pooled[k]];
            const ys = pooled.filter((_, m) => m !== i && m !== j && m !== k);
            splits++;
            if (Math.abs(u1(xs, ys) - mid) >= Math.abs(u - mid)) asFarU++;
            if (scaledD(xs, ys) >= d) asFarD++;
          }
      return { u, d: d / (x.length * y.length), mwuP: asFarU / splits, ksP: asFarD / splits, splits };
    };
    assert.deepEqual(
      r.inputs.map((x) => [x.label, x.n]),
      [
        ['ref', 3],
        ['a', 4],
        ['far', 4],
      ],
    );
    const comps = table(r, 'plsa-comparisons');
    assert.deepEqual(
      comps.columns.map((c) => c.key),
      [
        'feature',
        'candidate',
        'reference_mean',
        'candidate_mean',
        'mwu_u',
        'mwu_p',
        'ks_statistic',
        'ks_p',
        'n_reference',
        'n_candidate',
      ],
    );
    assert.equal(comps.rows.length, 4);
    for (const cand of ['a', 'far']) {
      for (const f of features) {
        const x = column('ref', f);
        const y = column(cand, f);
        const [, , refMean, candMean, u, mwuP, ksD, ksP, nRef, nCand] = comps.rows.find(
          (row) => row.cells[0] === f && row.cells[1] === cand,
        )!.cells as number[];
        const h = byHand(x, y);
        assert.equal(h.splits, 35);
        const label = `${cand} ${f}`;
        assert.equal(nRef, 3, label);
        assert.equal(nCand, 4, label);
        assert.equal(refMean, x.reduce((s, v) => s + v, 0) / 3, label);
        assert.equal(candMean, y.reduce((s, v) => s + v, 0) / 4, label);
        assert.equal(u, h.u, label);
        assert.ok(Math.abs(mwuP - h.mwuP) < 1e-12, `${label}: MWU p ${mwuP} vs ${h.mwuP}`);
        assert.ok(Math.abs(ksD - h.d) < 1e-15, `${label}: KS D ${ksD} vs ${h.d}`);
        assert.ok(Math.abs(ksP - h.ksP) < 1e-12, `${label}: KS p ${ksP} vs ${h.ksP}`);
      }
    }
    // The same numbers worked out on paper for num_turns, ref [1, 3, 5] vs a [2, 4, 6, 8]:
    // U1 = 3 (3 > 2; 5 > 2, 4); 7 of 35 splits have U1 <= 3, 7 have U1 >= 9, so p = 14/35;
    // the ECDFs differ most at 5 (3/3 - 2/4), D = 1/2, reached or passed by 23 of 35 splits.
    const nt = comps.rows.find((row) => row.cells[0] === 'num_turns' && row.cells[1] === 'a')!.cells as number[];
    assert.deepEqual([nt[4], nt[6]], [3, 0.5]);
    assert.ok(Math.abs(nt[5] - 14 / 35) < 1e-12 && Math.abs(nt[7] - 23 / 35) < 1e-12);

    // a is closer than far on both features by both tests; far on none.
    const closer = text(r, 'plsa-summary').paragraphs.filter((p) => / is closer to ref than /.test(p));
    assert.deepEqual(closer, [
      'a is closer to ref than far on 2 of 2 features by KS D (lower) and 2 of 2 by MWU p (higher).',
      'far is closer to ref than a on 0 of 2 features by KS D (lower) and 0 of 2 by MWU p (higher).',
    ]);

    // Chart data: integers in a small range get one bin per value, shared by all populations;
    // a bar is the population's share of conversations with that value.
    const turns = chart(r, 'hist-num_turns');
    assert.deepEqual(turns.categories, ['1', '2', '3', '4', '5', '6', '7', '8', '9']);
    assert.deepEqual(
      turns.series.map((s) => [s.name, s.values]),
      [
        ['ref', [1 / 3, 0, 1 / 3, 0, 1 / 3, 0, 0, 0, 0]],
        ['a', [0, 1 / 4, 0, 1 / 4, 0, 1 / 4, 0, 1 / 4, 0]],
        ['far', [0, 0, 0, 0, 0, 1 / 4, 1 / 4, 1 / 4, 1 / 4]],
      ],
    );
    const words = chart(r, 'hist-user_words_per_turn');
    assert.equal(words.categories.length, 13, 'values 1..13: 13 bins');
    assert.deepEqual(words.series[2].values, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0.25, 0.25, 0.25, 0.25]);

    // The wide table, as Markdown: means, MWU p and KS D per candidate, the closest marked bold.
    const md = renderMarkdown(r, { omitCharts: true });
    assert.ok(md.includes('| Feature | ref mean | a mean | a MWU p | a KS D | far mean | far MWU p | far KS D |'), md);
    assert.ok(md.includes('| Num turns | 3.000 | 5.000 | **0.400** | **0.500** | 7.500 | 0.057 | 1.000 |'), md);
    assert.ok(md.includes('| Num user words | 5.000 | 4.000 | **0.857** | **0.333** | 11.500 | 0.057 | 1.000 |'), md);
    assert.ok(
      md.includes('a is closer to ref than far on 2 of 2 features by KS D (lower) and 2 of 2 by MWU p (higher).'),
      md,
    );
    assert.match(md, /\d+ charts not shown \(the JSON report has their data\)\./);
  });

  test('human-likeness and counterfactual reports', async (t) => {
    const { dir, cleanup } = tempDir();
    t.after(cleanup);
    write(dir, 'h.jsonl', [
      ...syntheticPopulation({ ...DEMO_PROFILES.human, condition: 'good' }, 30, 3),
      ...syntheticPopulation({ ...DEMO_PROFILES.human, frustrated: 0.4, condition: 'bad' }, 30, 3),
    ]);
    write(dir, 's.jsonl', [
      ...syntheticPopulation({ ...DEMO_PROFILES.sft, condition: 'good' }, 30, 3),
      ...syntheticPopulation({ ...DEMO_PROFILES.sft, condition: 'bad' }, 30, 3),
    ]);
    write(dir, 'only-good.jsonl', syntheticPopulation({ ...DEMO_PROFILES.sft, condition: 'good' }, 10, 3));
    const h = await computeReport(
      { kind: 'human-likeness', human: { file: 'h.jsonl' }, simulated: [{ file: 's.jsonl' }], folds: 4, scores: true },
      { cwd: dir },
    );
    assert.equal(h.params?.folds, 4);
    assert.equal(table(h, 'hls-folds').rows.length, 4);
    assert.ok(chart(h, 'hls-curve-s').categories.length > 0);
    const scores = table(h, 'hls-scores');
    assert.equal(scores.rows.length, 120);
    assert.deepEqual(scores.rows[0].link, { input: 0, conversation: scores.rows[0].cells[0], line: 1 });
    const c = await computeReport(
      {
        kind: 'counterfactual',
        human: { file: 'h.jsonl' },
        simulators: [{ label: 's', from: { file: 's.jsonl' }, to: { file: 's.jsonl' } }],
        from: 'good',
        to: 'bad',
        features: ['num_turns'],
      },
      { cwd: dir },
    );
    assert.equal(table(c, 'cf-shifts').rows.length, 1);
    await assert.rejects(
      computeReport(
        {
          kind: 'counterfactual',
          human: { file: 'h.jsonl' },
          simulators: [{ label: 'g', from: { file: 'only-good.jsonl' }, to: { file: 'only-good.jsonl' } }],
          from: 'good',
          to: 'bad',
        },
        { cwd: dir },
      ),
      /only-good\.jsonl: no conversations match condition=bad/,
    );
  });
});
