/**
 * Runs a simulation: N conversations of a simulated user against an agent, written as append-only
 * canonical JSONL with a manifest beside it.
 *
 * Reproducibility: conversation i's id and randomness derive from the seed and i only, and lines
 * are written in index order (out-of-order completions wait in a small buffer), so the same
 * configuration and seed give byte-identical output for any concurrency and any sharding.
 * `shard` runs the indices i = I (mod K); `resume` skips the indices already in the output (after
 * cutting away an unfinished last line). An AbortSignal stops scheduling: conversations in flight
 * finish and are written, the manifest says "cancelled", and a later `resume` continues.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { RunManifest } from '../model';
import { parseSimulationConfig, prepareEnvironment, type SimulationConfig, type SimulationConfigInput, type SimulationEnvironment } from './config';
import { simulateConversation } from './conversation';
import { SIMLENS_VERSION, readManifest, runIdFor, sameConfig, writeManifest } from './manifest';
import { OrderedWriter, encodeConversationLine, readExistingOutput } from './output';
import { stopsRun } from '../llm/run';
import type { LlmServices } from '../llm/services';

/** A shard: this process runs the conversation indices i with i % count === index. */
export interface Shard {
  index: number;
  count: number;
}

/** Parses "I/K" (0 <= I < K). */
export function parseShard(text: string): Shard {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (!m) throw new Error(`shard must look like I/K (e.g. 0/4), got "${text}"`);
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1) throw new Error(`shard count must be at least 1, got ${count}`);
  if (index >= count) throw new Error(`shard index must be below the count (0..${count - 1}), got ${index}`);
  return { index, count };
}

/** The conversation indices of a shard, ascending. */
export function shardIndices(n: number, shard?: Shard): number[] {
  const out: number[] = [];
  for (let i = shard ? shard.index : 0; i < n; i += shard ? shard.count : 1) out.push(i);
  return out;
}

export interface RunProgress {
  planned: number;
  /** Conversations in the output (resumed ones included). */
  finished: number;
  failed: number;
  resumed: number;
  elapsedMs: number;
  /** Conversations per second in this session. */
  rate: number;
}

export interface RunOptions {
  out: string;
  /** Resolves relative paths of the configuration (default process.cwd()). */
  cwd?: string;
  shard?: Shard;
  resume?: boolean;
  /** Replace an existing output instead of refusing. */
  overwrite?: boolean;
  /** Conversations in flight at once (default 1). Output does not depend on it. */
  concurrency?: number;
  signal?: AbortSignal;
  onProgress?: (p: RunProgress) => void;
  /** Minimum milliseconds between progress calls (default 200). */
  progressIntervalMs?: number;
  /** The command line, for the manifest. */
  command?: string;
  /** A prepared environment (tests and benchmarks reuse one across runs). */
  environment?: SimulationEnvironment;
  /** Prebuilt LLM services for LLM users/agents (the extension passes its SecretStorage key this way). */
  llm?: LlmServices;
}

export interface RunResult {
  manifest: RunManifest;
  out: string;
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((r) => setImmediate(r));
}

