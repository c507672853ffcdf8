/**
 * Per-conversation features for population comparisons (PLSA), with stable names:
 *
 * | name | meaning |
 * |---|---|
 * | `num_turns` | turns with a (non-empty) user utterance |
 * | `user_words_per_turn` | mean words per user turn (whitespace-separated runs, `countWords`) |
 * | `user_turns_with_question` | user turns that ask something (`isQuestion`: "?" or a sentence starting with what/which/how/…) |
 * | `assistant_turns_with_question` | the same for assistant turns |
 * | `act:<name>` | number of user turns carrying the act (from the chosen act source) |
 * | `agent_act:<name>` | number of assistant turns carrying the act (annotations, judge or trace only) |
 * | `satisfaction`, `frustration`, `confusion`, `sentiment` | user experience (see below) |
 * | `accepted` | 1 if the user accepted a recommendation, else 0 |
 * | `turns_until_acceptance` | user turns up to and including the acceptance; missing when nothing was accepted |
 *
 * User experience comes from one of two places:
 * - the LLM judge (`annotator: "judge:<model>"`, fields on the 1-5 scale): satisfaction =
 *   user_satisfaction, frustration = user_frustration_annoyance, confusion = user_confusion,
 *   sentiment = user_sentiment, accepted = recommendation_accepted, turns_until_acceptance;
 * - first-person ratings (ConvApparel): over the turns the user rated, satisfaction = share with
 *   "Satisfied" ticked, frustration = share with "Frustrated" or "Annoyed", confusion = share with
 *   "Confused" (the same mapping the judge validation uses), sentiment = mean over rated turns of
 *   (positive − negative ticks)/(positive + negative ticks) (0 when none), in [−1, 1], with the
 *   positive feelings Satisfied, Delighted, Engaged, Patient, In control, Supported and the negative
 *   ones Annoyed, Confused, Frustrated, Unsatisfied, Impatient, Not in control, Unsupported;
 *   accepted = the session answer "able to find a product" (Yes = 1), else `outcome`, else the last
 *   turn's simulator trace (see `conversationOutcome`).
 * A missing value is NaN; comparisons leave such conversations out of that feature.
 */
import { conversationOutcome, countWords, judgeFields, type Conversation, type Turn } from '../model';
import { CONVAPPAREL_TAXONOMY, inferTaxonomyName } from '../taxonomy';
import { IARD_TO_CONVAPPAREL, mapActs, normalizeLabel, toConvApparelUserAct } from '../taxonomy/acts';
import { ActTagger } from './tagger';

/** Where dialogue acts come from. */
export type ActSource =
  | { kind: 'tagger'; tagger?: ActTagger }
  | { kind: 'judge'; annotator?: string }
  | { kind: 'annotator'; annotator: string; map?: Readonly<Record<string, string>> }
  | { kind: 'trace' };

/** Where user-experience features come from: judge first then first-person ratings (`auto`), or only one. */
export type UxSource = 'auto' | 'judge' | 'first-person';

export interface FeatureOptions {
  acts?: ActSource;
  ux?: UxSource;
  /** Judge annotator for UX ("judge:<model>"); any judge when omitted. */
  judge?: string;
}

/** Named act-label maps for annotations in other taxonomies. */
const ACT_MAPS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  iard: IARD_TO_CONVAPPAREL,
};

/** How annotations in another built-in taxonomy become ConvApparel user acts for the act features. */
const CONVAPPAREL_MAPPINGS: Readonly<Record<string, string>> = {
  iard: 'IARD labels mapped to ConvApparel user acts (IARD_TO_CONVAPPAREL, src/core/taxonomy/acts.ts; unlisted labels count as "other")',
  'zhang-balog': 'Zhang & Balog acts mapped to ConvApparel user acts (toConvApparelUserAct, src/core/taxonomy/acts.ts)',
};

const CONVAPPAREL_USER = new Set(CONVAPPAREL_TAXONOMY.user);

/**
 * The taxonomy of an annotator's user annotation for the act features: its `taxonomy` field, else
 * the built-in taxonomy its labels fit; labels that fit none count as ConvApparel when one of them
 * is a ConvApparel act (a typo beside real acts), else as "unknown".
 */
