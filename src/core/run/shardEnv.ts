/**
 * Shards from a cluster engine's environment, and the names of part files.
 *
 * A Slurm array job gives each task SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_COUNT, _MIN and _MAX;
 * a Kubernetes Indexed Job gives each pod JOB_COMPLETION_INDEX but not the number of completions,
 * which comes from SIMLENS_SHARD_COUNT (or --shard-count). SimLens shards are numbered 0..K-1, so
 * an array must be contiguous and start at 0 (`--array=0-3`); anything else is refused with a
 * message instead of being guessed, because a wrong guess would silently run the wrong
 * conversations. With an explicit count the task id is taken as the shard index as it is, which is
 * what resubmitting a single failed task (`sbatch --array=2`) needs.
 *
 * Part files carry their index in the name (`all.part-0002-of-0004.jsonl` for `--out all.jsonl`),
 * so tasks writing to one shared folder never collide and a rerun of a task finds its own part.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { parseShard, type Shard } from './orchestrator';

export type ShardSource = 'option' | 'slurm' | 'kubernetes';

export interface ResolvedShard {
  shard: Shard;
  source: ShardSource;
  /** One line for the run's output, e.g. "shard 2/4 from the Slurm array (SLURM_ARRAY_TASK_ID=2, ...)". */
  description: string;
  /** The environment variables it was read from (for the manifest). */
  variables?: Record<string, string>;
}

/** The environment variable that gives the shard count where the engine does not (Kubernetes), or overrides it. */
export const SHARD_COUNT_VARIABLE = 'SIMLENS_SHARD_COUNT';

const SLURM_VARIABLES = [
  'SLURM_ARRAY_TASK_ID',
  'SLURM_ARRAY_TASK_COUNT',
  'SLURM_ARRAY_TASK_MIN',
  'SLURM_ARRAY_TASK_MAX',
  'SLURM_ARRAY_JOB_ID',
] as const;

function wholeNumber(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  if (!/^\s*\d+\s*$/.test(raw))
    throw new Error(`environment variable ${name} must be a whole number >= 0, got "${raw}"`);
  return Number(raw);
}

/**
 * The shard of this task from the environment: a Slurm array task, else a Kubernetes indexed job
 * pod; undefined when neither is present. `countOption` (--shard-count) or SIMLENS_SHARD_COUNT
 * gives the count explicitly. Throws (naming the variables) when the values cannot be a shard.
 */
export function shardFromEnvironment(env: NodeJS.ProcessEnv, countOption?: number): ResolvedShard | undefined {
  let count = countOption;
  let countFrom = '--shard-count';
  if (count === undefined) {
    count = wholeNumber(env, SHARD_COUNT_VARIABLE);
    countFrom = SHARD_COUNT_VARIABLE;
  }
  if (count !== undefined && count < 1) throw new Error(`${countFrom} must be at least 1, got ${count}`);
  const slurmId = wholeNumber(env, 'SLURM_ARRAY_TASK_ID');
  if (slurmId !== undefined) {
    const variables: Record<string, string> = {};
    for (const name of SLURM_VARIABLES) if (env[name] !== undefined) variables[name] = String(env[name]);
    if (count !== undefined) {
      if (slurmId >= count)
        throw new Error(`SLURM_ARRAY_TASK_ID=${slurmId} is not below the shard count ${count} (${countFrom})`);
      return {
        shard: { index: slurmId, count },
        source: 'slurm',
        variables,
        description: `shard ${slurmId}/${count} from the Slurm array (SLURM_ARRAY_TASK_ID=${slurmId}, count from ${countFrom})`,
      };
    }
    const taskCount = wholeNumber(env, 'SLURM_ARRAY_TASK_COUNT');
    const min = wholeNumber(env, 'SLURM_ARRAY_TASK_MIN');
    const max = wholeNumber(env, 'SLURM_ARRAY_TASK_MAX');
    if (taskCount === undefined || min === undefined || max === undefined) {
      throw new Error(
        `SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT, _MIN or _MAX is not; give the shard count with --shard-count or ${SHARD_COUNT_VARIABLE}`,
      );
    }
    if (min !== 0) {
      throw new Error(
        `the Slurm array starts at ${min} (SLURM_ARRAY_TASK_MIN); SimLens shards are numbered from 0: submit with ` +
          `--array=0-${taskCount - 1}, or, to rerun single tasks, give the full count with --shard-count or ${SHARD_COUNT_VARIABLE}`,
      );
    }
    if (taskCount !== max - min + 1) {
      throw new Error(
        `the Slurm array ${min}-${max} has ${taskCount} tasks (SLURM_ARRAY_TASK_COUNT), so it has gaps or a step; use ` +
          `a contiguous --array=0-K-1, or give the count with --shard-count or ${SHARD_COUNT_VARIABLE}`,
      );
    }
    return {
      shard: { index: slurmId, count: taskCount },
      source: 'slurm',
      variables,
      description: `shard ${slurmId}/${taskCount} from the Slurm array (SLURM_ARRAY_TASK_ID=${slurmId}, SLURM_ARRAY_TASK_COUNT=${taskCount})`,
    };
  }
  const k8sIndex = wholeNumber(env, 'JOB_COMPLETION_INDEX');
  if (k8sIndex !== undefined) {
    if (count === undefined) {
      throw new Error(
        `JOB_COMPLETION_INDEX is set (a Kubernetes indexed job) but not the number of completions: set ` +
          `${SHARD_COUNT_VARIABLE} to the Job's spec.completions, or pass --shard-count`,
      );
    }
    if (k8sIndex >= count)
      throw new Error(`JOB_COMPLETION_INDEX=${k8sIndex} is not below the shard count ${count} (${countFrom})`);
    return {
      shard: { index: k8sIndex, count },
      source: 'kubernetes',
      variables: {
        JOB_COMPLETION_INDEX: String(k8sIndex),
        ...(countFrom === SHARD_COUNT_VARIABLE ? { [SHARD_COUNT_VARIABLE]: String(count) } : {}),
      },
      description: `shard ${k8sIndex}/${count} from the Kubernetes indexed job (JOB_COMPLETION_INDEX=${k8sIndex}, count from ${countFrom})`,
    };
  }
  return undefined;
}

