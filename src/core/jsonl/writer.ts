/**
 * Saving edits to a large JSONL file: only the replaced lines are re-encoded; every other byte
 * (other lines, the BOM, each line's own "\n" or "\r\n", a missing final newline) is copied as it
 * is. The new content goes to a temporary file in the same folder, which is then renamed over the
 * target, so a crash never leaves a half-written file.
 */
import { open, realpath, type FileHandle } from 'node:fs/promises';
import { writeAtomic } from '../atomicFile';
import { buildLineIndex, type LineIndex } from './lineIndex';

/** Thrown when the file on disk no longer matches the index the edits were made against. */
export class FileChangedError extends Error {
  override name = 'FileChangedError';
  readonly code = 'ESTALE';
}

/** Options for `rewriteLines`. */
interface RewriteOptions {
  /** Write here instead of over `path` (the source is then left untouched). */
  outPath?: string;
  /** The index the replacements refer to; the write is refused if the file changed since it was built. */
  index?: LineIndex;
}

const COPY_CHUNK = 4 << 20;

async function writeAll(out: FileHandle, data: Uint8Array): Promise<void> {
  let done = 0;
  while (done < data.length) {
    const { bytesWritten } = await out.write(data, done, data.length - done);
    done += bytesWritten;
  }
}

/**
 * Writes `path` (or `opts.outPath`) with the given 0-based lines replaced by new text; every other
 * line, the BOM and each original line ending are copied byte for byte; via a temp file in the same
 * folder + rename; refuses (throws FileChangedError) if the file changed since `index` was built
 * (size/mtime). Replacement text must be a single line (no "\n" or "\r").
 */
export async function rewriteLines(
  path: string,
  replacements: ReadonlyMap<number, string>,
  opts: RewriteOptions = {},
): Promise<void> {
  const index = opts.index ?? (await buildLineIndex(path));
  // Resolve a symlinked target so the rename replaces the file it points to, not the link.
  const target = await realpath(opts.outPath ?? path).catch(() => opts.outPath ?? path);

  const order = [...replacements.keys()].sort((a, b) => a - b);
  for (const i of order) {
    if (!Number.isInteger(i) || i < 0 || i >= index.lineCount) {
      throw new RangeError(`${path}: cannot replace line ${i + 1}: the file has ${index.lineCount} lines`);
    }
    const text = replacements.get(i) as string;
    if (/[\r\n]/.test(text))
      throw new RangeError(
        `${path}: the replacement for line ${i + 1} contains a line break; a JSONL line must be one line`,
      );
  }

  const src = await open(path, 'r');
  try {
    const before = await src.stat();
    if (before.size !== index.size || before.mtimeMs !== index.mtimeMs) {
      throw new FileChangedError(
        `${path} changed on disk since it was read (size or modification time differ); reload it before saving`,
      );
    }
    await writeAtomic(
      target,
      async (out) => {
        const buf = Buffer.allocUnsafe(Math.min(COPY_CHUNK, Math.max(1, index.size)));
        const copy = async (from: number, to: number): Promise<void> => {
          let pos = from;
          while (pos < to) {
            const { bytesRead } = await src.read(buf, 0, Math.min(buf.length, to - pos), pos);
            if (bytesRead === 0) throw new FileChangedError(`${path} became shorter while it was being saved`);
            await writeAll(out, buf.subarray(0, bytesRead));
            pos += bytesRead;
          }
        };
        let cursor = 0;
        for (const i of order) {
          await copy(cursor, index.start(i));
          await writeAll(out, Buffer.from(replacements.get(i) as string, 'utf8'));
          cursor = index.end(i);
        }
        await copy(cursor, index.size);
      },
      {
        mode: before.mode & 0o777,
        beforeRename: async () => {
          const after = await src.stat();
          if (after.size !== index.size || after.mtimeMs !== index.mtimeMs) {
            throw new FileChangedError(`${path} changed on disk while it was being saved; nothing was written`);
          }
        },
      },
    );
  } finally {
    await src.close();
  }
}
