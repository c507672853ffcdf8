/**
 * Descriptive statistics used by the metric reports and charts.
 */

/** Arithmetic mean; NaN for an empty sample. */
export function mean(values: ArrayLike<number>): number {
  if (values.length === 0) return NaN;
  let s = 0;
  for (let i = 0; i < values.length; i++) s += values[i];
  return s / values.length;
}

/** Sample standard deviation (n - 1 denominator); NaN below two values. */
function stdev(values: ArrayLike<number>): number {
  const n = values.length;
  if (n < 2) return NaN;
  const m = mean(values);
  let s = 0;
  for (let i = 0; i < n; i++) s += (values[i] - m) ** 2;
  return Math.sqrt(s / (n - 1));
}

/** Quantile with linear interpolation between order statistics (numpy's default, type 7). */
export function quantile(values: ArrayLike<number>, q: number): number {
  if (values.length === 0) return NaN;
  const s = Float64Array.from(values).sort();
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}

/** Five-number summary plus mean and n, for box plots. */
interface Summary {
  n: number;
  mean: number;
  sd: number;
  min: number;
  q1: number;
  median: number;
  q3: number;
  max: number;
}

/** Summary statistics of a sample. */
export function summarize(values: ArrayLike<number>): Summary {
  return {
    n: values.length,
    mean: mean(values),
    sd: stdev(values),
    min: quantile(values, 0),
    q1: quantile(values, 0.25),
    median: quantile(values, 0.5),
    q3: quantile(values, 0.75),
    max: quantile(values, 1),
  };
}

/** Histogram counts over shared bin edges (last bin closed on the right). */
interface Histogram {
  edges: number[];
  counts: number[];
}

/**
 * Histograms of several samples over common edges, so they can be drawn side by side. Integer
 * data with a small range gets one bin per integer value; otherwise `bins` equal-width bins.
 */
export function sharedHistogram(samples: readonly ArrayLike<number>[], bins = 20): Histogram[] {
  let lo = Infinity;
  let hi = -Infinity;
  let allInt = true;
  for (const s of samples) {
    for (let i = 0; i < s.length; i++) {
      const v = s[i];
      if (!Number.isFinite(v)) continue;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
      if (!Number.isInteger(v)) allInt = false;
    }
  }
  if (lo === Infinity) return samples.map(() => ({ edges: [], counts: [] }));
  let edges: number[];
  if (allInt && hi - lo <= 40) {
    edges = [];
    for (let v = lo; v <= hi + 1; v++) edges.push(v - 0.5);
  } else {
    const width = hi > lo ? (hi - lo) / bins : 1;
    edges = Array.from({ length: bins + 1 }, (_, i) => lo + i * width);
  }
  const k = edges.length - 1;
  return samples.map((s) => {
    const counts = new Array<number>(k).fill(0);
    for (let i = 0; i < s.length; i++) {
      const v = s[i];
      if (!Number.isFinite(v)) continue;
      let b = Math.floor(((v - edges[0]) / (edges[k] - edges[0])) * k);
      if (b >= k) b = k - 1;
      if (b < 0) b = 0;
      counts[b]++;
    }
    return { edges, counts };
  });
}
