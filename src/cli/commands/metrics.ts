/**
 * `simlens metrics <sub> …`: the realism and simulation metrics of src/core/metrics from the
 * command line (PLSA, human-likeness, counterfactual validation, Zhang & Balog, PEPPER,
 * AlterEval, per-conversation features, and the act tagger's own evaluation).
 */
import type { Conversation } from '../../core/model';
import { ImportError } from '../../core/importers';
import {
  ActTagger, PLSA_DEFAULT_FEATURES, alterEvalCurves, alterEvalImprovement, alterEvalMarkdown, availableFeatures,
  buildCounterfactual, buildHls, buildPlsa, conversationFeatures, counterfactualBundleMarkdown, crossValidateTagger, csv,
  describeActSource, dsKl, evaluateTagger, featureTable, featureValue, fmt, hlsBundleMarkdown, loadPopulation, mapActs,
  markdownTable, parseActSource, pepperCurves, pepperMarkdown, plsaBundleMarkdown, plsaCsv, rankingAgreement, userActCounts,
  zhangBalogMarkdown, zhangBalogSummary,
  type ActSource, type FeatureOptions, type Population, type RewardConfig, type TaggedExample, type UxSource,
} from '../../core/metrics';
import { formatFlags, parseArgs, type FlagSpecs } from '../args';
import { UsageError, type CliCommand, type CliIo } from '../types';
import { ioErrorMessage, isIoError, resolvePath } from '../util';

const COMMON = {
  json: { type: 'boolean', description: 'print JSON instead of Markdown' },
  annotator: { type: 'string', valueName: 'NAME', description: 'act source: tagger (default), judge, judge:<model>, trace, or an annotator name (NAME@iard maps IARD labels)' },
  ux: { type: 'string', valueName: 'SRC', description: 'user-experience source: auto (judge, then first-person ratings), judge, first-person' },
  judge: { type: 'string', valueName: 'NAME', description: 'judge annotator for UX features (judge:<model>; default: any judge)' },
  features: { type: 'string', valueName: 'a,b', description: 'comma-separated feature names' },
  seed: { type: 'string', valueName: 'S', description: 'random seed (default 1)' },
} as const satisfies FlagSpecs;

