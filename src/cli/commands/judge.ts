/** `simlens judge IN --out OUT`: LLM judge annotations; `--validate` compares them with first-person ratings. */
import { formatJudgeValidation, judgeAnnotator, judgeConversation, validateJudge } from '../../core/llm/judge';
import { formatFlags, parseArgs } from '../args';
import { annotationPassFlags, describeFailures, readConversationsForCommand, runAnnotationPass } from '../annotatePass';
import { UsageError, type CliCommand } from '../types';

const FLAGS = annotationPassFlags(
  {
    out: 'write the conversations with judge annotations here (JSONL; may equal IN)',
    force: "re-judge conversations that already have this judge's annotation",
    limit: 'judge only the first N conversations',
    json: 'print the summary (or validation) as JSON',
  },
  {
    validate: {
      type: 'boolean',
      description: 'report agreement of judge annotations in IN with first-person ratings (no LLM calls)',
    },
    annotator: {
      type: 'string',
      valueName: 'NAME',
      description: 'with --validate: which judge ("judge:<model>"; default the first found)',
    },
  },
);

export const judgeCommand: CliCommand = {
  name: 'judge',
  summary: 'annotate conversations with an LLM judge (ConvApparel fields) or validate a judge',
  help: `Usage: simlens judge IN --out OUT [--model NAME] [LLM options]
       simlens judge IN --validate [--annotator judge:MODEL] [--json]

Asks the judge model, once per conversation, for the ConvApparel judge fields (sentiment,
satisfaction, frustration, confusion 1-5; acceptance; question counts; user and assistant
dialogue-act counts; four rated aspects with explanations; summary; overall rating) as JSON.
Answers are validated; an invalid answer is sent back with the problem (up to 2 more tries).
Each result is stored as a conversation annotation by "judge:<model>" (fields in "fields").
Conversations already judged by the same model are skipped unless --force, so rerunning on OUT
resumes an interrupted pass. Responses are cached (rerunning costs nothing).

--validate compares existing judge annotations with the users' own ratings: Kendall's tau-b per
user-experience field (judge 1-5 score vs share of turns with the feeling ticked), confusion
matrices, and acceptance accuracy (judge vs "found a product").

The API key is read from SIMLENS_API_KEY or OPENAI_API_KEY.

Annotations hold only what the answers determine (no wall-clock time, latencies, retries or
cache hits), so the same input and answers give the same bytes however the pass ran.
Sharding (--shard I/K, or automatically in a Slurm array or Kubernetes indexed job, writing
OUT.part-I-of-K.jsonl): each task judges input positions p with p mod K = I and writes them with
a manifest; a rerun of the task resumes its part; \`simlens merge OUT\` interleaves the parts into
what one process writes, byte for byte. See docs/cluster/README.md.

Options:
${formatFlags(FLAGS)}

A failed conversation (endpoint errors after the retries, or an answer still invalid after the
repairs) is left unjudged and counted (reason judge_llm); after --max-consecutive-failures
failures in a row the pass stops. A spent budget or Ctrl-C stops launching new requests; answers
in flight are kept (a second Ctrl-C cancels them).

Exit codes: 0 all judged, 1 some conversations failed, the pass stopped early or IN is not
conversations, 2 usage or I/O error.

Examples:
  simlens convert test/fixtures/datasets/usersimcrs-iard-gold/formatted_IARD_annotated_gold.json -o human.jsonl
  simlens judge human.jsonl -o human.judged.jsonl --model gpt-4o-mini
  simlens judge human.judged.jsonl --validate
`,
  async run(args, io) {
    const { flags, positionals } = parseArgs(args, FLAGS, { positionals: { min: 1, max: 1, names: 'IN' } });
    const input = positionals[0];
    const conversations = await readConversationsForCommand(io, 'judge', input);
    if (typeof conversations === 'number') return conversations;
    if (flags.validate) {
      const v = validateJudge(conversations, flags.annotator);
      if (v.judged === 0) {
        io.stderr(
          `simlens judge: ${input}: no conversation carries ${flags.annotator ?? 'a judge'} annotation; run 'simlens judge ${input} --out ...' first\n`,
        );
        return 1;
      }
      io.stdout(flags.json ? JSON.stringify(v) + '\n' : formatJudgeValidation(v) + '\n');
      return 0;
    }
    const out = flags.out;
    if (!out) throw new UsageError('--out is required (or use --validate)');
    let last = 0;
    return runAnnotationPass({
      command: 'judge',
      args,
      role: 'judge',
      io,
      flags,
      input,
      out,
      conversations,
      annotatorFor: judgeAnnotator,
      annotate: async (conv, services, line) => (await judgeConversation(conv, services, { line })).annotation,
      onProgress: (done, total) => {
        if (done - last >= 25 || done === total) {
          last = done;
          io.stderr(`judged ${done}/${total}\n`);
        }
      },
      summarize: ({ report, annotator, services, out }) => {
        const summary = {
          out,
          annotator,
          annotated: report.annotated,
          skipped: report.skipped,
          failed: report.failed.length,
          failures: report.failures,
          stopped: report.stopped ?? null,
          usage: services.budget.snapshot(),
        };
        io.stdout(
          flags.json
            ? JSON.stringify(summary) + '\n'
            : `${annotator}: ${report.annotated} judged, ${report.skipped} already judged, ${describeFailures(report)} -> ${out}\n`,
        );
      },
    });
  },
};
