/**
 * Reports: the serialisable report model, builders that turn metric results into reports,
 * renderers (Markdown, CSV, JSON, SVG), report specs and their computation, and the one-command
 * fidelity report.
 */
export * from './model';
export * from './format';
export * from './populations';
export * from './specs';
export * from './simulator';
export * from './compute';
export * from './fidelity';
export * from './outcomes';
export * from './builders/charts';
export * from './builders/plsa';
export * from './builders/hls';
export * from './builders/counterfactual';
export * from './builders/simulation';
export * from './builders/outcomes';
export * from './builders/invariants';
export * from '../text/escape';
export * from './render/markdown';
export * from './render/tables';
export * from './render/svg';
export * from './render/files';
