/**
 * Run output files: append-only JSONL, one finished conversation per line, written in index order.
 * Resuming reads what is there (cutting away a last line that a crash left unfinished) and
 * reports which conversation indices are done.
 */
import {
  closeSync,
  createReadStream,
  existsSync,
  fstatSync,
  ftruncateSync,
  openSync,
  readSync,
  writeSync,
  writevSync,
} from 'node:fs';
import { writeAtomicSync } from '../atomicFile';
import { createInterface } from 'node:readline';
import { FailureTally, conversationFailure, type FailureCounts, type FailureReason } from '../failures';

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

/**
 * The failure reason a run line records (see `conversationFailure`): `metadata.error_kind`, else the
 * failed turn's `trace.error_kind`, else `simulator_error` for a bare `metadata.error`, and
 * `agent_malformed` for an agent failure whose kind the file does not say (as the run records an
 * agent error without a kind); undefined for a conversation that did not fail.
 */
export function lineFailure(value: unknown): FailureReason | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const v = value as { turns?: unknown; metadata?: unknown; outcome?: unknown };
  const metadata = v.metadata && typeof v.metadata === 'object' ? (v.metadata as Record<string, unknown>) : undefined;
  const turns = Array.isArray(v.turns)
    ? (v.turns as { trace?: { error?: string; error_kind?: string } }[]).filter((t) => t && typeof t === 'object')
    : [];
  const f = conversationFailure({ outcome: typeof v.outcome === 'string' ? v.outcome : undefined, turns, metadata });
  if (!f) return undefined;
  return f.reason ?? (f.agent ? 'agent_malformed' : 'simulator_error');
}

interface ExistingOutput {
  /** Indices of the conversations already in the file. */
  indices: Set<number>;
  lines: number;
  failed: number;
  /** The failed conversations per reason (`metadata.error_kind`; `simulator_error` when a line has none). */
  failures: FailureCounts;
  /** Bytes of an unfinished last line that were cut away. */
  truncatedBytes: number;
}

/** Reads a run's output for `--resume`: truncates a partial last line, then collects the indices. */
export async function readExistingOutput(path: string): Promise<ExistingOutput> {
  const result: ExistingOutput = {
    indices: new Set(),
    lines: 0,
    failed: 0,
    failures: { failed: 0, agent_errors: 0, by_reason: {} },
    truncatedBytes: 0,
  };
  const tally = new FailureTally();
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
    if (index === undefined)
      throw new Error(`${path}:${line}: field metadata.index is missing; this is not a SimLens run output`);
    if (result.indices.has(index)) throw new Error(`${path}:${line}: conversation index ${index} appears twice`);
    result.indices.add(index);
    result.lines++;
    const failure = lineFailure(value);
    if (failure) tally.failure(failure, '');
  }
  result.failures = tally.counts();
  result.failed = result.failures.failed;
  return result;
}

/** The byte range and conversation index of each line of a run output. */
function lineRanges(path: string): Array<{ index: number; start: number; end: number; failed: boolean }> {
  const fd = openSync(path, 'r');
  const out: Array<{ index: number; start: number; end: number; failed: boolean }> = [];
  try {
    const size = fstatSync(fd).size;
    const chunk = Buffer.alloc(1 << 20);
    let pos = 0;
    let carry: Buffer[] = [];
    let lineStart = 0;
    while (pos < size) {
      const n = readSync(fd, chunk, 0, Math.min(chunk.length, size - pos), pos);
      let from = 0;
      for (let nl = chunk.indexOf(10, from); nl >= 0 && nl < n; nl = chunk.indexOf(10, from)) {
        carry.push(Buffer.from(chunk.subarray(from, nl)));
        const text = Buffer.concat(carry).toString('utf8');
        carry = [];
        const end = pos + nl + 1;
        if (text.trim()) {
          const value = JSON.parse(text) as unknown;
          const index = lineIndexOf(value);
          if (index === undefined) throw new Error(`${path}: a line without metadata.index`);
          out.push({ index, start: lineStart, end, failed: lineFailure(value) !== undefined });
        }
        lineStart = end;
        from = nl + 1;
      }
      if (from < n) carry.push(Buffer.from(chunk.subarray(from, n)));
      pos += n;
    }
    return out;
  } finally {
    closeSync(fd);
  }
}