const SUBCOMMANDS: Record<string, FlagSpecs> = {
  plsa: {
    ...COMMON,
    reference: { type: 'string', valueName: 'FILE', description: 'reference (human) population' },
    candidate: { type: 'string', multiple: true, valueName: 'FILE', description: 'candidate population' },
    baseline: { type: 'boolean', description: 'add the human-vs-human split-half baseline of the reference' },
    'baseline-size': { type: 'number', description: 'size of each baseline half (default 300)' },
    means: { type: 'boolean', description: 'show feature means in the Markdown table' },
    csv: { type: 'boolean', description: 'print the comparisons as CSV' },
  },
  features: {
    ...COMMON,
    list: { type: 'boolean', description: 'list the feature names found in FILE' },
    csv: { type: 'boolean', description: 'print CSV (one row per conversation)' },
  },
  hls: {
    json: COMMON.json,
    seed: COMMON.seed,
    human: { type: 'string', valueName: 'FILE', description: 'human conversations' },
    simulated: { type: 'string', multiple: true, valueName: 'FILE', description: 'simulated conversations (several: pooled for CV, one column each for --cross)' },
    k: { type: 'number', description: 'folds (default 5)' },
    curve: { type: 'boolean', description: 'add a learning curve' },
    cross: { type: 'boolean', description: 'add the cross-distribution matrix (needs 2+ --simulated)' },
    'min-df': { type: 'number', description: 'keep n-grams seen in at least N training conversations (default 2)' },
    scores: { type: 'boolean', description: 'include per-conversation HLS in JSON' },
  },
  counterfactual: {
    ...COMMON,
    human: { type: 'string', valueName: 'FILE', description: 'human conversations of both conditions' },
    simulator: { type: 'string', multiple: true, valueName: 'FILE', description: 'a simulator run covering both conditions' },
    from: { type: 'string', valueName: 'COND', description: 'seen condition (default good)' },
    to: { type: 'string', valueName: 'COND', description: 'unseen condition (default bad)' },
  },
  zb: {
    json: COMMON.json,
    annotator: COMMON.annotator,
    real: { type: 'string', valueName: 'FILE', description: 'real-user conversations (Q for DS-KL)' },
    simulated: { type: 'string', multiple: true, valueName: 'FILE', description: 'simulated conversations' },
    'kl-smoothing': { type: 'number', description: 'pseudo-counts added to every act for DS-KL (default 1)' },
    full: { type: 'number', description: 'reward Full points (default 20)' },
    cost: { type: 'number', description: 'reward cost per user turn (default 1)' },
    unsupported: { type: 'string', valueName: 'a,b', description: 'functions the agent lacks: disclose, refine, inquire, navigate, mixed_initiative (4 points each)' },
  },
  ranking: {
    json: COMMON.json,
    real: { type: 'string', multiple: true, valueName: 'SYS=FILE', description: 'a system evaluated with real users' },
    simulated: { type: 'string', multiple: true, valueName: 'SYS=FILE', description: 'the same system evaluated with simulated users' },
    by: { type: 'string', valueName: 'METRIC', description: 'reward (default), success_rate, avg_turns' },
    full: { type: 'number', description: 'reward Full points (default 20)' },
    cost: { type: 'number', description: 'reward cost per user turn (default 1)' },
  },
  pepper: {
    json: COMMON.json,
    k: { type: 'number', description: 'list depth per turn (default 50)' },
    turns: { type: 'number', description: 'number of turns (default: longest conversation)' },
  },
  altereval: {
    json: COMMON.json,
    base: { type: 'string', valueName: 'FILE', description: 'base-simulator run: report the meta-simulator improvement over it' },
    relevant: { type: 'string', valueName: 'MODE', description: 'alternatives (default) or target' },
    horizon: { type: 'number', description: 'turns (default 10)' },
  },
  tagger: {
    json: COMMON.json,
    seed: COMMON.seed,
    eval: { type: 'string', valueName: 'FILE', description: 'annotated conversations to evaluate on' },
    annotator: { type: 'string', valueName: 'NAME', description: 'gold annotator in FILE (NAME@iard maps IARD labels), default source@iard' },
    k: { type: 'number', description: 'cross-validation folds (default 5)' },
    text: { type: 'string', multiple: true, valueName: 'TEXT', description: 'tag one utterance' },
  },
};

const HELP = `Usage: simlens metrics <subcommand> [options]

Population realism and simulation metrics. Every subcommand prints Markdown (tables shaped like
the papers'), or JSON with --json. Files are SimLens/ConvApparel JSONL or anything 'simlens
convert' reads (DialogueKit/UserSimCRS JSON, the ConvApparel release document).

Subcommands:
  plsa --reference FILE --candidate FILE [--candidate FILE …] [--features a,b] [--annotator NAME]
      Mann-Whitney U (two-sided) and two-sample KS per feature, exactly as SciPy computes them.
      Default features: the 11 of the ConvApparel tables. --baseline adds the human-vs-human
      split-half baseline (two disjoint seeded subsets of --baseline-size, default 300).
      JSON: {"reference":{"file","n"},"candidates":[{"file","n"}],"comparisons":[{"feature",
      "candidate","reference_mean","candidate_mean","mwu_u","mwu_p","ks_statistic","ks_p"}]}
      (mwu_u = SciPy's U1 of mannwhitneyu(reference, candidate); missing values are null).
  features FILE [--features a,b] [--list] [--csv]
      Per-conversation features (num_turns, user_words_per_turn, user_turns_with_question,
      assistant_turns_with_question, act:<name>, agent_act:<name>, satisfaction, frustration,
      confusion, sentiment, accepted, turns_until_acceptance).
  hls --human FILE --simulated FILE [--simulated FILE …] [--k 5] [--curve] [--cross]
      Embedded n-gram discriminator: k-fold accuracy, precision, recall, F1, specificity (human =
      positive), HLS = P(human) per conversation, learning curve, cross-distribution matrix, and
      LLM-discriminator scores (discriminator:<model> annotations) beside them.
  counterfactual --human FILE --simulator FILE [--simulator FILE …] [--from good] [--to bad]
      Simulator shift between conditions vs the human shift per feature, and MWU/KS against the
      humans in the unseen condition. Conditions come from "condition" or the task_id suffix.
  zb --real FILE --simulated FILE [--simulated FILE …] [--annotator NAME] [--unsupported a,b]
      Zhang & Balog: AvgTurns, UserActRatio (DialogueKit definitions), DS-KL (symmetric KL of user
      acts, --kl-smoothing pseudo-counts, default 1), Reward = max(0, Full − Cost·T) for accepted
      conversations, Success Rate (share of turns with trace.operation = pull).
  ranking --real A=FILE --real B=FILE … --simulated A=FILE --simulated B=FILE … [--by reward]
      Kendall's tau between the ranking of systems under real and under simulated users.
  pepper FILE [FILE …] [--k 50] [--turns N]
      PEPPER Preference Coverage PC_t, PCIR_t and Recall@k per turn (targets from trace.targets,
      trace.target.item_id or metadata.targets).
  altereval FILE [--base FILE] [--relevant alternatives|target] [--horizon 10]
      Fashion-AlterEval SR@1, NDCG@10, MRR@10 per turn; with --base, the meta-simulator's
      improvement over the base simulator.
  tagger [--eval FILE --annotator NAME] [--text "…"]
      The lexical act tagger: tag utterances, or evaluate it on annotated data (built-in model,
      and k-fold cross-validation trained on FILE).

Options (by subcommand):
${Object.entries(SUBCOMMANDS).map(([name, specs]) => `  ${name}:\n${formatFlags(specs).split('\n').map((l) => `  ${l}`).join('\n')}`).join('\n')}

Exit codes: 0 success, 2 usage or I/O error (unreadable file, unknown format, empty population).

Examples:
  simlens metrics plsa --reference human.jsonl --candidate prompted.jsonl --candidate icl.jsonl --json
  simlens metrics plsa --reference human.jsonl --candidate sft.jsonl --annotator judge --baseline
  simlens metrics hls --human human.jsonl --simulated sim.jsonl --curve
  simlens metrics counterfactual --human human.jsonl --simulator icl.jsonl --from good --to bad
  simlens metrics zb --real iard.json --simulated cir6.jsonl --annotator source@iard
`;

