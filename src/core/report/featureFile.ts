/**
 * Feature files: the per-conversation features of a conversation file, computed once (or in shards
 * on a cluster) and read back by the feature reports (PLSA, counterfactual) instead of the
 * conversations, with the same result bit for bit.
 *
 * `simlens metrics features FILE --out FEATURES [--shard I/K|auto]` writes one JSON line per
 * conversation of FILE (the part of shard I/K: positions I, I+K, ...), in input order:
 *
 *   {"position":0,"line":1,"id":"c1","condition":"good","task":"footwear","source":"human",
 *    "outcome":"accepted","acts_known":true,"agent_acts_known":false,
 *    "values":{"num_turns":4,"user_words_per_turn":7.25,"act:critique":1,...,"satisfaction":null}}
 *
 * - `position`: the conversation's 0-based position among the valid conversations of FILE;
 *   `line`: its 1-based line in FILE (JSONL input only); `id`: its id;
 * - `condition`, `task`, `source`, `agent`: what population filters look at (absent ones left
 *   out);
 * - `failure` ({agent, reason}) for a failed conversation, else `outcome`
 *   (accepted/ended/gave_up/abandoned): the reports leave failed conversations out and say so;
 * - `values`: every feature of the conversation (`conversationFeatures`), with `acts_known` and
 *   `agent_acts_known` saying whether an absent act count is 0 or unknown. A missing value (NaN)
 *   is `null`; -0 and ±Infinity are written as the strings "-0", "Infinity", "-Infinity". Every
 *   other number is written as JavaScript's shortest round-trip decimal, so reading it back gives
 *   the same double: this is what makes the reports from a feature file equal to the reports
 *   from the conversations.
 *
 * The manifest beside it (FEATURES.manifest.json, `task: "features"`) records the input (name,
 * size, SHA-256), the number of conversations (`config.items`), the act and UX sources, the SimLens
 * version (the built-in act tagger belongs to it) and the input's invalid lines
 * (`input_problems`). Parts of one pass are joined with `simlens merge` (interleaved by
 * position, as judge parts are); parts of other sources, inputs or versions are refused there.
 *
 * Human-likeness needs the text (n-grams), so it always reads the conversations.
 */
import { basename, dirname, join } from 'node:path';
import * as z from 'zod';
import { conversationId, USER_OUTCOMES, type Conversation } from '../model';
import {
  conversationFeatures,
  type ConversationFeatures,
  type FeatureOptions,
  type UxSource,
} from '../metrics/features';
import { zodErrorMessage } from '../jsonl/zodIssues';
import { inputRecord, type InputRecord } from '../run/annotationShard';
import { FAILURE_REASONS } from '../failures';
import { manifestPath, readManifest, SIMLENS_VERSION } from '../run/manifest';
import { readLines } from '../run/output';
import { outcomeClass, UNKNOWN_REASON, type OutcomeClass } from './outcomes';
import { facetValues, type FacetValues } from './populations';

/** The `task` of a feature pass's manifest. */
export const FEATURES_TASK = 'features';

/** Where a feature pass takes dialogue acts and user experience from, as report specs name them. */
export interface FeatureSources {
  acts?: string;
  ux?: UxSource;
  judge?: string;
}

/** The sources as a feature file records them: defaults written out, so "tagger" and no value are one. */
function featureSourcesRecord(s: FeatureSources): { acts: string; ux: UxSource; judge: string | null } {
  return { acts: s.acts ?? 'tagger', ux: s.ux ?? 'auto', judge: s.judge ?? null };
}

function describeSources(s: { acts: string; ux: string; judge: string | null }): string {
  return `acts ${s.acts}, ux ${s.ux}, judge ${s.judge ?? 'any'}`;
}

/** The configuration of a feature pass: what makes two shards parts of one pass. */
export function featurePassConfig(o: {
  inputFile: string;
  items: number;
  sources: FeatureSources;
}): Record<string, unknown> {
  return {
    command: FEATURES_TASK,
    input: inputRecord(o.inputFile),
    items: o.items,
    sources: featureSourcesRecord(o.sources),
    simlens_version: SIMLENS_VERSION,
  };
}

/** One conversation's row of a feature file. */
export interface FeatureRow {
  position: number;
  line?: number;
  id: string;
  facets: FacetValues;
  outcome: OutcomeClass;
  features: ConversationFeatures;
}

/** The row of a conversation at `position` (1-based file `line` when known). */
export function featureRowOf(
  conv: Conversation,
  position: number,
  line: number | undefined,
  opts: FeatureOptions,
): FeatureRow {
  const row: FeatureRow = {
    position,
    id: conversationId(conv, line),
    facets: facetValues(conv),
    outcome: outcomeClass(conv),
    features: conversationFeatures(conv, opts),
  };
  if (line !== undefined) row.line = line;
  return row;
}

