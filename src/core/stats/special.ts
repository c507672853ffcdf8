/**
 * Special functions for the statistics core: erf, erfc, erfcx and the standard normal CDF.
 *
 * erf/erfc/erfcx use W. J. Cody's rational Chebyshev approximations (Math. Comp. 1969; the
 * coefficients of his CALERF packet, which are accurate to about 18 significant digits). The
 * important detail for the deep tails is how exp(-x^2) is formed: x^2 is split into an exactly
 * representable part and a small remainder, so the result keeps full relative accuracy down to
 * 1e-300 instead of losing about x^2 * 2^-53 relative to the rounding of x*x.
 *
 * `ndtr` goes one step further and takes the square of the *original* argument a (not of
 * a/sqrt(2), which is already rounded), so it stays within a few ulps of the true normal CDF
 * everywhere; SciPy's Cephes-based ndtr is off by up to 2e-13 relative near z = -37.
 */

const SQRPI = 0.56418958354775628695; // 1/sqrt(pi)
const THRESH = 0.46875;
const XBIG = 26.543;
const XHUGE = 6.71e7;
const XMAX = 2.53e307;
const XSMALL = 1.11e-16;

// erf on |x| <= 0.46875
const A = [3.1611237438705656, 113.864154151050156, 377.485237685302021, 3209.37758913846947, 0.185777706184603153];
const B = [23.6012909523441209, 244.024637934444173, 1282.61652607737228, 2844.23683343917062];
// erfcx on 0.46875 < x <= 4
const C = [
  0.564188496988670089, 8.88314979438837594, 66.1191906371416295, 298.635138197400131, 881.95222124176909,
  1712.04761263407058, 2051.07837782607147, 1230.33935479799725, 2.15311535474403846e-8,
];
const D = [
  15.7449261107098347, 117.693950891312499, 537.181101862009858, 1621.38957456669019, 3290.79923573345963,
  4362.61909014324716, 3439.36767414372164, 1230.33935480374942,
];
// erfcx on x > 4 (in 1/x^2)
const P = [
  0.305326634961232344, 0.360344899949804439, 0.125781726111229246, 0.0160837851487422766, 6.58749161529837803e-4,
  0.0163153871373020978,
];
const Q = [
  2.56852019228982242, 1.87295284992346047, 0.527905102951428412, 0.0605183413124413191, 0.00233520497626869185,
];

/** erf(x)/x on |x| <= 0.46875 (a rational function of x^2). */
function erfSmallRatio(y: number): number {
  const ysq = y > XSMALL ? y * y : 0;
  let num = A[4] * ysq;
  let den = ysq;
  for (let i = 0; i < 3; i++) {
    num = (num + A[i]) * ysq;
    den = (den + B[i]) * ysq;
  }
  return (num + A[3]) / (den + B[3]);
}

/** exp(x^2)·erfc(x) for x > 0.46875 (no exponential involved, so no cancellation). */
function erfcxPositive(y: number): number {
  if (y <= 4) {
    let num = C[8] * y;
    let den = y;
    for (let i = 0; i < 7; i++) {
      num = (num + C[i]) * y;
      den = (den + D[i]) * y;
    }
    return (num + C[7]) / (den + D[7]);
  }
  if (y >= XHUGE) return y >= XMAX ? 0 : SQRPI / y;
  const ysq = 1 / (y * y);
  let num = P[5] * ysq;
  let den = ysq;
  for (let i = 0; i < 4; i++) {
    num = (num + P[i]) * ysq;
    den = (den + Q[i]) * ysq;
  }
  const r = (ysq * (num + P[4])) / (den + Q[4]);
  return (SQRPI - r) / y;
}

/**
 * exp(-x^2) for x >= 0 with full relative accuracy: x = h + r with h a multiple of 1/16, so h^2 is
 * exact and only the small term (x - h)(x + h) is rounded.
 */
function expNegSquare(x: number): number {
  const h = Math.trunc(x * 16) / 16;
  const del = (x - h) * (x + h);
  return Math.exp(-h * h) * Math.exp(-del);
}

