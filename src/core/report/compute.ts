/**
 * Computes a report from a report spec: loads and filters the populations, runs the metrics core
 * and builds the report. Used by the metric panels (in the extension host) and by tests; the CLI
 * fidelity report uses `fidelity.ts`.
 *
 * Long computations yield to the event loop between steps, report progress and stop with
 * `CancelledError` when the signal is aborted (between steps: one cross-validation fold or one
 * feature table is the unit of work).
 */
import { existsSync } from 'node:fs';
import type { Conversation } from '../model';
import { conversationCondition, conversationId, conversationSystem } from '../model';
import {
  featureTableOf,
  parseActSource,
  PLSA_DEFAULT_FEATURES,
  type FeatureOptions,
  type FeatureTable,
} from '../metrics/features';
import { comparePopulations, splitHalfBaseline } from '../metrics/plsa';
import { crossDistribution, crossValidateHls, hlsLearningCurve, llmDiscriminatorScores } from '../metrics/hls';
import { counterfactualValidation } from '../metrics/counterfactual';
import { domainWarningsOf, populationDomain, type DomainCount } from '../metrics/domain';
import {
  dsKl,
  rankingAgreement,
  userActCounts,
  zhangBalogSummary,
  type RewardConfig,
  type ZbSummary,
} from '../metrics/zhangBalog';
import { alterEvalCurves, alterEvalImprovement, pepperCurves, type AlterEvalImprovement } from '../metrics/recsys';
import type { Report, ReportInput } from './model';
import {
  defaultLabel,
  describeFilter,
  facetsMatch,
  PopulationLoader,
  sampleUpTo,
  uniqueLabels,
  type LoadedPopulation,
  type PopulationSpec,
} from './populations';
import type { CounterfactualSpec, HlsSpec, InvariantsSpec, PlsaSpec, ReportSpec, SimulationSpec } from './specs';
import { InvariantChecker } from '../check';
import { checkOptionsFromRun } from '../run/checkOptions';
import { buildInvariantsReport } from './builders/invariants';
import { buildPlsaReport } from './builders/plsa';
import { buildHlsReport, type HlsRun } from './builders/hls';
import { buildCounterfactualReport } from './builders/counterfactual';
import { buildSimulationReport, type SimulationPopulation } from './builders/simulation';
import {
  countOutcomes,
  describeFailures,
  failedCount,
  isFailedConversation,
  outcomeClass,
  tallyOutcomes,
  type OutcomeClass,
} from './outcomes';
import { checkFeatureFile, featureRowOf, readFeatureFile, type FeatureRow, type FeatureSources } from './featureFile';
import { inputRecord } from '../run/annotationShard';
import { InputProblemError, noConversationsError } from './inputProblem';

/** Thrown when a computation is cancelled. */
export class CancelledError extends Error {
  constructor() {
    super('cancelled');
    this.name = 'CancelledError';
  }
}

/** Where a computation runs and how it reports. */
export interface ComputeContext {
  /** Resolves relative files (default process.cwd()). */
  cwd?: string;
  signal?: AbortSignal;
  /** Progress: a message and, when known, the share done in [0, 1]. */
  progress?: (message: string, fraction?: number) => void;
  /** Shared loader (tests and the fidelity report reuse one). */
  loader?: PopulationLoader;
  /** Fixed "generated" time (tests). */
  now?: () => Date;
}

/** Throws CancelledError when aborted, reports progress, and yields to the event loop. */
export async function checkpoint(ctx: ComputeContext, message?: string, fraction?: number): Promise<void> {
  if (ctx.signal?.aborted) throw new CancelledError();
  if (message) ctx.progress?.(message, fraction);
  await new Promise<void>((r) => setImmediate(r));
  if (ctx.signal?.aborted) throw new CancelledError();
}

function loaderOf(ctx: ComputeContext): PopulationLoader {
  return ctx.loader ?? new PopulationLoader(ctx.cwd);
}

/** What the report says about a population besides its data. */
type PopulationInfo = Omit<LoadedPopulation, 'conversations' | 'lines'>;

