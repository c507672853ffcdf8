/**
 * One sequential pass over a JSONL file, line by line, with bounded memory: the file is read in
 * chunks (the next read overlaps the processing of the current chunk), and a line that spans
 * chunks is stitched from copies of its parts. Used by validation, stats and anything else that
 * must see every line once without building an index first.
 */
import { open } from 'node:fs/promises';
import { throwIfAborted } from './lineIndex';

/** Options for `forEachLine`. */
interface ForEachLineOptions {
  signal?: AbortSignal;
  /** Called after each chunk with bytes read so far and the file size. */
  onProgress?: (bytesRead: number, total: number) => void;
  /** Read size in bytes (default 4 MiB). */
  chunkSize?: number;
}

/** What `forEachLine` saw. */
interface ForEachLineResult {
  size: number;
  mtimeMs: number;
  lines: number;
  bom: boolean;
}

/**
 * Calls `onLine(bytes, i)` for every line (0-based `i`), with the line's content bytes (no "\n",
 * no "\r" before it, no BOM), following the line model of `lineIndex.ts`. The bytes are only valid
 * during the call: copy them to keep them. `onLine` may return a promise; the pass then waits for it.
 */
export async function forEachLine(
  path: string,
  onLine: (bytes: Buffer, i: number) => void | Promise<void>,
  opts: ForEachLineOptions = {},
): Promise<ForEachLineResult> {
  const handle = await open(path, 'r');
  try {
    const stat = await handle.stat();
    if (stat.isDirectory()) throw Object.assign(new Error(`${path} is a directory`), { code: 'EISDIR' });
    const size = stat.size;
    const chunk = Math.max(16, Math.min(opts.chunkSize ?? 4 << 20, size || 16));
    const bufs = [Buffer.allocUnsafe(chunk), Buffer.allocUnsafe(chunk)];
    let which = 0;
    let offset = 0;
    let lineNo = 0;
    let carry: Buffer[] = [];
    let carryLen = 0;
    let bom = false;
    let first = true;

    const emit = async (content: Buffer): Promise<void> => {
      let bytes = content;
      if (bytes.length > 0 && bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, bytes.length - 1);
      if (first) {
        first = false;
        if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
          bom = true;
          bytes = bytes.subarray(3);
        }
      }
      const r = onLine(bytes, lineNo++);
      if (r) await r;
    };

    const readAt = (buf: Buffer, pos: number) =>
      pos < size ? handle.read(buf, 0, Math.min(buf.length, size - pos), pos) : Promise.resolve({ bytesRead: 0 });
    let pending = readAt(bufs[which], offset);
    try {
      while (offset < size) {
        throwIfAborted(opts.signal);
        const { bytesRead } = await pending;
        if (bytesRead === 0) break;
        const buf = bufs[which].subarray(0, bytesRead);
        offset += bytesRead;
        which ^= 1;
        pending = readAt(bufs[which], offset); // overlaps with the work below

        let from = 0;
        let nl = buf.indexOf(0x0a, 0);
        while (nl !== -1) {
          if (carryLen > 0) {
            carry.push(buf.subarray(from, nl));
            const joined = Buffer.concat(carry, carryLen + nl - from);
            carry = [];
            carryLen = 0;
            await emit(joined);
          } else {
            await emit(buf.subarray(from, nl));
          }
          from = nl + 1;
          nl = buf.indexOf(0x0a, from);
        }
        if (from < buf.length) {
          // Copy: the read buffer is reused.
          const part = Buffer.from(buf.subarray(from));
          carry.push(part);
          carryLen += part.length;
        }
        opts.onProgress?.(offset, size);
      }
    } finally {
      // Never close the handle under a read still in flight.
      await pending.catch(() => undefined);
    }
    if (carryLen > 0) {
      // Unterminated last line; a BOM-only remainder at file start is not a line.
      const last = Buffer.concat(carry, carryLen);
      const bomOnly = first && last.length === 3 && last[0] === 0xef && last[1] === 0xbb && last[2] === 0xbf;
      if (bomOnly) bom = true;
      else await emit(last);
    }
    return { size: offset, mtimeMs: stat.mtimeMs, lines: lineNo, bom };
  } finally {
    await handle.close();
  }
}
