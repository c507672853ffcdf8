/**
 * A fast parser derived from a zod schema (no second definition): `fastParse(schema)(v)` returns
 * what `schema.safeParse(v).data` would be (the same values, the same key order: zod writes an
 * object's declared keys first, in declaration order, then the others) when it can prove that zod
 * accepts `v`, and FAIL otherwise; the caller then runs zod, which gives the result or the error
 * message as before. It understands the schema kinds the protocol's results use (loose object,
 * array, string, number, boolean, null, enum, literal, unions of those scalars, record with string
 * keys, optional, nullable, default with a value present, unknown) and the checks min/max length,
 * integer and bounds; anything else (a refinement, a transform, a strict or stripping object, a
 * string format, an absent value with a default) answers FAIL for that value.
 *
 * Why: zod's safeParse of a user turn (about 0.8 KB) costs more CPU than JSON.parse of it
 * (bench/RESULTS.md, "External simulator protocol"); this does the same work in a fraction.
 * test/unit/sim/externalFastParse.test.ts compares the two on thousands of turns, valid and broken.
 */
import type * as z from 'zod';

export const FAIL: unique symbol = Symbol('not proven valid');
type Parse = (v: unknown) => unknown;

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  element?: z.ZodType;
  innerType?: z.ZodType;
  options?: z.ZodType[];
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  entries?: Record<string, string | number>;
  values?: unknown[];
  checks?: {
    _zod: {
      def: { check: string; minimum?: number; maximum?: number; format?: string; value?: number; inclusive?: boolean };
    };
  }[];
}

const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;
const NEVER: Parse = () => FAIL;
const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const hasOwn = (v: object, k: string) => Object.prototype.hasOwnProperty.call(v, k);
const SCALARS = new Set(['string', 'number', 'boolean', 'null', 'enum', 'literal']);

/** The checks of a def as one test on the value (undefined: a check this module does not know). */
function checksOf(def: Def): ((v: unknown) => boolean) | undefined {
  const tests: ((v: unknown) => boolean)[] = [];
  for (const c of def.checks ?? []) {
    const d = c._zod.def;
    const size = (v: unknown) => (typeof v === 'string' || Array.isArray(v) ? v.length : Number.NaN);
    if (d.check === 'min_length' && typeof d.minimum === 'number') {
      const m = d.minimum;
      tests.push((v) => size(v) >= m);
    } else if (d.check === 'max_length' && typeof d.maximum === 'number') {
      const m = d.maximum;
      tests.push((v) => size(v) <= m);
    } else if (d.check === 'number_format' && d.format === 'safeint') {
      tests.push((v) => Number.isSafeInteger(v));
    } else if ((d.check === 'greater_than' || d.check === 'less_than') && typeof d.value === 'number') {
      const { value, inclusive } = d;
      tests.push(
        d.check === 'greater_than'
          ? (v) => (inclusive ? (v as number) >= value : (v as number) > value)
          : (v) => (inclusive ? (v as number) <= value : (v as number) < value),
      );
    } else return undefined;
  }
  return (v) => tests.every((t) => t(v));
}

const cache = new WeakMap<z.ZodType, Parse>();

/** The fast parser of `schema` (compiled once per schema). */
export function fastParse(schema: z.ZodType): Parse {
  const known = cache.get(schema);
  if (known) return known;
  let compiled: Parse = NEVER;
  cache.set(schema, (v) => compiled(v)); // recursive schemas
  compiled = compile(schema);
  cache.set(schema, compiled);
  return compiled;
}

function compile(schema: z.ZodType): Parse {
  const def = defOf(schema);
  const checks = checksOf(def);
  if (!checks) return NEVER;
  const body = compileType(def);
  if (!def.checks?.length) return body;
  return (v) => {
    const out = body(v);
    return out !== FAIL && checks(out) ? out : FAIL;
  };
}

