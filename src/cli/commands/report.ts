/** `simlens report`: the one-command fidelity report (simulate, then PLSA + HLS + counterfactual). */
import { resolve } from 'node:path';
import {
  runFidelity,
  fidelityNeedsLlm,
  DEFAULT_THRESHOLDS,
  SimulationStoppedError,
  type FidelityOptions,
} from '../../core/report/fidelity';
import { LLM_FLAGS, llmServicesFromFlags } from '../llmOptions';
import { CancelledError } from '../../core/report/compute';
import { formatFlags, parseArgs, type FlagValues } from '../args';
import { UsageError, type CliCommand, type CliIo } from '../types';
import { ImportError } from '../../core/importers/errors';
import { EXIT_NOT_READABLE, importErrorMessage, ioErrorMessage, isIoError, resolvePath } from '../util';
import { InputProblemError } from '../../core/report/inputProblem';

const FLAGS = {
  human: {
    type: 'string',
    valueName: 'FILE',
    description: 'human conversations (JSONL or any format `simlens convert` reads)',
  },
  'human-condition': { type: 'string', valueName: 'C', description: 'use only human conversations of this condition' },
  simulator: {
    type: 'string',
    valueName: 'CONFIG',
    description: 'simulation options: a JSON file, or inline words such as agenda:cir6:pkg',
  },
  agents: {
    type: 'string',
    valueName: 'A,B',
    description: 'agents to simulate against (default local-good,local-bad)',
  },
  n: { type: 'number', valueName: 'N', description: 'conversations per agent (default 300)' },
  seed: {
    type: 'string',
    valueName: 'S',
    description: 'seed for simulation, sampling and cross-validation (default 1)',
  },
  out: {
    type: 'string',
    short: 'o',
    valueName: 'DIR',
    description: 'output folder (default ./simlens-fidelity-<time>)',
  },
  features: {
    type: 'string',
    valueName: 'a,b',
    description: 'PLSA/counterfactual features (default: the 11 ConvApparel metrics)',
  },
  acts: {
    type: 'string',
    valueName: 'SOURCE',
    description: 'dialogue acts from: tagger (default), trace, judge, judge:<model>, or an annotator',
  },
  folds: { type: 'number', valueName: 'K', description: 'cross-validation folds for the discriminator (default 5)' },
  'learning-curve': {
    type: 'boolean',
    description: 'compute HLS learning curves (default on; --no-learning-curve to skip)',
  },
  concurrency: {
    type: 'number',
    valueName: 'N',
    description: 'conversations simulated at once (default 4; output does not depend on it)',
  },
  json: { type: 'boolean', description: 'print a JSON summary instead of text' },
  quiet: { type: 'boolean', short: 'q', description: 'no progress lines on stderr' },
  ...LLM_FLAGS,
} as const;

const pct = (x: number) => `${Math.round(x * 100)}%`;

