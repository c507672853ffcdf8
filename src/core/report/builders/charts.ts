/**
 * Chart sections built from raw samples: per-feature histograms and box plots of several
 * populations (the shape of the ConvApparel distribution figures), and fixed-edge shares for
 * scores in [0, 1]. The numbers come from the statistics core (`sharedHistogram`, `summarize`);
 * this module only lays them out as report sections.
 */
import { sharedHistogram, summarize } from '../../stats/descriptive';
import { featureLabel, presentValues, type FeatureTable } from '../../metrics/features';
import { finiteOrNull, type BoxStats, type ChartSection } from '../model';
import { formatTick, type IdAllocator } from '../format';

/** A population's feature table under the label the report uses for it. */
export interface LabelledFeatures {
  label: string;
  table: FeatureTable;
}

/** How per-feature distributions are drawn. */
export type DistributionStyle = 'histogram' | 'box';

function binLabel(lo: number, hi: number): string {
  const mid = (lo + hi) / 2;
  // Integer bins from sharedHistogram are centred on the integer (edges at v ± 0.5).
  if (Number.isInteger(mid) && Math.abs(hi - lo - 1) < 1e-12) return String(mid);
  return `${formatTick(lo)}–${formatTick(hi)}`;
}

/** Share of each bin (counts / present values); all null for an empty sample. */
function shares(counts: readonly number[]): (number | null)[] {
  const total = counts.reduce((s, c) => s + c, 0);
  return counts.map((c) => (total ? c / total : null));
}

/** The five-number box of a sample, or null when it has no values. */
function boxOf(values: ArrayLike<number>): BoxStats | null {
  if (values.length === 0) return null;
  const s = summarize(values);
  const box: BoxStats = { min: s.min, q1: s.q1, median: s.median, q3: s.q3, max: s.max, n: s.n };
  const m = finiteOrNull(s.mean);
  if (m !== null) box.mean = m;
  return box;
}

/**
 * One chart per feature comparing the populations: a histogram of shares over shared bins (one
 * bar series per population) or a box plot (one box per population). Features without values in
 * any population are left out.
 */
export function distributionCharts(
  populations: readonly LabelledFeatures[],
  features: readonly string[],
  ids: IdAllocator,
  opts: { style?: DistributionStyle; group?: string; bins?: number } = {},
): ChartSection[] {
  const style = opts.style ?? 'histogram';
  const out: ChartSection[] = [];
  for (const feature of features) {
    const samples = populations.map((p) => {
      const col = p.table.values[feature];
      return col ? presentValues(col) : new Float64Array(0);
    });
    if (samples.every((s) => s.length === 0)) continue;
    const label = featureLabel(feature);
    if (style === 'box') {
      out.push({
        type: 'chart',
        id: ids.id('box', feature),
        title: label,
        group: opts.group,
        chart: 'box',
        categories: populations.map((p) => p.label),
        series: [{ name: label, boxes: samples.map((s) => boxOf(s)) }],
        yLabel: label,
        caption: `Box: quartiles; line: median; whiskers: min and max. Feature "${feature}".`,
      });
      continue;
    }
    const hists = sharedHistogram(samples, opts.bins ?? 20);
    const edges = hists[0].edges;
    const categories: string[] = [];
    for (let i = 0; i + 1 < edges.length; i++) categories.push(binLabel(edges[i], edges[i + 1]));
    out.push({
      type: 'chart',
      id: ids.id('hist', feature),
      title: label,
      group: opts.group,
      chart: 'bar',
      categories,
      series: populations.map((p, i) => ({ name: p.label, values: shares(hists[i].counts) })),
      xLabel: label,
      yLabel: 'share of conversations',
      yMin: 0,
      caption: `Share of each population's conversations per value of "${feature}" (bars of one colour sum to 1).`,
    });
  }
  return out;
}

/**
 * Shares of scores over fixed, equal-width bins of [lo, hi] (the last bin closed on the right);
 * values outside the range are clamped into the end bins. For scores with a known range such as
 * HLS in [0, 1], where data-driven edges would hide that everything sits near 0.
 */
export function fixedBinShares(values: ArrayLike<number>, bins: number, lo = 0, hi = 1): (number | null)[] {
  const counts = new Array<number>(bins).fill(0);
  let total = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (!Number.isFinite(v)) continue;
    let b = Math.floor(((v - lo) / (hi - lo)) * bins);
    if (b >= bins) b = bins - 1;
    if (b < 0) b = 0;
    counts[b]++;
    total++;
  }
  return counts.map((c) => (total ? c / total : null));
}

/** Labels "0–0.1", "0.1–0.2", … for `fixedBinShares`. */
export function fixedBinLabels(bins: number, lo = 0, hi = 1): string[] {
  const w = (hi - lo) / bins;
  return Array.from({ length: bins }, (_, i) => `${formatTick(lo + i * w)}–${formatTick(lo + (i + 1) * w)}`);
}
