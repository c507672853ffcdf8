/**
 * Human-likeness (ConvApparel §5): an embedded discriminator D(c) = P(conversation c is human),
 * trained in-process on unigram + bigram counts of the *user* utterances with L2 logistic
 * regression (C = 1, free intercept; sklearn's default objective). Human = positive class, so
 * recall is the share of human conversations recognised as human and specificity the share of
 * simulated ones recognised as simulated (the paper's Table 1 convention).
 *
 * Provided: k-fold cross-validated metrics with out-of-fold HLS per conversation, a learning curve
 * over training-set size, and the cross-distribution matrix (train on humans vs simulator A, test
 * on held-out humans vs simulator B). LLM-discriminator scores (conversation annotations by
 * `discriminator:<model>` with `fields.p_human`) are collected for display beside them.
 */
import type { Conversation } from '../model';
import { createRng } from '../random';
import { fitLogistic, predictProba, type CsrMatrix, type LogisticModel } from '../stats/logreg';
import { textNgrams } from '../text/ngrams';

/** The n-grams of a conversation's user side (bigrams stay within one utterance). */
export function userNgrams(conv: Conversation): string[] {
  const out: string[] = [];
  for (const t of conv.turns) if (t.user_utterance) out.push(...textNgrams(t.user_utterance, 'dialogue'));
  return out;
}

interface DiscriminatorOptions {
  /** Inverse regularisation (default 1). */
  C?: number;
  /** Keep n-grams that occur in at least this many training conversations (default 2). */
  minDf?: number;
  /** Solver tolerance on the gradient, relative to its value at w = 0 (default 1e-5). */
  tol?: number;
}

/** A fitted discriminator: vocabulary plus logistic model. */
interface Discriminator {
  vocab: Map<string, number>;
  predict(docs: readonly string[][]): Float64Array;
}

/** Documents as integer n-gram ids from one dictionary, so cross-validation folds share the string work. */
interface EncodedDocs {
  ids: Int32Array[];
  dictionary: Map<string, number>;
}

function encodeDocs(docs: readonly string[][], dictionary = new Map<string, number>()): EncodedDocs {
  const ids = docs.map((d) => {
    const out = new Int32Array(d.length);
    for (let i = 0; i < d.length; i++) {
      let id = dictionary.get(d[i]);
      if (id === undefined) {
        id = dictionary.size;
        dictionary.set(d[i], id);
      }
      out[i] = id;
    }
    return out;
  });
  return { ids, dictionary };
}

/** Count vectors (CSR) of encoded documents over the kept columns (`column[id]` = -1 when dropped). */
function vectorizeIds(docs: readonly Int32Array[], column: Int32Array, cols: number): CsrMatrix {
  const scratch = new Float64Array(cols);
  const touched: number[] = [];
  const indptr = new Int32Array(docs.length + 1);
  let nnz = 0;
  for (const d of docs) nnz += d.length;
  const indices = new Int32Array(nnz);
  const data = new Float64Array(nnz);
  let k = 0;
  docs.forEach((d, r) => {
    for (let i = 0; i < d.length; i++) {
      const id = d[i];
      const c = id < column.length ? column[id] : -1;
      if (c < 0) continue;
      if (scratch[c] === 0) touched.push(c);
      scratch[c]++;
    }
    for (const c of touched) {
      indices[k] = c;
      data[k] = scratch[c];
      k++;
      scratch[c] = 0;
    }
    touched.length = 0;
    indptr[r + 1] = k;
  });
  return { rows: docs.length, cols, indptr, indices: indices.subarray(0, k), data: data.subarray(0, k) };
}

/** Trains on encoded documents: vocabulary = ids in at least minDf training documents. */
function trainEncoded(
  docs: readonly Int32Array[],
  labels: ArrayLike<number>,
  dictSize: number,
  opts: DiscriminatorOptions,
): { column: Int32Array; cols: number; model: LogisticModel } {
  const minDf = opts.minDf ?? 2;
  const df = new Int32Array(dictSize);
  const lastSeen = new Int32Array(dictSize).fill(-1);
  docs.forEach((d, r) => {
    for (let i = 0; i < d.length; i++) {
      const id = d[i];
      if (lastSeen[id] !== r) {
        lastSeen[id] = r;
        df[id]++;
      }
    }
  });
  const column = new Int32Array(dictSize).fill(-1);
  let cols = 0;
  for (let id = 0; id < dictSize; id++) if (df[id] >= minDf) column[id] = cols++;
  const model = fitLogistic(vectorizeIds(docs, column, cols), labels, { C: opts.C ?? 1, tol: opts.tol ?? 1e-5 });
  return { column, cols, model };
}

