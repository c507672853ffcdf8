/**
 * The user and agent act vocabulary of the agenda-based simulator (Zhang & Balog, KDD'20, Table 1
 * and Table 2), plus the functions that turn corpus labels into it, and every mapping between
 * label sets: corpus aliases (act-aliases.json), IARD and Zhang & Balog acts to ConvApparel user
 * acts, ConvApparel assistant acts to Zhang & Balog agent acts.
 *
 * Acts are dotted names `Main` or `Main.Sub`. CIR6 works on the six user main acts; QRFA groups
 * user acts into Query/Feedback and agent acts into Request/Answer. We add a few user sub-acts the
 * paper's code also used for the shopping/movie task: Note.Like, Note.Dislike, Note.Accept,
 * Note.Seen (the user already owns the item) and Complete.Abandon (patience ran out).
 */
import { CIR6_USER_ACTIONS, CONVAPPAREL_TAXONOMY, QRFA_AGENT, QRFA_USER, ZHANG_BALOG_TAXONOMY } from '.';
import * as z from 'zod';
import aliasesJson from './act-aliases.json';

type Cir6Act = (typeof CIR6_USER_ACTIONS)[number];
export const CIR6_ACTS: readonly Cir6Act[] = CIR6_USER_ACTIONS;

/** Pseudo states that open and close every act chain. */
export const START = 'Start';
export const STOP = 'Stop';

/**
 * Fine-grained user acts the simulator can utter (NLG has templates for each), plus the agenda's
 * request act `Navigate.Ask` (a goal request, uttered as `Navigate`: "What's the material of …?").
 */
export const USER_FINE_ACTS = [
  'Disclose',
  'Disclose.NonDisclose',
  'Reveal.Revise',
  'Reveal.Refine',
  'Reveal.Expand',
  'Inquire.List',
  'Inquire.Compare',
  'Inquire.Subset',
  'Inquire.Similar',
  'Navigate.Repeat',
  'Navigate.Back',
  'Navigate.More',
  'Navigate.Ask',
  'Note',
  'Note.Like',
  'Note.Dislike',
  'Note.Accept',
  'Note.Seen',
  'Complete',
  'Complete.Abandon',
] as const;

/** The agent acts the simulator's NLU can recognise (Table 1). */
export const AGENT_ZB_ACTS = [
  'Inquire.Elicit',
  'Inquire.Clarify',
  'Reveal.Show',
  'Reveal.List',
  'Reveal.Similar',
  'Reveal.Subset',
  'Traverse.Repeat',
  'Traverse.Back',
  'Traverse.More',
  'Traverse.Record',
  'Traverse.End',
  'Suggest',
  'Explain',
] as const;

/** An agent act the NLU produces when it cannot tell (no text, an HTTP error, an unknown label). */
export const AGENT_UNKNOWN = 'Other';

type QrfaUser = 'Query' | 'Feedback';
type QrfaAgent = 'Request' | 'Answer';

/** The main act of a dotted act name: "Reveal.Refine" -> "Reveal". */
export function mainAct(act: string): string {
  const dot = act.indexOf('.');
  return dot < 0 ? act : act.slice(0, dot);
}

/** True for one of the six CIR6 main acts. */
function isCir6Act(act: string): act is Cir6Act {
  return (CIR6_ACTS as readonly string[]).includes(act);
}

/** QRFA class of a user act (Table 2): Navigate.Back/More, Note and Complete are Feedback. */
export function qrfaUserClass(act: string): QrfaUser {
  const main = mainAct(act);
  if (main === 'Note' || main === 'Complete') return 'Feedback';
  if (act === 'Navigate.Back' || act === 'Navigate.More') return 'Feedback';
  return 'Query';
}

/** QRFA class of an agent act (Table 2): Inquire and Suggest request; everything else answers. */
export function qrfaAgentClass(act: string): QrfaAgent {
  const main = mainAct(act);
  return main === 'Inquire' || main === 'Suggest' ? 'Request' : 'Answer';
}

function pascal(segment: string): string {
  return segment
    .split(/[-_\s]+/)
    .filter(Boolean)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase())
    .join('');
}

/** A spelling-insensitive key of a dotted label: case, spaces, "-" and "_" do not count. */
function spellingKey(label: string): string {
  return label
    .trim()
    .split('.')
    .map((s) => s.replace(/[-_\s]+/g, '').toLowerCase())
    .filter(Boolean)
    .join('.');
}

/**
 * Every act name the simulator, its data files and the Zhang & Balog taxonomy spell: a corpus
 * label that matches one of them (ignoring case and separators) takes its spelling, because a
 * PascalCase rule alone turns "Disclose.NonDisclose" into "Disclose.Nondisclose", an act nothing
 * else knows.
 */
