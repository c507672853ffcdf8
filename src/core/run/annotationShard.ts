/**
 * Shards of an annotation pass (`simlens judge|discriminate --shard I/K`): the part of shard I/K
 * holds the input conversations at positions I, I+K, I+2K, ... in order, each as the unsharded
 * pass writes it (annotated, or unchanged when it failed or lies past --limit). Its manifest
 * records the command (`task`), the input (name, size, SHA-256), how many conversations the input
 * has (`config.items`, which merging needs to interleave the parts), the annotator and the shard.
 * A rerun of the task resumes its part: conversations already annotated there are skipped.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import type { Conversation, RunManifest } from '../model';
import type { FailureCounts } from '../failures';
import { SIMLENS_VERSION, readManifest, runIdFor, sameConfig } from './manifest';
import type { Shard } from './orchestrator';
import { readLines } from './output';

/** The input of a pass as its manifest records it: base name, size and SHA-256 of the file. */
export interface InputRecord {
  name: string;
  bytes: number;
  sha256: string;
}

/** The name, size and SHA-256 of a file, for a pass's manifest (and to check a file against one). */
export function inputRecord(file: string): InputRecord {
  const bytes = readFileSync(file);
  return { name: basename(file), bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** The configuration of an annotation pass: what makes two shards parts of one pass. */
export function annotationPassConfig(o: {
  command: string;
  inputFile: string;
  items: number;
  annotator: string;
  limit?: number;
  force?: boolean;
}): Record<string, unknown> {
  return {
    command: o.command,
    input: inputRecord(o.inputFile),
    items: o.items,
    annotator: o.annotator,
    limit: o.limit ?? null,
    force: !!o.force,
  };
}

/**
 * The conversations of an existing part, to resume it; undefined when there is none (or it is
 * empty). Throws, naming the file, when the part belongs to another pass or shard, or does not
 * hold exactly the shard's `expected` conversations.
 */
export async function loadAnnotationPart(
  file: string,
  config: Record<string, unknown>,
  shard: Shard,
  expected: number,
): Promise<Conversation[] | undefined> {
  if (!existsSync(file) || statSync(file).size === 0) return undefined;
  const manifest = readManifest(file);
  if (!manifest)
    throw new Error(`${file} exists without its manifest; it is not a part of this pass (use --force to replace it)`);
  if (!sameConfig(manifest.config, config))
    throw new Error(
      `${file}: was written by another pass (other input, model, --limit or --force; see ${file}.manifest.json); use --force to replace it`,
    );
  if (!manifest.shard || manifest.shard.index !== shard.index || manifest.shard.count !== shard.count) {
    throw new Error(
      `${file}: is ${manifest.shard ? `shard ${manifest.shard.index}/${manifest.shard.count}` : 'not a shard'}, not ` +
        `${shard.index}/${shard.count}; use --force to replace it`,
    );
  }
  const rows: Conversation[] = [];
  for await (const { text, line } of readLines(file)) {
    if (text.trim() === '') continue;
    try {
      rows.push(JSON.parse(text) as Conversation);
    } catch (err) {
      throw new Error(`${file}:${line}: not valid JSON (${(err as Error).message}); use --force to replace the part`);
    }
  }
  if (rows.length !== expected)
    throw new Error(
      `${file}: has ${rows.length} conversations, shard ${shard.index}/${shard.count} has ${expected}; use --force to replace it`,
    );
  return rows;
}

/** What an annotation part's manifest says about the pass so far. */
export interface AnnotationPartState {
  command: string;
  commandLine: string;
  config: Record<string, unknown>;
  /** Absent for an unsharded pass that writes a manifest (`simlens metrics features --out`). */
  shard?: Shard;
  shardSource?: { engine: string; variables: Record<string, string> };
  output: string;
  started: Date;
  /** Conversations of the shard to annotate (positions below --limit). */
  planned: number;
  annotated: number;
  skipped: number;
  failures: FailureCounts;
  /** Conversations that already carried the annotation when the part was resumed. */
  resumed: number;
  status: NonNullable<RunManifest['status']>;
  stopReason?: string;
  finished?: Date;
  /** LLM call latency statistics of this session. */
  llmCallMs?: unknown;
  /** More top-level manifest fields (e.g. `input_problems` of a feature pass). */
  extra?: Record<string, unknown>;
}

/** The manifest of an annotation part (or of a feature pass, sharded or not: `simlens metrics features --out`). */
export function annotationPartManifest(s: AnnotationPartState): RunManifest {
  const manifest: RunManifest & Record<string, unknown> = {
    run_id: runIdFor(s.config),
    created: s.started.toISOString(),
    simlens_version: SIMLENS_VERSION,
    node_version: process.version,
    command: s.commandLine,
    task: s.command,
    config: s.config,
    seed: 'none',
    ...(s.shard ? { shard: { ...s.shard } } : {}),
    counts: {
      planned: s.planned,
      finished: s.annotated + s.skipped + s.failures.failed,
      annotated: s.annotated,
      skipped: s.skipped,
      ...s.failures,
      resumed: s.resumed,
    },
    timings: {
      started: s.started.toISOString(),
      ...(s.finished
        ? { finished: s.finished.toISOString(), wall_ms: s.finished.getTime() - s.started.getTime() }
        : {}),
      ...(s.llmCallMs ? { llm_call_ms: s.llmCallMs } : {}),
    },
    status: s.status,
    output: s.output,
  };
  if (s.shardSource) manifest['shard_source'] = s.shardSource;
  if (s.extra) Object.assign(manifest, s.extra);
  if (s.stopReason) manifest['stop_reason'] = s.stopReason;
  return manifest;
}
