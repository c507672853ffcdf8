/**
 * A readable summary of an import, for the VS Code "Convert to Conversation JSONL" command (and
 * anything else that shows an import to a person): the format and whether it was detected or
 * forced, the counts, what else was read, and the warnings with file, line and field.
 */
import { escapeControl } from '../text/terminal';
import { formatWarning, type ImportWarning } from './index';

/** Display names of the import formats. */
export const FORMAT_LABELS: Readonly<Record<string, string>> = {
  canonical: 'SimLens JSONL',
  convapparel: 'ConvApparel release document',
  'convapparel-jsonl': 'ConvApparel JSONL',
  dialoguekit: 'DialogueKit / UserSimCRS annotated dialogues',
  'ab-redial': 'AB-ReDial rated dialogues (CSV)',
  redial: 'ReDial release (JSONL)',
  inspired: 'INSPIRED dialogs (TSV)',
  iard: 'IARD release (JSON)',
};

interface ImportSummaryInput {
  format: string;
  count: number;
  warnings: readonly ImportWarning[];
  notes?: readonly string[];
  /** True when the format was forced rather than detected. */
  forced?: boolean;
}

/** One line of untrusted text: control and bidi characters escaped as everywhere (escapeControl), a line feed as a visible `\n`. */
function printable(text: string): string {
  return escapeControl(text).replace(/\n/g, '\\n');
}

/**
 * The summary: a one-line headline (for a notification) and the full text (for an output
 * channel): headline, notes, then up to `maxWarnings` warnings and how many more there are.
 */
export function importSummary(
  origin: string,
  r: ImportSummaryInput,
  maxWarnings = 50,
): { headline: string; text: string } {
  const label = FORMAT_LABELS[r.format] ?? r.format;
  const n = r.warnings.length;
  const headline = `${label} (${r.forced ? 'forced' : 'detected'}): ${r.count} conversation${r.count === 1 ? '' : 's'}${n ? `, ${n} warning${n === 1 ? '' : 's'}` : ', no warnings'}`;
  const lines = [
    `${printable(origin)}`,
    `  format: ${label} [${r.format}], ${r.forced ? 'forced' : 'detected from the content'}`,
    `  conversations: ${r.count}`,
  ];
  for (const note of r.notes ?? []) lines.push(`  note: ${printable(note)}`);
  if (n) {
    lines.push(`  ${warningsByFieldLine(r.warnings)}`);
    lines.push(`  warnings (${n}${n > maxWarnings ? `, first ${maxWarnings} shown` : ''}):`);
    for (const w of r.warnings.slice(0, maxWarnings)) lines.push(`    ${printable(formatWarning(origin, w))}`);
    if (n > maxWarnings) lines.push(`    … and ${n - maxWarnings} more`);
  }
  return { headline, text: lines.join('\n') };
}

/**
 * How many warnings name each field, most first: the path with its indices and ids left out
 * (`[52].conversation[9].dialogue_acts[0].slot_values[0]` -> `conversation[].dialogue_acts[].slot_values[]`,
 * `["35"].dialogue_info.S1.role` -> `dialogue_info.S1.role`); warnings without a path count as
 * `(whole line or row)`. The CLI and the VS Code summary print it as one line, so what could not
 * be carried is visible without reading every warning.
 */
function warningsByField(warnings: readonly ImportWarning[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const w of warnings) {
    const field = w.path
      ? w.path.replace(/\[[^\]]*\]/g, '[]').replace(/^(\[\])+\.?/, '') || '(record)'
      : '(whole line or row)';
    counts.set(field, (counts.get(field) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

/** `warnings by field: metadata.format 99, (whole line or row) 2`; '' without warnings. */
export function warningsByFieldLine(warnings: readonly ImportWarning[]): string {
  const by = warningsByField(warnings);
  if (by.length === 0) return '';
  return `warnings by field: ${by.map(([f, n]) => `${printable(f)} ${n}`).join(', ')}`;
}
