/**
 * Populations for the metric reports: a file plus an optional filter (condition, task, source,
 * agent), loaded once per computation, with the facet counts the panels offer as filter choices.
 */
import { basename, isAbsolute, resolve } from 'node:path';
import { existsSync, statSync } from 'node:fs';
import * as z from 'zod';
import { conversationCondition, conversationSource, conversationTask, type Conversation } from '../model';
import { createRng } from '../random';
import { loadPopulation } from '../metrics/load';
import { noConversationsError } from './inputProblem';

export const PopulationFilterSchema = z.object({
  condition: z.string().max(500).optional(),
  task: z.string().max(500).optional(),
  source: z.string().max(500).optional(),
  agent: z.string().max(500).optional(),
});
/** Keep only conversations whose derived condition/task/source/agent equal these values. */
export type PopulationFilter = z.infer<typeof PopulationFilterSchema>;

export const PopulationSpecSchema = z.object({
  /** Absolute path, or relative to the computation's working directory. */
  file: z.string().min(1).max(4000),
  /** Label in the report (default: the file's base name plus the filter). */
  label: z.string().min(1).max(200).optional(),
  filter: PopulationFilterSchema.optional(),
  /**
   * Precomputed per-conversation features of `file` (`simlens metrics features FILE --out
   * FEATURES`, or its shards merged with `simlens merge`). The feature reports (PLSA,
   * counterfactual) then read the features, filters and failures from it instead of `file`,
   * with the same result; reports that need the text (human-likeness, simulation, invariants)
   * read `file` itself.
   */
  features: z.string().min(1).max(4000).optional(),
});
export type PopulationSpec = z.infer<typeof PopulationSpecSchema>;

/** The values a filter looks at: a conversation's derived condition, task, source and agent. */
export interface FacetValues {
  condition?: string;
  task?: string;
  source?: string;
  agent?: string;
}

/** The facet values of a conversation (absent ones left out). */
export function facetValues(conv: Conversation): FacetValues {
  const out: FacetValues = {};
  const condition = conversationCondition(conv);
  const task = conversationTask(conv);
  if (condition !== undefined) out.condition = condition;
  if (task !== undefined) out.task = task;
  out.source = conversationSource(conv);
  if (conv.agent !== undefined) out.agent = conv.agent;
  return out;
}

/** Whether facet values pass a filter. */
export function facetsMatch(values: FacetValues, filter: PopulationFilter | undefined): boolean {
  if (!filter) return true;
  return (['condition', 'task', 'source', 'agent'] as const).every(
    (k) => filter[k] === undefined || values[k] === filter[k],
  );
}

/** Whether a conversation passes a filter. */
export function matchesFilter(conv: Conversation, filter: PopulationFilter | undefined): boolean {
  return facetsMatch(facetValues(conv), filter);
}

/** "condition=good, task=footwear", or undefined for no filter. */
export function describeFilter(filter: PopulationFilter | undefined): string | undefined {
  if (!filter) return undefined;
  const parts = (['condition', 'task', 'source', 'agent'] as const)
    .filter((k) => filter[k] !== undefined)
    .map((k) => `${k}=${filter[k]}`);
  return parts.length ? parts.join(', ') : undefined;
}

/** The default label of a population: base name without extension, plus the filter values. */
export function defaultLabel(spec: PopulationSpec): string {
  const base =
    basename(spec.file)
      .replace(/\.(conv|sim)?\.?jsonl?$/i, '')
      .replace(/\.json$/i, '') || basename(spec.file);
  const f = spec.filter;
  const vals = f ? [f.condition, f.task, f.source, f.agent].filter((v): v is string => v !== undefined) : [];
  return vals.length ? `${base} (${vals.join(', ')})` : base;
}

/** A population ready for the metrics. */
export interface LoadedPopulation {
  label: string;
  /** The file as the spec named it. */
  file: string;
  filter?: string;
  conversations: Conversation[];
  /** 1-based file line of each conversation, parallel to `conversations` (JSONL files only). */
  lines?: number[];
  /** Conversations in the file before filtering. */
  total: number;
  /** Problem lines of the file (perhaps only the first few: see `problemCount`). */
  problems: string[];
  /** How many problem lines the file has, when `problems` lists only the first few. */
  problemCount?: number;
}

