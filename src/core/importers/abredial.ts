/**
 * AB-ReDial (`annotated_dialogues.csv`): one row per (conversation, rater). Columns: `ConvId`,
 * `utterance0..N` (each `ROLE<TAB>text`, ROLE = USER or SYSTEM; a few cells use spaces or an em
 * space instead of the tab), then the dialogue-level ratings `understanding, task-completion,
 * interest-arousal, efficiency, dialogue-overall` and `justification-text`. The turn file
 * (`annotated_turns.csv`) has numbered rating groups between the utterances instead
 * (`relevance1, interestingness1, overall1` after utterance3, ...): they are kept under their
 * column names, and `metadata.rating_segments` says which utterance columns each group follows
 * (`{"1": ["utterance0", "utterance3"], ...}`). Any other column is kept as a rating too.
 *
 * Rows are grouped into conversations by ConvId *and* utterance sequence: in the published file a
 * few ConvIds name two different dialogues, so the second one gets the id `<ConvId>#2` (with a
 * warning). Each row becomes a conversation-level annotation: annotator `rater:<row>` (the file has
 * no rater ids; `<row>` = 1-based data row), `fields` = the ratings as numbers (empty cells are
 * left out), `note` = the justification, plus `row` and `line` to find it in the file.
 */
import type { Conversation, ConversationAnnotation } from '../model';
import { ImportError, type ImportWarning, preview } from './errors';
import { parseCsv } from './csv';

type CsvRecord = ReturnType<typeof parseCsv>['records'][number];
import { buildTurns, type SourceUtterance } from './turns';

/** The rating columns of AB-ReDial, in file order. */
const AB_REDIAL_RATINGS = [
  'understanding',
  'task-completion',
  'interest-arousal',
  'efficiency',
  'dialogue-overall',
] as const;
const AB_REDIAL_JUSTIFICATION = 'justification-text';

const ROLE = /^(USER|SYSTEM)(?:\t|[\s\u2003]+|$)([\s\S]*)$/i;

/** True when a CSV header row looks like AB-ReDial. */
export function isAbRedialHeader(fields: readonly string[]): boolean {
  return fields.some((f) => f.trim() === 'ConvId') && fields.some((f) => /^utterance\d+$/.test(f.trim()));
}

interface Group {
  id: string;
  convId: string;
  key: string;
  utterances: SourceUtterance[];
  annotations: ConversationAnnotation[];
  rows: number[];
}

/** Where things are in an AB-ReDial header: the id, utterance, rating and justification columns. */
interface AbRedialLayout {
  names: string[];
  convCol: number;
  uttCols: number[];
  ratingCols: { name: string; col: number }[];
  /** The turn file (numbered rating groups between the utterances) rather than the dialogue file. */
  turnLevel: boolean;
  /** Turn file: which utterance columns each numbered rating group follows. */
  segments: Record<string, [string, string]>;
  justCol: number;
}

const isUtteranceColumn = (name: string): boolean => /^utterance\d+$/.test(name);

