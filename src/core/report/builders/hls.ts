/**
 * Human-likeness as a report: the discriminator's cross-validated metrics per simulator (the
 * ConvApparel Table 1 columns), the distribution of per-conversation HLS, learning curves, the
 * cross-distribution matrix and LLM-discriminator scores when present. Numbers come from
 * `src/core/metrics/hls.ts`.
 */
import type {
  ClassificationMetrics,
  CrossCell,
  HlsCrossValidation,
  LearningPoint,
  LlmDiscriminatorScores,
} from '../../metrics/hls';
import { mean } from '../../stats/descriptive';
import { REPORT_SCHEMA, finiteOrNull, type Column, type Mark, type Report, type Row, type Section } from '../model';
import { IdAllocator, formatFixed } from '../format';
import { fixedBinLabels, fixedBinShares } from './charts';
import { tableColumns, type ColumnRow, type ReportBuildMeta } from './common';

/** One simulated population's human-likeness results. */
export interface HlsRun {
  /** The simulated population's label. */
  simulator: string;
  cv: HlsCrossValidation;
  curve?: readonly LearningPoint[];
}

interface HlsBuildInput extends ReportBuildMeta {
  /** The human population's label. */
  human: string;
  runs: readonly HlsRun[];
  cross?: readonly CrossCell[];
  /** LLM-discriminator scores per population, shown beside the embedded discriminator. */
  llm?: readonly { population: string; scores: LlmDiscriminatorScores }[];
  /** Per-conversation out-of-fold HLS (parallel arrays), shown as one linked table when given. */
  scores?: readonly HlsScores[];
}

/** One population's per-conversation HLS; `input` is its index in the report's inputs. */
interface HlsScores {
  population: string;
  input: number;
  conversations: readonly { id: string; line?: number }[];
  hls: ArrayLike<number>;
}

const METRIC_COLUMNS = [
  { key: 'accuracy', label: 'Accuracy' },
  { key: 'precision', label: 'Precision' },
  { key: 'recall', label: 'Recall' },
  { key: 'f1', label: 'F1' },
  { key: 'specificity', label: 'Specificity' },
  { key: 'avg_hls_simulated', label: 'Avg HLS (simulated)' },
  { key: 'avg_hls_human', label: 'Avg HLS (human)' },
] as const;

/** The metric columns of the per-simulator, per-fold and cross-distribution tables. */
const METRIC_TABLE_COLUMNS = METRIC_COLUMNS.map((c) => ({ key: c.key, label: c.label, format: 'fixed' as const }));

/** Columns of a metrics table: the `lead` columns, the metrics, then n. */
function metricTableColumns(...lead: ColumnRow[]): Column[] {
  return [...tableColumns(...lead), ...METRIC_TABLE_COLUMNS, { key: 'n', label: 'n', format: 'int' }];
}

function metricCells(m: ClassificationMetrics): (number | null)[] {
  return METRIC_COLUMNS.map((c) => finiteOrNull(m[c.key]));
}

/** Mean out-of-fold HLS of a run's simulated conversations. */
export function meanSimulatedHls(run: HlsRun): number {
  return mean(run.cv.hls_simulated);
}

/** One learning-curve chart per simulator that has one: held-out metrics against the training size. */
function learningCurveCharts(input: HlsBuildInput, ids: IdAllocator, group: string | undefined): Section[] {
  const sections: Section[] = [];
  for (const r of input.runs) {
    if (!r.curve?.length) continue;
    sections.push({
      type: 'chart',
      id: ids.id('hls-curve', r.simulator),
      title: `Learning curve: ${input.human} vs ${r.simulator}`,
      group,
      chart: 'line',
      categories: r.curve.map((p) => String(p.train_size)),
      series: [
        { name: 'accuracy', values: r.curve.map((p) => finiteOrNull(p.metrics.accuracy)) },
        { name: 'F1', values: r.curve.map((p) => finiteOrNull(p.metrics.f1)) },
        { name: 'avg HLS (simulated)', values: r.curve.map((p) => finiteOrNull(p.metrics.avg_hls_simulated)) },
      ],
      xLabel: 'training conversations',
      yLabel: 'held-out score',
      yMin: 0,
      yMax: 1,
      references: [{ value: 0.5, label: 'chance' }],
      caption:
        'Held-out metrics when the discriminator trains on more conversations: a curve that is still rising means more ' +
        'data would expose the simulator further.',
    });
  }
  return sections;
}

