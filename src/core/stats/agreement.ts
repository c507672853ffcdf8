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

/**
 * Fleiss' kappa for a fixed number of raters per item (`statsmodels.stats.inter_rater.fleiss_kappa`):
 * `counts[i][j]` = raters who put item i in category j; every row must sum to the same n >= 2.
 * κ = (P̄ − P̄e) / (1 − P̄e). Returns NaN for no items or when P̄e = 1 (one category throughout).
 */
export function fleissKappa(counts: readonly (readonly number[])[]): number {
  const N = counts.length;
  if (N === 0) return NaN;
  const k = counts[0].length;
  const n = counts[0].reduce((s, v) => s + v, 0);
  if (n < 2) throw new RangeError(`fleissKappa: ${n} rater(s) per item; needs at least 2`);
  const colTotals = new Float64Array(k);
  let sumP = 0;
  counts.forEach((row, i) => {
    if (row.length !== k) throw new RangeError(`fleissKappa: row ${i} has ${row.length} categories, row 0 has ${k}`);
    let total = 0;
    let sq = 0;
    row.forEach((v, j) => {
      total += v;
      sq += v * v;
      colTotals[j] += v;
    });
    if (total !== n) throw new RangeError(`fleissKappa: row ${i} has ${total} ratings, row 0 has ${n}`);
    sumP += (sq - n) / (n * (n - 1));
  });
  const pBar = sumP / N;
  let pe = 0;
  for (const c of colTotals) pe += (c / (N * n)) ** 2;
  return (pBar - pe) / (1 - pe);
}

/** Fleiss' kappa from labels: `ratings[i]` = the label each rater gave item i (same rater count per item). */
export function fleissKappaFromLabels(ratings: readonly (readonly string[])[]): number {
  const cats = new Map<string, number>();
  for (const row of ratings) for (const l of row) if (!cats.has(l)) cats.set(l, cats.size);
  return fleissKappa(
    ratings.map((row) => {
      const c = new Array<number>(cats.size).fill(0);
      for (const l of row) c[cats.get(l)!]++;
      return c;
    }),
  );
}

/** Elementwise relative entropy a·ln(a/b) with SciPy's conventions (0 for a = 0, +∞ for b = 0 < a). */
function relEntr(a: number, b: number): number {
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
