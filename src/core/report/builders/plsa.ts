/**
 * Population-level statistical alignment (PLSA) as a report: the ConvApparel-shaped MWU/KS table
 * with the closest candidate highlighted per feature, "k of n features closer to the reference
 * than B" summaries, the human split-half baseline, per-feature distribution charts and overview
 * charts of KS D and MWU p. All statistics come from `src/core/metrics/plsa.ts`.
 */
import { allCloserSummaries, type BaselineReport, type PlsaComparison, type PlsaReport } from '../../metrics/plsa';
import { featureLabel } from '../../metrics/features';
import { REPORT_SCHEMA, finiteOrNull, type Cell, type Mark, type Report, type Row, type Section } from '../model';
import { IdAllocator, formatFixed, shortNames } from '../format';
import { distributionCharts, type DistributionStyle, type LabelledFeatures } from './charts';
import { tableColumns, significanceMark, type ReportBuildMeta } from './common';

/** Everything a PLSA report is built from. */
interface PlsaBuildInput extends ReportBuildMeta {
  plsa: PlsaReport;
  /** Display label per file as it appears in `plsa` (default: base names without extension). */
  labels?: Readonly<Record<string, string>>;
  /** Feature tables for the distribution charts, keyed by the same files (reference included). */
  distributions?: readonly { file: string; table: LabelledFeatures['table'] }[];
  /** Histograms (default) or box plots per feature. */
  chart?: DistributionStyle;
  /** The reference population's split-half baseline. */
  baseline?: BaselineReport;
  /** Significance level for "indistinguishable" (default 0.05). */
  alpha?: number;
}

/** One candidate's alignment numbers. */
interface PlsaCandidateSummary {
  file: string;
  label: string;
  /** Features with statistics on both sides. */
  features: number;
  /** Features with MWU p > alpha (no detectable difference at alpha). */
  mwuAboveAlpha: number;
  /** Features with KS p > alpha. */
  ksAboveAlpha: number;
  /** Mean KS D over the features with statistics (NaN when none). */
  meanKs: number;
  /** Features with the same constant value in both populations: not tested, not in `features`. */
  constant: number;
}

/** Per-candidate counts of indistinguishable features (the numbers behind the PLSA verdict). */
export function plsaCandidateSummaries(
  plsa: PlsaReport,
  alpha = 0.05,
  labels?: Readonly<Record<string, string>>,
): PlsaCandidateSummary[] {
  const names = labelFor(plsa, labels);
  return plsa.candidates.map((c) => {
    const rows = plsa.comparisons.filter(
      (x) => x.candidate === c.file && Number.isFinite(x.mwu_p) && Number.isFinite(x.ks_statistic),
    );
    const ks = rows.reduce((s, x) => s + x.ks_statistic, 0);
    return {
      file: c.file,
      label: names(c.file),
      features: rows.length,
      mwuAboveAlpha: rows.filter((x) => x.mwu_p > alpha).length,
      ksAboveAlpha: rows.filter((x) => x.ks_p > alpha).length,
      meanKs: rows.length ? ks / rows.length : NaN,
      constant: plsa.comparisons.filter((x) => x.candidate === c.file && x.untested === 'constant').length,
    };
  });
}

function labelFor(plsa: PlsaReport, labels?: Readonly<Record<string, string>>): (file: string) => string {
  const short = shortNames([plsa.reference.file, ...plsa.candidates.map((c) => c.file)]);
  return (file) => labels?.[file] ?? short.get(file) ?? file;
}

/** Index of the best value (max or min) among finite ones, or -1 when fewer than two are finite or the best is tied. */
function bestIndex(values: readonly number[], better: 'max' | 'min'): number {
  let best = -1;
  let finite = 0;
  let tie = false;
  values.forEach((v, i) => {
    if (!Number.isFinite(v)) return;
    finite++;
    if (best < 0 || (better === 'max' ? v > values[best] : v < values[best])) {
      best = i;
      tie = false;
    } else if (v === values[best]) tie = true;
  });
  return finite >= 2 && !tie ? best : -1;
}

