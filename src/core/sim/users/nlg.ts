/**
 * Template natural-language generation for simulated users: one template list per user act
 * (src/core/sim/users/nlg-templates.json), a random choice among the templates whose slots can be
 * filled, and optional random typos. A template is a small grammar: `(a|b|c)` picks one
 * alternative, `[x]` is said or left out (even odds), both nest and may hold `{slots}`; one act's
 * list therefore stands for hundreds of wordings. Wordings the caller names (`avoid`: every
 * utterance said so far in the conversation) are not said again while another wording exists.
 */
import * as z from 'zod';
import { createRng, type Rng } from '../../random';
import { mainAct } from '../../taxonomy/acts';
import { loadJsonFile } from './transitions';
import templatesJson from './nlg-templates.json';
import corpusFrames from './corpus-frames.json';
import { tokenize } from '../../text/tokenize';

const NlgTemplatesSchema = z.looseObject({
  acts: z.record(z.string(), z.array(z.string()).min(1)),
  /** Named lists of alternatives shared by the templates: `<name>` in a template is one of them. */
  pools: z.record(z.string(), z.array(z.string()).min(1)).optional(),
});
type NlgTemplates = z.infer<typeof NlgTemplatesSchema>;

let defaultTemplates: NlgTemplates | undefined;

/** The built-in templates, validated once per process and frozen (every user shares them). */
export function defaultNlgTemplates(): NlgTemplates {
  return (defaultTemplates ??= deepFreeze(NlgTemplatesSchema.parse(templatesJson)));
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

export function loadNlgTemplates(path: string): NlgTemplates {
  return loadJsonFile(path, NlgTemplatesSchema);
}

/**
 * The pools of sentences drawn from the human corpora (corpus-frames.json, built by
 * scripts/user-frames.ts): `<c_hi>`, `<c_thanks>`, ... in any templates file. A templates file's
 * own pool of the same name wins.
 */
const CORPUS_POOLS: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  Object.entries(corpusFrames.pools).map(([name, frames]) => [name, frames.map((f) => f.text)]),
);

/**
 * Slot values for one utterance; missing slots rule out the templates that need them. `plural`:
 * the {item} is named in the plural ("Halden Navy Loafers"), so each `{singular|plural}` part of
 * the template says its second form ("are", "they're", "them").
 */
export type SlotFill = Partial<
  Record<
    'category' | 'value' | 'attribute' | 'item' | 'item2' | 'liked' | 'disliked' | 'general' | 'detail' | 'feature',
    string
  >
> & { plural?: boolean };

const POOL = /<(\w+)>/g;

/**
 * Writes each `<name>` of a template as the choice among the pool's alternatives, `(a|b|c)`
 * (pools may use pools, up to a few levels). An unknown pool name is an error naming template and
 * pool, so a typo in a templates file does not end up in the simulated users' mouths.
 */
export function expandPools(
  text: string,
  pools: Readonly<Record<string, readonly string[]>> = {},
  where = 'template',
): string {
  let out = text;
  for (let depth = 0; depth < 4 && POOL.test(out); depth++) {
    POOL.lastIndex = 0;
    out = out.replace(POOL, (_, name: string) => {
      const list = pools[name];
      if (!list) throw new Error(`${where}: unknown pool <${name}> in "${text}"`);
      return `(${list.join('|')})`;
    });
  }
  POOL.lastIndex = 0;
  if (POOL.test(out)) throw new Error(`${where}: pools nested too deeply in "${text}"`);
  return out;
}

/**
 * A parsed template: literal text, a slot, a choice among alternatives, an optional part, or the
 * two forms of an agreement with the {item}'s number (`{is|are}`: the first for a singular item,
 * the second for a plural one; not a random choice).
 */
type Part = string | { slot: string } | { choice: Part[][] } | { optional: Part[] } | { agree: [Part[], Part[]] };

