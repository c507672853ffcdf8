/**
 * Runs a simulation: N conversations of a simulated user against an agent, written as append-only
 * canonical JSONL with a manifest beside it.
 *
 * Reproducibility: conversation i's id and randomness derive from the seed and i only, and lines
 * are written in index order (out-of-order completions wait in a small buffer), so the same
 * configuration and seed give byte-identical output for any concurrency and any sharding.
 * `shard` runs the indices i = I (mod K); `resume` skips the indices already in the output (after
 * cutting away an unfinished last line). Two signals: `signal` stops scheduling (conversations in
 * flight finish and are written, the manifest says "cancelled"); `abort` cancels the requests in
 * flight too and returns at once. A later `resume` continues either.
 *
 * Timings (agent latencies, LLM call latencies) never go into the conversation lines, only into the
 * manifest's `timings`; failures are counted per reason (FailureTally) into the manifest's `counts`,
 * and `maxConsecutiveFailures` failed conversations in a row stop the run (`stopped`).
 *
 * The manifest's counts follow the lines on disk: they are refreshed while the run goes on (at
 * most once a second, at least once a minute), so a killed run's manifest lags its file by about a
 * second. The file is the truth; `resume` recounts everything from it.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Conversation, RunManifest } from '../model';
import {
  parseSimulationConfig,
  prepareEnvironment,
  type SimulatorProcessOptions,
  type SimulationConfig,
  type SimulationConfigInput,
  type SimulationEnvironment,
} from './config';
import { simulateConversation } from './conversation';
import { SIMLENS_VERSION, readManifest, runIdFor, sameConfig, writeManifest } from './manifest';
import { OrderedWriter, dropFailedLines, encodeConversationLine, readExistingOutput, sortRunOutput } from './output';
import { stopsRun } from './llm';
import { LlmError } from '../llm/errors';
import type { LlmServices } from '../llm/services';
import { mean, quantile } from '../stats/descriptive';
import { DEFAULT_MAX_CONSECUTIVE_FAILURES, FailureTally, type FailureCounts, type FailureReason } from '../failures';

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
  /** Failed conversations in the output (resumed ones included), whatever the reason. */
  failed: number;
  /** The failures per reason, as the manifest's `counts`. */
  failures: FailureCounts;
  resumed: number;
  elapsedMs: number;
  /** Conversations per second in this session. */
  rate: number;
}

interface RunOptions {
  out: string;
  /** Resolves relative paths of the configuration (default process.cwd()). */
  cwd?: string;
  shard?: Shard;
  /** Where the shard came from when a cluster engine gave it (recorded in the manifest as `shard_source`). */
  shardSource?: { engine: string; variables: Record<string, string> };
  resume?: boolean;
  /**
   * With `resume`: run the failed conversations of the output again (their lines are removed
   * first). Without it a resume keeps them: a failure that is not the endpoint's (a request it
   * rejects, answers that stayed unusable) would only fail again.
   */
  retryFailed?: boolean;
  /** Replace an existing output instead of refusing. */
  overwrite?: boolean;
  /** Conversations in flight at once (default 1). Output does not depend on it. */
  concurrency?: number;
  /**
   * Stop scheduling (first Ctrl-C, VS Code's Cancel): no new conversation starts, the ones in
   * flight finish and are written, the manifest says `cancelled`. Never cancels a request.
   */
  signal?: AbortSignal;
  /**
   * Hard abort (second Ctrl-C): requests in flight are cancelled (this is the signal the LLM
   * services and the HTTP agent get), the run returns at once, conversations cut short are not
   * written (resume redoes them), the manifest says `cancelled`.
   */
  abort?: AbortSignal;
  /**
   * Stop the run after this many failed conversations in a row (completion order); 0 = never.
   * Default DEFAULT_MAX_CONSECUTIVE_FAILURES (10). The manifest then says `stopped` with a `stop_reason`.
   */
  maxConsecutiveFailures?: number;
  onProgress?: (p: RunProgress) => void;
  /** Minimum milliseconds between progress calls (default 200). */
  progressIntervalMs?: number;
  /** The command line, for the manifest. */
  command?: string;
  /** A prepared environment (tests and benchmarks reuse one across runs). */
  environment?: SimulationEnvironment;
  /** Prebuilt LLM services for LLM users/agents (the extension passes its SecretStorage key this way). Build them with `RunStop.llmSignals()` (hard abort and stop retries). */
  llm?: LlmServices;
  /**
   * Called with each conversation once its line is handed to the writer; the worker that ran it
   * waits for the returned promise (a debugger pauses the run this way; other workers go on, so
   * pause with concurrency 1). Never changes the output.
   */
  onConversation?: (conversation: Conversation, index: number) => void | Promise<void>;
  /** External simulated users: working directory, environment and stderr of their processes. */
  simulator?: SimulatorProcessOptions;
}

