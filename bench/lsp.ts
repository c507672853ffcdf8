/**
 * Language-server benchmark on the 1x ConvApparel-scale file:
 * - full diagnostics of an open document (every line parsed and validated once);
 * - re-validation after a one-line edit (apply the LSP change, refresh the cache, gather all
 *   diagnostics again), median of many edits; target under 50 ms;
 * - diagnostics of the same file read from disk by URI (the path used for files over 50 MB,
 *   which VS Code does not sync to extensions).
 */
import { readFile } from 'node:fs/promises';
import { ensureBenchFile } from './gen';
import { LineDocument } from '../src/core/lsp/lineDocument';
import { DocumentAnalysis } from '../src/core/lsp/analysis';
import { validateFile } from '../src/core/jsonl';

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export interface LspBenchResult {
  fileBytes: number;
  lines: number;
  openMs: number;
  fullDiagnosticsMs: number;
  editRevalidateMedianMs: number;
  editRevalidateMaxMs: number;
  linesRevalidatedPerEdit: number;
  diskValidationMs: number;
}

export async function runLspBench(log: (s: string) => void = console.log): Promise<LspBenchResult> {
  const file = await ensureBenchFile(1, log);
  const t0 = performance.now();
  const text = await readFile(file.path, 'utf8');
  const doc = new LineDocument('file:///bench.conv.jsonl', 1, text);
  const analysis = new DocumentAnalysis(doc);
  const t1 = performance.now();
  const first = analysis.diagnostics();
  const t2 = performance.now();
  if (first.length !== 0) throw new Error(`bench file should be valid, got ${first.length} diagnostics`);

  const samples: number[] = [];
  let revalidated = 0;
  for (let k = 0; k < 41; k++) {
    const line = (k * 97) % (doc.lineCount - 1);
    const lineText = doc.line(line);
    const at = lineText.indexOf('"user_utterance":"') + '"user_utterance":"'.length;
    const s = performance.now();
    const edit = doc.apply({ range: { start: { line, character: at }, end: { line, character: at } }, text: 'x' });
    analysis.update(edit);
    const diags = analysis.diagnostics();
    samples.push(performance.now() - s);
    revalidated = Math.max(revalidated, analysis.lastRevalidated);
    if (diags.length !== 0) throw new Error('edit should keep the file valid');
  }

  const d0 = performance.now();
  const report = await validateFile(file.path);
  const d1 = performance.now();
  if (report.errors.length !== 0) throw new Error('disk validation found errors in the bench file');

  return {
    fileBytes: file.bytes,
    lines: doc.lineCount,
    openMs: t1 - t0,
    fullDiagnosticsMs: t2 - t1,
    editRevalidateMedianMs: median(samples),
    editRevalidateMaxMs: Math.max(...samples),
    linesRevalidatedPerEdit: revalidated,
    diskValidationMs: d1 - d0,
  };
}

export async function run(): Promise<void> {
  const r = await runLspBench();
  console.log('## Language server (1x file)');
  console.log(`file: ${(r.fileBytes / 1e6).toFixed(1)} MB, ${r.lines} lines`);
  console.log(`read + split into lines: ${r.openMs.toFixed(0)} ms`);
  console.log(`full diagnostics: ${r.fullDiagnosticsMs.toFixed(0)} ms`);
  console.log(
    `one-line edit -> diagnostics: median ${r.editRevalidateMedianMs.toFixed(2)} ms, max ${r.editRevalidateMaxMs.toFixed(2)} ms (target < 50 ms), ${r.linesRevalidatedPerEdit} line(s) re-validated`,
  );
  console.log(`validation from disk (files over 50 MB): ${r.diskValidationMs.toFixed(0)} ms`);
}
