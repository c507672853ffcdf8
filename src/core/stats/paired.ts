/**
 * Paired tests: the Wilcoxon signed-rank test as `scipy.stats.wilcoxon(d)` computes it (SciPy 1.17
 * defaults: zero_method='wilcox', correction=False, alternative='two-sided', method='auto'),
 * McNemar's exact test (statsmodels `mcnemar(table, exact=True)`: a two-sided binomial test of the
 * discordant pairs), and a seeded percentile bootstrap interval for a mean paired difference.
 */
import { createRng } from '../random';
import { rankAverage } from './rank';
import { ndtr } from './special';

type WilcoxonMethod = 'exact' | 'permutation' | 'asymptotic';

interface WilcoxonResult {
  /** min(R+, R-), the statistic SciPy reports for a two-sided test (NaN for an empty sample). */
  statistic: number;
  /** Two-sided p-value; NaN when SciPy gives NaN (no non-zero difference and n > 13). */
  pvalue: number;
  /** How SciPy's method='auto' computed the p-value. */
  method: WilcoxonMethod;
  /** Sum of the ranks of the positive differences. */
  rPlus: number;
  rMinus: number;
  /** Number of differences (zeros included) and of non-zero differences. */
  n: number;
  nonZero: number;
  /** Standardised statistic (asymptotic only; NaN when every difference is zero). */
  z?: number;
}

/**
 * P(R+ = r) for r = 0..n(n+1)/2 under the null without ties or zeros: each rank 1..n enters the
 * sum with probability 1/2 independently, so the pmf is the product of (1 + q^k)/2.
 */
export function wilcoxonNullPmf(n: number): Float64Array {
  const max = (n * (n + 1)) / 2;
  let c = new Float64Array(max + 1);
  c[0] = 1;
  let top = 0;
  for (let k = 1; k <= n; k++) {
    const next = new Float64Array(max + 1);
    for (let r = 0; r <= top; r++) {
      const h = c[r] * 0.5;
      next[r] += h;
      next[r + k] += h;
    }
    top += k;
    c = next;
  }
  return c;
}

/**
 * Two-sided Wilcoxon signed-rank test of the paired differences d (= x - y).
 *
 * SciPy's method='auto' (1.17): with more than 50 differences the normal approximation; otherwise
 * the exact null distribution when no difference is zero and no |d| is tied, a complete
 * sign-flip permutation test (all 2^n assignments, zeros included) when there are zeros or ties
 * and n <= 13, and the normal approximation (tie-corrected, no continuity correction) beyond.
 * Zeros are dropped before ranking (zero_method='wilcox').
 */
