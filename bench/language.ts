/**
 * Issue 21, classes 10-14: counts, per simulator configuration (the 30 cells of
 * test/support/simulators.ts, 500 conversations each by default, seed "language-21b"), what a
 * reader of the runs found, with definitions of our own:
 *
 * - repeat (10): a user utterance equal, character for character, to an earlier user utterance of
 *   the same conversation, its act not a Navigate.Repeat (nor an ignored agent error). Reported as
 *   % of conversations with one, % of user turns, and the most repeats of one text in a dialogue.
 * - likeRejected (11, target-free): a Note.Like turn whose liked item (the first named item the
 *   trace reflects as "like") carries a value the user said earlier it does not want (`said.negated`).
 * - target top 3 (12, meta users): turns whose previous carousel holds the meta target among its
 *   first 3 items; "missed" = those where the user did not accept (it should take it at once).
 * - language (13): user utterances delexicalised (item titles -> <item>, catalog values and
 *   category names -> <v>, numbers -> <n>, lower case): distinct forms; type/token ratio over the
 *   first N tokens of the run (N = the human corpus's user token count, so the ratios compare like
 *   with like) and over all tokens; words per utterance; distinct user act sequences. Also the
 *   openings alone (each conversation's first user utterance, TTR over the first N' tokens, N' =
 *   the token count of the IARD gold corpus's openings): a run of users that accept on their
 *   second turn is mostly openings, an act mix unlike the human corpus's.
 * - near-repeat (10, the reviewer's finding): a user utterance that is not a verbatim repeat but has
 *   the same act and the same said content (`trace.said`: constraints, negated values, items) as an
 *   earlier user utterance of the conversation, and whose token set (lower case, the tokenizer
 *   below) has a Jaccard similarity >= 0.8 with that utterance's; Navigate.Repeat and ignored agent
 *   errors excepted, as for verbatim repeats. Reported per 1,000 user turns. Agent near-repeats: an
 *   agent utterance with Jaccard >= 0.8 to an earlier agent utterance of the conversation (verbatim
 *   ones included), per 1,000 agent turns.
 * - ungrammatical fills (13): agreement errors a reader spots at once, counted per utterance by
 *   `grammarSlips` (user and agent): "a"/"an" before the wrong sound ("a anorak", "an parka"), "a"
 *   before a plural catalog type ("a sneakers"), a singular catalog type with no determiner after
 *   "like"/"want"/"need"/"after"/"for" ("something like tank top"), "for unisex", a doubled word
 *   ("the the"), a mass noun counted ("a few footwear"; "a few footwear pieces" is not a slip: until this round the
 *   bench counted it as one).
 * - carousel repeat (14): an agent carousel whose first 3 item ids are, as a set, those of the
 *   previous carousel, the user not having asked to go back or see it again (Navigate.Back,
 *   Navigate.Repeat); over all carousels, and over those the agent searched for on that turn
 *   (`trace.agent.query` set; the others are kept on screen while it answers a question). "rejected kept": a turn naming a shown item the user rejects (trace reflects
 *   "dislike", or a Note.Dislike) after which the agent's next carousel still holds that item.
 *
 *   node scripts/build.mjs && node dist/bench.js language [-- --n 500] [-- --seed S] [-- --no-results]
 *
 * Human figures come from test/fixtures/datasets (IARD gold, AB-ReDial, MovieBot), read with the
 * project's own importers and the same tokenizer.
 */
import * as path from 'node:path';
import { importFile } from '../src/core/importers/index';
import type { Conversation } from '../src/core/model';
import { parseSimulationConfig, prepareEnvironment, simulateConversation } from '../src/core/run/index';
import { categoryNoun } from '../src/core/sim/recommenders/local/phrases';
import { AgentNlu, agentActClassifier } from '../src/core/sim/users/nlu';
import { isPluralNoun } from '../src/core/text/articles';
import { SIMULATOR_MATRIX } from '../test/support/simulators';
import { machineInfo, updateResultsSection } from './harness';

