/**
 * A movie catalog built from human movie dialogues (issue 26 item 14): the movies ReDial and IARD
 * name, so simulations can run in the human data's domain. Read from what the importers give
 * (one path for every reader of these files), never guessed:
 * - ReDial: `metadata.movieMentions` of each dialogue (movie id -> "Title (year)"), every movie
 *   either side mentions.
 * - IARD, raw release (`umap2020_IARD_Cai.json`): the `@<id> <Title (year)>` mentions in the
 *   original utterance texts (seeker and recommender; `turn.source_utterances`).
 * - IARD, the UserSimCRS / DialogueKit copy (`formatted_IARD_annotated_gold.json`): the `TITLE`
 *   slot values of the source annotations; the year where the utterance writes the title as
 *   "Title (YYYY)". These titles have no movie id: the item id is made from title and year.
 *
 * Each item: `item_id` (the ReDial movie id, or `iard:<slug>`), `title` "Title (YYYY)" as the
 * dialogues write it (spaces normalised), `category` "movies", `attributes.year` when the title
 * gives one. Absent, because neither corpus gives them per movie: genre, director, actors, plot,
 * price. (IARD's GENRE slots are what a seeker asks for or rejects, not a movie's genre, so they
 * are not attached to any title.) `features` is empty.
 */
import type { Conversation } from '../model';
import { resolveIardMentions } from './iard';
import { importFile, formatWarning } from './index';
import { Catalog, type CatalogItem } from '../catalog/item';

/** The category every movie item has. */
export const MOVIE_CATEGORY = 'movies';

export type MovieCatalogSource = 'redial' | 'iard';

export const MOVIE_CATALOG_SOURCES: readonly MovieCatalogSource[] = ['redial', 'iard'];

/** What the catalog could not be given (per item or mention), counted, never silent. */
interface MovieCatalogCounts {
  dialogues: number;
  /** Mentions read (one per movie per dialogue). */
  mentions: number;
  items: number;
  withYear: number;
  /** Mentions without a title (a ReDial id missing from movieMentions, a bare IARD `@id`): not in the catalog. */
  untitled: number;
  /** Ids whose title differs between dialogues (the most frequent title is kept, ties by first seen). */
  conflictingTitles: number;
  /** Dialogues of a format this source does not read (e.g. a DialogueKit file without IARD titles). */
  otherFormat: number;
}

interface MovieCatalogResult {
  catalog: Catalog;
  counts: MovieCatalogCounts;
  /** One sentence per thing the user should know (conflicts, untitled mentions, attributes absent). */
  notes: string[];
}

const YEAR_AT_END = /\s*\((\d{4})\)\s*$/;

/** Whitespace collapsed, trimmed. */
function clean(title: string): string {
  return title.replace(/\s+/g, ' ').trim();
}