/** JSON with NaN/Infinity as null and typed arrays as arrays. */
export function toJson(value: unknown): string {
  return JSON.stringify(
    value,
    (_k, v: unknown) => {
      if (typeof v === 'number' && !Number.isFinite(v)) return null;
      if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return Array.from(v as unknown as ArrayLike<number>);
      if (v instanceof Map) return Object.fromEntries(v);
      return v;
    },
    2,
  );
}

function splitList(v: string | undefined): string[] | undefined {
  if (v === undefined) return undefined;
  const list = v.split(',').map((s) => s.trim()).filter(Boolean);
  if (list.length === 0) throw new UsageError('--features needs at least one name');
  return list;
}

async function load(io: CliIo, file: string): Promise<Population> {
  let pop: Population;
  try {
    pop = await loadPopulation(resolvePath(io, file), file);
  } catch (e) {
    if (isIoError(e)) throw new CliFailure(ioErrorMessage('read', file, e));
    if (e instanceof ImportError || e instanceof Error) throw new CliFailure(e.message);
    throw e;
  }
  if (pop.problems.length) {
    io.stderr(`warning: ${file}: ${pop.problems.length} invalid line(s) skipped ('simlens validate' lists them all), e.g.\n${pop.problems.slice(0, 3).map((p) => `  ${p}`).join('\n')}\n`);
  }
  if (pop.warnings.length) {
    io.stderr(`warning: ${file}: ${pop.warnings.length} import warning(s), e.g.\n${pop.warnings.slice(0, 3).map((p) => `  ${p}`).join('\n')}\n`);
  }
  if (pop.conversations.length === 0) throw new CliFailure(`${file}: no conversations`);
  return pop;
}

/** An error that ends the command with exit code 2 and its message. */
class CliFailure extends Error {}

function featureOptions(flags: { annotator?: string; ux?: string; judge?: string }): FeatureOptions {
  let acts: ActSource;
  try {
    acts = parseActSource(flags.annotator);
  } catch (e) {
    throw new UsageError(`--annotator: ${(e as Error).message}`);
  }
  const ux = (flags.ux ?? 'auto') as UxSource;
  if (!['auto', 'judge', 'first-person'].includes(ux)) throw new UsageError(`--ux must be auto, judge or first-person, got "${flags.ux}"`);
  return { acts, ux, judge: flags.judge };
}

function need<T>(v: T | undefined, name: string): T {
  if (v === undefined || (Array.isArray(v) && v.length === 0)) throw new UsageError(`missing --${name}`);
  return v;
}

