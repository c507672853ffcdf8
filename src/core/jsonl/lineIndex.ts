/**
 * Byte-offset line index of a JSONL file, built by streaming the file in chunks. The file is
 * never held as one string (or one buffer): memory is one read buffer plus 8 bytes per line for
 * the newline offsets and one bit per line for "this line ended in CRLF".
 *
 * Line model (shared by the reader, the writer, the editor and the language server):
 * - A line is the bytes between two "\n" (or the file start / end). Its *content* excludes the
 *   "\n" and a "\r" just before it. A last line without a final newline counts; nothing after a
 *   final "\n" is not a line (so "a\n" has one line and "" has none).
 * - A UTF-8 byte order mark at the start of the file is not part of line 0's content.
 * - A "\r" at the very end of a file without a final "\n" is treated as that line's ending too.
 */
import { open } from 'node:fs/promises';

const LF = 0x0a;
const CR = 0x0d;

/** Where each line of a file starts and ends, as byte offsets. */
export interface LineIndex {
  readonly path: string;
  /** File size in bytes when the index was built. */
  readonly size: number;
  /** File modification time (ms) when the index was built; the writer refuses a file whose size or mtime changed. */
  readonly mtimeMs: number;
  /** The file starts with a UTF-8 BOM (line 0's content starts after it). */
  readonly bom: boolean;
  /** Number of lines (see the line model above). */
  readonly lineCount: number;
  /** 0-based line i: byte offset where its content starts. */
  start(i: number): number;
  /** Byte offset just past line i's content (excludes "\n" and a preceding "\r"). */
  end(i: number): number;
  /** The 0-based line containing byte `offset` (a line's ending belongs to it); -1 when out of range. */
  lineAt(offset: number): number;
}

/** Options for building an index from a file. */
interface BuildLineIndexOptions {
  signal?: AbortSignal;
  /** Called after each chunk with bytes scanned so far and the file size. */
  onProgress?: (bytesRead: number, total: number) => void;
  /** Read size in bytes (default 4 MiB). */
  chunkSize?: number;
}

/**
 * Incremental newline scanner: feed it consecutive chunks of a file, then `finish`. Exposed so that
 * other readers (e.g. a streaming validator) can build an index as a side effect of one pass.
 */
class LineScanner {
  /** Offset of the "\n" ending line i (or the file size for an unterminated last line). */
  private breaks = new Float64Array(1024);
  /** Bit i set: line i's ending is "\r\n" (or a final lone "\r"). */
  private crBits = new Uint8Array(128);
  private count = 0;
  private consumed = 0;
  private lastByte = -1;
  private bomChecked = false;
  private bomBytes: number[] = [];
  bom = false;

  /** Scan the next chunk (bytes at file offsets [consumed, consumed + chunk.length)). */
  push(chunk: Uint8Array): void {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const base = this.consumed;
    if (!this.bomChecked) this.checkBom(buf);
    let pos = buf.indexOf(LF, 0);
    while (pos !== -1) {
      const prev = pos > 0 ? buf[pos - 1] : this.lastByte;
      // A "\r" that is part of the BOM region cannot happen (BOM bytes are not 0x0d).
      this.add(base + pos, prev === CR);
      pos = buf.indexOf(LF, pos + 1);
    }
    if (buf.length > 0) this.lastByte = buf[buf.length - 1];
    this.consumed += buf.length;
  }

  private checkBom(buf: Buffer): void {
    for (let i = 0; i < buf.length && this.bomBytes.length < 3; i++) this.bomBytes.push(buf[i]);
    if (this.bomBytes.length < 3) return;
    this.bomChecked = true;
    this.bom = this.bomBytes[0] === 0xef && this.bomBytes[1] === 0xbb && this.bomBytes[2] === 0xbf;
  }

  private add(breakOffset: number, cr: boolean): void {
    if (this.count === this.breaks.length) {
      const grown = new Float64Array(this.breaks.length * 2);
      grown.set(this.breaks);
      this.breaks = grown;
      const bits = new Uint8Array(grown.length >> 3);
      bits.set(this.crBits);
      this.crBits = bits;
    }
    this.breaks[this.count] = breakOffset;
    if (cr) this.crBits[this.count >> 3] |= 1 << (this.count & 7);
    this.count++;
  }

