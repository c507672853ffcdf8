/** What the local agents (`local-good`, `local-bad`) share: one catalog and lexicon for all their sessions. */
import { plainFeatures } from '../../../catalog/features';
import type { Catalog, CatalogItem } from '../../../catalog/item';
import { countWords } from '../../../model';
import type { Rng } from '../../../random';
import type { Agent, AgentResponse, AgentSession, HistoryEntry, SessionContext } from '../../types';
import { featureWithArticle, isPluralNoun } from '../../../text/articles';
import { Lexicon } from './lexicon';
import { expandOne, listWords } from './phrases';
import { PreferenceState } from './state';

/** A local agent whose sessions are made by `open` from the shared catalog and lexicon. */
export class LocalAgent<S extends AgentSession> implements Agent {
  private readonly lexicon: Lexicon;

  constructor(
    readonly name: string,
    readonly condition: string,
    readonly catalog: Catalog,
    private readonly open: (catalog: Catalog, lexicon: Lexicon, rng: Rng) => S,
  ) {
    this.lexicon = Lexicon.for(catalog);
  }

  createSession(_conversationId: string, rng: Rng, _context: SessionContext): S {
    return this.open(this.catalog, this.lexicon, rng);
  }
}

/**
 * One local-agent conversation: its preference state, turn count and this turn's reading of the
 * user (`trace`, returned as `agent_trace`). A session started mid-conversation first applies the
 * user turns of the history to its state.
 */
export abstract class LocalSession<T extends { negated: string[] }> implements AgentSession {
  readonly state: PreferenceState;
  /**
   * The Rng of the words (a fork of the session's, which it never advances): what the agent does
   * (acts, items, what it asks) is drawn from `rng`, how it says it from `words`, so a change of
   * wording never changes a seeded conversation's decisions, nor the user's.
   */
  protected readonly words: Rng;
  protected turn = 0;
  /** This turn's reading of the user utterance, returned as `agent_trace`. */
  protected trace = { negated: [] } as unknown as T;

  constructor(
    protected readonly catalog: Catalog,
    protected readonly lexicon: Lexicon,
    protected readonly rng: Rng,
  ) {
    this.state = new PreferenceState(lexicon);
    this.words = rng.fork('words');
    this.naming = rng.fork('naming');
    this.reasons = rng.fork('reasons');
  }

  /**
   * The Rng of the item-specific words a turn adds to its frames (a fork like `words`): a reason
   * given with an item's own feature, a detail acknowledged. The frames themselves are drawn from
   * `words` exactly as before, so the other words of a turn, and every decision, stay as they were.
   */
  protected readonly reasons: Rng;

  /**
   * The Rng of `refer` (a fork like `words`): the sentence `answer` worded is drawn exactly as
   * before `refer` existed, so only the names in it can differ.
   */
  private readonly naming: Rng;
  /** Items named by their title so far, by the agent or (typed) by the user. */
  private readonly named = new Set<string>();

  async respond(userUtterance: string, history: readonly HistoryEntry[]): Promise<AgentResponse> {
    if (this.turn === 0 && history.length) {
      for (const h of history) if (h.speaker === 'user') this.state.apply(this.lexicon.parse(h.text));
    }
    return this.reply(userUtterance);
  }

  /** The synchronous core of `respond` (benchmarks and tests call it directly). */
  reply(userUtterance: string): AgentResponse {
    this.trace = { negated: [] } as unknown as T;
    this.swappable = undefined;
    this.fullNames = false;
    this.referred = [];
    const response = this.answer(userUtterance);
    const swap = this.swappable as Swappable | undefined;
    if (swap && !userUtterance.includes('?') && response.utterance.includes(swap.text)) {
      const detail = this.detail(swap, response.utterance);
      // never longer than what it replaces (give or take `swap.room`): the turn's length stays the frames'
      if (detail && countWords(detail) <= countWords(swap.text) + (swap.room ?? 0))
        response.utterance = response.utterance.replace(swap.text, detail);
    }
    response.utterance = this.refer(response.utterance, userUtterance, response.recommendations);
    response.utterance = agreeWithTitles(
      response.utterance,
      response.recommendations.filter((r) => {
        const type = this.catalog.get(r.item_id)?.attributes.type;
        return type !== undefined && isPluralNoun(type);
      }),
    );
    response.agent_trace = this.trace;
    return response;
  }