function rewardConfig(flags: { full?: number; cost?: number; unsupported?: string }): RewardConfig {
  return { full: flags.full, cost: flags.cost, unsupported: flags.unsupported ? flags.unsupported.split(',').map((s) => s.trim()).filter(Boolean) : [] };
}

async function runPlsa(args: string[], io: CliIo): Promise<number> {
  const { flags } = parseArgs(args, SUBCOMMANDS.plsa, { positionals: { max: 0 } });
  const f = flags as Record<string, unknown> as {
    reference?: string; candidate: string[]; features?: string; annotator?: string; ux?: string; judge?: string;
    json: boolean; csv: boolean; baseline: boolean; 'baseline-size'?: number; seed?: string; means: boolean;
  };
  const refFile = need(f.reference, 'reference');
  const candFiles = need(f.candidate, 'candidate');
  const features = splitList(f.features) ?? [...PLSA_DEFAULT_FEATURES];
  const opts = featureOptions(f);
  const ref = await load(io, refFile);
  const cands: Population[] = [];
  for (const c of candFiles) cands.push(await load(io, c));
  const bundle = buildPlsa(ref, cands, { features, featureOptions: opts, baselineSize: f.baseline ? (f['baseline-size'] ?? 300) : undefined, seed: f.seed ?? 1 });
  const { report, baseline } = bundle;
  if (f.json) {
    const pick = (c: (typeof report.comparisons)[number]) => ({
      feature: c.feature, candidate: c.candidate, reference_mean: c.reference_mean, candidate_mean: c.candidate_mean,
      mwu_u: c.mwu_u, mwu_p: c.mwu_p, ks_statistic: c.ks_statistic, ks_p: c.ks_p,
    });
    const out: Record<string, unknown> = {
      reference: report.reference,
      candidates: report.candidates,
      comparisons: report.comparisons.map(pick),
    };
    if (baseline) out.baseline = { size: baseline.size, seed: baseline.seed, comparisons: baseline.comparisons.map(pick) };
    io.stdout(toJson(out) + '\n');
    return 0;
  }
  if (f.csv) {
    io.stdout(plsaCsv(report.comparisons));
    return 0;
  }
  io.stdout(plsaBundleMarkdown(bundle, { means: f.means }) + '\n');
  return 0;
}

async function runFeatures(args: string[], io: CliIo): Promise<number> {
  const { flags, positionals } = parseArgs(args, SUBCOMMANDS.features, { positionals: { min: 1, max: 1, names: 'FILE' } });
  const f = flags as Record<string, unknown> as { features?: string; annotator?: string; ux?: string; judge?: string; json: boolean; csv: boolean; list: boolean };
  const opts = featureOptions(f);
  const pop = await load(io, positionals[0]);
  const names = splitList(f.features) ?? availableFeatures(pop.conversations, opts);
  if (f.list) {
    io.stdout(f.json ? toJson(names) + '\n' : names.join('\n') + '\n');
    return 0;
  }
  const rows = pop.conversations.map((c, i) => {
    const cf = conversationFeatures(c, opts);
    return { id: c.id ?? (pop.lines ? `line:${pop.lines[i]}` : `#${i + 1}`), values: names.map((n) => featureValue(cf, n)) };
  });
  if (f.json) {
    io.stdout(toJson({ file: positionals[0], features: names, conversations: rows.map((r) => ({ id: r.id, ...Object.fromEntries(names.map((n, j) => [n, r.values[j]])) })) }) + '\n');
  } else if (f.csv) {
    io.stdout(csv(['id', ...names], rows.map((r) => [r.id, ...r.values])));
  } else {
    const table = featureTable(pop.conversations, names, opts);
    const rowsMd = names.map((n) => {
      const col = Array.from(table.values[n]).filter((v) => !Number.isNaN(v));
      const m = col.length ? col.reduce((s, v) => s + v, 0) / col.length : NaN;
      return [n, String(col.length), fmt(m), fmt(col.length ? Math.min(...col) : NaN), fmt(col.length ? Math.max(...col) : NaN)];
    });
    io.stdout(`## Features of ${positionals[0]} (${pop.conversations.length} conversations; acts: ${describeActSource(opts.acts!)})\n\n${markdownTable(['Feature', 'n', 'Mean', 'Min', 'Max'], rowsMd)}\n`);
  }
  return 0;
}

