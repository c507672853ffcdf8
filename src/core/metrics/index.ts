/**
 * The metrics core: per-conversation features, PLSA, the human-likeness discriminator,
 * counterfactual validation, Zhang & Balog's simulation metrics, PEPPER and AlterEval, and their
 * Markdown/CSV renderings. Everything returns plain data so the CLI and the panels share it.
 */
export * from './features';
export * from './tagger';
export * from './plsa';
export * from './hls';
export * from './counterfactual';
export * from './zhangBalog';
export * from './recsys';
export * from './render';
export * from './load';
export { tokenize, ngrams, isQuestion } from './text';
export * from './synthetic';
export * from './reports';
