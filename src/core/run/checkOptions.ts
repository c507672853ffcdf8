/**
 * The invariant options a run's manifest implies (`<file>.manifest.json`): its turn cap, the
 * meta-simulator's tolerance and the agenda users' answers table (`--answers`). One function for
 * `simlens check`, the invariants panel and the fidelity report, so they judge the same file the
 * same way.
 */
import { isAbsolute, dirname, resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { readManifest } from './manifest';
import type { CheckOptions } from '../check/types';
import { loadAnswerMapping } from '../sim/users/agenda/interaction';

/** Options from the manifest beside `absFile` (none when it has no manifest); `warn` hears about a broken one. */
export function checkOptionsFromRun(
  absFile: string,
  warn: (message: string) => void,
): Pick<CheckOptions, 'maxTurns' | 'metaTolerance' | 'answers'> {
  let config: Record<string, unknown> = {};
  try {
    config = readManifest(absFile)?.config ?? {};
  } catch (err) {
    warn(`${(err as Error).message}; the invariants use their defaults`);
  }
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const out: Pick<CheckOptions, 'maxTurns' | 'metaTolerance' | 'answers'> = {};
  const maxTurns = num(config['max_turns']);
  const tolerance = num(config['tolerance']);
  if (maxTurns !== undefined) out.maxTurns = maxTurns;
  if (tolerance !== undefined) out.metaTolerance = tolerance;
  // The agenda users' answers table (`--answers FILE`): the push reasons "X does not answer Y" are
  // judged by it; a table that cannot be read leaves them unchecked (null), never judged by another.
  const answers = config['answers'];
  if (typeof answers === 'string') {
    const path = isAbsolute(answers)
      ? answers
      : [resolve(answers), resolve(dirname(absFile), answers)].find(existsSync);
    try {
      if (!path) throw new Error(`${answers} not found`);
      out.answers = loadAnswerMapping(path).answers;
    } catch (err) {
      warn(
        `the run's answers table: ${(err as Error).message}; its push reasons "X does not answer Y" are not checked`,
      );
      out.answers = null;
    }
  }
  return out;
}
