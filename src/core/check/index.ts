/** Behavioural invariants of simulated conversations and the checker that runs them (`simlens check`). */
export * from './types';
export { INVARIANTS, DOCUMENTED_END_REASONS, factsOfRecommendation } from './invariants';
export { InvariantChecker, checkConversations, checkedInvariants, nothingCheckedReason, selectInvariants } from './checker';
export { mentions, oneTypoApart, quote } from './text';
