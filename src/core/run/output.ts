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
