/**
 * The metrics core: per-conversation features, PLSA, the human-likeness discriminator,
 * counterfactual validation, Zhang & Balog's simulation metrics, PEPPER and AlterEval. Everything
 * returns plain data; src/core/report turns it into reports (one pipeline for the CLI and the
 * panels) and renders them.
 */
export * from './features';
export * from './tagger';
export * from './plsa';
export * from './hls';
export * from './counterfactual';
export * from './zhangBalog';
export * from './recsys';
export * from './load';
export * from './synthetic';