const CANONICAL_ACTS: ReadonlyMap<string, string> = (() => {
  const names: string[] = [
    ...USER_FINE_ACTS,
    ...AGENT_ZB_ACTS,
    ...CIR6_USER_ACTIONS,
    START,
    STOP,
    AGENT_UNKNOWN,
    ...ZHANG_BALOG_TAXONOMY.user,
    ...ZHANG_BALOG_TAXONOMY.assistant,
    ...QRFA_USER,
    ...QRFA_AGENT,
    ...Object.values(aliasesJson.user),
    ...Object.values(aliasesJson.assistant),
  ];
  const out = new Map<string, string>();
  for (const n of names) if (n && !out.has(spellingKey(n))) out.set(spellingKey(n), n);
  return out;
})();

/**
 * Spelling normalisation of a dotted corpus label: a known act in any case or separator style
 * keeps its canonical spelling ("DISCLOSE.NON-DISCLOSE" and "disclose.nondisclose" ->
 * "Disclose.NonDisclose", "inquire.elicit" -> "Inquire.Elicit"); any other label is PascalCased
 * per dotted segment ("foo.bar-baz" -> "Foo.BarBaz"). Labels without a dot keep one segment.
 */
export function normalizeLabel(label: string): string {
  const known = CANONICAL_ACTS.get(spellingKey(label));
  if (known !== undefined) return known;
  return label.trim().split('.').filter(Boolean).map(pascal).join('.');
}

/** Editable label aliases (see src/core/taxonomy/act-aliases.json). */
export interface ActAliases {
  user: Record<string, string>;
  assistant: Record<string, string>;
}

/**
 * Maps a corpus user label to a simulator user act: the alias table first (matched on the raw
 * label, case-insensitively), else the spelling-normalised label when its main act is a CIR6 act,
 * else undefined (the label is not usable for estimation).
 */
export function toUserAct(label: string, aliases: ActAliases): string | undefined {
  const alias = lookupAlias(aliases.user, label);
  if (alias !== undefined) return alias || undefined;
  const norm = normalizeLabel(label);
  return isCir6Act(mainAct(norm)) ? norm : undefined;
}

/**
 * Maps a corpus agent label (or an act reported by an agent) to a Zhang & Balog agent act: the
 * alias table first, else the normalised label when its main act is an agent main act, with a
 * bare "Reveal"/"Inquire"/"Traverse" completed to its most common sub-act.
 */
export function toAgentAct(label: string, aliases: ActAliases): string | undefined {
  const alias = lookupAlias(aliases.assistant, label);
  if (alias !== undefined) return alias || undefined;
  const norm = normalizeLabel(label);
  const main = mainAct(norm);
  if (norm === 'Reveal') return 'Reveal.Show';
  if (norm === 'Inquire') return 'Inquire.Elicit';
  if (norm === 'Traverse') return 'Traverse.More';
  if (main === 'Reveal' || main === 'Inquire' || main === 'Traverse' || main === 'Suggest' || main === 'Explain')
    return norm;
  return undefined;
}

/**
 * An alias table's entry for `label`: the exact label, else the first label in the table equal to
 * it once trimmed and lower-cased. `byLower` is the table indexed that way (`aliasesByLower`), for a
 * table read on every turn; without it the table is scanned.
 */
function lookupAlias(
  table: Record<string, string>,
  label: string,
  byLower?: ReadonlyMap<string, string>,
): string | undefined {
  if (Object.prototype.hasOwnProperty.call(table, label)) return table[label];
  const lower = label.trim().toLowerCase();
  if (byLower) return byLower.get(lower);
  for (const [k, v] of Object.entries(table)) if (k.toLowerCase() === lower) return v;
  return undefined;
}

/** An alias table by lower-cased label, the first label of each lower-case spelling winning (as `lookupAlias` scans). */
function aliasesByLower(table: Record<string, string>): ReadonlyMap<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(table)) if (!out.has(k.toLowerCase())) out.set(k.toLowerCase(), v);
  return out;
}

/**
 * The built-in user aliases indexed once: `toConvApparelUserAct` runs on every simulated turn. The
 * JSON module is never handed out (`defaultAliases` returns a parsed copy), so the index cannot go stale.
 */
const BUILT_IN_USER_ALIASES = aliasesByLower(aliasesJson.user);

/** The nine ConvApparel user acts by spelling key ("Inform-Preference" finds "inform_preference"). */
const CONVAPPAREL_USER_ACTS: ReadonlyMap<string, string> = new Map(
  CONVAPPAREL_TAXONOMY.user.map((a) => [spellingKey(a), a]),
);

/**
 * The ConvApparel user act that best names a user act, so metrics that count the nine ConvApparel
 * user acts work on simulated conversations. A ConvApparel act (what LLM users report) is kept as
 * it is, in any spelling; it must come first because the alias table maps some of them to lossy
 * Zhang & Balog acts (provide_feedback_negative -> Note.Dislike). Anything else is read as a
 * Zhang & Balog act: a corpus alias (act-aliases.json, e.g. "ACC", "NOTE.END") or a spelling of
 * one ("note.accept"). `first` marks the opening user turn (a non-disclosing opener is a greeting
 * there, "no preference" elsewhere).
 */