/** A population of the feature reports (PLSA, counterfactual): one feature row per conversation. */
interface FeaturePopulation extends PopulationInfo {
  rows: FeatureRow[];
  /** The domain the conversations show (absent for feature files, which have no conversations). */
  domain?: DomainCount;
}

function inputOf(p: LoadedPopulation | FeaturePopulation): ReportInput {
  const i: ReportInput = { label: p.label, file: p.file, n: 'rows' in p ? p.rows.length : p.conversations.length };
  if (p.filter) i.filter = p.filter;
  return i;
}

function problemsOf(pops: readonly PopulationInfo[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const p of pops) {
    if (seen.has(p.file)) continue;
    seen.add(p.file);
    const shown = p.problems.slice(0, 5);
    out.push(...shown);
    const count = p.problemCount ?? p.problems.length;
    if (count > shown.length) out.push(`${p.file}: ${count - shown.length} more problem line(s) not shown`);
  }
  return out;
}

async function loadAll(ctx: ComputeContext, specs: readonly PopulationSpec[]): Promise<LoadedPopulation[]> {
  const loader = loaderOf(ctx);
  const out: LoadedPopulation[] = [];
  for (const [i, s] of specs.entries()) {
    await checkpoint(ctx, `Reading ${s.file}…`, (i / specs.length) * 0.3);
    out.push(await loader.load(s));
  }
  const labels = uniqueLabels(out.map((p) => p.label));
  out.forEach((p, i) => (p.label = labels[i]));
  return out;
}

/** Removes the failed conversations of a population (keeping `lines` parallel). */
function dropFailures(p: LoadedPopulation): void {
  const keep = p.conversations.map((c) => !isFailedConversation(c));
  p.conversations = p.conversations.filter((_, i) => keep[i]);
  if (p.lines) p.lines = p.lines.filter((_, i) => keep[i]);
}

/** The outcome class of each conversation (or feature row) of a population. */
function classesOf(p: LoadedPopulation | FeaturePopulation): OutcomeClass[] {
  return 'rows' in p ? p.rows.map((r) => r.outcome) : p.conversations.map(outcomeClass);
}

/**
 * Leaves failed conversations (recommender errors, other run failures) out of each population, in
 * place, since every metric computed here describes user behaviour; returns one warning per
 * population that had failures. Throws when a population has nothing else.
 */
function excludeFailures(pops: (LoadedPopulation | FeaturePopulation)[]): string[] {
  const notes: string[] = [];
  for (const p of pops) {
    const classes = classesOf(p);
    const counts = tallyOutcomes(classes);
    const failed = failedCount(counts);
    if (failed === 0) continue;
    if (counts.completed === 0)
      throw new InputProblemError(
        `${p.file}: every conversation of ${p.label} failed (${describeFailures(counts)}); there is no user behaviour to measure`,
      );
    if ('rows' in p) p.rows = p.rows.filter((_, i) => !classes[i].failure);
    else dropFailures(p);
    notes.push(
      `${p.label}: ${failed} of ${counts.conversations} conversations failed (${describeFailures(counts)}) and are left out of the metrics`,
    );
  }
  return notes;
}

/**
 * The failures left out of feature populations (the notes saying so), and one feature table per
 * population over `requested` (PLSA's default features when none are named).
 */
function featureTables(
  pops: FeaturePopulation[],
  requested: readonly string[] | undefined,
): { excluded: string[]; features: string[]; tables: FeatureTable[] } {
  const excluded = excludeFailures(pops);
  const features = requested?.length ? [...requested] : [...PLSA_DEFAULT_FEATURES];
  const tables = pops.map((p) =>
    featureTableOf(
      p.rows.map((r) => r.features),
      features,
    ),
  );
  return { excluded, features, tables };
}

/**
 * The populations of a feature report: each spec's conversations turned into feature rows, or,
 * for a spec with `features`, the rows of that feature file (checked against the sources and
 * the conversations file, filtered like conversations). Progress runs from 0 to `upTo`.
 */