type Encoded = number | null | '-0' | 'Infinity' | '-Infinity';

function encodeValue(v: number): Encoded {
  if (Number.isNaN(v)) return null;
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  if (Object.is(v, -0)) return '-0';
  return v;
}

function decodeValue(v: Encoded): number {
  if (v === null) return NaN;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  if (v === '-0') return -0;
  return v;
}

/** The JSON object of a row (one line of a feature file; see the header for the fields). */
export function featureRowJson(row: FeatureRow): Record<string, unknown> {
  const out: Record<string, unknown> = { position: row.position };
  if (row.line !== undefined) out.line = row.line;
  out.id = row.id;
  for (const k of ['condition', 'task', 'source', 'agent'] as const)
    if (row.facets[k] !== undefined) out[k] = row.facets[k];
  if (row.outcome.failure) out.failure = { agent: row.outcome.failure.agent, reason: row.outcome.failure.reason };
  else out.outcome = row.outcome.outcome ?? 'ended';
  out.acts_known = row.features.actsKnown;
  out.agent_acts_known = row.features.agentActsKnown;
  out.values = Object.fromEntries(Object.entries(row.features.values).map(([k, v]) => [k, encodeValue(v)]));
  return out;
}

const Text = z.string().max(10_000);
const FeatureRowSchema = z.strictObject({
  position: z.number().int().nonnegative(),
  line: z.number().int().positive().optional(),
  id: Text,
  condition: Text.optional(),
  task: Text.optional(),
  source: Text.optional(),
  agent: Text.optional(),
  failure: z.strictObject({ agent: z.boolean(), reason: z.enum([UNKNOWN_REASON, ...FAILURE_REASONS]) }).optional(),
  outcome: z.enum(USER_OUTCOMES).optional(),
  acts_known: z.boolean(),
  agent_acts_known: z.boolean(),
  values: z.record(z.string().max(1000), z.union([z.number(), z.null(), z.enum(['-0', 'Infinity', '-Infinity'])])),
});

/** Reads one line of a feature file; errors name the file, line and field. */
export function parseFeatureRow(text: string, file: string, line: number): FeatureRow {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`${file}:${line}: not valid JSON (${(err as Error).message})`);
  }
  const r = FeatureRowSchema.safeParse(value);
  if (!r.success) throw new Error(zodErrorMessage(`${file}:${line}`, r.error, value));
  const d = r.data;
  if (d.failure === undefined && d.outcome === undefined)
    throw new Error(`${file}:${line}: outcome: required field is missing (a row without failure needs its outcome)`);
  const facets: FacetValues = {};
  for (const k of ['condition', 'task', 'source', 'agent'] as const) if (d[k] !== undefined) facets[k] = d[k];
  const values: Record<string, number> = {};
  for (const [k, v] of Object.entries(d.values)) values[k] = decodeValue(v);
  const row: FeatureRow = {
    position: d.position,
    id: d.id,
    facets,
    outcome: d.failure
      ? {
          failure: {
            agent: d.failure.agent,
            reason: d.failure.reason as NonNullable<OutcomeClass['failure']>['reason'],
          },
        }
      : { outcome: d.outcome },
    features: { values, actsKnown: d.acts_known, agentActsKnown: d.agent_acts_known },
  };
  if (d.line !== undefined) row.line = d.line;
  return row;
}

/** How many invalid lines a feature pass's input had, and the first few (without the file name). */
interface InputProblems {
  count: number;
  first: string[];
}

/** The first `keep` problems of a population load, with the file name (`display:`) cut off. */
export function inputProblems(problems: readonly string[], display: string, keep = 5): InputProblems {
  const prefix = `${display}:`;
  return {
    count: problems.length,
    first: problems.slice(0, keep).map((p) => (p.startsWith(prefix) ? p.slice(prefix.length) : p)),
  };
}

const PassConfigSchema = z.object({
  input: z.object({ name: z.string(), bytes: z.number().int().nonnegative(), sha256: z.string() }),
  items: z.number().int().nonnegative(),
  sources: z.object({ acts: z.string(), ux: z.enum(['auto', 'judge', 'first-person']), judge: z.string().nullable() }),
});

const ProblemsSchema = z.object({ count: z.number().int().nonnegative(), first: z.array(z.string()) });

/** A complete feature file, read and checked. */
interface FeatureFile {
  input: InputRecord;
  items: number;
  sources: { acts: string; ux: UxSource; judge: string | null };
  problems: InputProblems;
  /** One row per conversation of the input, in input order. */
  rows: FeatureRow[];
}