export function toConvApparelUserAct(act: string, first = false): string {
  const own = CONVAPPAREL_USER_ACTS.get(spellingKey(act));
  if (own !== undefined) return own;
  const alias = lookupAlias(aliasesJson.user, act, BUILT_IN_USER_ALIASES);
  if (alias === '') return 'other';
  return zhangBalogToConvApparel(alias ?? normalizeLabel(act), first);
}

function zhangBalogToConvApparel(act: string, first: boolean): string {
  switch (act) {
    case 'Disclose':
      return 'inform_preference';
    case 'Disclose.NonDisclose':
      return first ? 'greet_thank' : 'other';
    case 'Note.Accept':
      return 'accept_recommendation';
    case 'Note.Dislike':
      return 'reject_recommendation';
    case 'Note.Like':
    case 'Note':
      return 'provide_feedback_positive';
    case 'Note.Seen':
      return 'other';
    case 'Complete':
      return 'greet_thank';
    case 'Complete.Abandon':
      return 'provide_feedback_negative';
    default:
      break;
  }
  const main = mainAct(act);
  if (main === 'Reveal') return 'critique';
  if (main === 'Inquire') return 'ask_clarification';
  if (act === 'Navigate.Repeat') return 'ask_clarification';
  return 'other';
}

/** The JSON shape of an alias table (act-aliases.json, or a file given with --aliases). */
export const ActAliasesSchema = z.looseObject({
  user: z.record(z.string(), z.string()),
  assistant: z.record(z.string(), z.string()),
});

/** The shipped corpus-label aliases. */
export function defaultActAliases(): ActAliases {
  return ActAliasesSchema.parse(aliasesJson) as ActAliases;
}

/**
 * The acts the local agents report in `AgentResponse.acts` (main act first): the ConvApparel
 * assistant taxonomy.
 */
export const AGENT_ACTS: readonly string[] = CONVAPPAREL_TAXONOMY.assistant;

/**
 * ConvApparel assistant act -> Zhang & Balog (KDD'20, Table 1) agent action. Acts with no
 * counterpart in that action space (chit_chat, cannot_help, other) map to "Other", which an
 * agenda-based user should treat as an inappropriate answer to any user action.
 */
const CONVAPPAREL_TO_ZB: Record<string, string> = {
  recommend: 'Reveal.Show',
  elicit_preference: 'Inquire.Elicit',
  ask_clarification_question: 'Inquire.Clarify',
  explain_recommendation: 'Explain',
  greet_acknowledge: 'Traverse.Record',
  chit_chat: 'Other',
  cannot_help: 'Other',
  other: 'Other',
};

const ZB_BY_LOWER = new Map(ZHANG_BALOG_TAXONOMY.assistant.map((a) => [a.toLowerCase(), a]));

/**
 * Maps an agent act to the Zhang & Balog agent action space, so the agenda-based user can work
 * with agents that report either taxonomy. ConvApparel names map by the table above; a name that
 * already is a Zhang & Balog action (in any letter case, e.g. "INQUIRE.ELICIT" from the MovieBot
 * corpus) comes back in canonical spelling; "end" means Traverse.End; anything else is "Other".
 */
/**
 * `agentActToZhangBalog` for an act name SimLens knows (a ConvApparel assistant act, a Zhang &
 * Balog action in any letter case, or "end"); undefined for any other name, so that the user's NLU
 * reads such a turn's text instead (a recommender reporting `answer_question` answered; it did not
 * do "Other").
 */
export function knownAgentActToZhangBalog(act: string): string | undefined {
  const key = act.trim().toLowerCase();
  return CONVAPPAREL_TO_ZB[key] ?? ZB_BY_LOWER.get(key) ?? (key === 'end' ? 'Traverse.End' : undefined);
}

export function agentActToZhangBalog(act: string): string {
  const key = act.trim().toLowerCase();
  const mapped = CONVAPPAREL_TO_ZB[key];
  if (mapped) return mapped;
  const zb = ZB_BY_LOWER.get(key);
  if (zb) return zb;
  if (key === 'end') return 'Traverse.End';
  return 'Other';
}

/**
 * IARD user labels (ReDial, UserSimCRS gold) mapped to ConvApparel user acts, for evaluating and
 * training the tagger on IARD data. Unlisted labels map to "other".
 */
export const IARD_TO_CONVAPPAREL: Readonly<Record<string, string>> = {
  ACC: 'accept_recommendation',
  REJ: 'reject_recommendation',
  IQU: 'inform_preference',
  PRO: 'inform_preference',
  ANS: 'inform_preference',
  REF: 'inform_preference',
  'CRI-F': 'critique',
  'CRI-A': 'critique',
  'CRI-C': 'critique',
  INQ: 'ask_clarification',
  ASK: 'ask_clarification',
  END: 'greet_thank',
  OTH: 'greet_thank',
  SEE: 'other',
  NRE: 'other',
  CON: 'other',
  STO: 'other',
};

/** Maps a list of source labels through `map` (unknown labels to "other"), without duplicates. */
export function mapActs(acts: readonly string[], map: Readonly<Record<string, string>>): string[] {
  return [...new Set(acts.map((a) => map[a] ?? map[a.toUpperCase()] ?? 'other'))];
}
