/**
 * What settles a purchase, in the buyer's words: an acceptance that says which of the taken
 * item's own features won the user over ("That's the one: X. The storm flap won me over."). Shared
 * by the agenda and the target-free users; the features come from the catalog item taken
 * (`sayableDetails`: features that state no attribute value, so the reason adds nothing to what
 * the turn says it wants), never from another item.
 */
import type { Rng } from '../../random';
import { joinList } from './phrases';
import type { TemplateNlg } from './nlg';

/** Share of acceptances that say what settles it (the others only take the item). */
const ACCEPT_REASON_SHARE = 0.75;

/**
 * Most words an acceptance with its reason may have: under the 90th percentile of the human
 * corpora's user turns (IARD 23, AB-ReDial 21 words; medians 11 and 10). A longer acceptance
 * ("..., I'll buy it! Thanks heaps, see you.") says no reason rather than run on.
 */
const MAX_ACCEPT_WORDS = 20;

const words = (text: string) => text.split(/\s+/).filter((w) => /[a-z0-9]/i.test(w)).length;

/**
 * Features that do not read as a noun phrase after "the" ("the storm flap", not "the lightweight"
 * nor "the fully lined"): bare adjectives and predicates. Those are said only by the templates
 * whose {detail} stands after a colon ("Big plus: lightweight.").
 */
const PREDICATE_DETAIL =
  /(?:^|\s)(?:fully|to|into|included)(?:\s|$)|^(?:lightweight|sleeveless|easy care|one size)$|(?:less|proof|resistant)$/i;

/** Whether a feature reads as a noun phrase after "the". */
export function isNounDetail(detail: string): boolean {
  return !PREDICATE_DETAIL.test(detail.trim());
}

/**
 * `text` (an acceptance naming the item as `name`) with what settles it said as a sentence of its
 * own right after the sentence naming the item (at the end when no sentence names it): one or two
 * of `details` (the item's features), worded by the templates' `Accept.Reason` ({feature}: noun
 * phrases only; {detail}: any). In `ACCEPT_REASON_SHARE` of acceptances, when the whole stays
 * within `MAX_ACCEPT_WORDS`; every draw from `draws`
 * (a fork of the session's generator that its decisions never read). Returns the text and the
 * features it names ([] when none).
 */
export function acceptanceReason(
  nlg: TemplateNlg,
  text: string,
  name: string,
  details: readonly string[],
  draws: Rng,
  plural = false,
): { text: string; details: string[] } {
  if (details.length === 0 || !nlg.has('Accept.Reason') || !draws.chance(ACCEPT_REASON_SHARE))
    return { text, details: [] };
  const picked = draws.shuffle(details).slice(0, draws.chance(0.25) ? 2 : 1);
  const list = joinList(picked);
  const r = nlg.realise(
    'Accept.Reason',
    { detail: list, feature: picked.every(isNounDetail) ? list : undefined, plural },
    draws,
    undefined,
    [],
  );
  if (!r.used.includes('detail') && !r.used.includes('feature')) return { text, details: [] };
  if (words(text) + words(r.text) > MAX_ACCEPT_WORDS) return { text, details: [] };
  const sentence = r.text.replace(/^[a-z]/, (c) => c.toUpperCase());
  const from = name ? text.toLowerCase().indexOf(name.toLowerCase()) : -1;
  const tail = from < 0 ? -1 : text.slice(from + name.length).search(/[.!?](\s|$)/);
  if (tail < 0) return { text: `${/[.!?]$/.test(text) ? text : `${text}.`} ${sentence}`, details: picked };
  let at = from + name.length + tail;
  while (/[.!?]/.test(text[at] ?? '')) at++;
  const rest = text.slice(at).trim();
  return { text: `${text.slice(0, at)} ${sentence}${rest ? ` ${rest}` : ''}`, details: picked };
}
