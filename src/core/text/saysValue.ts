/**
 * One rule for "does this text say this attribute value" (KDD'20 goal requests: a request is
 * answered when the value is said). The agenda user reads an agent's answer with it
 * (`answersRequest`, `titleShows`) and the checker's `goal-requests` holds runs to the same rule,
 * so the simulator and its check cannot drift apart.
 */
import { foldPlural, tokenize } from './tokenize';

/**
 * A word's forms read as the same value: possessive dropped ("women's" -> women), plural folded
 * ("parties" -> "party"), and an "-ing" form read as its verb ("lounging" -> "lounge", "hiking" ->
 * "hike"/"hik").
 */
function wordForms(token: string): string[] {
  const t = foldPlural(token.replace(/'s$/, ''));
  if (t.length > 5 && t.endsWith('ing')) return [t, t.slice(0, -3), `${t.slice(0, -3)}e`];
  return [t];
}

/**
 * Does `text` say `value` as whole words, in any of the forms `wordForms` reads as the same
 * ("women's" says women, "parties" says party, "lounging" says lounge, "Date nights" says date night)?
 */
function saysValue(text: string, value: string): boolean {
  const want = tokenize(value).map((w) => wordForms(w)[0]);
  if (want.length === 0) return false;
  const words = tokenize(text).map(wordForms);
  for (let i = 0; i + want.length <= words.length; i++) if (want.every((w, j) => words[i + j].includes(w))) return true;
  return false;
}

/** Does `text` name a price ("$72.99", "priced at $ 30")? A price says the price band. */
const SAYS_PRICE = /\$\s?\d/;

/**
 * Does an answer state an item's `value` of `attr`? Only statements count: a value named in a
 * question ("Black or red?") is not said of the item; the item's title, repeated in the answer, was
 * on its card already and says nothing new. For the price band a price is enough.
 */
export function statesItemValue(answer: string, attr: string, value: string | undefined, title?: string): boolean {
  if (!answer) return false;
  const statements = answer
    .split(/(?<=[.!?])\s+/)
    .filter((sentence) => !sentence.includes('?'))
    .join(' ');
  const said = title ? statements.split(title).join(' ') : statements;
  if (attr === 'price_band' && SAYS_PRICE.test(said)) return true;
  return value !== undefined && saysValue(said, value);
}

/** Does an item's title (on its card) show its `value` of `attr`? Never the price band (no title says a price). */
export function titleShowsValue(title: string | undefined, attr: string, value: string | undefined): boolean {
  return attr !== 'price_band' && value !== undefined && title !== undefined && saysValue(title, value);
}