/** What every PLSA section needs: the comparisons by candidate and feature, and the display names. */
interface PlsaContext {
  input: PlsaBuildInput;
  ids: IdAllocator;
  group: string | undefined;
  alpha: number;
  name: (file: string) => string;
  refName: string;
  cands: string[];
  get: (cand: string, feature: string) => PlsaComparison | undefined;
}

/** The summary sentences: per candidate, per pair of candidates, and the split-half baseline. */
function summaryParagraphs(ctx: PlsaContext): string[] {
  const { input, alpha, name, refName } = ctx;
  const { plsa } = input;
  const paragraphs: string[] = [];
  for (const s of plsaCandidateSummaries(plsa, alpha, input.labels)) {
    paragraphs.push(
      `${s.label}: ${s.mwuAboveAlpha} of ${s.features} features show no significant difference from ${refName} by Mann-Whitney U (p > ${alpha}); ` +
        `${s.ksAboveAlpha} of ${s.features} by KS; mean KS D = ${Number.isFinite(s.meanKs) ? formatFixed(s.meanKs) : '–'}.` +
        (s.constant ? ` ${s.constant} feature(s) constant in both populations not tested.` : ''),
    );
  }
  for (const c of allCloserSummaries(plsa)) {
    paragraphs.push(
      `${name(c.a)} is closer to ${refName} than ${name(c.b)} on ${c.ksCloser} of ${c.features} features by KS D ` +
        `(lower) and ${c.mwuCloser} of ${c.features} by MWU p (higher).`,
    );
  }
  if (input.baseline) {
    const ks = input.baseline.comparisons.map((c) => c.ks_statistic).filter(Number.isFinite);
    if (ks.length) {
      paragraphs.push(
        `Split-half baseline (two disjoint random halves of ${refName}, ${input.baseline.size} each): KS D from ` +
          `${formatFixed(Math.min(...ks))} to ${formatFixed(Math.max(...ks))}; a simulator is as close as sampling noise ` +
          `allows when its KS D is in that range.`,
      );
    }
  }
  return paragraphs;
}

/** The paper-shaped wide table: per candidate mean, MWU p and KS D; the closest candidate per row marked. */
function closenessTable(ctx: PlsaContext): Section {
  const { input, ids, group, alpha, name, refName, cands, get } = ctx;
  const { plsa } = input;
  const columns = tableColumns(['feature', 'Feature', 'text'], ['reference_mean', `${refName} mean`, 'fixed']);
  cands.forEach((c, i) => {
    columns.push({ key: `c${i}_mean`, label: `${name(c)} mean`, format: 'fixed' });
    columns.push({ key: `c${i}_mwu_p`, label: `${name(c)} MWU p`, format: 'p' });
    columns.push({ key: `c${i}_ks`, label: `${name(c)} KS D`, format: 'fixed' });
  });
  const rows: Row[] = plsa.features.map((f) => {
    const comps = cands.map((c) => get(c, f));
    const refMean = comps.find((x) => x)?.reference_mean ?? NaN;
    const cells: Cell[] = [featureLabel(f), finiteOrNull(refMean)];
    const marks: (Mark | null)[] = [null, null];
    const bestP = bestIndex(
      comps.map((x) => x?.mwu_p ?? NaN),
      'max',
    );
    const bestKs = bestIndex(
      comps.map((x) => x?.ks_statistic ?? NaN),
      'min',
    );
    comps.forEach((x, i) => {
      cells.push(finiteOrNull(x?.candidate_mean), finiteOrNull(x?.mwu_p), finiteOrNull(x?.ks_statistic));
      const p = x?.mwu_p ?? NaN;
      marks.push(null, i === bestP ? 'closest' : significanceMark(p, alpha), i === bestKs ? 'closest' : null);
    });
    return { cells, marks };
  });
  return {
    type: 'table',
    id: ids.id('plsa-table'),
    title: `Mann-Whitney U and Kolmogorov-Smirnov against ${refName}`,
    group,
    caption:
      'MWU p: higher = closer (no detectable difference in location); KS D: lower = closer (largest gap between the two cumulative distributions).',
    columns,
    rows,
    notes: [
      cands.length > 1 ? 'closest: the candidate with the highest MWU p / lowest KS D of its row.' : '',
      `close: MWU p > ${alpha}; far: MWU p <= ${alpha}.`,
      "Tests are two-sided with the reference as the first sample, computed as SciPy's mannwhitneyu and ks_2samp do.",
    ].filter(Boolean),
  };
}

