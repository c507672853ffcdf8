/**
 * `computeReport` in a worker thread, so that a long computation (cross-validation, feature tables
 * of thousands of conversations) never blocks the process that asks for it: in VS Code that is the
 * extension host, shared with every other extension and with SimLens's own editor. Measured
 * (bench: `node dist/bench.js report-worker`): the longest pause of the asking thread's event loop
 * during a human-likeness or PLSA report of 4,146 + 4,000 conversations fell from 0.5–1 s to
 * 12–16 ms.
 *
 * The worker runs the very same `computeReport` and `runFidelity` (one code path with the CLI and
 * the tests); only the spec, the folder, the progress and the result cross the thread boundary.
 * Cancelling terminates the worker.
 */
import { Worker } from 'node:worker_threads';
import { isAbsolute, resolve } from 'node:path';
import { CancelledError, computeReport, type ComputeContext } from '../report/compute';
import type { Report } from '../report/model';
import { runFidelity, type FidelityOptions } from '../report/fidelity';
import type { WrittenReport } from '../report/render/files';
import type { ReportSpec } from '../report/specs';
import { diffRuns, type DiffOptions } from '../diff/run';
import type { DiffReport } from '../diff/model';
import { InputProblemError } from '../report/inputProblem';

/** The specs `computeReport` takes (the fidelity report runs simulations: `fidelity.ts`). */
type ComputedSpec = Exclude<ReportSpec, { kind: 'fidelity' }>;

/** What the asking side posts to the worker: a report spec, or a whole fidelity run without LLM services. */
type WorkerRequest = { cwd?: string; /** Fixed "generated" time, ms since the epoch (tests). */ now?: number } & (
  | { task: 'report'; spec: ComputedSpec }
  | { task: 'fidelity'; options: Omit<FidelityOptions, 'llm'> }
  /** The diff of two runs (src/core/diff), as `simlens diff` computes it. */
  | { task: 'diff'; a: string; b: string; options: Pick<DiffOptions, 'pairing' | 'seed' | 'resamples'> }
);

/** What the worker posts back. */
type WorkerReply =
  | { type: 'progress'; message: string; fraction?: number }
  | { type: 'done'; report: Report; files?: WrittenReport }
  | { type: 'diffDone'; diff: DiffReport }
  | { type: 'failed'; message: string; name: string };

interface WorkerOptions {
  /** The worker script: a bundle whose entry calls `serveReportWorker()` (dist/reportWorker.js). */
  file: string;
  /** Node options for the worker (tests load TypeScript with `['--import', 'tsx']`). */
  execArgv?: string[];
}

/**
 * Computes `spec` as `computeReport(spec, ctx)` does, in a worker thread. `ctx.loader` cannot cross
 * threads: a context with one is computed here, in this thread.
 */
export function computeReportInWorker(
  spec: ComputedSpec,
  ctx: ComputeContext,
  options: WorkerOptions,
): Promise<Report> {
  if (ctx.loader) return computeReport(spec, ctx);
  return inWorker({ task: 'report', spec, cwd: ctx.cwd, now: ctx.now?.().getTime() }, ctx, options).then(
    (done) => reportOf(done).report,
  );
}

/**
 * Runs the fidelity pipeline as `runFidelity(opts, ctx)` does (simulations, the three pillars, the
 * written report), in a worker thread. LLM services cannot cross threads: with `opts.llm` (LLM
 * users or agents) it runs here, in this thread.
 */
export async function runFidelityInWorker(
  opts: FidelityOptions,
  ctx: ComputeContext,
  options: WorkerOptions,
): Promise<{ report: Report; files: WrittenReport }> {
  if (opts.llm || ctx.loader) return runFidelity(opts, ctx);
  const done = await inWorker(
    { task: 'fidelity', options: opts, cwd: ctx.cwd, now: ctx.now?.().getTime() },
    ctx,
    options,
  );
  const r = reportOf(done);
  return { report: r.report, files: r.files! };
}

