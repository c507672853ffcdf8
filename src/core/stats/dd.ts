/**
 * Minimal double-double arithmetic (about 32 significant digits) for the one-sided Smirnov sum,
 * where the bases 1 - x - j/n must be formed without cancellation and raised to large powers.
 * Dekker's splitting is used for exact products because JavaScript has no fused multiply-add.
 */
import { frexp } from './special';

/** hi + lo with |lo| <= ulp(hi)/2. */
export interface DD {
  hi: number;
  lo: number;
}

const SPLITTER = 134217729; // 2^27 + 1

/**
 * The rounding error of the product p = fl(a·b): a·b = p + twoProdErr(a, b, p) exactly (Dekker's
 * product with Veltkamp splitting, barring overflow). The one implementation of the exact
 * product: the allocation-free kernels of kolmogorov.ts use it too.
 */
export function twoProdErr(a: number, b: number, p: number): number {
  let t = SPLITTER * a;
  const ah = t - (t - a);
  const al = a - ah;
  t = SPLITTER * b;
  const bh = t - (t - b);
  const bl = b - bh;
  return ah * bh - p + ah * bl + al * bh + al * bl;
}

/** The rounding error of the sum s = fl(a + b): a + b = s + twoSumErr(a, b, s) exactly (Knuth's TwoSum). */
export function twoSumErr(a: number, b: number, s: number): number {
  const bb = s - a;
  return a - (s - bb) + (b - bb);
}

function twoSum(a: number, b: number): DD {
  const s = a + b;
  return { hi: s, lo: twoSumErr(a, b, s) };
}

function quickTwoSum(a: number, b: number): DD {
  const s = a + b;
  return { hi: s, lo: b - (s - a) };
}

function twoProd(a: number, b: number): DD {
  const p = a * b;
  return { hi: p, lo: twoProdErr(a, b, p) };
}

/** A double as a double-double. */
export function dd(x: number): DD {
  return { hi: x, lo: 0 };
}

/** a + b */
export function ddAdd(a: DD, b: DD): DD {
  const s = twoSum(a.hi, b.hi);
  const t = twoSum(a.lo, b.lo);
  let lo = s.lo + t.hi;
  const u = quickTwoSum(s.hi, lo);
  lo = t.lo + u.lo;
  return quickTwoSum(u.hi, lo);
}

/** a - b */
export function ddSub(a: DD, b: DD): DD {
  return ddAdd(a, { hi: -b.hi, lo: -b.lo });
}

/** a · b */
export function ddMul(a: DD, b: DD): DD {
  const p = twoProd(a.hi, b.hi);
  const lo = p.lo + (a.hi * b.lo + a.lo * b.hi);
  return quickTwoSum(p.hi, lo);
}

/** a · b for a double b */
function ddMulD(a: DD, b: number): DD {
  const p = twoProd(a.hi, b);
  return quickTwoSum(p.hi, p.lo + a.lo * b);
}

/** a / b */
export function ddDiv(a: DD, b: DD): DD {
  const q1 = a.hi / b.hi;
  let r = ddSub(a, ddMulD(b, q1));
  const q2 = r.hi / b.hi;
  r = ddSub(r, ddMulD(b, q2));
  const q3 = r.hi / b.hi;
  const q = quickTwoSum(q1, q2);
  return ddAdd(q, dd(q3));
}

/** The nearest double. */
export function ddToNumber(a: DD): number {
  return a.hi + a.lo;
}

/** floor(a) for a double-double. */
export function ddFloor(a: DD): DD {
  const hi = Math.floor(a.hi);
  if (hi === a.hi) return quickTwoSum(hi, Math.floor(a.lo));
  return { hi, lo: 0 };
}

/** A double-double mantissa with a separate binary exponent: (hi + lo)·2^e, 0.5 <= |hi| < 1. */
export interface ScaledDD {
  m: DD;
  e: number;
}

/** Renormalises a double-double so its high part lies in [0.5, 1); the exponent moves to `e`. */
function ddFrexp(a: DD): ScaledDD {
  if (a.hi === 0) return { m: { hi: 0, lo: 0 }, e: 0 };
  const [mh, e] = frexp(a.hi);
  const scale = 2 ** -e; // exact: e is within a few hundred of 0 for our use
  return { m: { hi: mh, lo: a.lo * scale }, e };
}

const BIG = 2 ** 500;
const SMALL = 2 ** -500;

/**
 * a^k for an integer k >= 0, as a scaled double-double (never overflows or underflows).
 * Binary powering on scalars (no allocation in the loop); the running values are rescaled by
 * 2^±500 only when they leave [2^-500, 2^500], which is exact.
 */
export function ddPowScaled(a: DD, k: number): ScaledDD {
  if (k === 0) return { m: { hi: 0.5, lo: 0 }, e: 1 };
  if (a.hi === 0) return { m: { hi: 0, lo: 0 }, e: 0 };
  let rh = 1;
  let rl = 0;
  let re = 0;
  let bh = a.hi;
  let bl = a.lo;
  let be = 0;
  let n = k;
  for (;;) {
    if (n & 1) {
      // r *= b
      const p = rh * bh;
      const lo = twoProdErr(rh, bh, p) + (rh * bl + rl * bh);
      rh = p + lo;
      rl = lo - (rh - p);
      re += be;
      const ar = Math.abs(rh);
      if (ar < SMALL) {
        rh *= BIG;
        rl *= BIG;
        re -= 500;
      } else if (ar > BIG) {
        rh *= SMALL;
        rl *= SMALL;
        re += 500;
      }
    }
    n = Math.floor(n / 2);
    if (n === 0) break;
    // b *= b
    const p = bh * bh;
    const lo = twoProdErr(bh, bh, p) + 2 * bh * bl;
    bh = p + lo;
    bl = lo - (bh - p);
    be *= 2;
    const ab = Math.abs(bh);
    if (ab < SMALL) {
      bh *= BIG;
      bl *= BIG;
      be -= 500;
    } else if (ab > BIG) {
      bh *= SMALL;
      bl *= SMALL;
      be += 500;
    }
  }
  const f = ddFrexp({ hi: rh, lo: rl });
  return { m: f.m, e: f.e + re };
}
