/**
 * The one-command fidelity report (`simlens report`, "SimLens: Validate Simulator…"): run one
 * simulator against each agent, then test the simulated populations against human data on three
 * pillars and write one report with a verdict per pillar.
 *
 * Pipeline:
 * 1. Simulate `n` conversations against every agent with the run orchestrator (`runSimulation`),
 *    into `<out>/populations/<agent>.sim.jsonl` (with manifests), seeded.
 * 2. Reference per agent: the human conversations of the agent's condition (e.g. `local-bad` →
 *    condition "bad") when the human file has that condition, else all human conversations;
 *    sampled (seeded) down to `n`, like ConvApparel's 300-conversation subsets, so verdicts do not
 *    depend on the size of the human file and the discriminator sees balanced classes.
 * 3. PLSA: Mann-Whitney U and KS per feature (simulated vs reference), plus the human split-half
 *    baseline. HLS: k-fold cross-validated n-gram discriminator (human vs simulated), mean HLS of
 *    the simulated conversations, learning curve, cross-distribution matrix with 2+ agents.
 *    Counterfactual: with two agents whose conditions both occur in the human file, the
 *    simulator's shift between the first and the second agent's condition against the human shift.
 * 4. Verdicts (thresholds in `DEFAULT_THRESHOLDS`, all adjustable):
 *    - PLSA: a feature is aligned when MWU p > alpha (0.05): no detectable location difference
 *      at n per side. pass when, for every agent, >= 70% of the features are aligned; warn at
 *      >= 40%; fail below. (With 11 features and no real difference, about 1 in 20 tests still
 *      rejects by chance, so 70% leaves room for that without hiding systematic gaps.)
 *    - HLS: the mean out-of-fold P(human) of the simulated conversations, for the worst agent.
 *      An indistinguishable simulator scores about 0.5 with balanced classes; ConvApparel's
 *      simulators averaged 0.004. pass >= 0.3, warn >= 0.1, fail below.
 *    - Counterfactual: share of features whose shift has the same sign as the human shift.
 *      Random directions agree about half the time, so pass >= 70%, warn >= 50%, fail below;
 *      warn ("not assessed") when the human file lacks one of the two conditions.
 * 5. Write `report.md`, `report.json`, `charts/*.svg`, `tables/*.csv` into `<out>`.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Conversation } from '../model';
import { conversationCondition } from '../model';
import { runSimulation, runStopOf, type RunProgress } from '../run/orchestrator';
import { manifestPath } from '../run/manifest';
import { stopsRun } from '../run/llm';
import { conversationFailure } from '../failures';
import type { LlmServices } from '../llm/services';
import { featureTable, PLSA_DEFAULT_FEATURES, type FeatureTable } from '../metrics/features';
import { comparePopulations, splitHalfBaseline } from '../metrics/plsa';
import { crossDistribution, crossValidateHls, hlsLearningCurve } from '../metrics/hls';
import { counterfactualValidation } from '../metrics/counterfactual';
import { corpusShape } from '../metrics/zhangBalog';
import {
  REPORT_SCHEMA,
  finiteOrNull,
  type Report,
  type ReportInput,
  type Section,
  type Verdict,
  type VerdictValue,
} from './model';
import { tableColumns } from './builders/common';
import { IdAllocator, formatFixed, slug } from './format';
import { PopulationLoader, sampleUpTo, type LoadedPopulation, type PopulationSpec } from './populations';
import { resolveSimulator } from './simulator';
import { isLlmAgentName, isLlmUserName } from '../run/llm';
import { checkpoint, featureOptions, type ComputeContext } from './compute';
import { plsaCandidateSummaries, plsaSections } from './builders/plsa';
import { hlsSections, meanSimulatedHls, type HlsRun } from './builders/hls';
import { counterfactualSections, directionAgreement } from './builders/counterfactual';
import { writeReportFiles, type WrittenReport } from './render/files';
import {
  countOutcomes,
  describeFailures,
  failedCount,
  userOutcomeShare,
  withoutFailures,
  type OutcomeCounts,
} from './outcomes';
import { exclusionNote, outcomesSection } from './builders/outcomes';
import { invariantSections, invariantSummary } from './builders/invariants';
import { InvariantChecker, type CheckReport } from '../check';
import { REPORT_INVARIANT_EXAMPLES } from './compute';
import { checkOptionsFromRun } from '../run/checkOptions';

/** Verdict thresholds (shares are in [0, 1]). */
export interface FidelityThresholds {
  /** Significance level for "aligned" features. */
  alpha: number;
  plsaPass: number;
  plsaWarn: number;
  hlsPass: number;
  hlsWarn: number;
  counterfactualPass: number;
  counterfactualWarn: number;
}

