/**
 * The part shared by the CLI commands that annotate conversations with an LLM (`judge`,
 * `discriminate`): read IN with clear messages, then one annotation pass that can be interrupted
 * (Ctrl-C, spent budget), writes OUT atomically and reports per-conversation failures.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { importFile, ImportError } from '../core/importers';
import type { Conversation, ConversationAnnotation } from '../core/model';
import { annotateAll, writeJsonlAtomic, type AnnotateReport } from '../core/llm/annotate';
import type { LlmRole } from '../core/llm/config';
import type { LlmServices } from '../core/llm/services';
import type { BudgetSnapshot } from '../core/llm/budget';
import { DEFAULT_MAX_CONSECUTIVE_FAILURES, FailureTally } from '../core/failures';
import {
  annotationPartManifest,
  annotationPassConfig,
  loadAnnotationPart,
  type AnnotationPartState,
} from '../core/run/annotationShard';
import { writeManifest } from '../core/run/manifest';
import { latencyStats, shardIndices } from '../core/run/orchestrator';
import { SHARD_COUNT_VARIABLE, partFileName, resolveShard, type ResolvedShard } from '../core/run/shardEnv';
import type { FlagSpecs, FlagValues } from './args';
import { RunStop } from '../core/run/stop';
import { LLM_FLAGS, llmServicesFromFlags, type LlmFlagValues } from './llmOptions';
import { UsageError, type CliIo } from './types';
import { EXIT_NOT_READABLE, importErrorMessage, ioErrorMessage, isIoError, resolvePath } from './util';

/**
 * Imports `input` (any importable format). On an I/O or import error prints
 * `simlens COMMAND: ...` and returns the exit code instead: 2 for I/O, 1 for an input that is not
 * conversations (docs/cli.md).
 */
export async function readConversationsForCommand(
  io: CliIo,
  command: string,
  input: string,
): Promise<Conversation[] | number> {
  try {
    return (await importFile(resolvePath(io, input))).conversations;
  } catch (err) {
    if (isIoError(err)) {
      io.stderr(`simlens ${command}: ${ioErrorMessage('read', input, err)}\n`);
      return 2;
    }
    if (err instanceof ImportError) {
      io.stderr(`simlens ${command}: ${importErrorMessage(io, err)}\n`);
      return EXIT_NOT_READABLE;
    }
    throw err;
  }
}

/** The failure policy flag of `judge` and `discriminate` (same name, default and meaning as `simulate`'s). */
const FAILURE_POLICY_FLAGS = {
  'max-consecutive-failures': {
    type: 'number',
    description: `stop after N conversations in a row failed (default ${DEFAULT_MAX_CONSECUTIVE_FAILURES}; 0 = never stop)`,
  },
} as const;

/** The shard options of `judge` and `discriminate` (as `simulate`'s). */
const SHARD_FLAGS = {
  shard: {
    type: 'string',
    valueName: 'I/K|auto|none',
    description:
      'annotate only the input positions p with p mod K = I (0-based); auto: from a Slurm array or Kubernetes indexed ' +
      'job (the default when their variables are set), writing OUT.part-I-of-K.jsonl; none: ignore them. Join the ' +
      'parts with simlens merge',
  },
  'shard-count': {
    type: 'number',
    valueName: 'K',
    description: `with --shard auto: the number of shards (Kubernetes: the Job's completions; default ${SHARD_COUNT_VARIABLE}, or the Slurm array's size)`,
  },
} as const;

/**
 * The flags of an annotation pass (`judge`, `discriminate`): --out, the command's own `extra`
 * flags, --force, --limit, --json, then the failure policy, shard and LLM options. `help` words
 * each of the four common flags for the command.
 */
