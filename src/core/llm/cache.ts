/**
 * On-disk response cache. The key is the SHA-256 of the canonical request (endpoint, model,
 * messages, generation parameters incl. seed, prompt template version), so rerunning the same
 * configuration replays the same answers without a single request, and any change to the
 * prompt, its template or a parameter misses the cache. Entries hold no credentials: requests
 * carry none (the key travels only in the HTTP header).
 *
 * Layout: `<dir>/<first two hex>/<sha256>.json`, written to a temporary file and renamed, so a
 * crash never leaves a half-written entry and concurrent writers of one key are harmless.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../atomicFile';
import { canonicalJson, sha256 } from './canonical';

export interface CachedChat {
  kind: 'chat';
  text: string;
  finish_reason?: string;
  prompt_tokens?: number;
  completion_tokens?: number;
  request_id?: string;
  /**
   * The validation the answer passed before it was stored (validate.ts `validationName`, e.g.
   * "answer@1+user-reply@1"). Only validated answers are stored; an entry without it (older
   * caches, which stored failures too) is never replayed.
   */
  validation?: string;
}

export interface CachedEmbedding {
  kind: 'embedding';
  vectors: number[][];
  prompt_tokens?: number;
  request_id?: string;
}

type CachedResponse = CachedChat | CachedEmbedding;

interface CacheFile {
  format: 'simlens-llm-cache/1';
  key: string;
  created: string;
  request: unknown;
  response: CachedResponse;
}

/** The cache key of a request (any JSON value; key order does not matter). */
export function cacheKey(request: unknown): string {
  return sha256(canonicalJson(request));
}

export class LlmResponseCache {
  constructor(readonly dir: string) {}

  private file(key: string): string {
    return path.join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  /** The stored response, or undefined when absent or unreadable (a corrupt entry is a miss). */
  async get(key: string): Promise<CachedResponse | undefined> {
    let text: string;
    try {
      text = await fs.readFile(this.file(key), 'utf8');
    } catch {
      return undefined;
    }
    try {
      const parsed = JSON.parse(text) as CacheFile;
      return parsed.key === key ? parsed.response : undefined;
    } catch {
      return undefined;
    }
  }

  /** Stores a response with the request it answers (for people reading the cache folder). */
  async set(key: string, request: unknown, response: CachedResponse): Promise<void> {
    const file = this.file(key);
    await fs.mkdir(path.dirname(file), { recursive: true });
    const body: CacheFile = {
      format: 'simlens-llm-cache/1',
      key,
      created: new Date().toISOString(),
      request,
      response,
    };
    await writeFileAtomic(file, JSON.stringify(body));
  }
}
