/**
 * Distributions of the Kolmogorov-Smirnov statistics for finite n:
 * - `smirnov(n, x)`: the one-sided sf P(D_n^+ >= x) (Birnbaum-Tingey / Smirnov sum), evaluated
 *   in double-double arithmetic like SciPy's `scipy.special.smirnov`;
 * - `kstwoSf(x, n)`: the two-sided sf P(D_n >= x), i.e. SciPy's `scipy.stats.kstwo.sf`, with the
 *   algorithm choice of Simard & L'Ecuyer (2011) as SciPy makes it (exact Durbin matrix with
 *   Marsaglia-Tsang-Wang scaling, 2·smirnov, Pelz-Good, Ruben-Gambino end formulas).
 *
 * Where SciPy uses the Pomeranz recursion (n <= 140, 0.754693 < n·x² <= 4) this module uses the
 * Durbin matrix instead; both are exact, so results agree to rounding.
 */
import {
  DD,
  dd,
  ddAdd,
  ddSub,
  ddMul,
  ddDiv,
  ddFloor,
  ddPowScaled,
  ddToNumber,
  ScaledDD,
  twoProdErr,
  twoSumErr,
} from './dd';
import { frexp, ldexp } from './special';

const EPS = 2 ** -52;
const MINLOG = -708.3964185322641; // log(2^-1022)
const SMIRNOV_MAX_COMPUTE_N = 1000000;
const SM_UPPER_MAX_TERMS = 3;
const SM_UPPERSUM_MIN_N = 10;

function scaledToDD(s: ScaledDD): DD {
  return { hi: ldexp(s.m.hi, s.e), lo: ldexp(s.m.lo, s.e) };
}

function clip01(p: number): number {
  if (Number.isNaN(p)) return p;
  return p < 0 ? 0 : p > 1 ? 1 : p;
}

/**
 * One-sided Smirnov survival function P(D_n^+ >= x) for integer n >= 1 and 0 <= x <= 1
 * (SciPy `scipy.special.smirnov(n, x)`).
 */
export function smirnov(n: number, x: number): number {
  if (n === lastN && x === lastX) return lastValue;
  const v = smirnovUncached(n, x);
  lastN = n;
  lastX = x;
  lastValue = v;
  return v;
}

// kstwoSf and callers often evaluate the same point twice; the sum is expensive for large n.
let lastN = NaN;
let lastX = NaN;
let lastValue = NaN;

