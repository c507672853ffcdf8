/**
 * Foundation benchmark: the large-JSONL engine against the naive lower bar
 * (`fs.readFile` + `split('\n')` + `JSON.parse` of every line), on ConvApparel-scale files (1x) and
 * ten times that (10x). Every measurement runs in its own child process; times are medians.
 *
 * Measured: line-index build, time to the first parsed conversation (read just the first line, and
 * via a full `JsonlFile.open`), a page of 50 conversations from the middle, full validation, the
 * `simlens stats` pass, and the peak RSS of each. Targets (issue 3): first conversation < 5% of the
 * naive full parse; full validation within 1.5x of it; peak memory < 1.5x the file size on 10x.
 */
import { readFile } from 'node:fs/promises';
import { JsonlFile, buildLineIndex, parseLineBytes, readFirstLines, validateFile } from '../src/core/jsonl';
import { computeStats } from '../src/cli/commands/stats';
import { ensureBenchFile, type GenerateResult } from './gen';
import {
  fmtBytes,
  fmtMs,
  fmtRatio,
  loadInfo,
  machineInfo,
  median,
  runChild,
  updateResultsSection,
  type ChildResult,
} from './harness';

interface Payload {
  file: string;
}

/** Child tasks: each runs in a fresh process (see harness.runChild). */
export async function child(task: string, payload: unknown): Promise<unknown> {
  const { file } = payload as Payload;
  switch (task) {
    case 'idle':
      return {};
    case 'naive': {
      const text = await readFile(file, 'utf8');
      let conversations = 0;
      for (const line of text.split('\n')) {
        if (line) {
          JSON.parse(line);
          conversations++;
        }
      }
      return { conversations };
    }
    case 'index': {
      const index = await buildLineIndex(file);
      return { lines: index.lineCount };
    }
    case 'first-peek': {
      const [bytes] = await readFirstLines(file, 1);
      const parsed = parseLineBytes(bytes, 0);
      if (parsed.kind !== 'valid') throw new Error('first line is not a valid conversation');
      return { turns: parsed.conversation.turns.length };
    }
    case 'first-open': {
      const f = await JsonlFile.open(file);
      const parsed = await f.parseLine(0);
      await f.close();
      if (parsed.kind !== 'valid') throw new Error('first line is not a valid conversation');
      return { lines: f.index.lineCount };
    }
    case 'page': {
      const f = await JsonlFile.open(file);
      const t = performance.now();
      const page = await f.parseLines(Math.floor(f.index.lineCount / 2), 50);
      const pageMs = performance.now() - t;
      await f.close();
      if (page.some((p) => p.kind !== 'valid')) throw new Error('page has invalid lines');
      return { pageMs };
    }
    case 'validate': {
      const r = await validateFile(file);
      if (r.errors.length) throw new Error(`bench file has ${r.errors.length} problems`);
      return { conversations: r.conversations };
    }
    case 'stats': {
      const s = await computeStats(file);
      return { conversations: s.conversations, turns: s.turns };
    }
    default:
      throw new Error(`unknown foundation task ${task}`);
  }
}

const TASKS = ['naive', 'index', 'first-peek', 'first-open', 'page', 'validate', 'stats'] as const;
type Task = (typeof TASKS)[number];

interface Summary {
  ms: number;
  cpuMs: number;
  rss: number;
  ok: boolean;
  error?: string;
  pageMs?: number;
}

function summarize(results: ChildResult<unknown>[]): Summary {
  const ok = results.filter((r) => r.ok);
  const rssOf = (rs: ChildResult<unknown>[]) => Math.max(...rs.map((r) => r.maxRssBytes).filter(Number.isFinite));
  if (ok.length === 0) {
    return {
      ms: median(results.map((r) => r.ms)),
      cpuMs: median(results.map((r) => r.cpuMs ?? NaN)),
      rss: rssOf(results),
      ok: false,
      error: results[0]?.error,
    };
  }
  const pages = ok
    .map((r) => (r.value as { pageMs?: number } | undefined)?.pageMs)
    .filter((v): v is number => typeof v === 'number');
  return {
    ms: median(ok.map((r) => r.ms)),
    cpuMs: median(ok.map((r) => r.cpuMs ?? NaN)),
    rss: rssOf(ok),
    ok: true,
    pageMs: pages.length ? median(pages) : undefined,
  };
}

type Measured = Record<Task, Summary> & { naiveReference?: Summary };

/**
 * Runs every task `reps` times, interleaved so that drift on a shared machine hits every
 * measurement alike. `reference` (a smaller file) adds a naive run on it in each round: when the
 * naive approach cannot handle `file`, its time is extrapolated from runs made in the same minutes.
 */
