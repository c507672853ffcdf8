/**
 * Runs an LLM annotator (judge, discriminator) over many conversations with bounded concurrency.
 * Conversations that already carry the annotator's annotation are skipped (so rerunning on the
 * output resumes an interrupted pass); per-conversation failures are collected, not thrown, and
 * counted per reason by a FailureTally whose consecutive-failure policy stops the pass (a dead
 * endpoint should not be asked about every conversation). A spent budget, the stop signal or the
 * policy stops launching new work; calls in flight finish and their answers are kept (they are
 * paid for). Only the LLM services' own hard-abort signal cancels calls in flight.
 */
import type { Conversation, ConversationAnnotation } from '../model';
import { conversationId } from '../model';
import { FailureTally, type FailureCounts, type FailureReason } from '../failures';
import { isRunFatal } from './errors';
import { writeFileAtomic } from '../atomicFile';

interface AnnotateOptions {
  /** Conversations annotated at once (default 8). */
  concurrency?: number;
  /** Skip conversations that already have an annotation by this annotator. */
  skipAnnotator?: string;
  /** Stops launching new work; annotations in flight finish and are kept. */
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
  /** Stop after this many failed conversations in a row (0 or absent: never). */
  maxConsecutiveFailures?: number;
  /** The failure reason recorded for a conversation that could not be annotated (default judge_llm). */
  failureReason?: FailureReason;
}

export interface AnnotateFailure {
  index: number;
  id: string;
  error: string;
}

export interface AnnotateReport {
  /** The input with new annotations added (same order, same length). */
  conversations: Conversation[];
  annotated: number;
  skipped: number;
  failed: AnnotateFailure[];
  /** Failures per reason (same shape as a simulation manifest's). */
  failures: FailureCounts;
  /** Why the pass stopped before the end (budget spent, cancelled, too many failures in a row), if it did. */
  stopped?: string;
  /** What stopped it: the consecutive-failure policy, the stop signal, or a run-fatal error (budget spent, endpoint gone). */
  stoppedBy?: 'policy' | 'cancelled' | 'fatal';
  /** Latencies (ms) of the LLM calls behind the new annotations; they are not written into the annotations. */
  llmLatencies: number[];
}

/** The fields of a recorded LLM call that the answers alone determine (kept in an annotation's `llm_calls`). */
// Not finish_reason: a cache hit does not have it.
const REPRODUCIBLE_CALL_FIELDS = [
  'id',
  'role',
  'model',
  'cache_key',
  'template',
  'purpose',
  'prompt_tokens',
  'completion_tokens',
  'error',
] as const;

/**
 * An annotation as it is written: only what the model's answers determine, so the same input and
 * answers give the same bytes however the pass ran (one process or shards, cold or warm cache,
 * retries or not). The wall-clock `time`, the latencies, retry attempts, request ids, cache hits
 * and finish reasons (a cache hit has none) are left out; the call latencies are pushed to `latencies` (for a manifest's timings).
 */
function reproducibleAnnotation(annotation: ConversationAnnotation, latencies: number[] = []): ConversationAnnotation {
  const { time: _time, ...rest } = annotation as ConversationAnnotation & { llm_calls?: unknown };
  const calls = (rest as { llm_calls?: unknown }).llm_calls;
  if (Array.isArray(calls)) {
    (rest as { llm_calls?: unknown }).llm_calls = calls.map((call: unknown) => {
      if (!call || typeof call !== 'object') return call;
      const c = call as Record<string, unknown>;
      if (typeof c.latency_ms === 'number') latencies.push(c.latency_ms);
      const kept: Record<string, unknown> = {};
      for (const k of REPRODUCIBLE_CALL_FIELDS) if (c[k] !== undefined) kept[k] = c[k];
      return kept;
    });
  }
  return rest;
}

/** Annotates each conversation with `annotate(conv, index)`, replacing an older annotation by the same annotator. */
export async function annotateAll(
  conversations: readonly Conversation[],
  annotate: (conv: Conversation, index: number) => Promise<ConversationAnnotation>,
  opts: AnnotateOptions = {},
): Promise<AnnotateReport> {
  const out = conversations.slice();
  const report: AnnotateReport = {
    conversations: out,
    annotated: 0,
    skipped: 0,
    failed: [],
    failures: { failed: 0, agent_errors: 0, by_reason: {} },
    llmLatencies: [],
  };
  const tally = new FailureTally(opts.maxConsecutiveFailures ?? 0);
  const reason = opts.failureReason ?? 'judge_llm';
  const todo: number[] = [];
  for (let i = 0; i < out.length; i++) {
    if (opts.skipAnnotator && out[i].annotations?.some((a) => a.annotator === opts.skipAnnotator)) report.skipped++;
    else todo.push(i);
  }
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < todo.length && !report.stopped) {
      if (opts.signal?.aborted) {
        report.stopped ??= 'cancelled';
        report.stoppedBy ??= 'cancelled';
        break;
      }
      const i = todo[next++];
      try {
        const annotation = reproducibleAnnotation(await annotate(out[i], i), report.llmLatencies);
        const others = (out[i].annotations ?? []).filter((a) => a.annotator !== annotation.annotator);
        out[i] = { ...out[i], annotations: [...others, annotation] };
        report.annotated++;
        tally.success();
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (isRunFatal(error)) {
          report.stopped ??= message;
          report.stoppedBy ??= 'fatal';
        } else {
          report.failed.push({ index: i, id: conversationId(out[i], i + 1), error: message });
          tally.failure(reason, message);
          if (tally.stop) {
            report.stopped ??= tally.stop.message;
            report.stoppedBy ??= 'policy';
          }
        }
      }
      opts.onProgress?.(++done, todo.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency ?? 8, todo.length || 1)) }, worker));
  report.failures = tally.counts();
  return report;
}

/** Writes conversations as JSONL through a temporary file renamed over `file` (so `file` may be the input). */
export async function writeJsonlAtomic(file: string, rows: Iterable<unknown>): Promise<void> {
  await writeFileAtomic(
    file,
    (function* () {
      for (const row of rows) yield JSON.stringify(row) + '\n';
    })(),
  );
}
