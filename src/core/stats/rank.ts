/**
 * Ranking helpers shared by the rank tests (SciPy `rankdata(method='average')`).
 */

/** Average ranks (1-based) plus the sizes of all tie groups in sorted order (singletons included). */
interface RankResult {
  ranks: Float64Array;
  /** Size of every group of equal values, in ascending value order (1 for a value without ties). */
  ties: number[];
}

/** Indices 0..n-1 sorted by value (stable). NaN is not allowed; callers validate first. */
function argsort(values: ArrayLike<number>): Uint32Array {
  const n = values.length;
  const idx = new Uint32Array(n);
  for (let i = 0; i < n; i++) idx[i] = i;
  // Uint32Array.prototype.sort with a comparator is stable in V8 (TimSort).
  idx.sort((a, b) => values[a] - values[b] || a - b);
  return idx;
}

/** Average ranks of the values, like `scipy.stats.rankdata(values, method='average')`. */
export function rankAverage(values: ArrayLike<number>): RankResult {
  const n = values.length;
  const order = argsort(values);
  const ranks = new Float64Array(n);
  const ties: number[] = [];
  let i = 0;
  while (i < n) {
    let j = i + 1;
    const v = values[order[i]];
    while (j < n && values[order[j]] === v) j++;
    // positions i..j-1 (0-based) share the mean of ranks i+1..j
    const r = (i + 1 + j) / 2;
    for (let k = i; k < j; k++) ranks[order[k]] = r;
    ties.push(j - i);
    i = j;
  }
  return { ranks, ties };
}

/** Throws a RangeError naming the sample if it holds NaN or is empty. */
export function checkSample(values: ArrayLike<number>, name: string): void {
  if (values.length === 0) throw new RangeError(`${name} is empty`);
  for (let i = 0; i < values.length; i++) {
    if (Number.isNaN(values[i])) throw new RangeError(`${name}[${i}] is NaN`);
  }
}
