/** Every `simlens` subcommand, in the order `simlens --help` lists them. One line each. */
import type { CliCommand } from '../types';

export const COMMANDS: CliCommand[] = [];
