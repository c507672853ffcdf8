/**
 * The progress of a sharded (cluster) run, read from its manifests only: per task its status,
 * counts, failures per reason and timings; tasks with no manifest yet are "missing", and a
 * "running" manifest that has not been refreshed for a while is flagged (a task the scheduler
 * killed, e.g. at its time limit, never writes its final manifest). Works on a merged output (its
 * manifest lists the parts), on a folder of parts, or on one part or the OUT path of a run whose
 * parts lie beside it. Used by "SimLens: Open Run…".
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { RunManifest } from '../model';
import { manifestPath, readManifest } from './manifest';
import { partTask } from './merge';
import { parsePartFileName } from './shardEnv';
import { FailureTally, isFailureReason, type FailureCounts } from '../failures';

type TaskStatus = 'finished' | 'running' | 'cancelled' | 'stopped' | 'crashed' | 'missing';

export interface TaskProgress {
  index: number;
  status: TaskStatus;
  /** The part file (may not exist yet: a judge task writes it at the end). */
  file?: string;
  planned: number;
  finished: number;
  failures: FailureCounts;
  wallMs?: number;
  /** stop_reason or error of a task that did not finish. */
  reason?: string;
  /** Milliseconds since the manifest was last written (running tasks). */
  sinceUpdateMs?: number;
  /** A running task whose manifest has not been refreshed for `staleAfterMs`. */
  stale?: boolean;
}

export interface ClusterRunProgress {
  /** The command of the run (simulate, judge, discriminate). */
  task: string;
  /** The merged output, when it exists. */
  merged?: string;
  /** The OUT the parts merge into. */
  out: string;
  taskCount: number;
  tasks: TaskProgress[];
  totals: {
    planned: number;
    finished: number;
    failures: FailureCounts;
    tasksFinished: number;
    tasksRunning: number;
    tasksFailed: number;
    tasksMissing: number;
  };
  /** Every task finished. */
  complete: boolean;
}

/** A running manifest is refreshed every few seconds (simulate: about 1 s while conversations finish and at least once a minute; judge: 2 s); after this long without a write the task is probably dead. */
const STALE_AFTER_MS = 10 * 60 * 1000;

const PART_MANIFEST = /^(.*)\.part-(\d+)-of-(\d+)\.jsonl\.manifest\.json$/;

/** The runs whose parts (or part manifests) are in a folder: their OUT paths (`<stem>.jsonl`), sorted. */
export function runsInFolder(dir: string): string[] {
  const stems = new Set<string>();
  for (const name of readdirSync(dir)) {
    const m = PART_MANIFEST.exec(name) ?? /^(.*)\.part-(\d+)-of-(\d+)\.jsonl$/.exec(name);
    if (m) stems.add(m[1]);
  }
  return [...stems].sort().map((stem) => join(dir, `${stem}.jsonl`));
}

function counts(m: RunManifest): { planned: number; finished: number; failures: FailureCounts } {
  const c = m.counts as RunManifest['counts'] & { agent_errors?: number; by_reason?: Record<string, number> };
  return {
    planned: c.planned,
    finished: c.finished,
    failures: {
      failed: c.failed,
      agent_errors: c.agent_errors ?? 0,
      by_reason: (c.by_reason ?? {}) as FailureCounts['by_reason'],
    },
  };
}

function reasonOf(m: Record<string, unknown>): string | undefined {
  const r = m['stop_reason'] ?? m['error'];
  return typeof r === 'string' ? r : undefined;
}

function sum(tasks: readonly TaskProgress[]): ClusterRunProgress['totals'] {
  const failures: FailureCounts = { failed: 0, agent_errors: 0, by_reason: {} };
  const totals = {
    planned: 0,
    finished: 0,
    failures,
    tasksFinished: 0,
    tasksRunning: 0,
    tasksFailed: 0,
    tasksMissing: 0,
  };
  for (const t of tasks) {
    totals.planned += t.planned;
    totals.finished += t.finished;
    failures.failed += t.failures.failed;
    failures.agent_errors += t.failures.agent_errors;
    for (const [reason, n] of Object.entries(t.failures.by_reason)) {
      if (isFailureReason(reason) && typeof n === 'number')
        failures.by_reason[reason] = (failures.by_reason[reason] ?? 0) + n;
    }
    if (t.status === 'finished') totals.tasksFinished++;
    else if (t.status === 'running' && !t.stale) totals.tasksRunning++;
    else if (t.status === 'missing') totals.tasksMissing++;
    else totals.tasksFailed++;
  }
  return totals;
}

