/**
 * Run diff at scale (`simlens diff`, src/core/diff): two runs of N conversations each (default
 * 100,000) that share a seed and differ like a one-parameter change: every conversation's trace
 * differs from turn 1 (patience 3 vs 4), and a fifth of them diverge at a random turn, where run B
 * goes on asking instead of giving up (its outcome changes from abandoned to accepted or ended).
 * Conversations are generated (seeded word lists, 3-9 turns, 3 items per turn, the simulator's
 * trace fields), since simulating 200,000 conversations would take the machine an hour.
 *
 * Each measurement in a fresh child process: the editor's index of one run (line index plus the
 * summary of every line, `ConversationDocumentModel.open` + `summarizeAll`) and the diff of the
 * two runs; wall time, CPU time and peak RSS. The target: the diff's peak memory at most twice the
 * index's.
 */
import { createWriteStream, existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './gen';
import { fmtBytes, fmtMs, loadInfo, machineInfo, runChild, updateResultsSection } from './harness';
import { createRng } from '../src/core/random';
import { ConversationDocumentModel } from '../src/core/document';
import { diffRuns } from '../src/core/diff';

const WORDS = [
  'red',
  'blue',
  'leather',
  'boots',
  'sneakers',
  'jacket',
  'cheap',
  'warm',
  'light',
  'classic',
  'show',
  'me',
  'something',
  'else',
  'maybe',
  'what',
  'about',
  'price',
  'size',
  'the',
  'one',
  'with',
  'a',
  'hood',
  'for',
  'running',
  'winter',
  'summer',
];
const ACTS = ['Disclose', 'Inquire', 'Navigate.More', 'Note.Dislike', 'Note.Like', 'Reveal.Refine'];

function sentence(rng: ReturnType<typeof createRng>, n: number): string {
  const w: string[] = [];
  for (let i = 0; i < n; i++) w.push(rng.pick(WORDS));
  return w.join(' ');
}

/** Writes run A and run B (N conversations each) into `dir`; returns their paths. */
async function generate(dir: string, n: number): Promise<{ a: string; b: string; diverging: number }> {
  mkdirSync(dir, { recursive: true });
  const a = join(dir, `diff-a-${n}.sim.jsonl`);
  const b = join(dir, `diff-b-${n}.sim.jsonl`);
  let diverging = 0;
  const rng = createRng('bench-diff');
  const outA = createWriteStream(a);
  const outB = createWriteStream(b);
  const write = (s: NodeJS.WritableStream, text: string) =>
    s.write(text) ? Promise.resolve() : new Promise<void>((r) => s.once('drain', () => r()));
  for (let i = 0; i < n; i++) {
    const r = rng.fork(i);
    const turns = 3 + r.int(7);
    const diverge = r.chance(0.2) ? 1 + r.int(turns - 1) : -1;
    if (diverge >= 0) diverging++;
    const make = (patience: number, side: 'A' | 'B') => {
      const tr = createRng(`bench-diff/${i}`);
      const out: Record<string, unknown>[] = [];
      let outcome = tr.chance(0.6) ? 'accepted' : 'ended';
      for (let t = 0; t < turns; t++) {
        const changed = side === 'B' && diverge >= 0 && t >= diverge;
        const act = t === 0 ? 'Disclose' : changed ? 'Navigate.More' : tr.pick(ACTS);
        const user = changed ? `any more? ${sentence(tr, 3)}` : sentence(tr, 4 + tr.int(8));
        if (side === 'A' && diverge >= 0 && t === diverge) {
          out.push({
            user_utterance: 'forget it',
            trace: { user_act: 'Complete.Abandon', patience: 0, satisfaction: 0.2 },
          });
          outcome = 'abandoned';
          break;
        }
        out.push({
          user_utterance: user,
          assistant_utterance: sentence(tr, 12),
          recommendations: [0, 1, 2].map(() => ({
            item_id: `IT${String(tr.int(3000)).padStart(5, '0')}`,
            title: sentence(tr, 3),
          })),
          trace: {
            user_act: act,
            patience: patience - (changed ? 1 : 0),
            satisfaction: Math.round(tr.next() * 100) / 100,
            agenda: [tr.pick(ACTS), tr.pick(ACTS)],
          },
        });
      }
      return (
        JSON.stringify({
          id: `sim-7-${String(i).padStart(6, '0')}`,
          source: 'bench',
          turns: out,
          outcome,
          metadata: { index: i, seed: 7 },
        }) + '\n'
      );
    };
    await write(outA, make(3, 'A'));
    await write(outB, make(4, 'B'));
  }
  await Promise.all([new Promise((r) => outA.end(r)), new Promise((r) => outB.end(r))]);
  return { a, b, diverging };
}

interface DiffValue {
  pairs: number;
  diverged: number;
  outcomeChanged: number;
  heapUsed: number;
}

export async function child(task: string, payload: unknown): Promise<unknown> {
  const p = payload as { a: string; b: string };
  if (task === 'index') {
    const doc = await ConversationDocumentModel.open(p.a);
    await doc.summarizeAll();
    (globalThis as { gc?: () => void }).gc?.();
    return { lines: doc.lineCount, heapUsed: process.memoryUsage().heapUsed };
  }
  if (task === 'diff') {
    const r = await diffRuns(p.a, p.b);
    (globalThis as { gc?: () => void }).gc?.();
    const v: DiffValue = {
      pairs: r.aggregate.pairs,
      diverged: r.aggregate.diverged,
      outcomeChanged: r.aggregate.outcomeChanged,
      heapUsed: process.memoryUsage().heapUsed,
    };
    return v;
  }
  throw new Error(`unknown task ${task}`);
}

export async function run(args: string[] = []): Promise<void> {
  const n = Number(args.find((x) => x.startsWith('--n='))?.slice(4) ?? 100_000);
  const dir = join(repoRoot(), 'bench', 'data');
  const t0 = performance.now();
  const files = existsSync(join(dir, `diff-b-${n}.sim.jsonl`))
    ? { a: join(dir, `diff-a-${n}.sim.jsonl`), b: join(dir, `diff-b-${n}.sim.jsonl`), diverging: NaN }
    : await generate(dir, n);
  console.log(
    `  runs: ${fmtBytes(statSync(files.a).size)} + ${fmtBytes(statSync(files.b).size)} (${fmtMs(performance.now() - t0)} to generate or find)`,
  );
  const index = runChild<{ lines: number; heapUsed: number }>('diff', 'index', files, 1_800_000);
  if (!index.ok) throw new Error(`index: ${index.error}`);
  console.log(
    `  index of one run: ${fmtMs(index.ms)}, peak RSS ${fmtBytes(index.maxRssBytes)}, heap after ${fmtBytes(index.value!.heapUsed)}`,
  );
  const diff = runChild<DiffValue>('diff', 'diff', files, 3_600_000);
  if (!diff.ok) throw new Error(`diff: ${diff.error}`);
  const v = diff.value!;
  console.log(
    `  diff: ${fmtMs(diff.ms)} (CPU ${fmtMs(diff.cpuMs ?? NaN)}), peak RSS ${fmtBytes(diff.maxRssBytes)}, heap after ${fmtBytes(v.heapUsed)}; ${v.pairs} pairs, ${v.diverged} diverged, ${v.outcomeChanged} outcomes changed`,
  );
  const ratio = diff.maxRssBytes / index.maxRssBytes;
  const body = `Machine: ${machineInfo()}. Date: ${new Date().toISOString().slice(0, 10)}. ${loadInfo()} at the end. Reproduce: \`npm run build && node --expose-gc dist/bench.js diff\` (\`-- --n=N\`; the generated runs are kept in bench/data).

Two generated runs of ${n.toLocaleString('en-US')} conversations each (${fmtBytes(statSync(files.a).size)} and ${fmtBytes(statSync(files.b).size)}; same seed; every trace differs from turn 1, a fifth of the dialogues diverge at a random turn and change outcome). Each measurement in a fresh child process. "Index of one run" is what the editor builds when it opens a run (line index + a summary of every line); the diff indexes run A (offsets and pairing keys), streams run B, reads each partner from disk, and keeps only per-pair summaries and feature values.

| | wall | CPU | peak RSS |
|---|---|---|---|
| index of one run (editor) | ${fmtMs(index.ms)} | ${fmtMs(index.cpuMs ?? NaN)} | ${fmtBytes(index.maxRssBytes)} |
| diff of the two runs (${v.pairs.toLocaleString('en-US')} pairs, ${v.diverged.toLocaleString('en-US')} diverged, ${v.outcomeChanged.toLocaleString('en-US')} outcomes changed) | ${fmtMs(diff.ms)} | ${fmtMs(diff.cpuMs ?? NaN)} | ${fmtBytes(diff.maxRssBytes)} |

Diff peak RSS / index peak RSS: **${ratio.toFixed(2)}** (target: at most 2).`;
  updateResultsSection('Run diff', body);
  console.log(`\n  diff/index peak RSS ratio ${ratio.toFixed(2)}; wrote the Run diff section of bench/RESULTS.md`);
}
