/**
 * `simlens metrics <sub> …`: the realism and simulation metrics of src/core/metrics from the
 * command line (PLSA, human-likeness, counterfactual validation, Zhang & Balog, PEPPER,
 * AlterEval, per-conversation features, and the act tagger's own evaluation).
 *
 * The report subcommands (plsa, hls, counterfactual, zb, ranking, pepper, altereval) build a
 * report spec and compute it with `computeReport`, exactly as the metric panels do, so the CLI
 * prints the panels' numbers: --json is the report itself, Markdown and CSV come from the
 * report renderers (src/core/report/render).
 */
import { mkdirSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Conversation } from '../../core/model';
import { ImportError } from '../../core/importers';
import {
  ActTagger,
  availableFeatures,
  conversationFeatures,
  crossValidateTagger,
  describeActSource,
  evaluateTagger,
  featureTable,
  featureValue,
  loadPopulation,
  parseActSource,
  type ActSource,
  type Population,
  type TaggedExample,
  type UxSource,
} from '../../core/metrics';
import { mapActs } from '../../core/taxonomy/acts';
import {
  computeReport,
  defaultLabel,
  featureOptions,
  markdownTableOf,
  renderMarkdown,
  tableToCsv,
  type PopulationSpec,
  type Report,
  type ReportSpec,
  type TableSection,
} from '../../core/report';
import {
  featureFileInput,
  featurePassConfig,
  featureRowJson,
  featureRowOf,
  FEATURES_TASK,
  inputProblems,
} from '../../core/report/featureFile';
import { annotationPartManifest, type AnnotationPartState } from '../../core/run/annotationShard';
import { writeManifest } from '../../core/run/manifest';
import { shardIndices } from '../../core/run/orchestrator';
import { partFileName, resolveShard, SHARD_COUNT_VARIABLE, type ResolvedShard } from '../../core/run/shardEnv';
import { writeJsonlAtomic } from '../../core/llm/annotate';
import { formatFlags, parseArgs, type FlagSpecs } from '../args';
import { UsageError, type CliCommand, type CliIo } from '../types';
import { count, EXIT_NOT_READABLE, importErrorMessage, ioErrorMessage, isIoError, resolvePath } from '../util';
import { InputProblemError } from '../../core/report/inputProblem';

