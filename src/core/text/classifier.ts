/**
 * A multinomial naive Bayes classifier over word unigrams and bigrams with Laplace (additive)
 * smoothing. SimLens uses it where a cheap, deterministic text classifier is enough: mapping an
 * agent utterance to an agent act when the agent does not report one, and as a baseline
 * human-vs-simulator discriminator.
 *
 * Features of a text: the `tokenize` unigrams, the bigrams of adjacent tokens ("a b"), and a
 * `<?>` marker when the text contains a question mark (tokenization drops punctuation, but for
 * dialogue acts a question mark is one of the strongest cues).
 *
 *   P(c | x) ∝ P(c) * prod_f P(f | c)^count(f, x)
 *   P(f | c) = (count(f, c) + alpha) / (total(c) + alpha * |V|)
 *
 * Features never seen in training are ignored. `confidence` is the posterior probability of the
 * predicted label. Ties go to the label that sorts first, so results never depend on input order.
 */
import * as z from 'zod';
import { textNgrams } from './ngrams';
import { zodErrorMessage } from '../jsonl/zodIssues';

/** The features of a text, with repeats (multinomial counts): `textNgrams` in the `words` style. */
export function lexicalFeatures(text: string): string[] {
  return textNgrams(text, 'words');
}

const ModelJson = z.object({
  kind: z.literal('simlens-lexical-nb'),
  version: z.literal(1),
  alpha: z.number().positive(),
  labels: z.array(z.string()).min(1),
  doc_counts: z.array(z.number().int().nonnegative()),
  /** feature -> count per label (same order as `labels`). */
  counts: z.record(z.string(), z.array(z.number().nonnegative())),
});

/** One labelled text. */
export interface TrainingExample {
  text: string;
  label: string;
}

/** The trained classifier (immutable); see the module comment for the model. */
export class LexicalClassifier {
  private readonly labelList: string[];
  private readonly docCounts: number[];
  private readonly counts: Map<string, number[]>;
  private readonly alpha: number;
  private readonly logPrior: Float64Array;
  /** feature -> log P(f | c) per label. */
  private readonly logLikelihood = new Map<string, Float64Array>();

  private constructor(labels: string[], docCounts: number[], counts: Map<string, number[]>, alpha: number) {
    this.labelList = labels;
    this.docCounts = docCounts;
    this.counts = counts;
    this.alpha = alpha;
    const L = labels.length;
    const totalDocs = docCounts.reduce((a, b) => a + b, 0);
    this.logPrior = new Float64Array(L);
    for (let c = 0; c < L; c++) {
      // smoothed prior so a label with no documents (possible after fromJSON) stays finite
      this.logPrior[c] = Math.log((docCounts[c] + alpha) / (totalDocs + alpha * L));
    }
    const totals = new Float64Array(L);
    for (const row of counts.values()) for (let c = 0; c < L; c++) totals[c] += row[c];
    const V = counts.size;
    for (const [f, row] of counts) {
      const ll = new Float64Array(L);
      for (let c = 0; c < L; c++) ll[c] = Math.log((row[c] + alpha) / (totals[c] + alpha * V));
      this.logLikelihood.set(f, ll);
    }
  }

  /** Trains on labelled texts. `alpha` is the additive smoothing constant (default 1). */
  static train(examples: readonly TrainingExample[], opts: { alpha?: number } = {}): LexicalClassifier {
    const alpha = opts.alpha ?? 1;
    if (!(alpha > 0)) throw new RangeError(`LexicalClassifier: alpha must be > 0, got ${alpha}`);
    if (examples.length === 0) throw new Error('LexicalClassifier: no training examples');
    const labels = [...new Set(examples.map((e) => e.label))].sort();
    const index = new Map(labels.map((l, i) => [l, i]));
    const docCounts = new Array<number>(labels.length).fill(0);
    const counts = new Map<string, number[]>();
    for (const ex of examples) {
      const c = index.get(ex.label)!;
      docCounts[c]++;
      for (const f of lexicalFeatures(ex.text)) {
        let row = counts.get(f);
        if (!row) {
          row = new Array<number>(labels.length).fill(0);
          counts.set(f, row);
        }
        row[c]++;
      }
    }
    return new LexicalClassifier(labels, docCounts, sortedMap(counts), alpha);
  }

  /** The most probable label and its posterior probability. */
  predict(text: string): { label: string; confidence: number } {
    const scores = this.scores(text);
    let best = 0;
    for (let c = 1; c < scores.length; c++) if (scores[c] > scores[best]) best = c;
    let sum = 0;
    for (let c = 0; c < scores.length; c++) sum += Math.exp(scores[c] - scores[best]);
    return { label: this.labelList[best], confidence: 1 / sum };
  }

  /** Posterior probability of every label, in `labels()` order. */
  probabilities(text: string): number[] {
    const scores = this.scores(text);
    const max = Math.max(...scores);
    const exp = scores.map((s) => Math.exp(s - max));
    const sum = exp.reduce((a, b) => a + b, 0);
    return exp.map((e) => e / sum);
  }

  /** The labels, sorted. */
  labels(): string[] {
    return this.labelList.slice();
  }

  /** A plain JSON form; `fromJSON` restores an identical classifier. */
  toJSON(): unknown {
    const counts: Record<string, number[]> = {};
    for (const [f, row] of this.counts) counts[f] = row.slice();
    return {
      kind: 'simlens-lexical-nb',
      version: 1,
      alpha: this.alpha,
      labels: this.labelList.slice(),
      doc_counts: this.docCounts.slice(),
      counts,
    };
  }

  /** Restores a classifier saved with `toJSON`; throws naming the bad field. */
  static fromJSON(value: unknown): LexicalClassifier {
    const parsed = ModelJson.safeParse(value);
    if (!parsed.success)
      throw new Error(zodErrorMessage('LexicalClassifier.fromJSON: invalid model', parsed.error, value));
    const m = parsed.data;
    const L = m.labels.length;
    if (new Set(m.labels).size !== L) throw new Error('LexicalClassifier.fromJSON: duplicate labels');
    if (m.doc_counts.length !== L)
      throw new Error(`LexicalClassifier.fromJSON: doc_counts has ${m.doc_counts.length} entries, expected ${L}`);
    const counts = new Map<string, number[]>();
    for (const [f, row] of Object.entries(m.counts)) {
      if (row.length !== L)
        throw new Error(`LexicalClassifier.fromJSON: counts["${f}"] has ${row.length} entries, expected ${L}`);
      counts.set(f, row.slice());
    }
    return new LexicalClassifier(m.labels.slice(), m.doc_counts.slice(), sortedMap(counts), m.alpha);
  }

  private scores(text: string): number[] {
    const scores = Array.from(this.logPrior);
    for (const f of lexicalFeatures(text)) {
      const ll = this.logLikelihood.get(f);
      if (!ll) continue;
      for (let c = 0; c < scores.length; c++) scores[c] += ll[c];
    }
    return scores;
  }
}

/** Sorted by key, so JSON output and floating-point summation order never depend on input order. */
function sortedMap(m: Map<string, number[]>): Map<string, number[]> {
  return new Map([...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
}
