/** Small helpers shared by the CLI commands: paths relative to the caller's cwd, readable I/O errors. */
import { isAbsolute, relative, resolve } from 'node:path';
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

/**
 * Exit code for an input the command cannot read as conversations (unknown format, not
 * conversation data, no conversation): a finding about the input, as docs/cli.md says, not a
 * usage error (2).
 */
export const EXIT_NOT_READABLE = 1;

/** `file` as the user would type it: relative to the working directory when it lies inside it. */
function displayPath(io: CliIo, file: string): string {
  if (!isAbsolute(file)) return file;
  const rel = relative(io.cwd, file);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
}

/**
 * The message of an importer error for a command that reads any format but has no --from. The
 * importers end "cannot tell the input format" with "Use --from with one of: …", which only
 * `simlens convert` accepts; here the hint names convert instead, and an empty file just says so.
 */
export function importErrorMessage(io: CliIo, err: { message: string; origin?: string }): string {
  const file = err.origin !== undefined ? displayPath(io, err.origin) : 'FILE';
  const message = err.origin !== undefined && err.message.startsWith(`${err.origin}:`) ? `${file}${err.message.slice(err.origin.length)}` : err.message;
  return message
    .replace(/cannot tell the input format: it is empty\. Use --from with one of: .*$/s, 'no conversation (the file is empty)')
    .replace(
      /Use --from with one of: (.*)$/s,
      (_m, formats: string) => `If it is one of the formats simlens convert reads (${formats}), convert it first: simlens convert ${file} --from FORMAT -o OUT.jsonl`,
    );
}

/**
 * True for a report error about the input itself (src/core/report: a file whose lines hold no
 * valid conversation, a population whose every conversation failed), exit code 1. A filter the
 * options chose that matches nothing ("no conversations match condition=x") is not: exit 2.
 */
export function isInputProblem(message: string): boolean {
  return /: no conversations \(0 in the file\)|: every conversation of .* failed/.test(message);
}

/** "1 line", "2 lines". */
export function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}
