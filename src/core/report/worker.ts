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
import { CancelledError, computeReport, type ComputeContext } from './compute';
import type { Report } from './model';
import { runFidelity, type FidelityOptions } from './fidelity';
import type { WrittenReport } from './render/files';
import type { ReportSpec } from './specs';

/** The specs `computeReport` takes (the fidelity report runs simulations: `fidelity.ts`). */
type ComputedSpec = Exclude<ReportSpec, { kind: 'fidelity' }>;

/** What the asking side posts to the worker: a report spec, or a whole fidelity run without LLM services. */
type WorkerRequest = { cwd?: string; /** Fixed "generated" time, ms since the epoch (tests). */ now?: number } & (
  | { task: 'report'; spec: ComputedSpec }
  | { task: 'fidelity'; options: Omit<FidelityOptions, 'llm'> }
);

/** What the worker posts back. */
type WorkerReply =
  | { type: 'progress'; message: string; fraction?: number }
  | { type: 'done'; report: Report; files?: WrittenReport }
  | { type: 'failed'; message: string; name: string };

export interface WorkerOptions {
  /** The worker script: a bundle whose entry calls `serveReportWorker()` (dist/reportWorker.js). */
  file: string;
  /** Node options for the worker (tests load TypeScript with `['--import', 'tsx']`). */
  execArgv?: string[];
}

/**
 * Computes `spec` as `computeReport(spec, ctx)` does, in a worker thread. `ctx.loader` cannot cross
 * threads: a context with one is computed here, in this thread.
 */
export function computeReportInWorker(spec: ComputedSpec, ctx: ComputeContext, options: WorkerOptions): Promise<Report> {
  if (ctx.loader) return computeReport(spec, ctx);
  return inWorker({ task: 'report', spec, cwd: ctx.cwd, now: ctx.now?.().getTime() }, ctx, options).then((done) => done.report);
}

/**
 * Runs the fidelity pipeline as `runFidelity(opts, ctx)` does (simulations, the three pillars, the
 * written report), in a worker thread. LLM services cannot cross threads: with `opts.llm` (LLM
 * users or agents) it runs here, in this thread.
 */
export async function runFidelityInWorker(opts: FidelityOptions, ctx: ComputeContext, options: WorkerOptions): Promise<{ report: Report; files: WrittenReport }> {
  if (opts.llm || ctx.loader) return runFidelity(opts, ctx);
  const done = await inWorker({ task: 'fidelity', options: opts, cwd: ctx.cwd, now: ctx.now?.().getTime() }, ctx, options);
  return { report: done.report, files: done.files! };
}

function inWorker(request: WorkerRequest, ctx: ComputeContext, options: WorkerOptions): Promise<Extract<WorkerReply, { type: 'done' }>> {
  if (ctx.signal?.aborted) return Promise.reject(new CancelledError());
  return new Promise((resolve, reject) => {
    const worker = new Worker(options.file, { workerData: request, execArgv: options.execArgv, stdout: false, stderr: false });
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
      } else if (reply.type === 'done') {
        finish(() => resolve(reply));
      } else {
        const error = reply.name === 'CancelledError' ? new CancelledError() : new Error(reply.message);
        finish(() => reject(error));
      }
    });
    worker.on('error', (e) => finish(() => reject(e)));
    worker.on('exit', (code) => finish(() => reject(new Error(`the report worker stopped (exit code ${code}) before it finished`))));
  });
}

/** The worker's side: computes the request it was started with and posts the result. */
export function serveReportWorker(port: { postMessage(reply: WorkerReply): void }, request: WorkerRequest): Promise<void> {
  const ctx: ComputeContext = {
    cwd: request.cwd,
    progress: (message, fraction) => port.postMessage({ type: 'progress', message, fraction }),
    now: request.now === undefined ? undefined : () => new Date(request.now!),
  };
  const work: Promise<Extract<WorkerReply, { type: 'done' }>> =
    request.task === 'report'
      ? computeReport(request.spec, ctx).then((report) => ({ type: 'done', report }))
      : runFidelity(request.options, ctx).then((r) => ({ type: 'done', report: r.report, files: r.files }));
  return work.then(
    (done) => port.postMessage(done),
    (e: unknown) => port.postMessage({ type: 'failed', message: e instanceof Error ? e.message : String(e), name: e instanceof Error ? e.name : 'Error' }),
  );
}