const COMMON = {
  json: { type: 'boolean', description: 'print JSON instead of Markdown' },
  annotator: {
    type: 'string',
    valueName: 'NAME',
    description:
      'act source: tagger (default), judge, judge:<model>, trace, or an annotator name (NAME@iard maps IARD labels)',
  },
  ux: {
    type: 'string',
    valueName: 'SRC',
    description: 'user-experience source: auto (judge, then first-person ratings), judge, first-person',
  },
  judge: {
    type: 'string',
    valueName: 'NAME',
    description: 'judge annotator for UX features (judge:<model>; default: any judge)',
  },
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
    means: { type: 'boolean', description: 'kept for compatibility: the table always shows the means' },
    csv: { type: 'boolean', description: 'print the table of all comparisons as CSV' },
  },
  features: {
    ...COMMON,
    list: { type: 'boolean', description: 'list the feature names found in FILE' },
    csv: { type: 'boolean', description: 'print CSV (one row per conversation)' },
    out: {
      type: 'string',
      short: 'o',
      valueName: 'OUT',
      description:
        'write a feature file (every feature of every conversation, JSONL, manifest beside it) for the reports: give it where a population FILE goes',
    },
    shard: {
      type: 'string',
      valueName: 'I/K|auto|none',
      description:
        'with --out: only the conversations at positions p with p mod K = I (0-based); auto: from a Slurm array or ' +
        'Kubernetes indexed job (the default when their variables are set), writing OUT.part-I-of-K.jsonl; none: ignore ' +
        'them. Join the parts with simlens merge OUT',
    },
    'shard-count': {
      type: 'number',
      valueName: 'K',
      description: `with --shard auto: the number of shards (Kubernetes: the Job's completions; default ${SHARD_COUNT_VARIABLE}, or the Slurm array's size)`,
    },
  },
  hls: {
    json: COMMON.json,
    seed: COMMON.seed,
    human: { type: 'string', valueName: 'FILE', description: 'human conversations' },
    simulated: {
      type: 'string',
      multiple: true,
      valueName: 'FILE',
      description: 'simulated conversations (several: one cross-validation each, and --cross)',
    },
    k: { type: 'number', description: 'folds (default 5)' },
    curve: { type: 'boolean', description: 'add a learning curve' },
    cross: { type: 'boolean', description: 'add the cross-distribution matrix (needs 2+ --simulated)' },
    'min-df': { type: 'number', description: 'keep n-grams seen in at least N training conversations (default 2)' },
    scores: { type: 'boolean', description: "add a table of every conversation's out-of-fold HLS" },
  },
  counterfactual: {
    ...COMMON,
    human: { type: 'string', valueName: 'FILE', description: 'human conversations of both conditions' },
    simulator: {
      type: 'string',
      multiple: true,
      valueName: 'FILE',
      description: 'a simulator run covering both conditions',
    },
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
    unsupported: {
      type: 'string',
      valueName: 'a,b',
      description: 'functions the agent lacks: disclose, refine, inquire, navigate, mixed_initiative (4 points each)',
    },
  },
  ranking: {
    json: COMMON.json,
    real: { type: 'string', multiple: true, valueName: 'SYS=FILE', description: 'a system evaluated with real users' },
    simulated: {
      type: 'string',
      multiple: true,
      valueName: 'SYS=FILE',
      description: 'the same system evaluated with simulated users',
    },
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
    base: {
      type: 'string',
      valueName: 'FILE',
      description: 'base-simulator run: report the meta-simulator improvement over it',
    },
    relevant: { type: 'string', valueName: 'MODE', description: 'alternatives (default) or target' },
    horizon: { type: 'number', description: 'turns (default 10)' },
  },
  tagger: {
    json: COMMON.json,
    seed: COMMON.seed,
    eval: { type: 'string', valueName: 'FILE', description: 'annotated conversations to evaluate on' },
    annotator: {
      type: 'string',
      valueName: 'NAME',
      description: 'gold annotator in FILE (NAME@iard maps IARD labels), default source@iard',
    },
    k: { type: 'number', description: 'cross-validation folds (default 5)' },
    text: { type: 'string', multiple: true, valueName: 'TEXT', description: 'tag one utterance' },
  },
};

