/**
 * One-call report builders over loaded populations, shared by the CLI and the metric panels.
 * Each returns plain, JSON-serialisable data (after NaN → null) including what charts need
 * (histograms on shared bins and box-plot summaries per feature), plus a Markdown rendering.
 */
import { conversationCondition, type Conversation } from '../model';
import { sharedHistogram, summarize, type Histogram, type Summary } from '../stats/descriptive';
import { counterfactualValidation, type CounterfactualReport } from './counterfactual';
import { PLSA_DEFAULT_FEATURES, describeActSource, featureTable, presentValues, type FeatureOptions, type FeatureTable } from './features';
import { crossDistribution, crossValidateHls, hlsLearningCurve, llmDiscriminatorScores, type CrossCell, type HlsCrossValidation, type LearningPoint, type LlmDiscriminatorScores } from './hls';
import type { Population } from './load';
import { groupBy } from './load';
import { allCloserSummaries, comparePopulations, splitHalfBaseline, type BaselineReport, type CloserSummary, type PlsaReport } from './plsa';
import { baselineMarkdown, closerMarkdown, counterfactualMarkdown, hlsMarkdown, plsaMarkdown } from './render';

/** Distribution data of one feature across populations, for histograms and box plots. */
export interface FeatureDistribution {
  feature: string;
  populations: { file: string; histogram: Histogram; summary: Summary }[];
}

/** Histograms (shared bins) and summaries of each feature over several labelled tables. */
export function featureDistributions(tables: readonly { file: string; table: FeatureTable }[], features: readonly string[], bins = 20): FeatureDistribution[] {
  return features.map((f) => {
    const samples = tables.map((t) => presentValues(t.table.values[f]));
    const hists = sharedHistogram(samples, bins);
    return { feature: f, populations: tables.map((t, i) => ({ file: t.file, histogram: hists[i], summary: summarize(samples[i]) })) };
  });
}

export interface PlsaOptions {
  features?: readonly string[];
  featureOptions?: FeatureOptions;
  /** Add the split-half baseline of the reference with halves of this size. */
  baselineSize?: number;
  seed?: string | number;
  bins?: number;
}

/** Everything a PLSA view shows. */
export interface PlsaBundle {
  report: PlsaReport;
  closer: CloserSummary[];
  baseline?: BaselineReport;
  distributions: FeatureDistribution[];
  actSource: string;
  ux: string;
}

/** Features, tests, closer-than summaries, optional baseline and chart data in one call. */
export function buildPlsa(reference: Population, candidates: readonly Population[], opts: PlsaOptions = {}): PlsaBundle {
  const features = opts.features ? [...opts.features] : [...PLSA_DEFAULT_FEATURES];
  const fo = opts.featureOptions ?? {};
  const ref = { file: reference.file, table: featureTable(reference.conversations, features, fo) };
  const cands = candidates.map((c) => ({ file: c.file, table: featureTable(c.conversations, features, fo) }));
  const report = comparePopulations(ref, cands, features);
  return {
    report,
    closer: allCloserSummaries(report),
    baseline: opts.baselineSize ? splitHalfBaseline(ref.table, ref.file, { size: opts.baselineSize, seed: opts.seed ?? 1 }) : undefined,
    distributions: featureDistributions([ref, ...cands], features, opts.bins),
    actSource: describeActSource(fo.acts ?? { kind: 'tagger' }),
    ux: fo.ux ?? 'auto',
  };
}

/** Markdown of a PLSA bundle (what `simlens metrics plsa` prints). */
export function plsaBundleMarkdown(b: PlsaBundle, opts: { means?: boolean } = {}): string {
  const parts = ['## Population-level statistical alignment', '', `Acts: ${b.actSource}; UX: ${b.ux}.`, '', plsaMarkdown(b.report, { means: opts.means })];
  if (b.closer.length) parts.push('', closerMarkdown(b.closer));
  if (b.baseline) parts.push('', baselineMarkdown(b.baseline, b.report.reference.file));
  return parts.join('\n');
}