interface RunResult {
  manifest: RunManifest;
  out: string;
}

/** Latency statistics in the manifest's `timings` (milliseconds, two decimals). */
interface LatencyStats {
  count: number;
  mean: number;
  p50: number;
  p95: number;
  max: number;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** count, mean, p50, p95 and max of a sample; undefined when it is empty. */
export function latencyStats(values: readonly number[]): LatencyStats | undefined {
  if (values.length === 0) return undefined;
  let max = -Infinity;
  for (const v of values) if (v > max) max = v;
  return {
    count: values.length,
    mean: round2(mean(values)),
    p50: round2(quantile(values, 0.5)),
    p95: round2(quantile(values, 0.95)),
    max: round2(max),
  };
}

/** Minimum milliseconds between refreshes of a running manifest. */
const MANIFEST_REFRESH_MS = 1000;
/** A running manifest is rewritten at least this often, even with nothing new, so its age shows the process is alive. */
const MANIFEST_HEARTBEAT_MS = 60_000;

/**
 * How an error that stops a run (see `stopsRun`) ends it: a spent budget or a cancelled request is
 * `cancelled` (nothing is wrong; resume continues), an LLM endpoint that failed after its retries
 * is `stopped`. `reason` is the manifest's `stop_reason`, and what `simulate` and `report` print.
 */
export function runStopOf(error: unknown): { status: 'stopped' | 'cancelled'; reason: string } {
  const message = error instanceof Error ? error.message : String(error);
  const kind = error instanceof LlmError ? error.kind : undefined;
  if (kind === 'budget') return { status: 'cancelled', reason: `cancelled: the LLM budget is spent (${message})` };
  if (kind === 'aborted') return { status: 'cancelled', reason: `cancelled: LLM requests were cancelled (${message})` };
  return { status: 'stopped', reason: `stopped: the LLM endpoint failed (${message})` };
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((r) => setImmediate(r));
}

/**
 * `work`, or a rejection with the signal's reason as soon as it aborts (for work that may ignore
 * the signal). The abort listener is per call and removed when `work` settles: racing every
 * conversation against one shared never-settling promise would add a reaction to it per
 * conversation and keep every result alive until the run ends (a leak of ~22 KB a conversation).
 */
async function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason ?? new Error('aborted'));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** What the output already holds when the run starts (nothing for a new run). */
interface PriorOutput {
  /** Conversation indices already in the file. */
  done: Set<number>;
  /** Lines already in the file. */
  resumed: number;
  /** Failed lines removed for `retryFailed`. */
  retriedFailed: number;
  /** The failures among the lines kept, per reason. */
  previousFailures?: FailureCounts;
}

/**
 * Checks an existing output against this run and reads what it holds: a resume needs the same
 * configuration and shard and may hold only planned indices; without `resume` an existing output
 * is refused unless `overwrite`, which empties it.
 */
async function openOutput(
  out: string,
  config: SimulationConfig,
  planned: readonly number[],
  options: RunOptions,
): Promise<PriorOutput> {
  const prior: PriorOutput = { done: new Set<number>(), resumed: 0, retriedFailed: 0 };
  if (existsSync(out) && statSync(out).size > 0) {
    if (options.resume) {
      const previous = readManifest(out);
      if (previous && !sameConfig(previous.config, config as unknown as Record<string, unknown>)) {
        throw new Error(
          `${out}: was written with another configuration (see ${out}.manifest.json); resume needs the same options`,
        );
      }
      if (
        previous?.shard &&
        (!options.shard || previous.shard.index !== options.shard.index || previous.shard.count !== options.shard.count)
      ) {
        throw new Error(
          `${out}: is shard ${previous.shard.index}/${previous.shard.count}; resume it with the same --shard`,
        );
      }
      const retried = options.retryFailed ? dropFailedLines(out) : 0;
      const existing = await readExistingOutput(out);
      prior.retriedFailed = retried;
      const wanted = new Set(planned);
      for (const i of existing.indices) {
        if (!wanted.has(i))
          throw new Error(
            `${out}: holds conversation index ${i}, which this run ` +
              `(n=${config.n}${options.shard ? `, shard ${options.shard.index}/${options.shard.count}` : ''}) does not plan`,
          );
      }
      prior.done = existing.indices;
      prior.resumed = existing.lines;
      // Counted from the lines themselves, so the counts stay right whatever the old manifest said.
      prior.previousFailures = existing.failures;
    } else if (!options.overwrite) {
      throw new Error(`${out} already exists; use --resume to continue it or --force to replace it`);
    }
  }
  if (options.overwrite && !options.resume && existsSync(out)) {
    const { truncateSync } = await import('node:fs');
    truncateSync(out, 0);
  }
  return prior;
}

