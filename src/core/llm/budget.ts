import { BudgetExceededError } from './errors';
import type { LlmBudgetConfig } from './config';

export interface BudgetSnapshot {
  requests: number;
  tokens: number;
  maxRequests?: number;
  maxTokens?: number;
  exhausted: boolean;
}

/**
 * A per-run allowance of HTTP requests and tokens shared by every role. `reserve()` is called before
 * each attempt and throws BudgetExceededError once the allowance is spent; tokens are added after
 * each response. Cache hits cost nothing. Listeners learn once when the budget runs out, so a run
 * can stop cleanly instead of failing every remaining conversation.
 */
export class LlmBudget {
  private requests = 0;
  private tokens = 0;
  private exhausted = false;
  private readonly listeners: Array<(reason: string) => void> = [];

  constructor(readonly limits: LlmBudgetConfig = {}) {}

  /** Counts one request, or throws when none is left. */
  reserve(): void {
    const { maxRequests, maxTokens } = this.limits;
    if (maxRequests !== undefined && this.requests >= maxRequests) this.exhaust(`request budget of ${maxRequests} spent`);
    if (maxTokens !== undefined && this.tokens >= maxTokens) this.exhaust(`token budget of ${maxTokens} spent (${this.tokens} used)`);
    this.requests++;
  }

  /** Adds the tokens an endpoint reported for one response. */
  addTokens(n: number): void {
    if (Number.isFinite(n) && n > 0) this.tokens += n;
  }

  /** Called once, the first time a request is refused. */
  onExhausted(listener: (reason: string) => void): void {
    this.listeners.push(listener);
  }

  snapshot(): BudgetSnapshot {
    return { requests: this.requests, tokens: this.tokens, ...this.limits, exhausted: this.exhausted };
  }

  private exhaust(reason: string): never {
    if (!this.exhausted) {
      this.exhausted = true;
      for (const l of this.listeners) l(reason);
    }
    throw new BudgetExceededError(`LLM budget exhausted: ${reason}`);
  }
}
