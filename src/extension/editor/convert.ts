/**
 * Conversion of any importable file to canonical conversation JSONL beside it, for "SimLens: Convert
 * to Conversation JSONL" and the editor's "Convert and open" button: the editor's wording around
 * core's convertFile, the one conversion `simlens convert` runs too (streamed, every conversation
 * checked against the schema, written atomically with fsync). No `vscode` import, so it is testable
 * in plain node.
 */
import { basename } from 'node:path';
import { sniffFile } from '../../core/importers';
import { convertFile } from '../../core/importers/convert';
import { conversationJsonlAdvice } from '../../core/importers/sniff';
import { FORMAT_LABELS, importSummary } from '../../core/importers/summary';
import type { ImportPreview } from '../../shared/editorProtocol';

interface Conversion {
  /** The format read (detected from the content). */
  format: string;
  count: number;
  warnings: number;
  /** How many notes (what else the importer read) the summary lists. */
  notes: number;
  /** Where the JSONL goes (or went). */
  target: string;
  /** Headline (one line) and full text (counts, notes, warnings with file, line and field). */
  summary: { headline: string; text: string };
  written: boolean;
}

/** `<name>.conv.jsonl` beside `fsPath` (never the input itself). */
export function conversionTarget(fsPath: string): string {
  const target = fsPath.replace(/(\.conv|\.sim)?\.(jsonl|json|csv|tsv)$/i, '') + '.conv.jsonl';
  return target === fsPath ? fsPath.replace(/\.jsonl$/i, '.converted.conv.jsonl') : target;
}

/**
 * Converts `fsPath` (format detected from its content) and, unless `write` is false, writes the
 * conversations to `conversionTarget(fsPath)` atomically. `origin` names the input in the summary.
 */
export async function convertToJsonl(
  fsPath: string,
  origin: string,
  opts: { write?: boolean } = {},
): Promise<Conversion> {
  const target = conversionTarget(fsPath);
  const write = opts.write !== false;
  const discard = { write: (): void => undefined };
  const result = await convertFile(fsPath, write ? { file: target } : discard, { origin });
  const summary = importSummary(origin, {
    format: result.format,
    count: result.count,
    warnings: result.warnings,
    notes: result.notes,
  });
  return {
    format: result.format,
    count: result.count,
    warnings: result.warnings.length,
    notes: result.notes?.length ?? 0,
    target,
    summary,
    written: write,
  };
}

/**
 * For the editor: undefined when `fsPath` is conversation JSONL (or not conversation data at all:
 * line-by-line validation explains those); otherwise what converting it would give, or why the
 * import fails. Reads the whole file, without writing anything.
 */
export async function importPreview(fsPath: string): Promise<ImportPreview | undefined> {
  const name = basename(fsPath);
  let sniff;
  try {
    sniff = await sniffFile(fsPath);
  } catch {
    return undefined;
  }
  if (sniff.format === undefined || conversationJsonlAdvice(sniff, name) === undefined) return undefined;
  try {
    const c = await convertToJsonl(fsPath, name, { write: false });
    return { format: c.format, headline: c.summary.headline, text: c.summary.text, target: basename(c.target) };
  } catch (e) {
    const label = FORMAT_LABELS[sniff.format] ?? sniff.format;
    return {
      format: sniff.format,
      headline: `${label} (detected)`,
      text: '',
      target: basename(conversionTarget(fsPath)),
      error: (e as Error).message,
    };
  }
}