function userAnnotationTaxonomy(acts: readonly string[], taxonomy: string | undefined): string {
  const named = taxonomy?.trim().toLowerCase();
  if (named) return named;
  const inferred = inferTaxonomyName(acts, 'user');
  if (inferred) return inferred;
  return acts.some((a) => CONVAPPAREL_USER.has(a)) ? 'convapparel' : 'unknown';
}

/**
 * An annotator's user acts in ConvApparel names: as given when they are ConvApparel acts, mapped
 * when they are in a taxonomy with a mapping (CONVAPPAREL_MAPPINGS), else as given and flagged,
 * so the ConvApparel act features of that conversation are not computed (never a silent 0).
 */
function annotatorConvApparelActs(
  acts: readonly string[],
  taxonomy: string | undefined,
  first: boolean,
): { acts: string[]; mapped?: string; unmapped?: string } {
  const tax = userAnnotationTaxonomy(acts, taxonomy);
  if (tax === 'convapparel') return { acts: [...acts] };
  if (tax === 'iard') return { acts: mapActs(acts, IARD_TO_CONVAPPAREL), mapped: tax };
  if (tax === 'zhang-balog')
    return { acts: [...new Set(acts.map((a) => toConvApparelUserAct(normalizeLabel(a), first)))], mapped: tax };
  return { acts: [...acts], unmapped: tax };
}

/**
 * Reads an act-source spec as the CLI takes it: "tagger", "trace", "judge", "judge:<model>", or an
 * annotator name, optionally with a label map: "source@iard".
 */
export function parseActSource(spec: string | undefined): ActSource {
  if (!spec || spec === 'tagger') return { kind: 'tagger' };
  if (spec === 'trace') return { kind: 'trace' };
  if (spec === 'judge') return { kind: 'judge' };
  if (spec.startsWith('judge:')) return { kind: 'judge', annotator: spec };
  const at = spec.lastIndexOf('@');
  if (at > 0) {
    const mapName = spec.slice(at + 1);
    const map = ACT_MAPS[mapName.toLowerCase()];
    if (!map) throw new Error(`unknown act map "${mapName}" in "${spec}" (known: ${Object.keys(ACT_MAPS).join(', ')})`);
    return { kind: 'annotator', annotator: spec.slice(0, at), map };
  }
  return { kind: 'annotator', annotator: spec };
}

/** A readable name of an act source, for reports. */
export function describeActSource(src: ActSource): string {
  switch (src.kind) {
    case 'tagger':
      return 'lexical tagger';
    case 'trace':
      return 'simulator trace (user_act)';
    case 'judge':
      return src.annotator ?? 'judge (any model)';
    case 'annotator':
      return `annotator "${src.annotator}"${src.map ? ' (mapped)' : ''}`;
  }
}

const POSITIVE = ['satisfied', 'delighted', 'engaged', 'patient', 'in control', 'supported'];
const NEGATIVE = ['annoyed', 'confused', 'frustrated', 'unsatisfied', 'impatient', 'not in control', 'unsupported'];

/** Ticked feelings of a turn, lower-cased (only keys set to true). */
function tickedFeelings(turn: Turn): Set<string> | undefined {
  if (!turn.ratings) return undefined;
  const out = new Set<string>();
  let any = false;
  for (const [k, v] of Object.entries(turn.ratings)) {
    const key = k.trim().toLowerCase();
    if (POSITIVE.includes(key) || NEGATIVE.includes(key)) any = true;
    if (v === true) out.add(key);
  }
  return any || out.size ? out : undefined;
}

const FOUND_KEY = /able to find a product/i;

