/** Text tools: tokenization, stopwords, BM25 retrieval and a lexical classifier. */
export { tokenize, contentTokens, foldPlural } from './tokenize';
export { STOPWORDS, isStopword } from './stopwords';
export { Bm25Index, type Bm25Hit, type Bm25Options } from './bm25';
export { LexicalClassifier, lexicalFeatures, type TrainingExample } from './classifier';