async function measure(
  file: GenerateResult,
  reps: number,
  log: (s: string) => void,
  reference?: GenerateResult,
): Promise<Measured> {
  const raw = Object.fromEntries(TASKS.map((t) => [t, [] as ChildResult<unknown>[]])) as Record<
    Task,
    ChildResult<unknown>[]
  >;
  const ref: ChildResult<unknown>[] = [];
  const show = (name: string, r: number, res: ChildResult<unknown>) =>
    log(
      `  ${name.padEnd(10)} rep ${r + 1}/${reps}: ${res.ok ? `${fmtMs(res.ms)} wall, ${fmtMs(res.cpuMs ?? NaN)} CPU` : `FAILED (${res.error?.slice(0, 120)})`}, peak RSS ${fmtBytes(res.maxRssBytes)}`,
    );
  for (let r = 0; r < reps; r++) {
    for (const task of TASKS) {
      const res = runChild<unknown>('foundation', task, { file: file.path });
      raw[task].push(res);
      show(task, r, res);
      if (task === 'naive' && reference) {
        const res1 = runChild<unknown>('foundation', 'naive', { file: reference.path });
        ref.push(res1);
        show('naive (1x)', r, res1);
      }
    }
  }
  const out = Object.fromEntries(TASKS.map((t) => [t, summarize(raw[t])])) as Measured;
  if (reference) out.naiveReference = summarize(ref);
  return out;
}

const LABELS: Record<Task, string> = {
  naive: 'naive: readFile + split + JSON.parse (lower bar)',
  index: 'line index (streaming)',
  'first-peek': 'first conversation (read first line only)',
  'first-open': 'first conversation via JsonlFile.open (full index first)',
  page: 'page of 50 conversations, mid-file (open + read)',
  validate: 'full validation (zod, every line)',
  stats: '`simlens stats` pass',
};

/** The naive bar a scale is compared with: wall and CPU time, measured or extrapolated. */
interface Bar {
  ms: number;
  cpuMs: number;
  note: string;
}

