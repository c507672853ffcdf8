/**
 * The one conversion of a file to another format, behind `simlens convert` and the editor's
 * "Convert to Conversation JSONL" (command and button): the input is imported as a stream
 * (importFileEach), every conversation is checked against the SimLens schema before it is written,
 * and a file output goes through the one atomic write (temporary file, fsync, rename). Memory
 * stays flat: nothing but the warnings is kept.
 */
import { writeSync } from 'node:fs';
import { writeAtomic } from '../atomicFile';
import { Conversation } from '../model';
import { createExporter, type Exporter } from '../export/index';
import { zodErrorMessage } from '../jsonl/zodIssues';
import { ImportError, type ImportWarning } from './errors';
import { importFileEach } from './index';

/** Where the converted text goes: a file (written atomically) or a sink taking it piece by piece. */
type ConversionOutput = { file: string } | { write(text: string): void };

interface ConversionOptions {
  /** Names the input in messages (as the user knows it). */
  origin: string;
  /** Forces the input format (already normalized); detected from the content otherwise. */
  from?: string;
  /** The output format's writer (default: canonical SimLens JSONL). */
  exporter?: Exporter;
  /** Any warning cancels the output: nothing is written (`written` false). */
  strict?: boolean;
  /** Called with each valid conversation, in order, before it is written. */
  each?: (conv: Conversation) => void;
  /** A file output's temporary path and descriptor, as soon as the file exists (signal handlers). */
  opened?: (tmp: string, fd: number) => void;
}

export interface ConversionResult {
  format: string;
  count: number;
  warnings: ImportWarning[];
  notes?: string[];
  /** False when `strict` found warnings: the output was not written (or, for a sink, not ended). */
  written: boolean;
}

/** An I/O error on the output side (creating, writing, syncing or renaming it), not on the input. */
export class OutputWriteError extends Error {
  constructor(override readonly cause: NodeJS.ErrnoException) {
    super(cause.message);
    this.name = 'OutputWriteError';
  }
}

/** Pieces of output are gathered up to this many characters per write. */
const FLUSH_CHARS = 1 << 20;

/** Buffered synchronous writes to a descriptor: flat memory, no backpressure to handle. */
class FdSink {
  private pending: string[] = [];
  private size = 0;
  constructor(private readonly fd: number) {}
  write(text: string): void {
    this.pending.push(text);
    this.size += text.length;
    if (this.size > FLUSH_CHARS) this.flush();
  }
  flush(): void {
    if (this.pending.length === 0) return;
    const buf = Buffer.from(this.pending.join(''), 'utf8');
    this.pending = [];
    this.size = 0;
    let done = 0;
    try {
      while (done < buf.length) done += writeSync(this.fd, buf, done, buf.length - done);
    } catch (e) {
      throw new OutputWriteError(e as NodeJS.ErrnoException);
    }
  }
}

/** Thrown inside the atomic write to leave the target untouched (strict mode found warnings). */
const CANCELLED = Symbol('cancelled');

/**
 * Converts `input` to `output`. Throws ImportError when the input cannot be imported, or when the
 * importer produced a conversation that fails the schema (nothing is written then); OutputWriteError
 * for an I/O error on the output; a read error of the input as it is.
 */
export async function convertFile(
  input: string,
  output: ConversionOutput,
  opts: ConversionOptions,
): Promise<ConversionResult> {
  const exporter = opts.exporter ?? createExporter('canonical');
  const run = async (put: (text: string) => void): Promise<ConversionResult> => {
    let n = 0;
    let invalid = 0;
    let firstInvalid = '';
    put(exporter.begin());
    const r = await importFileEach(
      input,
      (conv) => {
        n++;
        // Importers promise canonical conversations; check, so a bug there cannot write bad data.
        const check = Conversation.safeParse(conv);
        if (!check.success) {
          invalid++;
          if (!firstInvalid) firstInvalid = zodErrorMessage(`conversation ${n}`, check.error, conv);
          return;
        }
        opts.each?.(conv);
        put(exporter.conversation(conv));
      },
      { from: opts.from },
    );
    if (invalid > 0)
      throw new ImportError(
        opts.origin,
        `the ${r.format} importer produced ${invalid} conversation(s) that fail the SimLens schema (first: ${firstInvalid}); nothing was written. Please report this.`,
      );
    const result: ConversionResult = { format: r.format, count: r.count, warnings: r.warnings, written: false };
    if (r.notes) result.notes = r.notes;
    if (opts.strict && r.warnings.length > 0) return result;
    put(exporter.end());
    result.written = true;
    return result;
  };

  if ('write' in output) {
    const put = (text: string): void => {
      if (text !== '') output.write(text);
    };
    return run(put);
  }
  let result: ConversionResult | undefined;
  let importing = false;
  try {
    await writeAtomic(
      output.file,
      async (handle) => {
        importing = true;
        const sink = new FdSink(handle.fd);
        result = await run((text) => {
          if (text !== '') sink.write(text);
        });
        sink.flush();
        importing = false;
        if (!result.written) throw CANCELLED;
      },
      { opened: opts.opened },
    );
  } catch (e) {
    if (e === CANCELLED && result) return result;
    if (!importing && !(e instanceof OutputWriteError) && (e as NodeJS.ErrnoException)?.code !== undefined)
      throw new OutputWriteError(e as NodeJS.ErrnoException);
    throw e;
  }
  return result!;
}
