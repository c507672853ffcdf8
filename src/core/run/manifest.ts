/**
 * The run manifest written beside every output file (`<out>.manifest.json`): configuration, seed,
 * versions, inputs, shard, counts, timings and status. Written when the run starts, refreshed
 * while it runs, and finalised at the end; written to a temporary file and renamed, so a reader
 * never sees half a manifest.
 */
import { redactSecrets } from '../llm/redact';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { writeFileAtomicSync } from '../atomicFile';
import { RunManifest } from '../model';
import pkg from '../../../package.json';
import { FailureTally, isFailureReason, type FailureCounts } from '../failures';
import { zodErrorMessage } from '../jsonl/zodIssues';

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
  return createHash('sha256')
    .update(JSON.stringify(stable(config)))
    .digest('hex')
    .slice(0, 16);
}

/** True when two configurations are the same run (key order and undefined values ignored). */
export function sameConfig(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  return JSON.stringify(stable(a)) === JSON.stringify(stable(b));
}

/** Writes a manifest atomically. */
export function writeManifest(out: string, manifest: RunManifest): void {
  const path = manifestPath(out);
  // The command line may carry credentials (a --base-url with user:password@ or ?api-key=): never written.
  const written =
    typeof manifest.command === 'string' ? { ...manifest, command: redactSecrets(manifest.command) } : manifest;
  writeFileAtomicSync(path, JSON.stringify(written, null, 2) + '\n');
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
    throw new Error(zodErrorMessage(path, r.error, value));
  }
  return r.data;
}

const STATUS_RANK: Record<string, number> = { finished: 0, running: 1, cancelled: 2, stopped: 3, crashed: 4 };

type Stats = { count: number; mean: number; max: number };

/** Latency statistics of several parts: count, mean and max combine exactly; percentiles cannot, so they are left out. */
function combineStats(parts: readonly unknown[]): Stats | undefined {
  let count = 0;
  let sum = 0;
  let max = -Infinity;
  for (const p of parts) {
    if (!p || typeof p !== 'object') continue;
    const s = p as Partial<Stats>;
    if (typeof s.count !== 'number' || typeof s.mean !== 'number' || typeof s.max !== 'number' || s.count <= 0)
      continue;
    count += s.count;
    sum += s.count * s.mean;
    max = Math.max(max, s.max);
  }
  return count ? { count, mean: Math.round((sum / count) * 100) / 100, max } : undefined;
}

/**
 * Combines the manifests of shards of one run: counts add up (failures per reason too), the
 * earliest start and latest end are kept, latency statistics keep count, mean and max, the status
 * is the worst one, and every part is listed under `parts`. Throws when the
 * parts come from different configurations or seeds.
 */
export function mergeManifests(parts: readonly { file: string; manifest: RunManifest }[], out: string): RunManifest {
  if (parts.length === 0) throw new Error('no manifests to merge');
  const first = parts[0].manifest;
  for (const p of parts.slice(1)) {
    if (!sameConfig(p.manifest.config, first.config) || String(p.manifest.seed) !== String(first.seed)) {
      throw new Error(
        `${manifestPath(p.file)}: configuration differs from ${manifestPath(parts[0].file)}; these are not parts of one run`,
      );
    }
  }
  const started = parts.map((p) => p.manifest.timings.started).sort()[0];
  const ends = parts
    .map((p) => p.manifest.timings.finished)
    .filter((x): x is string => !!x)
    .sort();
  const finished = ends.length === parts.length ? ends[ends.length - 1] : undefined;
  let status = 'finished';
  for (const p of parts) {
    const s = p.manifest.status ?? 'running';
    if ((STATUS_RANK[s] ?? 0) > (STATUS_RANK[status] ?? 0)) status = s;
  }
  const tally = new FailureTally();
  const counts = {
    planned: 0,
    finished: 0,
    failed: 0,
    agent_errors: 0,
    by_reason: {} as FailureCounts['by_reason'],
    resumed: 0,
  };
  for (const p of parts) {
    counts.planned += p.manifest.counts.planned;
    counts.finished += p.manifest.counts.finished;
    counts.resumed += p.manifest.counts.resumed ?? 0;
    const byReason = p.manifest.counts.by_reason;
    const known = byReason && typeof byReason === 'object' ? Object.entries(byReason as Record<string, unknown>) : [];
    let listed = 0;
    for (const [reason, n] of known) {
      if (!isFailureReason(reason) || typeof n !== 'number') continue;
      for (let k = 0; k < n; k++) tally.failure(reason, '');
      listed += n;
    }
    // Manifests written before failures had reasons: count the rest as simulator errors.
    for (let k = listed; k < p.manifest.counts.failed; k++) tally.failure('simulator_error', '');
  }
  Object.assign(counts, tally.counts());
  const {
    shard: _shard,
    shard_source: _source,
    stop_reason: _stop,
    error: _error,
    rate_per_s: _rate,
    ...rest
  } = first as RunManifest & Record<string, unknown>;
  // The reason of the worst part (the one whose status the merged manifest takes).
  const worst = parts.find((p) => (p.manifest.status ?? 'running') === status)?.manifest as
    Record<string, unknown> | undefined;
  const merged: RunManifest = {
    ...rest,
    created: new Date().toISOString(),
    command: `simlens merge ${out} ${parts.map((p) => p.file).join(' ')}`,
    counts,
    timings: {
      started,
      ...(finished ? { finished, wall_ms: Date.parse(finished) - Date.parse(started) } : {}),
      ...Object.fromEntries(
        (['agent_latency_ms', 'llm_call_ms'] as const)
          .map((k) => [k, combineStats(parts.map((p) => (p.manifest.timings as Record<string, unknown>)[k]))] as const)
          .filter(([, v]) => v !== undefined),
      ),
    },
    status: status as RunManifest['status'],
  };
  if (worst && worst['stop_reason'] !== undefined)
    (merged as Record<string, unknown>)['stop_reason'] = worst['stop_reason'];
  if (worst && worst['error'] !== undefined) (merged as Record<string, unknown>)['error'] = worst['error'];
  (merged as Record<string, unknown>)['output'] = out;
  (merged as Record<string, unknown>)['parts'] = parts.map((p) => ({
    file: p.file,
    shard: p.manifest.shard,
    counts: p.manifest.counts,
    timings: p.manifest.timings,
    status: p.manifest.status,
    ...Object.fromEntries(
      ['shard_source', 'stop_reason', 'error']
        .map((k) => [k, (p.manifest as Record<string, unknown>)[k]])
        .filter(([, v]) => v !== undefined),
    ),
  }));
  return merged;
}
