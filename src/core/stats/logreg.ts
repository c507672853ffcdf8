/**
 * L2-regularised logistic regression on sparse features, with scikit-learn's default objective
 * (`LogisticRegression(C=1)`):
 *
 *   minimise  Σ_i log(1 + exp(-s_i (w·x_i + b)))  +  ||w||² / (2C),   s_i = ±1, intercept b unpenalised.
 *
 * Solved by a truncated Newton method: each step solves H d = -g approximately with
 * Jacobi-preconditioned conjugate gradients using Hessian-vector products (X^T D X v, never the
 * Hessian itself), followed by a backtracking line search. Near the optimum it converges
 * quadratically, so a tight gradient tolerance costs only a few extra iterations.
 */

/** A sparse matrix in compressed sparse row form. */
export interface CsrMatrix {
  rows: number;
  cols: number;
  /** Row i's entries are indptr[i] .. indptr[i+1]-1 of indices/data. */
  indptr: Int32Array;
  indices: Int32Array;
  data: Float64Array;
}

/** Builds a CSR matrix from rows of (column, value) pairs. */
export function csrFromRows(rows: readonly (readonly [number, number][])[], cols: number): CsrMatrix {
  let nnz = 0;
  for (const r of rows) nnz += r.length;
  const indptr = new Int32Array(rows.length + 1);
  const indices = new Int32Array(nnz);
  const data = new Float64Array(nnz);
  let k = 0;
  rows.forEach((r, i) => {
    for (const [c, v] of r) {
      if (c < 0 || c >= cols) throw new RangeError(`csrFromRows: column ${c} outside 0..${cols - 1} in row ${i}`);
      indices[k] = c;
      data[k] = v;
      k++;
    }
    indptr[i + 1] = k;
  });
  return { rows: rows.length, cols, indptr, indices, data };
}

/** A dense row-major matrix (array of rows) as CSR, dropping zeros. */
export function csrFromDense(dense: readonly (readonly number[])[]): CsrMatrix {
  const cols = dense.length ? dense[0].length : 0;
  return csrFromRows(
    dense.map((row) => row.flatMap((v, j) => (v !== 0 ? [[j, v] as [number, number]] : []))),
    cols,
  );
}

/** Rows `which` of X, in that order. */
export function csrSelectRows(X: CsrMatrix, which: ArrayLike<number>): CsrMatrix {
  let nnz = 0;
  for (let i = 0; i < which.length; i++) nnz += X.indptr[which[i] + 1] - X.indptr[which[i]];
  const indptr = new Int32Array(which.length + 1);
  const indices = new Int32Array(nnz);
  const data = new Float64Array(nnz);
  let k = 0;
  for (let i = 0; i < which.length; i++) {
    const r = which[i];
    for (let p = X.indptr[r]; p < X.indptr[r + 1]; p++) {
      indices[k] = X.indices[p];
      data[k] = X.data[p];
      k++;
    }
    indptr[i + 1] = k;
  }
  return { rows: which.length, cols: X.cols, indptr, indices, data };
}

interface LogisticOptions {
  /** Inverse regularisation strength (sklearn's C). Default 1. */
  C?: number;
  /** Fit an unpenalised intercept. Default true. */
  fitIntercept?: boolean;
  /** Stop when max|gradient| <= tol · max(1, max|gradient at w = 0|). Default 1e-10. */
  tol?: number;
  /** Maximum Newton iterations. Default 100. */
  maxIter?: number;
}

export interface LogisticModel {
  coef: Float64Array;
  intercept: number;
  /** Newton iterations used. */
  iterations: number;
  /** max|gradient| at the returned point. */
  gradientNorm: number;
  converged: boolean;
}

/** Numerically stable log(1 + exp(t)). */
function softplus(t: number): number {
  return t > 0 ? t + Math.log1p(Math.exp(-t)) : Math.log1p(Math.exp(t));
}

