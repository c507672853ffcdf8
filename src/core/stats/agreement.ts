/**
 * Agreement and divergence measures: Cohen's kappa and the Kullback-Leibler divergence.
 */

/**
 * Unweighted Cohen's kappa between two raters' labels (sklearn `cohen_kappa_score`):
 * κ = (p_o - p_e) / (1 - p_e) from the confusion matrix over the union of labels.
 * Returns NaN when p_e = 1 (both raters used one and the same label throughout).
 */
export function cohenKappa<T extends string | number | boolean>(a: readonly T[], b: readonly T[]): number {
  if (a.length !== b.length) throw new RangeError(`cohenKappa: ${a.length} labels against ${b.length}`);
  const n = a.length;
  if (n === 0) return NaN;
  const labels = new Map<T, number>();
  for (const v of [...a, ...b]) if (!labels.has(v)) labels.set(v, labels.size);
  const k = labels.size;
  const rows = new Float64Array(k);
  const cols = new Float64Array(k);
  let agree = 0;
  for (let i = 0; i < n; i++) {
    const r = labels.get(a[i])!;
    const c = labels.get(b[i])!;
    rows[r]++;
    cols[c]++;
    if (r === c) agree++;
  }
  const po = agree / n;
  let pe = 0;
  for (let i = 0; i < k; i++) pe += rows[i] * cols[i];
  pe /= n * n;
  return (po - pe) / (1 - pe);
}

/** Elementwise relative entropy a·ln(a/b) with SciPy's conventions (0 for a = 0, +∞ for b = 0 < a). */
export function relEntr(a: number, b: number): number {
  if (Number.isNaN(a) || Number.isNaN(b)) return NaN;
  if (a > 0 && b > 0) return a * Math.log(a / b);
  if (a === 0 && b >= 0) return 0;
  return Infinity;
}

/**
 * KL(p || q) = Σ p_i ln(p_i / q_i) after normalising both to sum 1 (`scipy.stats.entropy(p, q)`),
 * divided by ln(base) when a base is given.
 */
export function klDivergence(p: readonly number[], q: readonly number[], base?: number): number {
  if (p.length !== q.length) throw new RangeError(`klDivergence: ${p.length} against ${q.length} categories`);
  const sp = p.reduce((s, v) => s + v, 0);
  const sq = q.reduce((s, v) => s + v, 0);
  let sum = 0;
  for (let i = 0; i < p.length; i++) sum += relEntr(p[i] / sp, q[i] / sq);
  return base === undefined ? sum : sum / Math.log(base);
}

/**
 * Symmetric KL, (KL(P||Q) + KL(Q||P)) / 2, over two count (or probability) vectors on the same
 * categories, after additive smoothing: every category gets `alpha` pseudo-counts before
 * normalisation (alpha = 0 disables smoothing and may give +∞ when a category is missing on
 * one side).
 */
export function symmetricKl(p: readonly number[], q: readonly number[], alpha = 0): number {
  const ps = p.map((v) => v + alpha);
  const qs = q.map((v) => v + alpha);
  return (klDivergence(ps, qs) + klDivergence(qs, ps)) / 2;
}