/** First-person UX features; undefined when the conversation has no first-person ratings. */
function firstPersonUx(conv: Conversation): Record<string, number> | undefined {
  let rated = 0;
  let sat = 0;
  let fru = 0;
  let con = 0;
  let sent = 0;
  for (const turn of conv.turns) {
    const f = tickedFeelings(turn);
    if (!f) continue;
    rated++;
    if (f.has('satisfied')) sat++;
    if (f.has('frustrated') || f.has('annoyed')) fru++;
    if (f.has('confused')) con++;
    const p = POSITIVE.filter((x) => f.has(x)).length;
    const n = NEGATIVE.filter((x) => f.has(x)).length;
    sent += p + n ? (p - n) / (p + n) : 0;
  }
  const session = conv.ratings ? Object.keys(conv.ratings).some((k) => FOUND_KEY.test(k)) : false;
  if (!rated && !session) return undefined;
  const out: Record<string, number> = {};
  if (rated) {
    out.satisfaction = sat / rated;
    out.frustration = fru / rated;
    out.confusion = con / rated;
    out.sentiment = sent / rated;
  }
  return out;
}

function num(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return NaN;
}

/** Per-turn user acts (index = turn index; undefined = turn has no user utterance or no acts known). */
export function userActsPerTurn(conv: Conversation, src: ActSource): (string[] | undefined)[] | undefined {
  switch (src.kind) {
    case 'tagger': {
      const tagger = src.tagger ?? ActTagger.default();
      return conv.turns.map((t) =>
        t.user_utterance && t.user_utterance.trim() ? tagger.tag(t.user_utterance) : undefined,
      );
    }
    case 'trace': {
      let any = false;
      const out = conv.turns.map((t) => {
        const a = t.trace?.user_act;
        if (a) any = true;
        return a ? [a] : undefined;
      });
      return any ? out : undefined;
    }
    case 'annotator': {
      let any = false;
      const out = conv.turns.map((t) => {
        const acts: string[] = [];
        let found = false;
        for (const a of t.annotations ?? []) {
          if (a.speaker !== 'user' || a.annotator !== src.annotator) continue;
          found = true;
          acts.push(...(src.map ? mapActs(a.acts, src.map) : a.acts));
        }
        if (found) any = true;
        return found ? [...new Set(acts)] : undefined;
      });
      return any ? out : undefined;
    }
    case 'judge':
      return undefined;
  }
}

/**
 * Per-turn user acts of an annotator (no explicit label map) in ConvApparel names, with the
 * taxonomy they were mapped from or the one that has no mapping (the first met).
 */
function annotatorActsPerTurn(
  conv: Conversation,
  annotator: string,
): { acts?: (string[] | undefined)[]; mapped?: string; unmapped?: string } {
  let any = false;
  let mapped: string | undefined;
  let unmapped: string | undefined;
  let firstUser = true;
  const acts = conv.turns.map((t) => {
    const out: string[] = [];
    let found = false;
    for (const a of t.annotations ?? []) {
      if (a.speaker !== 'user' || a.annotator !== annotator) continue;
      found = true;
      const v = annotatorConvApparelActs(a.acts, a.taxonomy, firstUser);
      mapped ??= v.mapped;
      unmapped ??= v.unmapped;
      out.push(...v.acts);
    }
    if (t.user_utterance && t.user_utterance.trim()) firstUser = false;
    if (found) any = true;
    return found ? [...new Set(out)] : undefined;
  });
  return { acts: any ? acts : undefined, mapped, unmapped };
}

/** Per-turn assistant acts from annotations or the trace (undefined when unknown). */
function agentActsPerTurn(conv: Conversation, src: ActSource): (string[] | undefined)[] | undefined {
  if (src.kind === 'trace') {
    let any = false;
    const out = conv.turns.map((t) => {
      const a = t.trace?.agent_act ?? t.trace?.nlu?.agent_act;
      if (a) any = true;
      return a ? [a] : undefined;
    });
    return any ? out : undefined;
  }
  if (src.kind === 'annotator') {
    let any = false;
    const out = conv.turns.map((t) => {
      const acts: string[] = [];
      for (const a of t.annotations ?? []) {
        if (a.speaker !== 'assistant' || a.annotator !== src.annotator) continue;
        any = true;
        acts.push(...a.acts);
      }
      return acts.length ? [...new Set(acts)] : undefined;
    });
    return any ? out : undefined;
  }
  return undefined;
}

