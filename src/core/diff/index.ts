/** Conversation-by-conversation diff of two runs (pairing, divergence, paired statistics, gate). */
export * from './compare';
export { PAIRING_MODES } from './pairing';
export * from './model';
export * from './run';
export * from './gate';
export * from './markdown';
export * from './labels';