/**
 * The shard of a command from its --shard value and the environment:
 * - "I/K": that shard (the output file is used as given);
 * - "auto": from the environment, an error when it has none;
 * - "none": no shard, whatever the environment says;
 * - absent: from the environment when it has a Slurm array or indexed job, else no shard.
 */
export function resolveShard(
  option: string | undefined,
  env: NodeJS.ProcessEnv,
  countOption?: number,
): ResolvedShard | undefined {
  const value = option?.trim();
  if (value === 'none') return undefined;
  if (value !== undefined && value !== 'auto') {
    if (countOption !== undefined)
      throw new Error('--shard-count goes with --shard auto (or none), not with an explicit --shard I/K');
    const shard = parseShard(value);
    return { shard, source: 'option', description: `shard ${shard.index}/${shard.count}` };
  }
  const found = shardFromEnvironment(env, countOption);
  if (!found && value === 'auto') {
    throw new Error(
      'auto: neither a Slurm array task (SLURM_ARRAY_TASK_ID) nor a Kubernetes indexed job (JOB_COMPLETION_INDEX) is in the environment',
    );
  }
  if (!found && countOption !== undefined)
    throw new Error('--shard-count needs a Slurm array task or a Kubernetes indexed job in the environment');
  return found;
}

const PART = /\.part-(\d+)-of-(\d+)\.jsonl$/;

function stemOf(out: string): string {
  return out.endsWith('.jsonl') ? out.slice(0, -'.jsonl'.length) : out;
}

/** The part file of shard I/K for an output: `all.jsonl` -> `all.part-0002-of-0004.jsonl`. */
export function partFileName(out: string, shard: Shard): string {
  const width = Math.max(4, String(shard.count).length);
  const pad = (n: number) => String(n).padStart(width, '0');
  return `${stemOf(out)}.part-${pad(shard.index)}-of-${pad(shard.count)}.jsonl`;
}

/** The shard a part file's name carries, or undefined. */
export function parsePartFileName(file: string): Shard | undefined {
  const m = PART.exec(file);
  if (!m) return undefined;
  const index = Number(m[1]);
  const count = Number(m[2]);
  return count >= 1 && index < count ? { index, count } : undefined;
}

/** The part files of `out` that exist beside it (`<stem>.part-*-of-*.jsonl`), sorted by index. */
export function findPartFiles(out: string): string[] {
  const dir = dirname(resolve(out));
  const stem = basename(stemOf(out));
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter(
      (name) =>
        name.startsWith(`${stem}.part-`) &&
        parsePartFileName(name) !== undefined &&
        name.slice(stem.length).match(/^\.part-\d+-of-\d+\.jsonl$/),
    )
    .map((name) => join(dir, name))
    .sort();
}

/** The part files in a folder (any `*.part-*-of-*.jsonl`), sorted by name. */
export function partFilesInFolder(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => parsePartFileName(name) !== undefined && statSync(join(dir, name)).isFile())
    .map((name) => join(dir, name))
    .sort();
}
