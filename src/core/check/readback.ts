/**
 * Words read back against the trace (self-consistency): every simulated user utterance is read by
 * an NLU that shares no code with the simulators' language generation (the project's act tagger,
 * src/core/metrics/tagger.ts, and the value and title matcher of the checker, ./text.ts) and what
 * it reads is compared with what the trace says the turn did:
 *
 * - act: the tagger's ConvApparel acts include the trace act's (or a close one: a dislike read as
 *   negative feedback);
 * - values: every value of `said.constraints` is stated (not only negated), and no attribute value
 *   of the conversation's items the text states is missing from `said`;
 * - negations: every value of `said.negated` is negated in the text, and no value the text negates
 *   is missing from `said.negated`;
 * - items: every item of `said.items` is named by its title or referred to ("that one", "the
 *   second"), and no shown item the text names is missing from `said.items`;
 * - opinion: the opinion the text voices about the first item of `said.items` (the tagger's
 *   positive or negative acts) is not the opposite of the preference model's.
 *
 * It works on any run that carries a trace (built-in, LLM or external simulators): an aspect whose
 * trace fields are absent is not checked for that turn (never counted as agreement).
 */
import { conversationId, type Conversation, type SimulatorTrace, type Turn } from '../model';
import { ActTagger } from '../metrics/tagger';
import { toConvApparelUserAct } from '../taxonomy/acts';
import { ORDINAL_POSITIONS } from '../text/ordinals';
import { tokenize, tokenizeSpans } from '../text/tokenize';
import { readOpinion } from './opinion';
import { clauses, mentionPolarity, mentionStarts, negatedAt, phraseWords, quote, show } from './text';

export const READBACK_ASPECTS = ['act', 'values', 'negations', 'items', 'opinion'] as const;
export type ReadbackAspect = (typeof READBACK_ASPECTS)[number];

/**
 * The reader: the acts of one user utterance in the ConvApparel user taxonomy it is sure of ([]
 * when unsure: the act and opinion are then not read on that turn). The lexical tagger by
 * default; an LLM judge can be plugged in.
 */
export interface ReadbackNlu {
  name: string;
  acts(text: string): readonly string[];
}

export interface ReadbackDisagreement {
  conversation: string;
  line?: number;
  turn: number;
  aspect: ReadbackAspect;
  detail: string;
}

export interface ReadbackReport {
  /** Which NLU read the utterances. */
  nlu: string;
  /** Conversations with at least one traced user turn. */
  conversations: number;
  /** Traced user turns read back (at least one aspect checked). */
  turns: number;
  /** Turns on which every checked aspect agreed. */
  agreed: number;
  /** agreed / turns (undefined when no turn was read). */
  rate?: number;
  aspects: Record<ReadbackAspect, { checked: number; agreed: number }>;
  /** The first disagreements, in input order (conversation id, line, turn, aspect, detail). */
  disagreements: ReadbackDisagreement[];
  /** All disagreeing turns (a turn counts once). */
  disagreeingTurns: number;
}

export interface ReadbackOptions {
  nlu?: ReadbackNlu;
  /** Disagreements kept as examples (default 20). */
  examples?: number;
}

/** Acts that read as the same thing as the trace act's ConvApparel act. */
const COMPATIBLE: Record<string, readonly string[]> = {
  inform_preference: ['inform_preference', 'critique'],
  critique: ['critique', 'inform_preference', 'reject_recommendation', 'provide_feedback_negative'],
  accept_recommendation: ['accept_recommendation', 'provide_feedback_positive'],
  provide_feedback_positive: ['provide_feedback_positive', 'accept_recommendation'],
  reject_recommendation: ['reject_recommendation', 'provide_feedback_negative', 'critique'],
  provide_feedback_negative: ['provide_feedback_negative', 'reject_recommendation', 'critique'],
  ask_clarification: ['ask_clarification'],
  greet_thank: ['greet_thank'],
};
const POSITIVE = new Set(['accept_recommendation', 'provide_feedback_positive']);
const NEGATIVE = new Set(['reject_recommendation', 'provide_feedback_negative']);

/** Words that refer to a shown item without its title. */
const REFERENCE_WORDS = new Set([
  'one',
  'it',
  'that',
  'this',
  'those',
  'these',
  'them',
  'first',
  'second',
  'third',
  'last',
  'top',
  ...Object.keys(ORDINAL_POSITIONS),
]);

