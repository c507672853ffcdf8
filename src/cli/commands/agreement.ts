/** `simlens agreement FILE`: inter-annotator agreement on utterance acts (the editor's Agreement view, as text or JSON). */
import { agreementFromConversations, formatAgreementText } from '../../core/document/agreement';
import { conversationFileAdvice } from '../../core/importers/index';
import { forEachLine, parseLineBytes } from '../../core/jsonl';
import type { Conversation } from '../../core/model';
import { formatFlags, parseArgs } from '../args';
import { UsageError, type CliCommand } from '../types';
import { ioErrorMessage, isIoError, resolvePath } from '../util';

const FLAGS = {
  annotators: {
    type: 'string',
    valueName: 'A,B[,C…]',
    description: 'compare only these annotators (comma-separated; default: all)',
  },
  map: {
    type: 'boolean',
    description:
      'compare annotators on different taxonomies by mapping both through the act aliases to Zhang & Balog acts',
  },
  json: { type: 'boolean', description: 'print the report model as one JSON object' },
} as const;

export const agreementCommand: CliCommand = {
  name: 'agreement',
  summary: "inter-annotator agreement on utterance acts (Cohen's kappa per pair, Fleiss' kappa for 3+)",
  help: `Usage: simlens agreement FILE [--annotators a,b] [--map] [--json]

Reads the utterance annotations of FILE (conversation JSONL) and prints, for each pair of
annotators on the same taxonomy, Cohen's kappa per act and on the primary (first) act, and for
three or more annotators on one taxonomy Fleiss' kappa on the primary act. An annotator's
taxonomy is the annotations' "taxonomy" field, else the built-in taxonomy its labels belong to.
Pairs on different taxonomies are not compared (a warning says so) unless --map is given; then
both sides are mapped through the act aliases (src/core/taxonomy/act-aliases.json) to Zhang & Balog
acts and the report names the mapping. The editor's Agreement view shows the same report.

Options:
${formatFlags(FLAGS)}

Exit codes: 0 report printed, 1 no two annotators could be compared, 2 usage or I/O error.

Examples:
  simlens agreement test/fixtures/formats/moviebot-two-annotators.conv.jsonl --annotators source,alice
  simlens agreement test/fixtures/formats/moviebot-two-annotators.conv.jsonl --json
`,
  async run(args, io) {
    const { flags, positionals } = parseArgs(args, FLAGS, { positionals: { min: 1, max: 1, names: 'FILE' } });
    const file = positionals[0];
    const annotators = flags.annotators
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (annotators && annotators.length < 2)
      throw new UsageError(`--annotators needs at least two names, got "${flags.annotators}"`);
    const path = resolvePath(io, file);
    const conversations: Conversation[] = [];
    let invalid = 0;
    try {
      const advice = await conversationFileAdvice(path, file);
      if (advice) {
        io.stderr(`simlens agreement: ${advice}\n`);
        return 2;
      }
      await forEachLine(path, (bytes, i) => {
        const parsed = parseLineBytes(bytes, i, { preserveKeyOrder: false });
        if (parsed.kind === 'valid') {
          if (parsed.conversation.turns.some((t) => t.annotations?.length)) conversations.push(parsed.conversation);
        } else if (parsed.kind === 'invalid') invalid++;
      });
    } catch (err) {
      if (isIoError(err)) {
        io.stderr(`simlens agreement: ${ioErrorMessage('read', file, err)}\n`);
        return 2;
      }
      throw err;
    }
    const result = agreementFromConversations(conversations, { annotators, map: flags.map === true });
    if (flags.json) io.stdout(JSON.stringify({ file, invalid_lines: invalid, ...result }) + '\n');
    else io.stdout(formatAgreementText(result));
    if (invalid) io.stderr(`${file}: ${invalid} invalid line(s) skipped; run 'simlens validate ${file}' for details\n`);
    return result.reports.length + result.fleiss.length > 0 ? 0 : 1;
  },
};
