/**
 * How a run is stopped, in two stages, the same for every shell: the CLI's first Ctrl-C or
 * SIGTERM and VS Code's Cancel are `request()` #1, the second Ctrl-C (or "Abort" in VS Code) is #2.
 *
 * 1. stop: no new conversation is scheduled and no new retry is sent (LLM calls and their waits
 *    fail at once as "not retried: the run is stopping"); requests in flight finish and the
 *    conversations that complete are written; the manifest says `cancelled`.
 * 2. abort: requests in flight are cancelled too; conversations cut short are not written
 *    (`--resume` redoes them).
 *
 * `runOptions()` goes to `runSimulation`, `environmentOptions()` to `prepareEnvironment`, `llmSignals()`
 * to `LlmServices.create` (both shells build their services through it), so a shell cannot pass one
 * signal and forget the other.
 */
type RunStopStage = 'running' | 'stopping' | 'aborted';

export class RunStop {
  readonly #stop = new AbortController();
  readonly #abort = new AbortController();

  /** Stop scheduling and retrying (stage 1; also aborted by stage 2). */
  get signal(): AbortSignal {
    return this.#stop.signal;
  }

  /** Hard abort (stage 2): cancels requests in flight. */
  get abortSignal(): AbortSignal {
    return this.#abort.signal;
  }

  get stage(): RunStopStage {
    return this.#abort.signal.aborted ? 'aborted' : this.#stop.signal.aborted ? 'stopping' : 'running';
  }

  /** A Ctrl-C, SIGTERM or Cancel: the first stops the run, any later one aborts it. Returns the new stage. */
  request(): RunStopStage {
    if (!this.#stop.signal.aborted) this.#stop.abort();
    else this.#abort.abort();
    return this.stage;
  }

  /** Both stages at once (a computation whose result is thrown away on Cancel). */
  abortNow(): void {
    this.#stop.abort();
    this.#abort.abort();
  }

  /** The options of `runSimulation` that carry the two stages. */
  runOptions(): { signal: AbortSignal; abort: AbortSignal } {
    return { signal: this.#stop.signal, abort: this.#abort.signal };
  }

  /** The options of `prepareEnvironment` that carry the two stages (when the environment is built before the run). */
  environmentOptions(): { signal: AbortSignal; stopRetries: AbortSignal } {
    return { signal: this.#abort.signal, stopRetries: this.#stop.signal };
  }

  /** The options of `LlmServices.create` that carry the two stages. */
  llmSignals(): { signal: AbortSignal; stopRetries: AbortSignal } {
    return { signal: this.#abort.signal, stopRetries: this.#stop.signal };
  }
}