export function wilcoxonSignedRank(d: ArrayLike<number>): WilcoxonResult {
  const n = d.length;
  for (let i = 0; i < n; i++) if (Number.isNaN(d[i])) throw new RangeError(`d[${i}] is NaN`);
  if (n === 0) return { statistic: NaN, pvalue: NaN, method: 'exact', rPlus: NaN, rMinus: NaN, n: 0, nonZero: 0 };
  const nz: number[] = [];
  for (let i = 0; i < n; i++) if (d[i] !== 0) nz.push(d[i]);
  const count = nz.length;
  const abs = new Float64Array(count);
  for (let i = 0; i < count; i++) abs[i] = Math.abs(nz[i]);
  const { ranks, ties } = rankAverage(abs);
  let rPlus = 0;
  let rMinus = 0;
  for (let i = 0; i < count; i++) {
    if (nz[i] > 0) rPlus += ranks[i];
    else rMinus += ranks[i];
  }
  const hasTies = ties.some((t) => t > 1);
  const nZero = n - count;
  const statistic = Math.min(rPlus, rMinus);
  const base = { statistic, rPlus, rMinus, n, nonZero: count };

  let method: WilcoxonMethod;
  if (n > 50) method = 'asymptotic';
  else if (!hasTies && nZero === 0) method = 'exact';
  else if (n <= 13) method = 'permutation';
  else method = 'asymptotic';

  if (method === 'exact') {
    const pmf = wilcoxonNullPmf(count);
    const mean = (count * (count + 1)) / 4;
    // cdf(k) and sf(k) as SciPy's WilcoxonDistribution computes them (direct sum on the near side).
    const cdf = (k: number): number => (k <= mean ? sumRange(pmf, 0, k) : 1 - sumRange(pmf, k + 1, pmf.length - 1));
    const sf = (k: number): number => (k <= mean ? sumRange(pmf, k, pmf.length - 1) : 1 - sumRange(pmf, 0, k - 1));
    const p = 2 * Math.min(sf(Math.floor(rPlus)), cdf(Math.ceil(rPlus)));
    return { ...base, pvalue: clip(p), method };
  }
  if (method === 'permutation') {
    // SciPy's permutation_test needs two or more observations (a single zero difference is refused).
    if (n < 2) throw new RangeError('a permutation test needs two or more differences (SciPy raises here)');
    // Every sign assignment of the n differences; flipping a zero changes nothing but is counted, as SciPy does.
    const total = 2 ** n;
    const gamma = Math.abs(rPlus) * 100 * Number.EPSILON;
    let less = 0;
    let greater = 0;
    for (let mask = 0; mask < total; mask++) {
      let s = 0;
      for (let i = 0, j = 0; i < n; i++) {
        if (d[i] === 0) continue;
        // bit i set: observation i keeps its sign; clear: flipped
        const positive = (mask >> i) & 1 ? d[i] > 0 : d[i] < 0;
        if (positive) s += ranks[j];
        j++;
      }
      if (s <= rPlus + gamma) less++;
      if (s >= rPlus - gamma) greater++;
    }
    return { ...base, pvalue: clip((2 * Math.min(less, greater)) / total), method };
  }
  const mn = count * (count + 1) * 0.25;
  let tieTerm = 0;
  for (const t of ties) tieTerm += t * t * t - t;
  const se = Math.sqrt((count * (count + 1) * (2 * count + 1) - tieTerm / 2) / 24);
  const z = (rPlus - mn) / se; // 0/0 = NaN when every difference is zero, as in SciPy
  const p = Number.isNaN(z) ? NaN : clip(2 * ndtr(-Math.abs(z)));
  return { ...base, pvalue: p, method, z: Number.isNaN(z) ? NaN : -Math.abs(z) };
}

function sumRange(a: Float64Array, from: number, to: number): number {
  let s = 0;
  for (let i = Math.max(0, from); i <= to && i < a.length; i++) s += a[i];
  return s;
}

function clip(p: number): number {
  return p < 0 ? 0 : p > 1 ? 1 : p;
}

// ---------------------------------------------------------------------------------------------
// Binomial probabilities (Loader's saddle-point form, accurate for n in the millions)

const LN_SQRT_2PI = 0.5 * Math.log(2 * Math.PI);
const LOG_FACT: number[] = [0];
for (let i = 1; i <= 20; i++) LOG_FACT.push(LOG_FACT[i - 1] + Math.log(i));

