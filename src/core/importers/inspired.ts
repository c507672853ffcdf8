/**
 * INSPIRED (Hayati et al., EMNLP 2020), the released dialog TSVs (`data/dialog_data/{train,dev,
 * test}.tsv`): one row per utterance, tab-separated, no quoting, header `dialog_id, utt_id,
 * speaker (SEEKER | RECOMMENDER), turn_id, text, text_with_placeholder, movies, genres,
 * people_names (";"-separated), movie_dict, genre_dict, actor_dict, director_dict, others_dict
 * (Python dict literals), expert_label, second_label (the sociable strategies; the README calls
 * the first one first_label), fine_label, coarse_label (the recommendation outcome), movie_id
 * (the YouTube id of the recommended movie's trailer)`. In `text` a double quote is written
 * QUOTATION_MARK.
 *
 * Mapping (see docs/formats.md): rows of one dialog_id -> one conversation (seeker = user,
 * recommender = assistant, consecutive rows of one speaker merged, see turns.ts); strategies ->
 * an annotation by `source` with taxonomy `inspired`; per-utterance columns -> `turn.
 * source_utterances`; per-dialogue columns (the dicts, labels, movie_id) -> `metadata`;
 * coarse_label accept_* / reject_* -> outcome accepted / ended. Movies the recommender names ->
 * the turn's `recommendations`, matched against `movie_database.tsv` (same folder or its
 * parent) when it is there: item_id = its video_id, the other columns as attributes.
 *
 * Read line by line (streams). A row that cannot be read is skipped with a warning naming its
 * line and column; the rest of its dialogue is kept.
 */
import type { Conversation, RecommendedItem } from '../model';
import { type ImportWarning, preview } from './errors';
import { buildTurns, type SourceAnnotation, type SourceUtterance } from './turns';

type Rec = Record<string, unknown>;

/** True when a header line (split on tabs) is an INSPIRED dialog TSV. */
export function isInspiredHeader(fields: readonly string[]): boolean {
  const f = fields.map((x) => x.trim());
  return f.includes('dialog_id') && f.includes('speaker') && f.includes('text');
}

const SPEAKERS: Record<string, 'user' | 'assistant'> = { SEEKER: 'user', RECOMMENDER: 'assistant' };
/** Columns that hold one value per dialogue (repeated on every row). */
const DIALOGUE_COLUMNS = [
  'movie_dict',
  'genre_dict',
  'actor_dict',
  'director_dict',
  'others_dict',
  'fine_label',
  'coarse_label',
  'case',
  'movie_id',
];
const LIST_COLUMNS = ['movies', 'genres', 'people_names'];
const LABEL_COLUMNS = ['expert_label', 'first_label', 'second_label'];
const CONSUMED = new Set(['dialog_id', 'speaker', 'text', ...LABEL_COLUMNS]);
const NUMERIC_COLUMNS = new Set(['utt_id', 'turn_id']);

// ---------------------------------------------------------------------------------------------
// Python literals in the *_dict columns

/**
 * Parses a Python dict/list literal of strings, numbers, True/False/None (what pandas wrote with
 * str(dict)). Undefined when the text is not such a literal.
 */
