/**
 * The part shared by the CLI commands that annotate conversations with an LLM (`judge`,
 * `discriminate`): read IN with clear messages, then one annotation pass that can be interrupted
 * (Ctrl-C, spent budget), writes OUT atomically and reports per-conversation failures.
 */
import { importFile, ImportError } from '../core/importers';
import type { Conversation, ConversationAnnotation } from '../core/model';
import { annotateAll, writeJsonlAtomic, type AnnotateReport } from '../core/llm/annotate';
import type { LlmRole } from '../core/llm/config';
import type { LlmServices } from '../core/llm/services';
import { DEFAULT_MAX_CONSECUTIVE_FAILURES, FailureTally } from '../core/run/failures';
import type { FlagValues } from './args';
import { llmServicesFromFlags, type LlmFlagValues } from './llmOptions';
import { UsageError, type CliIo } from './types';
import { ioErrorMessage, isIoError, resolvePath } from './util';

/**
 * Imports `input` (any importable format). On an I/O or import error prints
 * `simlens COMMAND: ...` and returns undefined (the caller exits with 2).
 */
export async function readConversationsForCommand(io: CliIo, command: string, input: string): Promise<Conversation[] | undefined> {
  try {
    return (await importFile(resolvePath(io, input))).conversations;
  } catch (err) {
    if (isIoError(err)) { io.stderr(`simlens ${command}: ${ioErrorMessage('read', input, err)}\n`); return undefined; }
    if (err instanceof ImportError) { io.stderr(`simlens ${command}: ${err.message}\n`); return undefined; }
    throw err;
  }
}

/** The failure policy flag of `judge` and `discriminate` (same name, default and meaning as `simulate`'s). */
export const FAILURE_POLICY_FLAGS = {
  'max-consecutive-failures': {
    type: 'number',
    description: `stop after N conversations in a row failed (default ${DEFAULT_MAX_CONSECUTIVE_FAILURES}; 0 = never stop)`,
  },
} as const;

/** The value of --max-consecutive-failures, validated. */
export function maxConsecutiveFailuresFlag(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_CONSECUTIVE_FAILURES;
  if (!Number.isInteger(value) || value < 0) throw new UsageError(`--max-consecutive-failures must be a whole number >= 0, got ${value}`);
  return value;
}

/** "3 failed (judge_llm 3)" for a pass report. */
export function describeFailures(report: AnnotateReport): string {
  return new FailureTally(0, report.failures).describe();
}

/** What `runAnnotationPass` needs from a command. */
export interface AnnotationPassOptions {
  command: string;
  /** The LLM role whose model names the annotator and whose concurrency is used. */
  role: LlmRole;
  io: CliIo;
  /** The command's flags (the LLM options and the failure policy are read from them). */
  flags: LlmFlagValues & FlagValues<typeof FAILURE_POLICY_FLAGS>;
  /** IN as given on the command line (for messages). */
  input: string;
  /** OUT as given on the command line. */
  out: string;
  conversations: Conversation[];
  /** Annotate only the first N (the rest are written back unchanged). */
  limit?: number;
  /** Re-annotate conversations that already carry this annotator's annotation. */
  force?: boolean;
  /** The annotator name for a model, e.g. `judge:<model>`. */
  annotatorFor(model: string): string;
  /** Annotates one conversation (`line` is its 1-based position in IN). */
  annotate(conv: Conversation, services: LlmServices, line: number): Promise<ConversationAnnotation>;
  onProgress?: (done: number, total: number) => void;
  /** Prints the summary once OUT is written. */
  summarize(pass: { report: AnnotateReport; annotator: string; services: LlmServices }): void;
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
  const { io, command, out } = o;
  const maxConsecutiveFailures = maxConsecutiveFailuresFlag(o.flags['max-consecutive-failures']);
  const subset = o.limit !== undefined ? o.conversations.slice(0, Math.max(0, o.limit)) : o.conversations;
  const stop = new AbortController();
  const abort = new AbortController();
  const onSigint = () => {
    if (!stop.signal.aborted) {
      stop.abort();
      io.stderr(`simlens ${command}: stopping after the answers in flight (Ctrl-C again to cancel them)\n`);
    } else abort.abort();
  };
  process.on('SIGINT', onSigint);
  try {
    let services: LlmServices;
    try {
      services = await llmServicesFromFlags(o.flags, io, { outFile: out, signal: abort.signal, command });
    } catch (e) {
      if (e instanceof UsageError) throw e;
      io.stderr(`simlens ${command}: ${(e as Error).message}\n`);
      return 2;
    }
    const annotator = o.annotatorFor(services.client(o.role).model);
    const report = await annotateAll(subset, (conv, i) => o.annotate(conv, services, i + 1), {
      concurrency: services.settings.roles[o.role].concurrency,
      skipAnnotator: o.force ? undefined : annotator,
      signal: stop.signal,
      onProgress: o.onProgress,
      maxConsecutiveFailures,
      failureReason: 'judge_llm',
    });
    await writeJsonlAtomic(resolvePath(io, out), [...report.conversations, ...o.conversations.slice(subset.length)]);
    for (const f of report.failed) io.stderr(`simlens ${command}: ${o.input}: conversation ${f.id}: ${f.error}\n`);
    if (report.stopped) io.stderr(`simlens ${command}: stopped early: ${report.stopped}; rerun on ${out} to continue\n`);
    o.summarize({ report, annotator, services });
    return report.failed.length || report.stopped ? 1 : 0;
  } catch (err) {
    if (isIoError(err)) { io.stderr(`simlens ${command}: ${ioErrorMessage('write', out, err)}\n`); return 2; }
    throw err;
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
}