interface Template {
  text: string;
  /** Every slot the template can say (in any alternative). */
  slots: string[];
  parts: Part[];
  /** True when the template has no choice or optional part (one wording only). */
  fixed: boolean;
}

const SLOT_NAME = /^\w+$/;

/** Parses the template grammar; a bracket without its partner is a plain character. */
export function parseTemplate(text: string): Part[] {
  let i = 0;
  const seq = (stops: string): Part[] => {
    const out: Part[] = [];
    // The literal text so far is text[lit, i) (every character not taken as a slot or a bracket
    // is kept in order): cut once, not built character by character.
    let lit = i;
    const flush = (end: number) => {
      if (end > lit) out.push(text.slice(lit, end));
    };
    while (i < text.length) {
      // Plain characters pass at once (a stop is always one of the brackets or "|").
      const code = text.charCodeAt(i);
      if (code !== 123 && code !== 125 && code !== 40 && code !== 91 && code !== 41 && code !== 93 && code !== 124) {
        i++;
        continue;
      }
      const ch = text[i];
      if (stops.includes(ch)) break;
      if (ch === '{') {
        const end = text.indexOf('}', i);
        const name = end > i ? text.slice(i + 1, end) : '';
        if (SLOT_NAME.test(name)) {
          flush(i);
          out.push({ slot: name });
          i = end + 1;
          lit = i;
          continue;
        }
        // `{singular|plural}`: the two forms of a word that agrees with the {item}'s number
        const save = i;
        i++;
        const one = seq('|}');
        if (text[i] === '|') {
          i++;
          const many = seq('|}');
          if (text[i] === '}') {
            i++;
            flush(save);
            out.push({ agree: [one, many] });
            lit = i;
            continue;
          }
        }
        i = save; // not an agreement: a plain character
      } else if (ch === '(' || ch === '[') {
        const close = ch === '(' ? ')' : ']';
        const save = i;
        i++;
        const alts: Part[][] = [seq(close + (ch === '(' ? '|' : ''))];
        while (ch === '(' && text[i] === '|') {
          i++;
          alts.push(seq(')|'));
        }
        if (text[i] === close) {
          i++;
          flush(save);
          out.push(ch === '(' ? { choice: alts } : { optional: alts[0] });
          lit = i;
          continue;
        }
        i = save; // unbalanced: a plain character
      }
      i++;
    }
    flush(i);
    return out;
  };
  const parts: Part[] = [];
  while (i < text.length) {
    parts.push(...seq(''));
    if (i < text.length) parts.push(text[i++]);
  }
  return parts;
}

function slotsOf(parts: readonly Part[], out: string[] = []): string[] {
  for (const p of parts) {
    if (typeof p === 'string') continue;
    if ('slot' in p) {
      if (!out.includes(p.slot)) out.push(p.slot);
    } else if ('choice' in p) for (const a of p.choice) slotsOf(a, out);
    else if ('agree' in p) for (const a of p.agree) slotsOf(a, out);
    else slotsOf(p.optional, out);
  }
  return out;
}

/** One wording only (given the item's number): no choice or optional part, agreements included. */
function isFixed(parts: readonly Part[]): boolean {
  return parts.every((p) => typeof p === 'string' || 'slot' in p || ('agree' in p && p.agree.every(isFixed)));
}

/** Attribute names read better with spaces: "price_band" -> "price band". */
export function readableAttribute(name: string): string {
  return name.replace(/[_-]+/g, ' ');
}

/** A stretch of text [start, end) that typos must leave alone. */
interface TextSpan {
  start: number;
  end: number;
}

/**
 * The words a user act rests on, which a typo never touches (seventeenth round: "The first one is
 * a miiss for me", "looks deecent", "is net" read as no opinion at all): the appraisal words of
 * likes and dislikes ("love", "keen", "fan", "decent", "miss", "pass", the templates' `feel`, `meh`,
 * `good` and `notkeen` pools), the words of deciding and asking ("take", "buy", "prefer", "instead",
 * "similar", "compare", "back", "more"), negations and the words of saying again ("still",
 * "again", "said"). A slip lands on the other words (hedges, greetings, reasons, fillers), as
 * people's slips do not change what they mean; nor on a word whose slip is another opinion word
 * ("niece" read as "nice").
 */
