/**
 * Reading input files for the importers: line by line for JSONL (a stream of bytes split on LF,
 * each line decoded on its own, so files of any size work and invalid UTF-8 is reported with its
 * line), or whole for documents (JSON, CSV), with a BOM skipped and invalid UTF-8 reported.
 */
import { createReadStream } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { ImportError, type ImportWarning } from './errors';

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lenient = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** Decodes bytes as UTF-8; invalid sequences become U+FFFD and `invalid` is true. */
function decodeUtf8(bytes: Uint8Array): { text: string; invalid: boolean } {
  try {
    return { text: strict.decode(bytes), invalid: false };
  } catch {
    return { text: lenient.decode(bytes), invalid: true };
  }
}

function checkNotUtf16(head: Uint8Array, origin: string): void {
  if (head.length >= 2 && ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff))) {
    throw new ImportError(origin, 'the file is UTF-16 encoded; save it as UTF-8 and try again');
  }
}

function stripBom(bytes: Uint8Array): Uint8Array {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
}

/** Reads up to `maxBytes` from the start of a file, decoded (BOM removed). `complete` = the whole file fit. */
export async function readPrefix(
  path: string,
  maxBytes = 1 << 20,
): Promise<{ text: string; complete: boolean; bytes: Uint8Array }> {
  const fh = await open(path, 'r');
  try {
    const size = (await fh.stat()).size;
    const len = Math.min(size, maxBytes);
    const buf = Buffer.alloc(len);
    let got = 0;
    while (got < len) {
      const { bytesRead } = await fh.read(buf, got, len - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    const bytes = buf.subarray(0, got);
    checkNotUtf16(bytes, path);
    // A prefix may end inside a multi-byte character: decode leniently.
    return { text: lenient.decode(stripBom(bytes)), complete: got >= size, bytes };
  } finally {
    await fh.close();
  }
}

/** Reads a whole file as UTF-8 text (BOM removed); invalid bytes become U+FFFD with a warning. */
export async function readWholeText(path: string, warnings: ImportWarning[]): Promise<string> {
  const bytes = await readFile(path);
  checkNotUtf16(bytes, path);
  const { text, invalid } = decodeUtf8(stripBom(bytes));
  if (invalid)
    warnings.push({ message: 'the file contains bytes that are not valid UTF-8; they were replaced with U+FFFD' });
  return text;
}

/**
 * Calls `onLine(text, lineNumber)` for every line of a file (1-based; CR before LF removed; a
 * BOM on line 1 removed; a last line without LF included). Invalid UTF-8 on a line is replaced
 * and reported as a warning for that line. Streams: memory stays at one line plus one chunk.
 */
export async function forEachFileLine(
  path: string,
  onLine: (text: string, line: number, cutOff: boolean) => void,
  warnings: ImportWarning[],
): Promise<void> {
  let pending: Buffer[] = [];
  let line = 0;
  let first = true;
  const emit = (bytes: Uint8Array, cutOff = false): void => {
    line++;
    let b = bytes;
    if (first) {
      checkNotUtf16(b, path);
      b = stripBom(b);
      first = false;
    }
    if (b.length && b[b.length - 1] === 0x0d) b = b.subarray(0, b.length - 1);
    const { text, invalid } = decodeUtf8(b);
    if (invalid)
      warnings.push({
        line,
        message: 'the line contains bytes that are not valid UTF-8; they were replaced with U+FFFD',
      });
    onLine(text, line, cutOff);
  };
  const stream = createReadStream(path, { highWaterMark: 1 << 20 });
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl === -1) break;
      const piece = chunk.subarray(start, nl);
      if (pending.length) {
        pending.push(piece);
        emit(Buffer.concat(pending));
        pending = [];
      } else emit(piece);
      start = nl + 1;
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
  }
  if (pending.length) {
    const rest = Buffer.concat(pending);
    if (rest.length) emit(rest, true);
  }
}

/**
 * Splits in-memory text into lines the same way (for importText). `cutOff` is true for a last line
 * without a line break after it (both readers): where it does not parse, the input looks truncated.
 */
export function forEachTextLine(text: string, onLine: (text: string, line: number, cutOff: boolean) => void): void {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let start = 0;
  let line = 0;
  while (start <= body.length) {
    let nl = body.indexOf('\n', start);
    if (nl === -1) nl = body.length;
    if (nl === body.length && start === body.length) break; // no trailing empty line after a final LF
    let s = body.slice(start, nl);
    if (s.endsWith('\r')) s = s.slice(0, -1);
    line++;
    onLine(s, line, nl === body.length);
    start = nl + 1;
  }
}