const ACT_CACHE = new Map<string, string>();
/** `toConvApparelUserAct`, cached (a run uses a handful of act labels on every turn). */
function convApparelAct(act: string): string {
  let v = ACT_CACHE.get(act);
  if (v === undefined) {
    if (ACT_CACHE.size > 5000) ACT_CACHE.clear();
    v = toConvApparelUserAct(act);
    ACT_CACHE.set(act, v);
  }
  return v;
}

function mainOfAct(act: unknown): string {
  return typeof act === 'string' ? act.split('.')[0] : '';
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function eq(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

/** A negated value as said ("colour=red" or "red") without its attribute. */
function bareValue(v: string): string {
  const k = v.indexOf('=');
  return k > 0 ? v.slice(k + 1) : v;
}

const TAG_CACHE = new Map<string, readonly string[]>();
const TAG_CACHE_MAX = 20000;
const tagger: ReadbackNlu = {
  name: 'lexical act tagger + value matcher',
  // Simulated users repeat their wording (titles read as "this one"): the tags of a text are cached, bounded.
  acts: (text) => {
    let v = TAG_CACHE.get(text);
    if (v === undefined) {
      if (TAG_CACHE.size >= TAG_CACHE_MAX) TAG_CACHE.clear();
      v = ActTagger.default().confidentTags(text);
      TAG_CACHE.set(text, v);
    }
    return v;
  },
};

/** Accumulates read-back agreement over conversations added one by one. */
export class ReadbackChecker {
  private readonly nlu: ReadbackNlu;
  private readonly max: number;
  private conversations = 0;
  private turns = 0;
  private agreed = 0;
  private disagreeing = 0;
  private readonly aspects = Object.fromEntries(READBACK_ASPECTS.map((a) => [a, { checked: 0, agreed: 0 }])) as Record<
    ReadbackAspect,
    { checked: number; agreed: number }
  >;
  private readonly examples: ReadbackDisagreement[] = [];

  constructor(options: ReadbackOptions = {}) {
    this.nlu = options.nlu ?? tagger;
    this.max = Math.max(0, options.examples ?? 20);
  }

  add(conversation: Conversation, line?: number): void {
    const turns = conversation.turns;
    if (!turns.some((t) => t.trace && typeof t.user_utterance === 'string')) return;
    this.conversations++;
    const id = conversationId(conversation, line);
    // What the conversation shows: titles and attribute values (the vocabulary the text is read with).
    const titles = new Map<string, string[]>();
    /** The attribute values of the items shown so far, by their first word. */
    const values = new Map<string, VocabularyEntry[]>();
    const model = { liked: new Set<string>(), disliked: new Set<string>() };
    const shownSoFar: string[] = [];
    const shownSet = new Set<string>();
    /** The items of the last agent turn, in order (what "the second one" points at). */
    let carousel: readonly string[] = [];
    let opened = false;
    turns.forEach((turn, i) => {
      const tr = turn.trace;
      if (tr?.preferences) {
        if (tr.preferences.kind !== 'delta') {
          model.liked.clear();
          model.disliked.clear();
        }
        for (const x of strings(tr.preferences.liked_items)) {
          model.liked.add(x);
          model.disliked.delete(x);
        }
        for (const x of strings(tr.preferences.disliked_items)) {
          model.disliked.add(x);
          model.liked.delete(x);
        }
      }
      if (
        tr &&
        typeof turn.user_utterance === 'string' &&
        turn.user_utterance.trim() !== '' &&
        tr.error === undefined
      ) {
        const found = this.readTurn(turn, tr, titles, values, shownSoFar, model, !opened, carousel);
        opened = true;
        let checked = false;
        let ok = true;
        for (const a of READBACK_ASPECTS) {
          const r = found[a];
          if (r === undefined) continue;
          checked = true;
          this.aspects[a].checked++;
          if (r === true) this.aspects[a].agreed++;
          else {
            ok = false;
            if (this.examples.length < this.max) {
              const ex: ReadbackDisagreement = { conversation: id, turn: i, aspect: a, detail: r };
              if (line !== undefined) ex.line = line;
              this.examples.push(ex);
            }
          }
        }
        if (checked) {
          this.turns++;
          if (ok) this.agreed++;
          else this.disagreeing++;
        }
      }
      carousel = (turn.recommendations ?? []).map((r) => (typeof r?.item_id === 'string' ? r.item_id : ''));
      for (const r of turn.recommendations ?? []) {
        if (typeof r?.item_id !== 'string') continue;
        if (!titles.has(r.item_id) && r.title) titles.set(r.item_id, phraseWords(r.title));
        if (shownSet.has(r.item_id)) continue;
        shownSet.add(r.item_id);
        shownSoFar.push(r.item_id);
        for (const [attr, v] of Object.entries(r.attributes ?? {})) {
          if (typeof v !== 'string' || attr === 'category') continue;
          const words = phraseWords(v);
          if (!words.length || words.every((w) => w.length < 3)) continue;
          const list = values.get(words[0]) ?? [];
          if (!list.some((x) => x.attr === attr && eq(x.value, v))) list.push({ attr, value: v, words });
          values.set(words[0], list);
        }
      }
    });
  }

  /** Per aspect: true (agrees), a detail (disagrees) or undefined (not checked on this turn). */
  private readTurn(
    turn: Turn,
    tr: SimulatorTrace,
    titles: Map<string, string[]>,
    values: Map<string, VocabularyEntry[]>,
    shown: readonly string[],
    model: { liked: Set<string>; disliked: Set<string> },
    opening: boolean,
    carousel: readonly string[],
  ): Partial<Record<ReadbackAspect, true | string>> {
    const text = turn.user_utterance ?? '';
    const out: Partial<Record<ReadbackAspect, true | string>> = {};
    const said = tr.said;
    // Titles named in the text; their words are not read as attribute values (blanked, punctuation kept).
    const spans = tokenizeSpans(text);
    const words = spans.tokens;
    let maskedText = spans.text;
    const named = new Set<string>();
    const wordSet = new Set(words);
    for (const id of shown) {
      const t = titles.get(id);
      if (!t?.length) continue;
      // at most one word of a named title carries a typo: skip titles with two words absent
      let absent = 0;
      for (const w of t) if (!wordSet.has(w) && ++absent > 1) break;
      if (absent > 1) continue;
      const starts = mentionStarts(words, t);
      if (!starts.length) continue;
      named.add(id);
      for (const s of starts) {
        const from = spans.starts[s];
        const to = spans.ends[s + t.length - 1];
        maskedText = maskedText.slice(0, from) + ' '.repeat(to - from) + maskedText.slice(to);
      }
    }
    const act = typeof tr.user_act === 'string' ? convApparelAct(tr.user_act) : undefined;
    // The tagger reads the text with each named title, and each item named by its place ("the
    // second one"), replaced by "this one" (a title's words are not the user's wording).
    const readable = withoutPlaces(
      named.size
        ? replaceTitles(
            text,
            shown.filter((id) => named.has(id)).map((id) => titles.get(id)!),
          )
        : text,
    );
    // A turn that voices opinions on several items ("I like X. Not Y.") performs its act on the first: read the sentence naming it.
    const saidItems = strings(tr.said?.items);
    const actText =
      saidItems.length > 1 ? sentenceNaming(text, titles.get(saidItems[0]), carousel.indexOf(saidItems[0])) : text;
    const actReadable =
      actText === text
        ? readable
        : withoutPlaces(
            replaceTitles(
              actText,
              [...named].map((id) => titles.get(id)!),
            ),
          );
    let tagged: readonly string[] | undefined;
    const read = () => (tagged ??= this.nlu.acts(actReadable));
    // A thanks or a greeting goes with any act ("Mm, make it blue, thanks in advance."): a text the
    // tagger reads only as one is read again without it (unsure then: the act is not read).
    const acts = (): readonly string[] => {
      const r = read();
      if (r.length !== 1 || r[0] !== 'greet_thank') return r;
      const rest = withoutCourtesy(actReadable);
      return rest === actReadable || rest === '' ? r : this.nlu.acts(rest);
    };
    if (act && COMPATIBLE[act] && acts().length > 0) {
      // Openings and endings may greet or thank besides what they do ("Hey, ... something red.", "This isn't working, bye.").
      const greets = mainOfAct(tr.user_act) === 'Complete' || opening;
      // The opinion reader (./opinion.ts) is the read-back's own: a like or dislike it reads in the
      // words is that feedback act ("I like that it's for a wedding.", "X misses the mark. I'll pass on it.").
      // A concession then a verdict ("It almost had me, but I'll pass.") is read by its verdict.
      // The sentence naming the item the act is about speaks for it ("I like X. I don't want anything for lounge wear.").
      const aboutItem = saidItems.length
        ? sentenceNaming(text, titles.get(saidItems[0]), carousel.indexOf(saidItems[0]))
        : text;
      const ownVerdict =
        aboutItem === text
          ? 'none'
          : verdict(
              withoutPlaces(
                replaceTitles(
                  aboutItem,
                  [...named].map((id) => titles.get(id)!),
                ),
              ),
            );
      const voiced = ownVerdict === 'like' || ownVerdict === 'dislike' ? ownVerdict : verdict(actReadable);
      const feedback =
        (voiced === 'like' && COMPATIBLE[act].some((a) => POSITIVE.has(a))) ||
        (voiced === 'dislike' && COMPATIBLE[act].some((a) => NEGATIVE.has(a)));
      const ok = feedback || acts().some((a) => COMPATIBLE[act].includes(a) || (greets && a === 'greet_thank'));
      out.act = ok
        ? true
        : `trace act ${show(tr.user_act)} (${act}) but the text reads as ${show(acts().join(', '))}: ${quote(text)}`;
    }
    if (said) {
      const constraints = Object.entries(said.constraints ?? {}).map(([a, v]) => [a, String(v)] as const);
      const negated = strings(said.negated).map(bareValue);
      const items = strings(said.items);
      // values
      const problems: string[] = [];
      for (const [a, v] of constraints) {
        const how =
          mentionPolarity(maskedText, v) === 'none' ? mentionPolarity(text, v) : mentionPolarity(maskedText, v);
        if (how !== 'stated')
          problems.push(
            `said.constraints ${show(a)}=${show(v)} is ${how === 'none' ? 'not in the text' : 'only negated in the text'}`,
          );
      }
      const negProblems: string[] = [];
      for (const v of negated) {
        const how = mentionPolarity(text, v);
        if (how === 'none') negProblems.push(`said.negated ${show(v)} is not in the text`);
        else if (how === 'stated' && mentionPolarity(maskedText, v) === 'stated')
          negProblems.push(`said.negated ${show(v)} is stated, not negated, in the text`);
      }
      // What the text says that the trace does not: exact mentions of the conversation's attribute
      // values (a mention inside a longer value's mention, "running" in "running shoes", is that value's).
      const found: { attr: string; value: string; clause: number; start: number; end: number; neg: boolean }[] = [];
      clauses(maskedText).forEach((c, k) => {
        c.forEach((w, s) => {
          for (const e of values.get(w) ?? []) {
            if (s + e.words.length <= c.length && e.words.every((x, j) => c[s + j] === x))
              found.push({
                attr: e.attr,
                value: e.value,
                clause: k,
                start: s,
                end: s + e.words.length,
                neg: negatedAt(c, s),
              });
          }
        });
      });
      // The values the trace says are mentions too, whether or not a carousel showed them yet
      // ("cycling" in "like a cycling jersey" is the said type's, not the occasion cycling).
      const saidSpans: { clause: number; start: number; end: number }[] = [];
      const saidWords = [...constraints.map(([, v]) => v), ...negated].map(phraseWords).filter((w) => w.length > 1);
      if (saidWords.length)
        clauses(maskedText).forEach((c, k) => {
          for (const w of saidWords)
            for (const st of mentionStarts(c, w)) saidSpans.push({ clause: k, start: st, end: st + w.length });
        });
      const own = found.filter(
        (m) =>
          ![...found, ...saidSpans].some(
            (o) =>
              o !== m &&
              o.clause === m.clause &&
              o.start <= m.start &&
              o.end >= m.end &&
              o.end - o.start > m.end - m.start,
          ),
      );
      const reported = new Set<string>();
      for (const m of own) {
        const key = `${m.neg}|${m.value.toLowerCase()}`;
        if (reported.has(key)) continue;
        reported.add(key);
        const inTrace = constraints.some(([, x]) => eq(x, m.value)) || negated.some((x) => eq(x, m.value));
        if (inTrace) continue;
        if (m.neg) negProblems.push(`the text negates ${show(m.attr)}=${show(m.value)}, said.negated does not`);
        else problems.push(`the text states ${show(m.attr)}=${show(m.value)}, said.constraints does not`);
      }
      if (said.constraints !== undefined || problems.length) out.values = problems.length ? problems.join('; ') : true;
      if (said.negated !== undefined || negProblems.length)
        out.negations = negProblems.length ? negProblems.join('; ') : true;
      // items
      if (said.items !== undefined || named.size) {
        const p: string[] = [];
        const refers = words.some((w) => REFERENCE_WORDS.has(w));
        for (const id of items)
          if (!named.has(id) && !refers) p.push(`said.items ${show(id)} is neither named nor referred to`);
        for (const id of named)
          if (!items.includes(id) && !namedWithin(id, items, titles))
            p.push(`the text names ${show(id)}, said.items does not`);
        out.items = p.length ? p.join('; ') : true;
      }
      // opinion: what the text voices (the sentence naming the first said item, else the whole
      // text) against the trace's opinion (its act). The opinion lexicon (./opinion.ts) reads it;
      // where it finds none, the tagger's positive or negative acts do.
      const first = items[0];
      const traced =
        tr.user_act === 'Note.Like' || act === 'accept_recommendation'
          ? 'like'
          : tr.user_act === 'Note.Dislike' || act === 'reject_recommendation'
            ? 'dislike'
            : undefined;
      if (traced) {
        const sentence = first ? sentenceNaming(text, titles.get(first), carousel.indexOf(first)) : text;
        const seg =
          sentence === text
            ? readable
            : withoutPlaces(
                replaceTitles(
                  sentence,
                  [...named].map((id) => titles.get(id)!),
                ),
              );
        let lexical = readOpinion(seg);
        // "The Harbor Tote? Yes, that's lovely.": the opinion follows the sentence naming the item; read the
        // whole text when it names no other item
        if (lexical === 'none' && seg !== readable && named.size <= 1) lexical = readOpinion(readable);
        let textSays: 'like' | 'dislike' | undefined =
          lexical === 'like' || lexical === 'dislike' ? lexical : undefined;
        let tagged = false;
        if (lexical === 'none') {
          const acts = seg === actReadable ? read() : this.nlu.acts(seg);
          const pos = acts.some((a) => POSITIVE.has(a));
          const neg = acts.some((a) => NEGATIVE.has(a));
          tagged = acts.some((a) => a !== 'greet_thank' && a !== 'inform_preference');
          if (pos !== neg) textSays = pos ? 'like' : 'dislike';
        }
        // A dislike is of something: an item (said.items, or the items on screen its words refer
        // to) or a value (said.negated). A Note.Dislike that has none of them while its words state
        // a value the user wants (said.constraints) is a disclosure labelled as a dislike, whatever
        // an aside in it voices ("Something burgundy. I'd rather not guess.").
        // ("Not these. I want wool." refers to the carousel on screen: a dislike of it.)
        const wants = constraints.some(([a]) => a !== 'category');
        const refersToShown = named.size > 0 || words.some((w) => REFERENCE_WORDS.has(w));
        if (tr.user_act === 'Note.Dislike' && items.length === 0 && negated.length === 0 && wants && !refersToShown)
          out.opinion = `trace act ${show(tr.user_act)} names nothing it dislikes (no said.items, no said.negated) while the text states what it wants (${show(constraints.map(([a, v]) => `${a}=${v}`).join(', '))}): ${quote(text)}`;
        else if (textSays)
          out.opinion =
            textSays === traced
              ? true
              : `the text voices a ${textSays}${first ? ` of ${show(first)}` : ''}, the trace a ${traced} (${show(tr.user_act)}): ${quote(sentence)}`;
        else if (
          lexical === 'none' &&
          !tagged &&
          (tr.user_act === 'Note.Like' || tr.user_act === 'Note.Dislike') &&
          (seg === readable || readOpinion(readable) === 'none') &&
          // a dislike of a value is voiced by negating it ("I don't want anything blue."): the
          // negations aspect reads that (a turn that also states what it wants is a disclosure)
          !(
            tr.user_act === 'Note.Dislike' &&
            negated.length > 0 &&
            !wants &&
            negated.every((v) => mentionPolarity(maskedText, v) === 'negated')
          )
        ) {
          // an opinion act whose words voice no opinion at all (a Disclose relabelled as a Dislike)
          out.opinion = `trace act ${show(tr.user_act)} voices an opinion, the text none: ${quote(text)}`;
        }
      }
      void model;
    }
    return out;
  }

  report(): ReadbackReport {
    const r: ReadbackReport = {
      nlu: this.nlu.name,
      conversations: this.conversations,
      turns: this.turns,
      agreed: this.agreed,
      aspects: structuredClone(this.aspects),
      disagreements: this.examples.slice(),
      disagreeingTurns: this.disagreeing,
    };
    if (this.turns > 0) r.rate = this.agreed / this.turns;
    return r;
  }
}

/** An attribute value the text may state, matched word for word (no typo forgiven: "range" is not "orange"). */
interface VocabularyEntry {
  attr: string;
  value: string;
  words: readonly string[];
}

/**
 * A named item whose title is part of a said item's title ("Harbor Tote" inside "Harbor Tote Bag"),
 * or is its title word for word (two catalog items may share a title), counts as that item.
 */
function namedWithin(id: string, items: readonly string[], titles: Map<string, string[]>): boolean {
  const t = titles.get(id);
  if (!t) return false;
  return items.some((x) => {
    const other = titles.get(x);
    return other !== undefined && other.length >= t.length && mentionStarts(other, t).length > 0;
  });
}

/**
 * The opinion a text ends on: what the words after its last contrast ("but", "still", "yet",
 * "though", "however") voice when they voice one, else what the whole text voices.
 */
function verdict(text: string): ReturnType<typeof readOpinion> {
  const m = /\b(?:but|still|yet|though|however)\b(?!.*\b(?:but|still|yet|though|however)\b)/i.exec(text);
  if (m) {
    const after = readOpinion(text.slice(m.index + m[0].length));
    if (after === 'like' || after === 'dislike') return after;
  }
  return readOpinion(text);
}

/** Thanks and greetings said besides an act ("thanks in advance", "thank you so much", "cheers", "hi there"). */
const COURTESY =
  /\b(?:thanks(?: so much| a lot| in advance)?|thank you(?: so much| very much| in advance)?|many thanks|cheers|hi there|hello|hey|hi)\b[,!.]?/gi;

/** `text` without its thanks and greetings (trimmed; '' when nothing else is left). */
function withoutCourtesy(text: string): string {
  const rest = text.replace(COURTESY, ' ');
  return /[a-z]/i.test(rest.replace(/[^a-z]+/gi, '')) ? rest.replace(/\s+/g, ' ').trim() : '';
}

/** `text` with every mention of the titles (word lists) replaced by "this one". */
function replaceTitles(text: string, titles: readonly string[][]): string {
  const spans = tokenizeSpans(text);
  const cuts: [number, number][] = [];
  for (const t of titles)
    for (const s of mentionStarts(spans.tokens, t)) cuts.push([spans.starts[s], spans.ends[s + t.length - 1]]);
  cuts.sort((a, b) => b[0] - a[0]);
  let out = spans.text;
  let limit = Infinity;
  for (const [from, to] of cuts) {
    if (to > limit) continue;
    out = `${out.slice(0, from)}this one${out.slice(to)}`;
    limit = from;
  }
  return out;
}

/** The sentence of `text` that names the title (the whole text when none does, or the title is unknown). */
/**
 * The sentence of `text` that names an item: by its title, else by its place in the carousel
 * (`position`, 0-based; "the second one", "the first"), else the whole text.
 */
function sentenceNaming(text: string, title: string[] | undefined, position = -1): string {
  if (!title?.length && position < 0) return text;
  const sentences = text.split(/(?<=[.!?])\s+/);
  if (sentences.length < 2) return text;
  const words = sentences.map((s) => tokenize(s));
  let k = title?.length ? words.findIndex((w) => mentionStarts(w, title).length > 0) : -1;
  if (k < 0 && position >= 0) k = words.findIndex((w) => pointsAt(w, position));
  return k < 0 ? text : sentences[k];
}

/** An item named by its place ("the second one", "the first", "that third one"). */
const PLACE = new RegExp(`\\b(?:the|that|this) (?:${Object.keys(ORDINAL_POSITIONS).join('|')})(?: one)?\\b`, 'gi');

/** `text` with every item named by its place read as "this one", as a named title is (`replaceTitles`). */
function withoutPlaces(text: string): string {
  return text.replace(PLACE, 'this one');
}

/** Whether `words` point at the carousel place `position` ("the second one", "the first", "third one"). */
function pointsAt(words: readonly string[], position: number): boolean {
  return words.some(
    (w, i) =>
      ORDINAL_POSITIONS[w] === position &&
      (['the', 'that', 'this'].includes(words[i - 1] ?? '') || words[i + 1] === 'one'),
  );
}

/** Reads back a whole population in memory. */
export function readBack(conversations: Iterable<Conversation>, options: ReadbackOptions = {}): ReadbackReport {
  const r = new ReadbackChecker(options);
  for (const c of conversations) r.add(c);
  return r.report();
}