/** Rewrites `path` with the lines `keep` in the given order (a temporary file renamed over it). */
function rewriteLines(path: string, keep: ReadonlyArray<{ start: number; end: number }>): void {
  const src = openSync(path, 'r');
  try {
    writeAtomicSync(path, (dst) => {
      for (const r of keep) {
        const buf = Buffer.alloc(r.end - r.start);
        readSync(src, buf, 0, buf.length, r.start);
        let off = 0;
        while (off < buf.length) off += writeSync(dst, buf, off, buf.length - off);
      }
    });
  } finally {
    closeSync(src);
  }
}

/**
 * Puts a run output back in conversation-index order when a resume appended conversations that
 * belong before others (the gap a stopped run left): the same bytes as an uninterrupted run.
 * Returns true when the file was rewritten.
 */
export function sortRunOutput(path: string): boolean {
  if (!existsSync(path)) return false;
  const ranges = lineRanges(path);
  if (ranges.every((r, i) => i === 0 || ranges[i - 1].index < r.index)) return false;
  rewriteLines(
    path,
    ranges.slice().sort((a, b) => a.index - b.index),
  );
  return true;
}

/** Removes the failed conversations from a run output (`--retry-failed`): resume then runs them again. Returns how many. */
export function dropFailedLines(path: string): number {
  if (!existsSync(path)) return 0;
  truncatePartialLastLine(path);
  const ranges = lineRanges(path);
  const keep = ranges.filter((r) => !r.failed);
  if (keep.length === ranges.length) return 0;
  rewriteLines(path, keep);
  return ranges.length - keep.length;
}

/**
 * Writes finished conversations in a fixed order although they may finish out of order: results
 * wait in a small buffer until every earlier one is written. Each line is written with one
 * `writeSync` (so a crash can only leave the last line unfinished).
 */
export class OrderedWriter {
  private readonly fd: number;
  private readonly waiting = new Map<number, string | Buffer[]>();
  private position = 0;
  written = 0;

  /**
   * `order` lists the indices this writer will receive, in the order they must be written;
   * `onWrite` hears of each index once its line is on disk (so counts can follow the file).
   */
  constructor(
    path: string,
    private readonly order: readonly number[],
    private readonly onWrite?: (index: number) => void,
  ) {
    this.fd = openSync(path, 'a');
  }

  /**
   * Accepts the line of conversation `index` (a string without "\n", or the encoded line with its
   * "\n" as from `encodeConversationLine`) and writes everything that is now in order.
   */
  put(index: number, line: string | Buffer[]): void {
    this.waiting.set(index, line);
    while (this.position < this.order.length) {
      const next = this.order[this.position];
      const line = this.waiting.get(next);
      if (line === undefined) break;
      this.waiting.delete(next);
      if (typeof line === 'string') writeSync(this.fd, line + '\n');
      else writeBuffers(this.fd, line);
      this.position++;
      this.written++;
      this.onWrite?.(next);
    }
  }

  /** Lines received but not yet written (waiting for an earlier one). */
  get pending(): number {
    return this.waiting.size;
  }

