/**
 * Dialogue-act taxonomies: which act names an annotator, the judge, a simulator or a metric
 * may use for each speaker. Names are data (snake_case or dotted), not prose.
 *
 * The taxonomy module owns every act label of SimLens: this file holds the taxonomies (the
 * webview bundles it, so no zod here); ./acts.ts the simulator's act vocabulary and every mapping
 * between label sets (corpus aliases in ./act-aliases.json, IARD and Zhang & Balog to ConvApparel,
 * ConvApparel to Zhang & Balog).
 */
/** A taxonomy: its name and the act names each speaker may use. (No zod here: the webview bundles this module.) */
export interface Taxonomy {
  name: string;
  description?: string;
  user: string[];
  assistant: string[];
}

/** ConvApparel judge taxonomy (domain digest §3). The default for annotation and PLSA act features. */
export const CONVAPPAREL_TAXONOMY: Taxonomy = {
  name: 'convapparel',
  description: 'ConvApparel user and assistant dialogue acts',
  user: [
    'inform_preference',
    'accept_recommendation',
    'reject_recommendation',
    'ask_clarification',
    'critique',
    'provide_feedback_positive',
    'provide_feedback_negative',
    'greet_thank',
    'other',
  ],
  assistant: [
    'recommend',
    'elicit_preference',
    'ask_clarification_question',
    'explain_recommendation',
    'greet_acknowledge',
    'chit_chat',
    'cannot_help',
    'other',
  ],
};

/**
 * Zhang & Balog (KDD'20) action space, Table 1: main actions with their sub-actions as
 * `Main.Sub`. Used by the agenda-based simulator (CIR6) and as an annotation taxonomy.
 */
export const ZHANG_BALOG_TAXONOMY: Taxonomy = {
  name: 'zhang-balog',
  description: 'Zhang & Balog (KDD 2020) conversational recommendation action space',
  user: [
    'Disclose',
    'Disclose.NonDisclose',
    'Reveal',
    'Reveal.Revise',
    'Reveal.Refine',
    'Reveal.Expand',
    'Inquire',
    'Inquire.List',
    'Inquire.Compare',
    'Inquire.Subset',
    'Inquire.Similar',
    'Navigate',
    'Navigate.Repeat',
    'Navigate.Back',
    'Navigate.More',
    'Note',
    'Complete',
    'Interrogate',
    'Interrupt',
  ],
  assistant: [
    'Inquire',
    'Inquire.Elicit',
    'Inquire.Clarify',
    'Reveal',
    'Reveal.Show',
    'Reveal.List',
    'Reveal.Similar',
    'Reveal.Subset',
    'Traverse',
    'Traverse.Repeat',
    'Traverse.Back',
    'Traverse.More',
    'Traverse.Record',
    'Traverse.End',
    'Suggest',
    'Explain',
  ],
};

/** The CIR6 user main actions. */
export const CIR6_USER_ACTIONS = ['Disclose', 'Reveal', 'Inquire', 'Navigate', 'Note', 'Complete'] as const;

/** QRFA (Zhang & Balog Table 2): user Query/Feedback, agent Request/Answer. */
export const QRFA_USER = ['Query', 'Feedback'] as const;
export const QRFA_AGENT = ['Request', 'Answer'] as const;

/**
 * IARD intent labels (Cai & Chen, UMAP 2020), as DialogueKit / UserSimCRS files carry them and
 * `simlens convert` records them (annotator `source`, taxonomy `iard`). Every label the real files
 * use, counted per speaker (test/fixtures/iard-labels.json records the counts and the test checks
 * them against the files when they are on the machine):
 * - iai-group/UserSimCRS data/datasets/iard/formatted_IARD_annotated_gold.json (77 dialogues):
 *   agent REQ, CLA (7), REC-S, REC-E, EXP-I, EXP-P, EXP-S, R-ANS, RESP, END (67), OTH.
 * - the same folder's formatted_IARD_annotated_partially.json: agent CLQ (22) instead of CLA, no END.
 * Both spellings of the clarifying question stay: a file is annotated in one or the other.
 */
export const IARD_TAXONOMY: Taxonomy = {
  name: 'iard',
  description: 'IARD user intents and recommender actions (Cai & Chen, UMAP 2020)',
  user: [
    'ACC',
    'REJ',
    'SEE',
    'PRO',
    'ANS',
    'REF',
    'CRI-F',
    'CRI-A',
    'CRI-C',
    'INQ',
    'IQU',
    'ASK',
    'CON',
    'NRE',
    'STO',
    'END',
    'OTH',
  ],
  // Agent END and OTH alone are 148 of the gold file's 554 agent utterances, so a reviewer must be able to pick them.
  assistant: ['REQ', 'CLA', 'CLQ', 'REC-S', 'REC-E', 'EXP-I', 'EXP-P', 'EXP-S', 'R-ANS', 'RESP', 'END', 'OTH'],
};

/** Every IARD label, either speaker's (how the importer tells an IARD file from another DialogueKit file). */
export const IARD_LABELS: ReadonlySet<string> = new Set([...IARD_TAXONOMY.user, ...IARD_TAXONOMY.assistant]);

export const BUILTIN_TAXONOMIES: readonly Taxonomy[] = [CONVAPPAREL_TAXONOMY, ZHANG_BALOG_TAXONOMY, IARD_TAXONOMY];

/**
 * The built-in taxonomy whose labels contain every act given (an annotation's own `taxonomy`
 * field, when present, should win over this guess); undefined when none or the acts are empty.
 * With `speaker`, only that speaker's labels count (a user label on an assistant utterance fits
 * no taxonomy); without it, either speaker's.
 */
export function inferTaxonomyName(acts: Iterable<string>, speaker?: 'user' | 'assistant'): string | undefined {
  const list = [...acts];
  if (list.length === 0) return undefined;
  for (const t of BUILTIN_TAXONOMIES) {
    const labels = new Set((speaker ? t[speaker] : [...t.user, ...t.assistant]).map((a) => a.toLowerCase()));
    if (list.every((a) => labels.has(a.toLowerCase()))) return t.name;
  }
  return undefined;
}

/** Finds a built-in taxonomy by name (case-insensitive). */
export function builtinTaxonomy(name: string): Taxonomy | undefined {
  const key = name.toLowerCase();
  return BUILTIN_TAXONOMIES.find((t) => t.name === key);
}

/** Parses a custom taxonomy (from settings or a JSON file); the message names the bad field. */
export function parseTaxonomy(value: unknown, origin: string): Taxonomy {
  const fail = (path: string, message: string): never => {
    throw new Error(`${origin}: invalid taxonomy at ${path}: ${message}`);
  };
  if (!value || typeof value !== 'object' || Array.isArray(value)) fail('(root)', 'expected an object');
  const v = value as Record<string, unknown>;
  if (typeof v.name !== 'string' || v.name.length === 0) fail('name', 'expected a non-empty string');
  if (v.description !== undefined && typeof v.description !== 'string') fail('description', 'expected a string');
  const acts = (key: 'user' | 'assistant'): string[] => {
    const list = v[key];
    if (!Array.isArray(list)) return fail(key, 'expected an array of act names');
    if (list.length === 0) fail(key, 'expected at least one act');
    list.forEach((a, i) => {
      if (typeof a !== 'string' || a.length === 0) fail(`${key}.${i}`, 'expected a non-empty string');
    });
    return list as string[];
  };
  const user = acts('user');
  const assistant = acts('assistant');
  return {
    name: v.name as string,
    ...(v.description !== undefined ? { description: v.description as string } : {}),
    user,
    assistant,
  };
}
