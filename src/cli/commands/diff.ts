/** `simlens diff A B`: what changed between two runs, conversation by conversation. */
import {
  diffRuns,
  diffToMarkdown,
  evaluateGate,
  parseGate,
  GATE_METRICS,
  PAIRING_MODES,
  type GateCondition,
  type PairingMode,
} from '../../core/diff';
import { parseActSource } from '../../core/metrics/features';
import { InputProblemError } from '../../core/report/inputProblem';
import { formatFlags, parseArgs } from '../args';
import { UsageError, type CliCommand } from '../types';
import { ioErrorMessage, isIoError, resolvePath } from '../util';

const FLAGS = {
  json: { type: 'boolean', description: 'print the report as JSON (schema simlens-diff/1, every pair)' },
  md: { type: 'boolean', description: 'print the report as Markdown (the default text)' },
  'fail-on': {
    type: 'string',
    multiple: true,
    valueName: 'COND',
    description: 'exit 1 when a condition holds, e.g. "outcome_changed > 5%" (repeatable; commas separate conditions)',
  },
  pairing: {
    type: 'string',
    valueName: 'MODE',
    description: 'auto (default: seed+index when both runs have them, else id), seed, id or profile',
  },
  acts: {
    type: 'string',
    valueName: 'SOURCE',
    description: 'dialogue acts from: tagger (default), trace, judge, judge:<model>, or an annotator',
  },
  seed: { type: 'string', valueName: 'S', description: 'seed of the bootstrap intervals (default simlens-diff)' },
  resamples: { type: 'number', valueName: 'N', description: 'bootstrap resamples (default 1000)' },
  'max-pairs': {
    type: 'number',
    valueName: 'N',
    description: 'pairs listed in the Markdown report (default 50; --json lists all)',
  },
} as const;

export const diffCommand: CliCommand = {
  name: 'diff',
  summary: 'what changed between two runs: pairs, first divergent turn, outcome A -> B, paired statistics',
  help: `Usage: simlens diff A B [--json | --md] [--fail-on "outcome_changed > 5%"] [--pairing MODE]

Pairs the conversations of run A with those of run B and reports, per pair, whether they are
identical or the first turn where the dialogue diverges and what diverged first (user act or
utterance, recommender act or utterance, recommendations, one side ended), the trace fields that
differ first (e.g. patience), and the outcome A -> B; then the outcome transition matrix, the
distribution of the first divergent turn, and per feature (turns, words, user acts, satisfaction,
acceptance, questions, each user act) the mean paired difference B - A with a seeded bootstrap
95% interval (headline features) and the Wilcoxon signed-rank p-value as SciPy computes it, and
McNemar's exact test of acceptance. Failed conversations are never scores: a pair with a failure
on either side is counted in the transition matrix under failure:<reason> and left out of the
feature statistics (the report says how many).

Pairing (--pairing): seed = same run seed (metadata.seed, else A.manifest.json) and the same
metadata.index: conversation i of A with conversation i of B, for built-in and external
simulators; id = the conversation id; profile = metadata.profile, else the first turn's
trace.goal (k-th with k-th when several share one). auto (default) takes seed when every
conversation has a seed and an index, else id. Conversations without a partner are listed.
A is indexed and B streamed, so runs of 100,000 conversations are diffed without loading them.

--fail-on METRIC OP VALUE[%], OP one of > >= < <= ==; several conditions by commas or repeated
options, the gate fails when any holds (a quantity that cannot be computed fails it too):
${Object.entries(GATE_METRICS)
  .map(([k, v]) => `  ${k.padEnd(16)} ${v}`)
  .join('\n')}
A whole number without % on a count metric compares the count ("diverged > 10").

Options:
${formatFlags(FLAGS)}

Exit codes: 0 report printed (and the gate passed), 1 a --fail-on condition holds, or a line of
A or B is not a valid conversation or a pairing key occurs twice in one run (the message names
file, line and field), 2 usage or I/O error.

Examples:
  simlens simulate --agent local-bad --n 40 --seed 11 --patience 3 --out p3.sim.jsonl
  simlens simulate --agent local-bad --n 40 --seed 11 --patience 4 --out p4.sim.jsonl
  simlens diff p3.sim.jsonl p4.sim.jsonl
  simlens diff p3.sim.jsonl p4.sim.jsonl --json > diff.json
  simlens diff p3.sim.jsonl p3.sim.jsonl --fail-on "outcome_changed > 5%" --fail-on "accepted_change < -2%"
`,
  async run(args, io) {
    const { flags, positionals } = parseArgs(args, FLAGS, { positionals: { min: 2, max: 2, names: 'A B' } });
    if (flags.json && flags.md) throw new UsageError('--json and --md exclude each other');
    const pairing = (flags.pairing ?? 'auto') as PairingMode | 'auto';
    if (!PAIRING_MODES.includes(pairing))
      throw new UsageError(`--pairing must be one of ${PAIRING_MODES.join(', ')}, got "${flags.pairing}"`);
    let gate: GateCondition[] = [];
    try {
      gate = flags['fail-on'].flatMap((s) => parseGate(s));
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    let acts;
    try {
      acts = parseActSource(flags.acts);
    } catch (err) {
      throw new UsageError(`--acts: ${(err as Error).message}`);
    }
    const resamples = flags.resamples ?? 1000;
    if (!Number.isInteger(resamples) || resamples < 100)
      throw new UsageError(`--resamples must be a whole number of at least 100, got ${resamples}`);
    const maxPairs = flags['max-pairs'] ?? 50;
    if (!Number.isInteger(maxPairs) || maxPairs < 0)
      throw new UsageError(`--max-pairs must be a whole number, got ${maxPairs}`);
    const [a, b] = positionals;
    let report;
    try {
      report = await diffRuns(resolvePath(io, a), resolvePath(io, b), { pairing, acts, seed: flags.seed, resamples });
    } catch (err) {
      if (isIoError(err)) {
        io.stderr(
          `simlens diff: ${ioErrorMessage('read', (err as NodeJS.ErrnoException).path ?? `${a} or ${b}`, err)}\n`,
        );
        return 2;
      }
      if (err instanceof InputProblemError) {
        io.stderr(`simlens diff: ${err.message}\n`);
        return 1;
      }
      throw err;
    }
    // Files as the user typed them.
    report.a.file = a;
    report.b.file = b;
    if (flags.json) io.stdout(JSON.stringify(report) + '\n');
    else io.stdout(diffToMarkdown(report, maxPairs));
    const results = evaluateGate(report, gate);
    let failed = false;
    for (const r of results) {
      if (r.failed) failed = true;
      io.stderr(`simlens diff: ${r.failed ? 'FAIL' : 'pass'} ${r.condition.text} (actual ${r.shown})\n`);
    }
    return failed ? 1 : 0;
  },
};