/** Trains a discriminator on tokenised documents with labels 1 = human, 0 = simulated. */
export function trainDiscriminator(
  docs: readonly string[][],
  labels: ArrayLike<number>,
  opts: DiscriminatorOptions = {},
): Discriminator {
  const enc = encodeDocs(docs);
  const { column, cols, model } = trainEncoded(enc.ids, labels, enc.dictionary.size, opts);
  const vocab = new Map<string, number>();
  for (const [g, id] of enc.dictionary) if (column[id] >= 0) vocab.set(g, column[id]);
  return {
    vocab,
    predict: (test) => {
      // unseen n-grams get ids beyond `column` and are dropped by vectorizeIds
      const dict = new Map(enc.dictionary);
      return predictProba(model, vectorizeIds(encodeDocs(test, dict).ids, column, cols));
    },
  };
}

/** Fits on encoded training documents and predicts encoded test documents. */
function fitPredict(
  train: readonly Int32Array[],
  labels: ArrayLike<number>,
  test: readonly Int32Array[],
  dictSize: number,
  opts: DiscriminatorOptions,
): { prob: Float64Array; vocab: number } {
  const { column, cols, model } = trainEncoded(train, labels, dictSize, opts);
  return { prob: predictProba(model, vectorizeIds(test, column, cols)), vocab: cols };
}

/** Binary classification metrics with human as the positive class. */
export interface ClassificationMetrics {
  n: number;
  accuracy: number;
  precision: number;
  recall: number;
  f1: number;
  specificity: number;
  /** Mean P(human) over the human conversations and over the simulated ones. */
  avg_hls_human: number;
  avg_hls_simulated: number;
}

/** Metrics of probabilities against labels (threshold 0.5). */
export function classificationMetrics(prob: ArrayLike<number>, labels: ArrayLike<number>): ClassificationMetrics {
  let tp = 0;
  let fp = 0;
  let tn = 0;
  let fn = 0;
  let sh = 0;
  let ss = 0;
  for (let i = 0; i < labels.length; i++) {
    const pred = prob[i] >= 0.5 ? 1 : 0;
    if (labels[i] === 1) {
      sh += prob[i];
      if (pred) tp++;
      else fn++;
    } else {
      ss += prob[i];
      if (pred) fp++;
      else tn++;
    }
  }
  const r = (a: number, b: number) => (b ? a / b : NaN);
  const precision = r(tp, tp + fp);
  const recall = r(tp, tp + fn);
  return {
    n: labels.length,
    accuracy: r(tp + tn, labels.length),
    precision,
    recall,
    f1: precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0,
    specificity: r(tn, tn + fp),
    avg_hls_human: r(sh, tp + fn),
    avg_hls_simulated: r(ss, tn + fp),
  };
}

/** Stratified fold numbers 0..k-1 for labels (seeded shuffle within each class, then round-robin). */
export function stratifiedFolds(labels: ArrayLike<number>, k: number, seed: string | number): Int32Array {
  const folds = new Int32Array(labels.length);
  const rng = createRng(`folds/${seed}`);
  for (const cls of [0, 1]) {
    const idx: number[] = [];
    for (let i = 0; i < labels.length; i++) if (labels[i] === cls) idx.push(i);
    rng.shuffle(idx).forEach((i, j) => {
      folds[i] = j % k;
    });
  }
  return folds;
}

/** Result of `crossValidateHls`. */
export interface HlsCrossValidation {
  k: number;
  seed: string | number;
  /** Metrics pooled over all out-of-fold predictions. */
  metrics: ClassificationMetrics;
  /** Metrics of each fold. */
  folds: ClassificationMetrics[];
  /** Out-of-fold P(human) for every human conversation, then every simulated one (input order). */
  hls_human: number[];
  hls_simulated: number[];
  vocabulary_size: number;
}

