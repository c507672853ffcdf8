/** `simlens merge OUT PART...`: join the outputs of a sharded simulation run. */
import { FailureTally, mergeRunFiles } from '../../core/run/index';
import { formatFlags, parseArgs } from '../args';
import type { CliCommand } from '../types';

const FLAGS = {
  force: { type: 'boolean', description: 'replace an existing OUT' },
} as const;

export const mergeCommand: CliCommand = {
  name: 'merge',
  summary: 'join the parts of a sharded simulation run (simulate --shard) into one file',
  help: `Usage: simlens merge OUT PART... [--force]

Joins the JSONL outputs of \`simlens simulate --shard I/K\` into OUT in conversation order, so OUT
is byte for byte what one unsharded run writes. Each part must be in index order (as simulate
writes it); a conversation present in two parts must be identical in both. An unfinished last
line in a part (an interrupted run) is cut away first. When every part has its manifest, the
manifests are merged into OUT.manifest.json (counts summed, failures counted per reason from the
merged lines, earliest start, latest end, the parts listed); indices no part holds are reported
as missing.

Options:
${formatFlags(FLAGS)}

Exit codes: 0 merged and complete, 1 merged but conversations are missing, 2 usage or I/O error.

Example:
  for i in 0 1 2 3; do simlens simulate --n 10000 --shard $i/4 --out part$i.jsonl & done; wait
  simlens merge all.jsonl part0.jsonl part1.jsonl part2.jsonl part3.jsonl
`,
  async run(args, io) {
    const { flags, positionals } = parseArgs(args, FLAGS, { positionals: { min: 2, names: 'OUT and at least one PART' } });
    const [out, ...parts] = positionals;
    const r = await mergeRunFiles(out, parts, { cwd: io.cwd, overwrite: flags.force });
    io.stdout(`merged ${parts.length} parts into ${out}: ${r.lines} conversations, ${new FailureTally(0, r.failures).describe()}${r.manifest ? ', manifest merged' : ' (no manifest: some part has none)'}\n`);
    if (r.missing.length) {
      io.stderr(`missing ${r.missing.length} conversation indices (first: ${r.missing.slice(0, 10).join(', ')}); a shard is absent or unfinished\n`);
      return 1;
    }
    return 0;
  },
};
