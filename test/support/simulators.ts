/**
 * The non-LLM simulator configurations: user (agenda CIR6/QRFA x single/PKG, target-free) x meta
 * (none, tol, prob) x local agent (good, bad). test/unit/check/simulators.test.ts and
 * bench/invariants.ts both run this matrix.
 */
import type { SimulationConfigInput } from '../../src/core/run/index';

export const USERS: Omit<SimulationConfigInput, 'n'>[] = [
  { user: 'agenda', interaction: 'cir6', preferences: 'single' },
  { user: 'agenda', interaction: 'cir6', preferences: 'pkg' },
  { user: 'agenda', interaction: 'qrfa', preferences: 'single' },
  { user: 'agenda', interaction: 'qrfa', preferences: 'pkg' },
  { user: 'target-free' },
];
const METAS = [undefined, 'tol', 'prob'] as const;
const AGENTS = ['local-good', 'local-bad'] as const;

/** One configuration of the matrix: a readable name and its config (without n, seed, catalog). */
export interface SimulatorCell {
  name: string;
  config: Omit<SimulationConfigInput, 'n'>;
  agent: (typeof AGENTS)[number];
}

export const SIMULATOR_MATRIX: SimulatorCell[] = USERS.flatMap((user) => METAS.flatMap((meta) => AGENTS.map((agent) => ({
  name: `${user.user}${user.interaction ? `-${user.interaction}-${user.preferences}` : ''}${meta ? ` meta-${meta}` : ''} vs ${agent}`,
  config: { ...user, meta, agent },
  agent,
}))));

/**
 * Invariants the built-in simulators still break (printed as diagnostics, kept out of the "every
 * invariant holds" assertion; the checks themselves are held to the mutation test, not weakened).
 * After issue 21 only one is left:
 *   negation-honoured: 1-2 of 2,000 meta agenda conversations against local-good (seed
 *     "invariants", sim-invariants-001332): the user passes over the same item three times while the
 *     agent shows nothing, "nah, not that one" is read as negating the item's type, and local-good
 *     then shows that type. no-repetition and accepted-meets-constraints hold in all 30 cells.
 */
export const KNOWN_SIMULATOR_ISSUES: readonly string[] = ['negation-honoured'];