/** Progress from the parts beside `out` (`<stem>.part-I-of-K.jsonl` and their manifests). */
function fromParts(out: string, now: number, staleAfterMs: number): ClusterRunProgress {
  const dir = dirname(out);
  const stem = basename(out).replace(/\.jsonl$/, '');
  const found = new Map<number, { file: string; count: number }>();
  let count = 0;
  for (const name of existsSync(dir) ? readdirSync(dir) : []) {
    const m = PART_MANIFEST.exec(name);
    if (!m || m[1] !== stem) continue;
    const shard = parsePartFileName(name.replace(/\.manifest\.json$/, ''));
    if (!shard) continue;
    if (count && shard.count !== count)
      throw new Error(
        `${join(dir, name)}: shard count ${shard.count} differs from ${count} of the other parts of ${out}`,
      );
    count = shard.count;
    found.set(shard.index, { file: join(dir, name.replace(/\.manifest\.json$/, '')), count: shard.count });
  }
  if (!count) throw new Error(`${out}: no part manifests (${stem}.part-*-of-*.jsonl.manifest.json) found in ${dir}`);
  let task = 'simulate';
  const tasks: TaskProgress[] = [];
  for (let index = 0; index < count; index++) {
    const part = found.get(index);
    const manifest = part ? readManifest(part.file) : undefined;
    if (!part || !manifest) {
      tasks.push({
        index,
        status: 'missing',
        planned: 0,
        finished: 0,
        failures: { failed: 0, agent_errors: 0, by_reason: {} },
      });
      continue;
    }
    task = partTask(manifest);
    const status = (manifest.status ?? 'running') as TaskStatus;
    const progress: TaskProgress = {
      index,
      status,
      file: part.file,
      ...counts(manifest),
      wallMs: manifest.timings.wall_ms,
    };
    const reason = reasonOf(manifest as Record<string, unknown>);
    if (reason && status !== 'finished') progress.reason = reason;
    if (status === 'running') {
      progress.sinceUpdateMs = Math.max(0, now - statSync(manifestPath(part.file)).mtimeMs);
      progress.stale = progress.sinceUpdateMs > staleAfterMs;
    }
    tasks.push(progress);
  }
  const totals = sum(tasks);
  return {
    task,
    out,
    merged:
      existsSync(out) && Array.isArray((readManifest(out) as Record<string, unknown> | undefined)?.['parts'])
        ? out
        : undefined,
    taskCount: count,
    tasks,
    totals,
    complete: totals.tasksFinished === count,
  };
}

/** Progress from a merged output's manifest (its `parts` and `tasks`). */
function fromMerged(out: string, manifest: RunManifest): ClusterRunProgress {
  const extra = manifest as Record<string, unknown>;
  const parts = Array.isArray(extra['parts']) ? (extra['parts'] as Record<string, unknown>[]) : [];
  const tasksInfo = extra['tasks'] as { count?: number; missing?: number[] } | undefined;
  const taskCount = tasksInfo?.count ?? parts.length;
  const tasks: TaskProgress[] = [];
  parts.forEach((p, i) => {
    const shard = p['shard'] as { index: number } | undefined;
    const c = (p['counts'] ?? {}) as RunManifest['counts'] & {
      agent_errors?: number;
      by_reason?: Record<string, number>;
    };
    const status = (typeof p['status'] === 'string' ? p['status'] : 'running') as TaskStatus;
    const t: TaskProgress = {
      index: shard?.index ?? i,
      status,
      file: typeof p['file'] === 'string' ? p['file'] : undefined,
      planned: c.planned ?? 0,
      finished: c.finished ?? 0,
      failures: {
        failed: c.failed ?? 0,
        agent_errors: c.agent_errors ?? 0,
        by_reason: (c.by_reason ?? {}) as FailureCounts['by_reason'],
      },
      wallMs: (p['timings'] as { wall_ms?: number } | undefined)?.wall_ms,
    };
    const reason = reasonOf(p);
    if (reason && status !== 'finished') t.reason = reason;
    tasks.push(t);
  });
  for (const index of tasksInfo?.missing ?? [])
    tasks.push({
      index,
      status: 'missing',
      planned: 0,
      finished: 0,
      failures: { failed: 0, agent_errors: 0, by_reason: {} },
    });
  tasks.sort((a, b) => a.index - b.index);
  const totals = sum(tasks);
  return {
    task: partTask(manifest),
    out,
    merged: out,
    taskCount,
    tasks,
    totals,
    complete: totals.tasksFinished === taskCount && tasks.length === taskCount,
  };
}