function table(file: GenerateResult, s: Measured, bar: Bar): string {
  const rows = TASKS.map((t) => {
    const v = s[t];
    const naiveRow = t === 'naive';
    const time = v.ok ? fmtMs(v.ms) : `failed after ${fmtMs(v.ms)}`;
    const extra = t === 'page' && v.pageMs !== undefined ? ` (the 50-line read + parse alone: ${fmtMs(v.pageMs)})` : '';
    const ratio = (a: number, b: number) => (naiveRow ? (v.ok ? '1.00x' : bar.note) : v.ok ? fmtRatio(a / b) : '-');
    return `| ${LABELS[t]} | ${time}${extra} | ${ratio(v.ms, bar.ms)} | ${v.ok ? fmtMs(v.cpuMs) : '-'} | ${naiveRow && !v.ok ? '-' : ratio(v.cpuMs, bar.cpuMs)} | ${fmtBytes(v.rss)} | ${(v.rss / file.bytes).toFixed(2)}x |`;
  });
  return [
    '| measurement | wall time (median) | vs naive | CPU time (median) | vs naive | peak RSS | RSS / file size |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** "1.7% wall / 2.0% CPU — met" for a ratio target. */
function verdict(ms: number, cpuMs: number, bar: Bar, limit: number): string {
  const w = ms / bar.ms;
  const c = cpuMs / bar.cpuMs;
  const met =
    w <= limit && c <= limit
      ? 'met'
      : w <= limit || c <= limit
        ? `met on ${w <= limit ? 'wall' : 'CPU'} time only`
        : 'NOT met';
  return `${fmtRatio(w)} wall / ${fmtRatio(c)} CPU — ${met}`;
}

/** Runs the benchmark, prints the tables and rewrites the `## Foundation` section of bench/RESULTS.md. */
export async function run(args: string[] = []): Promise<void> {
  const log = (s: string) => console.log(s);
  const skip10 = args.includes('--no-10x');
  const t0 = performance.now();
  const f1 = await ensureBenchFile(1, log);
  const f10 = skip10 ? undefined : await ensureBenchFile(10, log);
  log(`files ready in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const loadBefore = loadInfo();
  const idle = runChild<unknown>('foundation', 'idle', { file: f1.path });
  log(`1x: ${fmtBytes(f1.bytes)}`);
  const s1 = await measure(f1, 7, log);
  const bar1: Bar = { ms: s1.naive.ms, cpuMs: s1.naive.cpuMs, note: '1.00x' };

  const checks: string[] = [];
  checks.push(
    `- First conversation < 5% of the naive full parse (1x): reading the first line only ${verdict(s1['first-peek'].ms, s1['first-peek'].cpuMs, bar1, 0.05)}; building the whole index first ${verdict(s1['first-open'].ms, s1['first-open'].cpuMs, bar1, 0.05)}.`,
  );
  checks.push(
    `- Full validation within 1.5x of the naive full parse (1x): ${verdict(s1.validate.ms, s1.validate.cpuMs, bar1, 1.5)}.`,
  );

  let section10 = '';
  if (f10) {
    log(`10x: ${fmtBytes(f10.bytes)}`);
    const s10 = await measure(f10, 3, log, f1);
    const scale = f10.bytes / f1.bytes;
    const ref = s10.naiveReference?.ok ? s10.naiveReference : s1.naive;
    const bar10: Bar = s10.naive.ok
      ? { ms: s10.naive.ms, cpuMs: s10.naive.cpuMs, note: '1.00x' }
      : {
          ms: ref.ms * scale,
          cpuMs: ref.cpuMs * scale,
          note: `failed; bar = 1x naive from the same rounds x ${scale.toFixed(2)} = ${fmtMs(ref.ms * scale)} wall, ${fmtMs(ref.cpuMs * scale)} CPU (extrapolated)`,
        };
    const peak = Math.max(s10.index.rss, s10.validate.rss, s10.stats.rss, s10['first-open'].rss, s10.page.rss);
    checks.push(
      `- Peak memory < 1.5x the file size (10x, ${fmtBytes(f10.bytes)}): the largest engine peak is ${fmtBytes(peak)} = ${(peak / f10.bytes).toFixed(3)}x — ${peak / f10.bytes < 1.5 ? 'met' : 'NOT met'}. The naive approach peaked at ${fmtBytes(s10.naive.rss)} before failing.`,
    );
    checks.push(
      `- Full validation within 1.5x of naive (10x${s10.naive.ok ? '' : ', against the extrapolated bar'}): ${verdict(s10.validate.ms, s10.validate.cpuMs, bar10, 1.5)}.`,
    );
    checks.push(
      `- First conversation < 5% (10x): first line only ${verdict(s10['first-peek'].ms, s10['first-peek'].cpuMs, bar10, 0.05)}; whole index first ${verdict(s10['first-open'].ms, s10['first-open'].cpuMs, bar10, 0.05)}.`,
    );
    section10 = [
      `### 10x: ${fmtBytes(f10.bytes)}, ${f10.conversations.toLocaleString('en-US')} conversations, ${f10.turns.toLocaleString('en-US')} turns (median of 3)`,
      '',
      table(f10, s10, bar10),
      '',
      s10.naive.ok
        ? ''
        : `The naive approach fails on this file (\`${s10.naive.error}\`: the file does not fit in one JavaScript string). The bar is the 1x naive run made in the same rounds (${fmtMs(ref.ms)} wall, ${fmtMs(ref.cpuMs)} CPU), scaled by file size.\n`,
    ].join('\n');
  }

  const body = [
    `Machine: ${machineInfo()}. Date: ${new Date().toISOString().slice(0, 10)}. ${loadBefore} at the start, ${loadInfo()} at the end: other jobs share this machine, so wall times are noisy; naive and engine runs are interleaved so they see the same load, and CPU time (user + system of the measuring process) is given as the steadier figure.`,
    '',
    `Reproduce: \`npm run bench\` (all areas) or \`npm run build && node --expose-gc dist/bench.js foundation\` (add \`-- --no-10x\` to skip the 1.5 GB file). Data: \`bench/gen.ts\`, deterministic ConvApparel-shaped conversations (12 items per turn, ~500-character descriptions), written to \`bench/data/\` on first use. Each measurement runs in a fresh child process; times are measured inside it (no Node start-up); "peak RSS" is the child's \`maxRSS\` (an idle Node process: ${fmtBytes(idle.maxRssBytes)}).`,
    '',
    `### 1x: ${fmtBytes(f1.bytes)}, ${f1.conversations.toLocaleString('en-US')} conversations, ${f1.turns.toLocaleString('en-US')} turns (median of 7)`,
    '',
    table(f1, s1, bar1),
    '',
    section10,
    '### Targets',
    '',
    ...checks,
    '',
    'Reading the first conversation does not need the index (`readFirstLines`), so a viewer can show it while the index of a large file is still being built; `JsonlFile.open` builds the whole index first.',
  ].join('\n');
  console.log(`\n${body}\n`);
  const path = updateResultsSection('Foundation', body);
  log(`written to ${path}`);
}
