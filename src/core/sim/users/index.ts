/**
 * Simulated users, by role: `agenda/` (Zhang & Balog, CIR6/QRFA x single/PKG), `targetFree.ts`
 * (PEPPER), `meta.ts` (Fashion-AlterEval meta-simulators) and `llm/` (LLM users, built by
 * src/core/run/llm.ts); beside them the pieces the template users share (transitions,
 * preferences, NLG, NLU; their act vocabulary is src/core/taxonomy/acts.ts) and their data files. `createUserSimulator` builds the non-LLM users.
 */
import type { Catalog, CatalogItem } from '../../catalog/catalog';
import type { UserSimulator } from '../types';
import { AgendaUserSimulator } from './agenda/agendaUser';
import { createInteractionModel, type AnswerMapping, type InteractionName } from './agenda/interaction';
import { MetaSimulator, type MetaMode, type RelevanceJudgments } from './meta';
import { TemplateNlg } from './nlg';
import { AgentNlu } from './nlu';
import type { PkgThresholds, PreferenceKind } from './preferences';
import { TargetFreeUserSimulator } from './targetFree';
import type { TransitionModel } from './transitions';

export * from './transitions';
export * from './agenda/interaction';
export * from './preferences';
export * from './nlg';
export * from './nlu';
export * from './session';
export { AgendaUserSimulator } from './agenda/agendaUser';
export { TargetFreeUserSimulator, TargetFreeSession } from './targetFree';
export { MetaSimulator, deriveAlternatives, loadRelevance, type MetaMode, type RelevanceJudgments } from './meta';

export type UserKind = 'agenda' | 'target-free';

/** What a simulated user is, as configured by `simlens simulate`. */
export interface UserSpec {
  user: UserKind;
  interaction?: InteractionName;
  preferences?: PreferenceKind;
  patience?: number;
  /** Agenda user: probability of leaving before any recommendation was shown (default 0). */
  earlyQuit?: number;
  thresholds?: Partial<PkgThresholds>;
  /** Target-free: turns before it says goodbye. */
  maxTurns?: number;
  meta?: MetaMode;
  tolerance?: number;
  pSwitch?: number;
  relevance?: RelevanceJudgments;
  alternatives?: number;
}

/** Shared, run-wide building blocks (built once, used by every session). */
interface UserDeps {
  catalog: Catalog;
  transitions: TransitionModel;
  answers?: AnswerMapping;
  nlg?: TemplateNlg;
  nlu?: AgentNlu;
  /** What the users may say they like about an item (`TargetFreeOptions.details`, `AgendaUserOptions.details`). */
  details?: (item: CatalogItem) => readonly string[];
}

/** Builds the simulated user a run asks for. */
export function createUserSimulator(spec: UserSpec, deps: UserDeps): UserSimulator {
  const nlg = deps.nlg ?? new TemplateNlg();
  const nlu = deps.nlu ?? new AgentNlu();
  let base: UserSimulator;
  if (spec.user === 'agenda') {
    const interaction = createInteractionModel(spec.interaction ?? 'cir6', {
      transitions: deps.transitions,
      answers: deps.answers,
    });
    base = new AgendaUserSimulator({
      catalog: deps.catalog,
      interaction,
      preferences: spec.preferences ?? 'pkg',
      preferenceOptions: { thresholds: spec.thresholds },
      patience: spec.patience,
      earlyQuit: spec.earlyQuit,
      nlg,
      nlu,
      details: deps.details,
    });
  } else if (spec.user === 'target-free') {
    base = new TargetFreeUserSimulator({
      catalog: deps.catalog,
      nlg,
      nlu,
      maxTurns: spec.maxTurns,
      patience: spec.patience,
      details: deps.details,
    });
  } else {
    throw new Error(`unknown user "${String(spec.user)}" (expected agenda or target-free)`);
  }
  if (!spec.meta) return base;
  return new MetaSimulator(base, {
    mode: spec.meta,
    catalog: deps.catalog,
    tolerance: spec.tolerance,
    pSwitch: spec.pSwitch,
    relevance: spec.relevance,
    alternatives: spec.alternatives,
  });
}
