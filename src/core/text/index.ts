/** Text tools: tokenization, n-gram features, stopwords, BM25 retrieval and a lexical classifier. */
export { tokenize, dialogueTokens, contentTokens, foldPlural } from './tokenize';
export { ngrams, textNgrams, type NgramStyle } from './ngrams';
export { STOPWORDS, isStopword } from './stopwords';
export { Bm25Index, type Bm25Hit, type Bm25Options } from './bm25';
export { LexicalClassifier, lexicalFeatures, type TrainingExample } from './classifier';
