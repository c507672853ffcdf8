/** `simlens validate FILE [--json]`: check every line of a JSONL file against the conversation schema. */
import { validateFile, type LineError } from '../../core/jsonl';
import { conversationFileAdvice } from '../../core/importers/index';
import { formatFlags, parseArgs } from '../args';
import type { CliCommand } from '../types';
import { count, ioErrorMessage, isIoError, resolvePath } from '../util';

const FLAGS = {
  json: { type: 'boolean', description: 'print one JSON object instead of text' },
  'max-errors': {
    type: 'number',
    valueName: 'N',
    description: 'print at most N problems in text mode (all are counted; default: all)',
  },
} as const;

function wire(e: LineError) {
  return { line: e.line, column: e.column, path: e.path, message: e.message };
}

export const validateCommand: CliCommand = {
  name: 'validate',
  summary: 'check that every line of a JSONL file is a valid conversation',
  help: `Usage: simlens validate FILE [--json]

Checks every line of FILE (JSONL, one conversation per line) against the SimLens conversation
schema, streaming the file so it works on files of any size. Blank lines are allowed; invalid
UTF-8 is reported as a warning.

Text output: one line per problem, "FILE:LINE:COLUMN: message" (warnings say "warning:"),
then a summary line on stderr. Lines and columns count from 1.
JSON output (--json): {"file", "lines", "conversations", "blank", "invalid",
  "blank_lines", "invalid_lines", "errors": [{"line", "column", "path", "message"}],
  "warnings": [same shape]}
  ("blank_lines" and "invalid_lines" repeat "blank" and "invalid" under the names 'simlens stats
  --json' uses; both pairs stay.)

Options:
${formatFlags(FLAGS)}

When FILE is not conversation JSONL at all (a DialogueKit or ConvApparel JSON document, an item
catalog, a compressed or binary file), one line says what it is and what to run instead (exit 1).

Exit codes: 0 every line is valid (warnings allowed) and FILE holds at least one conversation,
1 some line is invalid, FILE holds no conversation (empty or only blank lines), or FILE is not
conversation JSONL, 2 usage or I/O error.

Examples:
  simlens convert test/fixtures/datasets/usersimcrs-moviebot/annotated_dialogues.json -o moviebot.jsonl
  simlens validate moviebot.jsonl
  simlens validate moviebot.jsonl --json | jq '.errors[:5]'
`,
  async run(args, io) {
    const { flags, positionals } = parseArgs(args, FLAGS, { positionals: { min: 1, max: 1, names: 'FILE' } });
    const file = positionals[0];
    let report;
    try {
      // A DialogueKit document, a catalog or a gzip file is not "3,000 invalid lines": say what it is.
      const advice = await conversationFileAdvice(resolvePath(io, file), file);
      if (advice) {
        if (flags.json)
          io.stdout(
            JSON.stringify({
              file,
              lines: 0,
              conversations: 0,
              blank: 0,
              invalid: 0,
              blank_lines: 0,
              invalid_lines: 0,
              not_conversation_jsonl: advice,
              errors: [],
              warnings: [],
            }) + '\n',
          );
        else io.stderr(`simlens validate: ${advice}\n`);
        return 1;
      }
      report = await validateFile(resolvePath(io, file), { maxErrors: flags.json ? undefined : flags['max-errors'] });
    } catch (err) {
      if (isIoError(err)) {
        io.stderr(`simlens validate: ${ioErrorMessage('read', file, err)}\n`);
        return 2;
      }
      throw err;
    }
    const errors = report.errors.filter((e) => e.severity === 'error');
    const warnings = report.errors.filter((e) => e.severity === 'warning');
    const { errorCount, warningCount } = report;
    if (flags.json) {
      io.stdout(
        JSON.stringify({
          file,
          lines: report.lines,
          conversations: report.conversations,
          blank: report.blank,
          invalid: report.invalid,
          // The names 'simlens stats --json' uses for the same counts (additive: scripts read both).
          blank_lines: report.blank,
          invalid_lines: report.invalid,
          errors: errors.map(wire),
          warnings: warnings.map(wire),
        }) + '\n',
      );
    } else {
      let out = '';
      for (const e of report.errors) {
        out += `${file}:${e.line}:${e.column}: ${e.severity === 'warning' ? 'warning: ' : ''}${e.message}\n`;
        if (out.length > 1 << 16) {
          io.stdout(out);
          out = '';
        }
      }
      if (out) io.stdout(out);
      const hidden = errorCount + warningCount - report.errors.length;
      if (hidden > 0)
        io.stdout(`${file}: … ${count(hidden, 'more problem', 'more problems')} not shown (--max-errors)\n`);
      const parts = [count(report.lines, 'line'), count(report.conversations, 'valid conversation')];
      if (report.blank) parts.push(`${report.blank} blank`);
      parts.push(count(report.invalid, 'invalid line'));
      if (errorCount) parts.push(count(errorCount, 'error'));
      if (warningCount) parts.push(count(warningCount, 'warning'));
      // A file without a conversation is not "OK" even when no line is wrong (stats exits 1 on it too).
      const verdict =
        report.invalid > 0
          ? 'INVALID'
          : report.conversations > 0
            ? 'OK'
            : `NO CONVERSATION (${report.lines === 0 ? 'the file is empty' : 'only blank lines'})`;
      io.stderr(`${file}: ${verdict}: ${parts.join(', ')}\n`);
    }
    return report.invalid === 0 && report.conversations > 0 ? 0 : 1;
  },
};