export const reportCommand: CliCommand = {
  name: 'report',
  summary: 'one-command fidelity report: simulate against agents, then PLSA, HLS and counterfactual verdicts',
  help: `Usage: simlens report --human FILE --simulator CONFIG [--agents local-good,local-bad] [--n 300] [--seed S] [--out DIR]

Runs the simulator against every agent (N conversations each, seeded), then compares the
simulated populations with the human ones on three pillars and writes one report:

  DIR/report.md        Markdown report with a verdict per pillar, tables and charts
  DIR/report.json      the same report as data (SimLens report schema simlens-report/1)
  DIR/charts/*.svg     every chart
  DIR/tables/*.csv     every table
  DIR/populations/     the simulated conversations (<agent>.sim.jsonl + manifests)

CONFIG is either a JSON file with \`simlens simulate\` options (user, interaction, preferences,
meta, tolerance, p_switch, patience, typo_rate, max_turns, catalog, corpus, transitions, llm,
...; agent, n and seed are set by this command), or inline words separated by colons: agenda |
target-free | llm-prompted | llm-icl | llm-sft | llm-target-free, cir6 | qrfa, single | pkg,
tol | prob, and key=value for any other option, e.g. agenda:cir6:pkg or
agenda:qrfa:single:patience=6. LLM users and agents (llm-good, llm-bad) use the LLM options
below; the API key is read from SIMLENS_API_KEY or OPENAI_API_KEY.

Human references are matched to each agent's condition (local-good -> "good", local-bad ->
"bad") when the human file has conditions (a "condition" field or task_id ending in _good/_bad),
and sampled down to N conversations (seeded).

Verdicts:
  PLSA            feature aligned when Mann-Whitney U p > ${DEFAULT_THRESHOLDS.alpha}; pass when every agent has
                  >= ${pct(DEFAULT_THRESHOLDS.plsaPass)} of the features aligned, warn >= ${pct(DEFAULT_THRESHOLDS.plsaWarn)}, else fail
  Human-likeness  mean out-of-fold P(human) of the simulated conversations (n-gram discriminator,
                  k-fold CV); pass >= ${DEFAULT_THRESHOLDS.hlsPass} for every agent, warn >= ${DEFAULT_THRESHOLDS.hlsWarn}, else fail
  Counterfactual  share of features whose shift from the first to the second agent's condition
                  has the human direction; pass >= ${pct(DEFAULT_THRESHOLDS.counterfactualPass)}, warn >= ${pct(DEFAULT_THRESHOLDS.counterfactualWarn)}, else fail
                  (warn "not assessed" without human data in both conditions)

Options:
${formatFlags(FLAGS)}

Exit codes: 0 report written and no pillar failed, 1 report written and a pillar failed, or
--human is not usable conversations (unknown format, not conversation data, no valid line), or
a simulation stopped (failure policy, LLM endpoint down, budget spent) or had every conversation
fail (the reason is printed and is in DIR/populations/<agent>.sim.jsonl.manifest.json),
2 usage or I/O error, 130 interrupted.

Example:
  simlens convert test/fixtures/datasets/usersimcrs-iard-gold/formatted_IARD_annotated_gold.json -o human.jsonl
  simlens report --human human.jsonl --simulator agenda:cir6:pkg --agents local-good,local-bad --n 100 --out reports/cir6 || test $? -eq 1   # movie vs apparel: exit 1
`,
  async run(args, io) {
    const { flags } = parseArgs(args, FLAGS, { positionals: { max: 0 } });
    const { human, simulator, ...options } = reportOptions(flags, args, io);
    const out = options.out;
    const controller = new AbortController();
    const onSigint = () => controller.abort();
    process.once('SIGINT', onSigint);
    let lastPhase = '';
    try {
      // LLM users/agents get their services from the usual LLM options (key from the environment).
      const llm = fidelityNeedsLlm(simulator, options.agents, io.cwd)
        ? await llmServicesFromFlags(flags, io, {
            outFile: resolve(out, 'populations', 'llm'),
            signal: controller.signal,
            command: 'report',
          })
        : undefined;
      const result = await runFidelity(
        { human, simulator, ...options, llm },
        {
          cwd: io.cwd,
          signal: controller.signal,
          progress: (message) => {
            // One line per phase ("Simulating against local-good: 12/300" counts are folded).
            const phase = message.replace(/:\s*\d+\/\d+$/, '');
            if (flags.quiet || phase === lastPhase) return;
            lastPhase = phase;
            io.stderr(`simlens report: ${phase}\n`);
          },
        },
      );
      io.stdout(flags.json ? summaryJson(result, out) : summaryText(result, out));
      const r = result.report;
      return (r.verdicts ?? []).some((v) => v.verdict === 'fail') ? 1 : 0;
    } catch (err) {
      return failureExit(err, controller.signal.aborted, out, io);
    } finally {
      process.removeListener('SIGINT', onSigint);
    }
  },
};

type ReportFlags = FlagValues<typeof FLAGS>;
type FidelityResult = Awaited<ReturnType<typeof runFidelity>>;