function smirnovUncached(n: number, x: number): number {
  if (!(n > 0 && x >= 0 && x <= 1) || !Number.isInteger(n)) return NaN;
  if (n === 1) return 1 - x;
  if (x === 0) return 1;
  if (x === 1) return 0;

  // floor(n·x) and its fractional part, exactly
  const nxD = ddMul(dd(n), dd(x));
  const flD = ddFloor(nxD);
  let alpha = ddSub(nxD, flD).hi;
  let nxfl = ddToNumber(flD);
  if (alpha === 1) {
    nxfl += 1;
    alpha = 0;
  }
  let n1mxfl = n - nxfl - (alpha === 0 ? 0 : 1);
  let n1mxceil = n - nxfl;
  if (alpha === 0) {
    n1mxfl -= 1;
    n1mxceil += 1;
  }

  if (nxfl === 0 || (nxfl === 1 && alpha === 0)) {
    // x <= 1/n: P = 1 - x(1+x)^(n-1)
    const t = ddToNumber(scaledToDD(ddPowScaled(ddAdd(dd(1), dd(x)), n - 1)));
    return clip01(1 - x * t);
  }
  if (-2 * n * x * x < MINLOG) return 0;
  if (nxfl >= n - 1) {
    return clip01(ddToNumber(scaledToDD(ddPowScaled(ddSub(dd(1), dd(x)), n))));
  }
  if (n > SMIRNOV_MAX_COMPUTE_N) {
    const logp = -Math.pow(6 * n * x + 1, 2) / 18 / n;
    // p ~ exp(-(6nx+1)^2 / 18n)
    return clip01(logp < -Math.LN2 ? Math.exp(logp) : 1 - -Math.expm1(logp));
  }

  const nUpperTerms = n - n1mxceil + 1;
  let useUpper = nUpperTerms <= 1 && x < 0.5;
  useUpper = useUpper || (n >= SM_UPPERSUM_MIN_N && nUpperTerms <= SM_UPPER_MAX_TERMS && x <= 0.5 / Math.sqrt(n));

  let start = 0;
  let step = 1;
  let nTerms = n1mxfl + 1;
  const vmid = Math.floor(n / 2);
  let sum: DD;
  if (useUpper) {
    start = n;
    step = -1;
    nTerms = n - n1mxceil + 1;
    sum = scaledToDD(ddPowScaled(ddAdd(dd(1), dd(x)), n - 1));
  } else {
    sum = ddDiv(scaledToDD(ddPowScaled(ddSub(dd(1), dd(x)), n)), dd(x));
  }
  let sh = sum.hi;
  let sl = sum.lo;

  // C(n, j) as (ch + cl)·2^ce, updated by the exact ratio (n - j)/(j + 1) in double-double.
  let ch = 1;
  let cl = 0;
  let ce = 0;
  const bumpBinomial = (j: number): void => {
    const num = n - j;
    const den = j + 1;
    // q = num/den as a double-double
    const q1 = num / den;
    twoProdInto(q1, den);
    const q2 = (num - P_H - P_L) / den;
    // c *= (q1 + q2)
    twoProdInto(ch, q1);
    const lo = P_L + (ch * q2 + cl * q1);
    ch = P_H + lo;
    cl = lo - (ch - P_H);
    if (ch > MID) {
      ch *= MID_INV;
      cl *= MID_INV;
      ce += 200;
    } else if (ch < MID_INV) {
      ch *= MID;
      cl *= MID;
      ce -= 200;
    }
  };
  bumpBinomial(0);

  for (let j = 1; j < nTerms; j++) {
    const v = start + j * step;
    // t2x = (n - v)/n - x and t1x = v/n + x, in double-double
    divIntInto(n - v, n);
    twoSumInto(P_H, -x);
    let lo = P_L + Q_L;
    const t2xh = Q_H + lo;
    const t2xl = lo - (t2xh - Q_H);
    divIntInto(v, n);
    const vh = P_H;
    const vl = P_L;
    twoSumInto(vh, x);
    lo = vl + Q_L;
    const t1xh = Q_H + lo;
    const t1xl = lo - (t1xh - Q_H);
    powInto(t2xh, t2xl, n - v);
    const t2h = W_H;
    const t2l = W_L;
    const t2e = W_E;
    powInto(t1xh, t1xl, v - 1);
    // A = t1 · t2 · C
    twoProdInto(W_H, t2h);
    lo = P_L + (W_H * t2l + W_L * t2h);
    let ph = P_H + lo;
    let pl = lo - (ph - P_H);
    twoProdInto(ph, ch);
    lo = P_L + (ph * cl + pl * ch);
    ph = P_H + lo;
    pl = lo - (ph - P_H);
    const e = ce + W_E + t2e;
    const ajh = fastLdexp(ph, e);
    const ajl = fastLdexp(pl, e);
    if (Number.isFinite(ajh) && ajh !== 0) {
      // sum += A (double-double addition)
      twoSumInto(sh, ajh);
      const th = Q_H;
      const tl = Q_L;
      twoSumInto(sl, ajl);
      let l2 = tl + Q_H;
      const uh = th + l2;
      const ul = l2 - (uh - th);
      l2 = Q_L + ul;
      sh = uh + l2;
      sl = l2 - (sh - uh);
    }
    if (ajh !== 0) {
      if (4 * (nTerms - j) * Math.abs(ajh) < EPS * sh && j !== nTerms - 1) break;
    } else if (j > vmid) {
      break;
    }
    bumpBinomial(j);
  }
  const prob = ddToNumber(ddMul(dd(x), { hi: sh, lo: sl }));
  return clip01(step < 0 ? 1 - prob : prob);
}