async function loadFeaturePopulations(
  ctx: ComputeContext,
  specs: readonly PopulationSpec[],
  sources: FeatureSources,
  upTo: number,
): Promise<FeaturePopulation[]> {
  const loader = loaderOf(ctx);
  const opts = featureOptions(sources.acts, sources.ux, sources.judge);
  const out: FeaturePopulation[] = [];
  for (const [i, s] of specs.entries()) {
    const label = s.label ?? defaultLabel(s);
    if (s.features === undefined) {
      await checkpoint(ctx, `Reading ${s.file}…`, (i / specs.length) * upTo * 0.4);
      const { conversations, lines, ...info } = await loader.load(s);
      await checkpoint(ctx, `Features of ${label}…`, (i / specs.length) * upTo);
      out.push({
        ...info,
        rows: conversations.map((c, j) => featureRowOf(c, j, lines?.[j], opts)),
        domain: populationDomain(conversations),
      });
      continue;
    }
    const featuresFile = s.features;
    await checkpoint(ctx, `Reading the features of ${label} (${featuresFile})…`, (i / specs.length) * upTo);
    const ff = await loader.once('features', featuresFile, (abs) => readFeatureFile(abs, featuresFile));
    const abs = loader.path(s.file);
    const current = existsSync(abs)
      ? await loader.once('input-record', s.file, async (a) => inputRecord(a))
      : undefined;
    checkFeatureFile(ff, { features: featuresFile, conversations: s.file, sources, current });
    const rows = ff.rows.filter((r) => facetsMatch(r.facets, s.filter));
    const filter = describeFilter(s.filter);
    if (rows.length === 0) throw noConversationsError(s.file, filter, ff.rows.length);
    const p: FeaturePopulation = {
      label,
      file: s.file,
      rows,
      total: ff.rows.length,
      problems: ff.problems.first.map((t) => `${s.file}:${t}`),
      problemCount: ff.problems.count,
    };
    if (filter) p.filter = filter;
    out.push(p);
  }
  const labels = uniqueLabels(out.map((p) => p.label));
  out.forEach((p, i) => (p.label = labels[i]));
  return out;
}

/** Feature options from a spec's act source and, optionally, its UX source and judge. */
export function featureOptions(acts: string | undefined, ux?: FeatureOptions['ux'], judge?: string): FeatureOptions {
  const opts: FeatureOptions = { acts: parseActSource(acts) };
  if (ux) opts.ux = ux;
  if (judge) opts.judge = judge;
  return opts;
}

/** A warning when the populations come from different domains (movies vs apparel), or built-in users ran on a movie catalog. */
function domainWarnings(pops: readonly (FeaturePopulation | LoadedPopulation)[]): string[] {
  const known = pops.map((p) => ({
    label: p.label,
    file: p.file,
    domain: 'conversations' in p ? populationDomain(p.conversations) : p.domain,
  }));
  return domainWarningsOf(
    known.filter((p): p is { label: string; file: string; domain: DomainCount } => p.domain !== undefined),
  );
}

/** The PLSA report of a spec. */
export async function computePlsa(spec: PlsaSpec, ctx: ComputeContext = {}): Promise<Report> {
  const pops = await loadFeaturePopulations(ctx, [spec.reference, ...spec.candidates], spec, 0.7);
  const { excluded, features, tables } = featureTables(pops, spec.features);
  await checkpoint(ctx, 'Mann-Whitney U and KS tests…', 0.75);
  // PLSA keys candidates by "file"; labels are unique, so they serve as keys here.
  const labelled = pops.map((p, i) => ({ file: p.label, table: tables[i] }));
  const plsa = comparePopulations(labelled[0], labelled.slice(1), features);
  const alpha = spec.alpha ?? 0.05;
  let baseline;
  if (spec.baseline !== false && tables[0].n >= 4) {
    await checkpoint(ctx, 'Split-half baseline…', 0.9);
    baseline = splitHalfBaseline(tables[0], pops[0].label, { size: spec.baselineSize ?? 300, seed: spec.seed ?? 1 });
  }
  return buildPlsaReport({
    plsa,
    labels: Object.fromEntries(pops.map((p) => [p.label, p.label])),
    distributions: labelled,
    chart: spec.chart,
    baseline,
    alpha,
    generated: (ctx.now?.() ?? new Date()).toISOString(),
    inputs: pops.map(inputOf),
    params: {
      acts: spec.acts ?? 'tagger',
      ...(spec.ux ? { ux: spec.ux } : {}),
      seed: spec.seed !== undefined ? String(spec.seed) : '1',
    },
    warnings: [...domainWarnings(pops), ...excluded, ...problemsOf(pops)],
  });
}