async function runHls(args: string[], io: CliIo): Promise<number> {
  const { flags } = parseArgs(args, SUBCOMMANDS.hls, { positionals: { max: 0 } });
  const f = flags as Record<string, unknown> as { human?: string; simulated: string[]; k?: number; seed?: string; curve: boolean; cross: boolean; json: boolean; 'min-df'?: number; scores: boolean };
  const human = await load(io, need(f.human, 'human'));
  const sims: Population[] = [];
  for (const s of need(f.simulated, 'simulated')) sims.push(await load(io, s));
  if (f.cross && sims.length < 2) throw new UsageError('--cross needs at least two --simulated files');
  const k = f.k ?? 5;
  if (!(k >= 2 && Number.isInteger(k))) throw new UsageError('--k must be an integer of at least 2');
  let bundle;
  try {
    bundle = buildHls(human, sims, { k, seed: f.seed ?? 1, minDf: f['min-df'], curve: f.curve, cross: f.cross });
  } catch (e) {
    throw new CliFailure((e as Error).message);
  }
  if (f.json) {
    const cv = bundle.crossValidation;
    const out: Record<string, unknown> = {
      human: bundle.human,
      simulated: bundle.simulated,
      cross_validation: { k: cv.k, seed: cv.seed, vocabulary_size: cv.vocabulary_size, metrics: cv.metrics, folds: cv.folds },
    };
    if (f.scores) out.hls = { human: cv.hls_human, simulated: cv.hls_simulated };
    if (bundle.learningCurve) out.learning_curve = bundle.learningCurve;
    if (bundle.crossDistribution) out.cross_distribution = bundle.crossDistribution;
    out.llm_discriminator = bundle.llm.map((x) => ({ population: x.population, annotators: x.scores.annotators, n: x.scores.n, mean_p_human: x.scores.mean_p_human }));
    io.stdout(toJson(out) + '\n');
    return 0;
  }
  io.stdout(hlsBundleMarkdown(bundle) + '\n');
  return 0;
}

async function runCounterfactual(args: string[], io: CliIo): Promise<number> {
  const { flags } = parseArgs(args, SUBCOMMANDS.counterfactual, { positionals: { max: 0 } });
  const f = flags as Record<string, unknown> as { human?: string; simulator: string[]; from?: string; to?: string; features?: string; annotator?: string; ux?: string; judge?: string; json: boolean };
  const from = f.from ?? 'good';
  const to = f.to ?? 'bad';
  const features = splitList(f.features) ?? [...PLSA_DEFAULT_FEATURES];
  const opts = featureOptions(f);
  const human = await load(io, need(f.human, 'human'));
  const sims: Population[] = [];
  for (const s of need(f.simulator, 'simulator')) sims.push(await load(io, s));
  let report;
  try {
    report = buildCounterfactual(human, sims, { from, to, features, featureOptions: opts });
  } catch (e) {
    throw new CliFailure((e as Error).message);
  }
  io.stdout(f.json ? toJson(report) + '\n' : counterfactualBundleMarkdown(report) + '\n');
  return 0;
}

async function runZb(args: string[], io: CliIo): Promise<number> {
  const { flags } = parseArgs(args, SUBCOMMANDS.zb, { positionals: { max: 0 } });
  const f = flags as Record<string, unknown> as { real?: string; simulated: string[]; annotator?: string; 'kl-smoothing'?: number; full?: number; cost?: number; unsupported?: string; json: boolean };
  const src = featureOptions({ annotator: f.annotator }).acts!;
  const reward = rewardConfig(f);
  const real = await load(io, need(f.real, 'real'));
  const realCounts = userActCounts(real.conversations, src);
  const alpha = f['kl-smoothing'] ?? 1;
  if (!(alpha >= 0)) throw new UsageError('--kl-smoothing must be >= 0');
  let rows;
  try {
    rows = [{ name: real.file, summary: zhangBalogSummary(real.conversations, reward), dsKl: undefined as ReturnType<typeof dsKl> | undefined }];
    for (const s of f.simulated) {
      const pop = await load(io, s);
      rows.push({ name: s, summary: zhangBalogSummary(pop.conversations, reward), dsKl: dsKl(userActCounts(pop.conversations, src), realCounts, alpha) });
    }
  } catch (e) {
    if (e instanceof CliFailure) throw e;
    throw new UsageError((e as Error).message);
  }
  io.stdout(f.json ? toJson({ act_source: describeActSource(src), kl_smoothing: alpha, populations: rows }) + '\n' : `## Zhang & Balog metrics\n\nActs: ${describeActSource(src)}; DS-KL smoothing: ${alpha} pseudo-count(s) per act.\n\n${zhangBalogMarkdown(rows)}\n`);
  return 0;
}

