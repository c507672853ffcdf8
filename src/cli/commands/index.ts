/** Every `simlens` subcommand, in the order `simlens --help` lists them. One line each. */
import type { CliCommand } from '../types';
import { validateCommand } from './validate';
import { statsCommand } from './stats';
import { convertCommand } from './convert';
import { judgeCommand } from './judge';
import { discriminateCommand } from './discriminate';
import { exportSftCommand } from './export-sft';
import { simulateCommand } from './simulate';
import { mergeCommand } from './merge';
import { catalogCommand } from './catalog';
import { metricsCommand } from './metrics';
import { reportCommand } from './report';
import { checkCommand } from './check';
import { schemaCommand } from './schema';
import { agreementCommand } from './agreement';
import { diffCommand } from './diff';

export const COMMANDS: CliCommand[] = [
  validateCommand,
  statsCommand,
  convertCommand,
  judgeCommand,
  discriminateCommand,
  exportSftCommand,
  simulateCommand,
  mergeCommand,
  catalogCommand,
  metricsCommand,
  reportCommand,
  diffCommand,
  checkCommand,
  agreementCommand,
  schemaCommand,
];