/** Train on human vs one simulator, test on human vs another: the accuracy matrix and the full metrics. */
function crossDistributionTables(input: HlsBuildInput, ids: IdAllocator, group: string | undefined): Section[] {
  const sections: Section[] = [];
  if (input.cross?.length) {
    const trains = [...new Set(input.cross.map((c) => c.train))];
    const tests = [...new Set(input.cross.map((c) => c.test))];
    const at = new Map(input.cross.map((c) => [`${c.train}\u0000${c.test}`, c.metrics]));
    sections.push({
      type: 'table',
      id: ids.id('hls-cross-matrix'),
      title: 'Cross-distribution accuracy (rows: trained on human vs …; columns: tested on human vs …)',
      group,
      caption: 'High accuracy off the diagonal means what gives one simulator away also gives the others away.',
      columns: [
        { key: 'train', label: 'train \\ test', format: 'text' },
        ...tests.map((t, i) => ({ key: `t${i}`, label: t, format: 'fixed' as const })),
      ],
      rows: trains.map((tr) => ({
        cells: [tr, ...tests.map((te) => finiteOrNull(at.get(`${tr}\u0000${te}`)?.accuracy))],
      })),
    });
    sections.push({
      type: 'table',
      id: ids.id('hls-cross'),
      title: 'Cross-distribution metrics',
      group,
      columns: metricTableColumns(['train', 'Train', 'text'], ['test', 'Test', 'text']),
      rows: input.cross.map((c) => ({ cells: [c.train, c.test, ...metricCells(c.metrics), c.metrics.n] })),
    });
  }
  return sections;
}

/** The LLM discriminator's P(human) scores already in the files, per population. */
function llmScoreTables(input: HlsBuildInput, ids: IdAllocator, group: string | undefined): Section[] {
  const sections: Section[] = [];
  const llm = input.llm?.filter((x) => x.scores.n > 0) ?? [];
  if (llm.length) {
    sections.push({
      type: 'table',
      id: ids.id('hls-llm'),
      title: 'LLM discriminator scores found in the files',
      group,
      columns: tableColumns(
        ['population', 'Population', 'text'],
        ['annotators', 'Discriminator', 'text'],
        ['n', 'Scored', 'int'],
        ['mean_p_human', 'Mean P(human)', 'fixed'],
      ),
      rows: llm.map((x) => ({
        cells: [x.population, x.scores.annotators.join(', '), x.scores.n, finiteOrNull(x.scores.mean_p_human)],
      })),
    });
  }
  return sections;
}

/** HLS per conversation (out-of-fold), each row linked to its conversation. */
function conversationScoreTables(input: HlsBuildInput, ids: IdAllocator, group: string | undefined): Section[] {
  const sections: Section[] = [];
  if (input.scores?.length) {
    sections.push({
      type: 'table',
      id: ids.id('hls-scores'),
      title: 'HLS per conversation (out-of-fold)',
      group,
      columns: tableColumns(
        ['conversation', 'Conversation', 'text'],
        ['population', 'Population', 'text'],
        ['hls', 'HLS', 'fixed'],
      ),
      rows: input.scores.flatMap((p) =>
        p.conversations.map((c, i): Row => {
          const link: Row['link'] = { input: p.input, conversation: c.id };
          if (c.line !== undefined) link.line = c.line;
          return { cells: [c.id, p.population, finiteOrNull(p.hls[i])], link };
        }),
      ),
    });
  }
  return sections;
}