export interface HlsOptions {
  k?: number;
  seed?: string | number;
  minDf?: number;
  curve?: boolean;
  cross?: boolean;
}

/** Everything a human-likeness view shows. */
export interface HlsBundle {
  human: { file: string; n: number };
  simulated: { file: string; n: number }[];
  crossValidation: HlsCrossValidation;
  learningCurve?: LearningPoint[];
  crossDistribution?: CrossCell[];
  llm: { population: string; scores: LlmDiscriminatorScores }[];
}

/** Cross-validation (simulated files pooled), optional learning curve and cross-distribution matrix. */
export function buildHls(human: Population, simulated: readonly Population[], opts: HlsOptions = {}): HlsBundle {
  const pooled = simulated.flatMap((s) => s.conversations);
  const seed = opts.seed ?? 1;
  return {
    human: { file: human.file, n: human.conversations.length },
    simulated: simulated.map((s) => ({ file: s.file, n: s.conversations.length })),
    crossValidation: crossValidateHls(human.conversations, pooled, { k: opts.k ?? 5, seed, minDf: opts.minDf }),
    learningCurve: opts.curve ? hlsLearningCurve(human.conversations, pooled, { seed, minDf: opts.minDf }) : undefined,
    crossDistribution: opts.cross && simulated.length >= 2
      ? crossDistribution(human.conversations, simulated.map((s) => ({ name: s.file, conversations: s.conversations })), { seed, minDf: opts.minDf })
      : undefined,
    llm: [human, ...simulated].map((p) => ({ population: p.file, scores: llmDiscriminatorScores(p.conversations) })),
  };
}

/** Markdown of a human-likeness bundle. */
export function hlsBundleMarkdown(b: HlsBundle): string {
  return `## Human-likeness\n\nHuman: ${b.human.file} (n = ${b.human.n}); simulated: ${b.simulated.map((s) => `${s.file} (n = ${s.n})`).join(', ')}.\n\n${hlsMarkdown(b.crossValidation, b.learningCurve, b.crossDistribution, b.llm)}`;
}

/** Splits a population into the two conditions; throws a message naming the file when one is empty. */
export function splitConditions(pop: Population, from: string, to: string): { from: Conversation[]; to: Conversation[] } {
  const g = groupBy(pop.conversations, conversationCondition);
  const a = g.get(from) ?? [];
  const b = g.get(to) ?? [];
  if (!a.length || !b.length) {
    throw new Error(`${pop.file}: needs conversations in both conditions "${from}" and "${to}" (found: ${[...g.entries()].map(([k, v]) => `${k} ${v.length}`).join(', ')})`);
  }
  return { from: a, to: b };
}

/** Counterfactual validation of simulator runs that cover both conditions. */
export function buildCounterfactual(
  human: Population,
  simulators: readonly Population[],
  opts: { from?: string; to?: string; features?: readonly string[]; featureOptions?: FeatureOptions } = {},
): CounterfactualReport & { actSource: string; ux: string } {
  const from = opts.from ?? 'good';
  const to = opts.to ?? 'bad';
  const features = opts.features ? [...opts.features] : [...PLSA_DEFAULT_FEATURES];
  const fo = opts.featureOptions ?? {};
  const tables = (p: Population) => {
    const s = splitConditions(p, from, to);
    return { from: featureTable(s.from, features, fo), to: featureTable(s.to, features, fo) };
  };
  const report = counterfactualValidation(tables(human), simulators.map((s) => ({ name: s.file, ...tables(s) })), features, { fromName: from, toName: to });
  return { ...report, actSource: describeActSource(fo.acts ?? { kind: 'tagger' }), ux: fo.ux ?? 'auto' };
}

/** Markdown of a counterfactual report. */
export function counterfactualBundleMarkdown(r: CounterfactualReport & { actSource: string; ux: string }): string {
  return `## Counterfactual validation\n\nActs: ${r.actSource}; UX: ${r.ux}.\n\n${counterfactualMarkdown(r)}`;
}
