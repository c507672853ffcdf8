import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { PlsaComparison, PlsaReport, BaselineReport } from '../../../src/core/metrics/plsa';
import type { ClassificationMetrics, HlsCrossValidation } from '../../../src/core/metrics/hls';
import type { CounterfactualReport, FeatureShift } from '../../../src/core/metrics/counterfactual';
import type { FeatureTable } from '../../../src/core/metrics/features';
import { buildPlsaReport, plsaCandidateSummaries } from '../../../src/core/report/builders/plsa';
import { buildHlsReport, meanSimulatedHls } from '../../../src/core/report/builders/hls';
import { buildCounterfactualReport, directionAgreement } from '../../../src/core/report/builders/counterfactual';
import { buildSimulationReport } from '../../../src/core/report/builders/simulation';
import { fixedBinShares } from '../../../src/core/report/builders/charts';
import {
  parseReport,
  type ChartSection,
  type Report,
  type TableSection,
  type TextSection,
} from '../../../src/core/report/model';

function cmp(feature: string, candidate: string, p: number, d: number, refMean = 1, candMean = 1): PlsaComparison {
  return {
    feature,
    candidate,
    reference_mean: refMean,
    candidate_mean: candMean,
    mwu_u: 10,
    mwu_p: p,
    ks_statistic: d,
    ks_p: p,
    n_reference: 5,
    n_candidate: 5,
  };
}

/** Two candidates over three features: A is closer on f1 and f2, B on f3; f3 has no stats for A. */
const plsa: PlsaReport = {
  reference: { file: 'human.jsonl', n: 5 },
  candidates: [
    { file: 'simA.jsonl', n: 5 },
    { file: 'simB.jsonl', n: 5 },
  ],
  features: ['num_turns', 'act:critique', 'act:other'],
  comparisons: [
    cmp('num_turns', 'simA.jsonl', 0.4, 0.1, 3, 3.2),
    cmp('act:critique', 'simA.jsonl', 0.2, 0.2),
    cmp('act:other', 'simA.jsonl', 0.01, 0.6),
    cmp('num_turns', 'simB.jsonl', 0.03, 0.5, 3, 5),
    cmp('act:critique', 'simB.jsonl', 0.001, 0.7),
    cmp('act:other', 'simB.jsonl', 0.2, 0.3),
  ],
};

function table(report: Report, prefix: string): TableSection {
  const s = report.sections.find((x) => x.id.startsWith(prefix));
  assert.ok(s && s.type === 'table', `table ${prefix}`);
  return s as TableSection;
}

function chart(report: Report, prefix: string): ChartSection {
  const s = report.sections.find((x) => x.id.startsWith(prefix));
  assert.ok(s && s.type === 'chart', `chart ${prefix}`);
  return s as ChartSection;
}

function featureTableOf(values: Record<string, number[]>): FeatureTable {
  const features = Object.keys(values);
  return {
    features,
    n: values[features[0]].length,
    values: Object.fromEntries(features.map((f) => [f, Float64Array.from(values[f])])),
  };
}