/** Runs (or resumes) a simulation and returns its final manifest. */
export async function runSimulation(input: SimulationConfigInput | SimulationConfig, options: RunOptions): Promise<RunResult> {
  const config = parseSimulationConfig(input);
  const cwd = options.cwd ?? process.cwd();
  const out = resolve(cwd, options.out);
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 1));
  const planned = shardIndices(config.n, options.shard);
  const configRecord = config as unknown as Record<string, unknown>;

  let resumed = 0;
  let failed = 0;
  let done = new Set<number>();
  if (existsSync(out) && statSync(out).size > 0) {
    if (options.resume) {
      const previous = readManifest(out);
      if (previous && !sameConfig(previous.config, configRecord)) {
        throw new Error(`${out}: was written with another configuration (see ${out}.manifest.json); resume needs the same options`);
      }
      if (previous?.shard && (!options.shard || previous.shard.index !== options.shard.index || previous.shard.count !== options.shard.count)) {
        throw new Error(`${out}: is shard ${previous.shard.index}/${previous.shard.count}; resume it with the same --shard`);
      }
      const existing = await readExistingOutput(out);
      const wanted = new Set(planned);
      for (const i of existing.indices) {
        if (!wanted.has(i)) throw new Error(`${out}: holds conversation index ${i}, which this run (n=${config.n}${options.shard ? `, shard ${options.shard.index}/${options.shard.count}` : ''}) does not plan`);
      }
      done = existing.indices;
      resumed = existing.lines;
      failed = existing.failed;
    } else if (!options.overwrite) {
      throw new Error(`${out} already exists; use --resume to continue it or --force to replace it`);
    }
  }
  if (options.overwrite && !options.resume && existsSync(out)) {
    const { truncateSync } = await import('node:fs');
    truncateSync(out, 0);
  }

  const env = options.environment ?? (await prepareEnvironment(config, cwd, { llm: options.llm, signal: options.signal }));
  mkdirSync(dirname(out), { recursive: true });
  const startedAt = new Date();
  const t0 = performance.now();
  const manifest: RunManifest = {
    run_id: runIdFor(configRecord),
    created: startedAt.toISOString(),
    simlens_version: SIMLENS_VERSION,
    node_version: process.version,
    command: options.command,
    config: configRecord,
    seed: config.seed,
    counts: { planned: planned.length, finished: done.size, failed, resumed },
    timings: { started: startedAt.toISOString() },
    status: 'running',
  };
  if (options.shard) manifest.shard = { ...options.shard };
  Object.assign(manifest as Record<string, unknown>, {
    user: env.user.name,
    agent: env.agent.name,
    max_turns: env.maxTurns,
    transitions_source: env.transitions.source,
    ...(env.llm ? env.llm.manifestInfo() : {}),
    inputs: env.inputs,
    output: out,
  });
  writeManifest(out, manifest);

  const todo = planned.filter((i) => !done.has(i));
  const writer = new OrderedWriter(out, todo);
  let next = 0;
  let sessionFinished = 0;
  let lastProgress = 0;
  let lastManifest = performance.now();
  let lastYield = performance.now();
  const interval = options.progressIntervalMs ?? 200;
  const report = (force: boolean) => {
    const now = performance.now();
    if (!force && now - lastProgress < interval) return;
    lastProgress = now;
    const elapsedMs = now - t0;
    options.onProgress?.({
      planned: planned.length,
      finished: done.size + sessionFinished,
      failed,
      resumed,
      elapsedMs,
      rate: elapsedMs > 0 ? (sessionFinished * 1000) / elapsedMs : 0,
    });
    if (now - lastManifest > 5000) {
      lastManifest = now;
      manifest.counts = { planned: planned.length, finished: done.size + writer.written, failed, resumed };
      writeManifest(out, manifest);
    }
  };

  let crashed: unknown;
  const worker = async () => {
    while (next < todo.length && !options.signal?.aborted && crashed === undefined) {
      const index = todo[next++];
      const { conversation, failed: bad } = await simulateConversation(env, index);
      if (bad) failed++;
      writer.put(index, encodeConversationLine(conversation));
      sessionFinished++;
      report(false);
      // Local agents never wait on I/O: yield now and then so cancellation and progress get through.
      if (performance.now() - lastYield > 25) {
        lastYield = performance.now();
        await yieldToEventLoop();
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, todo.length)) }, () => worker().catch((e) => (crashed = e))));
  } finally {
    writer.close();
  }
  const endedAt = new Date();
  manifest.counts = { planned: planned.length, finished: done.size + writer.written, failed, resumed };
  manifest.timings = { started: startedAt.toISOString(), finished: endedAt.toISOString(), wall_ms: Math.round(performance.now() - t0) };
  if (env.llm) Object.assign(manifest, env.llm.manifestInfo());
  // An LLM endpoint that died or a spent budget stops the run like a cancellation: resume continues it.
  manifest.status = crashed !== undefined ? (stopsRun(crashed) ? 'cancelled' : 'crashed') : manifest.counts.finished < planned.length ? 'cancelled' : 'finished';
  if (crashed !== undefined) (manifest as Record<string, unknown>)['error'] = crashed instanceof Error ? crashed.message : String(crashed);
  (manifest as Record<string, unknown>)['rate_per_s'] = manifest.timings.wall_ms ? Math.round((sessionFinished * 1000 * 10) / manifest.timings.wall_ms) / 10 : 0;
  writeManifest(out, manifest);
  report(true);
  if (crashed !== undefined) throw crashed;
  return { manifest, out };
}
