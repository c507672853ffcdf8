/**
 * Recommenders ("agents") that simulated users talk to, by role: `local/` (`local-good`,
 * `local-bad`), `http.ts` (the researcher's own recommender) and `llm.ts` (`llm-good`, `llm-bad`,
 * built by src/core/run/llm.ts). `createAgent` builds the local and http ones.
 */
import { plainFeatures } from '../../catalog/features';
import type { Catalog, CatalogItem } from '../../catalog/item';
import type { Agent } from '../types';
import { Lexicon } from './local/lexicon';
import { LocalBadAgent } from './local/bad';
import { LocalGoodAgent } from './local/good';
import { HttpAgent } from './http';

export { LocalBadSession, BAD_BEHAVIOURS, type BadBehaviour } from './local/bad';
export { HttpAgent } from './http';
export { Lexicon } from './local/lexicon';

/** The local agent names `createAgent` accepts (besides http(s) URLs). */

/** What `createAgent` needs besides the spec. */
interface CreateAgentOptions {
  catalog: Catalog;
  /** http agent: per-request timeout (default 30 s). */
  timeoutMs?: number;
  /** http agent: extra request headers. */
  headers?: Record<string, string>;
  /** http agent: the run's hard abort (cancels requests in flight). */
  signal?: AbortSignal;
  /** http agent: the run's first stop (no new retry after a 429 once it is aborted). */
  stopRetries?: AbortSignal;
}

/**
 * Builds an agent from a spec: "local-good", "local-bad", or an http(s) URL (also accepted with
 * an "http:" prefix, the way agent names are recorded: "http:http://host/path").
 */
export function createAgent(spec: string, opts: CreateAgentOptions): Agent {
  const s = spec.trim();
  if (s === 'local-good') return new LocalGoodAgent(opts.catalog);
  if (s === 'local-bad') return new LocalBadAgent(opts.catalog);
  const url = /^http:https?:\/\//i.test(s) ? s.slice('http:'.length) : s;
  if (/^https?:\/\//i.test(url))
    return new HttpAgent(url, {
      timeoutMs: opts.timeoutMs,
      headers: opts.headers,
      signal: opts.signal,
      stopRetries: opts.stopRetries,
    });
  throw new Error(`unknown agent "${spec}": use local-good, local-bad, or an http(s) URL of your recommender`);
}

/**
 * What a simulated user may say it likes about an item besides its attribute values: the
 * catalog's plain features (`plainFeatures`) in which the local recommenders' lexicon reads
 * nothing (`Lexicon.readsNothing`: "four-way stretch" would read as spandex, "stacked heel" as
 * heels), so saying them changes no recommender's reading of what the user wants.
 */
export function sayableDetails(catalog: Catalog): (item: CatalogItem) => readonly string[] {
  // built on first use: a run whose user never praises a detail (an agenda user) builds no lexicon
  let lexicon: Lexicon | undefined;
  const memo = new WeakMap<CatalogItem, readonly string[]>();
  return (item) => {
    let out = memo.get(item);
    if (!out) {
      const reader = (lexicon ??= Lexicon.for(catalog));
      out = plainFeatures(catalog, item).filter((f) => reader.readsNothing(f));
      memo.set(item, out);
    }
    return out;
  };
}
