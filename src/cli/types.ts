/** The contract every CLI subcommand module implements (see src/cli/commands/index.ts). */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Working directory for relative paths. */
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export interface CliCommand {
  /** The word after `simlens`, e.g. "validate". */
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Full `--help` text. */
  help: string;
  /**
   * Runs the command and returns the exit code: 0 success, 1 a finding (e.g. invalid lines,
   * failed test), 2 usage or I/O error. Must not call process.exit.
   */
  run(args: string[], io: CliIo): Promise<number>;
}

/** Thrown for bad arguments; the dispatcher prints the message and the command's help, exit 2. */
export class UsageError extends Error {}
