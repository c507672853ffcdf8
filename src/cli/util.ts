/** Small helpers shared by the CLI commands: paths relative to the caller's cwd, readable I/O errors. */
import { isAbsolute, resolve } from 'node:path';
import type { CliIo } from './types';

/** `file` resolved against the CLI's working directory. */
export function resolvePath(io: CliIo, file: string): string {
  return isAbsolute(file) ? file : resolve(io.cwd, file);
}

const CODES: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'is a directory, expected a file',
  ENOTDIR: 'a part of the path is not a directory',
  EMFILE: 'too many open files',
  ENOSPC: 'no space left on the device',
  EROFS: 'read-only file system',
};

/** True for errors that come from the file system (exit code 2 territory). */
export function isIoError(err: unknown): err is NodeJS.ErrnoException {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code) && code !== 'ESTALE';
}

/** "cannot read data.jsonl: no such file or directory". */
export function ioErrorMessage(verb: string, file: string, err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const why = (e?.code && CODES[e.code]) ?? e?.message ?? String(err);
  return `cannot ${verb} ${file}: ${why}`;
}

/** Right-pads the first column of rows so the second column lines up. */
export function table(rows: [string, string][], indent = ''): string {
  const width = Math.max(0, ...rows.map(([a]) => a.length));
  return rows.map(([a, b]) => `${indent}${a.padEnd(width)}  ${b}`.trimEnd()).join('\n');
}