/** The manifest a run starts with (status `running`): configuration, versions, inputs and policy. */
function startingManifest(
  config: SimulationConfig,
  env: SimulationEnvironment,
  out: string,
  options: RunOptions,
  maxConsecutive: number,
  retriedFailed: number,
  counts: RunManifest['counts'],
  startedAt: Date,
): RunManifest {
  const configRecord = config as unknown as Record<string, unknown>;
  const manifest: RunManifest = {
    run_id: runIdFor(configRecord),
    created: startedAt.toISOString(),
    simlens_version: SIMLENS_VERSION,
    node_version: process.version,
    command: options.command,
    config: configRecord,
    seed: config.seed,
    counts,
    timings: { started: startedAt.toISOString() },
    status: 'running',
  };
  if (options.shard) manifest.shard = { ...options.shard };
  if (options.shardSource) (manifest as Record<string, unknown>)['shard_source'] = options.shardSource;
  Object.assign(manifest as Record<string, unknown>, {
    user: env.user.name,
    agent: env.agent.name,
    max_turns: env.maxTurns,
    transitions_source: env.transitions.source,
    ...(env.llm ? env.llm.manifestInfo() : {}),
    inputs: env.inputs,
    output: out,
    policy: { max_consecutive_failures: maxConsecutive },
    ...(retriedFailed ? { retried_failed: retriedFailed } : {}),
    // Documented behaviours that excuse an invariant (see README, Behavioural invariants), with their rates.
    user_behaviour: { early_quit: config.early_quit ?? 0 },
  });
  return manifest;
}

/**
 * Rewrites a running manifest with the counts of the lines on disk, for whoever watches the run
 * (Open Run, merge, a poll): at most once a second while lines arrive, at least once a minute
 * (the heartbeat) when none do. The JSONL is untouched, so output stays deterministic.
 */
class ManifestRefresher {
  private last = performance.now();
  private lastWritten: number;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly out: string,
    private readonly manifest: RunManifest,
    private readonly writer: OrderedWriter,
    private readonly countsNow: () => RunManifest['counts'],
  ) {
    this.lastWritten = writer.written;
    this.timer = setInterval(() => this.refresh(), MANIFEST_REFRESH_MS);
    this.timer.unref();
  }

  /** Writes the manifest if it is due. */
  refresh(): void {
    const now = performance.now();
    const changed = this.writer.written !== this.lastWritten;
    if (now - this.last < (changed ? MANIFEST_REFRESH_MS : MANIFEST_HEARTBEAT_MS)) return;
    this.last = now;
    this.lastWritten = this.writer.written;
    this.manifest.counts = this.countsNow();
    try {
      writeManifest(this.out, this.manifest);
    } catch {
      // A refresh that fails (disk full, folder gone) must not kill the run; the final write reports it.
    }
  }

  /** Stops the timer (the final manifest is written by the run). */
  stop(): void {
    clearInterval(this.timer);
  }
}

/** The final `timings`: start, end and wall time, with agent and LLM call latency statistics when there were any. */
function finalTimings(
  startedAt: Date,
  t0: number,
  agentLatencies: readonly number[],
  llmLatencies: readonly number[],
): RunManifest['timings'] {
  const timings: RunManifest['timings'] & { agent_latency_ms?: LatencyStats; llm_call_ms?: LatencyStats } = {
    started: startedAt.toISOString(),
    finished: new Date().toISOString(),
    wall_ms: Math.round(performance.now() - t0),
  };
  const agentStats = latencyStats(agentLatencies);
  if (agentStats) timings.agent_latency_ms = agentStats;
  const llmStats = latencyStats(llmLatencies);
  if (llmStats) timings.llm_call_ms = llmStats;
  return timings;
}

