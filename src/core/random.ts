/**
 * Seeded randomness. Every sampler in SimLens takes an `Rng` so that the same seed and config give
 * byte-identical output. Algorithm: sfc32 seeded through splitmix32 of a string or number seed.
 */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [0, n). */
  int(n: number): number;
  /** One element, uniformly. Throws on an empty array. */
  pick<T>(items: readonly T[]): T;
  /** Index drawn in proportion to non-negative weights (all zero: uniform). */
  weighted(weights: readonly number[]): number;
  /** True with probability p. */
  chance(p: number): boolean;
  /** A shuffled copy. */
  shuffle<T>(items: readonly T[]): T[];
  /** An independent generator derived from this seed and a label (e.g. a conversation index). */
  fork(label: string | number): Rng;
}

function hashSeed(seed: string | number): number {
  const text = String(seed);
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

function splitmix32(state: number): () => number {
  let s = state >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

class Sfc32 implements Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(private readonly seedText: string) {
    const mix = splitmix32(hashSeed(seedText));
    this.a = mix();
    this.b = mix();
    this.c = mix();
    this.d = mix() | 1;
    for (let i = 0; i < 12; i++) this.nextUint();
  }

  private nextUint(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t >>> 0;
  }

  next(): number {
    return this.nextUint() / 4294967296;
  }

  int(n: number): number {
    if (!(n > 0)) throw new RangeError(`Rng.int needs n > 0, got ${n}`);
    return Math.floor(this.next() * n);
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('Rng.pick on an empty array');
    return items[this.int(items.length)];
  }

  weighted(weights: readonly number[]): number {
    let total = 0;
    for (const w of weights) total += w > 0 ? w : 0;
    if (total <= 0) return this.int(weights.length);
    let r = this.next() * total;
    for (let i = 0; i < weights.length; i++) {
      const w = weights[i] > 0 ? weights[i] : 0;
      if (r < w) return i;
      r -= w;
    }
    return weights.length - 1;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }

  fork(label: string | number): Rng {
    return new Sfc32(`${this.seedText}/${label}`);
  }
}

/** A generator for a seed; equal seeds give equal sequences on every platform. */
export function createRng(seed: string | number): Rng {
  return new Sfc32(String(seed));
}
