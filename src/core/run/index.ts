/**
 * Simulation runs: configuration, orchestration (concurrency, shards, resume, cancellation),
 * manifests, merging shard outputs and forking conversations; the LLM users and agents a run
 * builds (llm.ts) and the invariant options a run's manifest implies (checkOptions.ts).
 */
export * from './config';
export * from './conversation';
export * from './orchestrator';
export * from './manifest';
export * from './output';
export * from './merge';
export * from './fork';
export * from './shardEnv';
export * from './annotationShard';
export * from './runProgress';
export * from './breakpoints';
export * from './play';
export * from './stop';
