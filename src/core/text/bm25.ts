/**
 * Okapi BM25 over an inverted index. Built once per document collection (a catalog), then queried
 * on every simulated turn, so the index is packed into typed arrays and a search only touches the
 * postings of the query's terms.
 *
 * Scoring, for query terms t (each distinct term counted once) and document d:
 *
 *   score(q, d) = sum_t idf(t) * tf(t,d) * (k1 + 1) / (tf(t,d) + k1 * (1 - b + b * |d| / avgdl))
 *   idf(t)      = ln(1 + (N - n_t + 0.5) / (n_t + 0.5))
 *
 * with N documents, n_t of them containing t, |d| the document's token count and avgdl the mean
 * of |d|. This idf (the Lucene variant) is never negative, so a very common term still helps a
 * little instead of pushing matching documents down. Terms are `contentTokens` (stopwords
 * removed), plural-folded with `foldPlural` unless `stem: false`.
 */
import { contentTokens, foldPlural } from './tokenize';

/** Above this k, search sorts all candidates instead of keeping a sorted top-k buffer. */
const LARGE_K = 64;

/** Parameters of a BM25 index. */
interface Bm25Options {
  /** Term-frequency saturation (default 1.2). */
  k1?: number;
  /** Length normalization, 0 = none, 1 = full (default 0.75). */
  b?: number;
  /** Fold English plurals before indexing and querying (default true). */
  stem?: boolean;
}

/** One search result. */
interface Bm25Hit<T> {
  doc: T;
  score: number;
  /** Position of the document in the array the index was built from. */
  index: number;
}

/** An immutable BM25 index over `docs`, searched with `search`. */
export class Bm25Index<T> {
  /** Number of indexed documents. */
  readonly size: number;
  readonly k1: number;
  readonly b: number;
  private readonly stem: boolean;
  private readonly docs: readonly T[];
  private readonly termIds = new Map<string, number>();
  /** Postings of term i are docIds/tfs[offsets[i] .. offsets[i + 1]). */
  private readonly offsets: Int32Array;
  private readonly postDocs: Int32Array;
  private readonly postTfs: Float64Array;
  /** The full BM25 contribution of each posting, idf * tf * (k1 + 1) / (tf + norm(d)), precomputed. */
  private readonly postWeights: Float64Array;
  private readonly idf: Float64Array;
  /** k1 * (1 - b + b * |d| / avgdl), precomputed per document. */
  private readonly lengthNorm: Float64Array;
  private readonly docLengths: Int32Array;
  readonly avgDocLength: number;
  // Scratch space reused by every search (searches are synchronous, so never shared mid-flight).
  private readonly scores: Float64Array;
  private readonly touched: Int32Array;

