/**
 * The run manifest written beside every output file (`<out>.manifest.json`): configuration, seed,
 * versions, inputs, shard, counts, timings and status. Written when the run starts, refreshed
 * while it runs, and finalised at the end; written to a temporary file and renamed, so a reader
 * never sees half a manifest.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { RunManifest } from '../model';
import pkg from '../../../package.json';

/** The SimLens version recorded in manifests. */
export const SIMLENS_VERSION: string = (pkg as { version: string }).version;

/** The manifest path of an output file. */
export function manifestPath(out: string): string {
  return `${out}.manifest.json`;
}

function stable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value as Record<string, unknown>).sort()) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined) out[k] = stable(v);
    }
    return out;
  }
  return value;
}

/** A run id derived from the configuration (resumed runs and shards of one run share it). */
export function runIdFor(config: Record<string, unknown>): string {
  return createHash('sha256').update(JSON.stringify(stable(config))).digest('hex').slice(0, 16);
}

/** True when two configurations are the same run (key order and undefined values ignored). */
export function sameConfig(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  return JSON.stringify(stable(a)) === JSON.stringify(stable(b));
}

/** Writes a manifest atomically. */
export function writeManifest(out: string, manifest: RunManifest): void {
  const path = manifestPath(out);
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, JSON.stringify(manifest, null, 2) + '\n');
  renameSync(tmp, path);
}

/** Reads and validates a manifest; undefined when there is none. Errors name the file and field. */
export function readManifest(out: string): RunManifest | undefined {
  const path = manifestPath(out);
  if (!existsSync(path)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`${path}: not valid JSON (${(err as Error).message})`);
  }
  const r = RunManifest.safeParse(value);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new Error(`${path}: field ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return r.data;
}

const STATUS_RANK: Record<string, number> = { finished: 0, running: 1, cancelled: 2, crashed: 3 };

/**
 * Combines the manifests of shards of one run: counts add up, the earliest start and latest end
 * are kept, the status is the worst one, and every part is listed under `parts`. Throws when the
 * parts come from different configurations or seeds.
 */
export function mergeManifests(parts: readonly { file: string; manifest: RunManifest }[], out: string): RunManifest {
  if (parts.length === 0) throw new Error('no manifests to merge');
  const first = parts[0].manifest;
  for (const p of parts.slice(1)) {
    if (!sameConfig(p.manifest.config, first.config) || String(p.manifest.seed) !== String(first.seed)) {
      throw new Error(`${manifestPath(p.file)}: configuration differs from ${manifestPath(parts[0].file)}; these are not parts of one run`);
    }
  }
  const started = parts.map((p) => p.manifest.timings.started).sort()[0];
  const ends = parts.map((p) => p.manifest.timings.finished).filter((x): x is string => !!x).sort();
  const finished = ends.length === parts.length ? ends[ends.length - 1] : undefined;
  let status = 'finished';
  for (const p of parts) {
    const s = p.manifest.status ?? 'running';
    if ((STATUS_RANK[s] ?? 0) > (STATUS_RANK[status] ?? 0)) status = s;
  }
  const counts = { planned: 0, finished: 0, failed: 0, resumed: 0 };
  for (const p of parts) {
    counts.planned += p.manifest.counts.planned;
    counts.finished += p.manifest.counts.finished;
    counts.failed += p.manifest.counts.failed;
    counts.resumed += p.manifest.counts.resumed ?? 0;
  }
  const { shard: _shard, ...rest } = first;
  const merged: RunManifest = {
    ...rest,
    created: new Date().toISOString(),
    command: `simlens merge ${out} ${parts.map((p) => p.file).join(' ')}`,
    counts,
    timings: {
      started,
      ...(finished ? { finished, wall_ms: Date.parse(finished) - Date.parse(started) } : {}),
    },
    status: status as RunManifest['status'],
  };
  (merged as Record<string, unknown>)['output'] = out;
  (merged as Record<string, unknown>)['parts'] = parts.map((p) => ({
    file: p.file,
    shard: p.manifest.shard,
    counts: p.manifest.counts,
    timings: p.manifest.timings,
    status: p.manifest.status,
  }));
  return merged;
}