/** Reads the header row: the columns' roles, with a warning for each missing dialogue rating. */
function readLayout(header: CsvRecord, origin: string, warnings: ImportWarning[]): AbRedialLayout {
  const names = header.fields.map((f) => f.trim());
  const convCol = names.indexOf('ConvId');
  if (convCol === -1 || !isAbRedialHeader(names)) {
    throw new ImportError(
      origin,
      `expected an AB-ReDial CSV header with ConvId and utterance0, utterance1, ... columns; found "${preview(header.fields.join(','), 80)}"`,
      { line: header.line, column: 1 },
    );
  }
  const uttCols = names
    .map((name, col) => ({ col, m: /^utterance(\d+)$/.exec(name) }))
    .filter((x): x is { col: number; m: RegExpExecArray } => x.m !== null)
    .sort((a, b) => Number(a.m[1]) - Number(b.m[1]))
    .map((x) => x.col);
  // Every column that is not ConvId, an utterance or the justification is a rating: the dialogue
  // file's five, and the turn file's `relevance1, interestingness1, overall1, ...` (each group rates
  // the utterances since the previous group). None is left out.
  const ratingCols = names
    .map((name, col) => ({ name, col }))
    .filter(
      ({ name, col }) => col !== convCol && !isUtteranceColumn(name) && name !== AB_REDIAL_JUSTIFICATION && name !== '',
    );
  const turnLevel = ratingCols.some(
    (r) => /\D\d+$/.test(r.name) && !(AB_REDIAL_RATINGS as readonly string[]).includes(r.name),
  );
  if (!turnLevel) {
    for (const name of AB_REDIAL_RATINGS)
      if (!names.includes(name))
        warnings.push({
          line: header.line,
          message: `header has no "${name}" column; that rating is absent from this file`,
        });
  }
  return {
    names,
    convCol,
    uttCols,
    ratingCols,
    turnLevel,
    segments: turnLevel ? ratingSegments(names) : {},
    justCol: names.indexOf(AB_REDIAL_JUSTIFICATION),
  };
}

/** Turn file: the first and last utterance column before each numbered rating group. */
function ratingSegments(names: readonly string[]): Record<string, [string, string]> {
  const segments: Record<string, [string, string]> = {};
  let from: string | undefined;
  let last: string | undefined;
  for (const name of names) {
    if (isUtteranceColumn(name)) {
      from ??= name;
      last = name;
      continue;
    }
    const m = /\D(\d+)$/.exec(name);
    if (m && from !== undefined && last !== undefined && !(m[1] in segments)) {
      segments[m[1]] = [from, last];
      from = undefined;
    }
  }
  return segments;
}

/** One data row's place in the file, for warnings. */
interface RowAt {
  rec: CsvRecord;
  row: number;
  convId: string;
}

/** A row's utterances in column order (empty cells skipped, with a warning after a gap); undefined when a cell has no role. */
function readUtterances(
  { rec, row, convId }: RowAt,
  layout: AbRedialLayout,
  warnings: ImportWarning[],
): SourceUtterance[] | undefined {
  const utterances: SourceUtterance[] = [];
  let gap = false;
  for (const col of layout.uttCols) {
    const cell = rec.fields[col] ?? '';
    if (cell.trim() === '') {
      gap = true;
      continue;
    }
    const m = ROLE.exec(cell);
    if (!m) {
      warnings.push({
        line: rec.line,
        path: layout.names[col],
        message: `row ${row} (ConvId ${convId}): expected "USER<TAB>text" or "SYSTEM<TAB>text", found "${preview(cell)}"; row skipped`,
      });
      return undefined;
    }
    if (gap)
      warnings.push({
        line: rec.line,
        path: layout.names[col],
        message: `row ${row} (ConvId ${convId}): an empty utterance cell before this one; empty cells are skipped`,
      });
    gap = false;
    utterances.push({ speaker: m[1].toUpperCase() === 'USER' ? 'user' : 'assistant', text: m[2] });
  }
  if (utterances.length === 0)
    warnings.push({ line: rec.line, message: `row ${row} (ConvId ${convId}) has no utterances` });
  return utterances;
}

/** A row's ratings as the rater's annotation: numbers (text kept with a warning), empty cells left out. */
function readRatings(
  { rec, row, convId }: RowAt,
  layout: AbRedialLayout,
  warnings: ImportWarning[],
): ConversationAnnotation {
  const fields: Record<string, unknown> = {};
  for (const { name, col } of layout.ratingCols) {
    const raw = (rec.fields[col] ?? '').trim();
    if (raw === '') {
      warnings.push({
        line: rec.line,
        path: name,
        message: `row ${row} (ConvId ${convId}): rating "${name}" is empty; left out`,
      });
      continue;
    }
    const num = Number(raw);
    if (Number.isFinite(num)) fields[name] = num;
    else {
      fields[name] = raw;
      warnings.push({
        line: rec.line,
        path: name,
        message: `row ${row} (ConvId ${convId}): rating "${name}" is not a number ("${preview(raw)}"); kept as text`,
      });
    }
  }
  const annotation: ConversationAnnotation = { annotator: `rater:${row}`, fields };
  const just = layout.justCol === -1 ? '' : (rec.fields[layout.justCol] ?? '');
  if (just.trim() !== '') annotation.note = just;
  annotation['row'] = row;
  annotation['line'] = rec.line;
  return annotation;
}

