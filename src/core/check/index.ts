/** Behavioural invariants of simulated conversations and the checker that runs them (`simlens check`). */
export * from './types';
export { INVARIANTS, DOCUMENTED_END_REASONS, factsOfRecommendation } from './invariants';
export {
  InvariantChecker,
  checkConversations,
  checkedInvariants,
  nothingCheckedReason,
  selectInvariants,
  uncheckedSummary,
} from './checker';
export {
  ReadbackChecker,
  readBack,
  READBACK_ASPECTS,
  type ReadbackAspect,
  type ReadbackDisagreement,
  type ReadbackNlu,
  type ReadbackOptions,
  type ReadbackReport,
} from './readback';
export {
  MUTATION_OPERATORS,
  READBACK_TARGET,
  mutationScore,
  type MutationOperator,
  type MutationScore,
  type InvariantMutationScore,
  type Mutant,
} from './mutate';
export { mentions, oneTypoApart, quote } from './text';
export { readOpinion, type Opinion } from './opinion';