/**
 * Sets how the run ended: `crashed` (or `stopped`/`cancelled` for an error that stops runs, see
 * `runStopOf`), `stopped` by the failure policy before it was complete, `cancelled` when
 * incomplete otherwise, else `finished`; with `stop_reason` and `error` where they apply.
 */
function settleStatus(
  manifest: RunManifest,
  crashed: unknown,
  policyStop: { message: string } | undefined,
  complete: boolean,
  aborted: boolean,
): void {
  const extra = manifest as Record<string, unknown>;
  if (crashed !== undefined) {
    // An LLM endpoint that died or a spent budget stops the run (nothing half-done is written): resume continues it.
    if (stopsRun(crashed)) {
      const stop = runStopOf(crashed);
      manifest.status = stop.status;
      extra['stop_reason'] = stop.reason;
    } else manifest.status = 'crashed';
    extra['error'] = crashed instanceof Error ? crashed.message : String(crashed);
  } else if (policyStop && !complete) {
    manifest.status = 'stopped';
    extra['stop_reason'] = policyStop.message;
  } else if (!complete) {
    manifest.status = 'cancelled';
    extra['stop_reason'] = aborted
      ? 'aborted: requests in flight were cancelled and their conversations not written'
      : 'cancelled: no new conversation was started; those in flight were finished and written';
  } else {
    manifest.status = 'finished';
  }
}

/** What this session of a run did: conversations finished, agent and LLM call latencies (milliseconds). */
interface SessionTotals {
  finished: number;
  agentLatencies: number[];
  llmLatencies: number[];
}

/** Where each finished conversation goes: the failure policy, the ordered writer and the session's totals. */
interface ConversationSinks {
  /** Hears of conversations as they finish (the consecutive-failure policy). */
  tally: FailureTally;
  /** Failures of lines handed to the writer and not yet on disk, by index. */
  failureOf: Map<number, { reason: FailureReason; message: string }>;
  writer: OrderedWriter;
  session: SessionTotals;
}

/**
 * Simulates the conversations of `todo` with `concurrency` workers, each line handed to the
 * writer (which puts them in index order) and each outcome to the tally; `afterEach` runs after
 * every conversation. No new conversation starts once a signal fires, the failure policy stops the
 * run or a worker crashed. Returns the first crash (not thrown; ignored after a hard abort).
 */
async function simulateAll(
  env: SimulationEnvironment,
  todo: readonly number[],
  concurrency: number,
  options: RunOptions,
  { tally, failureOf, writer, session }: ConversationSinks,
  afterEach: () => void,
): Promise<unknown> {
  let next = 0;
  let lastYield = performance.now();
  let crashed: unknown;
  const stopScheduling = () =>
    !!options.signal?.aborted || !!options.abort?.aborted || crashed !== undefined || tally.stop !== undefined;
  const worker = async () => {
    while (next < todo.length && !stopScheduling()) {
      const index = todo[next++];
      // A hard abort returns at once, even from an agent that ignores the signal.
      const result = await untilAborted(simulateConversation(env, index, { abort: options.abort }), options.abort);
      if (options.abort?.aborted) return; // cut short or finished just now: either way not written, resume redoes it
      if (result.failure) {
        tally.failure(result.failure.reason, result.failure.message);
        failureOf.set(index, result.failure);
      } else tally.success();
      for (const ms of result.agentLatencies) session.agentLatencies.push(ms);
      for (const ms of result.llmLatencies) session.llmLatencies.push(ms);
      writer.put(index, encodeConversationLine(result.conversation));
      session.finished++;
      if (options.onConversation) await options.onConversation(result.conversation, index);
      afterEach();
      // Local agents never wait on I/O: yield now and then so cancellation and progress get through.
      if (performance.now() - lastYield > 25) {
        lastYield = performance.now();
        await yieldToEventLoop();
      }
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(concurrency, Math.max(1, todo.length)) }, () =>
      worker().catch((e) => {
        if (!options.abort?.aborted) crashed ??= e;
      }),
    ),
  );
  return crashed;
}

/**
 * Whether a resume fills a gap (left by a stopped run, or --retry-failed): its lines belong before
 * others already in the file, which is then put back in index order at the end.
 */
function fillsGap(done: ReadonlySet<number>, todo: readonly number[]): boolean {
  let maxDone = -1;
  for (const i of done) if (i > maxDone) maxDone = i;
  return todo.some((i) => i < maxDone);
}

/**
 * The run's progress callback (`onProgress`): at most one call per `progressIntervalMs` (200 by
 * default) unless forced; counts include the conversations from before, the rate is this session's.
 */
