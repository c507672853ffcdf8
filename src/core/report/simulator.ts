/**
 * The `--simulator CONFIG` argument of `simlens report` and "SimLens: Validate Simulator…": which
 * simulated user to run, given either as a JSON file with simulation options or inline.
 *
 * - JSON file (`sim.json`): an object with any of the `simlens simulate` configuration fields
 *   (`user`, `interaction`, `preferences`, `meta`, `tolerance`, `p_switch`, `patience`,
 *   `typo_rate`, `max_turns`, `catalog`, `corpus`, `transitions`, …; see
 *   `SimulationConfigSchema`). `agent`, `n` and `seed` are set by the report for each run and
 *   are ignored if present. Relative paths inside resolve against the JSON file's folder.
 * - Inline: colon-separated words, each either a value that says which field it sets
 *   (`agenda` | `target-free` | `llm-prompted` | `llm-icl` | `llm-sft` | `llm-target-free` → user,
 *   `cir6` | `qrfa` → interaction, `single` | `pkg` →
 *   preferences, `tol` | `prob` → meta) or `key=value` for any other field
 *   (`agenda:cir6:pkg:patience=6:typo_rate=0.05`). Numbers and true/false are converted.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { SimulationConfigSchema, type SimulationConfigInput } from '../run/config';
import { zodErrorMessage } from '../jsonl/zodIssues';

/** Simulation options without the per-run fields (agent, n, seed). */
type SimulatorOptions = Omit<SimulationConfigInput, 'agent' | 'n' | 'seed'>;

/** A resolved simulator: its options, a short name for reports, and where relative paths resolve. */
interface ResolvedSimulator {
  options: SimulatorOptions;
  /** "agenda:cir6:pkg" style name for titles. */
  name: string;
  /** Folder that relative paths in `options` resolve against. */
  cwd: string;
  /** The JSON file, when one was given. */
  file?: string;
}

const WORDS: Record<string, [keyof SimulatorOptions, string]> = {
  agenda: ['user', 'agenda'],
  'target-free': ['user', 'target-free'],
  cir6: ['interaction', 'cir6'],
  qrfa: ['interaction', 'qrfa'],
  single: ['preferences', 'single'],
  pkg: ['preferences', 'pkg'],
  tol: ['meta', 'tol'],
  prob: ['meta', 'prob'],
  'llm-prompted': ['user', 'llm-prompted'],
  'llm-icl': ['user', 'llm-icl'],
  'llm-sft': ['user', 'llm-sft'],
  'llm-target-free': ['user', 'llm-target-free'],
};

const PER_RUN = new Set(['agent', 'n', 'seed']);

function coerce(raw: string): string | number | boolean {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (raw.trim() !== '' && Number.isFinite(Number(raw))) return Number(raw);
  return raw;
}

/** A readable name of simulator options ("agenda:cir6:pkg", plus the meta-simulator if any). */
function simulatorName(options: SimulatorOptions): string {
  const o = SimulationConfigSchema.parse({ ...options, n: 1 });
  return [o.user, o.interaction, o.preferences, ...(o.meta ? [o.meta] : [])].join(':');
}

/** Checks options against the simulation schema (with placeholder per-run fields); the message names the field. */
function validate(options: SimulatorOptions, origin: string): void {
  const value = { ...options, n: 1 };
  const r = SimulationConfigSchema.safeParse(value);
  if (!r.success) throw new Error(zodErrorMessage(origin, r.error, value));
}

/** Parses an inline spec such as "agenda:cir6:pkg" or "agenda:qrfa:single:patience=4". */
export function parseInlineSimulator(spec: string): SimulatorOptions {
  const out: Record<string, unknown> = {};
  const words = spec
    .split(':')
    .map((w) => w.trim())
    .filter(Boolean);
  if (!words.length) throw new Error('simulator spec is empty (e.g. "agenda:cir6:pkg")');
  for (const w of words) {
    const eq = w.indexOf('=');
    if (eq > 0) {
      const key = w.slice(0, eq).trim();
      if (PER_RUN.has(key))
        throw new Error(
          `simulator "${spec}": "${key}" is set by the report (--agents, --n, --seed), not by the simulator spec`,
        );
      if (!(key in SimulationConfigSchema.shape))
        throw new Error(
          `simulator "${spec}": unknown option "${key}" (known: ${Object.keys(SimulationConfigSchema.shape)
            .filter((k) => !PER_RUN.has(k))
            .join(', ')})`,
        );
      out[key] = coerce(w.slice(eq + 1).trim());
      continue;
    }
    const hit = WORDS[w.toLowerCase()];
    if (!hit)
      throw new Error(`simulator "${spec}": unknown word "${w}" (use ${Object.keys(WORDS).join(', ')}, or key=value)`);
    const [field, value] = hit;
    if (out[field] !== undefined && out[field] !== value)
      throw new Error(`simulator "${spec}": ${String(field)} given twice ("${String(out[field])}" and "${value}")`);
    out[field] = value;
  }
  const options = out as SimulatorOptions;
  validate(options, `simulator "${spec}"`);
  return options;
}

/**
 * Resolves `--simulator`: an existing `.json` file (read and validated), otherwise an inline spec.
 * Relative file paths resolve against `cwd`.
 */
export function resolveSimulator(spec: string, cwd: string): ResolvedSimulator {
  const path = isAbsolute(spec) ? spec : resolve(cwd, spec);
  const looksLikeFile = /\.json$/i.test(spec) || (existsSync(path) && statSync(path).isFile());
  if (looksLikeFile) {
    if (!existsSync(path)) throw new Error(`simulator config ${spec}: no such file`);
    let value: unknown;
    try {
      value = JSON.parse(readFileSync(path, 'utf8'));
    } catch (e) {
      throw new Error(`simulator config ${spec}: not valid JSON (${(e as Error).message})`);
    }
    if (!value || typeof value !== 'object' || Array.isArray(value))
      throw new Error(`simulator config ${spec}: expected a JSON object with simulation options`);
    const options: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (PER_RUN.has(k)) continue;
      if (!(k in SimulationConfigSchema.shape)) throw new Error(`simulator config ${spec}: unknown option "${k}"`);
      options[k] = v;
    }
    validate(options as SimulatorOptions, `simulator config ${spec}`);
    return {
      options: options as SimulatorOptions,
      name: simulatorName(options as SimulatorOptions),
      cwd: dirname(path),
      file: path,
    };
  }
  const options = parseInlineSimulator(spec);
  return { options, name: simulatorName(options), cwd };
}