  /**
   * Names an item the way a salesperson does, its card being on screen: "the Northvale gilet",
   * "the burgundy one" once it has been named (`shortReferences`; a first mention by brand or colour
   * and type only) instead of its whole title, in 3 of 4 mentions (drawn from `naming`). Only after "the" in a sentence that asks nothing, not on
   * a turn that confirms an item taken (`fullNames`), only when the user's turn asks nothing (a
   * user asking about an item reads the answer's words), and only a reference no other item on
   * screen shares. Items the user named (a typed title, or a place: `referred`) count as named.
   */
  private refer(text: string, userUtterance: string, shown: readonly { item_id: string; title?: string }[]): string {
    const keepTitles = userUtterance.includes('?') || this.fullNames;
    let out = text;
    // the first items only: the ones a turn names (its top item, the one liked, compared or taken
    // is pinned first); an item further down keeps its title, which is never wrong
    for (let k = 0; k < shown.length && k < REFER_DEPTH; k++) {
      const { item_id: id, title } = shown[k];
      if (!title || !out.includes(title)) {
        if (title && (userUtterance.includes(title) || this.referred.includes(id))) this.named.add(id);
        continue;
      }
      const item = this.catalog.get(id);
      // an item named for the first time by its brand or colour and its type ("the Northvale
      // gilet"), never "the Northvale one": "one" points back at an item already named; an item
      // the user has just named (typed title, place) keeps the name on this turn, as before
      const first = !this.named.has(id);
      if (item && !keepTitles && !(first && (userUtterance.includes(title) || this.referred.includes(id)))) {
        const others = shown.filter((o) => o.item_id !== id).map((o) => this.catalog.get(o.item_id));
        const refs = shortReferences(item).filter(
          (ref) => !(first && ref.endsWith(' one')) && !others.some((o) => o && shortReferences(o).includes(ref)),
        );
        if (refs.length)
          out = out
            .split(/(?<=[.!?])\s+/)
            .map((sentence) => (sentence.includes('?') ? sentence : this.shorten(sentence, title, refs)))
            .join(' ');
      }
      this.named.add(id);
    }
    return out;
  }

  /** `sentence` with each "the <title>" / "The <title>" a short reference in 3 of 4 cases. */
  private shorten(sentence: string, title: string, refs: readonly string[]): string {
    let out = sentence;
    for (const the of ['the', 'The']) {
      const parts = out.split(`${the} ${title}`);
      out = parts.reduce(
        (acc, part) => `${acc}${the} ${this.naming.chance(0.25) ? title : this.naming.pick(refs)}${part}`,
      );
    }
    return out;
  }

  /**
   * Set by `answer`: the items the user's turn named, by title or by place ("the second one");
   * an item the user pointed at counts as named, as a typed title does.
   */
  protected referred: readonly string[] = [];

  /**
   * Set by `answer` on a turn whose items are named by their whole titles: the answer to a user
   * taking an item confirms which one, by its name.
   */
  protected fullNames = false;

  /**
   * A sentence of this turn's answer that may be said instead with the catalog's own details of an
   * item (`detail`): set by `answer` inside `fresh` (its last draw is the text said).
   */
  protected swappable: Swappable | undefined;

  /**
   * With `swap.chance`, `swap.frames` filled with one or two of the item's plain features (`$f`, see `namedFeatures`)
   * and a short reference to it no other shown item shares (`$t`), drawn from `naming`; undefined
   * when the item has no such feature or reference.
   */
  private detail(swap: Swappable, answer: string): string | undefined {
    if (swap.chance !== undefined && !this.naming.chance(swap.chance)) return undefined;
    // not a feature the answer already says ("it has removable footbed ... look for removable footbed")
    const said = answer.toLowerCase();
    const feats = namedFeatures(this.catalog, swap.item).filter((f) => !said.includes(f.toLowerCase()));
    if (feats.length === 0) return undefined;
    const among = swap.among;
    const refs = shortReferences(swap.item).filter(
      (r) => !r.endsWith(' one') && !among.some((o) => o !== swap.item && shortReferences(o).includes(r)),
    );
    if (refs.length === 0) return undefined;
    const picked = this.naming.shuffle(feats).slice(0, 1 + this.naming.int(swap.most ?? 2));
    const f = listWords(picked);
    return expandOne(this.naming, swap.frames, {
      f,
      a: listWords(picked.map(featureWithArticle)),
      t: this.naming.pick(refs),
    });
  }

  /** Every utterance this session has said (no verbatim repeat inside a conversation). */
  private readonly said = new Set<string>();

  /**
   * An utterance from `make` (which draws its words from `words`, never from `rng`) that this session has
   * not said before: up to 32 draws, then the last one even if said (a turn always has words).
   */
  protected fresh(make: () => string): string {
    let text = make();
    for (let i = 0; i < 31 && this.said.has(text); i++) text = make();
    this.said.add(text);
    return text;
  }

  /** This turn's answer (it counts the turn and fills `trace`). */
  protected abstract answer(userUtterance: string): AgentResponse;
}

