/**
 * Two-sided Mann-Whitney U test, equal to `scipy.stats.mannwhitneyu(x, y)` (SciPy 1.17 defaults:
 * alternative='two-sided', use_continuity=True, method='auto').
 */
import { checkSample, rankAverage } from './rank';
import { ndtr } from './special';

type MwuMethod = 'auto' | 'exact' | 'asymptotic';

interface MannWhitneyResult {
  /** U1 = R1 - n1(n1+1)/2, the statistic SciPy reports (for the first sample). */
  statistic: number;
  pvalue: number;
  /** The method actually used. */
  method: 'exact' | 'asymptotic';
  u1: number;
  u2: number;
  /** Standardised statistic (asymptotic method only). */
  z?: number;
}

/**
 * Null distribution of U for samples of sizes n1, n2 without ties: P(U = u) for u = 0..maxU.
 *
 * The counts of arrangements with U = u are the coefficients of the Gaussian binomial
 * [a+b choose a]_q = Π_{i=1..a} (1 - q^(b+i)) / (1 - q^i) (a = min(n1, n2), b = max), the same
 * numbers SciPy gets from Löffler's (1983) recursion. Building the product factor by factor,
 * truncated at degree maxU, costs O(a·maxU) instead of the recursion's O(maxU²), and every
 * intermediate polynomial is [b+i choose i]_q with non-negative integer coefficients, so the
 * counts are exact while they stay below 2^53.
 */
export function mwuNullPmf(n1: number, n2: number, maxU: number): Float64Array {
  const a = Math.min(n1, n2);
  const b = Math.max(n1, n2);
  const c = new Float64Array(maxU + 1);
  c[0] = 1;
  for (let i = 1; i <= a; i++) {
    const up = b + i;
    for (let k = maxU; k >= up; k--) c[k] -= c[k - up]; // × (1 - q^(b+i))
    for (let k = i; k <= maxU; k++) c[k] += c[k - i]; // ÷ (1 - q^i)
  }
  const total = binomial(a + b, a);
  for (let u = 0; u <= maxU; u++) c[u] /= total;
  return c;
}

/** C(n, k) in floating point (multiplicative formula; every partial product is an integer, so it is exact below 2^53). */
export function binomial(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  const kk = Math.min(k, n - k);
  let r = 1;
  for (let i = 1; i <= kk; i++) r = (r * (n - kk + i)) / i;
  return r;
}

/**
 * Two-sided Mann-Whitney U test of x against y.
 * @param method 'auto' follows SciPy: asymptotic when both samples exceed 8, or when any value is
 *   tied anywhere in the pooled data; exact otherwise.
 */
export function mannWhitneyU(
  x: ArrayLike<number>,
  y: ArrayLike<number>,
  method: MwuMethod = 'auto',
): MannWhitneyResult {
  checkSample(x, 'x');
  checkSample(y, 'y');
  const n1 = x.length;
  const n2 = y.length;
  const pooled = new Float64Array(n1 + n2);
  for (let i = 0; i < n1; i++) pooled[i] = x[i];
  for (let i = 0; i < n2; i++) pooled[n1 + i] = y[i];
  const { ranks, ties } = rankAverage(pooled);
  let r1 = 0;
  for (let i = 0; i < n1; i++) r1 += ranks[i];
  const u1 = r1 - (n1 * (n1 + 1)) / 2;
  const u2 = n1 * n2 - u1;
  const u = Math.max(u1, u2);
  let chosen: 'exact' | 'asymptotic';
  if (method === 'auto') {
    const anyTie = ties.some((t) => t > 1);
    chosen = (n1 > 8 && n2 > 8) || anyTie ? 'asymptotic' : 'exact';
  } else chosen = method;

  if (chosen === 'exact') {
    const kc = n1 * n2 - u; // <= n1 n2 / 2
    const pmf = mwuNullPmf(n1, n2, kc);
    let cdf = 0;
    for (let i = 0; i <= kc; i++) cdf += pmf[i];
    return { statistic: u1, pvalue: clip(2 * cdf), method: 'exact', u1, u2 };
  }
  const mu = (n1 * n2) / 2;
  const n = n1 + n2;
  let tieTerm = 0;
  for (const t of ties) tieTerm += t * t * t - t;
  const s = Math.sqrt(((n1 * n2) / 12) * (n + 1 - tieTerm / (n * (n - 1))));
  const z = (u - mu - 0.5) / s; // s = 0 (all equal) gives -Infinity and p = 1
  const p = clip(2 * ndtr(-z));
  return { statistic: u1, pvalue: p, method: 'asymptotic', u1, u2, z };
}

function clip(p: number): number {
  return p < 0 ? 0 : p > 1 ? 1 : p;
}
