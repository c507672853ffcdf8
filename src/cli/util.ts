/** Small helpers shared by the CLI commands: paths relative to the caller's cwd, readable I/O errors. */
import { isAbsolute, relative, resolve } from 'node:path';
import type { CliIo } from './types';
import { formatLocation, type ImportError } from '../core/importers/errors';

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

/**
 * Exit code for an input the command cannot read as conversations (unknown format, not
 * conversation data, no conversation): a finding about the input, as docs/cli.md says, not a
 * usage error (2).
 */
export const EXIT_NOT_READABLE = 1;

/** `file` as the user would type it: relative to the working directory when it lies inside it. */
export function displayPath(io: CliIo, file: string): string {
  if (!isAbsolute(file)) return file;
  const rel = relative(io.cwd, file);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
}

/**
 * The message of an importer error for a command that reads any format but has no --from. The
 * importers' own hint ("Use --from with one of: …") fits only `simlens convert`; here an unknown
 * format names convert instead, and an empty file just says so.
 */
export function importErrorMessage(io: CliIo, err: ImportError): string {
  const file = displayPath(io, err.origin);
  const where = formatLocation(file, { line: err.line, column: err.column, path: err.path });
  const unknown = err.unknownFormat;
  if (!unknown) return `${where}: ${err.detail}`;
  if (unknown.empty) return `${where}: no conversation (the file is empty)`;
  return (
    `${where}: cannot tell the input format: ${unknown.reason}. If it is one of the formats simlens convert reads ` +
    `(${unknown.formats.join(', ')}), convert it first: simlens convert ${file} --from FORMAT -o OUT.jsonl`
  );
}

/** "1 line", "2 lines". */
export function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}