/**
 * Features that read as a noun phrase ("storm flap", "easy care"), which the reason and detail
 * frames put after "with", "the" or "its"; the catalog's adjective and verb phrases ("lightweight",
 * "fully lined", "packs flat", "water resistant to 50 m") would read "with lightweight".
 */
const NOT_A_NOUN_PHRASE =
  /^(?:(?:lightweight|sleeveless)$|fully |packs |packable into|water resistant|machine washable|lounging |soft to the touch|gift box included|one size)/;

/** Whether a feature reads as a noun phrase (`NOT_A_NOUN_PHRASE`; "lightweight build" and "sleeveless cut" do). */
export function isNounPhrase(feature: string): boolean {
  return !NOT_A_NOUN_PHRASE.test(feature.toLowerCase());
}

const namedFeaturesOf = new WeakMap<CatalogItem, string[]>();

/** An item's plain features (`plainFeatures`) that read as a noun phrase. */
export function namedFeatures(catalog: Catalog, item: CatalogItem): string[] {
  let out = namedFeaturesOf.get(item);
  if (!out) {
    out = plainFeatures(catalog, item).filter(isNounPhrase);
    namedFeaturesOf.set(item, out);
  }
  return out;
}

/** How many of a turn's first items `refer` looks for in its words. */
const REFER_DEPTH = 3;

/** See `LocalSession.swappable`. */
interface Swappable {
  /** The words said, as they occur in the answer. */
  text: string;
  /** The item the details are of, and the items on screen (a reference must name it alone). */
  item: CatalogItem;
  among: readonly CatalogItem[];
  /** Frames with `$f` (features) and `$t` (a short reference). */
  frames: readonly string[];
  /** At most this many features (2 unless said). */
  most?: number;
  /** The chance that the details are said (1 unless said). */
  chance?: number;
  /** Words the details may say beyond `text` (0 unless said). */
  room?: number;
}

/**
 * Short references to an item once it has been named: its brand or colour before its type
 * ("Northvale gilet", "burgundy gilet"; "pair" for a plural type such as sneakers, so a verb after
 * it agrees) or before "one". Words of the item's own attributes only.
 */
function shortReferences(item: CatalogItem): readonly string[] {
  let out = shortReferencesOf.get(item);
  if (!out) shortReferencesOf.set(item, (out = referencesOf(item)));
  return out;
}

/**
 * `shortReferences` per catalog item (catalog items never change; each turn compares an item's
 * references with those of every other item shown, so they are built once per item).
 */
const shortReferencesOf = new WeakMap<CatalogItem, readonly string[]>();

function referencesOf(item: CatalogItem): string[] {
  const { brand, colour, type } = item.attributes;
  const head = type === undefined ? undefined : isPluralNoun(type) ? 'pair' : type;
  const out: string[] = [];
  for (const lead of [brand, colour]) {
    if (!lead) continue;
    if (head) out.push(`${lead} ${head}`);
    out.push(`${lead} one`);
  }
  return out;
}

/**
 * The verbs the frames put right after an item's name, in the singular, with their plural: a
 * frame is written for one item ("The $t is ..."), and an item whose type is a plural noun
 * ("Hiking Boots", "Yoga Pants") takes the plural verb ("The Saltmarsh Hiking Boots are ...").
 */
const PLURAL_VERB: Readonly<Record<string, string>> = {
  is: 'are',
  has: 'have',
  was: 'were',
  looks: 'look',
  fits: 'fit',
  stands: 'stand',
  ticks: 'tick',
  leads: 'lead',
  deserves: 'deserve',
  feels: 'feel',
  suits: 'suit',
  shines: 'shine',
  heads: 'head',
  tops: 'top',
  opens: 'open',
  brings: 'bring',
  offers: 'offer',
  serves: 'serve',
  resonates: 'resonate',
  pleases: 'please',
  makes: 'make',
  earns: 'earn',
  awaits: 'await',
  costs: 'cost',
  comes: 'come',
  boasts: 'boast',
};
const SINGULAR_VERB = new RegExp(`^( |, which )(also )?(${Object.keys(PLURAL_VERB).join('|')})(?![a-z])`);

/**
 * `text` with the verb right after each whole title of `plural` (items whose type is a plural
 * noun) in the plural ("The Vesper Yoga Pants is" -> "are"). Short references ("the Thistle
 * pair") are singular and stay as they are.
 */
export function agreeWithTitles(text: string, plural: readonly { title?: string }[]): string {
  let out = text;
  for (const { title } of plural) {
    if (!title || !out.includes(title)) continue;
    out = out
      .split(title)
      .map((part, i) =>
        i === 0
          ? part
          : part.replace(
              SINGULAR_VERB,
              (_m, lead: string, also = '', verb: string) => `${lead}${also}${PLURAL_VERB[verb]}`,
            ),
      )
      .join(title);
  }
  return out;
}