const HELP = `Usage: simlens metrics <subcommand> [options]

Population realism and simulation metrics. The report subcommands (plsa, hls, counterfactual, zb,
ranking, pepper, altereval) compute the same report as the SimLens metric panels: Markdown tables
by default (charts left out), the report as JSON with --json (schema simlens-report/1: inputs,
sections with tables and chart data, warnings), one table as CSV where --csv is offered (CSV cells
that a spreadsheet would run as a formula get a leading apostrophe). Failed conversations (agent
errors and other run failures) are left out of every metric, with a warning. Files are
SimLens/ConvApparel JSONL or anything 'simlens convert' reads (DialogueKit/UserSimCRS JSON, the
ConvApparel release document).

Subcommands:
  plsa --reference FILE --candidate FILE [--candidate FILE …] [--features a,b] [--annotator NAME]
      Mann-Whitney U (two-sided) and two-sample KS per feature, exactly as SciPy computes them.
      Default features: the 11 of the ConvApparel tables. --baseline adds the human-vs-human
      split-half baseline (two disjoint seeded subsets of --baseline-size, default 300).
      --csv prints the "plsa-comparisons" table (feature, candidate, means, MWU U = SciPy's U1
      of mannwhitneyu(reference, candidate), MWU p, KS D, KS p, sizes; missing values empty).
  features FILE [--features a,b] [--list] [--csv]
      Per-conversation features (num_turns, user_words_per_turn, user_turns_with_question,
      assistant_turns_with_question, act:<name>, agent_act:<name>, satisfaction, frustration,
      confusion, sentiment, accepted, turns_until_acceptance).
  features FILE --out OUT [--annotator NAME] [--ux SRC] [--judge NAME] [--shard I/K|auto]
      A feature file: every feature of every conversation of FILE (with its filter facets and
      outcome), in input order, and OUT.manifest.json (input name, size, SHA-256; act and UX
      sources). Sharded (in a Slurm array or Kubernetes indexed job, or --shard I/K), each task
      writes its part; 'simlens merge OUT' joins them byte for byte. Give OUT in place of FILE
      to plsa and counterfactual (same sources): the report equals the one from FILE. Reports
      that need the text (hls, zb, ...) read the conversations file beside OUT.
  hls --human FILE --simulated FILE [--simulated FILE …] [--k 5] [--curve] [--cross]
      Embedded n-gram discriminator, cross-validated per simulated file: k-fold accuracy,
      precision, recall, F1, specificity (human = positive), HLS = P(human) per conversation,
      learning curve, cross-distribution matrix, and LLM-discriminator scores
      (discriminator:<model> annotations) beside them.
  counterfactual --human FILE --simulator FILE [--simulator FILE …] [--from good] [--to bad]
      Simulator shift between conditions vs the human shift per feature, and MWU/KS against the
      humans in the unseen condition. Conditions come from "condition" or the task_id suffix.
  zb --real FILE --simulated FILE [--simulated FILE …] [--annotator NAME] [--unsupported a,b]
      Zhang & Balog: AvgTurns, UserActRatio (DialogueKit definitions), DS-KL (symmetric KL of user
      acts, --kl-smoothing pseudo-counts, default 1), Reward = max(0, Full − Cost·T) for accepted
      conversations, Success Rate (share of turns with trace.operation = pull).
  ranking --real A=FILE --real B=FILE … --simulated A=FILE --simulated B=FILE … [--by reward]
      Kendall's tau between the ranking of systems under real and under simulated users (systems
      given with both flags), and the Zhang & Balog table of every file.
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
${Object.entries(SUBCOMMANDS)
  .map(
    ([name, specs]) =>
      `  ${name}:\n${formatFlags(specs)
        .split('\n')
        .map((l) => `  ${l}`)
        .join('\n')}`,
  )
  .join('\n')}

Exit codes: 0 success, 1 an input that is not usable conversations (unknown format, not
conversation data, no valid conversation in a file, every conversation of a population failed),
2 usage or I/O error (bad options, a filter that matches nothing, a missing or unreadable file).

Examples:
  simlens convert test/fixtures/datasets/usersimcrs-iard-gold/formatted_IARD_annotated_gold.json -o human.jsonl
  simlens simulate --agent local-good --n 100 --seed 1 --out sim.jsonl
  simlens metrics plsa --reference human.jsonl --candidate sim.jsonl --json
  simlens metrics hls --human human.jsonl --simulated sim.jsonl --curve
  simlens metrics zb --real human.jsonl --simulated sim.jsonl --annotator source@iard
  simlens metrics features sim.jsonl --out sim.features.jsonl
  simlens metrics plsa --reference human.jsonl --candidate sim.features.jsonl
`;

/** JSON with NaN/Infinity as null and typed arrays as arrays (the `features` and `tagger` outputs). */
function toJson(value: unknown): string {
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
  const list = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (list.length === 0) throw new UsageError('--features needs at least one name');
  return list;
}

/** An error that ends the command with its message and exit code (2 unless given). */
class CliFailure extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
  }
}

/** Reads a file for the subcommands that do not build a report (features, tagger). */
async function load(io: CliIo, file: string): Promise<Population> {
  let pop: Population;
  try {
    pop = await loadPopulation(resolvePath(io, file), file);
  } catch (e) {
    if (isIoError(e)) throw new CliFailure(ioErrorMessage('read', file, e));
    if (e instanceof ImportError) throw new CliFailure(importErrorMessage(io, e), EXIT_NOT_READABLE);
    if (e instanceof Error) throw new CliFailure(e.message);
    throw e;
  }
  if (pop.problems.length) {
    io.stderr(
      `warning: ${file}: ${count(pop.problems.length, 'invalid line')} skipped ('simlens validate' lists them all), e.g.\n${pop.problems
        .slice(0, 3)
        .map((p) => `  ${p}`)
        .join('\n')}\n`,
    );
  }
  if (pop.warnings.length) {
    io.stderr(
      `warning: ${file}: ${pop.warnings.length} import warning(s), e.g.\n${pop.warnings
        .slice(0, 3)
        .map((p) => `  ${p}`)
        .join('\n')}\n`,
    );
  }
  if (pop.conversations.length === 0) throw new CliFailure(`${file}: no conversations`, EXIT_NOT_READABLE);
  return pop;
}