// Scalar double-double kernels writing to module-level registers (no allocation in hot loops).
const MID = 2 ** 200;
const MID_INV = 2 ** -200;
let P_H = 0;
let P_L = 0;
let Q_H = 0;
let Q_L = 0;
let W_H = 0;
let W_L = 0;
let W_E = 0;

/** (P_H, P_L) = a·b exactly. */
function twoProdInto(a: number, b: number): void {
  P_H = a * b;
  P_L = twoProdErr(a, b, P_H);
}

/** (Q_H, Q_L) = a + b exactly. */
function twoSumInto(a: number, b: number): void {
  Q_H = a + b;
  Q_L = twoSumErr(a, b, Q_H);
}

/** (P_H, P_L) = a/b for integers a, b, to double-double accuracy. */
function divIntInto(a: number, b: number): void {
  const q1 = a / b;
  twoProdInto(q1, b);
  const q2 = (a - P_H - P_L) / b;
  P_H = q1 + q2;
  P_L = q2 - (P_H - q1);
}

/** m·2^e, fast when the scale is a normal number. */
function fastLdexp(m: number, e: number): number {
  if (e > -1020 && e < 1020) return m * 2 ** e;
  return ldexp(m, e);
}

/**
 * (W_H + W_L)·2^W_E = (h + l)^k for an integer k >= 0, h > 0 normalised or not.
 *
 * The double part h^k comes from Math.pow (correctly rounded to within an ulp in V8), applied to
 * the frexp mantissa of h in chunks small enough never to underflow; the low part l enters
 * through (1 + l/h)^k = exp(k·log1p(l/h)). Relative error: a few ulps per term (about 50 in the
 * worst chunked case), which the all-positive Smirnov sum does not amplify.
 */
function powInto(h: number, l: number, k: number): void {
  if (k === 0 || h === 0) {
    W_H = k === 0 ? 1 : 0;
    W_L = 0;
    W_E = 0;
    return;
  }
  frexpInto(h);
  const m = F_M;
  let e = F_E * k;
  let acc: number;
  if (k <= 960) {
    // m in [0.5, 1), so m^k >= 2^-960: no underflow
    frexpInto(Math.pow(m, k));
    acc = F_M;
    e += F_E;
  } else {
    const chunk = Math.max(1, Math.floor(960 / -Math.log2(Math.abs(m))));
    const q = Math.floor(k / chunk);
    const r = k - q * chunk;
    frexpInto(Math.pow(m, r));
    acc = F_M;
    e += F_E;
    if (q > 0) {
      frexpInto(Math.pow(m, chunk));
      const cm = F_M;
      const ce = F_E;
      powInto(cm, 0, q); // (m^chunk)^q through its own mantissa
      frexpInto(acc * W_H);
      acc = F_M;
      e += F_E + W_E + ce * q;
    }
  }
  const rr = l / h;
  let adj = k * rr;
  if (Math.abs(adj) > 1e-8) {
    adj = Math.abs(adj) < 1e-4 ? adj + k * rr * (((k - 1) / 2) * rr) : Math.expm1(k * Math.log1p(rr));
  }
  W_H = acc;
  W_L = acc * adj;
  W_E = e;
}

let F_M = 0;
let F_E = 0;
const FB = new Float64Array(1);
const FU = new Uint32Array(FB.buffer);
const FHI = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;

/** (F_M, F_E) = frexp(x) for finite non-zero x, without allocation. */
function frexpInto(x: number): void {
  FB[0] = x;
  const bits = (FU[FHI] >>> 20) & 0x7ff;
  if (bits === 0) {
    const [mm, ee] = frexp(x);
    F_M = mm;
    F_E = ee;
    return;
  }
  F_E = bits - 1022;
  FU[FHI] = (FU[FHI] & 0x800fffff) | (1022 << 20);
  F_M = FB[0];
}

// ---------------------------------------------------------------------------------------------
// Two-sided, finite n

const E128 = 2 ** 128;
const EM128 = 2 ** -128;