/** The features of one conversation. */
export interface ConversationFeatures {
  values: Record<string, number>;
  /** True when user acts are known, so an absent `act:<name>` means a count of 0. */
  actsKnown: boolean;
  agentActsKnown: boolean;
  /**
   * Annotator acts only: the taxonomy the user acts were mapped from to ConvApparel acts (see
   * CONVAPPAREL_MAPPINGS), or the taxonomy that has no such mapping (its ConvApparel act features
   * are then NaN). Not kept in feature files; the values are.
   */
  actsMappedFrom?: string;
  actsUnmappedTaxonomy?: string;
}

/** Computes every feature of a conversation. */
export function conversationFeatures(conv: Conversation, opts: FeatureOptions = {}): ConversationFeatures {
  const actSrc = opts.acts ?? { kind: 'tagger' };
  const values: Record<string, number> = {};
  let userTurns = 0;
  let words = 0;
  let uq = 0;
  let aq = 0;
  for (const t of conv.turns) {
    if (t.user_utterance && t.user_utterance.trim()) {
      userTurns++;
      words += countWords(t.user_utterance);
      if (isQuestion(t.user_utterance)) uq++;
    }
    if (t.assistant_utterance && isQuestion(t.assistant_utterance)) aq++;
  }
  values.num_turns = userTurns;
  values.user_words_per_turn = userTurns ? words / userTurns : NaN;
  values.user_turns_with_question = uq;
  values.assistant_turns_with_question = aq;

  // dialogue acts
  let actsKnown = false;
  let mappedFrom: string | undefined;
  let unmappedTaxonomy: string | undefined;
  let acceptTurn: number | undefined;
  const judge = judgeFields(conv, actSrc.kind === 'judge' ? actSrc.annotator : opts.judge);
  if (actSrc.kind === 'judge') {
    const j = actSrc.annotator ? judgeFields(conv, actSrc.annotator) : judge;
    const ua = j?.user_dialog_acts;
    if (ua && typeof ua === 'object') {
      actsKnown = true;
      for (const [k, v] of Object.entries(ua as Record<string, unknown>)) values[`act:${k}`] = num(v);
    }
  } else {
    const perTurn =
      actSrc.kind === 'annotator' && !actSrc.map
        ? annotatorActsPerTurn(conv, actSrc.annotator)
        : { acts: userActsPerTurn(conv, actSrc) };
    if (perTurn.mapped) mappedFrom = perTurn.mapped;
    if (perTurn.unmapped) unmappedTaxonomy = perTurn.unmapped;
    if (perTurn.acts) {
      actsKnown = true;
      let userIndex = 0;
      perTurn.acts.forEach((acts, i) => {
        if (conv.turns[i].user_utterance && conv.turns[i].user_utterance!.trim()) userIndex++;
        for (const a of acts ?? []) {
          values[`act:${a}`] = (values[`act:${a}`] ?? 0) + 1;
          if (acceptTurn === undefined && /accept/i.test(a)) acceptTurn = userIndex;
        }
      });
    }
  }
  // Counts of ConvApparel acts from labels of a taxonomy with no mapping would be silent zeros.
  if (unmappedTaxonomy) for (const a of CONVAPPAREL_TAXONOMY.user) values[`act:${a}`] = NaN;
  const agent = agentActsPerTurn(conv, actSrc);
  let agentActsKnown = false;
  if (agent) {
    agentActsKnown = true;
    for (const acts of agent)
      for (const a of acts ?? []) values[`agent_act:${a}`] = (values[`agent_act:${a}`] ?? 0) + 1;
  } else if (actSrc.kind === 'judge') {
    const j = actSrc.annotator ? judgeFields(conv, actSrc.annotator) : judge;
    const aa = j?.assistant_dialog_acts;
    if (aa && typeof aa === 'object') {
      agentActsKnown = true;
      for (const [k, v] of Object.entries(aa as Record<string, unknown>)) values[`agent_act:${k}`] = num(v);
    }
  }

  // user experience
  const ux = opts.ux ?? 'auto';
  const uxJudge = ux === 'first-person' ? undefined : judgeFields(conv, opts.judge);
  const fp = ux === 'judge' ? undefined : firstPersonUx(conv);
  if (uxJudge) {
    values.satisfaction = num(uxJudge.user_satisfaction);
    values.frustration = num(uxJudge.user_frustration_annoyance);
    values.confusion = num(uxJudge.user_confusion);
    values.sentiment = num(uxJudge.user_sentiment);
    values.accepted = num(uxJudge.recommendation_accepted);
    const tua = num(uxJudge.turns_until_acceptance);
    values.turns_until_acceptance = values.accepted === 1 ? tua : NaN;
  } else if (ux !== 'judge') {
    values.satisfaction = fp?.satisfaction ?? NaN;
    values.frustration = fp?.frustration ?? NaN;
    values.confusion = fp?.confusion ?? NaN;
    values.sentiment = fp?.sentiment ?? NaN;
    const accepted = conversationOutcome(conv) === 'accepted';
    values.accepted = accepted ? 1 : 0;
    values.turns_until_acceptance = accepted ? (acceptTurn ?? userTurns) : NaN;
  } else {
    for (const k of ['satisfaction', 'frustration', 'confusion', 'sentiment', 'accepted', 'turns_until_acceptance'])
      values[k] = NaN;
  }
  const out: ConversationFeatures = { values, actsKnown, agentActsKnown };
  if (mappedFrom) out.actsMappedFrom = mappedFrom;
  if (unmappedTaxonomy) out.actsUnmappedTaxonomy = unmappedTaxonomy;
  return out;
}