  /** Bytes scanned so far. */
  get bytesScanned(): number {
    return this.consumed;
  }

  /** Lines completed so far (terminated by "\n"). */
  get completeLines(): number {
    return this.count;
  }

  /** Close the scan and return the index. `size` defaults to the bytes scanned. */
  finish(path: string, mtimeMs: number, size = this.consumed): LineIndex {
    const bomLen = this.bom ? 3 : 0;
    const lastStart = this.count === 0 ? bomLen : this.breaks[this.count - 1] + 1;
    if (size > lastStart) {
      // An unterminated last line; a lone final "\r" is its ending.
      this.add(size, this.lastByte === CR);
    }
    const breaks = this.breaks.slice(0, this.count);
    const crBits = this.crBits.slice(0, (this.count >> 3) + 1);
    return new ArrayLineIndex(path, size, mtimeMs, this.bom, breaks, crBits);
  }
}

class ArrayLineIndex implements LineIndex {
  readonly lineCount: number;
  constructor(
    readonly path: string,
    readonly size: number,
    readonly mtimeMs: number,
    readonly bom: boolean,
    private readonly breaks: Float64Array,
    private readonly crBits: Uint8Array,
  ) {
    this.lineCount = breaks.length;
  }

  private check(i: number): void {
    if (!(i >= 0 && i < this.lineCount) || !Number.isInteger(i)) {
      throw new RangeError(`line index ${i} is out of range (the file has ${this.lineCount} lines)`);
    }
  }

  start(i: number): number {
    this.check(i);
    return i === 0 ? (this.bom ? 3 : 0) : this.breaks[i - 1] + 1;
  }

  end(i: number): number {
    this.check(i);
    const cr = (this.crBits[i >> 3] & (1 << (i & 7))) !== 0;
    const end = this.breaks[i] - (cr ? 1 : 0);
    return Math.max(end, this.start(i));
  }

  lineAt(offset: number): number {
    if (!(offset >= 0 && offset < this.size) || this.lineCount === 0) return -1;
    // First line whose break offset is >= offset.
    let lo = 0;
    let hi = this.lineCount - 1;
    if (offset > this.breaks[hi]) return -1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.breaks[mid] < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  const err = new Error('The operation was aborted');
  err.name = 'AbortError';
  return err;
}

/** Throws the signal's reason (or an AbortError) when it is aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortError(signal);
}

/**
 * Build the line index of a file by reading it in chunks (never as one string).
 * The size and mtime recorded are those seen when the file was opened; bytes appended while the
 * scan runs are ignored.
 */
export async function buildLineIndex(path: string, opts: BuildLineIndexOptions = {}): Promise<LineIndex> {
  const handle = await open(path, 'r');
  try {
    const stat = await handle.stat();
    if (stat.isDirectory()) throw Object.assign(new Error(`${path} is a directory`), { code: 'EISDIR' });
    const size = stat.size;
    const scanner = new LineScanner();
    const buf = Buffer.allocUnsafe(Math.max(1, Math.min(opts.chunkSize ?? 4 << 20, size || 1)));
    let offset = 0;
    while (offset < size) {
      throwIfAborted(opts.signal);
      const want = Math.min(buf.length, size - offset);
      const { bytesRead } = await handle.read(buf, 0, want, offset);
      if (bytesRead === 0) break; // truncated while reading
      scanner.push(buf.subarray(0, bytesRead));
      offset += bytesRead;
      opts.onProgress?.(offset, size);
    }
    return scanner.finish(path, stat.mtimeMs, offset);
  } finally {
    await handle.close();
  }
}

/** Index bytes already in memory (tests, small documents, the language server's open buffers). */
export function buildLineIndexFromBytes(bytes: Uint8Array, path = '<memory>', mtimeMs = 0): LineIndex {
  const scanner = new LineScanner();
  scanner.push(bytes);
  return scanner.finish(path, mtimeMs, bytes.length);
}
