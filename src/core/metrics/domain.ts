/**
 * The domain of a population (movies or apparel), so a comparison of human movie dialogues with
 * apparel simulations says so instead of reporting meaningless differences (issue 26). Read from
 * what the data says about itself, never guessed from text:
 * - movies: the human movie corpora's own importers (metadata.format redial, iard, inspired,
 *   ab-redial), IARD/INSPIRED act annotations, recommended titles written "Title (YYYY)";
 * - apparel: a shopping task (task_id "<category>_<condition>" or a bare category) that is one of
 *   the apparel catalog's categories (what the built-in simulators and ConvApparel write);
 * - movies also: the task "movies", what simulations on a catalog from `simlens catalog build` write.
 * A conversation with none of these has no known domain and takes no part in the verdict.
 */
import type { Conversation } from '../model';
import { conversationTask } from '../model';
import { APPAREL_CATEGORIES } from '../catalog/apparel';
import { MOVIE_CATEGORY, type MovieCatalogSource } from '../importers/movieCatalog';

export type Domain = 'movies' | 'apparel';

const MOVIE_FORMATS = new Set(['redial', 'iard', 'inspired', 'ab-redial']);
const MOVIE_TAXONOMIES = new Set(['iard', 'inspired']);
const APPAREL = new Set(APPAREL_CATEGORIES.map((c) => c.name));
const YEAR_TITLE = /\(\d{4}\)\s*$/;

/** The domain one conversation shows, or undefined. */
export function conversationDomain(c: Conversation): Domain | undefined {
  const format = (c.metadata as Record<string, unknown> | undefined)?.['format'];
  if (typeof format === 'string' && MOVIE_FORMATS.has(format)) return 'movies';
  const task = conversationTask(c);
  if (task && APPAREL.has(task.toLowerCase())) return 'apparel';
  if (task && task.toLowerCase() === MOVIE_CATEGORY) return 'movies';
  for (const t of c.turns ?? []) {
    for (const a of t.annotations ?? [])
      if (typeof a.taxonomy === 'string' && MOVIE_TAXONOMIES.has(a.taxonomy)) return 'movies';
    for (const r of t.recommendations ?? [])
      if (typeof r.title === 'string' && YEAR_TITLE.test(r.title)) return 'movies';
  }
  return undefined;
}

/** The `simlens catalog build --from` that reads a human movie conversation's source file, if any. */
function movieCatalogSourceOf(c: Conversation): MovieCatalogSource | undefined {
  const format = (c.metadata as Record<string, unknown> | undefined)?.['format'];
  if (format === 'redial') return 'redial';
  if (format === 'iard') return 'iard';
  // The UserSimCRS copy of IARD (read as DialogueKit) names its movies in TITLE slots of IARD annotations.
  for (const t of c.turns ?? [])
    for (const a of t.annotations ?? []) if (a.taxonomy === 'iard' && a.annotator === 'source') return 'iard';
  return undefined;
}

/** True for a conversation of a built-in simulated user (agenda-based or target-free). */
function builtinUser(c: Conversation): boolean {
  return typeof c.source === 'string' && /^(agenda|target-free)/.test(c.source);
}

/** How many conversations show each domain; `domain` is the one most show (undefined when none does). */
export interface DomainCount {
  domain?: Domain;
  movies: number;
  apparel: number;
  total: number;
  /** The catalog builder that reads most of the movie conversations' files (ReDial, IARD), if any. */
  catalogSource?: MovieCatalogSource;
  /** Built-in simulated users run on a movie catalog (they know a year per movie and nothing else). */
  builtinOnMovies?: number;
}

export function populationDomain(conversations: readonly Conversation[]): DomainCount {
  const out: DomainCount = { movies: 0, apparel: 0, total: conversations.length };
  const sources: Record<MovieCatalogSource, number> = { redial: 0, iard: 0 };
  let builtinOnMovies = 0;
  for (const c of conversations) {
    const d = conversationDomain(c);
    if (d) out[d]++;
    if (d !== 'movies') continue;
    const src = movieCatalogSourceOf(c);
    if (src) sources[src]++;
    if (builtinUser(c)) builtinOnMovies++;
  }
  if (out.movies || out.apparel) out.domain = out.movies >= out.apparel ? 'movies' : 'apparel';
  if (sources.redial || sources.iard) out.catalogSource = sources.redial >= sources.iard ? 'redial' : 'iard';
  if (builtinOnMovies) out.builtinOnMovies = builtinOnMovies;
  return out;
}