async function runRanking(args: string[], io: CliIo): Promise<number> {
  const { flags } = parseArgs(args, SUBCOMMANDS.ranking, { positionals: { max: 0 } });
  const f = flags as Record<string, unknown> as { real: string[]; simulated: string[]; by?: string; full?: number; cost?: number; json: boolean };
  const by = f.by ?? 'reward';
  if (!['reward', 'success_rate', 'avg_turns'].includes(by)) throw new UsageError(`--by must be reward, success_rate or avg_turns, got "${by}"`);
  const score = async (specs: string[], flag: string): Promise<Record<string, number>> => {
    const out: Record<string, number> = {};
    for (const spec of specs) {
      const eq = spec.indexOf('=');
      if (eq <= 0) throw new UsageError(`--${flag} expects SYSTEM=FILE, got "${spec}"`);
      const pop = await load(io, spec.slice(eq + 1));
      const s = zhangBalogSummary(pop.conversations, rewardConfig(f));
      out[spec.slice(0, eq)] = by === 'reward' ? s.reward : by === 'success_rate' ? s.success_rate.rate : s.avg_turns;
    }
    return out;
  };
  const real = await score(need(f.real, 'real'), 'real');
  const sim = await score(need(f.simulated, 'simulated'), 'simulated');
  let agreement;
  try {
    agreement = rankingAgreement(real, sim);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  io.stdout(f.json ? toJson({ metric: by, ...agreement }) + '\n' : `## Ranking agreement (${by})\n\n${markdownTable(['System', 'Real', 'Simulated'], agreement.systems.map((s, i) => [s, fmt(agreement.real[i]), fmt(agreement.simulated[i])]))}\n\nReal: ${agreement.real_order.join(' > ')}; simulated: ${agreement.simulated_order.join(' > ')}; Kendall's tau = ${fmt(agreement.kendall_tau)} (p = ${fmt(agreement.p_value, true)}).\n`);
  return 0;
}

async function runPepper(args: string[], io: CliIo): Promise<number> {
  const { flags, positionals } = parseArgs(args, SUBCOMMANDS.pepper, { positionals: { min: 1, names: 'FILE' } });
  const f = flags as Record<string, unknown> as { k?: number; turns?: number; json: boolean };
  const results = [];
  for (const file of positionals) {
    const pop = await load(io, file);
    const c = pepperCurves(pop.conversations, { k: f.k, turns: f.turns });
    if (c.users === 0) io.stderr(`warning: ${file}: no conversation has targets (trace.targets, trace.target.item_id or metadata.targets)\n`);
    results.push({ file, ...c });
  }
  io.stdout(f.json ? toJson(results) + '\n' : results.map((r) => pepperMarkdown(r, r.file)).join('\n\n') + '\n');
  return 0;
}

async function runAlterEval(args: string[], io: CliIo): Promise<number> {
  const { flags, positionals } = parseArgs(args, SUBCOMMANDS.altereval, { positionals: { min: 1, max: 1, names: 'FILE' } });
  const f = flags as Record<string, unknown> as { base?: string; relevant?: string; horizon?: number; json: boolean };
  const rel = f.relevant ?? 'alternatives';
  if (rel !== 'alternatives' && rel !== 'target') throw new UsageError(`--relevant must be alternatives or target, got "${rel}"`);
  const meta = await load(io, positionals[0]);
  const horizon = f.horizon ?? 10;
  if (f.base) {
    const base = await load(io, f.base);
    const imp = alterEvalImprovement(base.conversations, meta.conversations, horizon);
    io.stdout(f.json ? toJson({ file: positionals[0], base_file: f.base, ...imp }) + '\n' : alterEvalMarkdown(imp, positionals[0]) + '\n');
    return 0;
  }
  const c = alterEvalCurves(meta.conversations, { relevant: rel, horizon });
  if (c.conversations === 0) io.stderr(`warning: ${positionals[0]}: no conversation has a target (trace.target.item_id or metadata.target)\n`);
  io.stdout(f.json ? toJson({ file: positionals[0], ...c }) + '\n' : alterEvalMarkdown(c, positionals[0]) + '\n');
  return 0;
}

/** Gold examples from annotated conversations: one per annotated user utterance segment. */
export function goldExamples(conversations: readonly Conversation[], src: ActSource): TaggedExample[][] {
  if (src.kind !== 'annotator') throw new UsageError('--annotator must name an annotator in the file (e.g. source@iard)');
  return conversations.map((c) => {
    const out: TaggedExample[] = [];
    for (const t of c.turns) {
      if (!t.user_utterance) continue;
      const segs = t.user_utterance.split('\n');
      for (const a of t.annotations ?? []) {
        if (a.speaker !== 'user' || a.annotator !== src.annotator) continue;
        const text = segs.length > 1 && a.segment !== undefined ? segs[a.segment] ?? t.user_utterance : t.user_utterance;
        out.push({ text, acts: src.map ? mapActs(a.acts, src.map) : a.acts });
      }
    }
    return out;
  });
}

async function runTagger(args: string[], io: CliIo): Promise<number> {
  const { flags } = parseArgs(args, SUBCOMMANDS.tagger, { positionals: { max: 0 } });
  const f = flags as Record<string, unknown> as { eval?: string; annotator?: string; k?: number; seed?: string; text: string[]; json: boolean };
  const tagger = ActTagger.default();
  if (f.text.length) {
    const tagged = f.text.map((t) => ({ text: t, acts: tagger.tag(t) }));
    io.stdout(f.json ? toJson(tagged) + '\n' : tagged.map((t) => `${t.acts.join(', ')}\t${t.text}`).join('\n') + '\n');
    if (!f.eval) return 0;
  }
  if (!f.eval) throw new UsageError('give --eval FILE or --text "utterance"');
  const pop = await load(io, f.eval);
  const groups = goldExamples(pop.conversations, featureOptions({ annotator: f.annotator ?? 'source@iard' }).acts!);
  const all = groups.flat();
  if (all.length === 0) throw new CliFailure(`${f.eval}: no user utterances annotated by "${f.annotator ?? 'source'}"`);
  const builtin = evaluateTagger(tagger, all);
  const cv = crossValidateTagger(groups, { k: f.k ?? 5, seed: f.seed ?? 1, withSeed: true });
  if (f.json) {
    io.stdout(toJson({ file: f.eval, utterances: all.length, builtin, cross_validated: cv }) + '\n');
    return 0;
  }
  const row = (name: string, e: typeof builtin) => [name, fmt(e.primaryAccuracy), fmt(e.exactMatch), fmt(e.microPrecision), fmt(e.microRecall), fmt(e.microF1)];
  io.stdout(`## Act tagger on ${f.eval} (${all.length} user utterances)\n\n${markdownTable(['Model', 'Primary-act accuracy', 'Exact set', 'Micro P', 'Micro R', 'Micro F1'], [row('built-in', builtin), row(`${f.k ?? 5}-fold CV (trained on file + built-in)`, cv)])}\n`);
  return 0;
}

const RUNNERS: Record<string, (args: string[], io: CliIo) => Promise<number>> = {
  plsa: runPlsa,
  features: runFeatures,
  hls: runHls,
  counterfactual: runCounterfactual,
  zb: runZb,
  ranking: runRanking,
  pepper: runPepper,
  altereval: runAlterEval,
  tagger: runTagger,
};

export const metricsCommand: CliCommand = {
  name: 'metrics',
  summary: 'realism and simulation metrics: PLSA (MWU/KS), human-likeness, counterfactual, Zhang & Balog, PEPPER, AlterEval',
  help: HELP,
  async run(args, io) {
    const [sub, ...rest] = args;
    if (!sub) throw new UsageError(`missing subcommand (one of: ${Object.keys(RUNNERS).join(', ')})`);
    const runner = RUNNERS[sub];
    if (!runner) throw new UsageError(`unknown subcommand "${sub}" (one of: ${Object.keys(RUNNERS).join(', ')})`);
    try {
      return await runner(rest, io);
    } catch (e) {
      if (e instanceof CliFailure) {
        io.stderr(`simlens metrics ${sub}: ${e.message}\n`);
        return 2;
      }
      throw e;
    }
  },
};