/** P(D_n <= d) by the Durbin matrix with Marsaglia-Tsang-Wang scaling (exact). */
export function kolmogorovCdfDurbin(n: number, d: number): number {
  if (d >= 1) return 1;
  const nd = n * d;
  if (nd <= 0.5) return 0;
  const k = Math.ceil(nd);
  const h = k - nd;
  const m = 2 * k - 1;
  const H = new Float64Array(m * m);
  const v = new Float64Array(m);
  const w = new Float64Array(m);
  let fac = 1;
  for (let j = 1; j <= m; j++) {
    w[j - 1] = fac;
    fac /= j;
    v[j - 1] = (1 - Math.pow(h, j)) * fac;
  }
  const tt = Math.pow(Math.max(2 * h - 1, 0), m) - 2 * Math.pow(h, m);
  v[m - 1] = (1 + tt) * fac;
  for (let i = 1; i < m; i++) {
    // H[i-1:, i] = w[:m-i+1]
    for (let r = i - 1; r < m; r++) H[r * m + i] = w[r - (i - 1)];
  }
  for (let r = 0; r < m; r++) H[r * m] = v[r];
  for (let c = 0; c < m; c++) H[(m - 1) * m + c] = v[m - 1 - c];

  let Hc = H;
  let Hpwr = new Float64Array(m * m);
  for (let i = 0; i < m; i++) Hpwr[i * m + i] = 1;
  let nn = n;
  let expnt = 0;
  let Hexpnt = 0;
  const tmp = new Float64Array(m * m);
  const matmul = (A: Float64Array, Bm: Float64Array, out: Float64Array): void => {
    out.fill(0);
    for (let i = 0; i < m; i++) {
      const io = i * m;
      for (let kk = 0; kk < m; kk++) {
        const a = A[io + kk];
        if (a === 0) continue;
        const ko = kk * m;
        for (let j = 0; j < m; j++) out[io + j] += a * Bm[ko + j];
      }
    }
  };
  while (nn > 0) {
    if (nn % 2) {
      matmul(Hpwr, Hc, tmp);
      Hpwr = Float64Array.from(tmp);
      expnt += Hexpnt;
    }
    matmul(Hc, Hc, tmp);
    Hc = Float64Array.from(tmp);
    Hexpnt *= 2;
    if (Math.abs(Hc[(k - 1) * m + (k - 1)]) > E128) {
      for (let i = 0; i < Hc.length; i++) Hc[i] /= E128;
      Hexpnt += 128;
    }
    nn = Math.floor(nn / 2);
  }
  let p = Hpwr[(k - 1) * m + (k - 1)];
  for (let i = 1; i <= n; i++) {
    p = (i * p) / n;
    if (Math.abs(p) < EM128) {
      p *= E128;
      expnt -= 128;
    }
  }
  if (expnt !== 0) p = ldexp(p, expnt);
  return clip01(p);
}

const PI2 = Math.PI ** 2;
const PI4 = Math.PI ** 4;
const PI6 = Math.PI ** 6;
const SQRT2PI = Math.sqrt(2 * Math.PI);
const SQRT3 = Math.sqrt(3);

