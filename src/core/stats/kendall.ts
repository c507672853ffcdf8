/**
 * Kendall's tau-b with its two-sided p-value, equal to `scipy.stats.kendalltau(x, y)` (variant 'b',
 * method 'auto').
 */
import { ndtr } from './special';

interface KendallResult {
  /** tau-b in [-1, 1]; NaN when x or y is constant. */
  statistic: number;
  pvalue: number;
  method: 'exact' | 'asymptotic' | 'undefined';
}

/** Dense ranks 1..k of the values (equal values share a rank). */
function denseRanks(values: ArrayLike<number>): Int32Array {
  const n = values.length;
  const idx = Array.from({ length: n }, (_, i) => i).sort((a, b) => values[a] - values[b]);
  const out = new Int32Array(n);
  let r = 0;
  for (let k = 0; k < n; k++) {
    if (k === 0 || values[idx[k]] !== values[idx[k - 1]]) r++;
    out[idx[k]] = r;
  }
  return out;
}

/** Tie statistics of one variable: Σ t(t-1)/2, Σ t(t-1)(t-2), Σ t(t-1)(2t+5) over tie groups. */
function tieStats(ranks: Int32Array): [number, number, number] {
  const counts = new Map<number, number>();
  for (const r of ranks) counts.set(r, (counts.get(r) ?? 0) + 1);
  let a = 0;
  let b = 0;
  let c = 0;
  for (const t of counts.values()) {
    if (t < 2) continue;
    a += (t * (t - 1)) / 2;
    b += t * (t - 1) * (t - 2);
    c += t * (t - 1) * (2 * t + 5);
  }
  return [a, b, c];
}

/** Counts strictly discordant pairs of (x, y) sorted by x then y, by merge-sort inversion counting on y. */
function countDiscordant(xr: Int32Array, yr: Int32Array): number {
  const n = xr.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => xr[a] - xr[b] || yr[a] - yr[b]);
  let arr = Int32Array.from(order, (i) => yr[i]);
  let buf = new Int32Array(n);
  let inv = 0;
  for (let width = 1; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        if (arr[j] < arr[i]) {
          inv += mid - i; // arr[j] is smaller than every remaining left element
          buf[k++] = arr[j++];
        } else buf[k++] = arr[i++];
      }
      while (i < mid) buf[k++] = arr[i++];
      while (j < hi) buf[k++] = arr[j++];
    }
    [arr, buf] = [buf, arr];
  }
  return inv;
}

/** Exact two-sided p-value of Kendall's statistic for n untied pairs with c concordant pairs. */
export function kendallExactP(n: number, c0: number): number {
  const tot = (n * (n - 1)) / 2;
  const c = Math.min(c0, tot - c0);
  if (n <= 2) return 1;
  if (c === 0) return n < 171 ? 2 / factorial(n) : 0;
  if (c === 1) return n < 172 ? 2 / factorial(n - 1) : 0;
  if (4 * c === n * (n - 1)) return 1;
  let v = new Float64Array(c + 1);
  v[0] = 1;
  if (c >= 1) v[1] = 1;
  const scaled = n >= 171;
  for (let j = 3; j <= n; j++) {
    const next = new Float64Array(c + 1);
    let s = 0;
    for (let i = 0; i <= c; i++) {
      s += v[i];
      next[i] = scaled ? s / j : s;
    }
    if (j <= c) {
      const before = Float64Array.from(next);
      for (let i = j; i <= c; i++) next[i] -= before[i - j];
    }
    v = next;
  }
  let sum = 0;
  for (const t of v) sum += t;
  const p = scaled ? sum : (2 * sum) / factorial(n);
  return p < 0 ? 0 : p > 1 ? 1 : p;
}

function factorial(n: number): number {
  let f = 1;
  for (let i = 2; i <= n; i++) f *= i;
  return f;
}

/** Kendall's tau-b of paired samples x, y with SciPy's exact/asymptotic choice. */
export function kendallTau(x: ArrayLike<number>, y: ArrayLike<number>): KendallResult {
  if (x.length !== y.length) throw new RangeError(`kendallTau: x has ${x.length} values, y has ${y.length}`);
  const n = x.length;
  for (let i = 0; i < n; i++) {
    if (Number.isNaN(x[i]) || Number.isNaN(y[i])) return { statistic: NaN, pvalue: NaN, method: 'undefined' };
  }
  if (n < 2) return { statistic: NaN, pvalue: NaN, method: 'undefined' };
  const xr = denseRanks(x);
  const yr = denseRanks(y);
  const dis = countDiscordant(xr, yr);
  // joint ties: runs of equal (x, y)
  const joint = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const key = `${xr[i]},${yr[i]}`;
    joint.set(key, (joint.get(key) ?? 0) + 1);
  }
  let ntie = 0;
  for (const t of joint.values()) ntie += (t * (t - 1)) / 2;
  const [xtie, x0, x1] = tieStats(xr);
  const [ytie, y0, y1] = tieStats(yr);
  const tot = (n * (n - 1)) / 2;
  if (xtie === tot || ytie === tot) return { statistic: NaN, pvalue: NaN, method: 'undefined' };
  const s = tot - xtie - ytie + ntie - 2 * dis;
  let tau = s / Math.sqrt(tot - xtie) / Math.sqrt(tot - ytie);
  tau = Math.min(1, Math.max(-1, tau));
  const exact = xtie === 0 && ytie === 0 && (n <= 33 || Math.min(dis, tot - dis) <= 1);
  if (exact) return { statistic: tau, pvalue: kendallExactP(n, tot - dis), method: 'exact' };
  const m = n * (n - 1);
  const variance = (m * (2 * n + 5) - x1 - y1) / 18 + (2 * xtie * ytie) / m + (x0 * y0) / (9 * m * (n - 2));
  const z = s / Math.sqrt(variance);
  return { statistic: tau, pvalue: 2 * ndtr(-Math.abs(z)), method: 'asymptotic' };
}