/** The human-likeness report of a spec. */
export async function computeHls(spec: HlsSpec, ctx: ComputeContext = {}): Promise<Report> {
  const pops = await loadAll(ctx, [spec.human, ...spec.simulated]);
  const excluded = excludeFailures(pops);
  const seed = spec.seed ?? 1;
  const cap = spec.maxPerSide;
  const human = cap ? sampleUpTo(pops[0].conversations, cap, `${seed}/human`) : pops[0].conversations;
  const sims = pops.slice(1).map((p, i) => ({
    pop: p,
    conversations: cap ? sampleUpTo(p.conversations, cap, `${seed}/sim${i}`) : p.conversations,
  }));
  const k = spec.folds ?? 5;
  const runs: HlsRun[] = [];
  const steps =
    sims.length * (spec.learningCurve === false ? 1 : 2) + (sims.length > 1 && spec.cross !== false ? 1 : 0);
  let step = 0;
  const frac = () => 0.3 + (step++ / Math.max(1, steps)) * 0.7;
  for (const s of sims) {
    await checkpoint(ctx, `Cross-validating the discriminator: ${pops[0].label} vs ${s.pop.label}…`, frac());
    const cv = crossValidateHls(human, s.conversations, { k, seed, minDf: spec.minDf });
    let curve;
    if (spec.learningCurve !== false) {
      await checkpoint(ctx, `Learning curve for ${s.pop.label}…`, frac());
      curve = hlsLearningCurve(human, s.conversations, { seed, minDf: spec.minDf });
    }
    runs.push({ simulator: s.pop.label, cv, curve });
  }
  let cross;
  if (sims.length > 1 && spec.cross !== false) {
    await checkpoint(ctx, 'Cross-distribution matrix…', frac());
    cross = crossDistribution(
      human,
      sims.map((s) => ({ name: s.pop.label, conversations: s.conversations })),
      { seed, minDf: spec.minDf },
    );
  }
  const llm = pops.map((p) => ({ population: p.label, scores: llmDiscriminatorScores(p.conversations) }));
  const inputs = pops.map(inputOf);
  if (cap) {
    inputs[0].n = human.length;
    sims.forEach((s, i) => (inputs[i + 1].n = s.conversations.length));
  }
  const refs = (p: LoadedPopulation, convs: readonly Conversation[]) => {
    const lineOf = new Map(p.conversations.map((c, i) => [c, p.lines?.[i]]));
    return convs.map((c) => ({ id: conversationId(c, lineOf.get(c)), line: lineOf.get(c) }));
  };
  const scores = spec.scores
    ? [
        // The human side is scored in every run; the first run's out-of-fold scores are shown.
        { population: pops[0].label, input: 0, conversations: refs(pops[0], human), hls: runs[0].cv.hls_human },
        ...sims.map((s, i) => ({
          population: s.pop.label,
          input: i + 1,
          conversations: refs(s.pop, s.conversations),
          hls: runs[i].cv.hls_simulated,
        })),
      ]
    : undefined;
  return buildHlsReport({
    human: pops[0].label,
    runs,
    cross,
    llm,
    scores,
    generated: (ctx.now?.() ?? new Date()).toISOString(),
    inputs,
    params: {
      folds: k,
      seed: String(seed),
      ...(cap ? { max_per_side: cap } : {}),
      ...(spec.minDf !== undefined ? { min_df: spec.minDf } : {}),
    },
    warnings: [...domainWarnings(pops), ...excluded, ...problemsOf(pops)],
  });
}