export const DEFAULT_THRESHOLDS: Readonly<FidelityThresholds> = {
  alpha: 0.05,
  plsaPass: 0.7,
  plsaWarn: 0.4,
  hlsPass: 0.3,
  hlsWarn: 0.1,
  counterfactualPass: 0.7,
  counterfactualWarn: 0.5,
};

export interface FidelityOptions {
  human: PopulationSpec;
  /** A JSON file of simulation options or an inline spec ("agenda:cir6:pkg"); see simulator.ts. */
  simulator: string;
  /** Agents to simulate against, e.g. ["local-good", "local-bad"]; the first two drive the counterfactual. */
  agents: readonly string[];
  /** Conversations per agent. */
  n: number;
  seed?: string | number;
  /** Output folder (created). */
  out: string;
  features?: readonly string[];
  /** Act source for features (default: the lexical tagger on both sides, so acts are comparable). */
  acts?: string;
  folds?: number;
  learningCurve?: boolean;
  /** Conversations simulated in parallel (output does not depend on it). */
  concurrency?: number;
  thresholds?: Partial<FidelityThresholds>;
  /** LLM services for LLM users or agents (see `fidelityNeedsLlm`); local simulators need none. */
  llm?: LlmServices;
}

/** One simulated population. */
interface SimulatedPopulation {
  agent: string;
  label: string;
  file: string;
  condition?: string;
  /** The conversations without failures: what every metric of the report is computed on. */
  conversations: Conversation[];
  /** Conversations that failed (any reason; see `outcomes` for the split). */
  failed: number;
  /** User outcomes and failures over all simulated conversations. */
  outcomes: OutcomeCounts;
  /** The behavioural invariants over all simulated conversations (failed ones included). */
  invariants: CheckReport;
  wallMs: number;
}

interface FidelityResult {
  report: Report;
  files: WrittenReport;
  populations: SimulatedPopulation[];
  /** Milliseconds per phase. */
  timings: { simulate: number; plsa: number; hls: number; counterfactual: number; write: number; total: number };
}

/** Whether the simulator (a spec or JSON file, see simulator.ts) or any agent is LLM-based. */
export function fidelityNeedsLlm(simulator: string, agents: readonly string[], cwd: string): boolean {
  const sim = resolveSimulator(simulator, cwd);
  return isLlmUserName(String(sim.options.user ?? '')) || agents.some(isLlmAgentName);
}

function verdictOf(value: number, pass: number, warn: number): VerdictValue {
  return value >= pass ? 'pass' : value >= warn ? 'warn' : 'fail';
}

function pct(x: number): string {
  return `${Math.round(x * 100)}%`;
}

interface Reference {
  key: string;
  label: string;
  conversations: Conversation[];
  table: FeatureTable;
}

/** What the steps of one fidelity run share. */
interface FidelityRun {
  opts: FidelityOptions;
  ctx: ComputeContext;
  th: FidelityThresholds;
  seed: string | number;
  sim: ReturnType<typeof resolveSimulator>;
  loader: PopulationLoader;
  features: string[];
  fopts: ReturnType<typeof featureOptions>;
  warnings: string[];
  ids: IdAllocator;
  human: LoadedPopulation;
  humanConditions: Set<string>;
}

/** The human references (per condition) and the simulated feature tables. */
interface References {
  refs: Map<string, Reference>;
  refOf: (p: SimulatedPopulation) => Reference;
  simTables: Map<string, FeatureTable>;
}

/** A pillar's sections and verdict. */
interface Pillar {
  sections: Section[];
  verdict: Verdict;
}