export function parsePythonLiteral(text: string): unknown {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && /\s/.test(text[i])) i++;
  };
  const fail = (): never => {
    throw new SyntaxError('not a Python literal');
  };
  const str = (): string => {
    const q = text[i++];
    let out = '';
    while (i < text.length && text[i] !== q) {
      if (text[i] === '\\') {
        const c = text[i + 1];
        i += 2;
        if (c === 'n') out += '\n';
        else if (c === 't') out += '\t';
        else if (c === 'r') out += '\r';
        else if (c === 'x' || c === 'u') {
          const len = c === 'x' ? 2 : 4;
          const hex = text.slice(i, i + len);
          if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== len) fail();
          out += String.fromCharCode(parseInt(hex, 16));
          i += len;
        } else out += c ?? '';
      } else out += text[i++];
    }
    if (i >= text.length) fail();
    i++;
    return out;
  };
  const value = (): unknown => {
    ws();
    const c = text[i];
    if (c === "'" || c === '"') return str();
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++;
      const obj: Rec = {};
      const arr: unknown[] = [];
      ws();
      if (text[i] === close) {
        i++;
        return c === '{' ? obj : arr;
      }
      for (;;) {
        if (c === '{') {
          ws();
          const k = value();
          if (typeof k !== 'string' && typeof k !== 'number') fail();
          ws();
          if (text[i++] !== ':') fail();
          obj[String(k)] = value();
        } else arr.push(value());
        ws();
        const sep = text[i++];
        if (sep === close) return c === '{' ? obj : arr;
        if (sep !== ',') fail();
        ws();
        if (text[i] === close) {
          i++;
          return c === '{' ? obj : arr;
        }
      }
    }
    const m = /^(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|True|False|None)/.exec(text.slice(i));
    if (!m) fail();
    i += m![0].length;
    if (m![0] === 'True') return true;
    if (m![0] === 'False') return false;
    if (m![0] === 'None') return null;
    return Number(m![0]);
  };
  try {
    const v = value();
    ws();
    return i === text.length ? v : undefined;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// The movie database

/** `movie_database.tsv`, indexed by video_id and by title ("Title (year)" and "Title"). */
export interface InspiredMovieDb {
  byVideo: Map<string, Rec>;
  byTitle: Map<string, Rec>;
  size: number;
}

/**
 * Parses the movie database TSV (a header with at least video_id and title). Undefined, with a
 * warning, when the header lacks them.
 */
export function parseInspiredMovieDatabase(
  text: string,
  warnings: ImportWarning[],
  origin: string,
): InspiredMovieDb | undefined {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const header = (lines[0] ?? '').split('\t').map((h) => h.trim());
  if (!header.includes('video_id') || !header.includes('title')) {
    warnings.push({
      message: `${origin}: the movie database header has no video_id and title columns; it was not used`,
    });
    return undefined;
  }
  const db: InspiredMovieDb = { byVideo: new Map(), byTitle: new Map(), size: 0 };
  for (let k = 1; k < lines.length; k++) {
    if (lines[k].trim() === '') continue;
    const cells = lines[k].split('\t');
    const row: Rec = {};
    header.forEach((h, c) => {
      const v = (cells[c] ?? '').trim();
      if (v !== '' && v.toLowerCase() !== 'nan') row[h] = v;
    });
    const vid = row['video_id'];
    const title = row['title'];
    if (typeof vid !== 'string' || typeof title !== 'string') continue;
    db.size++;
    db.byVideo.set(vid, row);
    const year = typeof row['year'] === 'string' ? (row['year'] as string).replace(/\.0$/, '') : undefined;
    for (const key of year ? [`${title} (${year})`, title] : [title])
      if (!db.byTitle.has(key.toLowerCase())) db.byTitle.set(key.toLowerCase(), row);
  }
  return db;
}

/** The movie database row for a title as written in the dialogues ("Title (year)"). */
function lookupTitle(db: InspiredMovieDb | undefined, title: string): Rec | undefined {
  if (!db) return undefined;
  const t = title.replace(/\s+/g, ' ').trim().toLowerCase();
  return db.byTitle.get(t) ?? db.byTitle.get(t.replace(/\s*\(\d{4}\)$/, ''));
}

/** A recommended item for a movie title, enriched from the database when it is there. */
function itemFor(title: string, db: InspiredMovieDb | undefined): RecommendedItem {
  const row = lookupTitle(db, title);
  if (!row) return { item_id: title, title };
  const attributes: Record<string, string> = {};
  for (const [k, v] of Object.entries(row))
    if (k !== 'video_id' && k !== 'title' && typeof v === 'string') attributes[k] = v;
  const item: RecommendedItem = { item_id: row['video_id'] as string, title };
  if (Object.keys(attributes).length) item.attributes = attributes;
  return item;
}

// ---------------------------------------------------------------------------------------------
// The dialog TSV, line by line

interface Draft {
  id: string;
  /** The line of the dialogue's first row. */
  line: number;
  rows: number;
  first: Rec;
  utterances: SourceUtterance[];
}

/** A line-by-line reader of an INSPIRED dialog TSV; `emit` gets each finished conversation. */
export function inspiredSink(
  warnings: ImportWarning[],
  emit: (c: Conversation, line?: number) => void,
  db?: InspiredMovieDb,
): { line(text: string, line: number, cutOff?: boolean): void; finish(): void } {
  return new InspiredReader(warnings, emit, db);
}

class InspiredReader {
  private header: string[] | undefined;
  private draft: Draft | undefined;

  constructor(
    private readonly warnings: ImportWarning[],
    private readonly emit: (c: Conversation, line?: number) => void,
    private readonly db: InspiredMovieDb | undefined,
  ) {}

  line(text: string, line: number, cutOff?: boolean): void {
    if (text.trim() === '') return;
    const cells = text.split('\t');
    if (!this.header) {
      this.readHeader(cells, text, line);
      return;
    }
    const row = this.readRow(cells, this.header, line, cutOff);
    if (!row) return;
    const dialogId = row['dialog_id'].trim();
    if (dialogId === '') {
      this.warnings.push({ line, path: 'dialog_id', message: 'empty dialog_id; row skipped' });
      return;
    }
    const speaker = SPEAKERS[row['speaker'].trim().toUpperCase()];
    if (!speaker) {
      this.warnings.push({
        line,
        path: 'speaker',
        message: `dialog ${dialogId}: speaker must be SEEKER or RECOMMENDER, found "${preview(row['speaker'])}"; row skipped`,
      });
      return;
    }
    if (!this.draft || dialogId !== this.draft.first['dialog_id']) {
      this.flush();
      // A dialog_id that comes back after other dialogs: the shared duplicate-id policy (duplicateIds.ts) renames it.
      this.draft = { id: dialogId, line, rows: 0, first: this.dialogueFields(row, dialogId, line), utterances: [] };
    }
    const d = this.draft;
    d.rows++;
    d.utterances.push(this.rowUtterance(row, this.header, d, speaker));
  }

  finish(): void {
    this.flush();
    if (!this.header)
      this.warnings.push({ message: 'no INSPIRED header line (dialog_id, utt_id, speaker, ...) was found' });
  }

  private readHeader(cells: string[], text: string, line: number): void {
    const header = cells.map((h) => h.replace(/^\uFEFF/, '').trim());
    if (isInspiredHeader(header)) {
      this.header = header;
      return;
    }
    this.warnings.push({
      line,
      message: `expected an INSPIRED header with dialog_id, speaker and text columns; found "${preview(text, 80)}"; line skipped`,
    });
  }

  /** The row's cells by column name; undefined (with a warning) when it has a different number of fields. */
  private readRow(cells: string[], h: string[], line: number, cutOff?: boolean): Record<string, string> | undefined {
    if (cells.length !== h.length) {
      const truncated =
        cutOff && cells.length < h.length
          ? ' (the input ends inside this row, with no line break after it: the file looks truncated)'
          : '';
      this.warnings.push({
        line,
        message: `the row has ${cells.length} tab-separated fields, the header has ${h.length}${truncated}; row skipped`,
      });
      return undefined;
    }
    const row: Record<string, string> = {};
    h.forEach((name, c) => (row[name] = cells[c]));
    return row;
  }

  /** The dialogue-level columns of a dialogue's first row (`*_dict` read as Python literals). */
  private dialogueFields(row: Record<string, string>, dialogId: string, line: number): Rec {
    const first: Rec = { dialog_id: dialogId };
    for (const col of DIALOGUE_COLUMNS) {
      if (!(col in row) || row[col].trim() === '') continue;
      const raw = row[col].trim();
      if (col.endsWith('_dict')) {
        const parsed = parsePythonLiteral(raw);
        if (parsed === undefined) {
          this.warnings.push({
            line,
            path: col,
            message: `dialog ${dialogId}: "${col}" is not a Python dict literal ("${preview(raw)}"); kept as the raw text in metadata.${col}`,
          });
        }
        first[col] = parsed ?? raw;
      } else first[col] = raw;
    }
    return first;
  }

  /** One row as an utterance: its other columns as extras, its act labels as the source's annotation, movies as items. */
  private rowUtterance(
    row: Record<string, string>,
    h: string[],
    d: Draft,
    speaker: 'user' | 'assistant',
  ): SourceUtterance {
    const rawText = row['text'];
    const shown = rawText.replace(/QUOTATION_MARK/g, '"');
    const extras = rowExtras(row, h, d.first);
    if (shown !== rawText) extras['text'] = rawText;
    const acts = LABEL_COLUMNS.map((c) => (row[c] ?? '').trim()).filter((x) => x !== '');
    const annotation: SourceAnnotation | undefined = acts.length
      ? { annotator: 'source', taxonomy: 'inspired', acts }
      : undefined;
    const su: SourceUtterance = { speaker, text: shown, extras, annotation };
    const movies = extras['movies'];
    if (speaker === 'assistant' && Array.isArray(movies) && movies.length)
      su.items = (movies as string[]).map((t) => itemFor(t, this.db));
    return su;
  }

  /** Emits the dialogue being read, if any. */
  private flush(): void {
    if (!this.draft) return;
    const d = this.draft;
    this.draft = undefined;
    let changes = 0;
    for (let k = 1; k < d.utterances.length; k++)
      if (d.utterances[k].speaker !== d.utterances[k - 1].speaker) changes++;
    const metadata: Rec = { ...d.first, format: 'inspired', utterances: d.utterances.length, speaker_changes: changes };
    const vid = d.first['movie_id'];
    if (typeof vid === 'string' && this.db) {
      const row = this.db.byVideo.get(vid);
      if (row) metadata['recommended_movie'] = row;
    }
    const conv = { id: d.id, source: 'human' } as Conversation;
    conv.turns = buildTurns(d.utterances);
    const coarse = d.first['coarse_label'];
    if (typeof coarse === 'string' && /^accept/i.test(coarse)) conv.outcome = 'accepted';
    else if (typeof coarse === 'string' && /^reject/i.test(coarse)) conv.outcome = 'ended';
    conv.metadata = metadata;
    this.emit(conv, d.line);
  }
}

/** A row's columns other than id, speaker, text and labels: numbers and lists read, dialogue columns kept only where they differ from the first row. */
function rowExtras(row: Record<string, string>, h: string[], first: Rec): Rec {
  const extras: Rec = {};
  for (const name of h) {
    if (CONSUMED.has(name)) continue;
    const raw = row[name];
    if (DIALOGUE_COLUMNS.includes(name)) {
      // Repeated per dialogue: kept on the utterance only where it differs from the first row.
      const v =
        raw.trim() === ''
          ? undefined
          : name.endsWith('_dict')
            ? (parsePythonLiteral(raw.trim()) ?? raw.trim())
            : raw.trim();
      if (JSON.stringify(v) !== JSON.stringify(first[name])) extras[name] = raw;
      continue;
    }
    if (raw.trim() === '') continue;
    if (NUMERIC_COLUMNS.has(name) && /^\d+$/.test(raw.trim())) extras[name] = Number(raw.trim());
    else if (LIST_COLUMNS.includes(name))
      extras[name] = raw
        .split(';')
        .map((x) => x.trim())
        .filter((x) => x !== '');
    else extras[name] = raw;
  }
  return extras;
}