/** Checks --annotator, --ux and --judge (usage errors) and returns them for a report spec. */
function sources(flags: { annotator?: string; ux?: string; judge?: string }): {
  acts?: string;
  ux?: UxSource;
  judge?: string;
} {
  try {
    parseActSource(flags.annotator);
  } catch (e) {
    throw new UsageError(`--annotator: ${(e as Error).message}`);
  }
  const ux = flags.ux as UxSource | undefined;
  if (ux !== undefined && !['auto', 'judge', 'first-person'].includes(ux))
    throw new UsageError(`--ux must be auto, judge or first-person, got "${flags.ux}"`);
  return { acts: flags.annotator, ux, judge: flags.judge };
}

function actSource(annotator: string | undefined): ActSource {
  return parseActSource(sources({ annotator }).acts);
}

function need<T>(v: T | undefined, name: string): T {
  if (v === undefined || (Array.isArray(v) && v.length === 0)) throw new UsageError(`missing --${name}`);
  return v;
}

function seedOf(s: string | undefined): string | number {
  return s === undefined ? 1 : /^-?\d+$/.test(s) ? Number(s) : s;
}

/**
 * The report of a spec, computed exactly as the metric panels compute it (`computeReport`: the
 * same loading, failed conversations left out, the same builders). Any failure to read or
 * compute ends the command: exit code 1 when the input is not usable conversations, else 2.
 */
async function cliReport(io: CliIo, spec: Exclude<ReportSpec, { kind: 'fidelity' }>): Promise<Report> {
  try {
    return await computeReport(spec, { cwd: io.cwd });
  } catch (e) {
    if (isIoError(e)) throw new CliFailure(ioErrorMessage('read', e.path ?? 'a file', e));
    if (e instanceof ImportError) throw new CliFailure(importErrorMessage(io, e), EXIT_NOT_READABLE);
    const message = (e as Error).message;
    throw new CliFailure(message, e instanceof InputProblemError ? EXIT_NOT_READABLE : 2);
  }
}

/**
 * Prints a report: the report itself as JSON (--json, the panels' data), one of its tables as
 * CSV (--csv), or the Markdown layout without charts as plain text (no Markdown escapes: this is
 * read on a terminal, not rendered). Warnings also go to stderr.
 */
function printReport(io: CliIo, report: Report, f: { json?: boolean; csv?: boolean }, csvTable?: string): void {
  for (const w of report.warnings ?? []) io.stderr(`warning: ${w}\n`);
  if (f.json) {
    io.stdout(JSON.stringify(report, null, 2) + '\n');
    return;
  }
  if (f.csv) {
    const t = report.sections.find((s): s is TableSection => s.type === 'table' && s.id === csvTable);
    if (!t) throw new CliFailure(`the report has no "${csvTable}" table`);
    io.stdout(tableToCsv(t));
    return;
  }
  io.stdout(renderMarkdown(report, { omitCharts: true, plain: true }));
}

/**
 * A population spec from a file argument (labels as the panels make them unless given). A
 * feature file (`metrics features FILE --out OUT`) stands for its conversations file: the
 * feature reports read the features, the others the conversations beside it.
 */
function pop(io: CliIo, file: string, label?: string, condition?: string): PopulationSpec {
  const input = featureFileInput(file, resolvePath(io, file));
  const spec: PopulationSpec = input !== undefined ? { file: input, features: file } : { file };
  if (label) spec.label = label;
  if (condition) spec.filter = { condition };
  return spec;
}

async function runPlsa(args: string[], io: CliIo): Promise<number> {
  const { flags } = parseArgs(args, SUBCOMMANDS.plsa, { positionals: { max: 0 } });
  const f = flags as Record<string, unknown> as {
    reference?: string;
    candidate: string[];
    features?: string;
    annotator?: string;
    ux?: string;
    judge?: string;
    json: boolean;
    csv: boolean;
    baseline: boolean;
    'baseline-size'?: number;
    seed?: string;
    means: boolean;
  };
  const reference = pop(io, need(f.reference, 'reference'));
  const candidates = need(f.candidate, 'candidate').map((c) => pop(io, c));
  const report = await cliReport(io, {
    kind: 'plsa',
    reference,
    candidates,
    features: splitList(f.features),
    ...sources(f),
    baseline: f.baseline,
    baselineSize: f['baseline-size'],
    seed: seedOf(f.seed),
  });
  printReport(io, report, f, 'plsa-comparisons');
  return 0;
}