/** Runs the whole pipeline and writes the report. */
export async function runFidelity(opts: FidelityOptions, ctx: ComputeContext = {}): Promise<FidelityResult> {
  const t0 = performance.now();
  const run = await startRun(opts, ctx);
  const timed = async <T>(f: () => Promise<T>): Promise<[T, number]> => {
    const t = performance.now();
    const value = await f();
    return [value, performance.now() - t];
  };
  const [populations, simulateMs] = await timed(() => simulateAll(run));
  const references = await loadReferences(run, populations);
  const [plsa, plsaMs] = await timed(() => plsaPillar(run, populations, references));
  const [hls, hlsMs] = await timed(() => hlsPillar(run, populations, references));
  const [cf, cfMs] = await timed(() => counterfactualPillar(run, populations, references));
  const verdicts = [plsa.verdict, hls.verdict, cf.verdict];
  const { sections: popSections, excluded } = populationSections(run, populations, references);
  const report = assembleReport(
    run,
    populations,
    verdicts,
    [...plsa.sections, ...hls.sections, ...cf.sections, ...popSections],
    excluded,
  );
  await checkpoint(ctx, 'Writing the report…', 0.97);
  const [files, writeMs] = await timed(async () => writeReportFiles(report, opts.out));
  return {
    report,
    files,
    populations,
    timings: {
      simulate: simulateMs,
      plsa: plsaMs,
      hls: hlsMs,
      counterfactual: cfMs,
      write: writeMs,
      total: performance.now() - t0,
    },
  };
}

/** Checks the options, resolves the simulator and reads the human file. */
async function startRun(opts: FidelityOptions, ctx: ComputeContext): Promise<FidelityRun> {
  const cwd = ctx.cwd ?? process.cwd();
  if (!opts.agents.length) throw new Error('at least one agent is needed (e.g. local-good,local-bad)');
  if (new Set(opts.agents).size !== opts.agents.length)
    throw new Error(`agents must be distinct (got ${opts.agents.join(', ')})`);
  const sim = resolveSimulator(opts.simulator, cwd);
  const loader = ctx.loader ?? new PopulationLoader(cwd);
  const warnings: string[] = [];
  await checkpoint(ctx, `Reading ${opts.human.file}…`, 0);
  const human = await loader.load(opts.human);
  if (human.problems.length)
    warnings.push(
      ...human.problems.slice(0, 5),
      ...(human.problems.length > 5 ? [`${human.file}: ${human.problems.length - 5} more problem line(s)`] : []),
    );
  return {
    opts,
    ctx,
    th: { ...DEFAULT_THRESHOLDS, ...opts.thresholds },
    seed: opts.seed ?? 1,
    sim,
    loader,
    features: opts.features?.length ? [...opts.features] : [...PLSA_DEFAULT_FEATURES],
    fopts: featureOptions(opts.acts),
    warnings,
    ids: new IdAllocator(),
    human,
    humanConditions: new Set(
      human.conversations.map(conversationCondition).filter((c): c is string => c !== undefined),
    ),
  };
}

/** 1. Simulates against every agent in turn. */
async function simulateAll(run: FidelityRun): Promise<SimulatedPopulation[]> {
  const populations: SimulatedPopulation[] = [];
  for (const [ai, agent] of run.opts.agents.entries()) populations.push(await simulateAgent(run, agent, ai));
  return populations;
}

/** Simulates `n` conversations against one agent, then reads them back, counts failures and checks the invariants. */
async function simulateAgent(run: FidelityRun, agent: string, ai: number): Promise<SimulatedPopulation> {
  const { opts, ctx, loader, warnings } = run;
  await checkpoint(ctx, `Simulating ${opts.n} conversations against ${agent}…`, (ai / opts.agents.length) * 0.5);
  const file = join(opts.out, 'populations', `${slug(agent)}.sim.jsonl`);
  const started = performance.now();
  await runAgentSimulation(run, agent, ai, file);
  await checkpoint(ctx);
  const all = await loader.file(file);
  // Failed conversations (agent errors, user or simulator failures) are run failures, not user
  // behaviour: they are counted in the Outcomes table and left out of every metric.
  const outcomes = countOutcomes(all.conversations);
  const failed = failedCount(outcomes);
  const conversations = withoutFailures(all.conversations).filter((c) => c.turns.length > 0);
  if (conversations.length === 0) {
    // The counts per reason, and the first failure's message (usually the cause of all of them).
    const first = all.conversations.map((c) => conversationFailure(c)).find((f) => f !== undefined);
    const reason = [describeFailures(outcomes) || 'no turns', first ? `first: ${first.message}` : '']
      .filter(Boolean)
      .join('; ');
    throw new SimulationStoppedError(agent, 'failed', reason, file);
  }
  if (failed)
    warnings.push(
      `${agent}: ${failed} of ${all.conversations.length} simulated conversations failed (${describeFailures(outcomes)}); they are left out of every metric`,
    );
  await checkpoint(ctx, `Checking the behavioural invariants of ${agent}…`, ((ai + 1) / opts.agents.length) * 0.5);
  const checker = new InvariantChecker({
    ...checkOptionsFromRun(loader.path(file), (m) => warnings.push(m)),
    examples: REPORT_INVARIANT_EXAMPLES,
  });
  all.conversations.forEach((c, i) => checker.add(c, all.lines?.[i]));
  const conditions = new Set(conversations.map(conversationCondition).filter((c): c is string => c !== undefined));
  return {
    agent,
    label: agent,
    file,
    condition: conditions.size === 1 ? [...conditions][0] : undefined,
    conversations,
    failed,
    outcomes,
    invariants: checker.report(),
    wallMs: performance.now() - started,
  };
}

