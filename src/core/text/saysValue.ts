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
  const want = valueForms(value);
  if (want.length === 0) return false;
  const words = textForms(text);
  for (let i = 0; i + want.length <= words.length; i++) if (want.every((w, j) => words[i + j].includes(w))) return true;
  return false;
}

/**
 * Memo of a function of one string (the result depends on the string alone, so a key cannot go
 * stale); bounded, cleared when full. Callers read the results, never mutate them.
 */
function memoOf<T>(max: number, of: (key: string) => T): (key: string) => T {
  const memo = new Map<string, T>();
  return (key) => {
    let v = memo.get(key);
    if (v === undefined) {
      if (memo.size >= max) memo.clear();
      v = of(key);
      memo.set(key, v);
    }
    return v;
  };
}

/** The words of a text, each with its forms (`wordForms`): titles and answers are read again and again. */
const textForms = memoOf(20000, (text) => tokenize(text).map(wordForms));
/** The words of a value, each in its first form. */
const valueForms = memoOf(5000, (value) => tokenize(value).map((w) => wordForms(w)[0]));
/** The statements of an answer (its sentences without a question mark, joined by spaces). */
const statementsOf = memoOf(5000, (answer) =>
  answer
    .split(/(?<=[.!?])\s+/)
    .filter((sentence) => !sentence.includes('?'))
    .join(' '),
);

/** A price in a text ("$72.99", "priced at $ 30", "$1,200"): its amount, and whether it gave cents. */
const PRICE = /\$\s?(\d[\d,]*)(\.\d+)?/g;

/**
 * Does `text` say the price `price`: a dollar amount equal to it to the cent, or, said without
 * cents, to it rounded to whole dollars ("$60" for 59.99)? With the price unknown (an item no
 * catalog prices) any price is read as saying it (the reading cannot tell).
 */
function saysPrice(text: string, price: number | undefined): boolean {
  for (const m of text.matchAll(PRICE)) {
    if (price === undefined) return true;
    const whole = Number(m[1].replace(/,/g, ''));
    if (m[2] === undefined ? whole === Math.round(price) : Math.abs(whole + Number(m[2]) - price) < 0.005) return true;
  }
  return false;
}

/**
 * Does an answer state an item's `value` of `attr`? Only statements count: a value named in a
 * question ("Black or red?") is not said of the item; the item's title, repeated in the answer, was
 * on its card already and says nothing new. For the price band the band's word, or the item's own
 * `price` (seventeenth round: another price, "options under $50", "from $20", does not say what
 * this item costs).
 */
export function statesItemValue(
  answer: string,
  attr: string,
  value: string | undefined,
  title?: string,
  price?: number,
): boolean {
  if (!answer) return false;
  const statements = statementsOf(answer);
  // (a title the statements do not hold leaves them as they are: no split, no new string)
  const said = title && statements.includes(title) ? statements.split(title).join(' ') : statements;
  if (attr === 'price_band' && saysPrice(said, price)) return true;
  return value !== undefined && saysValue(said, value);
}

/** Does an item's title (on its card) show its `value` of `attr`? Never the price band (no title says a price). */
export function titleShowsValue(title: string | undefined, attr: string, value: string | undefined): boolean {
  return attr !== 'price_band' && value !== undefined && title !== undefined && saysValue(title, value);
}
