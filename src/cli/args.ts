/**
 * A tiny argument parser shared by every `simlens` command.
 *
 * Usage:
 * ```ts
 * const { flags, positionals } = parseArgs(args, {
 *   json: { type: 'boolean', description: 'print JSON' },
 *   output: { type: 'string', short: 'o', description: 'output file' },
 *   seed: { type: 'number' },
 *   tag: { type: 'string', multiple: true },        // --tag a --tag b  -> ['a', 'b']
 * }, { positionals: { min: 1, max: 1, names: 'FILE' } });
 * flags.json      // boolean (false when absent)
 * flags.output    // string | undefined
 * flags.tag       // string[] ([] when absent)
 * ```
 * Accepted forms: `--name value`, `--name=value`, `-o value`, `-o=value`, `--flag` (boolean),
 * `--no-flag` (boolean false), `--flag=true|false`. `--` ends the options: everything after it is
 * positional. A lone `-` is a positional (stdin/stdout by convention). Unknown options, missing
 * values, bad numbers and a wrong number of positionals throw `UsageError`, which the dispatcher
 * prints with the command's help (exit code 2). `--help`/`-h` are handled by the dispatcher
 * before the command runs, so commands never see them.
 */
import { UsageError } from './types';

/** How one option is read. */
export interface FlagSpec {
  type: 'string' | 'boolean' | 'number';
  /** One-letter alias, used as `-x`. */
  short?: string;
  /** Repeatable: the value is an array of every occurrence. */
  multiple?: boolean;
  /** For help text generation (`formatFlags`). */
  description?: string;
  /** Placeholder in help text, e.g. "FILE". */
  valueName?: string;
}

export type FlagSpecs = Record<string, FlagSpec>;

type ValueOf<F extends FlagSpec> = F['type'] extends 'boolean' ? boolean : F['type'] extends 'number' ? number : string;

/** The parsed flags: booleans default to false, repeated flags to [], others to undefined. */
export type FlagValues<S extends FlagSpecs> = {
  [K in keyof S]: S[K]['multiple'] extends true
    ? ValueOf<S[K]>[]
    : S[K]['type'] extends 'boolean'
      ? boolean
      : ValueOf<S[K]> | undefined;
};

interface ParseOptions {
  /** Number of positionals allowed (default: any). `names` is used in the error message. */
  positionals?: { min?: number; max?: number; names?: string };
}

interface ParsedArgs<S extends FlagSpecs> {
  flags: FlagValues<S>;
  positionals: string[];
}

function toValue(name: string, spec: FlagSpec, raw: string): string | number | boolean {
  if (spec.type === 'number') {
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n))
      throw new UsageError(`--${name} expects a number, got ${JSON.stringify(raw)}`);
    return n;
  }
  if (spec.type === 'boolean') {
    if (/^(true|1|yes)$/i.test(raw)) return true;
    if (/^(false|0|no)$/i.test(raw)) return false;
    throw new UsageError(`--${name} is a switch (true or false), got ${JSON.stringify(raw)}`);
  }
  return raw;
}

/** Parses `args` (the words after the command name) against `specs`. */
export function parseArgs<S extends FlagSpecs>(
  args: readonly string[],
  specs: S,
  opts: ParseOptions = {},
): ParsedArgs<S> {
  const values: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(specs))
    values[name] = spec.multiple ? [] : spec.type === 'boolean' ? false : undefined;
  const byShort = new Map<string, string>();
  for (const [name, spec] of Object.entries(specs)) if (spec.short) byShort.set(spec.short, name);

  const set = (name: string, spec: FlagSpec, value: string | number | boolean): void => {
    if (spec.multiple) (values[name] as unknown[]).push(value);
    else values[name] = value;
  };

  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--') {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const isLong = arg.startsWith('--');
    const eq = arg.indexOf('=');
    const key = isLong ? arg.slice(2, eq === -1 ? undefined : eq) : arg.slice(1, eq === -1 ? undefined : eq);
    const inline = eq === -1 ? undefined : arg.slice(eq + 1);
    let name = isLong ? key : byShort.get(key);
    const spec = name !== undefined ? specs[name] : undefined;
    if (!spec && isLong && key.startsWith('no-') && specs[key.slice(3)]?.type === 'boolean' && inline === undefined) {
      name = key.slice(3);
      set(name, specs[name], false);
      continue;
    }
    if (!spec || name === undefined) {
      const known = Object.keys(specs).map((k) => `--${k}`);
      throw new UsageError(
        `unknown option ${isLong ? '--' : '-'}${key}${known.length ? ` (options: ${known.join(', ')})` : ' (this command takes no options)'}`,
      );
    }
    if (spec.type === 'boolean') {
      set(name, spec, inline === undefined ? true : toValue(name, spec, inline));
      continue;
    }
    let raw = inline;
    if (raw === undefined) {
      if (i + 1 >= args.length) throw new UsageError(`--${name} needs a value`);
      raw = args[++i];
    }
    set(name, spec, toValue(name, spec, raw));
  }

  const { min = 0, max = Infinity, names = 'arguments' } = opts.positionals ?? {};
  if (positionals.length < min) throw new UsageError(`missing ${names}`);
  if (positionals.length > max) {
    throw new UsageError(
      `too many arguments: ${positionals
        .slice(max)
        .map((p) => JSON.stringify(p))
        .join(' ')} (expected ${names})`,
    );
  }
  return { flags: values as FlagValues<S>, positionals };
}

/** Help lines for a set of flags: "  -o, --output FILE   output file". */
export function formatFlags(specs: FlagSpecs): string {
  const rows = Object.entries(specs).map(([name, spec]) => {
    const left = `${spec.short ? `-${spec.short}, ` : '    '}--${name}${spec.type === 'boolean' ? '' : ` ${spec.valueName ?? (spec.type === 'number' ? 'N' : 'VALUE')}`}`;
    return [left, `${spec.description ?? ''}${spec.multiple ? ' (repeatable)' : ''}`];
  });
  const width = Math.max(0, ...rows.map(([l]) => l.length));
  return rows.map(([l, r]) => `  ${l.padEnd(width)}  ${r}`.trimEnd()).join('\n');
}
