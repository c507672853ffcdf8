/**
 * Exporters: canonical SimLens conversations out to the formats other tools read.
 *
 * - `canonical`          SimLens JSONL, one conversation per line (what `simlens convert` writes by default).
 * - `dialoguekit`        DialogueKit / UserSimCRS annotated dialogues: one JSON array (dialoguekit.ts).
 * - `convapparel-jsonl`  ConvApparel release fields, one conversation per line (convapparel.ts).
 *
 * An exporter is a streaming writer: `begin()`, then `conversation(c)` per conversation, then
 * `end()`, each returning the text to append, so files of any size are written with flat memory.
 */
import type { Conversation } from '../model';
import { toConvApparelLine } from './convapparel';
import { toDialogueKitDialogue, type DialogueKitExportCounts, type DialogueKitExportOptions } from './dialoguekit';

export { toConvApparelLine } from './convapparel';
export { toDialogueKitDialogue, type DialogueKitExportCounts } from './dialoguekit';

export const EXPORT_FORMATS: readonly string[] = ['canonical', 'dialoguekit', 'convapparel-jsonl'];

export const EXPORT_DESCRIPTIONS: Readonly<Record<string, string>> = {
  canonical: 'SimLens JSONL, one conversation per line (default)',
  dialoguekit: 'DialogueKit / UserSimCRS annotated dialogues (one JSON array; acts from --annotator)',
  'convapparel-jsonl': 'ConvApparel release fields, one conversation per line',
};

const EXPORT_ALIASES: Readonly<Record<string, string>> = {
  simlens: 'canonical',
  jsonl: 'canonical',
  usersimcrs: 'dialoguekit',
  convapparel: 'convapparel-jsonl',
};

/** Resolves an export format name (case-insensitive, aliases allowed); throws listing the known ones. */
export function normalizeExportFormat(name: string): string {
  const key = name.trim().toLowerCase();
  if (EXPORT_FORMATS.includes(key)) return key;
  const alias = EXPORT_ALIASES[key];
  if (alias) return alias;
  throw new Error(`unknown output format "${name}"; known formats: ${EXPORT_FORMATS.join(', ')}`);
}

/** A streaming writer for one output format. */
export interface Exporter {
  begin(): string;
  conversation(conv: Conversation): string;
  end(): string;
  /** DialogueKit only: what was written (dialogues, utterances, acts, slot values). */
  counts?: DialogueKitExportCounts;
}

/** Makes the writer for `format` (already normalized). */
export function createExporter(format: string, opts: DialogueKitExportOptions = {}): Exporter {
  if (format === 'canonical') return { begin: () => '', conversation: (c) => JSON.stringify(c) + '\n', end: () => '' };
  if (format === 'convapparel-jsonl')
    return { begin: () => '', conversation: (c) => JSON.stringify(toConvApparelLine(c)) + '\n', end: () => '' };
  if (format === 'dialoguekit') {
    const counts: DialogueKitExportCounts = { dialogues: 0, utterances: 0, acts: 0, slotValues: 0 };
    return {
      counts,
      begin: () => '[',
      conversation(c) {
        const first = counts.dialogues === 0;
        const text = JSON.stringify(toDialogueKitDialogue(c, opts, counts), null, 2).replace(/\n/g, '\n  ');
        return `${first ? '' : ','}\n  ${text}`;
      },
      end: () => (counts.dialogues === 0 ? ']\n' : '\n]\n'),
    };
  }
  throw new Error(`internal: no exporter for ${format}`);
}
