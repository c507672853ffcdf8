// Builds sample-workspace/ (gitignored): a catalog and simulated conversations to open in VS Code
// with SimLens. Everything goes through the CLI (`node dist/cli.js ...`), so this is also a smoke
// test of the commands a researcher would type. Used by `npm run sample` and by `npm run demo`.
//
//   node scripts/build-sample-workspace.mjs [DIR] [--n N]
//
// Files (all deterministic for a given N):
//   catalog.jsonl                          synthetic apparel catalog (3,000 items)
//   agenda-cir6-pkg-vs-good.sim.jsonl      agenda-based users (CIR6, PKG) vs local-good
//   agenda-cir6-pkg-vs-bad.sim.jsonl       the same users vs local-bad
//   agenda-qrfa-single-vs-good.sim.jsonl   QRFA interaction model, single-item preferences
//   target-free-vs-good.sim.jsonl          PEPPER target-free users (preference coverage per turn)
//   meta-prob-vs-good.sim.jsonl            MetaSimProb (alternative targets, switches in the trace)
//   human-moviebot.conv.jsonl              real human dialogues (MovieBot, from test/fixtures/datasets)
//   human-iard.conv.jsonl                  real human dialogues (ReDial with IARD acts, from test/fixtures/datasets)
//   agenda-moviebot-model-vs-good.sim.jsonl  agenda users with transitions estimated from them (idem)
// Each .sim.jsonl has its run manifest beside it (<file>.manifest.json).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const nIndex = args.indexOf('--n');
const n = nIndex >= 0 ? Number(args[nIndex + 1]) : 200;
if (!Number.isInteger(n) || n < 1) {
  console.error('--n must be a positive integer');
  process.exit(2);
}
const positional = args.filter((a, i) => !a.startsWith('--') && (nIndex < 0 || i !== nIndex + 1));
const dir = resolve(root, positional[0] ?? 'sample-workspace');
const cli = join(root, 'dist', 'cli.js');
if (!existsSync(cli)) {
  console.error(
    `${relative(process.cwd(), cli)} is missing: run \`npm run build\` first (npm run sample does it for you)`,
  );
  process.exit(2);
}
mkdirSync(dir, { recursive: true });

function simlens(...words) {
  const t = Date.now();
  const r = spawnSync(process.execPath, [cli, ...words], { cwd: dir, encoding: 'utf8' });
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`
    .trim()
    .split('\n')
    .filter((l) => !l.startsWith('  '))
    .join('\n');
  if (r.status !== 0) {
    console.error(`simlens ${words.join(' ')} failed (exit ${r.status}):\n${out}`);
    process.exit(1);
  }
  console.log(
    `  simlens ${words.join(' ')}  (${((Date.now() - t) / 1000).toFixed(1)} s)\n    ${out.split('\n').join('\n    ')}`,
  );
}

console.log(`building ${relative(process.cwd(), dir) || '.'} with ${n} conversations per run`);
simlens('catalog', 'generate', '--out', 'catalog.jsonl', '--size', '3000', '--seed', '1');
const common = ['--catalog', 'catalog.jsonl', '--seed', '1', '--force', '--quiet'];
simlens(
  'simulate',
  '--user',
  'agenda',
  '--interaction',
  'cir6',
  '--preferences',
  'pkg',
  '--agent',
  'local-good',
  '--n',
  String(n),
  '--out',
  'agenda-cir6-pkg-vs-good.sim.jsonl',
  ...common,
);
simlens(
  'simulate',
  '--user',
  'agenda',
  '--interaction',
  'cir6',
  '--preferences',
  'pkg',
  '--agent',
  'local-bad',
  '--n',
  String(n),
  '--out',
  'agenda-cir6-pkg-vs-bad.sim.jsonl',
  ...common,
);
simlens(
  'simulate',
  '--user',
  'agenda',
  '--interaction',
  'qrfa',
  '--preferences',
  'single',
  '--agent',
  'local-good',
  '--n',
  String(Math.max(1, n >> 1)),
  '--out',
  'agenda-qrfa-single-vs-good.sim.jsonl',
  ...common,
);
simlens(
  'simulate',
  '--user',
  'target-free',
  '--agent',
  'local-good',
  '--n',
  String(Math.max(1, n >> 2)),
  '--out',
  'target-free-vs-good.sim.jsonl',
  ...common,
);
simlens(
  'simulate',
  '--user',
  'agenda',
  '--meta',
  'prob',
  '--tolerance',
  '2',
  '--p-switch',
  '0.75',
  '--agent',
  'local-good',
  '--n',
  String(Math.max(1, n >> 1)),
  '--out',
  'meta-prob-vs-good.sim.jsonl',
  ...common,
);

// Real human dialogues bundled with the repository (test/fixtures/datasets, unchanged, with their licences).
const moviebot = resolve(root, 'test', 'fixtures', 'datasets', 'usersimcrs-moviebot', 'annotated_dialogues.json');
const iard = resolve(
  root,
  'test',
  'fixtures',
  'datasets',
  'usersimcrs-iard-gold',
  'formatted_IARD_annotated_gold.json',
);
simlens('convert', moviebot, '-o', 'human-moviebot.conv.jsonl');
simlens('convert', iard, '-o', 'human-iard.conv.jsonl');
simlens(
  'simulate',
  '--corpus',
  'human-moviebot.conv.jsonl',
  '--agent',
  'local-good',
  '--n',
  String(Math.max(1, n >> 1)),
  '--out',
  'agenda-moviebot-model-vs-good.sim.jsonl',
  ...common,
);
const reference =
  'human-moviebot.conv.jsonl (8 real MovieBot dialogues, UserSimCRS, Apache-2.0), human-iard.conv.jsonl (77 real ReDial dialogues with IARD acts; IARD MIT, ReDial CC BY 4.0) and a run whose transitions were estimated from the MovieBot dialogues';

writeFileSync(
  join(dir, 'README.md'),
  `# SimLens sample workspace

Generated by \`npm run sample\` (scripts/build-sample-workspace.mjs). Open any \`.sim.jsonl\` file to
replay conversations turn by turn with the simulator's state (agenda, pull/push, goal,
preferences, NLU, target, patience). Every run has its manifest beside it.

- \`catalog.jsonl\`: the synthetic apparel catalog the recommenders retrieve from.
- \`agenda-cir6-pkg-vs-good.sim.jsonl\` / \`-vs-bad\`: the same agenda-based users against the
  helpful and the subtly unhelpful local recommender; compare them for the counterfactual shift.
- \`agenda-qrfa-single-vs-good.sim.jsonl\`: the QRFA interaction model with single-item preferences.
- \`target-free-vs-good.sim.jsonl\`: PEPPER users; \`trace.preference_coverage\` per turn.
- \`meta-prob-vs-good.sim.jsonl\`: MetaSimProb; target switches in \`trace.target\`.
- Human reference: ${reference}.

Reproduce one run: \`simlens simulate\` with the \`config\` of its manifest, or continue a turn:
\`simlens simulate --fork FILE:ID:TURN --n 5 --out forks.sim.jsonl\`.
`,
);
console.log(`done: ${dir}`);