/**
 * A simulation of the report gave no population to compare: the run stopped (failure policy, LLM
 * endpoint down) or every conversation failed. A finding about the simulator or agent, not a usage
 * error: `report` prints the message (the reason the run recorded) and exits 1, as `simulate` does.
 */
export class SimulationStoppedError extends Error {
  constructor(
    readonly agent: string,
    /** The run's manifest status (`stopped`, `cancelled`), or `failed` when every conversation failed. */
    readonly status: string,
    /** The manifest's stop_reason (or error), or the failures per reason. */
    readonly reason: string,
    /** The population file; its manifest is beside it. */
    readonly file: string,
  ) {
    super(
      status === 'failed'
        ? `every simulated conversation against ${agent} failed (${reason}; see ${file})`
        : `simulation against ${agent} ${reason.startsWith(`${status}`) ? reason : `${status}: ${reason}`} (see ${manifestPath(file)})`,
    );
    this.name = 'SimulationStoppedError';
  }
}

/** Runs the simulation against one agent into `file` (seeded; stops when the computation is cancelled). */
async function runAgentSimulation(run: FidelityRun, agent: string, ai: number, file: string): Promise<void> {
  const { opts, ctx, sim, seed } = run;
  mkdirSync(join(opts.out, 'populations'), { recursive: true });
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  ctx.signal?.addEventListener('abort', onAbort);
  try {
    const result = await runSimulation(
      { ...sim.options, agent, n: opts.n, seed },
      {
        out: file,
        cwd: sim.cwd,
        overwrite: true,
        concurrency: opts.concurrency ?? 4,
        signal: controller.signal,
        llm: opts.llm,
        command: `simlens report (fidelity) --simulator ${opts.simulator} --agents ${opts.agents.join(',')} --n ${opts.n} --seed ${String(seed)}`,
        onProgress: (p: RunProgress) =>
          ctx.progress?.(
            `Simulating against ${agent}: ${p.finished}/${p.planned}`,
            ((ai + p.finished / Math.max(1, p.planned)) / opts.agents.length) * 0.5,
          ),
      },
    ).catch((err: unknown) => {
      // The LLM endpoint stopped the run: say why, as the manifest does.
      if (stopsRun(err) && !ctx.signal?.aborted)
        throw new SimulationStoppedError(agent, runStopOf(err).status, runStopOf(err).reason, file);
      throw err;
    });
    const status = result.manifest.status ?? 'running';
    if (status !== 'finished') {
      const extra = result.manifest as Record<string, unknown>;
      const reason = extra['stop_reason'] ?? extra['error'];
      if (ctx.signal?.aborted || typeof reason !== 'string') throw new Error(`simulation against ${agent} ${status}`);
      if (status !== 'stopped' && status !== 'cancelled')
        throw new Error(`simulation against ${agent} ${status}: ${reason}`);
      throw new SimulationStoppedError(agent, status, reason, file);
    }
  } finally {
    ctx.signal?.removeEventListener('abort', onAbort);
  }
}

/** 2. References per agent (condition-matched when possible, sampled to n) and the simulated feature tables. */
async function loadReferences(run: FidelityRun, populations: readonly SimulatedPopulation[]): Promise<References> {
  const { opts, human, humanConditions, seed, features, fopts } = run;
  const refs = new Map<string, Reference>();
  const refOf = (p: SimulatedPopulation): Reference => {
    const cond = p.condition && humanConditions.has(p.condition) ? p.condition : undefined;
    const key = cond ?? '(all)';
    let r = refs.get(key);
    if (!r) {
      const pool = cond ? human.conversations.filter((c) => conversationCondition(c) === cond) : human.conversations;
      const conversations = sampleUpTo(pool, opts.n, `${String(seed)}/human/${key}`);
      r = {
        key,
        label: cond ? `human (${cond})` : 'human',
        conversations,
        table: featureTable(conversations, features, fopts),
      };
      refs.set(key, r);
    }
    return r;
  };
  const simTables = new Map<string, FeatureTable>();
  for (const p of populations) {
    await checkpoint(run.ctx, `Features of ${p.label}…`, 0.55);
    simTables.set(p.agent, featureTable(p.conversations, features, fopts));
    refOf(p);
  }
  return { refs, refOf, simTables };
}