function progressReporter(
  options: RunOptions,
  run: { planned: number; before: number; resumed: number },
  t0: number,
  tally: FailureTally,
  session: SessionTotals,
): (force: boolean) => void {
  const interval = options.progressIntervalMs ?? 200;
  let lastProgress = 0;
  return (force) => {
    const now = performance.now();
    if (!force && now - lastProgress < interval) return;
    lastProgress = now;
    const elapsedMs = now - t0;
    const failures = tally.counts();
    options.onProgress?.({
      planned: run.planned,
      finished: run.before + session.finished,
      failed: failures.failed,
      failures,
      resumed: run.resumed,
      elapsedMs,
      rate: elapsedMs > 0 ? (session.finished * 1000) / elapsedMs : 0,
    });
  };
}

/** Runs (or resumes) a simulation and returns its final manifest. */
export async function runSimulation(
  input: SimulationConfigInput | SimulationConfig,
  options: RunOptions,
): Promise<RunResult> {
  const config = parseSimulationConfig(input);
  const cwd = options.cwd ?? process.cwd();
  const out = resolve(cwd, options.out);
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 1));
  const maxConsecutive = Math.max(0, Math.floor(options.maxConsecutiveFailures ?? DEFAULT_MAX_CONSECUTIVE_FAILURES));
  const planned = shardIndices(config.n, options.shard);
  const { done, resumed, retriedFailed, previousFailures } = await openOutput(out, config, planned, options);

  const env =
    options.environment ??
    (await prepareEnvironment(config, cwd, {
      llm: options.llm,
      signal: options.abort,
      stopRetries: options.signal,
      simulator: options.simulator,
    }));
  mkdirSync(dirname(out), { recursive: true });
  // `tally` hears of conversations as they finish (the consecutive-failure policy); `written`
  // counts the lines on disk, which is what the manifest reports.
  const tally = new FailureTally(maxConsecutive, previousFailures);
  const written = new FailureTally(0, previousFailures);
  const startedAt = new Date();
  const t0 = performance.now();
  const counts = (finished: number) => ({ planned: planned.length, finished, ...written.counts(), resumed });
  const manifest = startingManifest(
    config,
    env,
    out,
    options,
    maxConsecutive,
    retriedFailed,
    counts(done.size),
    startedAt,
  );
  writeManifest(out, manifest);

  const todo = planned.filter((i) => !done.has(i));
  const mayEndUnordered = fillsGap(done, todo);
  const failureOf = new Map<number, { reason: FailureReason; message: string }>();
  const writer = new OrderedWriter(out, todo, (index) => {
    const f = failureOf.get(index);
    if (f) {
      failureOf.delete(index);
      written.failure(f.reason, f.message);
    } else written.success();
  });
  const session: SessionTotals = { finished: 0, agentLatencies: [], llmLatencies: [] };
  const refresher = new ManifestRefresher(out, manifest, writer, () => counts(done.size + writer.written));
  const report = progressReporter(options, { planned: planned.length, before: done.size, resumed }, t0, tally, session);

  let crashed: unknown;
  try {
    crashed = await simulateAll(env, todo, concurrency, options, { tally, failureOf, writer, session }, () => {
      report(false);
      refresher.refresh();
    });
  } finally {
    refresher.stop();
    // Conversations that finished after one that did not (stopped, cancelled) are written too.
    try {
      writer.flushPending();
    } finally {
      writer.close();
      // External simulators' processes stop with the run that started them (a prepared environment is its owner's).
      if (!options.environment) await env.user.dispose?.().catch(() => {});
    }
  }
  if (mayEndUnordered) sortRunOutput(out);
  manifest.counts = counts(done.size + writer.written);
  manifest.timings = finalTimings(startedAt, t0, session.agentLatencies, session.llmLatencies);
  if (env.llm) Object.assign(manifest, env.llm.manifestInfo());
  // Complete: every planned conversation is in the file (failed ones included). The failure
  // policy only makes a run `stopped` when it cut the run short.
  const complete = manifest.counts.finished >= planned.length;
  settleStatus(manifest, crashed, tally.stop, complete, !!options.abort?.aborted);
  (manifest as Record<string, unknown>)['rate_per_s'] = manifest.timings.wall_ms
    ? Math.round((session.finished * 1000 * 10) / manifest.timings.wall_ms) / 10
    : 0;
  writeManifest(out, manifest);
  report(true);
  if (crashed !== undefined) throw crashed;
  return { manifest, out };
}