export function annotationPassFlags<const E extends FlagSpecs>(
  help: { out: string; force: string; limit: string; json: string },
  extra: E,
) {
  return {
    out: { type: 'string', short: 'o', valueName: 'FILE', description: help.out },
    ...extra,
    force: { type: 'boolean', description: help.force },
    limit: { type: 'number', description: help.limit },
    json: { type: 'boolean', description: help.json },
    ...FAILURE_POLICY_FLAGS,
    ...SHARD_FLAGS,
    ...LLM_FLAGS,
  } as const;
}

/** The value of --max-consecutive-failures, validated. */
function maxConsecutiveFailuresFlag(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_CONSECUTIVE_FAILURES;
  if (!Number.isInteger(value) || value < 0)
    throw new UsageError(`--max-consecutive-failures must be a whole number >= 0, got ${value}`);
  return value;
}

/** "3 failed (judge_llm 3)" for a pass report. */
export function describeFailures(report: AnnotateReport): string {
  return new FailureTally(0, report.failures).describe();
}

/** What `runAnnotationPass` needs from a command. */
interface AnnotationPassOptions {
  command: string;
  /** The LLM role whose model names the annotator and whose concurrency is used. */
  role: LlmRole;
  io: CliIo;
  /**
   * The command's flags: the LLM options, the failure policy, the shard options, --limit (annotate
   * only the first N; the rest are written back unchanged) and --force (re-annotate conversations
   * that already carry this annotator's annotation).
   */
  flags: LlmFlagValues &
    FlagValues<typeof FAILURE_POLICY_FLAGS> &
    Partial<FlagValues<typeof SHARD_FLAGS>> & { limit?: number; force?: boolean };
  /** The command's arguments, for the command line in a shard's manifest. */
  args?: readonly string[];
  /** IN as given on the command line (for messages). */
  input: string;
  /** OUT as given on the command line. */
  out: string;
  conversations: Conversation[];
  /** The annotator name for a model, e.g. `judge:<model>`. */
  annotatorFor(model: string): string;
  /** Annotates one conversation (`line` is its 1-based position in IN). */
  annotate(conv: Conversation, services: LlmServices, line: number): Promise<ConversationAnnotation>;
  onProgress?: (done: number, total: number) => void;
  /** Prints the summary once OUT (or the shard's part, `out`) is written. */
  summarize(pass: { report: AnnotateReport; annotator: string; services: LlmServices; out: string }): void;
}

/** Which positions of IN this pass annotates, and where it writes: the whole of OUT, or a shard's part. */
interface PassPlan {
  resolved: ResolvedShard | undefined;
  out: string;
  positions: number[];
  /** The positions annotated: those below --limit (a prefix, since positions ascend). */
  toAnnotate: number[];
}

function planPass(o: AnnotationPassOptions): PassPlan {
  const { io, command } = o;
  let resolved: ResolvedShard | undefined;
  try {
    resolved = resolveShard(o.flags.shard, io.env, o.flags['shard-count']);
  } catch (err) {
    throw new UsageError(`--shard: ${(err as Error).message}`);
  }
  // A shard writes only its positions; a cluster task names its part by its index.
  const out = resolved && resolved.source !== 'option' ? partFileName(o.out, resolved.shard) : o.out;
  if (resolved && resolvePath(io, out) === resolvePath(io, o.input))
    throw new UsageError('with --shard, --out must not be IN (each shard writes only its part)');
  if (resolved) io.stderr(`simlens ${command}: ${resolved.description} -> ${out}\n`);
  const positions = resolved ? shardIndices(o.conversations.length, resolved.shard) : o.conversations.map((_, i) => i);
  const { limit } = o.flags;
  const toAnnotate = limit !== undefined ? positions.filter((p) => p < Math.max(0, limit)) : positions;
  return { resolved, out, positions, toAnnotate };
}