/** 3a. PLSA, one block per reference; verdict from the worst agent's share of aligned features. */
async function plsaPillar(
  run: FidelityRun,
  populations: readonly SimulatedPopulation[],
  { refs, refOf, simTables }: References,
): Promise<Pillar> {
  const { th, seed, features, ids } = run;
  const sections: Section[] = [];
  const shares: string[] = [];
  let min = Infinity;
  for (const ref of refs.values()) {
    await checkpoint(run.ctx, `PLSA against ${ref.label}…`, 0.6);
    const members = populations.filter((p) => refOf(p) === ref);
    const plsa = comparePopulations(
      { file: ref.label, table: ref.table },
      members.map((p) => ({ file: p.label, table: simTables.get(p.agent)! })),
      features,
    );
    run.warnings.push(...(plsa.warnings ?? []));
    const baseline =
      ref.table.n >= 4
        ? splitHalfBaseline(ref.table, ref.label, { size: Math.min(300, Math.floor(ref.table.n / 2)), seed })
        : undefined;
    sections.push(
      ...plsaSections(
        {
          plsa,
          labels: Object.fromEntries([[ref.label, ref.label], ...members.map((p) => [p.label, p.label])]),
          distributions: [
            { file: ref.label, table: ref.table },
            ...members.map((p) => ({ file: p.label, table: simTables.get(p.agent)! })),
          ],
          baseline,
          alpha: th.alpha,
        },
        ids,
        `PLSA: simulated vs ${ref.label}`,
      ),
    );
    for (const s of plsaCandidateSummaries(plsa, th.alpha)) {
      const share = s.features ? s.mwuAboveAlpha / s.features : 0;
      min = Math.min(min, share);
      shares.push(
        `${s.label}: ${s.mwuAboveAlpha}/${s.features} features aligned with ${ref.label} (${pct(share)}), mean KS D ` +
          `${Number.isFinite(s.meanKs) ? formatFixed(s.meanKs) : '–'}${s.constant ? ` (${s.constant} constant in both, not tested)` : ''}`,
      );
    }
  }
  return {
    sections,
    verdict: {
      pillar: 'Population alignment (PLSA)',
      verdict: verdictOf(min, th.plsaPass, th.plsaWarn),
      detail: shares.join('; '),
      rule: `feature aligned when MWU p > ${th.alpha}; pass if every agent has >= ${pct(th.plsaPass)} aligned, warn if >= ${pct(th.plsaWarn)}`,
    },
  };
}

/** 3b. Human-likeness per agent against its reference; verdict from the lowest mean HLS. */
async function hlsPillar(
  run: FidelityRun,
  populations: readonly SimulatedPopulation[],
  { refOf }: References,
): Promise<Pillar> {
  const { opts, ctx, th, seed } = run;
  const k = opts.folds ?? 5;
  const runs: HlsRun[] = [];
  for (const p of populations) {
    const ref = refOf(p);
    await checkpoint(ctx, `Human-likeness: ${ref.label} vs ${p.label}…`, 0.7);
    const kk = Math.min(k, ref.conversations.length, p.conversations.length);
    if (kk < 2) {
      run.warnings.push(`${p.label}: too few conversations for cross-validation`);
      continue;
    }
    const cv = crossValidateHls(ref.conversations, p.conversations, { k: kk, seed });
    let curve;
    if (opts.learningCurve !== false) {
      await checkpoint(ctx, `Learning curve for ${p.label}…`, 0.75);
      curve = hlsLearningCurve(ref.conversations, p.conversations, { seed });
    }
    runs.push({ simulator: p.label, cv, curve });
  }
  let cross;
  if (populations.length > 1) {
    await checkpoint(ctx, 'Cross-distribution matrix…', 0.8);
    const pool = sampleUpTo(run.human.conversations, opts.n, `${String(seed)}/human/cross`);
    cross = crossDistribution(
      pool,
      populations.map((p) => ({ name: p.label, conversations: p.conversations })),
      { seed },
    );
  }
  const sections = hlsSections({ human: 'human', runs, cross }, run.ids, 'Human-likeness (HLS)');
  const values = runs.map((r) => ({ label: r.simulator, hls: meanSimulatedHls(r), acc: r.cv.metrics.accuracy }));
  const min = values.length ? Math.min(...values.map((h) => h.hls)) : 0;
  return {
    sections,
    verdict: {
      pillar: 'Human-likeness (HLS)',
      verdict: values.length ? verdictOf(min, th.hlsPass, th.hlsWarn) : 'warn',
      detail: values.length
        ? values
            .map((h) => `${h.label}: mean HLS ${formatFixed(h.hls)}, discriminator accuracy ${formatFixed(h.acc)}`)
            .join('; ')
        : 'not assessed: too few conversations',
      rule: `mean P(human) of the simulated conversations (out-of-fold); pass if >= ${th.hlsPass} for every agent, warn if >= ${th.hlsWarn}`,
    },
  };
}