/** Pelz-Good approximation to P(D_n <= x) (used for large n and small x). */
export function kolmogorovCdfPelzGood(n: number, x: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const z = Math.sqrt(n) * x;
  const z2 = z * z;
  const z3 = z2 * z;
  const z4 = z2 * z2;
  const z6 = z4 * z2;
  const qlog = -PI2 / 8 / z2;
  if (qlog < -708) return 0;
  let q = Math.exp(qlog);
  const k1a = -z2;
  const k1b = PI2 / 4;
  const k2a = 6 * z6 + 2 * z4;
  const k2b = ((2 * z4 - 5 * z2) * PI2) / 4;
  const k2c = (PI4 * (1 - 2 * z2)) / 16;
  const k3d = (PI6 * (5 - 30 * z2)) / 64;
  const k3c = (PI4 * (-60 * z2 + 212 * z4)) / 16;
  const k3b = (PI2 * (135 * z4 - 96 * z6)) / 4;
  const k3a = -30 * z6 - 90 * z ** 8;
  const K = [0, 0, 0, 0];
  const maxk = Math.ceil((16 * z) / Math.PI);
  for (let k = maxk; k > 0; k--) {
    const mm = 2 * k - 1;
    const m2 = mm * mm;
    const m4 = m2 * m2;
    const m6 = m4 * m2;
    const qp = Math.pow(q, 8 * k);
    const c = [1, k1a + k1b * m2, k2a + k2b * m2 + k2c * m4, k3a + k3b * m2 + k3c * m4 + k3d * m6];
    for (let i = 0; i < 4; i++) K[i] = K[i] * qp + c[i];
  }
  const div = [z, 6 * z4, 72 * z ** 7, 6480 * z ** 10];
  for (let i = 0; i < 4; i++) K[i] = (K[i] * q * SQRT2PI) / div[i];
  q = Math.exp(-PI2 / 2 / z2);
  const sqrt3z = SQRT3 * z;
  let k2extra = 0;
  let k3extra = 0;
  for (let k = maxk; k > 0; k--) {
    const ks2 = k * k;
    const qp = Math.pow(q, ks2);
    const kspi = Math.PI * k;
    k2extra += ks2 * qp;
    k3extra += (sqrt3z + kspi) * (sqrt3z - kspi) * ks2 * qp;
  }
  K[2] += (k2extra * PI2 * SQRT2PI) / (-36 * z3);
  K[3] += (k3extra * PI2 * SQRT2PI) / (216 * z6);
  let sum = 0;
  for (let i = 0; i < 4; i++) sum += K[i] / Math.pow(n, i / 2);
  return sum;
}

const STIRLING = [
  -2.955065359477124183e-2, 6.4102564102564102564e-3, -1.9175269175269175269e-3, 8.4175084175084175084e-4,
  -5.952380952380952381e-4, 7.9365079365079365079e-4, -2.7777777777777777778e-3, 8.3333333333333333333e-2,
];

/** log(n!/n^n) by Stirling's series with the n·log(n) term removed up front. */
function logFactorialOverPower(n: number): number {
  const rn = 1 / n;
  const t = rn / n;
  let poly = 0;
  for (const c of STIRLING) poly = poly * t + c;
  return Math.log(n) / 2 - n + Math.log(2 * Math.PI) / 2 + rn * poly;
}

/**
 * Two-sided one-sample Kolmogorov-Smirnov survival function P(D_n >= x) for finite n
 * (SciPy `scipy.stats.kstwo.sf(x, n)`).
 */
export function kstwoSf(x: number, n: number): number {
  if (Number.isNaN(n) || Number.isNaN(x)) return NaN;
  if (!Number.isInteger(n) || n <= 0) return NaN;
  if (x >= 1) return 0;
  if (x <= 0) return 1;
  const t = n * x;
  if (t <= 1) {
    if (t <= 0.5) return 1;
    let prob: number;
    if (n <= 140) {
      prob = 1;
      for (let i = 1; i <= n; i++) prob *= i * (1 / n) * (2 * t - 1);
    } else {
      prob = Math.exp(logFactorialOverPower(n) + n * Math.log(2 * t - 1));
    }
    return clip01(1 - prob);
  }
  if (t >= n - 1) return clip01(2 * Math.pow(1 - x, n));
  if (x >= 0.5) return clip01(2 * smirnov(n, x));
  const nx2 = t * x;
  if (n <= 140) {
    if (nx2 <= 4) return clip01(1 - kolmogorovCdfDurbin(n, x));
    return clip01(2 * smirnov(n, x));
  }
  if (nx2 >= 370) return 0;
  if (nx2 >= 2.2) return clip01(2 * smirnov(n, x));
  let cdf: number;
  if (nx2 >= 18) cdf = 1;
  else if (n <= 100000 && n * Math.pow(x, 1.5) <= 1.4) cdf = kolmogorovCdfDurbin(n, x);
  else cdf = kolmogorovCdfPelzGood(n, x);
  return clip01(1 - cdf);
}