describe('PLSA report builder', () => {
  test('counts features above alpha and the closer-than summaries', () => {
    const s = plsaCandidateSummaries(plsa, 0.05);
    assert.deepEqual(
      s.map((x) => [x.label, x.mwuAboveAlpha, x.features]),
      [
        ['simA', 2, 3],
        ['simB', 1, 3],
      ],
    );
    assert.ok(Math.abs(s[0].meanKs - 0.3) < 1e-12);
    const report = parseReport(buildPlsaReport({ plsa, generated: '2026-01-01T00:00:00Z' }));
    const summary = report.sections.find((x) => x.type === 'text') as TextSection;
    const text = summary.paragraphs.join('\n');
    assert.match(text, /simA: 2 of 3 features show no significant difference from human/);
    assert.match(text, /simA is closer to human than simB on 2 of 3 features by KS D \(lower\) and 2 of 3 by MWU p/);
    assert.match(text, /simB is closer to human than simA on 1 of 3 features by KS D/);
  });

  test('marks the closest candidate per row and far p-values', () => {
    const report = buildPlsaReport({ plsa });
    const t = table(report, 'plsa-table');
    assert.deepEqual(
      t.columns.map((c) => c.label),
      ['Feature', 'human mean', 'simA mean', 'simA MWU p', 'simA KS D', 'simB mean', 'simB MWU p', 'simB KS D'],
    );
    const [turns, critique, other] = t.rows;
    assert.equal(turns.cells[0], 'Num turns');
    assert.equal(turns.marks?.[3], 'closest'); // simA p 0.4 > simB 0.03
    assert.equal(turns.marks?.[4], 'closest'); // simA D 0.1 < 0.5
    assert.equal(turns.marks?.[6], 'far'); // simB p 0.03 <= 0.05
    assert.equal(turns.marks?.[7], null);
    assert.equal(critique.marks?.[3], 'closest');
    assert.equal(other.marks?.[6], 'closest'); // simB p 0.2 > 0.01
    assert.equal(other.marks?.[7], 'closest');
    assert.equal(other.marks?.[3], 'far');
  });

  test('NaN statistics become null and are never marked closest', () => {
    const withNaN: PlsaReport = {
      ...plsa,
      comparisons: plsa.comparisons.map((c) =>
        c.candidate === 'simA.jsonl' && c.feature === 'act:other' ? { ...c, mwu_p: NaN, ks_statistic: NaN } : c,
      ),
    };
    const report = parseReport(buildPlsaReport({ plsa: withNaN }));
    const other = table(report, 'plsa-table').rows[2];
    assert.equal(other.cells[3], null);
    assert.equal(other.marks?.[3], null);
    // only one finite value left in the row: no "closest" mark at all
    assert.equal(other.marks?.[6], 'close');
    assert.equal(plsaCandidateSummaries(withNaN)[0].features, 2);
  });

  test('baseline table, overview charts and distribution charts', () => {
    const baseline: BaselineReport = {
      size: 2,
      seed: 7,
      comparisons: plsa.features.map((f, i) => cmp(f, 'human (half B)', 0.9, 0.05 * (i + 1))),
    };
    const distributions = [
      {
        file: 'human.jsonl',
        table: featureTableOf({
          num_turns: [1, 2, 2, 3, 3],
          'act:critique': [0, 0, 1, 1, 1],
          'act:other': [0, 0, 0, 0, 0],
        }),
      },
      {
        file: 'simA.jsonl',
        table: featureTableOf({
          num_turns: [2, 2, 2, 2, 4],
          'act:critique': [1, 1, 1, 1, 1],
          'act:other': [0, 1, 0, 0, 0],
        }),
      },
      {
        file: 'simB.jsonl',
        table: featureTableOf({
          num_turns: [5, 5, 6, 6, 7],
          'act:critique': [0, 0, 0, 0, 0],
          'act:other': [NaN, NaN, 1, 1, 1],
        }),
      },
    ];
    const report = parseReport(buildPlsaReport({ plsa, baseline, distributions }));
    const b = table(report, 'plsa-baseline');
    assert.equal(b.rows.length, 3);
    assert.match(report.sections.find((s) => s.type === 'text')!.type, /text/);
    const ks = chart(report, 'plsa-ks');
    assert.deepEqual(
      ks.series.map((s) => s.name),
      ['simA', 'simB', 'human split-half'],
    );
    assert.deepEqual(ks.series[0].values, [0.1, 0.2, 0.6]);
    assert.deepEqual(chart(report, 'plsa-mwu').references, [{ value: 0.05, label: 'alpha = 0.05' }]);
    const hist = chart(report, 'hist-num_turns');
    assert.deepEqual(hist.categories, ['1', '2', '3', '4', '5', '6', '7']);
    assert.deepEqual(hist.series[0].values, [0.2, 0.4, 0.4, 0, 0, 0, 0]);
    assert.deepEqual(hist.series[2].values, [0, 0, 0, 0, 0.4, 0.4, 0.2]);
    // missing values are left out of the shares
    const other = chart(report, 'hist-act-other');
    assert.deepEqual(other.series[2].values, [0, 1]);
    const box = parseReport(buildPlsaReport({ plsa, distributions, chart: 'box' }));
    const bx = chart(box, 'box-num_turns');
    assert.equal(bx.chart, 'box');
    assert.deepEqual(bx.categories, ['human', 'simA', 'simB']);
    assert.deepEqual(bx.series[0].boxes?.[0], { min: 1, q1: 2, median: 2, q3: 3, max: 3, n: 5, mean: 2.2 });
  });

  test('labels override file names', () => {
    const report = buildPlsaReport({ plsa, labels: { 'simA.jsonl': 'CIR6', 'human.jsonl': 'People' } });
    assert.equal(report.inputs[0].label, 'People');
    assert.equal(report.inputs[1].label, 'CIR6');
    assert.match(report.title, /CIR6, simB vs People/);
  });
});

