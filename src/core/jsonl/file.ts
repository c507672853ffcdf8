/**
 * Random access to a JSONL file of any size: an index of line offsets, then lines read (and
 * parsed) only when asked for. Also the streaming validator used by `simlens validate`.
 */
import { DuplicateIds } from './duplicateIds';
import { open, type FileHandle, stat } from 'node:fs/promises';
import { buildLineIndex, throwIfAborted, type LineIndex } from './lineIndex';
import { decodeLine, parseConversationText, type LineError, type ParseOptions, type ParsedLine } from './parse';
import { forEachLine } from './stream';

/** Options for opening or validating a file. */
interface JsonlOpenOptions {
  signal?: AbortSignal;
  /** Progress while the index is built: bytes scanned and file size. */
  onProgress?: (b: number, t: number) => void;
}

/** Parses decoded bytes of line i (0-based), merging decode warnings into the result. */
export function parseLineBytes(bytes: Uint8Array, i: number, opts?: ParseOptions): ParsedLine {
  const line = i + 1;
  const { text, errors: decodeWarnings } = decodeLine(bytes, line);
  const parsed = parseConversationText(text, line, opts);
  if (decodeWarnings.length === 0 || parsed.kind === 'blank') return parsed;
  if (parsed.kind === 'valid') return { ...parsed, warnings: [...decodeWarnings, ...parsed.warnings] };
  return { ...parsed, errors: [...decodeWarnings, ...parsed.errors] };
}

/** An open JSONL file with a line index; lines are read from disk on demand. */
export class JsonlFile {
  private constructor(
    readonly index: LineIndex,
    private readonly handle: FileHandle,
  ) {}

  /** Opens `path` and indexes it (streaming; `onProgress` reports bytes scanned). */
  static async open(path: string, opts: JsonlOpenOptions = {}): Promise<JsonlFile> {
    const index = await buildLineIndex(path, opts);
    const handle = await open(path, 'r');
    return new JsonlFile(index, handle);
  }

  get path(): string {
    return this.index.path;
  }

  /** Number of lines. */
  get lineCount(): number {
    return this.index.lineCount;
  }

  /** Exact bytes of line i (0-based) without its line ending (and without the BOM on line 0). */
  async readRaw(i: number): Promise<Buffer> {
    const start = this.index.start(i);
    const len = this.index.end(i) - start;
    return this.readRange(start, len);
  }

  private async readRange(start: number, len: number): Promise<Buffer> {
    const buf = Buffer.allocUnsafe(len);
    let done = 0;
    while (done < len) {
      const { bytesRead } = await this.handle.read(buf, done, len - done, start + done);
      if (bytesRead === 0)
        throw new Error(`${this.path}: the file is shorter than when it was indexed (it changed on disk)`);
      done += bytesRead;
    }
    return buf;
  }

  /** Line i decoded as UTF-8 (invalid bytes become U+FFFD). */
  async readText(i: number): Promise<string> {
    return decodeLine(await this.readRaw(i), i + 1).text;
  }

  /** Line i parsed and validated. */
  async parseLine(i: number): Promise<ParsedLine> {
    return parseLineBytes(await this.readRaw(i), i);
  }

  /**
   * Lines [from, from + count) with one read of the byte range (count is clipped at the end of the
   * file). The returned buffers are views into one allocation.
   */
  async readLines(from: number, count: number): Promise<Buffer[]> {
    const last = Math.min(from + count, this.index.lineCount) - 1;
    if (last < from) return [];
    const base = this.index.start(from);
    const all = await this.readRange(base, this.index.end(last) - base);
    const out: Buffer[] = [];
    for (let i = from; i <= last; i++) out.push(all.subarray(this.index.start(i) - base, this.index.end(i) - base));
    return out;
  }

  /** Lines [from, from + count) parsed. */
  async parseLines(from: number, count: number): Promise<ParsedLine[]> {
    const raw = await this.readLines(from, count);
    return raw.map((bytes, k) => parseLineBytes(bytes, from + k));
  }

  /** True when the file's size or mtime differ from when the index was built. */
  async changedOnDisk(): Promise<boolean> {
    try {
      const s = await stat(this.path);
      return s.size !== this.index.size || s.mtimeMs !== this.index.mtimeMs;
    } catch {
      return true;
    }
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}

/**
 * The first `count` lines of a file, read from the start without indexing the rest: what a viewer
 * can show while the index of a large file is still being built.
 */
export async function readFirstLines(
  path: string,
  count: number,
  opts: { signal?: AbortSignal } = {},
): Promise<Buffer[]> {
  const out: Buffer[] = [];
  if (count <= 0) return out;
  const stop = new AbortController();
  const onAbort = () => stop.abort(opts.signal?.reason);
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await forEachLine(
      path,
      (bytes) => {
        if (out.length >= count) return;
        out.push(Buffer.from(bytes));
        if (out.length >= count) stop.abort(STOP);
      },
      { signal: stop.signal, chunkSize: 256 << 10 },
    );
  } catch (err) {
    if (err !== STOP) throw err;
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
  }
  return out;
}
const STOP = new Error('enough lines');

const NO_ORDER: ParseOptions = { preserveKeyOrder: false };

/** Result of validating a whole file. */
interface ValidationReport {
  file: string;
  /** Lines in the file (blank ones included). */
  lines: number;
  /** Valid conversations. */
  conversations: number;
  blank: number;
  /** Lines that are not valid conversations. */
  invalid: number;
  /** Every problem, in line order: errors and (severity "warning") warnings such as invalid UTF-8. Capped by `maxErrors`. */
  errors: LineError[];
  /** Problems of severity "error" found, including any beyond `maxErrors`. */
  errorCount: number;
  /** Problems of severity "warning" found, including any beyond `maxErrors`. */
  warningCount: number;
}

/** Options for `validateFile`. */
interface ValidateOptions {
  signal?: AbortSignal;
  /** Bytes done and file size. */
  onProgress?: (done: number, total: number) => void;
  /** Keep at most this many entries in `errors` (all are still counted); default: all. */
  maxErrors?: number;
}

/**
 * Validates every line of a file in one streaming pass (memory stays bounded by the longest line).
 * `onProgress` reports bytes done and the file size.
 */
export async function validateFile(path: string, opts: ValidateOptions = {}): Promise<ValidationReport> {
  const report: ValidationReport = {
    file: path,
    lines: 0,
    conversations: 0,
    blank: 0,
    invalid: 0,
    errors: [],
    errorCount: 0,
    warningCount: 0,
  };
  const max = opts.maxErrors ?? Infinity;
  const keep = (problems: LineError[]): void => {
    for (const p of problems) {
      if (p.severity === 'error') report.errorCount++;
      else report.warningCount++;
      if (report.errors.length < max) report.errors.push(p);
    }
  };
  const ids = new DuplicateIds();
  const result = await forEachLine(
    path,
    (bytes, i) => {
      const parsed = parseLineBytes(bytes, i, NO_ORDER);
      if (parsed.kind === 'blank') report.blank++;
      else if (parsed.kind === 'valid') {
        report.conversations++;
        const id = parsed.conversation.id;
        const dup = typeof id === 'string' ? ids.check(id, parsed.line) : undefined;
        if (dup) keep([{ line: parsed.line, column: 1, path: 'id', message: dup, severity: 'warning' }]);
        if (parsed.warnings.length) keep(parsed.warnings);
      } else {
        report.invalid++;
        keep(parsed.errors);
      }
    },
    { signal: opts.signal, onProgress: opts.onProgress },
  );
  throwIfAborted(opts.signal);
  report.lines = result.lines;
  return report;
}