/** 3c. Counterfactual validity between the first two agents' conditions, when the human file has both. */
async function counterfactualPillar(
  run: FidelityRun,
  populations: readonly SimulatedPopulation[],
  { refs, simTables }: References,
): Promise<Pillar> {
  const { opts, th, humanConditions } = run;
  const [a, b] = populations;
  const fromCond = a?.condition;
  const toCond = b?.condition;
  if (!(
    a &&
    b &&
    fromCond &&
    toCond &&
    fromCond !== toCond &&
    humanConditions.has(fromCond) &&
    humanConditions.has(toCond)
  )) {
    const why = !b
      ? 'needs two agents (e.g. local-good,local-bad)'
      : !fromCond || !toCond || fromCond === toCond
        ? `the agents ${opts.agents.slice(0, 2).join(' and ')} do not stand for two different conditions`
        : `the human file has no conversations in condition "${humanConditions.has(fromCond) ? toCond : fromCond}" ` +
          `(conditions found: ${[...humanConditions].join(', ') || 'none'})`;
    return {
      sections: [],
      verdict: {
        pillar: 'Counterfactual validity',
        verdict: 'warn',
        detail: `not assessed: ${why}`,
        rule: "needs human conversations in both agents' conditions",
      },
    };
  }
  await checkpoint(run.ctx, `Counterfactual validation ${fromCond} → ${toCond}…`, 0.9);
  const result = counterfactualValidation(
    { from: refs.get(fromCond)!.table, to: refs.get(toCond)!.table },
    [{ name: run.sim.name, from: simTables.get(a.agent)!, to: simTables.get(b.agent)! }],
    run.features,
    { fromName: fromCond, toName: toCond },
  );
  const sections = counterfactualSections(
    { result, human: 'human', alpha: th.alpha },
    run.ids,
    `Counterfactual: ${fromCond} → ${toCond}`,
  );
  const agr = directionAgreement(result)[0];
  const share = Number.isFinite(agr.share) ? agr.share : 0;
  return {
    sections,
    verdict: {
      pillar: 'Counterfactual validity',
      verdict: verdictOf(share, th.counterfactualPass, th.counterfactualWarn),
      detail:
        `the simulator's shift from ${a.agent} (${fromCond}) to ${b.agent} (${toCond}) has the human direction on ` +
        `${agr.agrees} of ${agr.features} features (${pct(share)})`,
      rule: `pass if >= ${pct(th.counterfactualPass)} of the features shift in the human direction, warn if >= ${pct(th.counterfactualWarn)}`,
    },
  };
}