/** The error function erf(x) = 2/sqrt(pi) ∫_0^x exp(-t^2) dt. */
export function erf(x: number): number {
  if (Number.isNaN(x)) return NaN;
  const y = Math.abs(x);
  if (y <= THRESH) return x * erfSmallRatio(y);
  if (y >= 6) return x > 0 ? 1 : -1; // erfc(6) = 2e-17 < half an ulp of 1
  const r = 0.5 - expNegSquare(y) * erfcxPositive(y) + 0.5; // 1 - erfc(y)
  return x > 0 ? r : -r;
}

/** The complementary error function erfc(x) = 1 - erf(x), accurate in relative terms for large x. */
export function erfc(x: number): number {
  if (Number.isNaN(x)) return NaN;
  const y = Math.abs(x);
  if (y <= THRESH) return 1 - x * erfSmallRatio(y);
  let r: number;
  if (y >= XBIG) r = 0;
  else r = expNegSquare(y) * erfcxPositive(y);
  return x < 0 ? 2 - r : r;
}

/** The scaled complementary error function erfcx(x) = exp(x^2)·erfc(x). */
export function erfcx(x: number): number {
  if (Number.isNaN(x)) return NaN;
  const y = Math.abs(x);
  if (x > THRESH) return erfcxPositive(x);
  if (y <= THRESH) return Math.exp(x * x) * (1 - x * erfSmallRatio(y));
  // x < -0.46875: erfcx(x) = 2 exp(x^2) - erfcx(-x)
  if (x < -26.628) return Infinity;
  const h = Math.trunc(y * 16) / 16;
  const del = (y - h) * (y + h);
  const e = Math.exp(h * h) * Math.exp(del);
  return e + e - erfcxPositive(y);
}

/**
 * The standard normal CDF Φ(a) = P(Z <= a). Accurate to a few ulps over the whole range,
 * including the lower tail down to the subnormal numbers.
 */
export function ndtr(a: number): number {
  if (Number.isNaN(a)) return NaN;
  const x = a * Math.SQRT1_2;
  const y = Math.abs(x);
  if (y <= THRESH) return 0.5 + 0.5 * (x * erfSmallRatio(y));
  const b = Math.abs(a);
  if (b > 40) return a < 0 ? 0 : 1;
  // exp(-a^2/2) from the unrounded a: a = h + r, h a multiple of 1/16.
  const h = Math.trunc(b * 16) / 16;
  const del = (b - h) * (b + h);
  const tail = 0.5 * erfcxPositive(y) * (Math.exp(-0.5 * h * h) * Math.exp(-0.5 * del));
  return a < 0 ? tail : 1 - tail;
}

/** Round to the nearest integer, ties to even (numpy's `round`), as SciPy uses for KS. */
export function roundHalfEven(x: number): number {
  if (!Number.isFinite(x)) return x;
  const f = Math.floor(x);
  const diff = x - f;
  if (diff < 0.5) return f;
  if (diff > 0.5) return f + 1;
  return f % 2 === 0 ? f : f + 1;
}

/** Greatest common divisor of two non-negative integers. */
export function gcd(a: number, b: number): number {
  let x = Math.abs(a);
  let y = Math.abs(b);
  while (y !== 0) {
    const t = x % y;
    x = y;
    y = t;
  }
  return x;
}

const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);
const HI = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0; // little-endian: high word at index 1

/**
 * Splits a finite non-zero x into m·2^e with 0.5 <= |m| < 1 (C's frexp). Zero, NaN and infinities
 * come back unchanged with e = 0.
 */
export function frexp(x: number): [number, number] {
  if (x === 0 || !Number.isFinite(x)) return [x, 0];
  F64[0] = x;
  let exp = (U32[HI] >>> 20) & 0x7ff;
  let adjust = 0;
  if (exp === 0) {
    // subnormal: scale into the normal range first
    F64[0] = x * 2 ** 64;
    exp = (U32[HI] >>> 20) & 0x7ff;
    adjust = -64;
  }
  const e = exp - 1022 + adjust;
  U32[HI] = (U32[HI] & 0x800fffff) | (1022 << 20);
  return [F64[0], e];
}

/** m·2^e without intermediate overflow or underflow where the result is representable. */
export function ldexp(m: number, e: number): number {
  let x = m;
  let k = e;
  while (k > 1000) {
    x *= 2 ** 1000;
    k -= 1000;
  }
  while (k < -1000) {
    x *= 2 ** -1000;
    k += 1000;
  }
  return x * 2 ** k;
}