/**
 * The progress of the cluster run at `target`: a merged output (its manifest lists the parts), a
 * part file, the OUT path of parts that lie beside it, or a folder holding the parts of exactly one
 * run (for a folder with several, pick one with `runsInFolder`). A merged output's parts are
 * read again when they are still there, so a rerun task shows its newest state.
 */
export function loadClusterRunProgress(
  target: string,
  options: { now?: number; staleAfterMs?: number } = {},
): ClusterRunProgress {
  const now = options.now ?? Date.now();
  const staleAfterMs = options.staleAfterMs ?? STALE_AFTER_MS;
  let path = resolve(target);
  if (existsSync(path) && statSync(path).isDirectory()) {
    const runs = runsInFolder(path);
    if (runs.length === 0) throw new Error(`${path}: holds no parts of a sharded run (*.part-*-of-*.jsonl)`);
    if (runs.length > 1)
      throw new Error(
        `${path}: holds the parts of ${runs.length} runs (${runs.map((r) => basename(r)).join(', ')}); open one of them`,
      );
    path = runs[0];
  }
  const shard = parsePartFileName(path);
  if (shard) path = path.replace(/\.part-\d+-of-\d+\.jsonl$/, '.jsonl');
  const manifest = existsSync(path) ? readManifest(path) : undefined;
  const hasParts =
    existsSync(dirname(path)) &&
    readdirSync(dirname(path)).some(
      (n) => n.startsWith(`${basename(path).replace(/\.jsonl$/, '')}.part-`) && PART_MANIFEST.test(n),
    );
  if (hasParts) return fromParts(path, now, staleAfterMs);
  if (manifest && Array.isArray((manifest as Record<string, unknown>)['parts'])) return fromMerged(path, manifest);
  if (manifest) throw new Error(`${path}: the manifest is of a run that was not sharded (no parts listed)`);
  throw new Error(`${path}: neither a merged run (with its manifest) nor parts beside it`);
}

/** One line per task for a list, e.g. "task 2 · running · 120/250 · 3 failed (agent_http 3)". */
export function describeTask(t: TaskProgress): { label: string; description: string; detail?: string } {
  if (t.status === 'missing')
    return {
      label: `task ${t.index}`,
      description: 'missing: no manifest yet (not started, or it failed before writing)',
    };
  const failures = new FailureTally(0, t.failures).describe();
  const state =
    t.status === 'running' && t.stale
      ? `running? no update for ${Math.round((t.sinceUpdateMs ?? 0) / 60000)} min`
      : t.status;
  const wall = t.wallMs !== undefined ? ` · ${(t.wallMs / 1000).toFixed(1)} s` : '';
  return {
    label: `task ${t.index}`,
    description: `${state} · ${t.finished}/${t.planned} · ${failures}${wall}`,
    detail: t.reason ?? t.file,
  };
}

/** One line for the whole run, e.g. "judge: 3/4 tasks finished, 1 running · 900/1000 · 2 failed (judge_llm 2)". */
export function describeRun(p: ClusterRunProgress): string {
  const t = p.totals;
  const parts = [`${t.tasksFinished}/${p.taskCount} tasks finished`];
  if (t.tasksRunning) parts.push(`${t.tasksRunning} running`);
  if (t.tasksFailed) parts.push(`${t.tasksFailed} failed or stopped`);
  if (t.tasksMissing) parts.push(`${t.tasksMissing} missing`);
  return `${p.task}: ${parts.join(', ')} · ${t.finished}/${t.planned} · ${new FailureTally(0, t.failures).describe()}`;
}