async function runFeatures(args: string[], io: CliIo): Promise<number> {
  const { flags, positionals } = parseArgs(args, SUBCOMMANDS.features, {
    positionals: { min: 1, max: 1, names: 'FILE' },
  });
  const f = flags as Record<string, unknown> as FeatureFlags;
  const src = sources(f);
  if (f.out !== undefined) return writeFeatureFile(io, positionals[0], f, src, args);
  if (f.shard !== undefined || f['shard-count'] !== undefined)
    throw new UsageError('--shard and --shard-count go with --out (each shard writes its part of the feature file)');
  const opts = { acts: parseActSource(src.acts), ux: src.ux ?? 'auto', judge: src.judge };
  const pop = await load(io, positionals[0]);
  const names = splitList(f.features) ?? availableFeatures(pop.conversations, opts);
  if (f.list) {
    io.stdout(f.json ? toJson(names) + '\n' : names.join('\n') + '\n');
    return 0;
  }
  const rows = pop.conversations.map((c, i) => {
    const cf = conversationFeatures(c, opts);
    return {
      id: c.id ?? (pop.lines ? `line:${pop.lines[i]}` : `#${i + 1}`),
      values: names.map((n) => featureValue(cf, n)),
    };
  });
  const num = (v: number) => (Number.isFinite(v) ? v : null);
  if (f.json) {
    io.stdout(
      toJson({
        file: positionals[0],
        features: names,
        conversations: rows.map((r) => ({ id: r.id, ...Object.fromEntries(names.map((n, j) => [n, r.values[j]])) })),
      }) + '\n',
    );
  } else if (f.csv) {
    io.stdout(
      tableToCsv({
        type: 'table',
        id: 'features',
        title: 'Features',
        columns: [{ key: 'id', label: 'id', format: 'text' }, ...names.map((n) => ({ key: n, label: n }))],
        rows: rows.map((r) => ({ cells: [r.id, ...r.values.map(num)] })),
      }),
    );
  } else {
    const table = featureTable(pop.conversations, names, opts);
    const summary: TableSection = {
      type: 'table',
      id: 'features',
      title: 'Features',
      columns: [
        { key: 'feature', label: 'Feature', format: 'text' },
        { key: 'n', label: 'n', format: 'int' },
        { key: 'mean', label: 'Mean', format: 'fixed' },
        { key: 'min', label: 'Min', format: 'fixed' },
        { key: 'max', label: 'Max', format: 'fixed' },
      ],
      rows: names.map((n) => {
        const col = Array.from(table.values[n]).filter((v) => !Number.isNaN(v));
        const m = col.length ? col.reduce((s, v) => s + v, 0) / col.length : NaN;
        return {
          cells: [
            n,
            col.length,
            num(m),
            col.length ? num(Math.min(...col)) : null,
            col.length ? num(Math.max(...col)) : null,
          ],
        };
      }),
    };
    io.stdout(
      `## Features of ${positionals[0]} (${count(pop.conversations.length, 'conversation')}; acts: ` +
        `${describeActSource(opts.acts)})\n\n${markdownTableOf(summary, { plain: true })}\n`,
    );
  }
  return 0;
}

type FeatureFlags = {
  features?: string;
  annotator?: string;
  ux?: string;
  judge?: string;
  json: boolean;
  csv: boolean;
  list: boolean;
  out?: string;
  shard?: string;
  'shard-count'?: number;
};

/**
 * `metrics features FILE --out OUT [--shard ...]`: the feature file of FILE, or the part of one
 * shard (positions I, I+K, ... of the valid conversations of FILE), with its manifest.
 */