/** The long table: every number, one row per (candidate, feature), for CSV/JSON export. */
function comparisonsTable(ctx: PlsaContext): Section {
  const { input, ids, group, alpha, name } = ctx;
  return {
    type: 'table',
    id: ids.id('plsa-comparisons'),
    title: 'All comparisons',
    group,
    columns: tableColumns(
      ['feature', 'feature', 'text'],
      ['candidate', 'candidate', 'text'],
      ['reference_mean', 'reference mean', 'fixed'],
      ['candidate_mean', 'candidate mean', 'fixed'],
      ['mwu_u', 'MWU U', 'fixed', 1],
      ['mwu_p', 'MWU p', 'p'],
      ['ks_statistic', 'KS D', 'fixed'],
      ['ks_p', 'KS p', 'p'],
      ['n_reference', 'n reference', 'int'],
      ['n_candidate', 'n candidate', 'int'],
    ),
    rows: input.plsa.comparisons.map((c) => ({
      cells: [
        c.feature,
        name(c.candidate),
        finiteOrNull(c.reference_mean),
        finiteOrNull(c.candidate_mean),
        finiteOrNull(c.mwu_u),
        finiteOrNull(c.mwu_p),
        finiteOrNull(c.ks_statistic),
        finiteOrNull(c.ks_p),
        c.n_reference,
        c.n_candidate,
      ],
      marks: [
        null,
        null,
        null,
        null,
        null,
        significanceMark(c.mwu_p, alpha),
        null,
        significanceMark(c.ks_p, alpha),
        null,
        null,
      ],
    })),
  };
}

/** The split-half baseline: two halves of the reference compared with each other. */
function baselineTable(ctx: PlsaContext, baseline: NonNullable<PlsaBuildInput['baseline']>): Section {
  const { ids, group, refName } = ctx;
  return {
    type: 'table',
    id: ids.id('plsa-baseline'),
    title: `Split-half baseline: ${refName} vs ${refName}`,
    group,
    caption:
      `Two disjoint seeded random halves of ${baseline.size} conversations (seed ${String(baseline.seed)}): the ` +
      `spread two samples of the same population show.`,
    columns: tableColumns(
      ['feature', 'Feature', 'text'],
      ['mean_a', 'half A mean', 'fixed'],
      ['mean_b', 'half B mean', 'fixed'],
      ['mwu_p', 'MWU p', 'p'],
      ['ks_statistic', 'KS D', 'fixed'],
    ),
    rows: baseline.comparisons.map((c) => ({
      cells: [
        featureLabel(c.feature),
        finiteOrNull(c.reference_mean),
        finiteOrNull(c.candidate_mean),
        finiteOrNull(c.mwu_p),
        finiteOrNull(c.ks_statistic),
      ],
    })),
  };
}

