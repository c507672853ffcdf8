/** `simlens merge OUT [PART...]`: join the parts of a sharded run (simulate, judge, discriminate, metrics features). */
import { mergeRunFiles } from '../../core/run/index';
import { FailureTally, type FailureCounts } from '../../core/failures';
import { formatFlags, parseArgs } from '../args';
import type { CliCommand } from '../types';

const FLAGS = {
  force: { type: 'boolean', description: 'replace an existing OUT' },
  json: { type: 'boolean', description: 'print the result as JSON' },
} as const;

export const mergeCommand: CliCommand = {
  name: 'merge',
  summary: 'join the parts of a sharded run (simulate, judge, discriminate, metrics features --shard) into one file',
  help: `Usage: simlens merge OUT [PART... | FOLDER] [--force]

Joins the JSONL parts of a sharded run into OUT, byte for byte what one unsharded process
writes. Without PART, the parts beside OUT are taken (OUT.part-*-of-*.jsonl, as cluster tasks
write them: \`--shard auto\`); a FOLDER stands for the part files in it.

Simulation parts (\`simlens simulate --shard\`) are merged in conversation order: each part must be
in index order (as simulate writes it); a conversation present in two parts must be identical
in both. Judge and discriminator parts (\`simlens judge|discriminate --shard\`) and feature parts
(\`simlens metrics features FILE --out OUT --shard\`) are interleaved by input position, which
their manifests record (feature rows also carry it). An unfinished last line in a part (an
interrupted run) is cut away first.

Before writing, the parts are checked to belong together: parts of another configuration or
input, of another shard count, of another command (or, for features, other act or UX sources or
another SimLens version), or two files for the same shard are refused.
When every part has its manifest, the manifests are merged into OUT.manifest.json (counts and
failures per reason summed, earliest start, latest end, and every task listed with its counts,
failures, timings and status), and completeness is checked: tasks with no part, tasks that did
not finish, and the conversation indices missing are listed.

Options:
${formatFlags(FLAGS)}

Exit codes: 0 merged and complete, 1 merged but tasks or conversations are missing or a task did
not finish, 2 usage or I/O error, or parts that do not belong together.

Examples:
  for i in 0 1 2 3; do simlens simulate --n 200 --shard $i/4 --out part$i.jsonl & done; wait
  simlens merge all.jsonl part0.jsonl part1.jsonl part2.jsonl part3.jsonl

After a cluster array job, simlens merge all.jsonl finds all.part-0000-of-0004.jsonl ... itself.
`,
  async run(args, io) {
    const { flags, positionals } = parseArgs(args, FLAGS, { positionals: { min: 1, names: 'OUT' } });
    const [out, ...parts] = positionals;
    let r;
    try {
      r = await mergeRunFiles(out, parts, { cwd: io.cwd, overwrite: flags.force });
    } catch (err) {
      io.stderr(`simlens merge: ${(err as Error).message}\n`);
      return 2;
    }
    const complete = r.missing.length === 0 && r.missingTasks.length === 0 && r.unfinishedTasks.length === 0;
    if (flags.json) {
      io.stdout(
        JSON.stringify({
          out,
          parts: r.parts,
          lines: r.lines,
          failures: r.failures,
          tasks: r.taskCount ?? null,
          missing_tasks: r.missingTasks,
          unfinished_tasks: r.unfinishedTasks,
          missing: r.missing.length,
          complete,
        }) + '\n',
      );
    } else {
      const failures = r.manifest
        ? new FailureTally(0, {
            failed: r.manifest.counts.failed,
            agent_errors: Number(r.manifest.counts.agent_errors ?? 0),
            by_reason: (r.manifest.counts.by_reason ?? {}) as FailureCounts['by_reason'],
          })
        : new FailureTally(0, r.failures);
      io.stdout(
        `merged ${r.parts.length} parts${r.taskCount !== undefined ? ` (of ${r.taskCount} tasks)` : ''} into ${out}: ` +
          `${r.lines} conversations, ${failures.describe()}${r.manifest ? ', manifest merged' : ' (no manifest: some part has none)'}\n`,
      );
    }
    if (r.missingTasks.length) io.stderr(`missing tasks: ${r.missingTasks.join(', ')} (no part file); rerun them\n`);
    for (const t of r.unfinishedTasks)
      io.stderr(
        `task ${t.index} ${t.status}${t.reason ? `: ${t.reason}` : ''} (${t.file}); rerun it to resume its part\n`,
      );
    if (r.missing.length) {
      io.stderr(
        `missing ${r.missing.length} conversation indices (first: ${r.missing.slice(0, 10).join(', ')}); a shard is absent or unfinished\n`,
      );
    }
    return complete ? 0 : 1;
  },
};
