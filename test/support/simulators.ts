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
 * Invariants today's built-in simulators break (issue 21's bug list, being fixed on its own
 * branches): checked here, their counts printed as diagnostics, but kept out of the "every
 * invariant holds" assertion until the simulators are fixed. The checks themselves are held to the
 * mutation test (mutation.test.ts), not weakened.
 *   no-repetition: templated NLG repeats a turn word for word (issue 21b).
 *   accepted-meets-constraints: meta users accept a new target that breaks a value they stated, after the switch dropped it from the goal without a revision (issue 21).
 *   negation-honoured: local-good forgets an earlier negation when a later dislike names an item of that kind ("Not a fan of
 *     Ridgeline Suede Belt Bag" turns type=belt bag into a filter after "not keen on anything like belt bag"; 1 in ~60 meta qrfa runs).
 */
export const KNOWN_SIMULATOR_ISSUES: readonly string[] = ['no-repetition', 'accepted-meets-constraints', 'negation-honoured'];
