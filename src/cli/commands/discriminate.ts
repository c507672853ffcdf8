/** `simlens discriminate IN --out OUT`: zero-shot LLM human-or-simulation scores (p_human annotations). */
import { importFile, ImportError } from '../../core/importers';
import { conversationSource } from '../../core/model';
import { annotateAll, writeJsonlAtomic } from '../../core/llm/annotate';
import { discriminateConversation, discriminatorAnnotator } from '../../core/llm/discriminator';
import { formatFlags, parseArgs } from '../args';
import { LLM_FLAGS, llmServicesFromFlags } from '../llmOptions';
import { UsageError, type CliCommand } from '../types';
import { ioErrorMessage, isIoError, resolvePath } from '../util';

const FLAGS = {
  out: { type: 'string', short: 'o', valueName: 'FILE', description: 'write the conversations with discriminator annotations here (JSONL; may equal IN)' },
  force: { type: 'boolean', description: 're-score conversations that already have this model\'s annotation' },
  limit: { type: 'number', description: 'score only the first N conversations' },
  json: { type: 'boolean', description: 'print the summary as JSON' },
  ...LLM_FLAGS,
} as const;

export const discriminateCommand: CliCommand = {
  name: 'discriminate',
  summary: 'score how human each conversation looks with a zero-shot LLM discriminator',
  help: `Usage: simlens discriminate IN --out OUT [--model NAME] [LLM options]

Shows each conversation to the discriminator model and asks whether the USER was a person or a
simulator, as JSON {"label", "p_human", "reason"}. The probability is stored as a conversation
annotation by "discriminator:<model>" with fields.p_human (the human-likeness score), which the
human-likeness panel shows beside the local discriminator. Already scored conversations are
skipped unless --force. The summary gives the mean p_human and, where the source is known,
the accuracy of label vs source (human or a simulator).

The API key is read from SIMLENS_API_KEY or OPENAI_API_KEY.

Options:
${formatFlags(FLAGS)}

Exit codes: 0 all scored, 1 some failed or the budget ran out, 2 usage or I/O error.

Example:
  simlens discriminate runs/prompted.jsonl --out runs/prompted.scored.jsonl --model gpt-4o-mini
`,
  async run(args, io) {
    const { flags, positionals } = parseArgs(args, FLAGS, { positionals: { min: 1, max: 1, names: 'IN' } });
    const input = positionals[0];
    if (!flags.out) throw new UsageError('--out is required');
    let conversations;
    try {
      conversations = (await importFile(resolvePath(io, input))).conversations;
    } catch (err) {
      if (isIoError(err)) { io.stderr(`simlens discriminate: ${ioErrorMessage('read', input, err)}\n`); return 2; }
      if (err instanceof ImportError) { io.stderr(`simlens discriminate: ${err.message}\n`); return 2; }
      throw err;
    }
    const subset = flags.limit !== undefined ? conversations.slice(0, Math.max(0, flags.limit)) : conversations;
    const controller = new AbortController();
    const onSigint = () => controller.abort();
    process.once('SIGINT', onSigint);
    try {
      let services;
      try {
        services = await llmServicesFromFlags(flags, io, { outFile: flags.out, signal: controller.signal, command: 'discriminate' });
      } catch (e) {
        if (e instanceof UsageError) throw e;
        io.stderr(`simlens discriminate: ${(e as Error).message}\n`);
        return 2;
      }
      services.budget.onExhausted(() => controller.abort());
      const annotator = discriminatorAnnotator(services.client('discriminator').model);
      const report = await annotateAll(subset, async (conv, i) => (await discriminateConversation(conv, services, { line: i + 1 })).annotation, {
        concurrency: services.settings.roles.discriminator.concurrency,
        skipAnnotator: flags.force ? undefined : annotator,
        signal: controller.signal,
      });
      await writeJsonlAtomic(resolvePath(io, flags.out), [...report.conversations, ...conversations.slice(subset.length)]);
      for (const f of report.failed) io.stderr(`simlens discriminate: ${input}: conversation ${f.id}: ${f.error}\n`);
      if (report.stopped) io.stderr(`simlens discriminate: stopped early: ${report.stopped}; rerun on ${flags.out} to continue\n`);
      let sum = 0;
      let n = 0;
      let correct = 0;
      for (const conv of report.conversations) {
        const a = conv.annotations?.find((x) => x.annotator === annotator);
        const p = a?.fields?.p_human;
        if (typeof p !== 'number') continue;
        n++;
        sum += p;
        if ((p >= 0.5) === (conversationSource(conv) === 'human')) correct++;
      }
      const summary = { out: flags.out, annotator, scored: report.annotated, skipped: report.skipped, failed: report.failed.length, mean_p_human: n ? sum / n : null, accuracy: n ? correct / n : null, stopped: report.stopped ?? null };
      io.stdout(flags.json ? JSON.stringify(summary) + '\n'
        : `${annotator}: ${report.annotated} scored, ${report.skipped} already scored, ${report.failed.length} failed; mean p_human ${n ? (sum / n).toFixed(3) : 'n/a'}, accuracy vs source ${n ? (correct / n).toFixed(3) : 'n/a'} -> ${flags.out}\n`);
      return report.failed.length || report.stopped ? 1 : 0;
    } catch (err) {
      if (isIoError(err)) { io.stderr(`simlens discriminate: ${ioErrorMessage('write', flags.out, err)}\n`); return 2; }
      throw err;
    } finally {
      process.removeListener('SIGINT', onSigint);
    }
  },
};