/** 4. Outcomes (failures apart), the simulation runs and the behavioural invariants. */
function populationSections(
  run: FidelityRun,
  populations: readonly SimulatedPopulation[],
  { refs }: References,
): { sections: Section[]; excluded?: string } {
  const { opts, ids, sim, seed } = run;
  const outcomeRows = [
    ...[...refs.values()].map((r) => ({ label: r.label, counts: countOutcomes(r.conversations) })),
    ...populations.map((p) => ({ label: p.label, counts: p.outcomes })),
  ];
  const sections: Section[] = [outcomesSection(outcomeRows, ids, 'Simulated populations')];
  sections.push({
    type: 'table',
    id: ids.id('runs'),
    title: 'Simulation runs',
    group: 'Simulated populations',
    caption:
      `Simulator ${sim.name}, ${opts.n} conversations per agent, seed ${String(seed)}. Conversations and Failed ` +
      `count every simulated conversation; AvgTurns and Accepted (a share) are over the conversations without ` +
      `failures. AvgTurns is Zhang & Balog's (speaker changes / 2, as DialogueKit counts them), so it is about half a ` +
      `turn below the PLSA feature Num turns (turns in the file). The conversations are kept next to this report ` +
      `(open them in the SimLens editor).`,
    columns: tableColumns(
      ['agent', 'Agent', 'text'],
      ['condition', 'Condition', 'text'],
      ['conversations', 'Conversations', 'int'],
      ['failed', 'Failed', 'int'],
      ['avg_turns', 'AvgTurns', 'fixed', 2],
      ['accepted', 'Accepted', 'percent'],
      ['seconds', 'Seconds', 'fixed', 1],
      ['file', 'File', 'text'],
    ),
    rows: populations.map((p) => ({
      cells: [
        p.agent,
        p.condition ?? null,
        p.outcomes.conversations,
        p.failed,
        finiteOrNull(corpusShape(p.conversations).avg_turns),
        finiteOrNull(userOutcomeShare(p.outcomes, 'accepted')),
        p.wallMs / 1000,
        `populations/${slug(p.agent)}.sim.jsonl`,
      ],
    })),
  });
  // Links open the population files (inputs 1..k) at the violating turn.
  sections.push(
    ...invariantSections(
      populations.map((p, i) => ({ label: p.label, input: i + 1, check: p.invariants })),
      ids,
      'Behavioural invariants',
    ),
  );
  return { sections, excluded: exclusionNote(outcomeRows) };
}

/** 5. The report: an introduction with the overall verdict, then the pillars' and populations' sections. */
function assembleReport(
  run: FidelityRun,
  populations: readonly SimulatedPopulation[],
  verdicts: Verdict[],
  sections: Section[],
  excluded: string | undefined,
): Report {
  const { opts, sim, seed, human, th, features } = run;
  const worst = verdicts.some((v) => v.verdict === 'fail')
    ? 'fail'
    : verdicts.some((v) => v.verdict === 'warn')
      ? 'warn'
      : 'pass';
  const intro: Section = {
    type: 'text',
    id: run.ids.id('about'),
    title: 'About this report',
    paragraphs: [
      `Simulator ${sim.name}${sim.file ? ` (${sim.file})` : ''} ran ${opts.n} conversations against each of ` +
        `${opts.agents.join(', ')} (seed ${String(seed)}), and was compared with ${human.conversations.length} human ` +
        `conversations from ${human.file}${human.filter ? ` (${human.filter})` : ''}.`,
      `Overall: ${worst.toUpperCase()} (the worst of the three pillars).`,
      `Human references are matched to each agent's condition when the human file has it and sampled (seeded) down ` +
        `to ${opts.n} conversations. Features: ${features.join(', ')}; dialogue acts from the ` +
        `${opts.acts ?? 'lexical tagger'} on both sides.`,
      excluded ?? 'No simulated conversation failed; every metric uses all of them.',
      `Behavioural invariants (not part of the verdict): ${populations.map((p) => invariantSummary(p.label, p.invariants)).join(' ')}`,
    ],
    tone: 'info',
  };
  const inputs: ReportInput[] = [
    {
      label: 'human',
      file: human.file,
      n: human.conversations.length,
      ...(human.filter ? { filter: human.filter } : {}),
    },
    ...populations.map((p) => ({
      label: p.label,
      file: join('populations', `${slug(p.agent)}.sim.jsonl`),
      n: p.conversations.length,
    })),
  ];
  return {
    schema: REPORT_SCHEMA,
    kind: 'fidelity',
    title: `Simulator fidelity: ${sim.name} vs human`,
    generated: (run.ctx.now?.() ?? new Date()).toISOString(),
    inputs,
    params: {
      simulator: opts.simulator,
      agents: opts.agents.join(','),
      n: opts.n,
      seed: String(seed),
      folds: opts.folds ?? 5,
      alpha: th.alpha,
      acts: opts.acts ?? 'tagger',
      features: features.join(','),
    },
    verdicts,
    sections: [intro, ...sections],
    warnings: run.warnings.length ? run.warnings : undefined,
  };
}