/**
 * k-fold cross-validation (stratified, seeded) of the n-gram discriminator on human vs simulated
 * conversations. Every conversation's HLS is predicted by the model that did not see it.
 */
export function crossValidateHls(
  human: readonly Conversation[],
  simulated: readonly Conversation[],
  opts: DiscriminatorOptions & { k?: number; seed?: string | number } = {},
): HlsCrossValidation {
  const k = opts.k ?? 5;
  const seed = opts.seed ?? 1;
  if (human.length < k || simulated.length < k)
    throw new Error(
      `cross-validation needs at least ${k} conversations on each side (human ${human.length}, simulated ${simulated.length})`,
    );
  const { ids: docs, dictionary } = encodeDocs([...human, ...simulated].map(userNgrams));
  const labels = new Int8Array(docs.length);
  labels.fill(1, 0, human.length);
  const folds = stratifiedFolds(labels, k, seed);
  const prob = new Float64Array(docs.length);
  const foldMetrics: ClassificationMetrics[] = [];
  let vocab = 0;
  for (let f = 0; f < k; f++) {
    const train: number[] = [];
    const test: number[] = [];
    for (let i = 0; i < docs.length; i++) (folds[i] === f ? test : train).push(i);
    const r = fitPredict(
      train.map((i) => docs[i]),
      train.map((i) => labels[i]),
      test.map((i) => docs[i]),
      dictionary.size,
      opts,
    );
    vocab = Math.max(vocab, r.vocab);
    const p = r.prob;
    test.forEach((i, j) => {
      prob[i] = p[j];
    });
    foldMetrics.push(
      classificationMetrics(
        p,
        test.map((i) => labels[i]),
      ),
    );
  }
  return {
    k,
    seed,
    metrics: classificationMetrics(prob, labels),
    folds: foldMetrics,
    hls_human: Array.from(prob.subarray(0, human.length)),
    hls_simulated: Array.from(prob.subarray(human.length)),
    vocabulary_size: vocab,
  };
}

/** Indices 0..n-1 split into a seeded test share and the rest. */
function holdOut(n: number, testFraction: number, seed: string): { train: number[]; test: number[] } {
  const order = createRng(seed).shuffle(Array.from({ length: n }, (_, i) => i));
  const t = Math.max(1, Math.round(n * testFraction));
  return { test: order.slice(0, t), train: order.slice(t) };
}

/** One point of the learning curve. */
export interface LearningPoint {
  train_size: number;
  metrics: ClassificationMetrics;
}

/**
 * Learning curve: a fixed stratified held-out test set (`testFraction`, default 0.2); the
 * discriminator is trained on growing random subsets (half human, half simulated where possible)
 * of the rest. `sizes` defaults to 8 sizes from 20 up to the full training set.
 */
export function hlsLearningCurve(
  human: readonly Conversation[],
  simulated: readonly Conversation[],
  opts: DiscriminatorOptions & { sizes?: readonly number[]; testFraction?: number; seed?: string | number } = {},
): LearningPoint[] {
  const seed = String(opts.seed ?? 1);
  const tf = opts.testFraction ?? 0.2;
  const hd = human.map(userNgrams);
  const sd = simulated.map(userNgrams);
  const hs = holdOut(hd.length, tf, `lc/h/${seed}`);
  const ss = holdOut(sd.length, tf, `lc/s/${seed}`);
  const testDocs = [...hs.test.map((i) => hd[i]), ...ss.test.map((i) => sd[i])];
  const testLabels = [...hs.test.map(() => 1), ...ss.test.map(() => 0)];
  const maxTrain = hs.train.length + ss.train.length;
  const sizes = opts.sizes ?? defaultSizes(maxTrain);
  const rng = createRng(`lc/order/${seed}`);
  const hOrder = rng.shuffle(hs.train);
  const sOrder = rng.shuffle(ss.train);
  const out: LearningPoint[] = [];
  for (const size of sizes) {
    const n = Math.min(size, maxTrain);
    let nh = Math.min(hOrder.length, Math.ceil(n / 2));
    const ns = Math.min(sOrder.length, n - nh);
    nh = Math.min(hOrder.length, n - ns);
    if (nh < 1 || ns < 1) continue;
    const docs = [...hOrder.slice(0, nh).map((i) => hd[i]), ...sOrder.slice(0, ns).map((i) => sd[i])];
    const labels = [...new Array<number>(nh).fill(1), ...new Array<number>(ns).fill(0)];
    const d = trainDiscriminator(docs, labels, { ...opts, minDf: n < 100 ? 1 : opts.minDf });
    out.push({ train_size: nh + ns, metrics: classificationMetrics(d.predict(testDocs), testLabels) });
  }
  return out;
}

