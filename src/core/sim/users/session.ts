/**
 * Extensions of the UserSession contract shared by SimLens' own simulators: target handling (for
 * the meta-simulators) and restoring state from a recorded prefix (for forks).
 */
import type { SimulatorTrace, Turn } from '../../model';
import type { AgentResponse, UserSession } from '../types';
import type { CatalogItem } from '../../catalog/item';

/** How a meta-simulator tells a wrapped user what it is looking for now. */
export interface TargetUpdate {
  target: CatalogItem;
  /** The whole target group (original target and alternatives). */
  alternatives: string[];
}

/** A session that can be given a target item (known-item search). */
export interface TargetAwareSession extends UserSession {
  setTarget(update: TargetUpdate): void;
}

/** A session that can continue a recorded conversation from its last turn's trace. */
export interface RestorableSession extends UserSession {
  /**
   * Restores the state after `prefix` (the recorded turns, the last one included): agenda, goal,
   * preferences, patience and what was shown. Throws when the prefix lacks the trace it needs.
   */
  restore(prefix: readonly Turn[]): void;
}

/**
 * A session that looks at every agent response as soon as it arrives, and reports trace fields
 * that belong to the turn of that response (PEPPER's preference coverage after the agent's
 * recommendations). The orchestrator merges them into the turn's trace.
 */
export interface ObservingSession extends UserSession {
  observe(response: AgentResponse): Partial<SimulatorTrace> | undefined;
}

export function isObserving(s: UserSession): s is ObservingSession {
  return typeof (s as Partial<ObservingSession>).observe === 'function';
}

export function isTargetAware(s: UserSession): s is TargetAwareSession {
  return typeof (s as Partial<TargetAwareSession>).setTarget === 'function';
}

export function isRestorable(s: UserSession): s is RestorableSession {
  return typeof (s as Partial<RestorableSession>).restore === 'function';
}

/** Rounds to three decimals (trace numbers stay short and byte-stable). */
export function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
