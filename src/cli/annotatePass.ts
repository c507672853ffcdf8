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

/** What `runAnnotationPass` needs from a command. */
export interface AnnotationPassOptions {
  command: string;
  /** The LLM role whose model names the annotator and whose concurrency is used. */
  role: LlmRole;
  io: CliIo;
  /** The command's flags (the LLM options are read from them). */
  flags: LlmFlagValues;
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
 * early (budget, Ctrl-C), 2 when the LLM services could not be set up or OUT could not be written.
 * Usage errors in the LLM options are thrown as `UsageError`.
 */
export async function runAnnotationPass(o: AnnotationPassOptions): Promise<number> {
  const { io, command, out } = o;
  const subset = o.limit !== undefined ? o.conversations.slice(0, Math.max(0, o.limit)) : o.conversations;
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  try {
    let services: LlmServices;
    try {
      services = await llmServicesFromFlags(o.flags, io, { outFile: out, signal: controller.signal, command });
    } catch (e) {
      if (e instanceof UsageError) throw e;
      io.stderr(`simlens ${command}: ${(e as Error).message}\n`);
      return 2;
    }
    services.budget.onExhausted(() => controller.abort());
    const annotator = o.annotatorFor(services.client(o.role).model);
    const report = await annotateAll(subset, (conv, i) => o.annotate(conv, services, i + 1), {
      concurrency: services.settings.roles[o.role].concurrency,
      skipAnnotator: o.force ? undefined : annotator,
      signal: controller.signal,
      onProgress: o.onProgress,
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