  constructor(docs: readonly T[], text: (d: T) => string, opts: Bm25Options = {}) {
    this.docs = docs;
    this.size = docs.length;
    this.k1 = opts.k1 ?? 1.2;
    this.b = opts.b ?? 0.75;
    this.stem = opts.stem ?? true;
    if (!(this.k1 >= 0)) throw new RangeError(`BM25 k1 must be >= 0, got ${this.k1}`);
    if (!(this.b >= 0 && this.b <= 1)) throw new RangeError(`BM25 b must be in [0, 1], got ${this.b}`);

    const n = docs.length;
    this.docLengths = new Int32Array(n);
    // Pass 1: per-document term counts, collected as (termId, tf) pairs.
    const docTerms: Int32Array[] = new Array(n);
    const docTfs: Int32Array[] = new Array(n);
    const df: number[] = [];
    const local = new Map<number, number>();
    let totalLength = 0;
    for (let d = 0; d < n; d++) {
      const tokens = this.terms(text(docs[d]));
      this.docLengths[d] = tokens.length;
      totalLength += tokens.length;
      local.clear();
      for (const tok of tokens) {
        let id = this.termIds.get(tok);
        if (id === undefined) {
          id = df.length;
          this.termIds.set(tok, id);
          df.push(0);
        }
        local.set(id, (local.get(id) ?? 0) + 1);
      }
      const ids = new Int32Array(local.size);
      const tfs = new Int32Array(local.size);
      let j = 0;
      for (const [id, tf] of local) {
        ids[j] = id;
        tfs[j] = tf;
        df[id]++;
        j++;
      }
      docTerms[d] = ids;
      docTfs[d] = tfs;
    }
    // Pass 2: invert into contiguous postings lists (documents in ascending order per term).
    const termCount = df.length;
    this.offsets = new Int32Array(termCount + 1);
    for (let t = 0; t < termCount; t++) this.offsets[t + 1] = this.offsets[t] + df[t];
    const fill = this.offsets.slice(0, termCount);
    const total = this.offsets[termCount];
    this.postDocs = new Int32Array(total);
    this.postTfs = new Float64Array(total);
    for (let d = 0; d < n; d++) {
      const ids = docTerms[d];
      const tfs = docTfs[d];
      for (let j = 0; j < ids.length; j++) {
        const p = fill[ids[j]]++;
        this.postDocs[p] = d;
        this.postTfs[p] = tfs[j];
      }
    }
    this.idf = new Float64Array(termCount);
    for (let t = 0; t < termCount; t++) this.idf[t] = Math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5));
    this.avgDocLength = n > 0 ? totalLength / n : 0;
    this.lengthNorm = new Float64Array(n);
    for (let d = 0; d < n; d++) {
      const rel = this.avgDocLength > 0 ? this.docLengths[d] / this.avgDocLength : 0;
      this.lengthNorm[d] = this.k1 * (1 - this.b + this.b * rel);
    }
    this.postWeights = new Float64Array(total);
    for (let t = 0; t < termCount; t++) {
      const idf = this.idf[t];
      for (let p = this.offsets[t]; p < this.offsets[t + 1]; p++) {
        const tf = this.postTfs[p];
        this.postWeights[p] = (idf * tf * (this.k1 + 1)) / (tf + this.lengthNorm[this.postDocs[p]]);
      }
    }
    this.scores = new Float64Array(n);
    this.touched = new Int32Array(n);
  }

  /** The index terms of a text (what both documents and queries are cut into). */
  terms(text: string): string[] {
    const tokens = contentTokens(text);
    if (this.stem) for (let i = 0; i < tokens.length; i++) tokens[i] = foldPlural(tokens[i]);
    return tokens;
  }

  /** Number of distinct indexed terms. */
  get vocabularySize(): number {
    return this.idf.length;
  }

  /** Document frequency of a term (after tokenization and folding), 0 when unknown. */
  documentFrequency(term: string): number {
    const t = this.terms(term)[0];
    const id = t === undefined ? undefined : this.termIds.get(t);
    return id === undefined ? 0 : this.offsets[id + 1] - this.offsets[id];
  }

  /**
   * The k best documents for `query` (score > 0 and accepted by `filter`), best first; equal
   * scores are ordered by document position so results are deterministic. Only documents that
   * contain at least one query term are candidates. `adjust`, when given, maps each candidate's
   * BM25 score (and its position in the document array) to the score it is ranked by, e.g. a
   * bonus per satisfied attribute constraint; `filter` then runs only on documents whose ranked
   * score would enter the top k.
   */
  search(
    query: string,
    k: number,
    filter?: (d: T) => boolean,
    adjust?: (d: T, score: number, index: number) => number,
  ): Bm25Hit<T>[] {
    if (!(k > 0) || this.size === 0) return [];
    const { scores, touched } = this;
    let touchedCount = 0;
    const seen = new Set<number>();
    for (const term of this.terms(query)) {
      const id = this.termIds.get(term);
      if (id === undefined || seen.has(id)) continue;
      seen.add(id);
      const end = this.offsets[id + 1];
      const { postDocs, postWeights } = this;
      for (let p = this.offsets[id]; p < end; p++) {
        const d = postDocs[p];
        if (scores[d] === 0) touched[touchedCount++] = d;
        scores[d] += postWeights[p];
      }
    }
    if (k > LARGE_K) return this.collectSorted(touchedCount, k, filter, adjust);
    // Top-k by insertion into a small sorted buffer: k is a carousel size (about 12), far below
    // the number of touched documents, so this beats sorting them all.
    const topIdx: number[] = [];
    const topScore: number[] = [];
    // Every touched score must be reset to 0 for the next search, so the loop never exits early.
    for (let i = 0; i < touchedCount; i++) {
      const d = touched[i];
      let s = scores[d];
      scores[d] = 0;
      if (!(s > 0)) continue;
      const full = topIdx.length >= k;
      if (adjust) s = adjust(this.docs[d], s, d);
      // threshold first: the filter only runs for documents that would enter the top k
      if (full && (s < topScore[k - 1] || (s === topScore[k - 1] && d > topIdx[k - 1]))) continue;
      if (filter && !filter(this.docs[d])) continue;
      let pos = full ? k - 1 : topIdx.length;
      while (pos > 0 && (topScore[pos - 1] < s || (topScore[pos - 1] === s && topIdx[pos - 1] > d))) {
        topScore[pos] = topScore[pos - 1];
        topIdx[pos] = topIdx[pos - 1];
        pos--;
      }
      topScore[pos] = s;
      topIdx[pos] = d;
      if (topIdx.length > k) {
        topIdx.length = k;
        topScore.length = k;
      }
    }
    const out: Bm25Hit<T>[] = new Array(topIdx.length);
    for (let i = 0; i < topIdx.length; i++)
      out[i] = { doc: this.docs[topIdx[i]], score: topScore[i], index: topIdx[i] };
    return out;
  }

  /** Large k: score every candidate, then sort once (insertion would be quadratic). */
  private collectSorted(
    touchedCount: number,
    k: number,
    filter?: (d: T) => boolean,
    adjust?: (d: T, score: number, index: number) => number,
  ): Bm25Hit<T>[] {
    const { scores, touched } = this;
    const hits: Bm25Hit<T>[] = [];
    for (let i = 0; i < touchedCount; i++) {
      const d = touched[i];
      let s = scores[d];
      scores[d] = 0;
      if (!(s > 0)) continue;
      if (adjust) s = adjust(this.docs[d], s, d);
      if (filter && !filter(this.docs[d])) continue;
      hits.push({ doc: this.docs[d], score: s, index: d });
    }
    hits.sort((a, b) => b.score - a.score || a.index - b.index);
    if (hits.length > k) hits.length = k;
    return hits;
  }
}
