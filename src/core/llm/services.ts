/**
 * Everything a run needs to call LLMs, built once per run from settings: one client per role
 * sharing that role's concurrency limiter, one response cache, one budget, the prompt library,
 * and the run's abort signal. Simulators, agents, the judge and the discriminator take this.
 */
import * as path from 'node:path';
import { LlmBudget } from './budget';
import { LlmResponseCache } from './cache';
import { LlmClient, type RecordedLlmCall } from './client';
import { publicLlmSettings, type LlmRole, type LlmSettings } from './config';
import { ConcurrencyLimiter } from './limiter';
import { PromptLibrary } from './templates';

interface LlmServicesOptions {
  settings: LlmSettings;
  /** Used only in the Authorization header. */
  apiKey?: string;
  prompts?: PromptLibrary;
  /**
   * Hard abort: cancels every call, in flight or waiting. Pass only a signal that means "abandon
   * the work now" (e.g. a second Ctrl-C), never a run's "stop scheduling" signal, under which
   * conversations in flight must finish.
   */
  signal?: AbortSignal;
  /**
   * Stop retrying: once aborted, no new retry is sent (a wait before one ends at once); requests
   * in flight go on. The run's "stop scheduling" signal (first Ctrl-C, SIGTERM).
   */
  stopRetries?: AbortSignal;
  /** Sees every call (e.g. a progress display). */
  onCall?: (call: RecordedLlmCall) => void;
  /** Custom fetch (tests). */
  fetch?: typeof fetch;
  /** Jitter source (tests). */
  random?: () => number;
}

export class LlmServices {
  readonly settings: LlmSettings;
  readonly prompts: PromptLibrary;
  readonly budget: LlmBudget;
  readonly cache?: LlmResponseCache;
  readonly signal?: AbortSignal;
  private readonly clients = new Map<LlmRole, LlmClient>();
  readonly #options: LlmServicesOptions;
  /** Requests started but not yet on the wire, and the tasks waiting for that to reach 0. */
  private unsent = 0;
  private readonly idleTasks: Array<() => void> = [];
  private readonly sends = {
    started: () => {
      this.unsent++;
    },
    sent: () => {
      if (--this.unsent === 0 && this.idleTasks.length) setImmediate(() => this.runIdleTasks());
    },
  };

  constructor(options: LlmServicesOptions) {
    this.#options = options;
    this.settings = options.settings;
    this.prompts = options.prompts ?? new PromptLibrary();
    this.budget = new LlmBudget(options.settings.budget);
    this.cache = options.settings.cacheDir ? new LlmResponseCache(options.settings.cacheDir) : undefined;
    this.signal = options.signal;
  }

  /** Loads workspace prompt overrides from `settings.promptsDir`, then builds the services. */
  static async create(options: LlmServicesOptions): Promise<LlmServices> {
    const prompts = options.prompts ?? (await PromptLibrary.load(options.settings.promptsDir));
    return new LlmServices({ ...options, prompts });
  }

  /** The client of a role (one per role, so the role's concurrency limit holds across sessions). */
  client(role: LlmRole): LlmClient {
    let c = this.clients.get(role);
    if (!c) {
      const config = this.settings.roles[role];
      c = new LlmClient({
        role,
        config,
        apiKey: this.#options.apiKey,
        cache: this.cache,
        budget: this.budget,
        limiter: new ConcurrencyLimiter(config.concurrency),
        signal: this.signal,
        onCall: this.#options.onCall,
        recordPrompts: this.settings.recordPrompts,
        fetch: this.#options.fetch,
        random: this.#options.random,
        sends: this.sends,
        stopRetries: this.#options.stopRetries,
      });
      this.clients.set(role, c);
    }
    return c;
  }

  /**
   * Runs `task` once, as soon as every request started so far is on the wire: CPU-heavy
   * preparation not needed before the first answers (e.g. the search index the recommender needs
   * on its first turn) then overlaps the endpoint's latency instead of delaying every conversation
   * in flight. Only an optimisation: a task may never run (no request sent), and errors are
   * ignored (the real use meets them again).
   */
  whileWaiting(task: () => void): void {
    this.idleTasks.push(task);
  }

  private runIdleTasks(): void {
    if (this.unsent !== 0) return; // new requests started meanwhile: their send runs the tasks
    for (const task of this.idleTasks.splice(0)) {
      try {
        task();
      } catch {
        // see whileWaiting
      }
    }
  }

  /** True when an embeddings model is configured. */
  get hasEmbeddings(): boolean {
    return this.settings.roles.embeddings.model !== '';
  }

  /**
   * What the run manifest records about LLM use: per-role endpoint settings (no key), budget and
   * usage, the prompt template versions. Safe to write anywhere.
   */
  manifestInfo(usedTemplates?: readonly string[]): { prompt_template_version: string; llm: Record<string, unknown> } {
    return {
      prompt_template_version: this.prompts.manifestVersion(usedTemplates),
      llm: {
        ...publicLlmSettings(this.settings),
        usage: this.budget.snapshot(),
        prompt_templates: this.prompts.versions(),
      },
    };
  }
}

/** The default cache folder for a run writing `outFile`: `<dir of out>/.simlens-cache/llm`. */
export function defaultCacheDir(outFile: string): string {
  return path.join(path.dirname(path.resolve(outFile)), '.simlens-cache', 'llm');
}
