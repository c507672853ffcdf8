/** `simlens check FILE`: run the behavioural invariants (src/core/check) over a conversation file. */
import { loadCatalog } from '../../core/catalog/catalog';
import {
  checkedInvariants,
  InvariantChecker,
  INVARIANTS,
  nothingCheckedReason,
  READBACK_ASPECTS,
  uncheckedSummary,
  type CheckOptions,
  type CheckReport,
  type ReadbackReport,
} from '../../core/check/index';
import { conversationFileAdvice } from '../../core/importers/index';
import { forEachLine, parseLineBytes } from '../../core/jsonl';
import { checkOptionsFromRun } from '../../core/run/checkOptions';
import { formatFlags, parseArgs } from '../args';
import { UsageError, type CliCommand } from '../types';
import { ioErrorMessage, isIoError, resolvePath } from '../util';

const FLAGS = {
  json: { type: 'boolean', description: 'print one JSON object instead of text' },
  catalog: {
    type: 'string',
    valueName: 'FILE',
    description: 'catalog JSONL to resolve items no carousel shows (meta targets, PEPPER targets)',
  },
  examples: { type: 'number', valueName: 'N', description: 'example violations per invariant (default 3)' },
  'max-turns': {
    type: 'number',
    valueName: 'N',
    description:
      "the run's turn cap (default: from FILE.manifest.json, else metadata.turn_cap, else 20; 10 for meta-*)",
  },
  'meta-tolerance': {
    type: 'number',
    valueName: 'N',
    description: "the meta-simulator's tolerance (default: from FILE.manifest.json, else 2)",
  },
  only: { type: 'string', multiple: true, valueName: 'ID', description: 'check only this invariant' },
} as const;

function statusWord(s: string): string {
  return s === 'not-applicable' ? 'n/a' : s.toUpperCase();
}

function formatReport(file: string, report: CheckReport): string {
  const width = Math.max(...report.invariants.map((r) => r.id.length));
  let out = `${file}: ${report.conversations} conversation(s)\n`;
  for (const r of report.invariants) {
    const counts =
      r.status === 'not-applicable'
        ? (r.na_reason ?? 'no conversation has the fields it needs')
        : `${r.violations} violation(s) in ${r.violatingConversations} of ${r.conversations} conversation(s), ${r.turns} turn(s) checked`;
    out += `${statusWord(r.status).padEnd(9)} ${r.id.padEnd(width)}  ${counts}\n`;
    for (const u of r.unchecked ?? [])
      out += `          unchecked in ${u.conversations} conversation(s): ${u.reason}\n`;
    if (r.status === 'fail' || r.status === 'tolerated') {
      out += `          ${r.statement}\n          source: ${r.source}\n`;
      if (r.tolerance)
        out += `          tolerance: ${(100 * r.tolerance.share).toFixed(1)}% of conversations (${r.tolerance.reason})\n`;
      for (const e of r.examples) {
        const where = `${e.conversation}${e.line !== undefined ? ` (line ${e.line})` : ''}${e.turn !== undefined ? ` turn ${e.turn}` : ''}`;
        out += `          - ${where}: ${e.detail}\n`;
      }
    }
  }
  if (report.readback) out += formatReadback(report.readback);
  return out;
}

function pct(a: number, b: number): string {
  return b ? `${((100 * a) / b).toFixed(1)}%` : 'n/a';
}

