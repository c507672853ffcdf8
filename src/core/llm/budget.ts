import { BudgetExceededError } from './errors';
import type { LlmBudgetConfig } from './config';

export interface BudgetSnapshot {
  /** HTTP requests sent (attempts, retries included; cache hits excluded). */
  requests: number;
  /** Tokens spent: as the endpoint reported them, or estimated for answers without `usage`. */
  tokens: number;
  maxRequests?: number;
  maxTokens?: number;
  exhausted: boolean;
  /** Calls answered from the response cache (no request, no cost). */
  cache_hits: number;
  /** Answers that came without `usage`; their tokens in `tokens` are estimated (4 characters a token). */
  usage_missing: number;
  /** Of `tokens`, the estimated ones. */
  estimated_tokens: number;
}

/**
 * A per-run allowance of HTTP requests and tokens shared by every role. `reserve(estimate)` is
 * called before each attempt with what the request may cost at most (its prompt's estimated tokens
 * plus max_tokens) and throws BudgetExceededError when the requests or the tokens spent plus every
 * reservation in flight would pass the allowance; `settle` replaces the reservation by the tokens
 * the endpoint reported (or an estimate when it reported none). So requests in flight together
 * cannot overshoot a token budget: a run ends within it unless the endpoint answers with more than
 * max_tokens. Cache hits cost nothing. Listeners learn once when the budget runs out, so a run can
 * stop cleanly instead of failing every remaining conversation.
 */
export class LlmBudget {
  private requests = 0;
  private tokens = 0;
  private reserved = 0;
  private exhausted = false;
  private cacheHits = 0;
  private usageMissing = 0;
  private estimatedTokens = 0;
  private readonly listeners: Array<(reason: string) => void> = [];

  constructor(readonly limits: LlmBudgetConfig = {}) {}

  /**
   * Counts one request and reserves `estimate` tokens for it, or throws when that would pass the
   * allowance. Returns the reservation to `settle`. A single request larger than a whole unspent
   * token budget is still let through (else nothing could ever run); the next one is refused.
   */
  reserve(estimate = 0): number {
    const { maxRequests, maxTokens } = this.limits;
    if (this.exhausted) this.exhaust('already spent');
    if (maxRequests !== undefined && this.requests >= maxRequests)
      this.exhaust(`request budget of ${maxRequests} spent`);
    const amount = Math.max(0, Math.ceil(estimate));
    if (maxTokens !== undefined) {
      const committed = this.tokens + this.reserved;
      if (committed >= maxTokens || (committed > 0 && committed + amount > maxTokens)) {
        this.exhaust(
          `token budget of ${maxTokens} reached (${this.tokens} used, ${this.reserved} reserved by requests in flight, next request up to ${amount})`,
        );
      }
    }
    this.requests++;
    this.reserved += amount;
    return amount;
  }

  /** Replaces a reservation by the tokens spent; `estimated` says the endpoint sent no usage. */
  settle(reservation: number, tokens: number, estimated: boolean): void {
    this.reserved = Math.max(0, this.reserved - reservation);
    if (Number.isFinite(tokens) && tokens > 0) this.tokens += tokens;
    if (estimated) {
      this.usageMissing++;
      if (Number.isFinite(tokens) && tokens > 0) this.estimatedTokens += tokens;
    }
  }

  /** Adds tokens outside a reservation (kept for callers that count on their own). */
  addTokens(n: number): void {
    if (Number.isFinite(n) && n > 0) this.tokens += n;
  }

  /** Counts a call answered from the cache. */
  cacheHit(): void {
    this.cacheHits++;
  }

  /** Called once, the first time a request is refused. */
  onExhausted(listener: (reason: string) => void): void {
    this.listeners.push(listener);
  }

  snapshot(): BudgetSnapshot {
    return {
      requests: this.requests,
      tokens: this.tokens,
      ...this.limits,
      exhausted: this.exhausted,
      cache_hits: this.cacheHits,
      usage_missing: this.usageMissing,
      estimated_tokens: this.estimatedTokens,
    };
  }

  private exhaust(reason: string): never {
    if (!this.exhausted) {
      this.exhausted = true;
      this.firstReason = reason;
      for (const l of this.listeners) l(reason);
    }
    throw new BudgetExceededError(`LLM budget exhausted: ${this.firstReason ?? reason}`);
  }

  private firstReason: string | undefined;
}