/** The counterfactual-validation report of a spec. */
export async function computeCounterfactual(spec: CounterfactualSpec, ctx: ComputeContext = {}): Promise<Report> {
  const withCondition = (p: PopulationSpec, condition: string, label?: string): PopulationSpec => ({
    ...p,
    label: label ?? p.label,
    filter: { ...p.filter, condition },
  });
  const humanLabel = spec.human.label ?? 'human';
  const specs: PopulationSpec[] = [
    withCondition(spec.human, spec.from, `${humanLabel} (${spec.from})`),
    withCondition(spec.human, spec.to, `${humanLabel} (${spec.to})`),
  ];
  for (const s of spec.simulators) {
    specs.push(withCondition(s.from, s.from.filter?.condition ?? spec.from, `${s.label} (${spec.from})`));
    specs.push(withCondition(s.to, s.to.filter?.condition ?? spec.to, `${s.label} (${spec.to})`));
  }
  const pops = await loadFeaturePopulations(ctx, specs, spec, 0.9);
  const { excluded, features, tables } = featureTables(pops, spec.features);
  await checkpoint(ctx, 'Comparing shifts…', 0.95);
  const labels = uniqueLabels(spec.simulators.map((s) => s.label));
  const result = counterfactualValidation(
    { from: tables[0], to: tables[1] },
    labels.map((name, i) => ({ name, from: tables[2 + 2 * i], to: tables[3 + 2 * i] })),
    features,
    { fromName: spec.from, toName: spec.to },
  );
  return buildCounterfactualReport({
    result,
    human: humanLabel,
    alpha: spec.alpha,
    generated: (ctx.now?.() ?? new Date()).toISOString(),
    inputs: pops.map(inputOf),
    params: { acts: spec.acts ?? 'tagger', ...(spec.ux ? { ux: spec.ux } : {}) },
    warnings: [...domainWarnings(pops), ...excluded, ...problemsOf(pops)],
  });
}

/** The system of a conversation for ranking agreement: its agent, else its condition. */
function systemOf(c: Conversation): string | undefined {
  // A crowd worker (the human recommender of ReDial / IARD) is not a system to rank.
  return conversationSystem(c) ?? conversationCondition(c);
}

/** The simulation-metrics report of a spec. */
export async function computeSimulation(spec: SimulationSpec, ctx: ComputeContext = {}): Promise<Report> {
  const pops = await loadAll(ctx, spec.reference ? [spec.reference, ...spec.populations] : spec.populations);
  // Outcomes count every conversation; the metrics below see only those without failures.
  const inputs = pops.map(inputOf);
  const outcomes = new Map(pops.map((p) => [p, countOutcomes(p.conversations)]));
  for (const p of pops) dropFailures(p);
  const ref = spec.reference ? pops[0] : undefined;
  const sims = spec.reference ? pops.slice(1) : pops;
  // One act source for both sides, so DS-KL compares acts in the same taxonomy.
  const acts = parseActSource(spec.acts ?? 'tagger');
  const reward: RewardConfig = {
    full: spec.reward?.full,
    cost: spec.reward?.cost,
    unsupported: spec.reward?.unsupported,
  };
  const refActs = ref ? userActCounts(ref.conversations, acts) : undefined;
  const want = (m: 'zb' | 'pepper' | 'altereval') => !spec.metrics || spec.metrics.includes(m);
  const warnings: string[] = [];
  const populations: SimulationPopulation[] = [];
  for (const [i, p] of [...(ref ? [ref] : []), ...sims].entries()) {
    await checkpoint(ctx, `Metrics of ${p.label}…`, 0.3 + (i / (sims.length + 1)) * 0.6);
    const isRef = p === ref;
    const row: SimulationPopulation = { label: p.label, outcomes: outcomes.get(p) };
    if (want('zb')) {
      row.zb = zhangBalogSummary(p.conversations, reward);
      if (!isRef && refActs) row.dsKl = dsKl(userActCounts(p.conversations, acts), refActs, spec.klSmoothing);
    }
    if (want('pepper')) {
      const pep = pepperCurves(p.conversations, { k: spec.pepperK, turns: spec.pepperTurns });
      if (pep.users > 0) row.pepper = pep;
      else if (spec.metrics)
        warnings.push(
          `${p.label}: no conversation has targets for PEPPER (trace.targets, trace.target.item_id or metadata.targets)`,
        );
    }
    if (want('altereval')) {
      const alt = alterEvalCurves(p.conversations, { horizon: spec.horizon, relevant: spec.relevant });
      if (alt.conversations > 0) row.alterEval = alt;
      else if (spec.metrics)
        warnings.push(
          `${p.label}: no conversation has a target for AlterEval (trace.target.item_id or metadata.target)`,
        );
    }
    populations.push(row);
  }
  const improvements = spec.base ? await alterEvalImprovements(spec, sims, ctx) : undefined;
  const ranking = spec.systems
    ? await systemRanking(spec, reward, ctx)
    : ref
      ? conditionRanking(spec, ref, sims, reward)
      : [];
  if (!spec.systems && ref && ranking.length === 0) {
    const workers = ref.conversations.filter(
      (c) => c.agent !== undefined && conversationSystem(c) === undefined,
    ).length;
    if (workers > 0)
      warnings.push(
        `${ref.label}: no system ranking: the agent of ${workers} human dialogue${workers === 1 ? '' : 's'} is a crowd worker's id (a person), not a system`,
      );
  }
  return buildSimulationReport({
    populations,
    reference: ref?.label,
    ranking,
    improvements,
    generated: (ctx.now?.() ?? new Date()).toISOString(),
    inputs,
    params: simulationParams(spec),
    warnings: [...domainWarnings(pops), ...warnings, ...problemsOf(pops)],
  });
}