async function writeFeatureFile(
  io: CliIo,
  input: string,
  f: FeatureFlags,
  src: ReturnType<typeof sources>,
  args: readonly string[],
): Promise<number> {
  if (f.features !== undefined || f.list || f.csv || f.json)
    throw new UsageError(
      '--out writes every feature of every conversation; leave out --features, --list, --csv and --json',
    );
  let resolved: ResolvedShard | undefined;
  try {
    resolved = resolveShard(f.shard, io.env, f['shard-count']);
  } catch (err) {
    throw new UsageError(`--shard: ${(err as Error).message}`);
  }
  // A cluster task names its part by its index; an explicit --shard I/K writes OUT as given.
  const out = resolved && resolved.source !== 'option' ? partFileName(f.out!, resolved.shard) : f.out!;
  if (resolvePath(io, out) === resolvePath(io, input)) throw new UsageError('--out must not be FILE');
  if (resolved) io.stderr(`simlens metrics features: ${resolved.description} -> ${out}\n`);
  const population = await load(io, input);
  const positions = shardIndices(population.conversations.length, resolved?.shard);
  const outFile = resolvePath(io, out);
  const opts = featureOptions(src.acts, src.ux, src.judge);
  try {
    mkdirSync(dirname(outFile), { recursive: true });
    const state: AnnotationPartState = {
      command: FEATURES_TASK,
      commandLine: `simlens metrics features ${args.join(' ')}`,
      config: featurePassConfig({
        inputFile: resolvePath(io, input),
        items: population.conversations.length,
        sources: src,
      }),
      shard: resolved?.shard,
      shardSource:
        resolved && resolved.source !== 'option'
          ? { engine: resolved.source, variables: resolved.variables ?? {} }
          : undefined,
      output: outFile,
      started: new Date(),
      planned: positions.length,
      annotated: 0,
      skipped: 0,
      failures: { failed: 0, agent_errors: 0, by_reason: {} },
      resumed: 0,
      status: 'running',
      extra: { input_problems: inputProblems(population.problems, input) },
    };
    writeManifest(outFile, annotationPartManifest(state));
    const rows = positions.map((p) =>
      featureRowJson(featureRowOf(population.conversations[p], p, population.lines?.[p], opts)),
    );
    await writeJsonlAtomic(outFile, rows);
    writeManifest(
      outFile,
      annotationPartManifest({ ...state, annotated: rows.length, status: 'finished', finished: new Date() }),
    );
    io.stdout(
      `wrote the features of ${count(rows.length, 'conversation')}${resolved ? ` (shard ${resolved.shard.index}/${resolved.shard.count} of ${population.conversations.length})` : ''} to ${out} (acts: ${describeActSource(opts.acts!)})\n`,
    );
  } catch (e) {
    if (isIoError(e)) throw new CliFailure(ioErrorMessage('write', out, e));
    throw e;
  }
  return 0;
}

async function runHls(args: string[], io: CliIo): Promise<number> {
  const { flags } = parseArgs(args, SUBCOMMANDS.hls, { positionals: { max: 0 } });
  const f = flags as Record<string, unknown> as {
    human?: string;
    simulated: string[];
    k?: number;
    seed?: string;
    curve: boolean;
    cross: boolean;
    json: boolean;
    'min-df'?: number;
    scores: boolean;
  };
  const human = pop(io, need(f.human, 'human'));
  const simulated = need(f.simulated, 'simulated').map((s) => pop(io, s));
  if (f.cross && simulated.length < 2) throw new UsageError('--cross needs at least two --simulated files');
  const k = f.k ?? 5;
  if (!(k >= 2 && Number.isInteger(k))) throw new UsageError('--k must be an integer of at least 2');
  const minDf = f['min-df'];
  if (minDf !== undefined && !(minDf >= 1 && Number.isInteger(minDf)))
    throw new UsageError('--min-df must be a whole number of at least 1');
  const report = await cliReport(io, {
    kind: 'human-likeness',
    human,
    simulated,
    folds: k,
    seed: seedOf(f.seed),
    learningCurve: f.curve,
    cross: f.cross,
    minDf,
    scores: f.scores,
  });
  printReport(io, report, f);
  return 0;
}

async function runCounterfactual(args: string[], io: CliIo): Promise<number> {
  const { flags } = parseArgs(args, SUBCOMMANDS.counterfactual, { positionals: { max: 0 } });
  const f = flags as Record<string, unknown> as {
    human?: string;
    simulator: string[];
    from?: string;
    to?: string;
    features?: string;
    annotator?: string;
    ux?: string;
    judge?: string;
    json: boolean;
  };
  const from = f.from ?? 'good';
  const to = f.to ?? 'bad';
  const human = pop(io, need(f.human, 'human'), 'human');
  const simulators = need(f.simulator, 'simulator').map((file) => {
    const spec = pop(io, file);
    return { label: defaultLabel(spec), from: spec, to: { ...spec } };
  });
  const report = await cliReport(io, {
    kind: 'counterfactual',
    human,
    simulators,
    from,
    to,
    features: splitList(f.features),
    ...sources(f),
  });
  printReport(io, report, f);
  return 0;
}