/** The read-back section: agreement per aspect and the disagreeing turns (conversation id, line, 0-based turn). */
function formatReadback(rb: ReadbackReport): string {
  let out = `\nself-consistency (utterances read back against the trace by the ${rb.nlu}):\n`;
  if (rb.turns === 0)
    return `${out}          n/a: no traced user turn carries fields to compare (trace.user_act, trace.said)\n`;
  out += `          ${rb.agreed} of ${rb.turns} traced user turn(s) agree (${pct(rb.agreed, rb.turns)}) in ${rb.conversations} conversation(s)\n`;
  for (const a of READBACK_ASPECTS) {
    const s = rb.aspects[a];
    out += `          ${a.padEnd(10)} ${s.checked ? `${s.agreed} of ${s.checked} (${pct(s.agreed, s.checked)})` : 'n/a (no turn carries it)'}\n`;
  }
  for (const d of rb.disagreements) {
    out += `          - ${d.conversation}${d.line !== undefined ? ` (line ${d.line})` : ''} turn ${d.turn} [${d.aspect}]: ${d.detail}\n`;
  }
  if (rb.disagreeingTurns > rb.disagreements.length)
    out += `          (${rb.disagreeingTurns} disagreeing turn(s) in all; --examples N lists more)\n`;
  return out;
}