function compileType(def: Def): Parse {
  switch (def.type) {
    case 'string':
      return (v) => (typeof v === 'string' ? v : FAIL);
    case 'number':
      return (v) => (typeof v === 'number' && Number.isFinite(v) ? v : FAIL);
    case 'boolean':
      return (v) => (typeof v === 'boolean' ? v : FAIL);
    case 'null':
      return (v) => (v === null ? v : FAIL);
    case 'unknown':
      return (v) => v;
    case 'enum': {
      const values = new Set<unknown>(Object.values(def.entries ?? {}));
      return (v) => (values.has(v) ? v : FAIL);
    }
    case 'literal': {
      const values = new Set(def.values ?? []);
      return (v) => (values.has(v) ? v : FAIL);
    }
    case 'optional': {
      const inner = fastParse(def.innerType!);
      // An optional default fills the default in: not handled.
      if (defOf(def.innerType!).type === 'default') return (v) => (v === undefined ? FAIL : inner(v));
      return (v) => (v === undefined ? v : inner(v));
    }
    case 'nullable': {
      const inner = fastParse(def.innerType!);
      return (v) => (v === null ? v : inner(v));
    }
    case 'default': {
      const inner = fastParse(def.innerType!);
      return (v) => (v === undefined ? FAIL : inner(v));
    }
    case 'array': {
      const element = fastParse(def.element!);
      return (v) => {
        if (!Array.isArray(v)) return FAIL;
        const out = new Array<unknown>(v.length);
        for (let i = 0; i < v.length; i++) {
          const x = element(v[i]);
          if (x === FAIL) return FAIL;
          out[i] = x;
        }
        return out;
      };
    }
    case 'union': {
      // Only unions of scalars: there a value passes one option exactly as zod's first passing one.
      const options = def.options ?? [];
      if (!options.every((o) => SCALARS.has(defOf(o).type))) return NEVER;
      const parsers = options.map(fastParse);
      return (v) => {
        for (const p of parsers) {
          const x = p(v);
          if (x !== FAIL) return x;
        }
        return FAIL;
      };
    }
    case 'record': {
      const key = defOf(def.keyType!);
      if (key.type !== 'string' || key.checks?.length) return NEVER;
      const value = fastParse(def.valueType!);
      return (v) => {
        if (!isPlainObject(v) || hasOwn(v, '__proto__')) return FAIL;
        const out: Record<string, unknown> = {};
        for (const k of Object.keys(v)) {
          const x = value(v[k]);
          if (x === FAIL) return FAIL;
          out[k] = x;
        }
        return out;
      };
    }
    case 'object': {
      // Loose objects only: unknown keys are kept as they are, after the declared ones.
      if (!def.catchall || defOf(def.catchall).type !== 'unknown') return NEVER;
      const fields = Object.entries(def.shape ?? {}).map(([k, s]) => {
        const d = defOf(s);
        return [k, fastParse(s), d.type === 'optional' && defOf(d.innerType!).type !== 'default'] as const;
      });
      const index = new Map(fields.map((f, i) => [f[0], i]));
      const n = fields.length;
      return (v) => {
        if (!isPlainObject(v)) return FAIL;
        // One pass over the value's keys: which declared ones are present, which are extra.
        const present = new Array<boolean>(n);
        let extras: string[] | undefined;
        for (const k of Object.keys(v)) {
          const i = index.get(k);
          if (i !== undefined) present[i] = true;
          else if (k === '__proto__') return FAIL;
          else (extras ??= []).push(k);
        }
        const out: Record<string, unknown> = {};
        for (let i = 0; i < n; i++) {
          const [k, parse, optional] = fields[i];
          if (!present[i]) {
            if (optional) continue;
            return FAIL;
          }
          const x = parse(v[k]);
          if (x === FAIL || x === undefined) return FAIL;
          out[k] = x;
        }
        if (extras) for (const k of extras) out[k] = v[k];
        return out;
      };
    }
    default:
      return NEVER;
  }
}
