/** `simlens export-sft IN --out OUT [--condition good]`: fine-tuning JSONL for a user simulator. */
import { importFile, ImportError } from '../../core/importers';
import { writeJsonlAtomic } from '../../core/llm/annotate';
import { sftAccepts, sftExamples } from '../../core/llm/sft';
import { PromptLibrary, WORKSPACE_PROMPTS_DIR } from '../../core/llm/templates';
import { formatFlags, parseArgs } from '../args';
import { UsageError, type CliCommand } from '../types';
import { EXIT_NOT_READABLE, importErrorMessage, ioErrorMessage, isIoError, resolvePath } from '../util';
import * as path from 'node:path';

const FLAGS = {
  out: { type: 'string', short: 'o', valueName: 'FILE', description: 'output JSONL, one training example per line' },
  condition: {
    type: 'string',
    valueName: 'NAME',
    description: 'keep only conversations of this condition (e.g. good)',
  },
  source: { type: 'string', valueName: 'NAME', description: 'keep only this source (default human; "*" for all)' },
  format: {
    type: 'string',
    valueName: 'chat|prompt',
    description: 'chat: {"messages": [...]} (default); prompt: {"prompt", "completion"}',
  },
  'no-stop-example': {
    type: 'boolean',
    description: 'leave out the final "Terminate: True" example of each conversation',
  },
  prompts: {
    type: 'string',
    valueName: 'DIR',
    description: `prompt overrides (default ${WORKSPACE_PROMPTS_DIR}); the user-sft template is the system prompt`,
  },
} as const;

export const exportSftCommand: CliCommand = {
  name: 'export-sft',
  summary: 'write chat fine-tuning data for an SFT user simulator (one example per user turn)',
  help: `Usage: simlens export-sft IN --out OUT [--condition good] [--format chat|prompt]

Turns human conversations into supervised fine-tuning examples for a user simulator, as in
ConvApparel's SFT simulator: one example per user turn, with the conversation before that turn
as input and the human's utterance as the target. Roles are flipped for chat fine-tuning: the
assistant's messages (with the items it showed) are "user" messages, the shopper's utterances
are "assistant" messages, written as "Response: <text>" / "Terminate: False". Each conversation
also yields a final example whose target is "Terminate: True" (when the human stopped).

The system prompt is the "user-sft" template, the same one the llm-sft user sends at run time:
after fine-tuning, run 'simlens simulate --user llm-sft --user-model <fine-tuned model name>'.
For counterfactual validation, train on one condition only (--condition good) and simulate
against the other agent.

Options:
${formatFlags(FLAGS)}

Exit codes: 0 success, 1 no example written or IN is not conversations, 2 usage or I/O error.

Example:
  simlens convert test/fixtures/datasets/usersimcrs-iard-gold/formatted_IARD_annotated_gold.json -o human.jsonl
  simlens export-sft human.jsonl --out human.sft.jsonl
`,
  async run(args, io) {
    const { flags, positionals } = parseArgs(args, FLAGS, { positionals: { min: 1, max: 1, names: 'IN' } });
    if (!flags.out) throw new UsageError('--out is required');
    const format = flags.format ?? 'chat';
    if (format !== 'chat' && format !== 'prompt')
      throw new UsageError(`--format must be chat or prompt, got ${JSON.stringify(format)}`);
    const input = positionals[0];
    let conversations;
    let prompts: PromptLibrary;
    try {
      conversations = (await importFile(resolvePath(io, input))).conversations;
      prompts = await PromptLibrary.load(
        flags.prompts ? resolvePath(io, flags.prompts) : path.join(io.cwd, WORKSPACE_PROMPTS_DIR),
      );
    } catch (err) {
      if (isIoError(err)) {
        io.stderr(`simlens export-sft: ${ioErrorMessage('read', input, err)}\n`);
        return 2;
      }
      if (err instanceof ImportError) {
        io.stderr(`simlens export-sft: ${importErrorMessage(io, err)}\n`);
        return EXIT_NOT_READABLE;
      }
      io.stderr(`simlens export-sft: ${(err as Error).message}\n`);
      if (err instanceof Error) return 2;
      throw err;
    }
    for (const w of prompts.warnings) io.stderr(`simlens export-sft: ${w}\n`);
    const opts = {
      condition: flags.condition,
      source: flags.source,
      format: format as 'chat' | 'prompt',
      terminalExample: !flags['no-stop-example'],
    };
    let used = 0;
    const rows: unknown[] = [];
    for (const conv of conversations) {
      if (!sftAccepts(conv, opts)) continue;
      used++;
      rows.push(...sftExamples(conv, prompts, opts));
    }
    try {
      await writeJsonlAtomic(resolvePath(io, flags.out), rows);
    } catch (err) {
      if (isIoError(err)) {
        io.stderr(`simlens export-sft: ${ioErrorMessage('write', flags.out, err)}\n`);
        return 2;
      }
      throw err;
    }
    io.stdout(
      `${rows.length} examples from ${used} of ${conversations.length} conversations -> ${flags.out} (system prompt ` +
        `${prompts.get('user-sft').name}@${prompts.get('user-sft').version})\n`,
    );
    if (rows.length === 0) {
      io.stderr(
        `simlens export-sft: no conversation matched${flags.condition ? ` condition "${flags.condition}"` : ''}${` and source "${flags.source ?? 'human'}"`}\n`,
      );
      return 1;
    }
    return 0;
  },
};