function metrics(acc: number, hlsSim: number): ClassificationMetrics {
  return {
    n: 20,
    accuracy: acc,
    precision: acc,
    recall: acc,
    f1: acc,
    specificity: acc,
    avg_hls_human: 0.8,
    avg_hls_simulated: hlsSim,
  };
}

function cv(hlsSim: number[], acc: number): HlsCrossValidation {
  return {
    k: 2,
    seed: 1,
    metrics: metrics(acc, hlsSim.reduce((a, b) => a + b, 0) / hlsSim.length),
    folds: [metrics(acc, 0.1), metrics(acc, 0.2)],
    hls_human: [0.9, 0.8, 0.95, 0.7],
    hls_simulated: hlsSim,
    vocabulary_size: 42,
  };
}

describe('human-likeness report builder', () => {
  test('CV table, best HLS marked, HLS histogram on fixed bins, curves and cross matrix', () => {
    const runs = [
      {
        simulator: 'cir6',
        cv: cv([0.05, 0.15, 0.05, 0.35], 0.9),
        curve: [
          { train_size: 10, metrics: metrics(0.7, 0.3) },
          { train_size: 20, metrics: metrics(0.9, 0.1) },
        ],
      },
      { simulator: 'llm', cv: cv([0.45, 0.55, 0.65, 0.95], 0.6) },
    ];
    assert.ok(Math.abs(meanSimulatedHls(runs[1]) - 0.65) < 1e-12);
    const report = parseReport(
      buildHlsReport({
        human: 'human',
        runs,
        cross: [
          { train: 'cir6', test: 'cir6', metrics: metrics(0.9, 0.1) },
          { train: 'cir6', test: 'llm', metrics: metrics(0.55, 0.5) },
          { train: 'llm', test: 'cir6', metrics: metrics(0.95, 0.05) },
          { train: 'llm', test: 'llm', metrics: metrics(0.6, 0.4) },
        ],
        llm: [
          {
            population: 'llm',
            scores: { annotators: ['discriminator:gpt'], n: 3, mean_p_human: 0.4, p_human: [0.4, 0.4, 0.4] },
          },
        ],
      }),
    );
    const t = table(report, 'hls-cv');
    const col = t.columns.findIndex((c) => c.key === 'avg_hls_simulated');
    assert.equal(t.rows[1].marks?.[col], 'closest');
    assert.equal(t.rows[0].marks?.[col], null);
    assert.equal(table(report, 'hls-folds').rows.length, 4);
    const dist = chart(report, 'hls-distribution');
    assert.equal(dist.categories.length, 10);
    assert.equal(dist.categories[0], '0–0.1');
    assert.deepEqual(dist.series[1].values, fixedBinShares([0.05, 0.15, 0.05, 0.35], 10));
    assert.equal(dist.series[1].values?.[0], 0.5);
    const curve = chart(report, 'hls-curve-cir6');
    assert.deepEqual(curve.categories, ['10', '20']);
    assert.deepEqual(curve.series[0].values, [0.7, 0.9]);
    const matrix = table(report, 'hls-cross-matrix');
    assert.deepEqual(
      matrix.rows.map((r) => r.cells),
      [
        ['cir6', 0.9, 0.55],
        ['llm', 0.95, 0.6],
      ],
    );
    assert.equal(table(report, 'hls-llm').rows[0].cells[3], 0.4);
  });

  test('fixed bins clamp the ends and skip non-finite values', () => {
    assert.deepEqual(fixedBinShares([0, 1, 1, NaN, -0.5, 2], 2), [0.4, 0.6]);
    assert.deepEqual(fixedBinShares([], 3), [null, null, null]);
  });
});

function shift(feature: string, hs: number, ss: number, agrees: boolean, p = 0.5): FeatureShift {
  return {
    feature,
    simulator: 'sim',
    human_from_mean: 1,
    human_to_mean: 1 + hs,
    human_shift: hs,
    sim_from_mean: 2,
    sim_to_mean: 2 + ss,
    sim_shift: ss,
    direction_agrees: agrees,
    magnitude_ratio: hs ? ss / hs : NaN,
    unseen: cmp(feature, 'sim', p, 0.2),
  };
}

