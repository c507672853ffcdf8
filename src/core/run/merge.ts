/**
 * Joins the outputs of a sharded run (`simlens simulate --shard I/K`) into one file in
 * conversation-index order, byte for byte what an unsharded run writes, and merges their manifests.
 */
import { closeSync, existsSync, openSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import type { RunManifest } from '../model';
import { manifestPath, mergeManifests, readManifest, writeManifest } from './manifest';
import { lineFailure, lineIndexOf, readLines, truncatePartialLastLine } from './output';
import { FailureTally, type FailureCounts, type FailureReason } from './failures';

export interface MergeResult {
  out: string;
  lines: number;
  /** Failed conversations in the merged file, per reason. */
  failures: FailureCounts;
  /** Indices 0..max that no part had (a missing or unfinished shard). */
  missing: number[];
  manifest?: RunManifest;
}

interface PartReader {
  file: string;
  iter: AsyncGenerator<{ text: string; line: number }>;
  current?: { text: string; line: number; index: number; failure?: FailureReason };
  lastIndex: number;
}

async function advance(part: PartReader): Promise<void> {
  for (;;) {
    const r = await part.iter.next();
    if (r.done) {
      part.current = undefined;
      return;
    }
    const { text, line } = r.value;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new Error(`${part.file}:${line}: not valid JSON (${(err as Error).message})`);
    }
    const index = lineIndexOf(value);
    if (index === undefined) throw new Error(`${part.file}:${line}: field metadata.index is missing; not a SimLens run output`);
    if (index <= part.lastIndex) throw new Error(`${part.file}:${line}: conversation index ${index} is out of order (after ${part.lastIndex})`);
    part.lastIndex = index;
    part.current = { text, line, index, failure: lineFailure(value) };
    return;
  }
}

/**
 * Merges part files into `out` (streaming, k-way by index). A conversation present in two parts
 * must be identical there (then it is written once). Manifests beside the parts are merged when
 * every part has one. `out` must not exist unless `overwrite`.
 */
export async function mergeRunFiles(outPath: string, partPaths: readonly string[], options: { cwd?: string; overwrite?: boolean } = {}): Promise<MergeResult> {
  const cwd = options.cwd ?? process.cwd();
  const out = resolve(cwd, outPath);
  if (partPaths.length === 0) throw new Error('merge needs at least one part file');
  const files = partPaths.map((p) => resolve(cwd, p));
  for (const f of files) {
    if (!existsSync(f)) throw new Error(`${f}: no such file`);
    if (f === out) throw new Error(`${f}: the output cannot also be a part`);
  }
  if (existsSync(out) && !options.overwrite) throw new Error(`${out} already exists; use --force to replace it`);
  const manifests = files.map((file) => ({ file, manifest: readManifest(file) }));
  // Validate the parts belong together before writing anything.
  const withManifest = manifests.filter((m): m is { file: string; manifest: RunManifest } => m.manifest !== undefined);
  const merged = withManifest.length === files.length ? mergeManifests(withManifest, out) : undefined;
  for (const f of files) truncatePartialLastLine(f);

  const parts: PartReader[] = files.map((file) => ({ file, iter: readLines(file), lastIndex: -1 }));
  for (const p of parts) await advance(p);
  const fd = openSync(out, 'w');
  let lines = 0;
  let expected = 0;
  const failures = new FailureTally();
  const missing: number[] = [];
  try {
    for (;;) {
      let best: PartReader | undefined;
      for (const p of parts) if (p.current && (!best || p.current.index < best.current!.index)) best = p;
      if (!best) break;
      const { index, text } = best.current!;
      for (const p of parts) {
        if (p !== best && p.current && p.current.index === index) {
          if (p.current.text !== text) throw new Error(`conversation index ${index} differs between ${best.file}:${best.current!.line} and ${p.file}:${p.current.line}`);
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
    closeSync(fd);
    for (const p of parts) await p.iter.return(undefined);
  }
  if (merged) {
    const n = typeof merged.config.n === 'number' ? merged.config.n : expected;
    while (expected < n) missing.push(expected++);
    // Counted from the lines written (a conversation in two parts counts once).
    merged.counts = { ...merged.counts, finished: lines, ...failures.counts() };
    if (missing.length) {
      (merged as Record<string, unknown>)['missing'] = missing.length > 50 ? { count: missing.length, first: missing.slice(0, 50) } : missing;
      if (merged.status === 'finished') merged.status = 'cancelled';
    }
    writeManifest(out, merged);
  }
  return { out, lines, failures: failures.counts(), missing, manifest: merged };
}

export { manifestPath };
