/**
 * Simulation runs: configuration, orchestration (concurrency, shards, resume, cancellation),
 * manifests, merging shard outputs and forking conversations.
 */
export * from './config';
export * from './conversation';
export * from './orchestrator';
export * from './manifest';
export * from './output';
export * from './merge';
export * from './fork';
export * from './failures';
export * from './shardEnv';
export * from './annotationShard';
export * from './runProgress';
export * from './breakpoints';
export * from './play';
export * from './stop';
