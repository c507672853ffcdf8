/**
 * The conversation data types the webviews render (core's, src/core/model.ts). The webview
 * imports core only through src/shared.
 */
export type { Annotation, Conversation, PreferenceState, RecommendedItem, SimulatorTrace, Turn } from '../core/model';
export { forkRefusal } from '../core/forkPolicy';
export { builtinTaxonomy, inferTaxonomyName, type Taxonomy } from '../core/taxonomy';