/** The value of one named feature (0 for an absent act count when acts are known; NaN when unknown). */
export function featureValue(f: ConversationFeatures, name: string): number {
  const v = f.values[name];
  if (v !== undefined) return v;
  if (name.startsWith('act:')) return f.actsKnown ? 0 : NaN;
  if (name.startsWith('agent_act:')) return f.agentActsKnown ? 0 : NaN;
  return NaN;
}

/** The basic, act and UX feature names for the ConvApparel taxonomy. */
const BASIC_FEATURES = [
  'num_turns',
  'user_words_per_turn',
  'user_turns_with_question',
  'assistant_turns_with_question',
] as const;
const UX_FEATURES = [
  'satisfaction',
  'frustration',
  'confusion',
  'sentiment',
  'accepted',
  'turns_until_acceptance',
] as const;
export const ACT_FEATURES: readonly string[] = CONVAPPAREL_TAXONOMY.user.map((a) => `act:${a}`);

/** The 11 metrics of the ConvApparel PLSA tables (Tables 2-6), in the paper's order. */
export const PLSA_DEFAULT_FEATURES: readonly string[] = [
  'num_turns',
  'user_words_per_turn',
  'user_turns_with_question',
  'act:critique',
  'act:greet_thank',
  'act:inform_preference',
  'act:provide_feedback_negative',
  'act:provide_feedback_positive',
  'act:accept_recommendation',
  'act:reject_recommendation',
  'act:other',
];

/** Labels for the paper's table rows. */
const FEATURE_LABELS: Readonly<Record<string, string>> = {
  num_turns: 'Num turns',
  user_words_per_turn: 'Num user words',
  user_turns_with_question: 'Turns with question',
  assistant_turns_with_question: 'Assistant turns with question',
  'act:critique': 'Critique',
  'act:greet_thank': 'Greet/Thank',
  'act:inform_preference': 'Inform preference',
  'act:provide_feedback_negative': 'Negative feedback',
  'act:provide_feedback_positive': 'Positive feedback',
  'act:accept_recommendation': 'Accept rec.',
  'act:reject_recommendation': 'Reject rec.',
  'act:ask_clarification': 'Ask clarification',
  'act:other': 'Other',
  satisfaction: 'Satisfaction',
  frustration: 'Frustration',
  confusion: 'Confusion',
  sentiment: 'Sentiment',
  accepted: 'Accepted',
  turns_until_acceptance: 'Turns until acceptance',
};

/** A readable label of a feature. */
export function featureLabel(name: string): string {
  return FEATURE_LABELS[name] ?? name;
}

