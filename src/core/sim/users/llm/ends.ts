/**
 * When an LLM user's end of the dialogue can be honoured. A model takes "accept" and "leave" as
 * free choices; SimLens requires that a user accepts only an item it has been shown and leaves
 * unserved only by a documented limit (docs/invariants.md `no-end-before-recommendation`). These
 * helpers find what is wrong with an end and word the one correction the model is sent.
 */
import type { Outcome, RecommendedItem } from '../../../model';
import { ORDINAL_POSITIONS } from '../../../text/ordinals';

/** Items the user prompts list under an assistant message (renderTranscript's and the SFT prompt's default). */
const VISIBLE_ITEMS = 4;

export type EndProblemKind = 'accept_before_items' | 'accept_unshown_item' | 'quit_before_items';

export interface EndProblem {
  kind: EndProblemKind;
  /** For the trace: what was wrong. */
  detail: string;
  /** Sent to the model as the next user message, after its reply. */
  correction: string;
}

const FORMAT = 'in the same form (Response: ... then Terminate: ...)';
// Position words from the shared table, not "last" (a list number is needed here).
const ORDINAL_WORDS = Object.keys(ORDINAL_POSITIONS).filter((w) => ORDINAL_POSITIONS[w] >= 0 && /^[a-z]+$/.test(w));
const ORDINAL = `(${ORDINAL_WORDS.join('|')}|\\d{1,2}(?:st|nd|rd|th))`;
// "the second", "second one", "#2", "number 2", "item 2", "[2]": how shoppers point at a listed item.
const NUMBER_PATTERNS = [
  new RegExp(`\\bthe\\s+${ORDINAL}\\b`, 'gi'),
  new RegExp(`\\b${ORDINAL}\\s+(?:one|item|option|pair|product|choice)s?\\b`, 'gi'),
  /(?:#|\bnumber\s*|\bno\.\s*|\boption\s*|\bitem\s*|\bproduct\s*|\bchoice\s*)(\d{1,2})\b/gi,
  /\[(\d{1,2})\]/g,
];

function ordinalValue(word: string): number {
  const position = ORDINAL_POSITIONS[word.toLowerCase()];
  return position !== undefined && position >= 0 ? position + 1 : parseInt(word, 10);
}

/** The list numbers (1-based) an utterance points at, in order, without repeats. */
export function itemNumbers(text: string): number[] {
  const found: { at: number; n: number }[] = [];
  for (const re of NUMBER_PATTERNS) {
    for (const m of text.matchAll(re)) {
      const n = ordinalValue(m[1]);
      if (Number.isFinite(n) && n > 0) found.push({ at: m.index ?? 0, n });
    }
  }
  found.sort((a, b) => a.at - b.at);
  return [...new Set(found.map((f) => f.n))];
}

/** The items of the latest assistant message that showed any, as far as the prompt listed them. */
export function visibleItems(carousel: readonly RecommendedItem[] | undefined): readonly RecommendedItem[] {
  return (carousel ?? []).slice(0, VISIBLE_ITEMS);
}

/**
 * The item ids an accepting utterance names: by list number in the latest carousel, else by a
 * title (or id) of any item shown so far written out in full.
 */
export function namedItems(
  text: string,
  latest: readonly RecommendedItem[] | undefined,
  shown: readonly RecommendedItem[],
): string[] {
  const visible = visibleItems(latest);
  const byNumber = itemNumbers(text)
    .filter((n) => n <= visible.length)
    .map((n) => visible[n - 1].item_id);
  if (byNumber.length) return [...new Set(byNumber)];
  const lower = text.toLowerCase();
  const out = new Set<string>();
  for (const it of shown) {
    const title = it.title?.trim().toLowerCase();
    if (
      (title && title.length >= 4 && lower.includes(title)) ||
      (it.item_id.length >= 3 && lower.includes(it.item_id.toLowerCase()))
    )
      out.add(it.item_id);
  }
  return [...out];
}

interface EndContext {
  /** How the reply would end the dialogue (terminationOutcome), undefined when it goes on. */
  outcome: Outcome | undefined;
  response: string;
  /** The latest assistant message's items that showed any (undefined: nothing shown yet). */
  latest: readonly RecommendedItem[] | undefined;
  /** This was the user's last allowed message (the turn cap ends the dialogue anyway). */
  lastTurn: boolean;
}

/** What keeps an end from being honoured, or undefined when it can be. */
export function endProblem(ctx: EndContext): EndProblem | undefined {
  if (ctx.outcome === undefined) return undefined;
  const visible = visibleItems(ctx.latest);
  if (ctx.outcome === 'accepted') {
    if (visible.length === 0) {
      return {
        kind: 'accept_before_items',
        detail: 'accepted before the assistant had shown any item',
        correction: `The assistant has not shown you any products yet, so there is nothing you could buy. Reply again as the shopper to what the assistant has actually said, ${FORMAT}.`,
      };
    }
    const beyond = itemNumbers(ctx.response).find((n) => n > visible.length);
    if (beyond !== undefined) {
      const k = visible.length;
      return {
        kind: 'accept_unshown_item',
        detail: `accepted item number ${beyond}, but only ${k} item(s) were shown`,
        correction: `Only ${k} product${k === 1 ? ' is' : 's are'} shown to you, numbered 1${k > 1 ? ` to ${k}` : ''}; there is no item ${beyond}. Reply again as the shopper about the products actually shown, ${FORMAT}.`,
      };
    }
    return undefined;
  }
  if (visible.length === 0 && !ctx.lastTurn) {
    return {
      kind: 'quit_before_items',
      detail: 'left before the assistant had shown any item, with turns to go',
      correction: `The assistant has not shown you any products yet. Give it the chance to show you something before you leave: reply again as the shopper, ${FORMAT}, with Terminate: False.`,
    };
  }
  return undefined;
}