/** Rows grouped into dialogues by ConvId and utterances; a second dialogue under one ConvId gets `<ConvId>#2`. */
class DialogueGroups {
  readonly groups: Group[] = [];
  private readonly byKey = new Map<string, Group>();
  private readonly variantsPerConvId = new Map<string, Group[]>();

  add({ rec, row, convId }: RowAt, utterances: SourceUtterance[], warnings: ImportWarning[]): Group {
    const key = `${convId}\u0000${utterances.map((u) => `${u.speaker}:${u.text}`).join('\u0001')}`;
    let g = this.byKey.get(key);
    if (!g) {
      const variants = this.variantsPerConvId.get(convId) ?? [];
      const id = variants.length === 0 ? convId : `${convId}#${variants.length + 1}`;
      if (variants.length > 0) {
        warnings.push({
          line: rec.line,
          path: 'ConvId',
          message:
            `ConvId ${convId} names ${variants.length + 1} different dialogues (row ${row} differs from row ` +
            `${variants[0].rows[0]}); this one is imported as "${id}"`,
        });
      }
      g = { id, convId, key, utterances, annotations: [], rows: [] };
      variants.push(g);
      this.variantsPerConvId.set(convId, variants);
      this.byKey.set(key, g);
      this.groups.push(g);
    }
    return g;
  }
}

/** Imports AB-ReDial CSV text. Throws ImportError when the header is not AB-ReDial's. */
export function importAbRedial(
  text: string,
  origin: string,
): { conversations: Conversation[]; warnings: ImportWarning[] } {
  const { records, warnings } = parseCsv(text, origin);
  const nonBlank = records.filter((r) => !(r.fields.length === 1 && r.fields[0].trim() === ''));
  const header = nonBlank[0];
  if (!header)
    throw new ImportError(origin, 'the file is empty (expected an AB-ReDial CSV header: ConvId,utterance0,...)');
  const layout = readLayout(header, origin, warnings);
  const dialogues = new DialogueGroups();
  let row = 0;
  for (const rec of nonBlank.slice(1)) {
    row++;
    if (rec.fields.length !== layout.names.length) {
      warnings.push({
        line: rec.line,
        message: `row ${row} has ${rec.fields.length} fields, the header has ${layout.names.length}; missing fields read as empty`,
      });
    }
    const convId = (rec.fields[layout.convCol] ?? '').trim();
    if (!convId) {
      warnings.push({ line: rec.line, path: 'ConvId', message: `row ${row} has an empty ConvId; row skipped` });
      continue;
    }
    const at: RowAt = { rec, row, convId };
    const utterances = readUtterances(at, layout, warnings);
    if (!utterances) continue;
    const annotation = readRatings(at, layout, warnings);
    const g = dialogues.add(at, utterances, warnings);
    g.annotations.push(annotation);
    g.rows.push(row);
  }
  const conversations = dialogues.groups.map((g) => toConversation(g, layout));
  return { conversations, warnings };
}

function toConversation(g: Group, layout: AbRedialLayout): Conversation {
  let changes = 0;
  for (let k = 1; k < g.utterances.length; k++) if (g.utterances[k].speaker !== g.utterances[k - 1].speaker) changes++;
  return {
    id: g.id,
    source: 'human',
    turns: buildTurns(g.utterances),
    annotations: g.annotations,
    metadata: {
      format: 'ab-redial',
      conv_id: g.convId,
      rows: g.rows,
      utterances: g.utterances.length,
      speaker_changes: changes,
      ...(layout.turnLevel ? { rating_segments: layout.segments } : {}),
    },
  };
}
