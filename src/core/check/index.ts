/** Behavioural invariants of simulated conversations and the checker that runs them (`simlens check`). */
export * from './types';
export { INVARIANTS } from './invariants';
export {
  InvariantChecker,
  checkConversations,
  checkedInvariants,
  nothingCheckedReason,
  uncheckedSummary,
} from './checker';
export { ReadbackChecker, readBack, READBACK_ASPECTS, type ReadbackReport } from './readback';
export { MUTATION_OPERATORS, READBACK_TARGET, mutationScore, type InvariantMutationScore } from './mutate';
export { mentions, oneTypoApart } from './text';
export { readOpinion } from './opinion';
