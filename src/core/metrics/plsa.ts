/**
 * Population-level statistical alignment (PLSA, ConvApparel §5): for every feature, compare the
 * candidate population's distribution with the reference (human) one by the two-sided
 * Mann-Whitney U test (p: higher = closer) and the two-sample Kolmogorov-Smirnov test
 * (statistic: lower = closer), both exactly as SciPy computes them.
 */
import { createRng } from '../random';
import { mannWhitneyU } from '../stats/mannwhitney';
import { ks2samp } from '../stats/ks2samp';
import { mean } from '../stats/descriptive';
import { presentValues, type FeatureTable } from './features';

/** One feature compared between the reference and one candidate. */
export interface PlsaComparison {
  feature: string;
  /** The candidate's file as given. */
  candidate: string;
  reference_mean: number;
  candidate_mean: number;
  /** SciPy's U1 of `mannwhitneyu(reference, candidate)`: the U statistic of the reference sample. */
  mwu_u: number;
  mwu_p: number;
  ks_statistic: number;
  ks_p: number;
  /** Non-missing values on each side. */
  n_reference: number;
  n_candidate: number;
  mwu_method?: string;
  ks_method?: string;
  /**
   * Why the feature was not tested: "constant" when every value on both sides is the same (both
   * tests would report "no difference", p = 1, which says nothing about the simulator); its
   * statistics are then NaN so it counts in no "k of n features" summary.
   */
  untested?: 'constant';
}

/** A PLSA report (plain data; render with render.ts). */
export interface PlsaReport {
  reference: { file: string; n: number };
  candidates: { file: string; n: number }[];
  features: string[];
  comparisons: PlsaComparison[];
  /**
   * What the reader must know about the comparisons: act labels mapped from another taxonomy or
   * not computed (from the tables' notes), features constant in both populations not tested.
   */
  warnings?: string[];
}

/** A labelled feature table. */
interface LabelledTable {
  file: string;
  table: FeatureTable;
}

/**
 * Compares one feature's samples. Tests run with the reference as SciPy's first sample x
 * (`mannwhitneyu(reference, candidate)`, `ks_2samp(reference, candidate)`); a side with no values
 * gives NaN statistics.
 */
export function compareFeature(
  feature: string,
  candidate: string,
  ref: Float64Array,
  cand: Float64Array,
): PlsaComparison {
  const x = presentValues(ref);
  const y = presentValues(cand);
  const out: PlsaComparison = {
    feature,
    candidate,
    reference_mean: mean(x),
    candidate_mean: mean(y),
    mwu_u: NaN,
    mwu_p: NaN,
    ks_statistic: NaN,
    ks_p: NaN,
    n_reference: x.length,
    n_candidate: y.length,
  };
  if (x.length === 0 || y.length === 0) return out;
  const m = mannWhitneyU(x, y);
  const k = ks2samp(x, y);
  out.mwu_u = m.statistic;
  out.mwu_p = m.pvalue;
  out.mwu_method = m.method;
  out.ks_statistic = k.statistic;
  out.ks_p = k.pvalue;
  out.ks_method = k.method;
  return out;
}

/** The one value every present entry of both samples has, or undefined when they vary or one side is empty. */
function sharedConstant(x: Float64Array, y: Float64Array): number | undefined {
  if (x.length === 0 || y.length === 0) return undefined;
  const v = x[0];
  for (const s of [x, y]) for (let i = 0; i < s.length; i++) if (s[i] !== v) return undefined;
  return v;
}

/**
 * Compares every candidate with the reference on every feature of the reference table. A feature
 * with the same constant value in both populations (e.g. an act neither side ever has) is not
 * tested (`untested: "constant"`, NaN statistics) and the warnings say so; a feature with no
 * values on a side keeps NaN statistics and the warnings name it as not computed.
 */