/** Feature values of a population, one Float64Array per feature (NaN where missing). */
export interface FeatureTable {
  features: string[];
  /** Number of conversations (rows). */
  n: number;
  values: Record<string, Float64Array>;
  /**
   * How the act features were obtained when that needs saying: user acts mapped from another
   * taxonomy, or ConvApparel act features not computed because a taxonomy has no mapping.
   */
  notes?: string[];
}

/** Computes the named features for every conversation. */
export function featureTable(
  conversations: readonly Conversation[],
  features: readonly string[],
  opts: FeatureOptions = {},
): FeatureTable {
  return featureTableOf(
    conversations.map((c) => conversationFeatures(c, opts)),
    features,
  );
}

/** The table of the named features from per-conversation features (computed, or read from a feature file). */
export function featureTableOf(rows: readonly ConversationFeatures[], features: readonly string[]): FeatureTable {
  const values: Record<string, Float64Array> = {};
  for (const f of features) values[f] = new Float64Array(rows.length);
  rows.forEach((cf, i) => {
    for (const f of features) values[f][i] = featureValue(cf, f);
  });
  const table: FeatureTable = { features: [...features], n: rows.length, values };
  const notes = actSourceNotes(rows, features);
  if (notes.length) table.notes = notes;
  return table;
}

/** What the rows say about their act features (see `FeatureTable.notes`), for the features asked. */
function actSourceNotes(rows: readonly ConversationFeatures[], features: readonly string[]): string[] {
  const acts = features.filter((f) => f.startsWith('act:') && CONVAPPAREL_USER.has(f.slice(4)));
  if (acts.length === 0) return [];
  const mapped = new Map<string, number>();
  const unmapped = new Map<string, number>();
  for (const r of rows) {
    if (r.actsMappedFrom) mapped.set(r.actsMappedFrom, (mapped.get(r.actsMappedFrom) ?? 0) + 1);
    if (r.actsUnmappedTaxonomy) unmapped.set(r.actsUnmappedTaxonomy, (unmapped.get(r.actsUnmappedTaxonomy) ?? 0) + 1);
  }
  const out: string[] = [];
  for (const [tax, n] of mapped)
    out.push(
      `user acts of ${n} of ${rows.length} conversation(s) are in the ${tax} taxonomy: ${CONVAPPAREL_MAPPINGS[tax] ?? 'mapped to ConvApparel user acts'}`,
    );
  for (const [tax, n] of unmapped) {
    out.push(
      `user acts of ${n} of ${rows.length} conversation(s) are in the ${tax} taxonomy, which has no mapping to ConvApparel user acts: ` +
        `${acts.join(', ')} not computed for them (use an annotator with ConvApparel acts, NAME@iard, the tagger or the judge)`,
    );
  }
  return out;
}

/** Non-missing values of a feature column. */
export function presentValues(col: Float64Array): Float64Array {
  let k = 0;
  for (let i = 0; i < col.length; i++) if (!Number.isNaN(col[i])) k++;
  if (k === col.length) return col;
  const out = new Float64Array(k);
  let j = 0;
  for (let i = 0; i < col.length; i++) if (!Number.isNaN(col[i])) out[j++] = col[i];
  return out;
}

/** Every feature name that occurs in any of the conversations (acts included), sorted by group. */
export function availableFeatures(conversations: readonly Conversation[], opts: FeatureOptions = {}): string[] {
  const acts = new Set<string>();
  for (const c of conversations) {
    const f = conversationFeatures(c, opts);
    for (const k of Object.keys(f.values)) if (k.startsWith('act:') || k.startsWith('agent_act:')) acts.add(k);
  }
  return [...BASIC_FEATURES, ...[...acts].sort(), ...UX_FEATURES];
}

const WH_START =
  /(^|[.!;:\n]\s*|\.\.\.\s*)(what|which|how|why|when|where|who|whose|whats|what's|anything|any (other|more))\b/i;

/**
 * Whether an utterance asks something: it contains "?" or a sentence starts with an interrogative
 * word (chat users often drop the question mark: "what about thrillers").
 */
export function isQuestion(text: string | undefined): boolean {
  if (!text) return false;
  if (text.includes('?')) return true;
  return WH_START.test(text.trim());
}