/** The overview charts: KS D and MWU p per feature for every candidate (and the split-half baseline). */
function overviewCharts(ctx: PlsaContext): Section[] {
  const { input, ids, group, alpha, name, refName, cands, get } = ctx;
  const { plsa } = input;
  const featureLabels = plsa.features.map(featureLabel);
  const ksSeries = cands.map((c) => ({
    name: name(c),
    values: plsa.features.map((f) => finiteOrNull(get(c, f)?.ks_statistic)),
  }));
  if (input.baseline) {
    const base = new Map(input.baseline.comparisons.map((c) => [c.feature, c.ks_statistic]));
    ksSeries.push({ name: `${refName} split-half`, values: plsa.features.map((f) => finiteOrNull(base.get(f))) });
  }
  return [
    {
      type: 'chart',
      id: ids.id('plsa-ks'),
      title: 'KS D per feature (lower = closer)',
      group,
      chart: 'bar',
      categories: featureLabels,
      series: ksSeries,
      yLabel: 'KS D',
      yMin: 0,
      yMax: 1,
    },
    {
      type: 'chart',
      id: ids.id('plsa-mwu'),
      title: 'MWU p per feature (higher = closer)',
      group,
      chart: 'bar',
      categories: featureLabels,
      series: cands.map((c) => ({ name: name(c), values: plsa.features.map((f) => finiteOrNull(get(c, f)?.mwu_p)) })),
      yLabel: 'MWU p',
      yMin: 0,
      yMax: 1,
      references: [{ value: alpha, label: `alpha = ${alpha}` }],
    },
  ];
}

/**
 * The PLSA sections (for embedding in another report, e.g. the fidelity report). `group` puts
 * them under one heading; ids are allocated from `ids`.
 */
export function plsaSections(input: PlsaBuildInput, ids: IdAllocator, group?: string): Section[] {
  const { plsa } = input;
  const alpha = input.alpha ?? 0.05;
  const name = labelFor(plsa, input.labels);
  const refName = name(plsa.reference.file);
  const cands = plsa.candidates.map((c) => c.file);
  const byKey = new Map<string, PlsaComparison>();
  for (const c of plsa.comparisons) byKey.set(`${c.candidate}\u0000${c.feature}`, c);
  const get = (cand: string, feature: string) => byKey.get(`${cand}\u0000${feature}`);
  const ctx: PlsaContext = { input, ids, group, alpha, name, refName, cands, get };
  const sections: Section[] = [
    {
      type: 'text',
      id: ids.id('plsa-summary'),
      title: 'Summary',
      group,
      paragraphs: summaryParagraphs(ctx),
      tone: 'info',
    },
    closenessTable(ctx),
    comparisonsTable(ctx),
  ];
  if (input.baseline) sections.push(baselineTable(ctx, input.baseline));
  sections.push(...overviewCharts(ctx));
  if (input.distributions?.length) {
    const pops = input.distributions.map((d) => ({ label: name(d.file), table: d.table }));
    sections.push(
      ...distributionCharts(pops, plsa.features, ids, {
        style: input.chart,
        group: group ? `${group}: distributions` : 'Distributions',
      }),
    );
  }
  return sections;
}

/** A complete PLSA report. */
export function buildPlsaReport(input: PlsaBuildInput): Report {
  const { plsa } = input;
  const name = labelFor(plsa, input.labels);
  const ids = new IdAllocator();
  // The comparison's own warnings (act mapping, features not tested) come after the inputs'.
  const warnings = [...(input.warnings ?? []), ...(plsa.warnings ?? [])];
  return {
    schema: REPORT_SCHEMA,
    kind: 'plsa',
    title:
      input.title ??
      `Population alignment: ${plsa.candidates.map((c) => name(c.file)).join(', ')} vs ${name(plsa.reference.file)}`,
    generated: input.generated ?? new Date().toISOString(),
    inputs: input.inputs ?? [
      { label: name(plsa.reference.file), file: plsa.reference.file, n: plsa.reference.n },
      ...plsa.candidates.map((c) => ({ label: name(c.file), file: c.file, n: c.n })),
    ],
    params: { alpha: input.alpha ?? 0.05, features: plsa.features.join(','), ...input.params },
    sections: plsaSections(input, ids),
    warnings: warnings.length ? warnings : undefined,
  };
}
