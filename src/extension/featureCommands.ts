/**
 * The contributed commands that dist/features.js registers. Until it is loaded, each id has a stub
 * that loads the bundle (which registers the real command in place of the stub) and then runs it
 * with the same arguments. A contributed command missing from this list and from the editor is
 * caught by test/unit/architecture/bundles.test.ts (this module has no `vscode` import so
 * that test can read it) and by the integration suite "commands".
 */
export const FEATURE_COMMANDS = [
  'simlens.llm.setApiKey',
  'simlens.llm.clearApiKey',
  'simlens.llm.testConnection',
  'simlens.runSimulation',
  'simlens.openRun',
  'simlens.comparePopulations',
  'simlens.compareRuns',
  'simlens.humanLikeness',
  'simlens.counterfactualValidation',
  'simlens.simulationMetrics',
  'simlens.validateSimulator',
  'simlens.forkFromHere',
  'simlens.playRecommender',
  'simlens.checkInvariants',
] as const;
