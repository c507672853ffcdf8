/**
 * Joins the parts of a sharded run into one file, byte for byte what one unsharded process writes,
 * and merges their manifests.
 *
 * Two kinds of parts:
 * - simulation parts (`simlens simulate --shard`): every line carries its conversation index
 *   (`metadata.index`); the parts are merged k-way by index;
 * - annotation parts (`simlens judge|discriminate --shard`): the part of shard I/K holds input
 *   positions I, I+K, I+2K, ... in order (the lines carry no index of their own), and its manifest
 *   says how many conversations the input has; the parts are interleaved position by position;
 * - feature parts (`simlens metrics features --out --shard`) are merged like annotation parts;
 *   their lines also carry their `position`, which must be the one they are merged at.
 *
 * Completeness is checked per task when the parts carry shards: tasks with no part and tasks that
 * did not finish are listed. Parts of different configurations, of different shard counts, or two
 * files claiming the same shard are refused before anything is written.
 */
import { closeSync, existsSync, openSync, statSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import type { RunManifest } from '../model';
import { manifestPath, mergeManifests, readManifest, writeManifest } from './manifest';
import { lineFailure, lineIndexOf, readLines, truncatePartialLastLine } from './output';
import { FailureTally, type FailureCounts, type FailureReason } from '../failures';
import { findPartFiles, partFilesInFolder } from './shardEnv';
import { shardIndices } from './orchestrator';

/** A task (shard) of a sharded run that did not finish, as `simlens merge` reports it. */
interface UnfinishedTask {
  index: number;
  file: string;
  status: string;
  reason?: string;
}

interface MergeResult {
  out: string;
  /** The part files merged (directories and the default expanded). */
  parts: string[];
  lines: number;
  /** Failed conversations in the merged file, per reason. */
  failures: FailureCounts;
  /** Conversation indices (or input positions) that no part had (a missing or unfinished shard). */
  missing: number[];
  /** The shard count K when every part is a shard of one K. */
  taskCount?: number;
  /** Shard indices 0..K-1 that no part file is for. */
  missingTasks: number[];
  /** Shards whose manifest does not say `finished`. */
  unfinishedTasks: UnfinishedTask[];
  manifest?: RunManifest;
}

interface PartReader {
  file: string;
  iter: AsyncGenerator<{ text: string; line: number }>;
  current?: { text: string; line: number; index: number; failure?: FailureReason };
  lastIndex: number;
}

async function nextLine(part: PartReader): Promise<{ text: string; line: number; value: unknown } | undefined> {
  for (;;) {
    const r = await part.iter.next();
    if (r.done) return undefined;
    const { text, line } = r.value;
    if (text.trim() === '') continue;
    try {
      return { text, line, value: JSON.parse(text) };
    } catch (err) {
      throw new Error(`${part.file}:${line}: not valid JSON (${(err as Error).message})`);
    }
  }
}

async function advance(part: PartReader): Promise<void> {
  const next = await nextLine(part);
  if (!next) {
    part.current = undefined;
    return;
  }
  const { text, line, value } = next;
  const index = lineIndexOf(value);
  if (index === undefined)
    throw new Error(`${part.file}:${line}: field metadata.index is missing; not a SimLens run output`);
  if (index <= part.lastIndex)
    throw new Error(`${part.file}:${line}: conversation index ${index} is out of order (after ${part.lastIndex})`);
  part.lastIndex = index;
  part.current = { text, line, index, failure: lineFailure(value) };
}

/** The command whose parts these are: "simulate", or the command a manifest names in `task` (judge, discriminate, features). */
export function partTask(manifest: RunManifest | undefined): string {
  const task = (manifest as Record<string, unknown> | undefined)?.['task'];
  return typeof task === 'string' ? task : 'simulate';
}

/**
 * The part files to merge: each PART as given, a folder standing for the part files in it, and
 * no PART at all for the part files beside OUT (`<stem>.part-*-of-*.jsonl`).
 */
function expandPartPaths(out: string, partPaths: readonly string[], cwd: string): string[] {
  if (partPaths.length === 0) {
    const found = findPartFiles(resolve(cwd, out));
    if (found.length === 0)
      throw new Error(
        `no part files given and none found beside ${resolve(cwd, out)} (looked for its .part-*-of-*.jsonl files)`,
      );
    return found;
  }
  const files: string[] = [];
  for (const p of partPaths) {
    const abs = resolve(cwd, p);
    if (existsSync(abs) && statSync(abs).isDirectory()) {
      const inside = partFilesInFolder(abs);
      if (inside.length === 0) throw new Error(`${abs}: folder holds no part files (*.part-*-of-*.jsonl)`);
      files.push(...inside);
    } else files.push(abs);
  }
  return files;
}

/** Checks that the shards of the parts fit together; returns K when every part is a shard of one K. */
function checkShards(manifests: readonly { file: string; manifest: RunManifest | undefined }[]): number | undefined {
  const sharded = manifests.filter((m) => m.manifest?.shard);
  if (sharded.length === 0) return undefined;
  const first = sharded[0];
  const byIndex = new Map<number, string>();
  for (const m of sharded) {
    const s = m.manifest!.shard!;
    if (s.count !== first.manifest!.shard!.count) {
      throw new Error(
        `${manifestPath(m.file)}: shard ${s.index}/${s.count} is of another shard count than ` +
          `${manifestPath(first.file)} (${first.manifest!.shard!.index}/${first.manifest!.shard!.count}); these are parts ` +
          `of different submissions`,
      );
    }
    const seen = byIndex.get(s.index);
    if (seen !== undefined)
      throw new Error(`${m.file} and ${seen} are both shard ${s.index}/${s.count}; keep one of them`);
    byIndex.set(s.index, m.file);
  }
  return sharded.length === manifests.length ? first.manifest!.shard!.count : undefined;
}

/**
 * Merges part files into `out` (streaming). For simulation parts a conversation present in two
 * parts must be identical there (then it is written once). Manifests beside the parts are merged
 * when every part has one. `out` must not exist unless `overwrite`. `partPaths` may name folders
 * of parts, or be empty for the parts beside `out`.
 */
export async function mergeRunFiles(
  outPath: string,
  partPaths: readonly string[],
  options: { cwd?: string; overwrite?: boolean } = {},
): Promise<MergeResult> {
  const cwd = options.cwd ?? process.cwd();
  const out = resolve(cwd, outPath);
  const files = expandPartPaths(out, partPaths, cwd);
  for (const f of files) {
    if (!existsSync(f)) throw new Error(`${f}: no such file`);
    if (f === out) throw new Error(`${f}: the output cannot also be a part`);
  }
  if (new Set(files).size !== files.length) throw new Error('a part file is given twice');
  if (existsSync(out) && !options.overwrite) throw new Error(`${out} already exists; use --force to replace it`);
  const manifests = files.map((file) => ({ file, manifest: readManifest(file) }));
  // Validate the parts belong together before writing anything.
  const tasks = new Set(manifests.filter((m) => m.manifest).map((m) => partTask(m.manifest)));
  if (tasks.size > 1)
    throw new Error(
      `the parts come from different commands (${[...tasks].join(', ')}); merge the parts of one run at a time`,
    );
  const task = tasks.size ? [...tasks][0] : 'simulate';
  const withManifest = manifests.filter((m): m is { file: string; manifest: RunManifest } => m.manifest !== undefined);
  const merged = withManifest.length === files.length ? mergeManifests(withManifest, out) : undefined;
  const taskCount = checkShards(manifests);
  if (task !== 'simulate' && taskCount === undefined) {
    throw new Error(
      `${task} parts can only be merged when every part has its manifest with its shard (the lines carry no position of their own)`,
    );
  }
  const { missingTasks, unfinishedTasks } = taskAccount(withManifest, taskCount);
  for (const f of files) truncatePartialLastLine(f);

  const result =
    task === 'simulate'
      ? await mergeByIndex(out, files)
      : await mergeByPosition(out, withManifest, taskCount!, task === 'features');
  if (merged) {
    result.missing = completeMergedManifest(merged, result, task, taskCount, missingTasks, unfinishedTasks);
    writeManifest(out, merged);
  }
  return {
    out,
    parts: files,
    lines: result.lines,
    failures: result.failures.counts(),
    missing: result.missing,
    taskCount,
    missingTasks,
    unfinishedTasks,
    manifest: merged,
  };
}

/** The tasks of a sharded run that have no part, and those whose part did not finish (with why), in task order. */
function taskAccount(
  withManifest: ReadonlyArray<{ file: string; manifest: RunManifest }>,
  taskCount: number | undefined,
): { missingTasks: number[]; unfinishedTasks: UnfinishedTask[] } {
  const missingTasks: number[] = [];
  const unfinishedTasks: UnfinishedTask[] = [];
  if (taskCount === undefined) return { missingTasks, unfinishedTasks };
  const have = new Set(withManifest.map((m) => m.manifest.shard!.index));
  for (let i = 0; i < taskCount; i++) if (!have.has(i)) missingTasks.push(i);
  for (const m of withManifest) {
    const status = m.manifest.status ?? 'running';
    if (status === 'finished') continue;
    const extra = m.manifest as Record<string, unknown>;
    const reason =
      typeof extra['stop_reason'] === 'string'
        ? extra['stop_reason']
        : typeof extra['error'] === 'string'
          ? extra['error']
          : undefined;
    unfinishedTasks.push({ index: m.manifest.shard!.index, file: m.file, status, ...(reason ? { reason } : {}) });
  }
  unfinishedTasks.sort((a, b) => a.index - b.index);
  return { missingTasks, unfinishedTasks };
}

/**
 * Completes the merged manifest from what was written: counts from the lines (a conversation in two
 * parts counts once), the conversations and tasks missing (either makes a "finished" run
 * "cancelled"), the parts in task order. Returns the missing conversation indices (for a simulation,
 * also those past the last one written up to the planned n).
 */
function completeMergedManifest(
  merged: RunManifest,
  result: LinesMerged,
  task: string,
  taskCount: number | undefined,
  missingTasks: number[],
  unfinishedTasks: UnfinishedTask[],
): number[] {
  const extra = merged as Record<string, unknown>;
  let missing = result.missing;
  if (task === 'simulate') {
    const n = typeof merged.config.n === 'number' ? merged.config.n : result.expected;
    missing = [...missing];
    for (let i = result.expected; i < n; i++) missing.push(i);
    merged.counts = { ...merged.counts, finished: result.lines, ...result.failures.counts() };
  }
  if (missing.length) {
    extra['missing'] = missing.length > 50 ? { count: missing.length, first: missing.slice(0, 50) } : missing;
    if (merged.status === 'finished') merged.status = 'cancelled';
  }
  if (taskCount !== undefined) {
    extra['tasks'] = {
      count: taskCount,
      finished: taskCount - missingTasks.length - unfinishedTasks.length,
      missing: missingTasks,
      unfinished: unfinishedTasks.map((t) => ({
        index: t.index,
        status: t.status,
        ...(t.reason ? { reason: t.reason } : {}),
      })),
    };
    if (missingTasks.length && merged.status === 'finished') merged.status = 'cancelled';
    const parts = extra['parts'];
    if (Array.isArray(parts))
      parts.sort(
        (a, b) =>
          ((a as { shard?: { index: number } }).shard?.index ?? 0) -
          ((b as { shard?: { index: number } }).shard?.index ?? 0),
      );
  }
  return missing;
}

interface LinesMerged {
  lines: number;
  failures: FailureTally;
  missing: number[];
  /** One past the highest index written. */
  expected: number;
}

/** k-way merge of simulation parts by `metadata.index`. */
async function mergeByIndex(out: string, files: readonly string[]): Promise<LinesMerged> {
  const parts: PartReader[] = files.map((file) => ({ file, iter: readLines(file), lastIndex: -1 }));
  let fd: number | undefined;
  let lines = 0;
  let expected = 0;
  const failures = new FailureTally();
  const missing: number[] = [];
  try {
    for (const p of parts) await advance(p);
    fd = openSync(out, 'w');
    for (;;) {
      let best: PartReader | undefined;
      for (const p of parts) if (p.current && (!best || p.current.index < best.current!.index)) best = p;
      if (!best) break;
      const { index, text } = best.current!;
      for (const p of parts) {
        if (p !== best && p.current && p.current.index === index) {
          if (p.current.text !== text)
            throw new Error(
              `conversation index ${index} differs between ${best.file}:${best.current!.line} and ${p.file}:${p.current.line}`,
            );
          await advance(p);
        }
      }
      while (expected < index) missing.push(expected++);
      expected = index + 1;
      writeSync(fd, text + '\n');
      lines++;
      if (best.current!.failure) failures.failure(best.current!.failure, '');
      await advance(best);
    }
  } finally {
    if (fd !== undefined) closeSync(fd);
    for (const p of parts) await p.iter.return(undefined);
  }
  return { lines, failures, missing, expected };
}

/** The number of input conversations an annotation part's manifest records (config.items). */
function itemsOf(m: { file: string; manifest: RunManifest }): number {
  const items = m.manifest.config['items'];
  if (typeof items !== 'number' || !Number.isInteger(items) || items < 0)
    throw new Error(`${manifestPath(m.file)}: field config.items is missing; not the manifest of an annotation part`);
  return items;
}

/**
 * Interleaves annotation parts: position p comes from the part of shard p mod K, which holds the
 * positions of its shard in order. Positions of a missing part are listed as missing; a part with
 * more or fewer lines than its shard has positions is refused (it is damaged or of another input).
 */
async function mergeByPosition(
  out: string,
  parts: readonly { file: string; manifest: RunManifest }[],
  count: number,
  positioned = false,
): Promise<LinesMerged> {
  const items = itemsOf(parts[0]);
  const readers = new Map<number, PartReader>();
  for (const p of parts) readers.set(p.manifest.shard!.index, { file: p.file, iter: readLines(p.file), lastIndex: -1 });
  let fd: number | undefined;
  let lines = 0;
  const missing: number[] = [];
  try {
    for (const [index, reader] of readers) {
      // Count first, so a short or long part is refused before its positions are interleaved.
      let n = 0;
      for await (const { text } of readLines(reader.file)) if (text.trim() !== '') n++;
      const want = shardIndices(items, { index, count }).length;
      if (n !== want)
        throw new Error(
          `${reader.file}: has ${n} conversations, but shard ${index}/${count} of ${items} has ${want}; the part is unfinished or damaged (rerun its task)`,
        );
    }
    fd = openSync(out, 'w');
    for (let p = 0; p < items; p++) {
      const reader = readers.get(p % count);
      if (!reader) {
        missing.push(p);
        continue;
      }
      const next = await nextLine(reader);
      if (!next) throw new Error(`${reader.file}: ended before input position ${p}`);
      const at = (next.value as { position?: unknown } | null)?.position;
      if (positioned && at !== p)
        throw new Error(
          `${reader.file}:${next.line}: position: expected ${p} (shard ${p % count}/${count} holds positions ` +
            `${p % count}, ${(p % count) + count}, ...), got ${JSON.stringify(at ?? null)}`,
        );
      writeSync(fd, next.text + '\n');
      lines++;
    }
  } finally {
    if (fd !== undefined) closeSync(fd);
    for (const r of readers.values()) await r.iter.return(undefined);
  }
  return { lines, failures: new FailureTally(), missing, expected: items };
}

export { manifestPath };
