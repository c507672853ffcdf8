/**
 * Two-sample Kolmogorov-Smirnov test, equal to `scipy.stats.ks_2samp(x, y)` (two-sided,
 * method='auto'), including SciPy's rounding of the statistic to a multiple of 1/lcm(n1, n2) in the
 * exact method and its fallback to the asymptotic method when the exact result is unusable.
 */
import { checkSample } from './rank';
import { kstwoSf } from './kolmogorov';
import { gcd, roundHalfEven } from './special';

type KsMethod = 'auto' | 'exact' | 'asymp';

interface KsResult {
  /** D; in the exact method, rounded to h/lcm(n1, n2) as SciPy reports it. */
  statistic: number;
  pvalue: number;
  method: 'exact' | 'asymp';
  /** True when the exact computation failed and SciPy's asymptotic fallback was used. */
  fellBack: boolean;
  /** +1 when D is max(F1 - F2), -1 when it is max(F2 - F1). */
  sign: 1 | -1;
}

const MAX_AUTO_N = 10000;

/** Largest differences of the right-continuous ECDFs F1 - F2 over the pooled points. */
export function ksStatistic(x: ArrayLike<number>, y: ArrayLike<number>): { d: number; sign: 1 | -1 } {
  const a = Float64Array.from(x).sort();
  const b = Float64Array.from(y).sort();
  const n1 = a.length;
  const n2 = b.length;
  let i = 0;
  let j = 0;
  let maxDiff = -Infinity;
  let minDiff = Infinity;
  while (i < n1 || j < n2) {
    // next distinct pooled value
    const v = j >= n2 || (i < n1 && a[i] <= b[j]) ? a[i] : b[j];
    while (i < n1 && a[i] <= v) i++;
    while (j < n2 && b[j] <= v) j++;
    const diff = i / n1 - j / n2;
    if (diff > maxDiff) maxDiff = diff;
    if (diff < minDiff) minDiff = diff;
  }
  const minS = Math.min(Math.max(-minDiff, 0), 1);
  return minS > maxDiff ? { d: minS, sign: -1 } : { d: maxDiff, sign: 1 };
}

/** P(D_{n,n} >= h/n) for two samples of equal size n (SciPy `_compute_prob_outside_square`). */
export function probOutsideSquare(n: number, h: number): number {
  let P = 0;
  for (let k = Math.floor(n / h); k >= 0; k--) {
    let p1 = 1;
    for (let j = 0; j < h; j++) p1 = ((n - k * h - j) * p1) / (n + k * h + j + 1);
    P = p1 * (1 - P);
  }
  return 2 * P;
}

/**
 * Proportion of lattice paths from (0,0) to (m,n) that leave the band |x/m - y/n| < h/lcm (Hodges'
 * inside method with Viehmann's recursion for 1 - p; SciPy `_compute_outer_prob_inside_method`).
 */
function probOutsideInside(m0: number, n0: number, g: number, h: number): number {
  let m = m0;
  let n = n0;
  if (m < n) [m, n] = [n, m];
  const mg = m / g;
  const ng = n / g;
  let minj = 0;
  let maxj = Math.min(Math.ceil(h / mg), n + 1);
  let curlen = maxj - minj;
  const lenA = Math.min(2 * maxj + 2, n + 1);
  const A = new Float64Array(lenA).fill(1);
  for (let k = minj; k < maxj; k++) A[k] = 0;
  for (let i = 1; i <= m; i++) {
    const lastminj = minj;
    const lastlen = curlen;
    minj = Math.min(Math.max(Math.floor((ng * i - h) / mg) + 1, 0), n);
    maxj = Math.min(Math.ceil((ng * i + h) / mg), n + 1);
    if (maxj <= minj) return 1;
    let val = minj === 0 ? 0 : 1;
    const width = maxj - minj;
    const shift = minj - lastminj;
    if (width + shift > lenA) return NaN; // never expected; signals a failure like SciPy's FP error
    for (let jj = 0; jj < width; jj++) {
      const j = jj + minj;
      val = (A[jj + shift] * i + val * j) / (i + j);
      A[jj] = val;
    }
    curlen = width;
    if (lastlen > curlen) A.fill(1, width, width + (lastlen - curlen));
  }
  return A[maxj - minj - 1];
}

/**
 * Two-sided two-sample KS test of x against y.
 * @param method 'auto' = exact when max(n1, n2) <= 10,000, else asymptotic (SciPy's rule).
 */
export function ks2samp(x: ArrayLike<number>, y: ArrayLike<number>, method: KsMethod = 'auto'): KsResult {
  checkSample(x, 'x');
  checkSample(y, 'y');
  const n1 = x.length;
  const n2 = y.length;
  let { d, sign } = ksStatistic(x, y);
  let mode: 'exact' | 'asymp' = method === 'auto' ? (Math.max(n1, n2) <= MAX_AUTO_N ? 'exact' : 'asymp') : method;
  const g = gcd(n1, n2);
  if (method === 'exact' && n1 / g >= 2147483647 / (n2 / g)) mode = 'asymp';
  let fellBack = false;
  let prob = NaN;
  if (mode === 'exact') {
    const lcm = (n1 / g) * n2;
    const h = roundHalfEven(d * lcm);
    d = h / lcm;
    if (h === 0) {
      prob = 1;
    } else {
      prob = n1 === n2 ? probOutsideSquare(n1, h) : probOutsideInside(n1, n2, g, h);
      if (!(prob >= 0 && prob <= 1)) {
        fellBack = true;
        mode = 'asymp';
      }
    }
  }
  if (mode === 'asymp') {
    const m = Math.max(n1, n2);
    const n = Math.min(n1, n2);
    const en = (m * n) / (m + n);
    prob = kstwoSf(d, roundHalfEven(en));
  }
  prob = prob < 0 ? 0 : prob > 1 ? 1 : prob;
  return { statistic: d, pvalue: prob, method: mode, fellBack, sign };
}
