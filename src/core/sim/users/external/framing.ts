/**
 * The Language Server Protocol's base framing, as `vscode-jsonrpc` writes it: `Content-Length: N`
 * (optionally `Content-Type: ...`), CRLF, CRLF, then N bytes of UTF-8 JSON. Written here rather than
 * taken from vscode-jsonrpc because a simulator that prints garbage or logs to stdout must be reported
 * at once with what it printed (vscode-jsonrpc waits for a header end that may never come).
 * Compatibility with vscode-jsonrpc's reader and writer is checked in test/unit/sim/externalFraming.test.ts.
 */

/** One framed message. */
export function encodeFrame(message: unknown): Buffer {
  // One buffer, one write: header and body written into the same allocation (no concat copy).
  const json = JSON.stringify(message);
  const length = Buffer.byteLength(json, 'utf8');
  const header = `Content-Length: ${length}\r\n\r\n`;
  const frame = Buffer.allocUnsafe(header.length + length);
  frame.write(header, 0, 'ascii');
  frame.write(json, header.length, 'utf8');
  return frame;
}

/** Why the byte stream cannot be read as framed messages. */
export class FramingError extends Error {
  constructor(
    message: string,
    readonly excerpt: string,
  ) {
    super(message);
    this.name = 'FramingError';
  }
}

/** Up to `max` characters of bytes, with control characters escaped (safe for a terminal and a log). */
export function printableExcerpt(bytes: Buffer | string, max = 80): string {
  const text = typeof bytes === 'string' ? bytes : bytes.toString('utf8');
  const cut = text.length > max ? `${text.slice(0, max)}…` : text;
  return JSON.stringify(cut).slice(1, -1);
}

const HEADER_END = Buffer.from('\r\n\r\n', 'ascii');
/** Headers are short; a "header" this long is garbage. */
const MAX_HEADER_BYTES = 1024;
/** A single message larger than this is refused (a runaway writer). */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** The header every LSP writer sends (vscode-jsonrpc, the reference adapters): `Content-Length: N` alone. */
const PLAIN_HEADER = Buffer.from('Content-Length: ', 'ascii');

/**
 * `Content-Length: N\r\n\r\n` exactly at the start of `b`: [N, header bytes]; undefined for anything
 * else (another header, another case, an incomplete header, garbage), which the general reader handles.
 */
function plainHeader(b: Buffer): [number, number] | undefined {
  const n = PLAIN_HEADER.length;
  if (b.length < n + 5) return undefined;
  for (let i = 0; i < n; i++) if (b[i] !== PLAIN_HEADER[i]) return undefined;
  let length = 0;
  let i = n;
  // At most 15 digits (exact in a double); longer numbers go to the general reader, which refuses them.
  for (; i < b.length && i < n + 15; i++) {
    const c = b[i];
    if (c < 0x30 || c > 0x39) break;
    length = length * 10 + (c - 0x30);
  }
  if (i === n || i + 4 > b.length) return undefined;
  if (b[i] !== 0x0d || b[i + 1] !== 0x0a || b[i + 2] !== 0x0d || b[i + 3] !== 0x0a) return undefined;
  return [length, i + 4];
}

const EMPTY = Buffer.alloc(0);

/**
 * Incremental reader: feed chunks, get whole JSON messages (parsed). Throws FramingError for bytes
 * that are not a header where one must start (e.g. a `print()` to stdout), a header without
 * Content-Length, or a body that is not JSON; the stream is unusable after that.
 * The usual header (`Content-Length: N` alone) is read straight from the bytes; any other goes
 * through the general header parser.
 */
export class FrameDecoder {
  private buffer: Buffer = EMPTY;
  private bodyLength = -1;

  push(chunk: Buffer): unknown[] {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    const out: unknown[] = [];
    for (;;) {
      if (this.bodyLength < 0) {
        const plain = plainHeader(this.buffer);
        if (plain) {
          if (plain[0] > MAX_MESSAGE_BYTES)
            throw new FramingError(`message of ${plain[0]} bytes is larger than ${MAX_MESSAGE_BYTES}`, '');
          this.bodyLength = plain[0];
          this.buffer = this.buffer.subarray(plain[1]);
        } else if (!this.readHeader()) return out;
      }
      if (this.buffer.length < this.bodyLength) return out;
      const length = this.bodyLength;
      const buffer = this.buffer;
      this.buffer = buffer.length === length ? EMPTY : buffer.subarray(length);
      this.bodyLength = -1;
      try {
        out.push(JSON.parse(buffer.toString('utf8', 0, length)));
      } catch (e) {
        const body = buffer.subarray(0, length);
        throw new FramingError(
          `message body is not JSON (${(e as Error).message}): "${printableExcerpt(body)}"`,
          printableExcerpt(body),
        );
      }
    }
  }

  /** The general header parser: sets `bodyLength` and consumes the header; false when the header is not complete yet. */
  private readHeader(): boolean {
    // Every header line must start like a header; check the prefix as soon as it arrives.
    const probe = this.buffer.subarray(0, Math.min(this.buffer.length, 15)).toString('ascii').toLowerCase();
    if (probe.length && !'content-length:'.startsWith(probe) && !'content-type:'.startsWith(probe.slice(0, 13))) {
      throw new FramingError(
        `not a protocol message on stdout (write logs to stderr): "${printableExcerpt(this.buffer)}"`,
        printableExcerpt(this.buffer),
      );
    }
    const end = this.buffer.indexOf(HEADER_END);
    if (end < 0) {
      if (this.buffer.length > MAX_HEADER_BYTES)
        throw new FramingError(
          `header longer than ${MAX_HEADER_BYTES} bytes: "${printableExcerpt(this.buffer)}"`,
          printableExcerpt(this.buffer),
        );
      return false;
    }
    const header = this.buffer.subarray(0, end).toString('ascii');
    let length = -1;
    for (const line of header.split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon < 0)
        throw new FramingError(`malformed header line "${printableExcerpt(line)}"`, printableExcerpt(line));
      const key = line.slice(0, colon).trim().toLowerCase();
      if (key === 'content-length') {
        const value = line.slice(colon + 1).trim();
        if (!/^\d+$/.test(value))
          throw new FramingError(
            `Content-Length is not a number: "${printableExcerpt(value)}"`,
            printableExcerpt(value),
          );
        length = Number(value);
      } else if (key !== 'content-type') {
        throw new FramingError(`unexpected header "${printableExcerpt(line)}"`, printableExcerpt(line));
      }
    }
    if (length < 0)
      throw new FramingError(`header without Content-Length: "${printableExcerpt(header)}"`, printableExcerpt(header));
    if (length > MAX_MESSAGE_BYTES)
      throw new FramingError(`message of ${length} bytes is larger than ${MAX_MESSAGE_BYTES}`, '');
    this.bodyLength = length;
    this.buffer = this.buffer.subarray(end + HEADER_END.length);
    return true;
  }
}
