/**
 * `simlens convert IN [--from FORMAT] [--to FORMAT] -o OUT`: import another format into canonical
 * SimLens JSONL, or export to DialogueKit / ConvApparel JSONL.
 */
import { closeSync, existsSync, statSync, unlinkSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { EXPORT_DESCRIPTIONS, EXPORT_FORMATS, createExporter, normalizeExportFormat } from '../../core/export/index';
import {
  FORMAT_DESCRIPTIONS,
  IMPORT_FORMATS,
  ImportError,
  formatWarning,
  normalizeFormat,
} from '../../core/importers/index';
import { convertFile, OutputWriteError, type ConversionResult } from '../../core/importers/convert';
import { warningsByFieldLine } from '../../core/importers/summary';
import { formatFlags, parseArgs, type FlagValues } from '../args';
import { UsageError, type CliCommand, type CliIo } from '../types';
import { ioErrorMessage, isIoError, resolvePath } from '../util';

const FLAGS = {
  from: {
    type: 'string',
    valueName: 'FORMAT',
    description: `force the input format (default: detected from the content)`,
  },
  to: {
    type: 'string',
    valueName: 'FORMAT',
    description: 'the output format: canonical (default), dialoguekit, convapparel-jsonl',
  },
  annotator: {
    type: 'string',
    valueName: 'NAME',
    description:
      'with --to dialoguekit: whose dialogue acts to write (default: source, the acts that came with the data)',
  },
  output: { type: 'string', short: 'o', valueName: 'OUT', description: 'the file to write ("-" for stdout); required' },
  quiet: { type: 'boolean', short: 'q', description: 'do not print warnings, only the summary' },
  force: { type: 'boolean', description: 'replace an existing OUT (as simulate --force)' },
  strict: {
    type: 'boolean',
    description:
      'fail (exit 1, OUT not written) when anything was skipped, repaired or could not be carried, or the input looks truncated',
  },
} as const;

/** Signals that interrupt a conversion: the temporary file is removed before the process ends. */
const SIGNALS = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;

export const convertCommand: CliCommand = {
  name: 'convert',
  summary:
    'convert ReDial, INSPIRED, IARD, DialogueKit/UserSimCRS, ConvApparel or AB-ReDial data to SimLens JSONL, and back out',
  help: `Usage: simlens convert IN [--from FORMAT] [--to FORMAT [--annotator NAME]] -o OUT [--force] [--strict]

Reads IN, detects its format from the content (or uses --from), and writes canonical SimLens
JSONL to OUT: one conversation per line, one JSON object each. With --to dialoguekit it writes
DialogueKit / UserSimCRS annotated dialogues instead (one JSON array, dialogue acts of one
annotator), with --to convapparel-jsonl the ConvApparel fields one conversation per line.
OUT is written through a temporary file and renamed into place, so it is never left half-written;
an interrupted run (Ctrl-C, SIGTERM, SIGHUP) removes the temporary file. An existing OUT is
replaced only with --force (OUT may then be IN itself). Prints the format, the number of
conversations, any warnings (skipped or repaired data, with file, line and field) and one line
counting the warnings per field; a last line cut off (a truncated file) is a warning. With
--strict any warning fails the conversion instead. Line-based inputs (JSONL, TSV) are streamed,
so large files need little memory. docs/formats.md documents every mapping.

Input formats (--from):
${IMPORT_FORMATS.map((f) => `  ${f.padEnd(18)} ${FORMAT_DESCRIPTIONS[f] ?? ''}`).join('\n')}

Output formats (--to):
${EXPORT_FORMATS.map((f) => `  ${f.padEnd(18)} ${EXPORT_DESCRIPTIONS[f] ?? ''}`).join('\n')}

Options:
${formatFlags(FLAGS)}

Exit codes: 0 converted (warnings allowed unless --strict), 1 the input could not be converted (or
a warning under --strict), 2 usage or I/O error (a missing IN, OUT exists without --force),
130/143/129 interrupted by SIGINT/SIGTERM/SIGHUP.

Examples:
  simlens convert test/fixtures/datasets/usersimcrs-moviebot/annotated_dialogues.json -o moviebot.jsonl
  simlens convert test/fixtures/formats/redial/train_data.jsonl -o redial-train.conv.jsonl
  simlens convert test/fixtures/formats/redial/train_data.jsonl --strict -o redial-train.conv.jsonl --force || test $? -eq 1   # a broken line: exit 1
  simlens convert moviebot.jsonl --to dialoguekit --annotator source -o annotated_dialogues.json
  simlens convert moviebot.jsonl --to convapparel-jsonl -o convapparel.jsonl
  simlens convert convapparel.jsonl --from convapparel -o convapparel.conv.jsonl
`,
  async run(args, io) {
    const { flags, positionals } = parseArgs(args, FLAGS, { positionals: { min: 1, max: 1, names: 'IN' } });
    const input = positionals[0];
    const output = flags.output;
    if (!output) throw new UsageError('missing -o OUT (the file to write, or - for stdout)');
    const formats = conversionFormats(flags);
    const { to, exporter } = formats;
    const annotatorsSeen = new Set<string>();
    // Check the input first, so an unreadable file is an I/O error (exit 2), not a conversion failure.
    const unreadable = await inputError(io, input);
    if (unreadable !== undefined) return unreadable;
    const toStdout = output === '-';
    const outPath = toStdout ? '' : resolvePath(io, output);
    if (!toStdout && !flags.force && existsSync(outPath) && !statSync(outPath).isDirectory()) {
      io.stderr(`simlens convert: ${output} already exists; use --force to replace it\n`);
      return 2;
    }
    const temp = removeTempOnSignal();
    const stdoutChunks: string[] = [];
    const toStream = {
      write: (text: string): void => {
        stdoutChunks.push(text);
        if (stdoutChunks.length >= 256) io.stdout(stdoutChunks.splice(0).join(''));
      },
    };
    try {
      const result = await convertFile(resolvePath(io, input), toStdout ? toStream : { file: outPath }, {
        origin: input,
        from: formats.from,
        exporter,
        strict: flags.strict,
        each:
          to === 'dialoguekit'
            ? (conv) => {
                for (const t of conv.turns) for (const a of t.annotations ?? []) annotatorsSeen.add(a.annotator);
              }
            : undefined,
        opened: temp.opened,
      });
      temp.opened('', -1);
      const where = { input, output, toStdout };
      if (!result.written) return refuseStrict(io, result, where);
      if (toStdout && stdoutChunks.length) io.stdout(stdoutChunks.join(''));
      if (!flags.quiet) for (const w of result.warnings) io.stderr(`warning: ${formatWarning(input, w)}\n`);
      if (result.warnings.length) io.stderr(`${warningsByFieldLine(result.warnings)}\n`);
      for (const note of result.notes ?? []) io.stderr(`note: ${note}\n`);
      reportConversion(io, result, where, formats, annotatorsSeen);
      return 0;
    } catch (err) {
      if (err instanceof ImportError) {
        io.stderr(`simlens convert: ${err.message}\n`);
        return 1;
      }
      if (err instanceof OutputWriteError) {
        io.stderr(`simlens convert: ${ioErrorMessage('write', output, err.cause)}\n`);
        return 2;
      }
      if (isIoError(err)) {
        io.stderr(`simlens convert: ${ioErrorMessage('read', input, err)}\n`);
        return 2;
      }
      throw err;
    } finally {
      temp.dispose();
    }
  },
};

type ConvertFlags = FlagValues<typeof FLAGS>;

/** --from, --to and --annotator checked: the exporter for --to and the importer's format name for --from. */
function conversionFormats(flags: ConvertFlags): {
  to: string;
  from: string | undefined;
  exporter: ReturnType<typeof createExporter>;
  annotator: string;
} {
  let to = 'canonical';
  if (flags.to !== undefined) {
    try {
      to = normalizeExportFormat(flags.to);
    } catch {
      throw new UsageError(`unknown format "${flags.to}" for --to; known formats: ${EXPORT_FORMATS.join(', ')}`);
    }
  }
  if (flags.annotator !== undefined && to !== 'dialoguekit')
    throw new UsageError('--annotator only applies with --to dialoguekit');
  const exporter = createExporter(to, { annotator: flags.annotator });
  let from: string | undefined;
  if (flags.from !== undefined) {
    try {
      from = normalizeFormat(flags.from);
    } catch {
      throw new UsageError(`unknown format "${flags.from}" for --from; known formats: ${IMPORT_FORMATS.join(', ')}`);
    }
  }
  return { to, from, exporter, annotator: flags.annotator ?? 'source' };
}

/** Exit code 2 (with the message) when IN cannot be opened for reading or is a directory. */
async function inputError(io: CliIo, input: string): Promise<number | undefined> {
  try {
    const fh = await open(resolvePath(io, input), 'r');
    try {
      if ((await fh.stat()).isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    } finally {
      await fh.close();
    }
    return undefined;
  } catch (err) {
    io.stderr(`simlens convert: ${ioErrorMessage('read', input, err)}\n`);
    return 2;
  }
}

/**
 * Ctrl-C, SIGTERM or a closed terminal mid-way: closes and removes the temporary file the
 * conversion writes (`opened` tells which, '' and -1 once it is renamed), then ends as the signal would.
 */
function removeTempOnSignal(): { opened: (path: string, fd: number) => void; dispose: () => void } {
  let tmp = '';
  let fd = -1;
  const onSignal = (sig: keyof typeof SIGNALS): void => {
    try {
      if (fd !== -1) closeSync(fd);
    } catch {
      // closing is best effort; removing the file is what matters
    }
    try {
      if (tmp) unlinkSync(tmp);
    } catch {
      // not created yet
    }
    process.exit(SIGNALS[sig]);
  };
  const handlers = (Object.keys(SIGNALS) as (keyof typeof SIGNALS)[]).map((sig) => {
    const h = (): void => onSignal(sig);
    process.on(sig, h);
    return [sig, h] as const;
  });
  return {
    opened: (path, descriptor) => {
      tmp = path;
      fd = descriptor;
    },
    dispose: () => {
      for (const [sig, h] of handlers) process.off(sig, h);
    },
  };
}

interface ConversionPlace {
  input: string;
  output: string;
  toStdout: boolean;
}

/** --strict found problems: each one, counted per field and line, and exit code 1 (nothing written). */
function refuseStrict(io: CliIo, result: ConversionResult, { input, output, toStdout }: ConversionPlace): number {
  for (const w of result.warnings) io.stderr(`error: ${formatWarning(input, w)}\n`);
  io.stderr(`${warningsByFieldLine(result.warnings)}\n`);
  io.stderr(
    `simlens convert: ${input}: ${result.warnings.length} problem${result.warnings.length === 1 ? '' : 's'} under --strict; ${toStdout ? 'nothing was printed' : `${output} was not written`}\n`,
  );
  return 1;
}

/** The closing lines: acts missing for --annotator, an empty input, and the one-line summary. */
function reportConversion(
  io: CliIo,
  result: ConversionResult,
  { input, output, toStdout }: ConversionPlace,
  { to, exporter, annotator }: ReturnType<typeof conversionFormats>,
  annotatorsSeen: Set<string>,
): void {
  if (to === 'dialoguekit' && exporter.counts && exporter.counts.acts === 0 && result.count > 0) {
    const others = [...annotatorsSeen].filter((a) => a !== annotator);
    io.stderr(
      `warning: no dialogue acts by annotator "${annotator}"; dialogue_acts were left out${others.length ? ` (annotators present: ${others.slice(0, 8).join(', ')}; choose one with --annotator)` : ''}\n`,
    );
  }
  if (result.count === 0)
    io.stderr(
      `warning: ${input}: no conversations found (format ${result.format}); ${toStdout ? 'nothing was printed' : `${output} is empty`}\n`,
    );
  const c = exporter.counts;
  const what = c
    ? `${c.dialogues} dialogue${c.dialogues === 1 ? '' : 's'} (${c.utterances} utterances, ${c.acts} dialogue acts by "${annotator}", ${c.slotValues} slot values) as dialoguekit`
    : `${result.count} conversation${result.count === 1 ? '' : 's'}${to === 'canonical' ? '' : ` as ${to}`}`;
  const summary = `${input}: format ${result.format}, ${what}${toStdout ? '' : ` written to ${output}`}${result.warnings.length ? `, ${result.warnings.length} warning${result.warnings.length === 1 ? '' : 's'}` : ''}\n`;
  if (toStdout) io.stderr(summary);
  else io.stdout(summary);
}