export function comparePopulations(
  reference: LabelledTable,
  candidates: readonly LabelledTable[],
  features?: readonly string[],
): PlsaReport {
  const feats = features ? [...features] : reference.table.features;
  const comparisons: PlsaComparison[] = [];
  const warnings: string[] = [];
  for (const t of [reference, ...candidates]) for (const n of t.table.notes ?? []) warnings.push(`${t.file}: ${n}`);
  for (const c of candidates) {
    const constant: string[] = [];
    const missing: string[] = [];
    for (const f of feats) {
      const ref = reference.table.values[f];
      const cand = c.table.values[f];
      if (!ref || !cand) throw new Error(`feature "${f}" was not computed for ${ref ? c.file : reference.file}`);
      const cmp = compareFeature(f, c.file, ref, cand);
      const v = sharedConstant(presentValues(ref), presentValues(cand));
      if (v !== undefined) {
        cmp.mwu_u = cmp.mwu_p = cmp.ks_statistic = cmp.ks_p = NaN;
        delete cmp.mwu_method;
        delete cmp.ks_method;
        cmp.untested = 'constant';
        constant.push(`${f} (${v})`);
      } else if (cmp.n_reference === 0 || cmp.n_candidate === 0) missing.push(f);
      comparisons.push(cmp);
    }
    if (constant.length) {
      warnings.push(
        `${c.file}: ${constant.length} feature(s) constant in both populations not tested (the same value in every ` +
          `conversation of ${reference.file} and ${c.file}; left out of the "k of n features" counts): ${constant.join(', ')}`,
      );
    }
    if (missing.length)
      warnings.push(
        `${c.file}: ${missing.length} feature(s) not computed on one side (no values), left out of the counts: ${missing.join(', ')}`,
      );
  }
  const out: PlsaReport = {
    reference: { file: reference.file, n: reference.table.n },
    candidates: candidates.map((c) => ({ file: c.file, n: c.table.n })),
    features: feats,
    comparisons,
  };
  if (warnings.length) out.warnings = warnings;
  return out;
}

/** Rows `which` of a feature table. */
function selectRows(table: FeatureTable, which: ArrayLike<number>): FeatureTable {
  const values: Record<string, Float64Array> = {};
  for (const f of table.features) {
    const col = table.values[f];
    const out = new Float64Array(which.length);
    for (let i = 0; i < which.length; i++) out[i] = col[which[i]];
    values[f] = out;
  }
  return { features: table.features, n: which.length, values };
}

/** The human-vs-human split-half baseline (ConvApparel Table 6). */
export interface BaselineReport {
  size: number;
  seed: string | number;
  comparisons: PlsaComparison[];
}

/**
 * Draws two disjoint random subsets of `size` conversations each (seeded; smaller when the
 * population has fewer than 2·size) and compares them feature by feature, giving the spread to
 * expect between two samples of the same population.
 */
export function splitHalfBaseline(
  table: FeatureTable,
  file: string,
  opts: { size?: number; seed?: string | number } = {},
): BaselineReport {
  const seed = opts.seed ?? 1;
  const size = Math.min(opts.size ?? 300, Math.floor(table.n / 2));
  if (size < 1) throw new Error(`${file}: ${table.n} conversation(s) cannot be split into two halves`);
  const order = createRng(`split-half/${seed}`).shuffle(Array.from({ length: table.n }, (_, i) => i));
  const a = selectRows(table, order.slice(0, size));
  const b = selectRows(table, order.slice(size, 2 * size));
  const comparisons = table.features.map((f) => compareFeature(f, `${file} (half B)`, a.values[f], b.values[f]));
  return { size, seed, comparisons };
}

/** How often candidate A is closer to the reference than candidate B. */
interface CloserSummary {
  a: string;
  b: string;
  /** Features where both have statistics. */
  features: number;
  /** A has the lower KS statistic. */
  ksCloser: number;
  /** A has the higher MWU p-value. */
  mwuCloser: number;
}

/** "k of n features closer to the reference than B", by KS (lower) and by MWU p (higher). */
export function closerSummary(report: PlsaReport, a: string, b: string): CloserSummary {
  const byFeature = (cand: string) =>
    new Map(report.comparisons.filter((c) => c.candidate === cand).map((c) => [c.feature, c]));
  const ca = byFeature(a);
  const cb = byFeature(b);
  let features = 0;
  let ks = 0;
  let mwu = 0;
  for (const f of report.features) {
    const x = ca.get(f);
    const y = cb.get(f);
    if (!x || !y || Number.isNaN(x.ks_statistic) || Number.isNaN(y.ks_statistic)) continue;
    features++;
    if (x.ks_statistic < y.ks_statistic) ks++;
    if (x.mwu_p > y.mwu_p) mwu++;
  }
  return { a, b, features, ksCloser: ks, mwuCloser: mwu };
}

/** Closer-than summaries for every ordered pair of candidates. */
export function allCloserSummaries(report: PlsaReport): CloserSummary[] {
  const out: CloserSummary[] = [];
  for (const a of report.candidates)
    for (const b of report.candidates) if (a.file !== b.file) out.push(closerSummary(report, a.file, b.file));
  return out;
}
