/**
 * The `simlens.simulators` setting: external simulators a researcher registers once (name, command,
 * working directory, environment) and picks in "Run Simulation…" and "Play the Recommender…".
 */
import { isAbsolute, resolve } from 'node:path';
import * as z from 'zod';
import { zodErrorMessage } from '../../../jsonl/zodIssues';

export const SimulatorSetting = z.object({
  name: z.string().min(1),
  /** The command line (`python3 my_sim.py`) or an http(s) URL of a simulator served over HTTP. */
  command: z.string().min(1),
  /** Working directory (relative to the workspace folder). */
  cwd: z.string().optional(),
  env: z.record(z.string(), z.string()).optional(),
  /** Conversations in flight (processes, or sessions when the simulator declares them); default 1. */
  concurrency: z.number().int().positive().optional(),
});
export type SimulatorSetting = z.infer<typeof SimulatorSetting>;

/** The valid entries, and a message per invalid one naming its position and field. */
export function parseSimulatorSettings(value: unknown): { simulators: SimulatorSetting[]; problems: string[] } {
  const simulators: SimulatorSetting[] = [];
  const problems: string[] = [];
  if (value === undefined || value === null) return { simulators, problems };
  if (!Array.isArray(value))
    return {
      simulators,
      problems: ['simlens.simulators: must be a list of {name, command, cwd?, env?, concurrency?}'],
    };
  value.forEach((entry, i) => {
    const r = SimulatorSetting.safeParse(entry);
    if (r.success) simulators.push(r.data);
    else problems.push(zodErrorMessage(`simlens.simulators[${i}]`, r.error, entry));
  });
  return { simulators, problems };
}

/** The `--user` value of a registered simulator: its URL, or `exec:` and its command. */
export function simulatorUserSpec(s: SimulatorSetting): string {
  return /^https?:\/\//.test(s.command.trim()) ? s.command.trim() : `exec:${s.command.trim()}`;
}

/** Its working directory, resolved against the workspace folder. */
export function simulatorCwd(s: SimulatorSetting, workspace: string): string {
  return s.cwd ? (isAbsolute(s.cwd) ? s.cwd : resolve(workspace, s.cwd)) : workspace;
}
