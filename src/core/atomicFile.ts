/**
 * The one atomic file write of SimLens: the content goes to a temporary file beside the target,
 * is flushed to disk (fsync) and closed, and only then renamed over the target. A reader sees the
 * old file or the whole new one, never a part; a crash or a full disk before the rename leaves the
 * target as it was (the temporary file is removed on failure). Used for saved conversation files,
 * run outputs and manifests, converted files, forks, catalogs, annotation shards and the LLM cache.
 */
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

/** A fresh temporary path in the target's folder (a rename across file systems would not be atomic). */
function tempPathFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/** What `writeFileAtomic` writes: text (UTF-8), bytes, or text chunks written as they come. */
type AtomicContent = string | Uint8Array | Iterable<string>;

/** Chunks are gathered up to this many characters per write. */
const CHUNK_CHARS = 1 << 20;

/**
 * Writes `target` atomically through `write`, which fills the temporary file's handle. `beforeRename`
 * runs after the data is on disk and may throw to cancel (the target is then untouched); `mode` is
 * the new file's permission bits (a saved file keeps its own). `opened` learns the temporary path
 * and descriptor as soon as the file exists, for a signal handler that must remove it synchronously.
 */
export async function writeAtomic(
  target: string,
  write: (handle: FileHandle) => Promise<void>,
  options: {
    beforeRename?: () => Promise<void>;
    mode?: number;
    opened?: (tmp: string, fd: number) => void;
  } = {},
): Promise<void> {
  const tmp = tempPathFor(target);
  let renamed = false;
  try {
    const handle = await open(tmp, 'wx', options.mode);
    options.opened?.(tmp, handle.fd);
    try {
      await write(handle);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await options.beforeRename?.();
    await rename(tmp, target);
    renamed = true;
  } finally {
    if (!renamed) await rm(tmp, { force: true }).catch(() => undefined);
  }
}

/** Writes `content` to `target` atomically (temporary file, fsync, rename). */
export function writeFileAtomic(target: string, content: AtomicContent): Promise<void> {
  return writeAtomic(target, async (handle) => {
    if (typeof content === 'string' || content instanceof Uint8Array) {
      await handle.writeFile(content);
      return;
    }
    let buffer = '';
    for (const chunk of content) {
      buffer += chunk;
      if (buffer.length >= CHUNK_CHARS) {
        await handle.writeFile(buffer);
        buffer = '';
      }
    }
    if (buffer) await handle.writeFile(buffer);
  });
}

/** `writeAtomic` for synchronous callers: `write` fills the temporary file's descriptor. */
export function writeAtomicSync(target: string, write: (fd: number) => void): void {
  const tmp = tempPathFor(target);
  let renamed = false;
  try {
    const fd = openSync(tmp, 'wx');
    try {
      write(fd);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, target);
    renamed = true;
  } finally {
    if (!renamed) rmSync(tmp, { force: true });
  }
}

/** Writes `content` to `target` atomically, synchronously. */
export function writeFileAtomicSync(target: string, content: string | Uint8Array): void {
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  writeAtomicSync(target, (fd) => {
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
  });
}