/** The logistic function 1 / (1 + exp(-t)), stable for large |t|. */
export function sigmoid(t: number): number {
  if (t >= 0) return 1 / (1 + Math.exp(-t));
  const e = Math.exp(t);
  return e / (1 + e);
}

function matVec(X: CsrMatrix, w: Float64Array, b: number, out: Float64Array): void {
  const { indptr, indices, data } = X;
  for (let i = 0; i < X.rows; i++) {
    let s = b;
    for (let p = indptr[i]; p < indptr[i + 1]; p++) s += data[p] * w[indices[p]];
    out[i] = s;
  }
}

/** out = X^T u */
function matTVec(X: CsrMatrix, u: Float64Array, out: Float64Array): void {
  out.fill(0);
  const { indptr, indices, data } = X;
  for (let i = 0; i < X.rows; i++) {
    const ui = u[i];
    if (ui === 0) continue;
    for (let p = indptr[i]; p < indptr[i + 1]; p++) out[indices[p]] += data[p] * ui;
  }
}

/**
 * Fits the model to labels y (0/1, or booleans). Throws when the lengths disagree or a label is
 * not 0/1.
 */
export function fitLogistic(
  X: CsrMatrix,
  y: ArrayLike<number | boolean>,
  options: LogisticOptions = {},
): LogisticModel {
  const C = options.C ?? 1;
  const fitIntercept = options.fitIntercept ?? true;
  const tol = options.tol ?? 1e-10;
  const maxIter = options.maxIter ?? 100;
  const n = X.rows;
  const d = X.cols;
  if (y.length !== n) throw new RangeError(`fitLogistic: ${n} rows but ${y.length} labels`);
  const yy = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const v = Number(y[i]);
    if (v !== 0 && v !== 1) throw new RangeError(`fitLogistic: label ${i} is ${String(y[i])}, expected 0 or 1`);
    yy[i] = v;
  }
  const lambda = 1 / C;
  const w = new Float64Array(d);
  let b = 0;
  const z = new Float64Array(n);
  const p = new Float64Array(n);
  const Dg = new Float64Array(n);
  const gw = new Float64Array(d);
  const resid = new Float64Array(n);

  const objective = (ww: Float64Array, bb: number, zz: Float64Array): number => {
    matVec(X, ww, bb, zz);
    let f = 0;
    for (let i = 0; i < n; i++) f += yy[i] === 1 ? softplus(-zz[i]) : softplus(zz[i]);
    let r = 0;
    for (let j = 0; j < d; j++) r += ww[j] * ww[j];
    return f + 0.5 * lambda * r;
  };

  let f = objective(w, b, z);
  let gnorm0 = -1;
  let gb = 0;
  let iterations = 0;
  let gnorm = Infinity;
  // work vectors for CG
  const sw = new Float64Array(d);
  const rw = new Float64Array(d);
  const zw = new Float64Array(d);
  const pw = new Float64Array(d);
  const hw = new Float64Array(d);
  const diag = new Float64Array(d);
  const t = new Float64Array(n);
  const wNew = new Float64Array(d);
  const zNew = new Float64Array(n);

  for (;;) {
    // gradient and Hessian weights at (w, b); z is current
    for (let i = 0; i < n; i++) {
      p[i] = sigmoid(z[i]);
      resid[i] = p[i] - yy[i];
      Dg[i] = p[i] * (1 - p[i]);
    }
    matTVec(X, resid, gw);
    for (let j = 0; j < d; j++) gw[j] += lambda * w[j];
    gb = 0;
    if (fitIntercept) for (let i = 0; i < n; i++) gb += resid[i];
    gnorm = Math.abs(gb);
    for (let j = 0; j < d; j++) gnorm = Math.max(gnorm, Math.abs(gw[j]));
    if (gnorm0 < 0) gnorm0 = gnorm;
    if (gnorm <= tol * Math.max(1, gnorm0) || iterations >= maxIter) break;
    iterations++;

    // Jacobi preconditioner: diag(H)
    diag.fill(lambda);
    let diagB = 0;
    for (let i = 0; i < n; i++) {
      const di = Dg[i];
      diagB += di;
      for (let q = X.indptr[i]; q < X.indptr[i + 1]; q++) diag[X.indices[q]] += di * X.data[q] * X.data[q];
    }
    if (!(diagB > 0)) diagB = 1;

    // CG on H s = -g
    sw.fill(0);
    let sb = 0;
    for (let j = 0; j < d; j++) rw[j] = -gw[j];
    let rb = fitIntercept ? -gb : 0;
    for (let j = 0; j < d; j++) zw[j] = rw[j] / diag[j];
    let zb = rb / diagB;
    pw.set(zw);
    let pb = zb;
    let rz = dot(rw, zw) + rb * zb;
    const gl2 = Math.sqrt(dot(gw, gw) + gb * gb);
    const eta = Math.min(0.5, Math.sqrt(gl2));
    const cgTol = eta * gl2;
    const maxCg = Math.max(50, Math.min(d + 1, 500));
    for (let it = 0; it < maxCg; it++) {
      // h = H p
      matVec(X, pw, fitIntercept ? pb : 0, t);
      for (let i = 0; i < n; i++) t[i] *= Dg[i];
      matTVec(X, t, hw);
      for (let j = 0; j < d; j++) hw[j] += lambda * pw[j];
      let hb = 0;
      if (fitIntercept) for (let i = 0; i < n; i++) hb += t[i];
      const pHp = dot(pw, hw) + pb * hb;
      if (!(pHp > 0)) break;
      const alpha = rz / pHp;
      for (let j = 0; j < d; j++) {
        sw[j] += alpha * pw[j];
        rw[j] -= alpha * hw[j];
      }
      sb += alpha * pb;
      rb -= alpha * hb;
      const rnorm = Math.sqrt(dot(rw, rw) + rb * rb);
      if (rnorm <= cgTol) break;
      for (let j = 0; j < d; j++) zw[j] = rw[j] / diag[j];
      zb = fitIntercept ? rb / diagB : 0;
      const rzNew = dot(rw, zw) + rb * zb;
      const beta = rzNew / rz;
      rz = rzNew;
      for (let j = 0; j < d; j++) pw[j] = zw[j] + beta * pw[j];
      pb = zb + beta * pb;
    }
    if (!fitIntercept) sb = 0;

    // backtracking line search (Armijo). Near the optimum the decrease a step brings is below the
    // rounding error of f (a sum of n terms), so the test allows that much slack: otherwise the
    // Newton steps are rejected there and the gradient stalls above the tolerance.
    const slope = dot(gw, sw) + gb * sb;
    const fNoise = 1e-12 * Math.abs(f);
    let step = 1;
    let accepted = false;
    for (let ls = 0; ls < 40; ls++) {
      for (let j = 0; j < d; j++) wNew[j] = w[j] + step * sw[j];
      const bNew = b + step * sb;
      const fNew = objective(wNew, bNew, zNew);
      if (fNew <= f + 1e-4 * step * slope + fNoise || (Math.abs(fNew - f) <= 1e-16 * Math.abs(f) && ls > 0)) {
        w.set(wNew);
        b = bNew;
        z.set(zNew);
        f = fNew;
        accepted = true;
        break;
      }
      step /= 2;
    }
    if (!accepted) break; // no further progress possible in floating point
  }
  return { coef: w, intercept: b, iterations, gradientNorm: gnorm, converged: gnorm <= tol * Math.max(1, gnorm0) };
}

function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** P(y = 1 | x) for every row of X. */
export function predictProba(model: LogisticModel, X: CsrMatrix): Float64Array {
  const z = new Float64Array(X.rows);
  matVec(X, model.coef, model.intercept, z);
  for (let i = 0; i < z.length; i++) z[i] = sigmoid(z[i]);
  return z;
}