function rewardOf(flags: { full?: number; cost?: number; unsupported?: string }) {
  return {
    full: flags.full,
    cost: flags.cost,
    unsupported: flags.unsupported
      ? flags.unsupported
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : [],
  };
}

async function runZb(args: string[], io: CliIo): Promise<number> {
  const { flags } = parseArgs(args, SUBCOMMANDS.zb, { positionals: { max: 0 } });
  const f = flags as Record<string, unknown> as {
    real?: string;
    simulated: string[];
    annotator?: string;
    'kl-smoothing'?: number;
    full?: number;
    cost?: number;
    unsupported?: string;
    json: boolean;
  };
  const acts = sources({ annotator: f.annotator }).acts;
  const alpha = f['kl-smoothing'];
  if (alpha !== undefined && !(alpha >= 0)) throw new UsageError('--kl-smoothing must be >= 0');
  const report = await cliReport(io, {
    kind: 'simulation',
    reference: pop(io, need(f.real, 'real')),
    populations: need(f.simulated, 'simulated').map((s) => pop(io, s)),
    acts,
    reward: rewardOf(f),
    klSmoothing: alpha,
    metrics: ['zb'],
  });
  printReport(io, report, f);
  return 0;
}

/** SYSTEM=FILE arguments by system name. */
function systemFiles(specs: readonly string[], flag: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const spec of specs) {
    const eq = spec.indexOf('=');
    if (eq <= 0) throw new UsageError(`--${flag} expects SYSTEM=FILE, got "${spec}"`);
    const name = spec.slice(0, eq);
    if (out.has(name)) throw new UsageError(`--${flag}: system "${name}" given twice`);
    out.set(name, spec.slice(eq + 1));
  }
  return out;
}

async function runRanking(args: string[], io: CliIo): Promise<number> {
  const { flags } = parseArgs(args, SUBCOMMANDS.ranking, { positionals: { max: 0 } });
  const f = flags as Record<string, unknown> as {
    real: string[];
    simulated: string[];
    by?: string;
    full?: number;
    cost?: number;
    json: boolean;
  };
  const by = f.by ?? 'reward';
  if (by !== 'reward' && by !== 'success_rate' && by !== 'avg_turns')
    throw new UsageError(`--by must be reward, success_rate or avg_turns, got "${by}"`);
  const real = systemFiles(need(f.real, 'real'), 'real');
  const sim = systemFiles(need(f.simulated, 'simulated'), 'simulated');
  const names = [...real.keys()].filter((n) => sim.has(n));
  if (names.length < 2)
    throw new UsageError('ranking agreement needs at least two systems given with both --real and --simulated');
  const systems = names.map((name) => ({
    name,
    real: pop(io, real.get(name)!, `${name} (real)`),
    simulated: pop(io, sim.get(name)!, `${name} (simulated)`),
  }));
  const report = await cliReport(io, {
    kind: 'simulation',
    populations: systems.flatMap((s) => [s.real, s.simulated]),
    systems,
    rankBy: by,
    reward: rewardOf(f),
    metrics: ['zb'],
  });
  printReport(io, report, f);
  return 0;
}

async function runPepper(args: string[], io: CliIo): Promise<number> {
  const { flags, positionals } = parseArgs(args, SUBCOMMANDS.pepper, { positionals: { min: 1, names: 'FILE' } });
  const f = flags as Record<string, unknown> as { k?: number; turns?: number; json: boolean };
  const report = await cliReport(io, {
    kind: 'simulation',
    populations: positionals.map((p) => pop(io, p)),
    pepperK: f.k,
    pepperTurns: f.turns,
    metrics: ['pepper'],
  });
  printReport(io, report, f);
  return 0;
}