/**
 * Reads a feature file written by `simlens metrics features --out` (or merged from its shards).
 * `display` names it in messages. Throws when the manifest is missing, the file is one shard of a
 * pass, the pass did not finish or has gaps, or a row is invalid or out of place.
 */
export async function readFeatureFile(abs: string, display: string): Promise<FeatureFile> {
  const manifest = readManifest(abs);
  const mpath = manifestPath(display);
  if (!manifest)
    throw new Error(
      `${display}: no manifest beside it (${mpath}); write feature files with simlens metrics features FILE --out ${display}`,
    );
  const extra = manifest as Record<string, unknown>;
  if (extra['task'] !== FEATURES_TASK)
    throw new Error(
      `${mpath}: field task: expected "${FEATURES_TASK}", got ${JSON.stringify(extra['task'] ?? null)}; ${display} is not a feature file`,
    );
  if (manifest.shard)
    throw new Error(
      `${display}: is shard ${manifest.shard.index}/${manifest.shard.count} of a feature pass; merge the parts first (simlens merge OUT)`,
    );
  if (manifest.status !== 'finished' || extra['missing'] !== undefined) {
    throw new Error(
      `${display}: the feature pass is incomplete (status ` +
        `${manifest.status ?? 'running'}${extra['missing'] !== undefined ? ', positions missing' : ''}; see ${mpath}); ` +
        `rerun the missing tasks and merge again`,
    );
  }
  const config = PassConfigSchema.safeParse(manifest.config);
  if (!config.success) throw new Error(zodErrorMessage(`${mpath}: config`, config.error, manifest.config));
  let problems: InputProblems = { count: 0, first: [] };
  if (extra['input_problems'] !== undefined) {
    const p = ProblemsSchema.safeParse(extra['input_problems']);
    if (!p.success) throw new Error(zodErrorMessage(`${mpath}: input_problems`, p.error, extra['input_problems']));
    problems = p.data;
  }
  const rows: FeatureRow[] = [];
  for await (const { text, line } of readLines(abs)) {
    if (text.trim() === '') continue;
    const row = parseFeatureRow(text, display, line);
    if (row.position !== rows.length)
      throw new Error(
        `${display}:${line}: position: expected ${rows.length} (rows are in input order), got number ${row.position}`,
      );
    rows.push(row);
  }
  if (rows.length !== config.data.items)
    throw new Error(
      `${display}: has ${rows.length} rows, but its input ${config.data.input.name} has ${config.data.items} conversations (${mpath})`,
    );
  return { input: config.data.input, items: config.data.items, sources: config.data.sources, problems, rows };
}

/**
 * Checks that a feature file fits a population of a report: computed with the report's act and
 * UX sources, and from the conversations file as it is now (`current`: its size and SHA-256, when
 * the file is there; else only its name is compared).
 */
export function checkFeatureFile(
  ff: FeatureFile,
  o: { features: string; conversations: string; sources: FeatureSources; current?: InputRecord },
): void {
  const want = featureSourcesRecord(o.sources);
  if (want.acts !== ff.sources.acts || want.ux !== ff.sources.ux || want.judge !== ff.sources.judge) {
    throw new Error(
      `${o.features}: features were computed with ${describeSources(ff.sources)}, but the report asks for ` +
        `${describeSources(want)}; compute them again with those options (--annotator, --ux, --judge)`,
    );
  }
  if (o.current) {
    if (o.current.bytes !== ff.input.bytes || o.current.sha256 !== ff.input.sha256) {
      throw new Error(
        `${o.features}: computed from another version of ${o.conversations} (${ff.input.bytes} bytes, SHA-256 ` +
          `${ff.input.sha256.slice(0, 12)}…; now ${o.current.bytes} bytes, ${o.current.sha256.slice(0, 12)}…); compute the features again`,
      );
    }
  } else if (basename(o.conversations) !== ff.input.name) {
    throw new Error(`${o.features}: computed from ${ff.input.name}, not ${o.conversations}`);
  }
}

/**
 * The conversations file a feature file stands for (its recorded input, in the feature file's
 * folder), or undefined when `file` is not a feature file (no manifest, or another task).
 */
export function featureFileInput(file: string, abs: string): string | undefined {
  let manifest;
  try {
    manifest = readManifest(abs);
  } catch {
    return undefined;
  }
  if (!manifest || (manifest as Record<string, unknown>)['task'] !== FEATURES_TASK) return undefined;
  const input = (manifest.config as Record<string, unknown>)['input'] as { name?: unknown } | undefined;
  if (typeof input?.name !== 'string' || input.name === '') return undefined;
  return join(dirname(file), input.name);
}