function argValue(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

const TOKEN = /[a-z0-9]+(?:'[a-z]+)?/g;

export function tokens(text: string): string[] {
  return text.toLowerCase().match(TOKEN) ?? [];
}

/** Jaccard similarity of two token sets. */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let both = 0;
  for (const t of a) if (b.has(t)) both++;
  return both / (a.size + b.size - both);
}

export const NEAR_REPEAT = 0.8;

/** Words that take "a" although spelled with a vowel, or "an" although spelled with a consonant. */
const A_BEFORE_VOWEL = /^(?:uni|use|usu|one|once|eu|ewe|u[bcfklrst][aeiou])/;
const AN_BEFORE_CONSONANT = /^(?:hour|honest|honou?r|heir)/;

/**
 * Agreement slips in one utterance (see the header): a list of the offending stretches, empty when
 * none. `singularTypes` / `pluralTypes`: the catalog's type values by number.
 */
export function grammarSlips(text: string, singularTypes: readonly string[], pluralTypes: readonly string[]): string[] {
  const out: string[] = [];
  const lower = text.toLowerCase();
  for (const m of lower.matchAll(/(?<![a-z0-9'])(a|an) ([a-z][a-z'-]*)/g)) {
    const [all, art, word] = m;
    const vowel = /^[aeiou]/.test(word);
    if (art === 'a' && vowel && !A_BEFORE_VOWEL.test(word)) out.push(all);
    else if (art === 'an' && !vowel && !AN_BEFORE_CONSONANT.test(word)) out.push(all);
    else if (art === 'an' && A_BEFORE_VOWEL.test(word)) out.push(all);
  }
  const esc = (v: string) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  for (const p of pluralTypes)
    for (const m of lower.matchAll(new RegExp(`(?<![a-z0-9'])an? ${esc(p)}(?![a-z0-9])`, 'g'))) out.push(m[0]);
  const longer = [...singularTypes, ...pluralTypes];
  for (const t of singularTypes) {
    for (const m of lower.matchAll(
      new RegExp(`(?<![a-z0-9'])(?:like|want|need|after|for) ${esc(t)}(?![a-z0-9-])`, 'g'),
    )) {
      // part of a longer type ("for shirt dresses", "for belt bags") is not a bare singular
      const at = m.index + m[0].length - t.length;
      if (
        longer.some(
          (l) =>
            l.length > t.length && l.startsWith(`${t} `) && lower.startsWith(l.slice(0, l.lastIndexOf(' ') + 2), at),
        )
      )
        continue;
      out.push(m[0]);
    }
  }
  for (const m of lower.matchAll(/(?<![a-z0-9'])for unisex(?=\s*(?:[.!?;:]|$|and |or |but |too|as well|please))/g))
    out.push(m[0]);
  for (const m of lower.matchAll(/(?<![a-z0-9'])([a-z]+) \1(?![a-z0-9'])/g)) out.push(m[0]);
  // mass nouns counted as if they were plural or singular ("a few footwear", "an outerwear")
  for (const m of lower.matchAll(
    /(?<![a-z0-9'])(?:a|an|a few|few|many|several) (?:footwear|outerwear|activewear|swimwear|knitwear|loungewear)(?![a-z]| pieces\b)/g,
  ))
    out.push(m[0]);
  return out;
}

/** Language figures of a list of utterances (in order). */
export interface LanguageFigures {
  utterances: number;
  tokens: number;
  forms: number;
  ttrAll: number;
  ttrAt: number;
  /** Distinct forms among the first `sampleUtterances` utterances (like for like with a corpus). */
  formsAt: number;
  /** Moving-average type/token ratio over windows of MATTR_WINDOW tokens (independent of the sample's length). */
  mattr: number;
  wordsPerUtterance: number;
}

/** Window of the moving-average type/token ratio (Covington & McFall 2010). */
export const MATTR_WINDOW = 100;

/** Moving-average type/token ratio: the mean TTR of every window of `w` consecutive tokens (plain TTR when shorter). */
export function mattr(list: readonly string[], w = MATTR_WINDOW): number {
  if (list.length === 0) return 0;
  if (list.length <= w) return new Set(list).size / list.length;
  const counts = new Map<string, number>();
  let types = 0;
  for (let i = 0; i < w; i++) {
    const n = (counts.get(list[i]) ?? 0) + 1;
    counts.set(list[i], n);
    if (n === 1) types++;
  }
  let sum = types;
  for (let i = w; i < list.length; i++) {
    const out = list[i - w];
    const m = counts.get(out)! - 1;
    counts.set(out, m);
    if (m === 0) types--;
    const n = (counts.get(list[i]) ?? 0) + 1;
    counts.set(list[i], n);
    if (n === 1) types++;
    sum += types;
  }
  return sum / (list.length - w + 1) / w;
}

export function languageFigures(
  utterances: readonly string[],
  forms: readonly string[],
  sampleTokens: number,
  sampleUtterances = utterances.length,
): LanguageFigures {
  const all: string[] = [];
  for (const u of utterances) all.push(...tokens(u));
  const ttr = (list: string[]) => (list.length ? new Set(list).size / list.length : 0);
  return {
    utterances: utterances.length,
    tokens: all.length,
    forms: new Set(forms).size,
    ttrAll: ttr(all),
    ttrAt: ttr(all.slice(0, sampleTokens)),
    formsAt: new Set(forms.slice(0, sampleUtterances)).size,
    mattr: mattr(all),
    wordsPerUtterance: utterances.length ? all.length / utterances.length : 0,
  };
}

/** Replaces item titles, values and numbers by placeholders (longest first). */
export class Delexicaliser {
  private readonly valueRe: RegExp;
  constructor(values: Iterable<string>) {
    const list = [...new Set([...values].map((v) => v.toLowerCase()).filter((v) => v.length > 1))].sort(
      (a, b) => b.length - a.length,
    );
    const esc = list.map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    this.valueRe = new RegExp(`(?<![a-z0-9])(?:${esc.join('|')})(?![a-z0-9])`, 'g');
  }
  form(text: string, titles: readonly string[]): string {
    let t = text.toLowerCase();
    for (const title of [...titles].sort((a, b) => b.length - a.length))
      if (title) t = t.split(title.toLowerCase()).join('<item>');
    t = t.replace(this.valueRe, '<v>').replace(/\d+(?:\.\d+)?/g, '<n>');
    return t.replace(/\s+/g, ' ').trim();
  }
}

async function humanCorpora(): Promise<{ name: string; user: string[]; agent: string[]; openings: string[] }[]> {
  const root = path.resolve(__dirname, '..', 'test', 'fixtures', 'datasets');
  const files: [string, string][] = [
    ['IARD gold (ReDial)', 'usersimcrs-iard-gold/formatted_IARD_annotated_gold.json'],
    ['AB-ReDial', 'ab-redial/annotated_dialogues.csv'],
    ['MovieBot', 'usersimcrs-moviebot/annotated_dialogues.json'],
  ];
  const out = [];
  for (const [name, file] of files) {
    const { conversations } = await importFile(path.join(root, file));
    const seen = new Set<string>();
    const user: string[] = [];
    const agent: string[] = [];
    const openings: string[] = [];
    for (const c of conversations) {
      const key = JSON.stringify(c.turns.map((t) => [t.user_utterance, t.assistant_utterance]));
      if (seen.has(key)) continue; // AB-ReDial has one row per rater
      seen.add(key);
      const first = c.turns.find((t) => t.user_utterance);
      if (first?.user_utterance) openings.push(first.user_utterance);
      for (const t of c.turns) {
        if (t.user_utterance) user.push(t.user_utterance);
        if (t.assistant_utterance) agent.push(t.assistant_utterance);
      }
    }
    out.push({ name, user, agent, openings });
  }
  return out;
}

const perMille = (a: number, b: number) => (b ? ((1000 * a) / b).toFixed(1) : '-');
const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)} %` : '-');

export interface CellFigures {
  name: string;
  conversations: number;
  userTurns: number;
  repeatConvs: number;
  repeatTurns: number;
  repeatMax: number;
  likeTurns: number;
  likeRejected: number;
  targetTop3Turns: number;
  targetTop3Missed: number;
  metaTurns: number;
  accepts: number;
  carousels: number;
  carouselRepeats: number;
  searched: number;
  searchedRepeats: number;
  rejections: number;
  rejectedKept: number;
  nearRepeats: number;
  agentTurns: number;
  agentNearRepeats: number;
  /** Agent utterances equal, character for character, to an earlier one of the conversation. */
  agentRepeats: number;
  /** Agent turns with reported acts; of them, those whose text alone the users' built-in agent-act classifier reads as the first (main) reported act, and as any reported act (mapped to Zhang & Balog). */
  taggerTurns: number;
  taggerMain: number;
  taggerAny: number;
  /** The same with the users' whole reading for an agent that reports no acts (`AgentNlu.understand`: the text, plus "Reveal.Show" when items are shown). */
  nluMain: number;
  nluAny: number;
  userSlips: number;
  agentSlips: number;
  slipExamples: string[];
  actSequences: number;
  topSequenceShare: number;
  user: LanguageFigures;
  agent: LanguageFigures;
  /**
   * The first user utterance of each conversation only, TTR over the first N' tokens (N' = the
   * token count of IARD's openings): a like-for-like figure for runs whose conversations are mostly
   * an opening (a meta user that accepts on its second turn), where the whole-run TTR compares an
   * act mix unlike IARD's.
   */
  openings: LanguageFigures;
  turnsPerSecond: number;
}

function itemIds(t: Conversation['turns'][number]): string[] {
  return (t.recommendations ?? []).map((r) => r.item_id);
}

export function measureCell(
  name: string,
  convs: readonly Conversation[],
  delex: Delexicaliser,
  sampleTokens: number,
  agentSampleTokens: number,
  seconds: number,
  types: { singular: string[]; plural: string[] } = { singular: [], plural: [] },
  agentSampleUtterances?: number,
  userSampleUtterances?: number,
  openingSampleTokens = sampleTokens,
): CellFigures {
  const f = {
    nearRepeats: 0,
    agentTurns: 0,
    agentNearRepeats: 0,
    agentRepeats: 0,
    taggerTurns: 0,
    taggerMain: 0,
    taggerAny: 0,
    nluMain: 0,
    nluAny: 0,
    userSlips: 0,
    agentSlips: 0,
    slipExamples: [] as string[],
    name,
    conversations: convs.length,
    userTurns: 0,
    repeatConvs: 0,
    repeatTurns: 0,
    repeatMax: 0,
    likeTurns: 0,
    likeRejected: 0,
    targetTop3Turns: 0,
    targetTop3Missed: 0,
    metaTurns: 0,
    accepts: 0,
    carousels: 0,
    carouselRepeats: 0,
    searched: 0,
    searchedRepeats: 0,
    rejections: 0,
    rejectedKept: 0,
  };
  const userTexts: string[] = [];
  const userForms: string[] = [];
  const agentTexts: string[] = [];
  const agentForms: string[] = [];
  const openingTexts: string[] = [];
  const sequences = new Map<string, number>();
  const tagger = agentActClassifier();
  const nlu = new AgentNlu({ classifier: tagger });
  let turnsTotal = 0;
  for (const c of convs) {
    const counts = new Map<string, number>();
    let repeated = false;
    const negated = new Set<string>();
    const acts: string[] = [];
    const titles: string[] = [];
    const itemValues = new Map<string, Record<string, string>>();
    for (const t of c.turns)
      for (const r of t.recommendations ?? []) {
        titles.push(r.title ?? '');
        itemValues.set(r.item_id, (r.attributes ?? {}) as Record<string, string>);
      }
    const earlierUser: { act: string; said: string; toks: Set<string> }[] = [];
    const earlierAgent: Set<string>[] = [];
    const agentSaid = new Set<string>();
    let previousTop3: string[] | undefined;
    let previousCarousel: string[] = [];
    for (let i = 0; i < c.turns.length; i++) {
      const t = c.turns[i];
      const tr = t.trace;
      turnsTotal++;
      const act = tr?.user_act ?? '';
      if (t.user_utterance !== undefined) {
        f.userTurns++;
        if (acts.length === 0) openingTexts.push(t.user_utterance);
        acts.push(act);
        userTexts.push(t.user_utterance);
        userForms.push(delex.form(t.user_utterance, titles));
        const ignored = (tr as Record<string, unknown> | undefined)?.['ignored_agent_error'] === true;
        const toks = new Set(tokens(t.user_utterance));
        const saidKey = JSON.stringify([tr?.said?.constraints ?? {}, tr?.said?.negated ?? [], tr?.said?.items ?? []]);
        if (act !== 'Navigate.Repeat' && !ignored && !counts.has(t.user_utterance)) {
          if (earlierUser.some((e) => e.act === act && e.said === saidKey && jaccard(e.toks, toks) >= NEAR_REPEAT))
            f.nearRepeats++;
        }
        earlierUser.push({ act, said: saidKey, toks });
        const slips = grammarSlips(t.user_utterance, types.singular, types.plural);
        if (slips.length) {
          f.userSlips++;
          if (f.slipExamples.length < 5) f.slipExamples.push(`user: ${slips.join(' / ')} in "${t.user_utterance}"`);
        }
        if (act !== 'Navigate.Repeat' && !ignored) {
          const n = (counts.get(t.user_utterance) ?? 0) + 1;
          counts.set(t.user_utterance, n);
          if (n > 1) {
            f.repeatTurns++;
            repeated = true;
            f.repeatMax = Math.max(f.repeatMax, n - 1);
          }
        }
        if (act === 'Note.Accept') f.accepts++;
        // 11: a Like naming an item that carries a value said to be unwanted earlier
        const reflected = ((tr?.preferences as Record<string, unknown> | undefined)?.['reflected'] ?? {}) as Record<
          string,
          string
        >;
        const named = tr?.said?.items ?? [];
        if (act === 'Note.Like') {
          f.likeTurns++;
          const liked = named.find((id) => reflected[id] === 'like') ?? named[0];
          const values = liked ? Object.values(itemValues.get(liked) ?? {}) : [];
          if (values.some((v) => negated.has(String(v)))) f.likeRejected++;
        }
        // 12: the meta target among the first 3 of the carousel the user answers
        const target = (tr?.target as { item_id?: string } | undefined)?.item_id;
        if (target && i > 0) {
          f.metaTurns++;
          const prevTarget = (c.turns[i - 1].trace?.target as { item_id?: string } | undefined)?.item_id;
          const top3 = itemIds(c.turns[i - 1]).slice(0, 3);
          // the target the user held when it read the carousel (a switch happens on this turn only when the target was not on screen)
          if (
            top3.includes(target) ||
            (prevTarget !== undefined && top3.includes(prevTarget) && prevTarget === target)
          ) {
            f.targetTop3Turns++;
            if (act !== 'Note.Accept') f.targetTop3Missed++;
          }
        }
        // 14b: rejected items the agent shows again right away
        const rejectedIds = named.filter(
          (id) => reflected[id] === 'dislike' || (act === 'Note.Dislike' && Object.keys(reflected).length === 0),
        );
        if (rejectedIds.length && t.recommendations) {
          for (const id of rejectedIds) {
            if (!previousCarousel.includes(id)) continue;
            f.rejections++;
            if (itemIds(t).includes(id)) f.rejectedKept++;
          }
        }
        for (const v of tr?.said?.negated ?? []) negated.add(String(v));
      }
      if (t.assistant_utterance !== undefined) {
        f.agentTurns++;
        const toks = new Set(tokens(t.assistant_utterance));
        if (earlierAgent.some((e) => jaccard(e, toks) >= NEAR_REPEAT)) f.agentNearRepeats++;
        earlierAgent.push(toks);
        if (agentSaid.has(t.assistant_utterance)) f.agentRepeats++;
        agentSaid.add(t.assistant_utterance);
        const slips = grammarSlips(t.assistant_utterance, types.singular, types.plural);
        if (slips.length) {
          f.agentSlips++;
          if (f.slipExamples.length < 5)
            f.slipExamples.push(`agent: ${slips.join(' / ')} in "${t.assistant_utterance}"`);
        }
        const reported = (t.annotations ?? []).find((a) => a.speaker === 'assistant')?.acts ?? [];
        const mapped = reported.map((a) => nlu.mapAct(a)).filter((a): a is string => a !== undefined);
        if (mapped.length) {
          f.taggerTurns++;
          const label = tagger.predict(t.assistant_utterance).label;
          if (label === mapped[0]) f.taggerMain++;
          if (mapped.includes(label)) f.taggerAny++;
          const read = nlu.understand({ utterance: t.assistant_utterance, recommendations: t.recommendations ?? [] });
          if (read.agent_act === mapped[0]) f.nluMain++;
          if (read.acts.some((a) => mapped.includes(a))) f.nluAny++;
        }
        agentTexts.push(t.assistant_utterance);
        agentForms.push(delex.form(t.assistant_utterance, titles));
      }
      const ids = itemIds(t);
      if (ids.length) {
        const top3 = ids.slice(0, 3).sort();
        if (previousTop3) {
          f.carousels++;
          const same =
            act !== 'Navigate.Back' && act !== 'Navigate.Repeat' && top3.join('\u0000') === previousTop3.join('\u0000');
          if (same) f.carouselRepeats++;
          // a carousel the agent searched for this turn (its trace has a query), not one kept on screen
          if (typeof (tr?.agent as Record<string, unknown> | undefined)?.['query'] === 'string') {
            f.searched++;
            if (same) f.searchedRepeats++;
          }
        }
        previousTop3 = top3;
        previousCarousel = ids;
      }
    }
    if (repeated) f.repeatConvs++;
    const seq = acts.join(' ');
    sequences.set(seq, (sequences.get(seq) ?? 0) + 1);
  }
  const top = Math.max(0, ...sequences.values());
  return {
    ...f,
    actSequences: sequences.size,
    topSequenceShare: convs.length ? top / convs.length : 0,
    user: languageFigures(userTexts, userForms, sampleTokens, userSampleUtterances),
    agent: languageFigures(agentTexts, agentForms, agentSampleTokens, agentSampleUtterances),
    openings: languageFigures(openingTexts, openingTexts, openingSampleTokens),
    turnsPerSecond: seconds > 0 ? turnsTotal / seconds : 0,
  };
}

export async function run(args: string[]): Promise<void> {
  const n = Number(argValue(args, '--n') ?? 500);
  const seed = argValue(args, '--seed') ?? 'language-21b';
  const only = argValue(args, '--only');
  const human = await humanCorpora();
  const delexHuman = new Delexicaliser([]);
  const iard = human[0];
  const sampleTokens = iard.user.reduce((s, u) => s + tokens(u).length, 0);
  const agentSampleTokens = iard.agent.reduce((s, u) => s + tokens(u).length, 0);
  const openingTokens = iard.openings.reduce((s, u) => s + tokens(u).length, 0);
  const iardOpenings = languageFigures(iard.openings, iard.openings, openingTokens);
  const humanRows: string[] = [];
  const humanAgent: { name: string; figures: LanguageFigures }[] = [];
  const humanUser: { name: string; figures: LanguageFigures }[] = [];
  for (const h of human) {
    const u = languageFigures(
      h.user,
      h.user.map((x) => delexHuman.form(x, [])),
      sampleTokens,
      iard.user.length,
    );
    humanUser.push({ name: h.name, figures: u });
    const a = languageFigures(
      h.agent,
      h.agent.map((x) => delexHuman.form(x, [])),
      agentSampleTokens,
      iard.agent.length,
    );
    humanAgent.push({ name: h.name, figures: a });
    humanRows.push(
      `| ${h.name} | ${u.utterances} | ${u.forms} | ${u.ttrAt.toFixed(3)} | ${u.ttrAll.toFixed(3)} | ${u.wordsPerUtterance.toFixed(1)} | ${a.utterances} | ${a.ttrAt.toFixed(3)} | ${a.wordsPerUtterance.toFixed(1)} |`,
    );
  }
  const cells: CellFigures[] = [];
  for (const { name, config } of SIMULATOR_MATRIX) {
    if (only && !name.includes(only)) continue;
    const env = await prepareEnvironment(parseSimulationConfig({ ...config, n, seed, catalog_size: 800 }));
    const values: string[] = [...env.catalog.categories()];
    for (const a of env.catalog.attributeNames()) for (const v of env.catalog.attributeValues(a)) values.push(v);
    for (const c of env.catalog.categories()) values.push(categoryNoun(c));
    const delex = new Delexicaliser(values);
    const typeValues = [...env.catalog.attributeValues('type')].map((v) => v.toLowerCase());
    const types = { singular: typeValues.filter((v) => !isPluralNoun(v)), plural: typeValues.filter(isPluralNoun) };
    const convs: Conversation[] = [];
    const t0 = performance.now();
    for (let i = 0; i < n; i++) convs.push((await simulateConversation(env, i)).conversation);
    const seconds = (performance.now() - t0) / 1000;
    const cell = measureCell(
      name,
      convs,
      delex,
      sampleTokens,
      agentSampleTokens,
      seconds,
      types,
      iard.agent.length,
      iard.user.length,
      openingTokens,
    );
    cells.push(cell);
    console.log(
      `${name}: repeat ${pct(cell.repeatConvs, n)} conv / ${pct(cell.repeatTurns, cell.userTurns)} turns (max ${cell.repeatMax}); like-rejected ${cell.likeRejected}/${cell.likeTurns}; target-top3 missed ${cell.targetTop3Missed}/${cell.targetTop3Turns}; carousel repeats ${pct(cell.carouselRepeats, cell.carousels)} (searched ${pct(cell.searchedRepeats, cell.searched)}); rejected kept ${cell.rejectedKept}/${cell.rejections}; forms ${cell.user.forms}, TTR@${sampleTokens} ${cell.user.ttrAt.toFixed(3)}, w/utt ${cell.user.wordsPerUtterance.toFixed(1)}; act seqs ${cell.actSequences} (top ${(100 * cell.topSequenceShare).toFixed(0)} %); agent TTR ${cell.agent.ttrAt.toFixed(3)} MATTR ${cell.agent.mattr.toFixed(3)} ${cell.agent.wordsPerUtterance.toFixed(1)} w, tagger ${pct(cell.taggerMain, cell.taggerTurns)} / ${pct(cell.taggerAny, cell.taggerTurns)}; near-repeats ${perMille(cell.nearRepeats, cell.userTurns)}/1000 user, ${perMille(cell.agentNearRepeats, cell.agentTurns)}/1000 agent; slips ${cell.userSlips} user, ${cell.agentSlips} agent; openings TTR@${openingTokens} ${cell.openings.ttrAt.toFixed(3)} (${(cell.openings.ttrAt / iardOpenings.ttrAt).toFixed(2)} of IARD's ${iardOpenings.ttrAt.toFixed(3)}), w/utt ${cell.openings.wordsPerUtterance.toFixed(1)} (IARD ${iardOpenings.wordsPerUtterance.toFixed(1)}); ${Math.round(cell.turnsPerSecond)} turns/s`,
    );
    for (const ex of cell.slipExamples) console.log(`  slip ${ex}`);
  }
  const rows = cells.map(
    (c) =>
      `| ${c.name} | ${pct(c.repeatConvs, c.conversations)} | ${pct(c.repeatTurns, c.userTurns)} | ${c.repeatMax} | ${c.likeTurns ? `${c.likeRejected}/${c.likeTurns}` : '-'} | ${c.targetTop3Turns ? `${c.targetTop3Missed}/${c.targetTop3Turns}` : '-'} | ${pct(c.carouselRepeats, c.carousels)} | ${pct(c.searchedRepeats, c.searched)} | ${c.rejections ? `${c.rejectedKept}/${c.rejections}` : '-'} | ${c.user.forms} | ${c.user.ttrAt.toFixed(3)} | ${c.user.wordsPerUtterance.toFixed(1)} | ${c.actSequences} (${(100 * c.topSequenceShare).toFixed(0)} %) | ${c.agent.ttrAt.toFixed(3)} | ${c.agent.wordsPerUtterance.toFixed(1)} | ${perMille(c.nearRepeats, c.userTurns)} | ${perMille(c.agentNearRepeats, c.agentTurns)} | ${c.userSlips} / ${c.agentSlips} |`,
  );
  const body = [
    `Machine: ${machineInfo()}`,
    '',
    `\`node dist/bench.js language -- --n ${n} --seed ${seed}\` (bench/language.ts; definitions in its header). TTR at N tokens: the type/token ratio of the first N tokens of the run's user (agent) utterances, N = ${sampleTokens} (${agentSampleTokens}) = the IARD gold corpus's user (agent) token count.`,
    '',
    'Human corpora (same tokenizer):',
    '',
    '| corpus | user utt. | user forms | user TTR@N | user TTR (all) | user words/utt. | agent utt. | agent TTR@N | agent words/utt. |',
    '|---|---|---|---|---|---|---|---|---|',
    ...humanRows,
    '',
    `Simulated, ${n} conversations per configuration:`,
    '',
    '| configuration | conv. with a verbatim repeat | user turns repeating | most repeats | Like of a rejected value | target in top 3, not taken | carousel top 3 repeated (all) | searched carousel top 3 repeated | rejected item shown again | user forms | user TTR@N | user words/utt. | act sequences (most common) | agent TTR@N | agent words/utt. | user near-repeats /1,000 turns | agent near-repeats /1,000 turns | ungrammatical fills (user / agent utt.) |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    ...userTable(humanUser, cells, iard.user.length, sampleTokens),
    '',
    ...recommenderTable(humanAgent, cells, iard.agent.length, agentSampleTokens),
  ].join('\n');
  console.log('\n' + humanRows.join('\n'));
  console.log('\n' + userTable(humanUser, cells, iard.user.length, sampleTokens).join('\n'));
  console.log('\n' + recommenderTable(humanAgent, cells, iard.agent.length, agentSampleTokens).join('\n'));
  if (!args.includes('--no-results') && !only)
    console.log(`wrote ${updateResultsSection('Language and repetition (issue 21, classes 10-14)', body)}`);
}

/**
 * The user side of item 3 (issue 21), like for like: distinct delexicalised forms among the first K
 * user utterances (K = the IARD gold corpus's user utterance count; the main table's "user forms"
 * counts every utterance of the run, several times K, and so is not comparable), TTR over the first
 * N tokens (N = IARD's user token count), the moving-average TTR (window MATTR_WINDOW tokens, which
 * does not depend on the sample's length) and words per utterance, each with its ratio to IARD and
 * to AB-ReDial (the aim: between 0.7 and 1/0.7 of both).
 */
function userTable(
  human: readonly { name: string; figures: LanguageFigures }[],
  cells: readonly CellFigures[],
  k: number,
  n: number,
): string[] {
  const [iard, ab] = human;
  const r = (x: number, h: number) => (h ? (x / h).toFixed(2) : '-');
  const both = (x: number, pick: (f: LanguageFigures) => number) =>
    `${r(x, pick(iard.figures))} / ${r(x, pick(ab.figures))}`;
  const row = (name: string, f: LanguageFigures) =>
    `| ${name} | ${f.utterances} | ${f.formsAt} (${both(f.formsAt, (h) => h.formsAt)}) | ${f.ttrAt.toFixed(3)} (${both(f.ttrAt, (h) => h.ttrAt)}) | ${f.mattr.toFixed(3)} (${both(f.mattr, (h) => h.mattr)}) | ${f.wordsPerUtterance.toFixed(1)} (${both(f.wordsPerUtterance, (h) => h.wordsPerUtterance)}) |`;
  return [
    `User utterances (item 3, user side), like for like: distinct delexicalised forms among the first K = ${k} user utterances, TTR over the first N = ${n} tokens, moving-average TTR (window ${MATTR_WINDOW} tokens), words per utterance; in brackets the ratio to ${iard.name} / ${ab.name} (aim: 0.70-1.43 of both).`,
    '',
    '| user utterances of | user utt. | forms@K (ratio) | TTR@N (ratio) | MATTR (ratio) | words/utt. (ratio) |',
    '|---|---|---|---|---|---|',
    ...human.map((h) => row(h.name, h.figures)),
    ...cells.map((c) => row(c.name, c.user)),
  ];
}

/**
 * The recommender side of item 3 (issue 21): per configuration, the local agent's distinct
 * delexicalised forms among its first K utterances (K = the IARD gold corpus's agent utterance
 * count), its TTR at N tokens and words per utterance, each beside its ratio to IARD's human
 * recommenders (the aim: between 0.7 and 1/0.7), and its verbatim and near repeats.
 */
function recommenderTable(
  human: readonly { name: string; figures: LanguageFigures }[],
  cells: readonly CellFigures[],
  k: number,
  n: number,
): string[] {
  const ref = human[0].figures;
  const ratio = (x: number, h: number) => (h ? (x / h).toFixed(2) : '-');
  const row = (name: string, f: LanguageFigures, rest: string) =>
    `| ${name} | ${f.utterances} | ${f.formsAt} (${ratio(f.formsAt, ref.formsAt)}) | ${f.ttrAt.toFixed(3)} (${ratio(f.ttrAt, ref.ttrAt)}) | ${f.mattr.toFixed(3)} (${ratio(f.mattr, ref.mattr)}) | ${f.wordsPerUtterance.toFixed(1)} (${ratio(f.wordsPerUtterance, ref.wordsPerUtterance)}) | ${rest}`;
  return [
    `Recommender utterances (item 3, recommender side): distinct delexicalised forms among the first K = ${k} agent utterances, TTR at N = ${n} tokens, MATTR (mean TTR of every window of ${MATTR_WINDOW} consecutive tokens: does not fall with the sample size, unlike TTR), words per utterance; in brackets the ratio to ${human[0].name}'s human recommenders (aim: 0.70-1.43). Tagger: the users' built-in agent-act classifier (src/core/sim/users/nlu.ts) on the agent's text alone, against the acts the agent reported (mapped to Zhang & Balog): the first reported act / any of them; NLU: the users' whole reading of an agent that reports no acts (the classifier, plus Reveal.Show when items are shown), its first act against the first reported act / any of its acts among the reported ones.`,
    '',
    '| recommender utterances of | agent utt. | forms@K (ratio) | TTR@N (ratio) | MATTR (ratio) | words/utt. (ratio) | verbatim repeats in a conversation | near-repeats /1,000 | ungrammatical | tagger = main act | tagger = a reported act | NLU = main act | NLU = a reported act |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...human.map((h) => row(h.name, h.figures, '- | - | - | - | - | - | - |')),
    ...cells.map((c) =>
      row(
        c.name,
        c.agent,
        `${c.agentRepeats} | ${perMille(c.agentNearRepeats, c.agentTurns)} | ${c.agentSlips} | ${pct(c.taggerMain, c.taggerTurns)} | ${pct(c.taggerAny, c.taggerTurns)} | ${pct(c.nluMain, c.taggerTurns)} | ${pct(c.nluAny, c.taggerTurns)} |`,
      ),
    ),
  ];
}
