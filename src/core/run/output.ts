/**
 * Run output files: append-only JSONL, one finished conversation per line, written in index order.
 * Resuming reads what is there (cutting away a last line that a crash left unfinished) and
 * reports which conversation indices are done.
 */
import { closeSync, createReadStream, existsSync, fstatSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import { createInterface } from 'node:readline';

/** Yields the lines of a text file (without "\n"), 1-based line numbers. */
export async function* readLines(path: string): AsyncGenerator<{ text: string; line: number }> {
  const rl = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let line = 0;
  try {
    for await (const text of rl) {
      line++;
      yield { text, line };
    }
  } finally {
    rl.close();
  }
}

/**
 * Cuts a last line without its "\n" off the file (what an interrupted write leaves). Returns the
 * number of bytes removed.
 */
export function truncatePartialLastLine(path: string): number {
  const fd = openSync(path, 'r+');
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return 0;
    const chunk = Buffer.alloc(65536);
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - chunk.length);
      const n = readSync(fd, chunk, 0, end - start, start);
      const nl = chunk.subarray(0, n).lastIndexOf(10);
      if (nl >= 0) {
        const keep = start + nl + 1;
        if (keep < size) ftruncateSync(fd, keep);
        return size - keep;
      }
      end = start;
    }
    ftruncateSync(fd, 0);
    return size;
  } finally {
    closeSync(fd);
  }
}

/** The conversation index a run line carries in `metadata.index`, or undefined. */
export function lineIndexOf(value: unknown): number | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const meta = (value as { metadata?: unknown }).metadata;
  if (!meta || typeof meta !== 'object') return undefined;
  const i = (meta as { index?: unknown }).index;
  return typeof i === 'number' && Number.isInteger(i) && i >= 0 ? i : undefined;
}

export interface ExistingOutput {
  /** Indices of the conversations already in the file. */
  indices: Set<number>;
  lines: number;
  failed: number;
  /** Bytes of an unfinished last line that were cut away. */
  truncatedBytes: number;
}

/** Reads a run's output for `--resume`: truncates a partial last line, then collects the indices. */
export async function readExistingOutput(path: string): Promise<ExistingOutput> {
  const result: ExistingOutput = { indices: new Set(), lines: 0, failed: 0, truncatedBytes: 0 };
  if (!existsSync(path)) return result;
  result.truncatedBytes = truncatePartialLastLine(path);
  for await (const { text, line } of readLines(path)) {
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new Error(`${path}:${line}: not valid JSON (${(err as Error).message}); cannot resume from a damaged file`);
    }
    const index = lineIndexOf(value);
    if (index === undefined) throw new Error(`${path}:${line}: field metadata.index is missing; this is not a SimLens run output`);
    if (result.indices.has(index)) throw new Error(`${path}:${line}: conversation index ${index} appears twice`);
    result.indices.add(index);
    result.lines++;
    const meta = (value as { metadata?: Record<string, unknown> }).metadata;
    if (meta && meta.error !== undefined) result.failed++;
  }
  return result;
}

/**
 * Writes finished conversations in a fixed order although they may finish out of order: results
 * wait in a small buffer until every earlier one is written. Each line is written with one
 * `writeSync` (so a crash can only leave the last line unfinished).
 */
export class OrderedWriter {
  private readonly fd: number;
  private readonly waiting = new Map<number, string>();
  private position = 0;
  written = 0;

  /** `order` lists the indices this writer will receive, in the order they must be written. */
  constructor(path: string, private readonly order: readonly number[]) {
    this.fd = openSync(path, 'a');
  }

  /** Accepts the line of conversation `index` and writes everything that is now in order. */
  put(index: number, line: string): void {
    this.waiting.set(index, line);
    while (this.position < this.order.length) {
      const next = this.order[this.position];
      const text = this.waiting.get(next);
      if (text === undefined) break;
      this.waiting.delete(next);
      writeSync(this.fd, text + '\n');
      this.position++;
      this.written++;
    }
  }

  /** Lines received but not yet written (waiting for an earlier one). */
  get pending(): number {
    return this.waiting.size;
  }

  close(): void {
    closeSync(this.fd);
  }
}

interface CachedItemJson {
  keys: string[];
  values: unknown[];
  json: string;
}

/** Recommended items seen before, keyed by their `attributes` object (local agents share one per catalog item). */
const itemJsonCache = new WeakMap<object, CachedItemJson>();

/** JSON of one recommended item: from the cache when every own field is identical (===) to the cached item's. */
function itemJson(item: unknown): string {
  if (!item || typeof item !== 'object') return JSON.stringify(item);
  const rec = item as Record<string, unknown>;
  const attrs = rec.attributes;
  if (!attrs || typeof attrs !== 'object') return JSON.stringify(item);
  const cached = itemJsonCache.get(attrs);
  if (cached) {
    let i = 0;
    let same = true;
    for (const k in rec) {
      if (i >= cached.keys.length || cached.keys[i] !== k || cached.values[i] !== rec[k]) {
        same = false;
        break;
      }
      i++;
    }
    if (same && i === cached.keys.length) return cached.json;
  }
  const json = JSON.stringify(item);
  if (Object.getPrototypeOf(rec) === Object.prototype) {
    const keys = Object.keys(rec);
    itemJsonCache.set(attrs, { keys, values: keys.map((k) => rec[k]), json });
  }
  return json;
}

/**
 * `JSON.stringify(conversation)`, byte for byte, faster: the carousels (most of a line's bytes, the
 * same items again and again) are serialised once per item and reused while the item object's
 * fields are identical. Anything unusual (a toJSON, a non-array carousel) takes the plain path.
 */
export function serializeConversation(conversation: { turns: readonly unknown[] } & Record<string, unknown>): string {
  const turns = conversation.turns;
  if (!Array.isArray(turns)) return JSON.stringify(conversation);
  const carousels: string[] = [];
  const marked = turns.map((turn) => {
    const t = turn as Record<string, unknown> | null;
    if (!t || typeof t !== 'object' || !Array.isArray(t.recommendations) || typeof t.toJSON === 'function') return turn;
    const marker = `\u0000rec${carousels.length}\u0000`;
    carousels.push(`[${(t.recommendations as unknown[]).map(itemJson).join(',')}]`);
    return { ...t, recommendations: marker };
  });
  if (carousels.length === 0 || typeof conversation.toJSON === 'function') return JSON.stringify(conversation);
  const text = JSON.stringify({ ...conversation, turns: marked });
  // Each marker appears exactly once, as the JSON string "\u0000recN\u0000" (NUL is always escaped).
  const parts = text.split(/"\\u0000rec(\d+)\\u0000"/);
  // A data string equal to a marker would add a match: then take the plain path.
  if (parts.length !== 2 * carousels.length + 1) return JSON.stringify(conversation);
  for (let i = 1, k = 0; i < parts.length; i += 2, k++) if (Number(parts[i]) !== k) return JSON.stringify(conversation);
  let out = parts[0];
  for (let i = 1; i < parts.length; i += 2) out += carousels[Number(parts[i])] + parts[i + 1];
  return out;
}