const ACT_WORDS_LISTED = `like likes liked love loves loved lovely fond keen fan favourite favorite enjoy appreciate adore prefer
  preferred rather want wanted wants need needs must pass passes miss skip take buy instead changed change
  mind forget decide avoid that works suits suit worth counts nice neat decent interesting promising appealing appeals appeal
  tempting tempted cool great good perfect ideal winner contender alley speed close almost nearly thumbs
  better best right just much more less hate dislike wrong bland dull dated garish tacky boring bores
  disappoints disappointing underwhelming underwhelms lukewarm unimpressed puts grabs thing tea doesn't isn't
  don't won't wasn't can't aren't never nothing not no none without still again said mentioned asked told
  remember missed similar compare comparison difference between back previous earlier before next others else
  another other show list have carry stock got help recommend suggest looking after hunting want picturing
  hoping bye goodbye thanks thank elsewhere leave leaving quits done stop what would fine over bonus exactly
  appreciated also grab brilliant doing plus hard putting real terrific frumpy misses mark something looks
  solid superb fabulous wins glorious impressive sweet smart delights marvellous stunning cute favourites
  excites marvelous some niece`;

let actWords: ReadonlySet<string> | undefined;
function actWordSet(): ReadonlySet<string> {
  if (actWords) return actWords;
  const set = new Set(ACT_WORDS_LISTED.split(/\s+/).filter(Boolean));
  const pools = defaultNlgTemplates().pools ?? {};
  for (const name of ['feel', 'meh', 'good', 'notkeen'])
    for (const phrase of pools[name] ?? []) for (const w of phrase.toLowerCase().match(/[a-z']+/g) ?? []) set.add(w);
  return (actWords = set);
}

/** Whether a typo may land on `word` (not one of the words a user act rests on, `actWordSet`). */
export function typoMayChange(word: string): boolean {
  return !actWordSet().has(word.toLowerCase());
}

/**
 * Introduces one typo into a word of four or more letters: two neighbouring letters swapped, a
 * letter dropped, or a letter doubled. Words overlapping a span of `keep` (the filled slots: the
 * values, items and attributes the utterance states) are never changed, so the meaning survives;
 * nor are the words the act rests on (`typoMayChange`). Returns the text unchanged when no word
 * qualifies.
 */
export function addTypo(text: string, rng: Rng, keep: readonly TextSpan[] = []): string {
  const words: { start: number; end: number }[] = [];
  const re = /[A-Za-z]{4,}(?:'[a-z]+)?/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    const start = m.index;
    const end = start + m[0].length;
    if (!typoMayChange(m[0])) continue;
    if (!keep.some((k) => start < k.end && k.start < end))
      words.push({ start, end: start + m[0].replace(/'.*/, '').length });
  }
  if (words.length === 0) return text;
  const w = rng.pick(words);
  const word = text.slice(w.start, w.end);
  const i = 1 + rng.int(word.length - 2);
  let typo: string;
  switch (rng.int(3)) {
    case 0:
      typo = word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
      break;
    case 1:
      typo = word.slice(0, i) + word.slice(i + 1);
      break;
    default:
      typo = word.slice(0, i) + word[i] + word.slice(i);
      break;
  }
  return text.slice(0, w.start) + typo + text.slice(w.end);
}

/** A generated utterance and the slots its template filled (what the text actually states). */
interface Realisation {
  text: string;
  /** Slot names the chosen wording used, e.g. ["category", "value"]. */
  used: string[];
}

interface NlgOptions {
  templates?: NlgTemplates;
  /** Probability that an utterance gets one random typo (default 0.05). */
  typoRate?: number;
}

/** Wordings to stay away from: the previous utterance, or every utterance said so far. */
type Avoid = string | ReadonlySet<string> | undefined;

/**
 * How close `text` comes to something in `avoid`: 1 when it says an avoided wording word for word
 * (compared as the checker's no-repetition invariant compares utterances: tokens, case and
 * punctuation aside, so "preferably yellow" repeats "Preferably yellow."), else the highest Jaccard
 * similarity of its token set with an avoided wording's. At NEAR_REPEAT or above it is a
 * near-repeat ("Could I see a few options?" after "Can I see a few options?") and is avoided too.
 */
function closeness(avoid: AvoidTokens, text: string): number {
  if (avoid.list.length === 0) return 0;
  const words = tokenize(text);
  const joined = words.join(' ');
  if (avoid.joined.has(joined)) return 1;
  const set = new Set(words);
  let best = 0;
  for (const a of avoid.list) {
    let both = 0;
    for (const w of set) if (a.has(w)) both++;
    const union = set.size + a.size - both;
    const j = union === 0 ? 1 : both / union;
    if (j > best) best = j;
  }
  return best;
}

/** Token-set similarity at or above which a wording counts as a near-repeat of an avoided one. */
const NEAR_REPEAT = 0.8;

interface AvoidTokens {
  joined: Set<string>;
  list: Set<string>[];
}

/** Token sets of a conversation's `avoid` set, extended as the set grows (callers only add to it; sets keep insertion order). */
const avoidCache = new WeakMap<ReadonlySet<string>, AvoidTokens & { count: number }>();

function addTokens(into: AvoidTokens, text: string): void {
  const words = tokenize(text);
  into.joined.add(words.join(' '));
  into.list.push(new Set(words));
}

function avoidTokens(avoid: Avoid): AvoidTokens {
  if (avoid === undefined) return { joined: new Set(), list: [] };
  if (typeof avoid === 'string') {
    const one: AvoidTokens = { joined: new Set(), list: [] };
    addTokens(one, avoid);
    return one;
  }
  let cached = avoidCache.get(avoid);
  if (!cached || cached.count > avoid.size) avoidCache.set(avoid, (cached = { joined: new Set(), list: [], count: 0 }));
  if (cached.count < avoid.size) {
    let i = 0;
    for (const t of avoid) if (i++ >= cached.count) addTokens(cached, t);
    cached.count = avoid.size;
  }
  return cached;
}

/**
 * Random wordings tried before giving up on finding one not in `avoid` (the search stops at the
 * first new one, so only a conversation that has used up nearly every wording of an act pays for
 * them: with one new wording among six, 64 draws miss it about once in 100,000 times).
 */
const ATTEMPTS = 64;

/** Templates compiled (pools expanded, parsed) once per templates object; compiled templates are read only. */
const compiledTemplates = new WeakMap<NlgTemplates, ReadonlyMap<string, Template[]>>();

/** Every pool a template of `templates` may name: its own and those drawn from the corpora. */
export function templatePools(templates: NlgTemplates): Readonly<Record<string, readonly string[]>> {
  return { ...CORPUS_POOLS, ...templates.pools };
}

function compileTemplates(templates: NlgTemplates): ReadonlyMap<string, Template[]> {
  const pools = templatePools(templates);
  const table = new Map<string, Template[]>();
  for (const [act, list] of Object.entries(templates.acts)) {
    table.set(
      act,
      list.map((text, i) => {
        const parts = parseTemplate(expandPools(text, pools, `acts.${act}[${i}]`));
        return { text, parts, slots: slotsOf(parts), fixed: isFixed(parts) };
      }),
    );
  }
  return table;
}

/**
 * A template generator (stateless across sessions: what to avoid is passed in). Cheap to create:
 * the templates are compiled once per templates object and shared.
 */
export class TemplateNlg {
  private readonly table: ReadonlyMap<string, Template[]>;
  readonly typoRate: number;

  constructor(options: NlgOptions = {}) {
    this.typoRate = options.typoRate ?? 0.05;
    if (!(this.typoRate >= 0 && this.typoRate <= 1))
      throw new RangeError(`typo rate must be in [0, 1], got ${this.typoRate}`);
    const templates = options.templates ?? defaultNlgTemplates();
    let table = compiledTemplates.get(templates);
    if (!table) compiledTemplates.set(templates, (table = compileTemplates(templates)));
    this.table = table;
  }

  /** The template list used for an act (its own, else its main act's, else Other). */
  private templatesFor(act: string): Template[] {
    return (
      this.table.get(act) ??
      this.table.get(mainAct(act)) ??
      this.table.get('Other') ?? [{ text: 'Okay.', parts: ['Okay.'], slots: [], fixed: true }]
    );
  }

  /** True when some template exists for this exact act name. */
  has(act: string): boolean {
    return this.table.has(act);
  }

  /**
   * An utterance for `act`. Templates whose slots are not all in `fill` are skipped (if none
   * qualifies, the slot-free ones are used, else the first template with gaps filled by "that").
   * Wordings in `avoid`, and near-repeats of them, are not said when another one exists.
   */
  generate(act: string, fill: SlotFill, rng: Rng, avoid?: Avoid): string {
    return this.realise(act, fill, rng, avoid).text;
  }

  /**
   * Like `generate`, and says which slots the text states. Templates that use every slot in
   * `require` are preferred (a user that means to state a value picks a template that says it),
   * and their wordings that leave a required slot out are redrawn; when the act has none, the
   * usual choice applies and `used` shows what was left out. `avoid` names wordings not to say
   * again (the previous utterance, or a set of every earlier one): random wordings are drawn until
   * one is new (not said before, nor a near-repeat: token-set Jaccard >= NEAR_REPEAT with an earlier
   * wording), else the least similar one drawn is said; an act whose templates are all fixed tries
   * each of them in turn. Random typos never touch the filled slots, and a revision (an act
   * ending in ".Revise") gets none. Takes exactly one draw from the generator passed in, whatever the templates.
   */
  realise(act: string, fill: SlotFill, caller: Rng, avoid?: Avoid, require: readonly string[] = []): Realisation {
    // One draw from the caller's generator seeds the wording: however many choices a template
    // set makes, the caller's later draws (the user's decisions) are the same, so changing the
    // words never changes what a seeded user does.
    const rng = createRng(caller.int(0x7fffffff));
    const all = this.templatesFor(act);
    const has = fill as Record<string, string | undefined>;
    const filled = (s: string) => has[s] !== undefined && has[s] !== '';
    let usable = all.filter((t) => t.slots.every(filled));
    if (require.length) {
      const saying = usable.filter((t) => require.every((r) => t.slots.includes(r)));
      if (saying.length) usable = saying;
    }
    if (usable.length === 0) usable = all.filter((t) => t.slots.length === 0);
    if (usable.length === 0) usable = all;
    const wanted = require.filter(filled);
    const away = avoidTokens(avoid);
    let best: Expansion | undefined;
    let bestScore = Infinity;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const chosen = rng.pick(usable);
      const e = this.expand(chosen, has, rng, wanted);
      const score = closeness(away, e.text);
      if (score < bestScore) {
        best = e;
        bestScore = score;
      }
      if (score < NEAR_REPEAT) break;
      // a template with one wording and nothing new: look at the others straight away
      if (chosen.fixed && usable.every((t) => t.fixed)) {
        const other = usable
          .map((t) => this.expand(t, has, rng, wanted))
          .filter((x) => closeness(away, x.text) < NEAR_REPEAT);
        if (other.length) best = rng.pick(other);
        else {
          const fresh = usable.map((t) => this.expand(t, has, rng, wanted)).filter((x) => closeness(away, x.text) < 1);
          if (fresh.length && bestScore >= 1) best = rng.pick(fresh);
        }
        break;
      }
    }
    const e = best!;
    let text = e.text;
    // A revision's wording ("instead", "changed my mind") is what makes it a revision: no typo
    // there. The draw is still made, so the other utterances of a seeded run stay as they were.
    const exact = act.endsWith('.Revise');
    if (this.typoRate > 0 && rng.chance(this.typoRate) && !exact) text = addTypo(text, rng, e.spans);
    return { text, used: e.used };
  }

  /** One wording of a template (wordings that drop a required slot are redrawn a few times). */
  private expand(
    t: Template,
    fill: Record<string, string | undefined>,
    rng: Rng,
    require: readonly string[],
  ): Expansion {
    let e = this.expandOnce(t, fill, rng);
    for (let k = 0; k < 8 && require.some((r) => t.slots.includes(r) && !e.used.includes(r)); k++)
      e = this.expandOnce(t, fill, rng);
    return e;
  }

  private expandOnce(t: Template, fill: Record<string, string | undefined>, rng: Rng): Expansion {
    const plural = (fill as SlotFill).plural === true;
    const spans: TextSpan[] = [];
    const used: string[] = [];
    let out = '';
    const walk = (parts: readonly Part[]) => {
      for (const p of parts) {
        if (typeof p === 'string') out += /,\s*$/.test(out) ? midSentence(p) : p;
        else if ('slot' in p) {
          const value = fill[p.slot];
          const text = value === undefined || value === '' ? 'that' : value;
          if (text !== 'that' && !used.includes(p.slot)) used.push(p.slot);
          spans.push({ start: out.length, end: out.length + text.length });
          out += text;
        } else if ('choice' in p) walk(p.choice[rng.int(p.choice.length)]);
        else if ('agree' in p) walk(p.agree[plural ? 1 : 0]);
        else if (rng.chance(0.5)) walk(p.optional);
      }
    };
    walk(t.parts);
    if (t.fixed) return { text: out, spans, used };
    // parts left out leave double spaces and spaces before punctuation behind
    return tidy(out, spans, used);
  }
}

/** Words that keep their capital inside a sentence. */
const ALWAYS_CAPITAL = /^(I|I'm|I'd|I've|I'll|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\b/;

/**
 * A wording that starts a sentence of its own in a pool ("Can you help me out", "Good speaking with
 * you") continued after a comma: its first letter in lower case ("Good afternoon, can you help me
 * out?"; seventeenth round: 70 of 16,689 user utterances had "..., Can you", "..., You've lost me").
 * Slots (item titles) are not strings here and keep theirs.
 */
function midSentence(text: string): string {
  return /^[A-Z][a-z]/.test(text) && !ALWAYS_CAPITAL.test(text) ? text[0].toLowerCase() + text.slice(1) : text;
}

interface Expansion {
  text: string;
  spans: TextSpan[];
  used: string[];
}

/** Collapses runs of spaces, drops spaces before , . ! ? and commas left dangling; keeps spans aligned. */
function tidy(text: string, spans: TextSpan[], used: string[]): Expansion {
  const punct = (c: string | undefined) => c === ',' || c === '.' || c === '!' || c === '?';
  const map: number[] = [];
  let out = '';
  for (let i = 0; i < text.length; i++) {
    map.push(out.length);
    const ch = text[i];
    let drop = false;
    if (ch === ' ') {
      const next = text[i + 1];
      drop = out.length === 0 || out.endsWith(' ') || next === undefined || next === ' ' || punct(next);
    } else if (ch === ',') {
      let j = i + 1;
      while (text[j] === ' ') j++;
      drop = j >= text.length || punct(text[j]) || out.length === 0;
    }
    if (!drop) out += ch;
  }
  map.push(out.length);
  return { text: out, spans: spans.map((s) => ({ start: map[s.start], end: map[s.end] })), used };
}