function simulationParams(spec: SimulationSpec): Record<string, string | number> {
  const want = (m: 'zb' | 'pepper' | 'altereval') => !spec.metrics || spec.metrics.includes(m);
  const params: Record<string, string | number> = {};
  if (want('zb')) params.acts = spec.acts ?? 'tagger';
  if (want('pepper')) params.pepper_k = spec.pepperK ?? 50;
  if (want('altereval')) params.horizon = spec.horizon ?? 10;
  if (spec.metrics) params.metrics = spec.metrics.join(',');
  if (spec.klSmoothing !== undefined) params.kl_smoothing = spec.klSmoothing;
  if (spec.pepperTurns !== undefined) params.pepper_turns = spec.pepperTurns;
  if (spec.relevant) params.relevant = spec.relevant;
  if (spec.rankBy) params.rank_by = spec.rankBy;
  return params;
}

type Ranking = { metric: string; agreement: ReturnType<typeof rankingAgreement> }[];

const RANK_METRICS = {
  avg_turns: { name: 'AvgTurns', of: (s: ZbSummary) => s.avg_turns },
  reward: { name: 'Reward', of: (s: ZbSummary) => s.reward },
  success_rate: { name: 'Success Rate', of: (s: ZbSummary) => s.success_rate.rate },
} as const;

/** The metrics systems are ranked by: the spec's, else AvgTurns and Reward. */
function rankMetrics(spec: SimulationSpec) {
  return spec.rankBy ? [RANK_METRICS[spec.rankBy]] : [RANK_METRICS.avg_turns, RANK_METRICS.reward];
}

/** Ranking agreement over the systems (agents, else conditions) found inside the reference and the simulated populations. */
function conditionRanking(
  spec: SimulationSpec,
  ref: LoadedPopulation,
  sims: readonly LoadedPopulation[],
  reward: RewardConfig,
): Ranking {
  const bySystem = (convs: readonly Conversation[]) => {
    const m = new Map<string, Conversation[]>();
    for (const c of convs) {
      const s = systemOf(c);
      if (s === undefined) continue;
      let l = m.get(s);
      if (!l) m.set(s, (l = []));
      l.push(c);
    }
    return m;
  };
  const real = bySystem(ref.conversations);
  const simulated = bySystem(sims.flatMap((p) => p.conversations));
  const common = [...real.keys()].filter((s) => simulated.has(s));
  if (common.length < 2) return [];
  return rankMetrics(spec).map((m) => {
    const r: Record<string, number> = {};
    const s: Record<string, number> = {};
    for (const sys of common) {
      r[sys] = m.of(zhangBalogSummary(real.get(sys)!, reward));
      s[sys] = m.of(zhangBalogSummary(simulated.get(sys)!, reward));
    }
    return { metric: m.name, agreement: rankingAgreement(r, s) };
  });
}

