/**
 * Loading conversation populations for the metrics. SimLens/ConvApparel JSONL is streamed with the
 * JSONL engine (invalid lines are reported with their line number and skipped); every other format
 * the importers know (ConvApparel release document, DialogueKit / UserSimCRS JSON) goes through
 * `importFile`.
 */
import { forEachLine, parseLineBytes } from '../jsonl';
import { detectFormat, importFile } from '../importers';
import type { Conversation } from '../model';

/** A loaded population. */
export interface Population {
  /** The file as the user named it. */
  file: string;
  conversations: Conversation[];
  /** 1-based line numbers of conversations (JSONL input only), parallel to `conversations`. */
  lines?: number[];
  /** Lines that could not be used (invalid JSON or schema), skipped: "file:line:column: message". */
  problems: string[];
  /** Importer warnings ("file:line: path: message"); see the importer for what each one means. */
  warnings: string[];
}

/**
 * Reads every conversation of `path`. `display` is the name used in messages and reports
 * (defaults to the path). Throws on unreadable or unrecognised files; invalid lines become
 * `problems`.
 */
export async function loadPopulation(path: string, display = path): Promise<Population> {
  const format = await detectFormat(path);
  if (format === 'canonical' || format === 'convapparel-jsonl') {
    const conversations: Conversation[] = [];
    const lines: number[] = [];
    const problems: string[] = [];
    await forEachLine(path, (bytes, i) => {
      const parsed = parseLineBytes(bytes, i);
      if (parsed.kind === 'valid') {
        conversations.push(parsed.conversation);
        lines.push(i + 1);
      } else if (parsed.kind === 'invalid') {
        const e = parsed.errors[0];
        problems.push(`${display}:${i + 1}:${e?.column ?? 1}: ${e?.message ?? 'invalid line'}`);
      }
    });
    return { file: display, conversations, lines, problems, warnings: [] };
  }
  const r = await importFile(path);
  return {
    file: display,
    conversations: r.conversations,
    problems: [],
    warnings: r.warnings.map(
      (w) => `${display}${w.line !== undefined ? `:${w.line}` : ''}: ${w.path ? `${w.path}: ` : ''}${w.message}`,
    ),
  };
}
