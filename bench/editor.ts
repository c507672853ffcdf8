/**
 * Conversation-editor benchmark on the ConvApparel-scale 1x and 10x files (bench/gen.ts), host
 * side, each measurement in a fresh child process:
 * - open to first conversation ready: line index + first page of 100 summaries + the first
 *   conversation parsed, i.e. everything the host must do before the webview can render;
 *   plus the size of the messages posted to the webview for it;
 * - the background summary pass over every line, host heap and peak RSS after it;
 * - a facet filter over all conversations, and a text search over all utterances (in-memory
 *   utterance cache, and the raw on-disk scan used beyond the cache budget);
 * - an annotation + save of one line (rewrite through the engine's writer).
 * Webview-side figures (first render in a real VS Code, DOM nodes and JS heap) are the
 * `first-render` area (bench/firstRender.ts).
 */
import { copyFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBenchFile, type GenerateResult } from './gen';
import {
  fmtBytes,
  fmtMs,
  loadInfo,
  machineInfo,
  median,
  runChild,
  updateResultsSection,
  type ChildResult,
} from './harness';
import { ConversationDocumentModel } from '../src/core/document';
import { PAGE_SIZE } from '../src/shared/editorProtocol';

interface OpenResult {
  indexMs: number;
  pageMs: number;
  conversationMs: number;
  readyMs: number;
  pageMessageBytes: number;
  conversationMessageBytes: number;
}

interface PassResult {
  summarizeMs: number;
  heapAfterBytes: number;
  summaryIndexBytes: number;
  facetFilterMs: number;
  facetMatches: number;
  searchCachedMs: number;
  searchRawMs: number;
  searchMatches: number;
  searchUtterances: number;
  pageMidMs: number;
}

