/**
 * The invariant options a run's manifest implies (`<file>.manifest.json`): its turn cap and the
 * meta-simulator's tolerance. One function for `simlens check`, the invariants panel and the
 * fidelity report, so they judge the same file the same way.
 */
import { readManifest } from './manifest';
import type { CheckOptions } from '../check/types';

/** Options from the manifest beside `absFile` (none when it has no manifest); `warn` hears about a broken one. */
export function checkOptionsFromRun(
  absFile: string,
  warn: (message: string) => void,
): Pick<CheckOptions, 'maxTurns' | 'metaTolerance'> {
  let config: Record<string, unknown> = {};
  try {
    config = readManifest(absFile)?.config ?? {};
  } catch (err) {
    warn(`${(err as Error).message}; the invariants use their defaults`);
  }
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const out: Pick<CheckOptions, 'maxTurns' | 'metaTolerance'> = {};
  const maxTurns = num(config['max_turns']);
  const tolerance = num(config['tolerance']);
  if (maxTurns !== undefined) out.maxTurns = maxTurns;
  if (tolerance !== undefined) out.metaTolerance = tolerance;
  return out;
}