  /**
   * Writes the lines still waiting for an earlier one (in their order), when the run ends without
   * that earlier one (stopped, cancelled): finished conversations are never discarded. The file
   * then has a gap that `--resume` fills; the resumed run puts the file back in index order
   * (`sortRunOutput`). Returns the number of lines written.
   */
  flushPending(): number {
    let n = 0;
    for (let p = this.position; p < this.order.length && this.waiting.size; p++) {
      const index = this.order[p];
      const line = this.waiting.get(index);
      if (line === undefined) continue;
      this.waiting.delete(index);
      if (typeof line === 'string') writeSync(this.fd, line + '\n');
      else writeBuffers(this.fd, line);
      this.written++;
      n++;
      this.onWrite?.(index);
    }
    return n;
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** Writes buffers in order with as few system calls as possible, handling short writes. */
function writeBuffers(fd: number, buffers: Buffer[]): void {
  let total = 0;
  for (const b of buffers) total += b.length;
  const done = buffers.length <= 1024 ? writevSync(fd, buffers) : 0;
  if (done === total) return;
  const rest = Buffer.concat(buffers).subarray(done);
  let off = 0;
  while (off < rest.length) off += writeSync(fd, rest, off, rest.length - off);
}

interface CachedItemJson {
  keys: string[];
  values: unknown[];
  json: string;
  bytes?: Buffer;
}

/** Recommended items seen before, keyed by their `attributes` object (local agents share one per catalog item). */
const itemJsonCache = new WeakMap<object, CachedItemJson>();

/**
 * The cached JSON of a recommended item when every own field is identical (===) to the cached
 * item's; a new entry when the item can be cached; else its JSON string.
 */
function itemEntry(item: unknown): CachedItemJson | string {
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
    if (same && i === cached.keys.length) return cached;
  }
  const json = JSON.stringify(item);
  if (Object.getPrototypeOf(rec) !== Object.prototype) return json;
  const keys = Object.keys(rec);
  const entry: CachedItemJson = { keys, values: keys.map((k) => rec[k]), json };
  itemJsonCache.set(attrs, entry);
  return entry;
}

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');
const NEWLINE = Buffer.from('\n');

type Part = string | CachedItemJson | Buffer;

/**
 * The pieces of `JSON.stringify(conversation)`: the text around the carousels, and each carousel
 * as brackets, commas and item entries. Undefined when the plain path must be taken (no carousel,
 * a toJSON, or a data string that looks like a marker).
 */
function lineParts(conversation: { turns: readonly unknown[] } & Record<string, unknown>): Part[] | undefined {
  const turns = conversation.turns;
  if (!Array.isArray(turns) || typeof conversation.toJSON === 'function') return undefined;
  const carousels: (CachedItemJson | string)[][] = [];
  const marked = turns.map((turn) => {
    const t = turn as Record<string, unknown> | null;
    if (!t || typeof t !== 'object' || !Array.isArray(t.recommendations) || typeof t.toJSON === 'function') return turn;
    const marker = `\u0000rec${carousels.length}\u0000`;
    carousels.push((t.recommendations as unknown[]).map(itemEntry));
    return { ...t, recommendations: marker };
  });
  if (carousels.length === 0) return undefined;
  const text = JSON.stringify({ ...conversation, turns: marked });
  // Each marker appears once, as the JSON string "\u0000recN\u0000" (NUL is always escaped). A data
  // string that looks like a marker makes the count differ: then take the plain path.
  let count = 0;
  for (let at = text.indexOf('\\u0000rec'); at >= 0; at = text.indexOf('\\u0000rec', at + 1)) count++;
  if (count !== carousels.length) return undefined;
  const parts: Part[] = [];
  let from = 0;
  for (let k = 0; k < carousels.length; k++) {
    const marker = `"\\u0000rec${k}\\u0000"`;
    const at = text.indexOf(marker, from);
    if (at < 0) return undefined;
    parts.push(text.slice(from, at), OPEN);
    carousels[k].forEach((item, i) => {
      if (i) parts.push(COMMA);
      parts.push(item);
    });
    parts.push(CLOSE);
    from = at + marker.length;
  }
  parts.push(text.slice(from));
  return parts;
}

/**
 * `JSON.stringify(conversation)`, byte for byte, faster: the carousels (most of a line's bytes, the
 * same items again and again) are serialised once per item and reused while the item object's
 * fields are identical. Anything unusual takes the plain path.
 */
export function serializeConversation(conversation: { turns: readonly unknown[] } & Record<string, unknown>): string {
  const parts = lineParts(conversation);
  if (!parts) return JSON.stringify(conversation);
  let out = '';
  for (const p of parts) out += typeof p === 'string' ? p : Buffer.isBuffer(p) ? p.toString('utf8') : p.json;
  return out;
}

/** The UTF-8 bytes of `serializeConversation(conversation) + "\n"`, reusing each cached item's encoding. */
export function encodeConversationLine(
  conversation: { turns: readonly unknown[] } & Record<string, unknown>,
): Buffer[] {
  const parts = lineParts(conversation);
  if (!parts) return [Buffer.from(JSON.stringify(conversation) + '\n', 'utf8')];
  const out: Buffer[] = [];
  for (const p of parts) {
    if (typeof p === 'string') {
      if (p) out.push(Buffer.from(p, 'utf8'));
    } else if (Buffer.isBuffer(p)) out.push(p);
    else out.push((p.bytes ??= Buffer.from(p.json, 'utf8')));
  }
  out.push(NEWLINE);
  return out;
}
