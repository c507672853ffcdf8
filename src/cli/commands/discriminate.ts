/** `simlens discriminate IN --out OUT`: zero-shot LLM human-or-simulation scores (p_human annotations). */
import { conversationSource } from '../../core/model';
import { discriminateConversation, discriminatorAnnotator } from '../../core/llm/discriminator';
import { formatFlags, parseArgs } from '../args';
import { annotationPassFlags, describeFailures, readConversationsForCommand, runAnnotationPass } from '../annotatePass';
import { UsageError, type CliCommand } from '../types';

const FLAGS = annotationPassFlags(
  {
    out: 'write the conversations with discriminator annotations here (JSONL; may equal IN)',
    force: "re-score conversations that already have this model's annotation",
    limit: 'score only the first N conversations',
    json: 'print the summary as JSON',
  },
  {},
);

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

Failures, --max-consecutive-failures, budget stops, Ctrl-C and sharding (--shard, cluster
tasks, \`simlens merge\`) work as in \`simlens judge\`.

Exit codes: 0 all scored, 1 some failed, the pass stopped early or IN is not conversations,
2 usage or I/O error.

Example:
  simlens simulate --agent local-good --n 20 --out prompted.jsonl
  simlens discriminate prompted.jsonl --out prompted.scored.jsonl --model gpt-4o-mini
`,
  async run(args, io) {
    const { flags, positionals } = parseArgs(args, FLAGS, { positionals: { min: 1, max: 1, names: 'IN' } });
    const input = positionals[0];
    const out = flags.out;
    if (!out) throw new UsageError('--out is required');
    const conversations = await readConversationsForCommand(io, 'discriminate', input);
    if (typeof conversations === 'number') return conversations;
    return runAnnotationPass({
      command: 'discriminate',
      args,
      role: 'discriminator',
      io,
      flags,
      input,
      out,
      conversations,
      annotatorFor: discriminatorAnnotator,
      annotate: async (conv, services, line) => (await discriminateConversation(conv, services, { line })).annotation,
      summarize: ({ report, annotator, services, out }) => {
        let sum = 0;
        let n = 0;
        let correct = 0;
        for (const conv of report.conversations) {
          const a = conv.annotations?.find((x) => x.annotator === annotator);
          const p = a?.fields?.p_human;
          if (typeof p !== 'number') continue;
          n++;
          sum += p;
          if (p >= 0.5 === (conversationSource(conv) === 'human')) correct++;
        }
        const summary = {
          out,
          annotator,
          scored: report.annotated,
          skipped: report.skipped,
          failed: report.failed.length,
          failures: report.failures,
          mean_p_human: n ? sum / n : null,
          accuracy: n ? correct / n : null,
          stopped: report.stopped ?? null,
          usage: services.budget.snapshot(),
        };
        io.stdout(
          flags.json
            ? JSON.stringify(summary) + '\n'
            : `${annotator}: ${report.annotated} scored, ${report.skipped} already scored, ${describeFailures(report)}; mean ` +
                `p_human ${n ? (sum / n).toFixed(3) : 'n/a'}, accuracy vs source ${n ? (correct / n).toFixed(3) : 'n/a'} -> ${out}\n`,
        );
      },
    });
  },
};