function defaultSizes(max: number): number[] {
  const out = new Set<number>();
  const lo = Math.min(20, max);
  for (let i = 0; i < 8; i++) out.add(Math.round(lo * Math.pow(max / lo, i / 7)));
  return [...out].sort((a, b) => a - b);
}

/** One cell of the cross-distribution matrix. */
export interface CrossCell {
  train: string;
  test: string;
  metrics: ClassificationMetrics;
}

/**
 * Cross-distribution matrix: for every simulator A, train on humans vs A (training splits), then
 * test on the held-out humans vs every simulator B's held-out conversations.
 */
export function crossDistribution(
  human: readonly Conversation[],
  simulators: readonly { name: string; conversations: readonly Conversation[] }[],
  opts: DiscriminatorOptions & { testFraction?: number; seed?: string | number } = {},
): CrossCell[] {
  const seed = String(opts.seed ?? 1);
  const tf = opts.testFraction ?? 0.2;
  const hd = human.map(userNgrams);
  const hs = holdOut(hd.length, tf, `cd/h/${seed}`);
  const sims = simulators.map((s, j) => {
    const docs = s.conversations.map(userNgrams);
    return { name: s.name, docs, split: holdOut(docs.length, tf, `cd/s${j}/${seed}`) };
  });
  const cells: CrossCell[] = [];
  for (const a of sims) {
    const docs = [...hs.train.map((i) => hd[i]), ...a.split.train.map((i) => a.docs[i])];
    const labels = [...hs.train.map(() => 1), ...a.split.train.map(() => 0)];
    const d = trainDiscriminator(docs, labels, opts);
    for (const b of sims) {
      const testDocs = [...hs.test.map((i) => hd[i]), ...b.split.test.map((i) => b.docs[i])];
      const testLabels = [...hs.test.map(() => 1), ...b.split.test.map(() => 0)];
      cells.push({ train: a.name, test: b.name, metrics: classificationMetrics(d.predict(testDocs), testLabels) });
    }
  }
  return cells;
}

/** LLM-discriminator scores found on conversations. */
export interface LlmDiscriminatorScores {
  /** The annotators found (`discriminator:<model>`). */
  annotators: string[];
  /** Conversations with a score. */
  n: number;
  mean_p_human: number;
  /** Score per conversation (NaN when absent), parallel to the input. */
  p_human: number[];
}

/** Collects `fields.p_human` of `discriminator:*` annotations (the latest one, or the named annotator). */
export function llmDiscriminatorScores(
  conversations: readonly Conversation[],
  annotator?: string,
): LlmDiscriminatorScores {
  const names = new Set<string>();
  const scores = conversations.map((c) => {
    const list = c.annotations ?? [];
    for (let i = list.length - 1; i >= 0; i--) {
      const a = list[i];
      if (annotator ? a.annotator !== annotator : !a.annotator.startsWith('discriminator:')) continue;
      const p = a.fields?.p_human;
      if (typeof p === 'number' && p >= 0 && p <= 1) {
        names.add(a.annotator);
        return p;
      }
    }
    return NaN;
  });
  const present = scores.filter((v) => !Number.isNaN(v));
  return {
    annotators: [...names].sort(),
    n: present.length,
    mean_p_human: present.length ? present.reduce((s, v) => s + v, 0) / present.length : NaN,
    p_human: scores,
  };
}