async function runAlterEval(args: string[], io: CliIo): Promise<number> {
  const { flags, positionals } = parseArgs(args, SUBCOMMANDS.altereval, {
    positionals: { min: 1, max: 1, names: 'FILE' },
  });
  const f = flags as Record<string, unknown> as { base?: string; relevant?: string; horizon?: number; json: boolean };
  const rel = f.relevant ?? 'alternatives';
  if (rel !== 'alternatives' && rel !== 'target')
    throw new UsageError(`--relevant must be alternatives or target, got "${rel}"`);
  const report = await cliReport(io, {
    kind: 'simulation',
    populations: [pop(io, positionals[0])],
    horizon: f.horizon,
    relevant: rel,
    base: f.base ? pop(io, f.base, `${basename(f.base)} (base)`) : undefined,
    metrics: ['altereval'],
  });
  printReport(io, report, f);
  return 0;
}

/** Gold examples from annotated conversations: one per annotated user utterance segment. */
function goldExamples(conversations: readonly Conversation[], src: ActSource): TaggedExample[][] {
  if (src.kind !== 'annotator')
    throw new UsageError('--annotator must name an annotator in the file (e.g. source@iard)');
  return conversations.map((c) => {
    const out: TaggedExample[] = [];
    for (const t of c.turns) {
      if (!t.user_utterance) continue;
      const segs = t.user_utterance.split('\n');
      for (const a of t.annotations ?? []) {
        if (a.speaker !== 'user' || a.annotator !== src.annotator) continue;
        const text =
          segs.length > 1 && a.segment !== undefined ? (segs[a.segment] ?? t.user_utterance) : t.user_utterance;
        out.push({ text, acts: src.map ? mapActs(a.acts, src.map) : a.acts });
      }
    }
    return out;
  });
}

async function runTagger(args: string[], io: CliIo): Promise<number> {
  const { flags } = parseArgs(args, SUBCOMMANDS.tagger, { positionals: { max: 0 } });
  const f = flags as Record<string, unknown> as {
    eval?: string;
    annotator?: string;
    k?: number;
    seed?: string;
    text: string[];
    json: boolean;
  };
  const tagger = ActTagger.default();
  if (f.text.length) {
    const tagged = f.text.map((t) => ({ text: t, acts: tagger.tag(t) }));
    io.stdout(f.json ? toJson(tagged) + '\n' : tagged.map((t) => `${t.acts.join(', ')}\t${t.text}`).join('\n') + '\n');
    if (!f.eval) return 0;
  }
  if (!f.eval) throw new UsageError('give --eval FILE or --text "utterance"');
  const pop = await load(io, f.eval);
  const groups = goldExamples(pop.conversations, actSource(f.annotator ?? 'source@iard'));
  const all = groups.flat();
  if (all.length === 0) throw new CliFailure(`${f.eval}: no user utterances annotated by "${f.annotator ?? 'source'}"`);
  const builtin = evaluateTagger(tagger, all);
  const cv = crossValidateTagger(groups, { k: f.k ?? 5, seed: f.seed ?? 1, withSeed: true });
  if (f.json) {
    io.stdout(toJson({ file: f.eval, utterances: all.length, builtin, cross_validated: cv }) + '\n');
    return 0;
  }
  const num = (v: number) => (Number.isFinite(v) ? v : null);
  const row = (name: string, e: typeof builtin) => ({
    cells: [name, num(e.primaryAccuracy), num(e.exactMatch), num(e.microPrecision), num(e.microRecall), num(e.microF1)],
  });
  const table: TableSection = {
    type: 'table',
    id: 'tagger',
    title: 'Act tagger',
    columns: [
      { key: 'model', label: 'Model', format: 'text' },
      { key: 'primary', label: 'Primary-act accuracy', format: 'fixed' },
      { key: 'exact', label: 'Exact set', format: 'fixed' },
      { key: 'p', label: 'Micro P', format: 'fixed' },
      { key: 'r', label: 'Micro R', format: 'fixed' },
      { key: 'f1', label: 'Micro F1', format: 'fixed' },
    ],
    rows: [row('built-in', builtin), row(`${f.k ?? 5}-fold CV (trained on file + built-in)`, cv)],
  };
  io.stdout(
    `## Act tagger on ${f.eval} (${count(all.length, 'user utterance')})\n\n${markdownTableOf(table, { plain: true })}\n`,
  );
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
  summary:
    'realism and simulation metrics: PLSA (MWU/KS), human-likeness, counterfactual, Zhang & Balog, PEPPER, AlterEval',
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
        return e.exitCode;
      }
      throw e;
    }
  },
};