describe('counterfactual and simulation report builders', () => {
  test('shift table with agreement marks and shift chart', () => {
    const result: CounterfactualReport = {
      from: 'good',
      to: 'bad',
      features: ['num_turns', 'act:critique', 'act:other'],
      shifts: [
        shift('num_turns', -1, -0.5, true, 0.01),
        shift('act:critique', 0.5, -0.2, false),
        shift('act:other', NaN, 0.1, false),
      ],
      summary: [{ simulator: 'sim', features: 2, direction_agrees: 1, mean_abs_log_ratio: Math.log(2) }],
    };
    assert.deepEqual(directionAgreement(result), [{ simulator: 'sim', agrees: 1, features: 2, share: 0.5 }]);
    const report = parseReport(buildCounterfactualReport({ result }));
    const t = table(report, 'cf-shifts');
    const agreeCol = t.columns.findIndex((c) => c.key === 's0_agrees');
    assert.deepEqual(
      t.rows.map((r) => [r.cells[agreeCol], r.marks?.[agreeCol]]),
      [
        [true, 'pass'],
        [false, 'fail'],
        [null, null],
      ],
    );
    const pCol = t.columns.findIndex((c) => c.key === 's0_mwu_p');
    assert.equal(t.rows[0].marks?.[pCol], 'far');
    const c = chart(report, 'cf-shift-chart');
    assert.deepEqual(
      c.series.map((s) => s.values),
      [
        [-1, 0.5, null],
        [-0.5, -0.2, 0.1],
      ],
    );
    const summary = (report.sections[0] as TextSection).paragraphs[0];
    assert.match(summary, /same way as the human shift on 1 of 2 features/);
  });

  test('Zhang & Balog table, PEPPER and AlterEval curves, ranking', () => {
    const sr = { turns: 10, appropriate: 7, rate: 0.7, mean_per_conversation: 0.65 };
    const report = parseReport(
      buildSimulationReport({
        reference: 'real',
        populations: [
          {
            label: 'real',
            zb: {
              conversations: 3,
              avg_turns: 9.2,
              user_utterances: 30,
              agent_utterances: 31,
              user_act_ratio: 30 / 31,
              reward: 4,
              success_rate: sr,
            },
          },
          {
            label: 'cir6',
            zb: {
              conversations: 3,
              avg_turns: 6.16,
              user_utterances: 20,
              agent_utterances: 20,
              user_act_ratio: 1,
              reward: 8,
              success_rate: sr,
            },
            dsKl: {
              value: 0.12,
              kl_sim_real: 0.1,
              kl_real_sim: 0.14,
              acts: ['a', 'b'],
              p_sim: [0.6, 0.4],
              q_real: [0.5, 0.5],
              alpha: 1,
            },
            pepper: {
              users: 3,
              turns: 3,
              k: 50,
              pc: [0.1, 0.3, 0.3],
              pcir: [0.1, 0.2, 0],
              recall_at_k: [0.1, 0.2, 0.1],
              pcir_avg: 0.1,
            },
            alterEval: {
              conversations: 3,
              horizon: 2,
              relevant: 'alternatives',
              sr_at_1: [0, 1 / 3],
              ndcg_at_10: [0.2, 0.5],
              mrr_at_10: [0.1, 0.4],
              success: 1 / 3,
            },
          },
        ],
        ranking: [
          {
            metric: 'AvgTurns',
            agreement: {
              systems: ['A', 'B'],
              real: [9.2, 14.8],
              simulated: [6.2, 9.9],
              real_order: ['B', 'A'],
              simulated_order: ['B', 'A'],
              real_rank: [2, 1],
              simulated_rank: [2, 1],
              kendall_tau: 1,
              p_value: 1,
              same_order: true,
            },
          },
        ],
      }),
    );
    const zb = table(report, 'zb-table');
    assert.deepEqual(zb.rows[1].cells, ['cir6', 3, 6.16, 1, 0.12, 8, 0.7]);
    assert.equal(zb.rows[0].cells[4], null);
    assert.deepEqual(chart(report, 'pepper-pc').series[0].values, [0.1, 0.3, 0.3]);
    assert.deepEqual(chart(report, 'pepper-pc').categories, ['1', '2', '3']);
    assert.equal(table(report, 'altereval-table').rows.length, 2);
    assert.deepEqual(chart(report, 'dskl-cir6').series[1].values, [0.5, 0.5]);
    const rk = table(report, 'ranking-avgturns');
    assert.deepEqual(
      rk.rows.map((r) => r.marks?.[4]),
      ['pass', 'pass'],
    );
  });

  test('an empty simulation report says so', () => {
    const report = parseReport(buildSimulationReport({ populations: [{ label: 'x' }] }));
    assert.equal(report.sections[0].type, 'text');
    assert.equal((report.sections[0] as TextSection).tone, 'warning');
  });
});