/** The human-likeness sections (for embedding). */
export function hlsSections(input: HlsBuildInput, ids: IdAllocator, group?: string): Section[] {
  const sections: Section[] = [];
  const paragraphs = input.runs.map((r) => {
    const m = r.cv.metrics;
    return (
      `${r.simulator}: the discriminator tells ${input.human} from ${r.simulator} with ${formatFixed(m.accuracy)} ` +
      `accuracy (${r.cv.k}-fold CV, ${m.n} conversations, vocabulary ${r.cv.vocabulary_size}); ` +
      `mean HLS of the simulated conversations = ${formatFixed(meanSimulatedHls(r))} (0.5 = indistinguishable, 0 = always caught).`
    );
  });
  sections.push({
    type: 'text',
    id: ids.id('hls-summary'),
    title: 'Summary',
    group,
    paragraphs: [
      ...paragraphs,
      'HLS(c) = P(human | c) from an L2 logistic regression on unigram + bigram counts of the user utterances; each ' +
        'conversation is scored by the model of the fold that did not train on it.',
    ],
    tone: 'info',
  });

  const bestHls =
    input.runs.length > 1
      ? input.runs.reduce((b, r, i) => (meanSimulatedHls(r) > meanSimulatedHls(input.runs[b]) ? i : b), 0)
      : -1;
  sections.push({
    type: 'table',
    id: ids.id('hls-cv'),
    title: `Discriminator: ${input.human} vs each simulator (cross-validated)`,
    group,
    caption:
      'Human is the positive class: recall = humans recognised as human, specificity = simulated conversations ' +
      'recognised as simulated. Lower accuracy and higher HLS = more human-like.',
    columns: [
      ...metricTableColumns(['simulator', 'Simulator', 'text']),
      { key: 'folds', label: 'folds', format: 'int' },
    ],
    rows: input.runs.map((r, i): Row => {
      const marks: (Mark | null)[] = new Array(METRIC_COLUMNS.length + 3).fill(null);
      if (i === bestHls) marks[1 + METRIC_COLUMNS.findIndex((c) => c.key === 'avg_hls_simulated')] = 'closest';
      return { cells: [r.simulator, ...metricCells(r.cv.metrics), r.cv.metrics.n, r.cv.k], marks };
    }),
    notes: input.runs.length > 1 ? ['closest: the simulator with the highest mean HLS.'] : undefined,
  });

  const folds = input.runs.flatMap((r) =>
    r.cv.folds.map((m, f) => ({ cells: [r.simulator, f + 1, ...metricCells(m), m.n] })),
  );
  if (folds.length) {
    sections.push({
      type: 'table',
      id: ids.id('hls-folds'),
      title: 'Per-fold metrics',
      group,
      columns: metricTableColumns(['simulator', 'Simulator', 'text'], ['fold', 'Fold', 'int']),
      rows: folds,
    });
  }

  const BINS = 10;
  if (input.runs.length) {
    sections.push({
      type: 'chart',
      id: ids.id('hls-distribution'),
      title: 'Distribution of HLS = P(human)',
      group,
      chart: 'bar',
      categories: fixedBinLabels(BINS),
      series: [
        { name: `${input.human} (out-of-fold)`, values: fixedBinShares(input.runs[0].cv.hls_human, BINS) },
        ...input.runs.map((r) => ({ name: r.simulator, values: fixedBinShares(r.cv.hls_simulated, BINS) })),
      ],
      xLabel: 'HLS',
      yLabel: 'share of conversations',
      yMin: 0,
      caption: `The human bars come from the first simulator's cross-validation (${input.runs[0].simulator}).`,
    });
  }

  sections.push(
    ...learningCurveCharts(input, ids, group),
    ...crossDistributionTables(input, ids, group),
    ...llmScoreTables(input, ids, group),
    ...conversationScoreTables(input, ids, group),
  );
  return sections;
}

/** A complete human-likeness report. */
export function buildHlsReport(input: HlsBuildInput): Report {
  const ids = new IdAllocator();
  const first = input.runs[0];
  return {
    schema: REPORT_SCHEMA,
    kind: 'human-likeness',
    title: input.title ?? `Human-likeness: ${input.runs.map((r) => r.simulator).join(', ')} vs ${input.human}`,
    generated: input.generated ?? new Date().toISOString(),
    inputs: input.inputs ?? [
      ...(first ? [{ label: input.human, file: input.human, n: first.cv.hls_human.length }] : []),
      ...input.runs.map((r) => ({ label: r.simulator, file: r.simulator, n: r.cv.hls_simulated.length })),
    ],
    params: { folds: first?.cv.k ?? null, seed: first ? String(first.cv.seed) : null, ...input.params },
    sections: hlsSections(input, ids),
    warnings: input.warnings?.length ? input.warnings : undefined,
  };
}