/** What the built-in users can do on a movie catalog, said wherever such a run is offered or compared. */
export const MOVIE_CATALOG_LIMITS =
  'On a movie catalog built from ReDial or IARD the built-in users run, but the only attribute they can ask for, ' +
  'disclose or rate is the year (the files give no genre, director or actors), and the local recommenders and ' +
  'templates speak as a shop: such runs are in the movie domain, not movie-like in content.';

/** The command that builds a movie catalog from a human population (or says none can be built). */
function catalogAdvice(pops: readonly { label: string; file?: string; domain: DomainCount }[]): string {
  const human = pops.find((p) => p.domain.domain === 'movies' && p.domain.catalogSource);
  if (!human)
    return (
      'Build a movie catalog from ReDial or IARD dialogues with simlens catalog build --from redial|iard FILE --out ' +
      'movies.catalog.jsonl and simulate with --catalog movies.catalog.jsonl (VS Code: Run Simulation… offers it for ' +
      'an open ReDial or IARD file); no catalog can be built from INSPIRED or AB-ReDial files.'
    );
  const file = human.file ?? human.label;
  return (
    `Build a movie catalog from ${human.label}: simlens catalog build --from ${human.domain.catalogSource} ` +
    `${/\s/.test(file) ? JSON.stringify(file) : file} --out movies.catalog.jsonl, then simulate with --catalog ` +
    `movies.catalog.jsonl (VS Code: Run Simulation… offers it when that file is open). ${MOVIE_CATALOG_LIMITS}`
  );
}

const NAMES: Record<Domain, string> = { movies: 'movie dialogues', apparel: 'apparel (shopping) dialogues' };

/**
 * One warning when populations of known, different domains are compared (the first is the
 * reference); undefined when they agree or a domain is unknown.
 */
function domainMismatch(pops: readonly { label: string; file?: string; domain: DomainCount }[]): string | undefined {
  const known = pops.filter((p) => p.domain.domain);
  const domains = new Set(known.map((p) => p.domain.domain));
  if (domains.size < 2) return undefined;
  const parts = known.map(
    (p) => `${p.label}: ${NAMES[p.domain.domain!]} (${p.domain[p.domain.domain!]} of ${p.domain.total})`,
  );
  return (
    `the populations come from different domains (${parts.join('; ')}): differences in length, acts and wording ` +
    `reflect the domain as much as the simulator. Compare with human data of the simulator's domain (the built-in ` +
    `simulators use the apparel catalog unless given --catalog FILE). ${catalogAdvice(known)}`
  );
}

/**
 * The warnings a comparison of populations gets about domains: a mismatch (with the command that
 * builds a catalog in the human data's domain), or, when the domains match because built-in users
 * ran on a movie catalog, what such a run can and cannot show.
 */
export function domainWarningsOf(pops: readonly { label: string; file?: string; domain: DomainCount }[]): string[] {
  const mismatch = domainMismatch(pops);
  if (mismatch) return [mismatch];
  const sims = pops.filter((p) => p.domain.domain === 'movies' && p.domain.builtinOnMovies);
  if (!sims.length) return [];
  return [
    `${sims.map((p) => p.label).join(', ')}: built-in simulated users on a movie catalog. ${MOVIE_CATALOG_LIMITS}`,
  ];
}

/**
 * What the Run Simulation wizard and `simlens simulate --help` say about the built-in catalog: its
 * domain, and what to do for another one.
 */
export const BUILTIN_CATALOG_NOTE =
  'The built-in simulators shop in a synthetic apparel catalog (clothes, shoes, bags, accessories) unless given ' +
  'another: compare their runs with apparel human data such as ConvApparel, not with movie dialogues (ReDial, ' +
  'IARD, INSPIRED). A movie catalog can be built from ReDial or IARD files (simlens catalog build --from ' +
  'redial|iard FILE --out movies.catalog.jsonl; then simlens simulate --catalog movies.catalog.jsonl), but the ' +
  'built-in users know only a year per movie there.';