/** The manifest state of a pass that has annotated nothing yet. */
function newPartState(
  o: AnnotationPassOptions,
  annotator: string,
  outFile: string,
  planned: number,
): AnnotationPartState {
  const { command } = o;
  return {
    command,
    commandLine: o.args ? `simlens ${command} ${o.args.join(' ')}` : `simlens ${command}`,
    config: annotationPassConfig({
      command,
      inputFile: resolvePath(o.io, o.input),
      items: o.conversations.length,
      annotator,
      limit: o.flags.limit,
      force: o.flags.force,
    }),
    output: outFile,
    started: new Date(),
    planned,
    annotated: 0,
    skipped: 0,
    failures: { failed: 0, agent_errors: 0, by_reason: {} },
    resumed: 0,
    status: 'running',
  };
}

/**
 * A shard's part: what an earlier run of this task already wrote there (unless --force), and the
 * part's first manifest. Returns the exit code 2 when the earlier part cannot be read.
 */
async function openShardPart(
  o: AnnotationPassOptions,
  plan: PassPlan & { resolved: ResolvedShard },
  annotator: string,
  outFile: string,
): Promise<{ rows: Conversation[] | undefined; part: AnnotationPartState } | number> {
  const { io, command } = o;
  const { resolved, positions, toAnnotate } = plan;
  const part = newPartState(o, annotator, outFile, toAnnotate.length);
  let previous;
  try {
    previous = o.flags.force
      ? undefined
      : await loadAnnotationPart(outFile, part.config, resolved.shard, positions.length);
  } catch (err) {
    io.stderr(`simlens ${command}: ${(err as Error).message}\n`);
    return 2;
  }
  const resumed = previous
    ? previous.slice(0, toAnnotate.length).filter((c) => c.annotations?.some((a) => a.annotator === annotator)).length
    : 0;
  if (resumed)
    io.stderr(`simlens ${command}: resuming ${plan.out}: ${resumed} conversations already annotated there\n`);
  mkdirSync(dirname(outFile), { recursive: true });
  part.shard = resolved.shard;
  part.shardSource =
    resolved.source !== 'option' ? { engine: resolved.source, variables: resolved.variables ?? {} } : undefined;
  part.resumed = resumed;
  writeManifest(outFile, annotationPartManifest(part));
  return { rows: previous, part };
}

/**
 * Runs the pass and returns the exit code: 0 all annotated, 1 some failed or the pass stopped
 * early (budget, Ctrl-C, too many failures in a row), 2 when the LLM services could not be set up
 * or OUT could not be written. Usage errors in the LLM options are thrown as `UsageError`.
 *
 * Stopping: a spent budget, the failure policy or a first Ctrl-C stop launching new work; answers
 * in flight are awaited and kept (they are paid for). A second Ctrl-C cancels them.
 */
