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
import { runSimulation, type RunProgress } from '../run/orchestrator';
import type { LlmServices } from '../llm/services';
import { featureTable, PLSA_DEFAULT_FEATURES, type FeatureTable } from '../metrics/features';
import { comparePopulations, splitHalfBaseline } from '../metrics/plsa';
import { crossDistribution, crossValidateHls, hlsLearningCurve } from '../metrics/hls';
import { counterfactualValidation } from '../metrics/counterfactual';
import { corpusShape } from '../metrics/zhangBalog';
import { REPORT_SCHEMA, finiteOrNull, type Report, type ReportInput, type Section, type Verdict, type VerdictValue } from './model';
import { IdAllocator, formatFixed, slug } from './format';
import { PopulationLoader, sampleUpTo, type PopulationSpec } from './populations';
import { resolveSimulator } from './simulator';
import { isLlmAgentName, isLlmUserName } from '../llm/run';
import { checkpoint, featureOptions, type ComputeContext } from './compute';
import { plsaCandidateSummaries, plsaSections } from './builders/plsa';
import { hlsSections, meanSimulatedHls, type HlsRun } from './builders/hls';
import { counterfactualSections, directionAgreement } from './builders/counterfactual';
import { writeReportFiles, type WrittenReport } from './render/files';
import { countOutcomes, describeFailures, failedCount, userOutcomeShare, withoutFailures, type OutcomeCounts } from './outcomes';
import { exclusionNote, outcomesSection } from './builders/outcomes';
import { invariantSections, invariantSummary } from './builders/invariants';
import { InvariantChecker, type CheckReport } from '../check';
import { REPORT_INVARIANT_EXAMPLES } from './compute';
import { checkOptionsFromRun } from '../check/fromRun';

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
export interface SimulatedPopulation {
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

export interface FidelityResult {
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

/** Runs the whole pipeline and writes the report. */
export async function runFidelity(opts: FidelityOptions, ctx: ComputeContext = {}): Promise<FidelityResult> {
  const t0 = performance.now();
  const cwd = ctx.cwd ?? process.cwd();
  const th: FidelityThresholds = { ...DEFAULT_THRESHOLDS, ...opts.thresholds };
  const seed = opts.seed ?? 1;
  if (!opts.agents.length) throw new Error('at least one agent is needed (e.g. local-good,local-bad)');
  if (new Set(opts.agents).size !== opts.agents.length) throw new Error(`agents must be distinct (got ${opts.agents.join(', ')})`);
  const sim = resolveSimulator(opts.simulator, cwd);
  const loader = ctx.loader ?? new PopulationLoader(cwd);
  const features = opts.features?.length ? [...opts.features] : [...PLSA_DEFAULT_FEATURES];
  const fopts = featureOptions(opts.acts);
  const warnings: string[] = [];

  await checkpoint(ctx, `Reading ${opts.human.file}…`, 0);
  const human = await loader.load(opts.human);
  if (human.problems.length) warnings.push(...human.problems.slice(0, 5), ...(human.problems.length > 5 ? [`${human.file}: ${human.problems.length - 5} more problem line(s)`] : []));

  // 1. Simulate.
  const populations: SimulatedPopulation[] = [];
  const tSim = performance.now();
  for (const [ai, agent] of opts.agents.entries()) {
    await checkpoint(ctx, `Simulating ${opts.n} conversations against ${agent}…`, (ai / opts.agents.length) * 0.5);
    const file = join(opts.out, 'populations', `${slug(agent)}.sim.jsonl`);
    mkdirSync(join(opts.out, 'populations'), { recursive: true });
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    ctx.signal?.addEventListener('abort', onAbort);
    const started = performance.now();
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
          onProgress: (p: RunProgress) => ctx.progress?.(`Simulating against ${agent}: ${p.finished}/${p.planned}`, ((ai + p.finished / Math.max(1, p.planned)) / opts.agents.length) * 0.5),
        },
      );
      if (result.manifest.status !== 'finished') throw new Error(`simulation against ${agent} ${result.manifest.status}`);
    } finally {
      ctx.signal?.removeEventListener('abort', onAbort);
    }
    await checkpoint(ctx);
    const all = await loader.file(file);
    // Failed conversations (agent errors, user or simulator failures) are run failures, not user
    // behaviour: they are counted in the Outcomes table and left out of every metric.
    const outcomes = countOutcomes(all.conversations);
    const failed = failedCount(outcomes);
    const conversations = withoutFailures(all.conversations).filter((c) => c.turns.length > 0);
    if (conversations.length === 0) throw new Error(`every simulated conversation against ${agent} failed (${describeFailures(outcomes) || 'no turns'}; see ${file})`);
    if (failed) warnings.push(`${agent}: ${failed} of ${all.conversations.length} simulated conversations failed (${describeFailures(outcomes)}); they are left out of every metric`);
    await checkpoint(ctx, `Checking the behavioural invariants of ${agent}…`, ((ai + 1) / opts.agents.length) * 0.5);
    const checker = new InvariantChecker({ ...checkOptionsFromRun(loader.path(file), (m) => warnings.push(m)), examples: REPORT_INVARIANT_EXAMPLES });
    all.conversations.forEach((c, i) => checker.add(c, all.lines?.[i]));
    const conditions = new Set(conversations.map(conversationCondition).filter((c): c is string => c !== undefined));
    populations.push({
      agent,
      label: agent,
      file,
      condition: conditions.size === 1 ? [...conditions][0] : undefined,
      conversations,
      failed,
      outcomes,
      invariants: checker.report(),
      wallMs: performance.now() - started,
    });
  }
  const simulateMs = performance.now() - tSim;

  // 2. References per agent (condition-matched when possible), sampled to n.
  const humanConditions = new Set(human.conversations.map(conversationCondition).filter((c): c is string => c !== undefined));
  const refs = new Map<string, Reference>();
  const refOf = (p: SimulatedPopulation): Reference => {
    const cond = p.condition && humanConditions.has(p.condition) ? p.condition : undefined;
    const key = cond ?? '(all)';
    let r = refs.get(key);
    if (!r) {
      const pool = cond ? human.conversations.filter((c) => conversationCondition(c) === cond) : human.conversations;
      const conversations = sampleUpTo(pool, opts.n, `${String(seed)}/human/${key}`);
      r = { key, label: cond ? `human (${cond})` : 'human', conversations, table: featureTable(conversations, features, fopts) };
      refs.set(key, r);
    }
    return r;
  };
  const simTables = new Map<string, FeatureTable>();
  for (const p of populations) {
    await checkpoint(ctx, `Features of ${p.label}…`, 0.55);
    simTables.set(p.agent, featureTable(p.conversations, features, fopts));
    refOf(p);
  }

  const ids = new IdAllocator();
  const sections: Section[] = [];
  const verdicts: Verdict[] = [];

  // 3a. PLSA, one block per reference.
  const tPlsa = performance.now();
  const plsaShares: string[] = [];
  let plsaMin = Infinity;
  for (const ref of refs.values()) {
    await checkpoint(ctx, `PLSA against ${ref.label}…`, 0.6);
    const members = populations.filter((p) => refOf(p) === ref);
    const plsa = comparePopulations({ file: ref.label, table: ref.table }, members.map((p) => ({ file: p.label, table: simTables.get(p.agent)! })), features);
    const baseline = ref.table.n >= 4 ? splitHalfBaseline(ref.table, ref.label, { size: Math.min(300, Math.floor(ref.table.n / 2)), seed }) : undefined;
    sections.push(
      ...plsaSections(
        {
          plsa,
          labels: Object.fromEntries([[ref.label, ref.label], ...members.map((p) => [p.label, p.label])]),
          distributions: [{ file: ref.label, table: ref.table }, ...members.map((p) => ({ file: p.label, table: simTables.get(p.agent)! }))],
          baseline,
          alpha: th.alpha,
        },
        ids,
        `PLSA: simulated vs ${ref.label}`,
      ),
    );
    for (const s of plsaCandidateSummaries(plsa, th.alpha)) {
      const share = s.features ? s.mwuAboveAlpha / s.features : 0;
      plsaMin = Math.min(plsaMin, share);
      plsaShares.push(`${s.label}: ${s.mwuAboveAlpha}/${s.features} features aligned with ${ref.label} (${pct(share)}), mean KS D ${Number.isFinite(s.meanKs) ? formatFixed(s.meanKs) : '–'}`);
    }
  }
  verdicts.push({
    pillar: 'Population alignment (PLSA)',
    verdict: verdictOf(plsaMin, th.plsaPass, th.plsaWarn),
    detail: plsaShares.join('; '),
    rule: `feature aligned when MWU p > ${th.alpha}; pass if every agent has >= ${pct(th.plsaPass)} aligned, warn if >= ${pct(th.plsaWarn)}`,
  });
  const plsaMs = performance.now() - tPlsa;

  // 3b. Human-likeness.
  const tHls = performance.now();
  const k = opts.folds ?? 5;
  const runs: HlsRun[] = [];
  for (const p of populations) {
    const ref = refOf(p);
    await checkpoint(ctx, `Human-likeness: ${ref.label} vs ${p.label}…`, 0.7);
    const kk = Math.min(k, ref.conversations.length, p.conversations.length);
    if (kk < 2) {
      warnings.push(`${p.label}: too few conversations for cross-validation`);
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
    const pool = sampleUpTo(human.conversations, opts.n, `${String(seed)}/human/cross`);
    cross = crossDistribution(pool, populations.map((p) => ({ name: p.label, conversations: p.conversations })), { seed });
  }
  sections.push(...hlsSections({ human: 'human', runs, cross }, ids, 'Human-likeness (HLS)'));
  const hlsValues = runs.map((r) => ({ label: r.simulator, hls: meanSimulatedHls(r), acc: r.cv.metrics.accuracy }));
  const hlsMin = hlsValues.length ? Math.min(...hlsValues.map((h) => h.hls)) : 0;
  verdicts.push({
    pillar: 'Human-likeness (HLS)',
    verdict: hlsValues.length ? verdictOf(hlsMin, th.hlsPass, th.hlsWarn) : 'warn',
    detail: hlsValues.length
      ? hlsValues.map((h) => `${h.label}: mean HLS ${formatFixed(h.hls)}, discriminator accuracy ${formatFixed(h.acc)}`).join('; ')
      : 'not assessed: too few conversations',
    rule: `mean P(human) of the simulated conversations (out-of-fold); pass if >= ${th.hlsPass} for every agent, warn if >= ${th.hlsWarn}`,
  });
  const hlsMs = performance.now() - tHls;

  // 3c. Counterfactual.
  const tCf = performance.now();
  const [a, b] = populations;
  const fromCond = a?.condition;
  const toCond = b?.condition;
  if (a && b && fromCond && toCond && fromCond !== toCond && humanConditions.has(fromCond) && humanConditions.has(toCond)) {
    await checkpoint(ctx, `Counterfactual validation ${fromCond} → ${toCond}…`, 0.9);
    const hf = refs.get(fromCond)!;
    const ht = refs.get(toCond)!;
    const result = counterfactualValidation(
      { from: hf.table, to: ht.table },
      [{ name: sim.name, from: simTables.get(a.agent)!, to: simTables.get(b.agent)! }],
      features,
      { fromName: fromCond, toName: toCond },
    );
    sections.push(...counterfactualSections({ result, human: 'human', alpha: th.alpha }, ids, `Counterfactual: ${fromCond} → ${toCond}`));
    const agr = directionAgreement(result)[0];
    const share = Number.isFinite(agr.share) ? agr.share : 0;
    verdicts.push({
      pillar: 'Counterfactual validity',
      verdict: verdictOf(share, th.counterfactualPass, th.counterfactualWarn),
      detail: `the simulator's shift from ${a.agent} (${fromCond}) to ${b.agent} (${toCond}) has the human direction on ${agr.agrees} of ${agr.features} features (${pct(share)})`,
      rule: `pass if >= ${pct(th.counterfactualPass)} of the features shift in the human direction, warn if >= ${pct(th.counterfactualWarn)}`,
    });
  } else {
    const why = !b
      ? 'needs two agents (e.g. local-good,local-bad)'
      : !fromCond || !toCond || fromCond === toCond
        ? `the agents ${opts.agents.slice(0, 2).join(' and ')} do not stand for two different conditions`
        : `the human file has no conversations in condition "${humanConditions.has(fromCond) ? toCond : fromCond}" (conditions found: ${[...humanConditions].join(', ') || 'none'})`;
    verdicts.push({ pillar: 'Counterfactual validity', verdict: 'warn', detail: `not assessed: ${why}`, rule: 'needs human conversations in both agents\' conditions' });
  }
  const cfMs = performance.now() - tCf;

  // Outcomes: user outcomes of the human references and the simulated populations, failures apart.
  const outcomeRows = [
    ...[...refs.values()].map((r) => ({ label: r.label, counts: countOutcomes(r.conversations) })),
    ...populations.map((p) => ({ label: p.label, counts: p.outcomes })),
  ];
  sections.push(outcomesSection(outcomeRows, ids, 'Simulated populations'));
  const excluded = exclusionNote(outcomeRows);

  // Simulation runs table.
  sections.push({
    type: 'table',
    id: ids.id('runs'),
    title: 'Simulation runs',
    group: 'Simulated populations',
    caption: `Simulator ${sim.name}, ${opts.n} conversations per agent, seed ${String(seed)}. Conversations and Failed count every simulated conversation; AvgTurns and Accepted (a share) are over the conversations without failures. The conversations are kept next to this report (open them in the SimLens editor).`,
    columns: [
      { key: 'agent', label: 'Agent', format: 'text' },
      { key: 'condition', label: 'Condition', format: 'text' },
      { key: 'conversations', label: 'Conversations', format: 'int' },
      { key: 'failed', label: 'Failed', format: 'int' },
      { key: 'avg_turns', label: 'AvgTurns', format: 'fixed', digits: 2 },
      { key: 'accepted', label: 'Accepted', format: 'percent' },
      { key: 'seconds', label: 'Seconds', format: 'fixed', digits: 1 },
      { key: 'file', label: 'File', format: 'text' },
    ],
    rows: populations.map((p) => ({
      cells: [
        p.agent, p.condition ?? null, p.outcomes.conversations, p.failed, finiteOrNull(corpusShape(p.conversations).avg_turns),
        finiteOrNull(userOutcomeShare(p.outcomes, 'accepted')), p.wallMs / 1000, `populations/${slug(p.agent)}.sim.jsonl`,
      ],
    })),
  });

  // Behavioural invariants: links open the population files (inputs 1..k) at the violating turn.
  sections.push(...invariantSections(populations.map((p, i) => ({ label: p.label, input: i + 1, check: p.invariants })), ids, 'Behavioural invariants'));

  const worst = verdicts.some((v) => v.verdict === 'fail') ? 'fail' : verdicts.some((v) => v.verdict === 'warn') ? 'warn' : 'pass';
  const intro: Section = {
    type: 'text',
    id: ids.id('about'),
    title: 'About this report',
    paragraphs: [
      `Simulator ${sim.name}${sim.file ? ` (${sim.file})` : ''} ran ${opts.n} conversations against each of ${opts.agents.join(', ')} (seed ${String(seed)}), and was compared with ${human.conversations.length} human conversations from ${human.file}${human.filter ? ` (${human.filter})` : ''}.`,
      `Overall: ${worst.toUpperCase()} (the worst of the three pillars).`,
      `Human references are matched to each agent's condition when the human file has it and sampled (seeded) down to ${opts.n} conversations. Features: ${features.join(', ')}; dialogue acts from the ${opts.acts ?? 'lexical tagger'} on both sides.`,
      excluded ?? 'No simulated conversation failed; every metric uses all of them.',
      `Behavioural invariants (not part of the verdict): ${populations.map((p) => invariantSummary(p.label, p.invariants)).join(' ')}`,
    ],
    tone: 'info',
  };

  const inputs: ReportInput[] = [
    { label: 'human', file: human.file, n: human.conversations.length, ...(human.filter ? { filter: human.filter } : {}) },
    ...populations.map((p) => ({ label: p.label, file: join('populations', `${slug(p.agent)}.sim.jsonl`), n: p.conversations.length })),
  ];
  const report: Report = {
    schema: REPORT_SCHEMA,
    kind: 'fidelity',
    title: `Simulator fidelity: ${sim.name} vs human`,
    generated: (ctx.now?.() ?? new Date()).toISOString(),
    inputs,
    params: {
      simulator: opts.simulator,
      agents: opts.agents.join(','),
      n: opts.n,
      seed: String(seed),
      folds: k,
      alpha: th.alpha,
      acts: opts.acts ?? 'tagger',
      features: features.join(','),
    },
    verdicts,
    sections: [intro, ...sections],
    warnings: warnings.length ? warnings : undefined,
  };
  await checkpoint(ctx, 'Writing the report…', 0.97);
  const tWrite = performance.now();
  const files = writeReportFiles(report, opts.out);
  const writeMs = performance.now() - tWrite;
  return {
    report,
    files,
    populations,
    timings: { simulate: simulateMs, plsa: plsaMs, hls: hlsMs, counterfactual: cfMs, write: writeMs, total: performance.now() - t0 },
  };
}