/** Facet counts over a file's conversations, for filter pickers. */
interface Facets {
  total: number;
  condition: [string, number][];
  task: [string, number][];
  source: [string, number][];
  agent: [string, number][];
}

/** Counts each condition, task, source and agent (most frequent first). */
export function populationFacets(conversations: readonly Conversation[]): Facets {
  const count = (key: (c: Conversation) => string | undefined) => {
    const m = new Map<string, number>();
    for (const c of conversations) {
      const k = key(c);
      if (k !== undefined) m.set(k, (m.get(k) ?? 0) + 1);
    }
    return [...m.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  };
  return {
    total: conversations.length,
    condition: count(conversationCondition),
    task: count(conversationTask),
    source: count(conversationSource),
    agent: count((c) => c.agent),
  };
}

/**
 * Loads files once per computation (keyed by absolute path and modification time), so a file
 * used for several populations (e.g. two conditions) is parsed once.
 */
export class PopulationLoader {
  private readonly cache = new Map<string, Promise<unknown>>();
  constructor(private readonly cwd: string = process.cwd()) {}

  /** The absolute path of a spec's file. */
  path(file: string): string {
    return isAbsolute(file) ? file : resolve(this.cwd, file);
  }

  /**
   * Reads a file once per computation with `read` (keyed by what is read, the absolute path and
   * the modification time): conversation files, and feature files (src/core/report/featureFile.ts).
   */
  async once<T>(kind: string, file: string, read: (abs: string) => Promise<T>): Promise<T> {
    const abs = this.path(file);
    let stamp = '';
    try {
      const st = statSync(abs);
      if (!st.isFile()) throw new Error(`${file}: not a file`);
      stamp = `${st.mtimeMs}:${st.size}`;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new Error(code === 'ENOENT' ? `${file}: no such file` : (e as Error).message);
    }
    const key = `${kind}\u0000${abs}\u0000${stamp}`;
    let p = this.cache.get(key) as Promise<T> | undefined;
    if (!p) {
      p = read(abs);
      this.cache.set(key, p);
    }
    return p;
  }

  /** Every conversation of a file (validated; invalid lines are reported as problems). */
  file(file: string): Promise<{ conversations: Conversation[]; lines?: number[]; problems: string[] }> {
    return this.once('conversations', file, (abs) =>
      loadPopulation(abs, file).then((pop) => ({
        conversations: pop.conversations,
        lines: pop.lines,
        problems: pop.problems,
      })),
    );
  }

  /** A filtered population; throws when the filter leaves nothing. */
  async load(spec: PopulationSpec): Promise<LoadedPopulation> {
    const all = await this.file(spec.file).catch((e: Error) => {
      if (spec.features !== undefined && !existsSync(this.path(spec.file))) {
        throw new Error(
          `${spec.file}: no such file; ${spec.features} holds only the features, and this report needs the conversations themselves (their text)`,
        );
      }
      throw e;
    });
    const keep = all.conversations.map((c) => matchesFilter(c, spec.filter));
    const conversations = all.conversations.filter((_, i) => keep[i]);
    const filter = describeFilter(spec.filter);
    if (conversations.length === 0) {
      throw noConversationsError(spec.file, filter, all.conversations.length);
    }
    const out: LoadedPopulation = {
      label: spec.label ?? defaultLabel(spec),
      file: spec.file,
      filter,
      conversations,
      total: all.conversations.length,
      problems: all.problems,
    };
    if (all.lines) out.lines = all.lines.filter((_, i) => keep[i]);
    return out;
  }
}

/** A seeded random sample of at most `size` items (the input order when it is small enough). */
export function sampleUpTo<T>(items: readonly T[], size: number, seed: string | number): T[] {
  if (items.length <= size) return items.slice();
  return createRng(`report-sample/${String(seed)}`)
    .shuffle(items.slice())
    .slice(0, size);
}

/** Makes labels unique by appending " (2)", " (3)", … to repeats. */
export function uniqueLabels(labels: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return labels.map((l) => {
    const k = (seen.get(l) ?? 0) + 1;
    seen.set(l, k);
    return k === 1 ? l : `${l} (${k})`;
  });
}