/** log(n!) - log(sqrt(2 pi n) (n/e)^n), the error of Stirling's formula, for integer n >= 1. */
function stirlingError(n: number): number {
  if (n <= 15) {
    return LOG_FACT[n] - (n + 0.5) * Math.log(n) + n - LN_SQRT_2PI;
  }
  const nn = n * n;
  const s0 = 1 / 12;
  const s1 = 1 / 360;
  const s2 = 1 / 1260;
  const s3 = 1 / 1680;
  const s4 = 1 / 1188;
  if (n > 500) return (s0 - s1 / nn) / n;
  if (n > 80) return (s0 - (s1 - s2 / nn) / nn) / n;
  if (n > 35) return (s0 - (s1 - (s2 - s3 / nn) / nn) / nn) / n;
  return (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n;
}

/** x log(x / m) + m - x, computed without cancellation when x is close to m. */
function deviance(x: number, m: number): number {
  if (Math.abs(x - m) < 0.1 * (x + m)) {
    let v = (x - m) / (x + m);
    let s = (x - m) * v;
    let ej = 2 * x * v;
    v *= v;
    for (let j = 1; j < 1000; j++) {
      ej *= v;
      const s1 = s + ej / (2 * j + 1);
      if (s1 === s) return s1;
      s = s1;
    }
    return s;
  }
  return x * Math.log(x / m) + m - x;
}

/** P(X = k) for X ~ Binomial(n, p), 0 < p < 1. */
export function binomialPmf(k: number, n: number, p: number): number {
  if (k < 0 || k > n || !Number.isInteger(k)) return 0;
  const q = 1 - p;
  if (k === 0) return Math.exp(n * Math.log1p(-p));
  if (k === n) return Math.exp(n * Math.log(p));
  const lc = stirlingError(n) - stirlingError(k) - stirlingError(n - k) - deviance(k, n * p) - deviance(n - k, n * q);
  const lf = Math.log(2 * Math.PI) + Math.log(k) + Math.log1p(-k / n);
  return Math.exp(lc - 0.5 * lf);
}

/** P(X <= k) for X ~ Binomial(n, 1/2), k <= n/2: the lower tail summed from k down until the terms vanish. */
function binomialHalfLowerTail(k: number, n: number): number {
  if (k < 0) return 0;
  let term = binomialPmf(k, n, 0.5);
  let sum = term;
  for (let i = k; i > 0; i--) {
    term = (term * i) / (n - i + 1); // pmf(i-1) = pmf(i) * i / (n - i + 1) at p = 1/2
    sum += term;
    if (term < sum * 1e-18) break;
  }
  return sum;
}

interface McNemarResult {
  /** min(b, c), the statistic statsmodels reports. */
  statistic: number;
  pvalue: number;
  /** Discordant counts: b = pairs with A true and B false, c = A false and B true. */
  b: number;
  c: number;
}

/**
 * McNemar's exact test on the discordant counts b and c: p = min(1, 2 P(X <= min(b, c))) with
 * X ~ Binomial(b + c, 1/2), which equals the two-sided exact binomial test of b successes in b + c.
 * With no discordant pair p = 1.
 */
export function mcnemarExact(b: number, c: number): McNemarResult {
  for (const [name, v] of [
    ['b', b],
    ['c', c],
  ] as const) {
    if (!Number.isInteger(v) || v < 0) throw new RangeError(`${name} must be a non-negative integer, got ${v}`);
  }
  const k = Math.min(b, c);
  const n = b + c;
  const p = n === 0 ? 1 : Math.min(1, 2 * binomialHalfLowerTail(k, n));
  return { statistic: k, pvalue: p, b, c };
}

interface BootstrapInterval {
  mean: number;
  low: number;
  high: number;
  level: number;
  resamples: number;
  seed: string;
}

/**
 * Percentile bootstrap interval for the mean of paired differences: `resamples` resamples of the
 * pairs with replacement drawn from a generator seeded with `seed`, so the same data and seed
 * give the same interval. Quantiles by linear interpolation (numpy's default).
 */
export function bootstrapMeanInterval(
  d: ArrayLike<number>,
  opts: { seed?: string; resamples?: number; level?: number } = {},
): BootstrapInterval {
  const n = d.length;
  const resamples = opts.resamples ?? 2000;
  const level = opts.level ?? 0.95;
  const seed = opts.seed ?? 'simlens-bootstrap';
  let total = 0;
  for (let i = 0; i < n; i++) total += d[i];
  const mean = n ? total / n : NaN;
  if (n === 0) return { mean, low: NaN, high: NaN, level, resamples, seed };
  const rng = createRng(seed);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += d[rng.int(n)];
    means[r] = s / n;
  }
  means.sort();
  const q = (p: number): number => {
    const h = (resamples - 1) * p;
    const lo = Math.floor(h);
    const hi = Math.min(resamples - 1, lo + 1);
    return means[lo] + (h - lo) * (means[hi] - means[lo]);
  };
  const alpha = (1 - level) / 2;
  return { mean, low: q(alpha), high: q(1 - alpha), level, resamples, seed };
}