interface SaveResult {
  annotateMs: number;
  saveMs: number;
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** Child tasks (run in fresh processes by `runChild`). */
export async function child(task: string, payload: unknown): Promise<unknown> {
  const { file } = payload as { file: string };
  switch (task) {
    case 'open': {
      const t0 = performance.now();
      const doc = await ConversationDocumentModel.open(file);
      const t1 = performance.now();
      const view = await doc.filter({});
      const rows = await doc.page(view.lines, 0, PAGE_SIZE);
      const t2 = performance.now();
      const conv = await doc.readConversation(rows[0].line);
      const t3 = performance.now();
      const result: OpenResult = {
        indexMs: t1 - t0,
        pageMs: t2 - t1,
        conversationMs: t3 - t2,
        readyMs: t3 - t0,
        pageMessageBytes: Buffer.byteLength(JSON.stringify({ type: 'page', rows })),
        conversationMessageBytes: Buffer.byteLength(
          JSON.stringify({ type: 'conversation', conversation: conv.conversation }),
        ),
      };
      await doc.close();
      return result;
    }
    case 'pass': {
      const doc = await ConversationDocumentModel.open(file);
      const t0 = performance.now();
      await doc.summarizeAll();
      const summarizeMs = performance.now() - t0;
      gc();
      const heapAfterBytes = process.memoryUsage().heapUsed;
      const times = (n: number, f: () => Promise<unknown>) => {
        const out: number[] = [];
        return (async () => {
          for (let i = 0; i < n; i++) {
            const s = performance.now();
            await f();
            out.push(performance.now() - s);
          }
          return median(out);
        })();
      };
      let facetMatches = 0;
      const facetFilterMs = await times(9, async () => {
        facetMatches = (await doc.filter({ condition: 'bad', outcome: 'accepted', validity: 'valid' })).lines.length;
      });
      let searchMatches = 0;
      let searchUtterancesCount = 0;
      const searchCachedMs = await times(9, async () => {
        const r = await doc.filter({ text: 'waterproof' });
        searchMatches = r.lines.length;
        searchUtterancesCount = r.search?.utterances ?? 0;
      });
      const all = doc.summaries.filterLines({});
      // The same search with no utterance cache: the on-disk scan used beyond the cache budget.
      const raw = await ConversationDocumentModel.open(file, { utteranceCacheChars: 0 });
      await raw.summarizeAll();
      const searchRawMs = await times(3, async () => {
        const r = await raw.filter({ text: 'waterproof' });
        if (r.lines.length !== searchMatches)
          throw new Error(`raw search found ${r.lines.length}, cached ${searchMatches}`);
      });
      await raw.close();
      const mid = Math.floor(all.length / 2);
      const pageMidMs = await times(9, () => doc.page(all, mid, PAGE_SIZE));
      const result: PassResult = {
        summarizeMs,
        heapAfterBytes,
        summaryIndexBytes: doc.summaries.approximateBytes(),
        facetFilterMs,
        facetMatches,
        searchCachedMs,
        searchRawMs,
        searchMatches,
        searchUtterances: searchUtterancesCount,
        pageMidMs,
      };
      await doc.close();
      return result;
    }
    case 'save': {
      // Works on a copy so the bench file stays as generated.
      const copy = join(tmpdir(), `simlens-editor-bench-${process.pid}.jsonl`);
      copyFileSync(file, copy);
      try {
        const doc = await ConversationDocumentModel.open(copy);
        const line = Math.floor(doc.lineCount / 2);
        const t0 = performance.now();
        await doc.annotate({ line, turn: 0, speaker: 'user', annotator: 'bench', acts: ['inform_preference'] });
        const t1 = performance.now();
        await doc.save();
        const t2 = performance.now();
        await doc.close();
        const result: SaveResult = { annotateMs: t1 - t0, saveMs: t2 - t1 };
        return result;
      } finally {
        rmSync(copy, { force: true });
      }
    }
    default:
      throw new Error(`unknown editor task ${task}`);
  }
}

function fmtKB(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

function med<T>(rs: ChildResult<T>[], pick: (v: T) => number): number {
  return median(rs.filter((r) => r.ok).map((r) => pick(r.value as T)));
}

function failures(rs: ChildResult<unknown>[]): string[] {
  return rs.filter((r) => !r.ok).map((r) => r.error ?? 'failed');
}

interface ScaleResults {
  file: GenerateResult;
  open: ChildResult<OpenResult>[];
  pass: ChildResult<PassResult>[];
  save: ChildResult<SaveResult>[];
}

export async function run(args: string[] = []): Promise<void> {
  const log = (s: string) => console.log(s);
  const scales: Array<1 | 10> = args.includes('--no-10x') ? [1] : [1, 10];
  const startLoad = loadInfo();
  const results: ScaleResults[] = [];
  for (const scale of scales) {
    const file = await ensureBenchFile(scale, log);
    const reps = scale === 1 ? 5 : 3;
    const r: ScaleResults = { file, open: [], pass: [], save: [] };
    for (let i = 0; i < reps; i++) {
      const o = runChild<OpenResult>('editor', 'open', { file: file.path });
      r.open.push(o);
      log(`  ${scale}x open rep ${i + 1}: ${o.ok ? `${fmtMs(o.value!.readyMs)} ready` : o.error}`);
    }
    for (let i = 0; i < Math.min(reps, 3); i++) {
      const p = runChild<PassResult>('editor', 'pass', { file: file.path });
      r.pass.push(p);
      log(
        `  ${scale}x pass rep ${i + 1}: ${p.ok ? `summaries ${fmtMs(p.value!.summarizeMs)}, facet ${fmtMs(p.value!.facetFilterMs)}, search ${fmtMs(p.value!.searchCachedMs)} / raw ${fmtMs(p.value!.searchRawMs)}` : p.error}`,
      );
    }
    const s = runChild<SaveResult>('editor', 'save', { file: file.path });
    r.save.push(s);
    log(`  ${scale}x save: ${s.ok ? `${fmtMs(s.value!.saveMs)}` : s.error}`);
    results.push(r);
  }

  const rows: string[] = [];
  for (const r of results) {
    const label = `${r.file.bytes >= 1e9 ? (r.file.bytes / 1e9).toFixed(2) + ' GB' : (r.file.bytes / 1e6).toFixed(1) + ' MB'}, ${r.file.conversations.toLocaleString('en-US')} conversations`;
    const openRss = Math.max(...r.open.map((x) => x.maxRssBytes).filter(Number.isFinite));
    const passRss = Math.max(...r.pass.map((x) => x.maxRssBytes).filter(Number.isFinite));
    rows.push(
      `| ${label} | ${fmtMs(med(r.open, (v) => v.readyMs))} (index ${fmtMs(med(r.open, (v) => v.indexMs))} + page ${fmtMs(med(r.open, (v) => v.pageMs))} + conversation ${fmtMs(med(r.open, (v) => v.conversationMs))}) | ${fmtBytes(openRss)} | ${fmtMs(med(r.pass, (v) => v.summarizeMs))} | ${fmtMs(med(r.pass, (v) => v.facetFilterMs))} (${med(r.pass, (v) => v.facetMatches)} matches) | ${fmtMs(med(r.pass, (v) => v.searchCachedMs))} / ${fmtMs(med(r.pass, (v) => v.searchRawMs))} (${med(r.pass, (v) => v.searchMatches)} conv., ${med(r.pass, (v) => v.searchUtterances)} utt.) | ${fmtMs(med(r.pass, (v) => v.pageMidMs))} | ${fmtBytes(med(r.pass, (v) => v.heapAfterBytes))} heap (summary index ≈ ${fmtBytes(med(r.pass, (v) => v.summaryIndexBytes))}), peak RSS ${fmtBytes(passRss)} | ${fmtMs(med(r.save, (v) => v.saveMs))} |`,
    );
  }
  const one = results[0];
  const ready1 = med(one.open, (v) => v.readyMs);
  const facet1 = med(one.pass, (v) => v.facetFilterMs);
  const search1 = med(one.pass, (v) => v.searchCachedMs);
  const msgPage = med(one.open, (v) => v.pageMessageBytes);
  const msgConv = med(one.open, (v) => v.conversationMessageBytes);
  const failed = results.flatMap((r) => [...failures(r.open), ...failures(r.pass), ...failures(r.save)]);

  const body = `Machine: ${machineInfo()}. Date: ${new Date().toISOString().slice(0, 10)}. ${startLoad} at the start, ${loadInfo()} at the end (shared machine: wall times are noisy).

Reproduce: \`npm run build && node --expose-gc dist/bench.js editor\` (\`-- --no-10x\` skips the 1.47 GB file). Host side = the extension host's work (\`ConversationDocumentModel\`, \`src/core/document\`), each measurement in a fresh process; medians of ${results.map((r) => `${r.open.length} (${r.file.conversations >= 40000 ? '10x' : '1x'})`).join(', ')} runs.

| file | open → first conversation ready (host) | peak RSS (open) | summary pass (background) | facet filter, all conversations | text search: cached / on-disk scan | page of 100 rows, mid-file (summaries ready) | memory after summaries | annotate + save one line |
|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

The webview receives ${fmtKB(msgPage)} for a page of ${PAGE_SIZE} summaries and ${fmtKB(msgConv)} for the first conversation (1x), whatever the file size: it never holds more than 20 pages (2,000 summaries) and one conversation, and renders only the visible list rows.

The first render in a real VS Code (webview included, against an empty webview) is in the section "Editor first render (real VS Code)" (\`node dist/bench.js first-render\`).

Targets (1x): host ready for the first render in ${fmtMs(ready1)} (the page's share and VS Code's are in the first-render section). Filters < 300 ms: facet filter ${fmtMs(facet1)}, text search ${fmtMs(search1)} (cached utterances; the on-disk scan used beyond the 48M-character cache budget takes the time shown above): ${facet1 < 300 && search1 < 300 ? 'met' : 'NOT met'}.${failed.length ? `\n\nFailures: ${failed.join('; ')}` : ''}`;
  updateResultsSection('Editor', body);
  log('\nwrote the Editor section of bench/RESULTS.md');
}