/**
 * `diffRuns(a, b, opts)` in a worker thread (the Compare Runs panel: a diff of 100,000 pairs takes
 * a minute of CPU, which must not be the extension host's). Paths are taken relative to `ctx.cwd`;
 * progress arrives as "Indexing run A" / "Comparing run B" with the fraction of both passes.
 */
export async function diffRunsInWorker(
  a: string,
  b: string,
  opts: Pick<DiffOptions, 'pairing' | 'seed' | 'resamples'>,
  ctx: ComputeContext,
  options: WorkerOptions,
): Promise<DiffReport> {
  const done = await inWorker({ task: 'diff', a, b, options: opts, cwd: ctx.cwd }, ctx, options);
  if (done.type !== 'diffDone') throw new Error('the report worker answered a diff with a report');
  return done.diff;
}

function reportOf(done: Extract<WorkerReply, { type: 'done' | 'diffDone' }>): Extract<WorkerReply, { type: 'done' }> {
  if (done.type !== 'done') throw new Error('the report worker answered a report with a diff');
  return done;
}

function inWorker(
  request: WorkerRequest,
  ctx: ComputeContext,
  options: WorkerOptions,
): Promise<Extract<WorkerReply, { type: 'done' | 'diffDone' }>> {
  if (ctx.signal?.aborted) return Promise.reject(new CancelledError());
  return new Promise((resolve, reject) => {
    const worker = new Worker(options.file, {
      workerData: request,
      execArgv: options.execArgv,
      stdout: false,
      stderr: false,
    });
    let settled = false;
    const finish = (done: () => void) => {
      if (settled) return;
      settled = true;
      ctx.signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      done();
    };
    const onAbort = () => finish(() => reject(new CancelledError()));
    ctx.signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (reply: WorkerReply) => {
      if (reply.type === 'progress') {
        if (!settled) ctx.progress?.(reply.message, reply.fraction);
      } else if (reply.type === 'done' || reply.type === 'diffDone') {
        finish(() => resolve(reply));
      } else {
        const error =
          reply.name === 'CancelledError'
            ? new CancelledError()
            : reply.name === 'InputProblemError'
              ? new InputProblemError(reply.message)
              : new Error(reply.message);
        finish(() => reject(error));
      }
    });
    worker.on('error', (e) => finish(() => reject(e)));
    worker.on('exit', (code) =>
      finish(() => reject(new Error(`the report worker stopped (exit code ${code}) before it finished`))),
    );
  });
}

/** The worker's side: computes the request it was started with and posts the result. */
export function serveReportWorker(
  port: { postMessage(reply: WorkerReply): void },
  request: WorkerRequest,
): Promise<void> {
  const ctx: ComputeContext = {
    cwd: request.cwd,
    progress: (message, fraction) => port.postMessage({ type: 'progress', message, fraction }),
    now: request.now === undefined ? undefined : () => new Date(request.now!),
  };
  const work: Promise<Extract<WorkerReply, { type: 'done' | 'diffDone' }>> =
    request.task === 'report'
      ? computeReport(request.spec, ctx).then((report) => ({ type: 'done', report }))
      : request.task === 'fidelity'
        ? runFidelity(request.options, ctx).then((r) => ({ type: 'done', report: r.report, files: r.files }))
        : diffRuns(resolvePath(request.cwd, request.a), resolvePath(request.cwd, request.b), {
            ...request.options,
            onProgress: (phase, done, total) =>
              ctx.progress?.(
                phase === 'A' ? 'Indexing run A' : 'Comparing run B with A',
                (phase === 'A' ? 0 : 0.5) + (total ? done / total : 1) / 2,
              ),
          }).then((diff) => ({ type: 'diffDone', diff }));
  return work.then(
    (done) => port.postMessage(done),
    (e: unknown) =>
      port.postMessage({
        type: 'failed',
        message: e instanceof Error ? e.message : String(e),
        name: e instanceof Error ? e.name : 'Error',
      }),
  );
}

function resolvePath(cwd: string | undefined, p: string): string {
  return isAbsolute(p) || !cwd ? p : resolve(cwd, p);
}