/** "Title (1994)" -> { name: "Title", year: "1994" }. */
export function splitMovieTitle(title: string): { name: string; year?: string } {
  const t = clean(title);
  const m = YEAR_AT_END.exec(t);
  return m ? { name: t.slice(0, m.index).trim(), year: m[1] } : { name: t };
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The year an utterance writes right after the title ("Title (2017)"), if it does. */
function yearInText(name: string, text: string): string | undefined {
  const words = name.split(/\s+/).filter(Boolean).map(escapeRegExp);
  if (!words.length) return undefined;
  const m = new RegExp(`${words.join('\\s+')}\\s*\\((\\d{4})\\)`, 'i').exec(text);
  return m?.[1];
}

/** The original texts an importer kept in `turn.source_utterances` under `key` (src/core/importers/turns.ts). */
function sourceTexts(turn: object, key: string): string[] {
  const records = (turn as Record<string, unknown>)['source_utterances'];
  if (!Array.isArray(records)) return [];
  return records
    .map((r: unknown) => (r && typeof r === 'object' ? (r as Record<string, unknown>)[key] : undefined))
    .filter((v): v is string => typeof v === 'string');
}

/**
 * One movie per dialogue, keyed by id, as the dialogue names it. Titles without an id (the
 * UserSimCRS IARD copy) carry `name` and `year` instead; their id is made once every file is read.
 */
type Mention = { id: string; title?: string; name?: string; year?: string };

function redialMentions(c: Conversation): Mention[] | undefined {
  const meta = (c.metadata ?? {}) as Record<string, unknown>;
  if (meta['format'] !== 'redial') return undefined;
  const out = new Map<string, Mention>();
  const mm = meta['movieMentions'];
  if (mm && typeof mm === 'object' && !Array.isArray(mm)) {
    for (const [id, title] of Object.entries(mm as Record<string, unknown>)) {
      out.set(id, typeof title === 'string' && clean(title) ? { id, title: clean(title) } : { id });
    }
  }
  // An @id in the text that movieMentions does not name has no title: counted as untitled.
  for (const t of c.turns) {
    for (const text of sourceTexts(t, 'text')) {
      for (const m of text.matchAll(/@(\d+)/g)) if (!out.has(m[1])) out.set(m[1], { id: m[1] });
    }
  }
  return [...out.values()];
}

function rawIardMentions(c: Conversation): Mention[] | undefined {
  const meta = (c.metadata ?? {}) as Record<string, unknown>;
  if (meta['format'] !== 'iard') return undefined;
  const out = new Map<string, Mention>();
  for (const t of c.turns) {
    // The original text is kept only where a mention was replaced: exactly the texts with movies.
    for (const text of sourceTexts(t, 'utterance_text')) {
      for (const item of resolveIardMentions(text).items) {
        const prev = out.get(item.item_id);
        if (!prev || (!prev.title && item.title)) out.set(item.item_id, { id: item.item_id, title: item.title });
      }
    }
  }
  return [...out.values()];
}

function formattedIardMentions(c: Conversation): Mention[] | undefined {
  const iard = c.turns.some((t) =>
    (t.annotations ?? []).some((a) => a.taxonomy === 'iard' && a.annotator === 'source'),
  );
  if (!iard) return undefined;
  const out = new Map<string, Mention>();
  for (const t of c.turns) {
    for (const a of t.annotations ?? []) {
      if (a.taxonomy !== 'iard' || a.annotator !== 'source') continue;
      const text = a.speaker === 'user' ? t.user_utterance : t.assistant_utterance;
      for (const sl of a.slots ?? []) {
        if (sl.slot !== 'TITLE' || typeof sl.value !== 'string' || !clean(sl.value)) continue;
        const { name, year: own } = splitMovieTitle(sl.value);
        const year = own ?? (typeof text === 'string' ? yearInText(name, text) : undefined);
        const key = `${slug(name)}\u0000${year ?? ''}`;
        if (!out.has(key)) out.set(key, { id: key, name, year });
      }
    }
  }
  return [...out.values()];
}

/**
 * Gives every mention by title (IARD) its catalog id, in place. A title written without its year in
 * one dialogue is the same movie as where it has one, when only one year is ever given for that
 * title (else it stays yearless); a movie named twice in one dialogue counts once there.
 */
function resolveTitleMentions(perDialogue: Mention[][]): void {
  const yearsOf = new Map<string, Set<string>>();
  const firstName = new Map<string, string>();
  for (const ms of perDialogue) {
    for (const m of ms) {
      if (m.name === undefined) continue;
      const s = slug(m.name);
      if (!firstName.has(s)) firstName.set(s, m.name);
      if (!yearsOf.has(s)) yearsOf.set(s, new Set());
      if (m.year) yearsOf.get(s)!.add(m.year);
    }
  }
  for (const ms of perDialogue) {
    const seen = new Set<string>();
    const resolved: Mention[] = [];
    for (const m of ms) {
      if (m.name === undefined) {
        resolved.push(m);
        continue;
      }
      const s = slug(m.name);
      const years = yearsOf.get(s)!;
      const year = m.year ?? (years.size === 1 ? [...years][0] : undefined);
      const id = `iard:${s}${year ? `-${year}` : ''}`;
      if (seen.has(id)) continue; // one mention per movie per dialogue
      seen.add(id);
      const name = firstName.get(s)!;
      resolved.push({ id, title: year ? `${name} (${year})` : name });
    }
    ms.splice(0, ms.length, ...resolved);
  }
}

/** What the researcher is told about a built catalog: dialogues not read, untitled mentions, title conflicts, missing years. */
function catalogNotes(source: MovieCatalogSource, counts: MovieCatalogCounts, leftOut: number): string[] {
  const notes: string[] = [];
  if (counts.otherFormat)
    notes.push(
      `${counts.otherFormat} of ${counts.dialogues} dialogues are not ` +
        `${source === 'redial' ? 'ReDial' : 'IARD (raw or the UserSimCRS copy with TITLE slots)'} dialogues: nothing read from them`,
    );
  if (counts.untitled)
    notes.push(
      `${counts.untitled} mentions have no title (${leftOut} movie id${leftOut === 1 ? '' : 's'} left out of the catalog)`,
    );
  if (counts.conflictingTitles)
    notes.push(
      `${counts.conflictingTitles} movie ids have different titles in different dialogues: the most frequent title is kept`,
    );
  if (counts.items - counts.withYear)
    notes.push(`${counts.items - counts.withYear} of ${counts.items} titles give no year`);
  notes.push('attributes: year only; genre, director, actors, plot and price are not in these files');
  return notes;
}

/** Builds the catalog from imported dialogues (`files`: each file's conversations, in order). */
export function buildMovieCatalog(
  source: MovieCatalogSource,
  files: ReadonlyArray<{ label: string; conversations: readonly Conversation[] }>,
): MovieCatalogResult {
  const counts: MovieCatalogCounts = {
    dialogues: 0,
    mentions: 0,
    items: 0,
    withYear: 0,
    untitled: 0,
    conflictingTitles: 0,
    otherFormat: 0,
  };
  // id -> title -> [dialogues naming it so, first seen order]
  const titles = new Map<string, Map<string, number>>();
  const untitledIds = new Set<string>();
  const perDialogue: Mention[][] = [];
  for (const f of files) {
    for (const c of f.conversations) {
      counts.dialogues++;
      const mentions = source === 'redial' ? redialMentions(c) : (rawIardMentions(c) ?? formattedIardMentions(c));
      if (!mentions) counts.otherFormat++;
      else perDialogue.push(mentions);
    }
  }
  resolveTitleMentions(perDialogue);
  for (const mentions of perDialogue) {
    for (const m of mentions) {
      counts.mentions++;
      if (!m.title) {
        counts.untitled++;
        untitledIds.add(m.id);
        continue;
      }
      let byTitle = titles.get(m.id);
      if (!byTitle) titles.set(m.id, (byTitle = new Map()));
      byTitle.set(m.title, (byTitle.get(m.title) ?? 0) + 1);
    }
  }
  const items: CatalogItem[] = [];
  for (const [id, byTitle] of titles) {
    let best = '';
    let bestCount = 0;
    for (const [t, n] of byTitle) if (n > bestCount) [best, bestCount] = [t, n];
    if (byTitle.size > 1) counts.conflictingTitles++;
    const { year } = splitMovieTitle(best);
    items.push({
      item_id: id,
      title: best,
      description: '',
      // No features: the files give none (a count of mentions would be read as a feature by the recommenders).
      features: [],
      category: MOVIE_CATEGORY,
      attributes: year ? { year } : {},
    });
    if (year) counts.withYear++;
  }
  // Untitled ids named with a title elsewhere are in the catalog; count only those left out.
  const leftOut = [...untitledIds].filter((id) => !titles.has(id)).length;
  counts.items = items.length;
  const notes = catalogNotes(source, counts, leftOut);
  if (items.length === 0)
    throw new Error(`no movie with a title in ${files.map((f) => f.label).join(', ')} (read as ${source})`);
  return { catalog: new Catalog(items), counts, notes };
}

/**
 * Reads dialogue files with the importers and builds their movie catalog (`simlens catalog build`
 * and VS Code's Run Simulation… both call this). `warnings` are the importers' ("file:line: ...").
 */
export async function buildMovieCatalogFromFiles(
  source: MovieCatalogSource,
  files: ReadonlyArray<{ path: string; label: string }>,
): Promise<MovieCatalogResult & { warnings: string[] }> {
  const read = [];
  const warnings: string[] = [];
  for (const f of files) {
    const imported = await importFile(f.path);
    for (const w of imported.warnings) warnings.push(formatWarning(f.label, w));
    read.push({ label: f.label, conversations: imported.conversations });
  }
  return { ...buildMovieCatalog(source, read), warnings };
}

/** Which builder reads a conversation file, from its detected format (undefined: none). */
export function movieCatalogSourceOfFormat(
  format: string,
  conversations: readonly Conversation[],
): MovieCatalogSource | undefined {
  if (format === 'redial') return 'redial';
  if (format === 'iard') return 'iard';
  if (format === 'dialoguekit' && conversations.some((c) => formattedIardMentions(c) !== undefined)) return 'iard';
  return undefined;
}