/** Ranking agreement over systems given as one real and one simulated file each (failed conversations left out). */
async function systemRanking(spec: SimulationSpec, reward: RewardConfig, ctx: ComputeContext): Promise<Ranking> {
  const systems = spec.systems ?? [];
  const pops = await loadAll(
    ctx,
    systems.flatMap((s) => [s.real, s.simulated]),
  );
  for (const p of pops) dropFailures(p);
  return rankMetrics(spec).map((m) => {
    const r: Record<string, number> = {};
    const s: Record<string, number> = {};
    systems.forEach((sys, i) => {
      r[sys.name] = m.of(zhangBalogSummary(pops[2 * i].conversations, reward));
      s[sys.name] = m.of(zhangBalogSummary(pops[2 * i + 1].conversations, reward));
    });
    return { metric: m.name, agreement: rankingAgreement(r, s) };
  });
}

/** Each population's AlterEval improvement over the base-simulator run (failed conversations left out). */
async function alterEvalImprovements(
  spec: SimulationSpec,
  sims: readonly LoadedPopulation[],
  ctx: ComputeContext,
): Promise<{ label: string; result: AlterEvalImprovement }[]> {
  const [base] = await loadAll(ctx, [spec.base!]);
  dropFailures(base);
  return sims.map((p) => ({
    label: p.label,
    result: alterEvalImprovement(base.conversations, p.conversations, spec.horizon ?? 10),
  }));
}

/** Example violations listed per invariant in a report (the CLI prints fewer). */
export const REPORT_INVARIANT_EXAMPLES = 20;

/**
 * The behavioural-invariants report of a spec. Every conversation is checked, failed ones
 * included: some invariants are about how failures are recorded.
 */
export async function computeInvariants(spec: InvariantsSpec, ctx: ComputeContext = {}): Promise<Report> {
  const [pop] = await loadAll(ctx, [spec.population]);
  const warnings: string[] = [];
  const run = checkOptionsFromRun(loaderOf(ctx).path(pop.file), (m) => warnings.push(m));
  const maxTurns = spec.maxTurns ?? run.maxTurns;
  const checker = new InvariantChecker({
    ...run,
    only: spec.only,
    maxTurns,
    examples: spec.examples ?? REPORT_INVARIANT_EXAMPLES,
  });
  const n = pop.conversations.length;
  for (let i = 0; i < n; i++) {
    if (i % 500 === 0)
      await checkpoint(ctx, `Checking ${pop.label}: ${i} of ${n} conversations…`, 0.3 + (i / Math.max(1, n)) * 0.65);
    checker.add(pop.conversations[i], pop.lines?.[i]);
  }
  const params: Record<string, string | number> = { examples: spec.examples ?? REPORT_INVARIANT_EXAMPLES };
  if (spec.only?.length) params.only = spec.only.join(',');
  if (maxTurns !== undefined) params.max_turns = maxTurns;
  if (run.metaTolerance !== undefined) params.meta_tolerance = run.metaTolerance;
  return buildInvariantsReport({
    label: pop.label,
    file: pop.file,
    check: checker.report(),
    generated: (ctx.now?.() ?? new Date()).toISOString(),
    inputs: [inputOf(pop)],
    params,
    warnings: [...warnings, ...problemsOf([pop])],
  });
}

/** Computes the report of any spec except "fidelity" (which runs simulations: see fidelity.ts). */
export async function computeReport(
  spec: Exclude<ReportSpec, { kind: 'fidelity' }>,
  ctx: ComputeContext = {},
): Promise<Report> {
  switch (spec.kind) {
    case 'plsa':
      return computePlsa(spec, ctx);
    case 'human-likeness':
      return computeHls(spec, ctx);
    case 'counterfactual':
      return computeCounterfactual(spec, ctx);
    case 'simulation':
      return computeSimulation(spec, ctx);
    case 'invariants':
      return computeInvariants(spec, ctx);
  }
}
