/**
 * `simlens` command-line entry point: dispatches to the commands listed in
 * `src/cli/commands/index.ts`. Exit codes: 0 success, 1 a finding (invalid lines, failed checks,
 * an input that is not conversations), 2 usage or I/O errors. `main` is exported so tests can run the CLI in-process with a fake CliIo.
 */
import { COMMANDS } from './commands/index';
import { UsageError, type CliCommand, type CliIo } from './types';
import { escapeControl } from '../core/text/terminal';
import { ImportError } from '../core/importers/errors';
import { EXIT_NOT_READABLE, displayPath, importErrorMessage, ioErrorMessage, isIoError } from './util';
import pkg from '../../package.json';

export const VERSION: string = (pkg as { version: string }).version;

/** Text of `simlens --help`. */
export function mainHelp(commands: readonly CliCommand[] = COMMANDS): string {
  const width = Math.max(8, ...commands.map((c) => c.name.length));
  const list = commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n');
  return [
    `simlens ${VERSION}: inspect, run and validate user simulators for conversational recommenders`,
    '',
    'Usage: simlens <command> [options]',
    '       simlens <command> --help     help for one command',
    '       simlens --version',
    '',
    'Commands:',
    list || '  (none registered)',
    '',
    'Exit codes: 0 success, 1 a finding (e.g. invalid lines, an input that is not conversations),',
    '2 usage or I/O error.',
  ].join('\n');
}

/**
 * Words people type for a command that has another name (from other tools, or the feature's
 * name), with what to run instead. Only offered when the command it names is registered.
 */
const SYNONYMS: Record<string, { command: string; hint: string }> = {
  invariants: { command: 'check', hint: 'check' },
  invariant: { command: 'check', hint: 'check' },
  compare: { command: 'metrics', hint: "metrics plsa' or 'report" },
  fidelity: { command: 'report', hint: 'report' },
  run: { command: 'simulate', hint: 'simulate' },
  sim: { command: 'simulate', hint: 'simulate' },
};

/** What to suggest for an unknown command word: a synonym, else the closest name. */
export function suggestCommand(word: string, names: string[]): string | undefined {
  const synonym = SYNONYMS[word.toLowerCase()];
  if (synonym && names.includes(synonym.command)) return synonym.hint;
  return closest(word, names);
}

function closest(word: string, names: string[]): string | undefined {
  const dist = (a: string, b: string): number => {
    const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
    for (let j = 1; j <= b.length; j++) d[0][j] = j;
    for (let i = 1; i <= a.length; i++)
      for (let j = 1; j <= b.length; j++)
        d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    return d[a.length][b.length];
  };
  let best: string | undefined;
  let bestD = Infinity;
  for (const n of names) {
    const d = n.startsWith(word) || word.startsWith(n) ? 1 : dist(word, n);
    if (d < bestD) {
      best = n;
      bestD = d;
    }
  }
  return bestD <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

/**
 * `escapeControl` for output text, except that CR LF line endings pass through: CSV is written
 * with CRLF line ends (RFC 4180), and escaping their CR would print a literal `\u000d` at the end
 * of every row. A CR anywhere else (a lone CR in an utterance can overwrite the line on a
 * terminal) is still escaped. Writes hold whole lines, so a CR LF is never split across two.
 */
export function escapeOutput(text: string): string {
  return text.includes('\r\n') ? text.split('\r\n').map(escapeControl).join('\r\n') : escapeControl(text);
}

/**
 * The io with every write passed through `escapeOutput`: data (ids, utterances, file names) reaches
 * the terminal as visible `\u001b` escapes, never as raw control sequences. JSON output stays valid.
 */
export function terminalSafeIo(io: CliIo): CliIo {
  return { ...io, stdout: (t) => io.stdout(escapeOutput(t)), stderr: (t) => io.stderr(escapeOutput(t)) };
}

/** Runs `simlens <argv...>` and returns the exit code. Never calls process.exit. */
export async function main(
  argv: readonly string[],
  rawIo: CliIo,
  commands: readonly CliCommand[] = COMMANDS,
): Promise<number> {
  const io = terminalSafeIo(rawIo);
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    if (first === 'help' && rest[0]) return main([rest[0], '--help'], rawIo, commands);
    io.stdout(mainHelp(commands) + '\n');
    return first === undefined ? 2 : 0;
  }
  if (first === '--version' || first === '-v' || first === 'version') {
    io.stdout(`${VERSION}\n`);
    return 0;
  }
  const command = commands.find((c) => c.name === first);
  if (!command) {
    const hint = suggestCommand(
      first,
      commands.map((c) => c.name),
    );
    io.stderr(
      `simlens: unknown command '${first}'.${hint ? ` Did you mean '${hint}'?` : ''} Run 'simlens --help' for the list.\n`,
    );
    return 2;
  }
  const dashDash = rest.indexOf('--');
  const options = dashDash === -1 ? rest : rest.slice(0, dashDash);
  if (options.includes('--help') || options.includes('-h')) {
    io.stdout(command.help.trimEnd() + '\n');
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`simlens ${command.name}: ${err.message}\nRun 'simlens ${command.name} --help' for its options.\n`);
      return 2;
    }
    if (isIoError(err)) {
      // A missing or unreadable file given to any option (--corpus, --catalog, ...): one clean line, exit 2.
      const writing = ['write', 'rename', 'mkdir', 'fsync', 'close'].includes(err.syscall ?? '');
      io.stderr(
        `simlens ${command.name}: ${ioErrorMessage(writing ? 'write' : 'read', err.path ? displayPath(io, err.path) : 'a file', err)}\n`,
      );
      return 2;
    }
    if (err instanceof ImportError) {
      // An input that is not conversations is a finding about the input (docs/cli.md), not a usage error.
      io.stderr(`simlens ${command.name}: ${importErrorMessage(io, err)}\n`);
      return EXIT_NOT_READABLE;
    }
    const e = err as NodeJS.ErrnoException;
    io.stderr(`simlens ${command.name}: ${e?.message ?? String(err)}\n`);
    return 2;
  }
}

/** The real process's streams. Output to a closed pipe (`simlens stats big.jsonl | head`) ends quietly. */
export function processIo(): CliIo {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw err;
    });
  }
  return {
    stdout: (t) => void process.stdout.write(t),
    stderr: (t) => void process.stderr.write(t),
    cwd: process.cwd(),
    env: process.env,
  };
}

if (require.main === module) {
  main(process.argv.slice(2), processIo()).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(
        escapeControl(`simlens: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`),
      );
      process.exitCode = 2;
    },
  );
}