/** The fidelity options the flags give (everything but the LLM services), checked: usage errors name the flag. */
function reportOptions(flags: ReportFlags, args: readonly string[], io: CliIo): Omit<FidelityOptions, 'llm'> {
  if (!flags.human) throw new UsageError('--human FILE is required');
  if (!flags.simulator) throw new UsageError('--simulator CONFIG is required (a JSON file or e.g. agenda:cir6:pkg)');
  const n = flags.n ?? 300;
  if (!Number.isInteger(n) || n < 10) throw new UsageError(`--n must be a whole number of at least 10, got ${n}`);
  const folds = flags.folds ?? 5;
  if (!Number.isInteger(folds) || folds < 2)
    throw new UsageError(`--folds must be a whole number of at least 2, got ${folds}`);
  const agents = (flags.agents ?? 'local-good,local-bad')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!agents.length) throw new UsageError('--agents needs at least one agent');
  const seedText = flags.seed ?? '1';
  const seed: string | number = /^-?\d+$/.test(seedText) ? Number(seedText) : seedText;
  const out = resolvePath(
    io,
    flags.out ?? `simlens-fidelity-${new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)}`,
  );
  const features = flags.features
    ? flags.features
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;
  return {
    human: {
      file: flags.human,
      ...(flags['human-condition'] ? { filter: { condition: flags['human-condition'] } } : {}),
    },
    simulator: flags.simulator,
    agents,
    n,
    seed,
    out,
    features,
    acts: flags.acts,
    folds,
    learningCurve: !(args.includes('--no-learning-curve') || args.includes('--learning-curve=false')),
    concurrency: flags.concurrency,
  };
}

/** The `--json` summary: verdicts, files, populations, timings and warnings, one line. */
function summaryJson(result: FidelityResult, out: string): string {
  const r = result.report;
  return (
    JSON.stringify({
      out,
      verdicts: r.verdicts,
      files: {
        markdown: result.files.markdown,
        json: result.files.json,
        charts: result.files.charts.length,
        tables: result.files.tables.length,
      },
      populations: result.populations.map((p) => ({
        agent: p.agent,
        condition: p.condition ?? null,
        n: p.conversations.length,
        failed: p.failed,
        file: p.file,
      })),
      timings_ms: Object.fromEntries(Object.entries(result.timings).map(([k, v]) => [k, Math.round(v)])),
      warnings: r.warnings ?? [],
    }) + '\n'
  );
}

/** The text summary: one line per verdict, where the report's files are, the time taken and the warnings. */
function summaryText(result: FidelityResult, out: string): string {
  const r = result.report;
  const lines = [`${r.title}`, ''];
  const width = Math.max(...(r.verdicts ?? []).map((v) => v.pillar.length));
  for (const v of r.verdicts ?? [])
    lines.push(`  ${v.verdict.toUpperCase().padEnd(4)}  ${v.pillar.padEnd(width)}  ${v.detail}`);
  lines.push(
    '',
    `Report: ${result.files.markdown}`,
    `        ${result.files.json}`,
    `        ${result.files.charts.length} charts in ${resolve(out, 'charts')}, ${result.files.tables.length} tables in ${resolve(out, 'tables')}`,
  );
  lines.push(
    `Time: ${(result.timings.total / 1000).toFixed(1)} s (simulation ` +
      `${(result.timings.simulate / 1000).toFixed(1)} s, HLS ${(result.timings.hls / 1000).toFixed(1)} s)`,
  );
  for (const w of r.warnings ?? []) lines.push(`warning: ${w}`);
  return lines.join('\n') + '\n';
}

/**
 * Prints why the report failed and returns the exit code: 130 interrupted, 2 I/O, 1 a simulation
 * that stopped (a finding, as `simulate` exits 1), EXIT_NOT_READABLE for unusable input, else 2.
 */
function failureExit(err: unknown, aborted: boolean, out: string, io: CliIo): number {
  if (err instanceof CancelledError || aborted) {
    io.stderr('simlens report: interrupted\n');
    return 130;
  }
  if (isIoError(err)) {
    io.stderr(`simlens report: ${ioErrorMessage('read or write', (err as NodeJS.ErrnoException).path ?? out, err)}\n`);
    return 2;
  }
  if (err instanceof SimulationStoppedError) {
    // A finding about the simulator or agent (as `simulate` exits 1 for it), with the reason the run recorded.
    io.stderr(`simlens report: ${err.message}\n`);
    return 1;
  }
  if (err instanceof ImportError) {
    io.stderr(`simlens report: ${importErrorMessage(io, err)}\n`);
    return EXIT_NOT_READABLE;
  }
  const message = (err as Error).message;
  io.stderr(`simlens report: ${message}\n`);
  return err instanceof InputProblemError ? EXIT_NOT_READABLE : 2;
}