export async function runAnnotationPass(o: AnnotationPassOptions): Promise<number> {
  const { io, command } = o;
  const maxConsecutiveFailures = maxConsecutiveFailuresFlag(o.flags['max-consecutive-failures']);
  const plan = planPass(o);
  const { resolved, out, positions, toAnnotate } = plan;
  const { force } = o.flags;
  // The two-stage stop every run uses (src/core/run/stop.ts): the first Ctrl-C stops scheduling and retrying.
  const stop = new RunStop();
  const onSigint = () => {
    if (stop.request() === 'stopping')
      io.stderr(`simlens ${command}: stopping after the answers in flight (Ctrl-C again to cancel them)\n`);
  };
  // SIGTERM (a cluster's preemption, `kill`) is a first Ctrl-C.
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint);
  try {
    let services: LlmServices;
    try {
      services = await llmServicesFromFlags(o.flags, io, { outFile: out, ...stop.llmSignals(), command });
    } catch (e) {
      if (e instanceof UsageError) throw e;
      io.stderr(`simlens ${command}: ${(e as Error).message}\n`);
      return 2;
    }
    const annotator = o.annotatorFor(services.client(o.role).model);
    const outFile = resolvePath(io, out);
    let rows = positions.map((p) => o.conversations[p]);
    let part: AnnotationPartState | undefined;
    let lastManifest = 0;
    if (resolved) {
      const opened = await openShardPart(o, { ...plan, resolved }, annotator, outFile);
      if (typeof opened === 'number') return opened;
      if (opened.rows) rows = opened.rows;
      part = opened.part;
      lastManifest = Date.now();
    }
    const passStarted = new Date();
    const report = await annotateAll(
      rows.slice(0, toAnnotate.length),
      (conv, i) => o.annotate(conv, services, toAnnotate[i] + 1),
      {
        concurrency: services.settings.roles[o.role].concurrency,
        skipAnnotator: force ? undefined : annotator,
        signal: stop.signal,
        onProgress: (done, total) => {
          o.onProgress?.(done, total);
          // A shard's manifest shows its progress (SimLens: Open Run… reads it) every few seconds.
          if (part && Date.now() - lastManifest > 2000) {
            lastManifest = Date.now();
            writeManifest(outFile, annotationPartManifest({ ...part, annotated: done }));
          }
        },
        maxConsecutiveFailures,
        failureReason: o.role === 'discriminator' ? 'discriminator_llm' : 'judge_llm',
      },
    );
    const rest = resolved ? rows.slice(toAnnotate.length) : o.conversations.slice(toAnnotate.length);
    await writeJsonlAtomic(outFile, [...report.conversations, ...rest]);
    // Every pass, sharded or not, leaves a manifest: counts, failures per reason, LLM usage (no key).
    part ??= { ...newPartState(o, annotator, outFile, toAnnotate.length), started: passStarted };
    writeManifest(
      outFile,
      annotationPartManifest({
        ...part,
        extra: services.manifestInfo(),
        annotated: report.annotated,
        skipped: report.skipped,
        failures: report.failures,
        status: report.stopped ? (report.stoppedBy === 'policy' ? 'stopped' : 'cancelled') : 'finished',
        stopReason: report.stopped,
        finished: new Date(),
        llmCallMs: latencyStats(report.llmLatencies),
      }),
    );
    reportPass(o, { report, annotator, services }, plan);
    return report.failed.length || report.stopped ? 1 : 0;
  } catch (err) {
    if (isIoError(err)) {
      io.stderr(`simlens ${command}: ${ioErrorMessage('write', out, err)}\n`);
      return 2;
    }
    throw err;
  } finally {
    process.removeListener('SIGINT', onSigint);
    process.removeListener('SIGTERM', onSigint);
  }
}

/** After OUT is written: each failed conversation, an early stop, the command's summary and the usage line. */
function reportPass(
  o: AnnotationPassOptions,
  { report, annotator, services }: { report: AnnotateReport; annotator: string; services: LlmServices },
  plan: PassPlan,
): void {
  const { io, command } = o;
  for (const f of report.failed) io.stderr(`simlens ${command}: ${o.input}: conversation ${f.id}: ${f.error}\n`);
  if (report.stopped)
    io.stderr(
      `simlens ${command}: stopped early: ${report.stopped}; ${plan.resolved ? 'rerun this task to resume its part' : `rerun on ${plan.out} to continue`}\n`,
    );
  o.summarize({ report, annotator, services, out: plan.out });
  if (!(o.flags as { json?: boolean }).json) io.stdout(`${usageLine(services.budget.snapshot())}\n`);
}

/** The usage line printed after a pass ("usage: 12 requests, 3,456 tokens, 4 cache hits"), saying when tokens are estimated. */
function usageLine(u: BudgetSnapshot): string {
  const estimated = u.usage_missing
    ? ` (${u.estimated_tokens} estimated: ${u.usage_missing} answer${u.usage_missing === 1 ? '' : 's'} came without usage)`
    : '';
  return (
    `usage: ${u.requests} request${u.requests === 1 ? '' : 's'}, ${u.tokens} tokens${estimated}, ${u.cache_hits} ` +
    `cache hit${u.cache_hits === 1 ? '' : 's'}${u.exhausted ? ', budget spent' : ''}`
  );
}
