/**
 * A lexical dialogue-act tagger for user utterances (ConvApparel user acts), used when neither
 * annotations nor an LLM judge provide acts.
 *
 * Model: one-vs-rest L2 logistic regression (C = 1) over binary unigram + bigram features,
 * trained in-process (the built-in model on the examples in taggerSeed.ts, or on annotated data
 * through `ActTagger.train`), combined with high-precision keyword rules for the acts whose
 * wording is formulaic (greetings and thanks, explicit acceptance, rejection, complaints). An
 * utterance gets every act whose probability is at least the threshold (0.5) plus every act a rule
 * fires for; when nothing qualifies it gets its single most probable act.
 */
import { CONVAPPAREL_TAXONOMY } from '../taxonomy';
import { createRng } from '../random';
import { csrFromRows, fitLogistic, sigmoid, type LogisticModel } from '../stats/logreg';
import { textNgrams } from '../text/ngrams';
import { TAGGER_SEED } from './taggerSeed';

/** One labelled utterance. */
export interface TaggedExample {
  text: string;
  acts: readonly string[];
}

/** Keyword rules: an act and a pattern that signals it with high precision. */
const RULES: readonly { act: string; pattern: RegExp }[] = [
  {
    act: 'greet_thank',
    pattern:
      /^\s*(hi|hello|hey|good (morning|afternoon|evening))\b|\b(thanks|thank you|thx|ty|bye|goodbye|good bye|have a (good|great|nice) (day|night|one|evening))\b/i,
  },
  {
    act: 'accept_recommendation',
    pattern:
      /\b(i'?ll|i will|i'?m going to|gonna) (take|buy|order|get|purchase|go with)\b|\badd(ing)? (it|them|that|this|those|these|the [\w ]+) to (my )?cart\b|\bthat'?s the one\b|\bsold\b/i,
  },
  {
    act: 'reject_recommendation',
    pattern:
      /\b(not (really )?(my style|for me|my taste|my thing|interested)|i don'?t (really )?(like|want) (it|that|this|those|these|them|any)|none of (these|those|them)|no thanks|not what i'?m looking for)\b/i,
  },
  {
    act: 'provide_feedback_negative',
    pattern:
      /\b(not helpful|unhelpful|useless|(you'?re|you are) not listening|already (told|said)|doesn'?t make (any )?sense|frustrat\w*|annoy\w*|waste of time)\b/i,
  },
  {
    act: 'ask_clarification',
    pattern: /^\s*(what|which|how|is it|is that|are they|are these|does it|do they|can it|can they)\b[^.!]*\?/i,
  },
];

/** The ConvApparel user acts the built-in tagger predicts. */
const TAGGER_ACTS: readonly string[] = CONVAPPAREL_TAXONOMY.user;

interface TaggerOptions {
  /** Acts to learn (default: the ConvApparel user acts). */
  acts?: readonly string[];
  /** Inverse regularisation of each one-vs-rest model. Default 1. */
  C?: number;
  /** Probability at which an act is assigned. Default 0.5. */
  threshold?: number;
  /** Use the keyword rules. Default true. */
  rules?: boolean;
}

/** A trained tagger. */
export class ActTagger {
  private constructor(
    private readonly vocab: Map<string, number>,
    private readonly models: Map<string, LogisticModel | number>,
    readonly acts: readonly string[],
    private readonly threshold: number,
    private readonly useRules: boolean,
  ) {}

  private static builtin: ActTagger | undefined;

  /** The built-in tagger, trained once on the built-in examples (about 20 ms). */
  static default(): ActTagger {
    ActTagger.builtin ??= ActTagger.train(TAGGER_SEED);
    return ActTagger.builtin;
  }

  /**
   * Trains a tagger on labelled utterances. Acts outside `options.acts` are ignored; an act with
   * no positive (or no negative) example becomes a constant.
   */
  static train(examples: readonly TaggedExample[], options: TaggerOptions = {}): ActTagger {
    const acts = options.acts ?? TAGGER_ACTS;
    const vocab = new Map<string, number>();
    const rows = examples.map((ex) => {
      const seen = new Set(textNgrams(ex.text, 'dialogue'));
      const row: [number, number][] = [];
      for (const g of seen) {
        let id = vocab.get(g);
        if (id === undefined) {
          id = vocab.size;
          vocab.set(g, id);
        }
        row.push([id, 1]);
      }
      return row;
    });
    const X = csrFromRows(rows, vocab.size);
    const models = new Map<string, LogisticModel | number>();
    for (const act of acts) {
      const y = examples.map((ex) => (ex.acts.includes(act) ? 1 : 0));
      const pos = y.reduce<number>((s, v) => s + v, 0);
      if (pos === 0 || pos === y.length) models.set(act, pos === 0 ? 0 : 1);
      else models.set(act, fitLogistic(X, y, { C: options.C ?? 1, tol: 1e-4 }));
    }
    return new ActTagger(vocab, models, acts, options.threshold ?? 0.5, options.rules ?? true);
  }

  /** P(act | utterance) from the statistical model, for every act. */
  scores(text: string): Record<string, number> {
    const ids: number[] = [];
    for (const g of new Set(textNgrams(text, 'dialogue'))) {
      const id = this.vocab.get(g);
      if (id !== undefined) ids.push(id);
    }
    const out: Record<string, number> = {};
    for (const act of this.acts) {
      const m = this.models.get(act)!;
      if (typeof m === 'number') {
        out[act] = m;
        continue;
      }
      let z = m.intercept;
      for (const id of ids) z += m.coef[id];
      out[act] = sigmoid(z);
    }
    return out;
  }

  /**
   * The acts the tagger is sure of: those at or above the threshold plus those a keyword rule
   * fires for, without the most-probable fallback of `tag` ([] when it is unsure). Readers that
   * compare an utterance with what a simulator claims (the checker's read-back) use this, so a
   * guess is never counted as a disagreement.
   */
  confidentTags(text: string | undefined): string[] {
    if (!text || !text.trim()) return [];
    const s = this.scores(text);
    const chosen = new Set(this.acts.filter((a) => s[a] >= this.threshold));
    if (this.useRules) for (const r of RULES) if (this.acts.includes(r.act) && r.pattern.test(text)) chosen.add(r.act);
    return this.acts.filter((a) => chosen.has(a));
  }

  /** The acts of one user utterance (never empty for non-empty text; [] for empty text). */
  tag(text: string | undefined): string[] {
    if (!text || !text.trim()) return [];
    const s = this.scores(text);
    const chosen = new Set(this.acts.filter((a) => s[a] >= this.threshold));
    if (this.useRules) for (const r of RULES) if (this.acts.includes(r.act) && r.pattern.test(text)) chosen.add(r.act);
    if (chosen.size === 0) {
      let best = this.acts[0];
      for (const a of this.acts) if (s[a] > s[best]) best = a;
      chosen.add(best);
    }
    return this.acts.filter((a) => chosen.has(a));
  }
}

/** Agreement of predicted act sets with gold act sets. */
interface TaggerEvaluation {
  utterances: number;
  /** Share of utterances whose predicted set equals the gold set. */
  exactMatch: number;
  /** Share of utterances where the most probable predicted act is one of the gold acts. */
  primaryAccuracy: number;
  microPrecision: number;
  microRecall: number;
  microF1: number;
  perAct: Record<string, { precision: number; recall: number; f1: number; support: number }>;
}

/** Scores `tagger` on gold examples (micro-averaged over acts, plus exact-set and primary-act accuracy). */
export function evaluateTagger(tagger: ActTagger, gold: readonly TaggedExample[]): TaggerEvaluation {
  const preds = gold.map((ex) => ({ pred: tagger.tag(ex.text), scores: tagger.scores(ex.text), gold: ex.acts }));
  return evaluatePredictions(tagger.acts, preds);
}

/**
 * k-fold cross-validation of the tagger on grouped gold data (a group = one dialogue, so
 * utterances of a dialogue never sit on both sides). Each fold trains on the other folds' examples
 * (plus the built-in examples when `withSeed`) and evaluates on its own; the evaluations of all
 * folds are pooled by re-tagging every held-out utterance with its fold's model.
 */
export function crossValidateTagger(
  groups: readonly (readonly TaggedExample[])[],
  opts: { k?: number; seed?: string | number; withSeed?: boolean } & TaggerOptions = {},
): TaggerEvaluation {
  const k = Math.max(2, Math.min(opts.k ?? 5, groups.length));
  const order = createRng(opts.seed ?? 'tagger-cv').shuffle(groups.map((_, i) => i));
  const fold = new Int32Array(groups.length);
  order.forEach((g, i) => {
    fold[g] = i % k;
  });
  const predictions: { pred: string[]; scores: Record<string, number>; gold: readonly string[] }[] = [];
  let acts: readonly string[] = opts.acts ?? TAGGER_ACTS;
  for (let f = 0; f < k; f++) {
    const train: TaggedExample[] = opts.withSeed ? [...TAGGER_SEED] : [];
    const test: TaggedExample[] = [];
    groups.forEach((g, i) => (fold[i] === f ? test : train).push(...g));
    const tagger = ActTagger.train(train, opts);
    acts = tagger.acts;
    for (const ex of test)
      predictions.push({ pred: tagger.tag(ex.text), scores: tagger.scores(ex.text), gold: ex.acts });
  }
  return evaluatePredictions(acts, predictions);
}

function evaluatePredictions(
  acts: readonly string[],
  preds: readonly { pred: string[]; scores: Record<string, number>; gold: readonly string[] }[],
): TaggerEvaluation {
  const n = preds.length;
  let exact = 0;
  let primary = 0;
  let tp = 0;
  let fp = 0;
  let fn = 0;
  const per = new Map<string, { tp: number; fp: number; fn: number }>();
  for (const a of acts) per.set(a, { tp: 0, fp: 0, fn: 0 });
  for (const p of preds) {
    const pred = new Set(p.pred);
    const truth = new Set(p.gold.filter((a) => acts.includes(a)));
    if (pred.size === truth.size && [...pred].every((a) => truth.has(a))) exact++;
    const ranked = [...pred].sort((a, b) => p.scores[b] - p.scores[a]);
    if (ranked.length && truth.has(ranked[0])) primary++;
    for (const a of acts) {
      const c = per.get(a)!;
      if (pred.has(a) && truth.has(a)) {
        c.tp++;
        tp++;
      } else if (pred.has(a)) {
        c.fp++;
        fp++;
      } else if (truth.has(a)) {
        c.fn++;
        fn++;
      }
    }
  }
  const ratio = (a: number, b: number) => (b ? a / b : NaN);
  const f1 = (p: number, r: number) => (p + r > 0 ? (2 * p * r) / (p + r) : 0);
  const perAct: TaggerEvaluation['perAct'] = {};
  for (const [a, c] of per) {
    const p = ratio(c.tp, c.tp + c.fp);
    const r = ratio(c.tp, c.tp + c.fn);
    perAct[a] = { precision: p, recall: r, f1: f1(p || 0, r || 0), support: c.tp + c.fn };
  }
  const mp = ratio(tp, tp + fp);
  const mr = ratio(tp, tp + fn);
  return {
    utterances: n,
    exactMatch: ratio(exact, n),
    primaryAccuracy: ratio(primary, n),
    microPrecision: mp,
    microRecall: mr,
    microF1: f1(mp || 0, mr || 0),
    perAct,
  };
}
