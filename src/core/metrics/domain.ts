/**
 * The domain of a population (movies or apparel), so a comparison of human movie dialogues with
 * apparel simulations says so instead of reporting meaningless differences (issue 26). Read from
 * what the data says about itself, never guessed from text:
 * - movies: the human movie corpora's own importers (metadata.format redial, iard, inspired,
 *   ab-redial), IARD/INSPIRED act annotations, recommended titles written "Title (YYYY)";
 * - apparel: a shopping task (task_id "<category>_<condition>" or a bare category) that is one of
 *   the apparel catalog's categories (what the built-in simulators and ConvApparel write).
 * A conversation with none of these has no known domain and takes no part in the verdict.
 */
import type { Conversation } from '../model';
import { conversationTask } from '../model';
import { APPAREL_CATEGORIES } from '../catalog/apparel';

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
  for (const t of c.turns ?? []) {
    for (const a of t.annotations ?? []) if (typeof a.taxonomy === 'string' && MOVIE_TAXONOMIES.has(a.taxonomy)) return 'movies';
    for (const r of t.recommendations ?? []) if (typeof r.title === 'string' && YEAR_TITLE.test(r.title)) return 'movies';
  }
  return undefined;
}

/** How many conversations show each domain; `domain` is the one most show (undefined when none does). */
export interface DomainCount {
  domain?: Domain;
  movies: number;
  apparel: number;
  total: number;
}

export function populationDomain(conversations: readonly Conversation[]): DomainCount {
  const out: DomainCount = { movies: 0, apparel: 0, total: conversations.length };
  for (const c of conversations) {
    const d = conversationDomain(c);
    if (d) out[d]++;
  }
  if (out.movies || out.apparel) out.domain = out.movies >= out.apparel ? 'movies' : 'apparel';
  return out;
}

const NAMES: Record<Domain, string> = { movies: 'movie dialogues', apparel: 'apparel (shopping) dialogues' };

/**
 * One warning when populations of known, different domains are compared (the first is the
 * reference); undefined when they agree or a domain is unknown.
 */
export function domainMismatch(pops: readonly { label: string; domain: DomainCount }[]): string | undefined {
  const known = pops.filter((p) => p.domain.domain);
  const domains = new Set(known.map((p) => p.domain.domain));
  if (domains.size < 2) return undefined;
  const parts = known.map((p) => `${p.label}: ${NAMES[p.domain.domain!]} (${p.domain[p.domain.domain!]} of ${p.domain.total})`);
  return `the populations come from different domains (${parts.join('; ')}): differences in length, acts and wording reflect the domain as much as the simulator. Compare with human data of the simulator's domain (the built-in simulators use the apparel catalog, or --catalog FILE).`;
}

/**
 * What the Run Simulation wizard and `simlens simulate --help` say about the built-in catalog: its
 * domain, and what to do for another one.
 */
export const BUILTIN_CATALOG_NOTE =
  "The built-in simulators shop in a synthetic apparel catalog (clothes, shoes, bags, accessories): compare their runs with apparel human data such as ConvApparel, not with movie dialogues (ReDial, IARD, INSPIRED). For another domain give your own catalog (simlens simulate --catalog FILE).";