export const checkCommand: CliCommand = {
  name: 'check',
  summary: 'check behavioural invariants of simulated conversations (agenda, patience, targets, coverage)',
  help: `Usage: simlens check FILE [--json] [--catalog FILE] [--examples N] [--only ID]

Streams FILE (conversation JSONL: SimLens runs or other tools' runs that carry simulator traces)
and checks each named behavioural invariant (README "Behavioural invariants"): e.g. a disclosed
value is stated in the utterance, a pull takes the top of the agenda, an accepted item meets the
disclosed constraints, patience never rises, PEPPER coverage matches its definition, a meta
target switches only after the tolerance. An invariant whose fields are absent from every
conversation is reported as n/a, never as a pass.

Text output: one line per invariant (PASS, FAIL, TOLERATED or n/a) with its violation count, and
for failures the statement, source and example violations (conversation id, line, 0-based turn).
Self-consistency: every traced user utterance is read back by the project's act tagger and value
matcher (no code shared with the simulators' NLG) and compared with its trace: act, values said,
negations, items referred to, opinion. The agreement rate per aspect and the disagreeing turns are
printed after the invariants (and are "readback" in --json).

An invariant that cannot be evaluated says n/a and why; a rule part that needs what the file lacks
(a catalog for meta and PEPPER targets) says "unchecked" and how to get it; the exit summary
lists both.

JSON output (--json): {"file", "conversations", "invalid_lines", "checked" (invariants that
  applied), "ok" (false when nothing was checked), "failed": [ids], "unchecked": [lines],
  "invariants": [{"id", "statement", "source", "status", "conversations", "turns", "violations",
  "violatingConversations", "examples": [{"conversation", "line", "turn", "detail"}],
  "na_reason", "unchecked": [{"reason", "conversations"}]}],
  "readback": {"nlu", "conversations", "turns", "agreed", "rate", "aspects": {aspect: {"checked",
  "agreed"}}, "disagreements": [{"conversation", "line", "turn", "aspect", "detail"}],
  "disagreeingTurns"}}
Invariants:
${INVARIANTS.map((i) => `  ${i.id}`).join('\n')}

Options:
${formatFlags(FLAGS)}

Exit codes: 0 no invariant fails and at least one applied, 1 some invariant fails, or nothing
was checked (FILE has no valid conversation, or no conversation carries the trace fields any
invariant needs, e.g. human data), 2 usage or I/O error.

Examples:
  simlens simulate --agent local-good --n 100 --out sim.jsonl
  simlens check sim.jsonl
  simlens catalog generate --out catalog.jsonl --size 500 --seed 1
  simlens simulate --meta prob --catalog catalog.jsonl --n 50 --out meta.jsonl
  simlens check meta.jsonl --catalog catalog.jsonl --examples 10
  simlens check sim.jsonl --json | jq '.invariants[] | select(.status == "fail")'
`,
  async run(args, io) {
    const { flags, positionals } = parseArgs(args, FLAGS, { positionals: { min: 1, max: 1, names: 'FILE' } });
    const file = positionals[0];
    for (const name of ['examples', 'max-turns', 'meta-tolerance'] as const) {
      const v = flags[name];
      if (v !== undefined && !(Number.isInteger(v) && v >= (name === 'max-turns' ? 1 : 0)))
        throw new UsageError(`--${name} expects a whole number${name === 'max-turns' ? ' >= 1' : ' >= 0'}, got ${v}`);
    }
    const known = new Set(INVARIANTS.map((i) => i.id));
    for (const id of flags.only)
      if (!known.has(id)) throw new UsageError(`--only: unknown invariant "${id}" (known: ${[...known].join(', ')})`);
    const path = resolvePath(io, file);
    const options: CheckOptions = { examples: flags.examples ?? 3, only: flags.only.length ? flags.only : undefined };
    let invalid = 0;
    let checker: InvariantChecker;
    try {
      const advice = await conversationFileAdvice(path, file);
      if (advice) {
        io.stderr(`simlens check: ${advice}\n`);
        return 1;
      }
      if (flags.catalog) {
        try {
          options.catalog = await loadCatalog(resolvePath(io, flags.catalog));
        } catch (err) {
          io.stderr(
            `simlens check: ${isIoError(err) ? ioErrorMessage('read', flags.catalog, err) : (err as Error).message}\n`,
          );
          return 2;
        }
      }
      // The run's own settings, when its manifest sits beside the file.
      const run = checkOptionsFromRun(path, (m) => io.stderr(`simlens check: warning: ${m}\n`));
      options.maxTurns = flags['max-turns'] ?? run.maxTurns;
      options.metaTolerance = flags['meta-tolerance'] ?? run.metaTolerance;
      if (run.answers !== undefined) options.answers = run.answers;
      checker = new InvariantChecker(options);
      await forEachLine(path, (bytes, i) => {
        const parsed = parseLineBytes(bytes, i, { preserveKeyOrder: false });
        if (parsed.kind === 'valid') checker.add(parsed.conversation, i + 1);
        else if (parsed.kind === 'invalid') invalid++;
      });
    } catch (err) {
      if (isIoError(err)) {
        io.stderr(`simlens check: ${ioErrorMessage('read', file, err)}\n`);
        return 2;
      }
      throw err;
    }
    const report = checker.report();
    const checked = checkedInvariants(report);
    // "OK" needs something checked: a file where every invariant is n/a (human data, an empty
    // file) is not what check reads, and says so instead of passing.
    const ok = report.ok && checked > 0;
    if (flags.json) {
      io.stdout(
        JSON.stringify({
          file,
          conversations: report.conversations,
          invalid_lines: invalid,
          checked,
          ok,
          failed: report.failed,
          unchecked: uncheckedSummary(report),
          invariants: report.invariants,
          readback: report.readback,
        }) + '\n',
      );
    } else if (report.conversations > 0) io.stdout(formatReport(file, report));
    if (!flags.json && invalid)
      io.stderr(`${file}: ${invalid} invalid line(s) skipped; run 'simlens validate ${file}' for details\n`);
    if (report.conversations === 0) {
      io.stderr(`simlens check: ${file}: no valid conversation\n`);
      return 1;
    }
    if (checked === 0) {
      io.stderr(`simlens check: ${file}: ${nothingCheckedReason(report)}\n`);
      return 1;
    }
    if (!flags.json) {
      // Never a silent pass: say what could not be checked, and how to get it checked.
      const notChecked = uncheckedSummary(report);
      if (notChecked.length) {
        io.stderr(`${file}: not checked:\n${notChecked.map((l) => `  ${l}\n`).join('')}`);
        if (!options.catalog && notChecked.some((l) => l.includes('--catalog')))
          io.stderr(`${file}: pass --catalog FILE (the run's catalog JSONL) to check these\n`);
      }
      const rb = report.readback;
      const consistency = rb && rb.turns ? `; self-consistency ${pct(rb.agreed, rb.turns)} of ${rb.turns} turns` : '';
      io.stderr(
        `${file}: ${ok ? 'OK' : `FAILED: ${report.failed.join(', ')}`} (${checked} of ${report.invariants.length} invariants applied${consistency})\n`,
      );
    }
    return ok ? 0 : 1;
  },
};
