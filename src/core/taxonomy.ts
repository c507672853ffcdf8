/**
 * Dialogue-act taxonomies: which act names an annotator, the judge, a simulator or a metric
 * may use for each speaker. Names are data (snake_case or dotted), not prose.
 */
import { z } from 'zod';

export const Taxonomy = z.object({
  name: z.string().min(1),
  description: z.string().optional(),
  user: z.array(z.string().min(1)).min(1),
  assistant: z.array(z.string().min(1)).min(1),
});
export type Taxonomy = z.infer<typeof Taxonomy>;

/** ConvApparel judge taxonomy (domain digest §3). The default for annotation and PLSA act features. */
export const CONVAPPAREL_TAXONOMY: Taxonomy = {
  name: 'convapparel',
  description: 'ConvApparel user and assistant dialogue acts',
  user: [
    'inform_preference', 'accept_recommendation', 'reject_recommendation', 'ask_clarification',
    'critique', 'provide_feedback_positive', 'provide_feedback_negative', 'greet_thank', 'other',
  ],
  assistant: [
    'recommend', 'elicit_preference', 'ask_clarification_question', 'explain_recommendation',
    'greet_acknowledge', 'chit_chat', 'cannot_help', 'other',
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
    'Disclose', 'Disclose.NonDisclose',
    'Reveal', 'Reveal.Revise', 'Reveal.Refine', 'Reveal.Expand',
    'Inquire', 'Inquire.List', 'Inquire.Compare', 'Inquire.Subset', 'Inquire.Similar',
    'Navigate', 'Navigate.Repeat', 'Navigate.Back', 'Navigate.More',
    'Note', 'Complete', 'Interrogate', 'Interrupt',
  ],
  assistant: [
    'Inquire', 'Inquire.Elicit', 'Inquire.Clarify',
    'Reveal', 'Reveal.Show', 'Reveal.List', 'Reveal.Similar', 'Reveal.Subset',
    'Traverse', 'Traverse.Repeat', 'Traverse.Back', 'Traverse.More', 'Traverse.Record', 'Traverse.End',
    'Suggest', 'Explain',
  ],
};

/** The CIR6 user main actions. */
export const CIR6_USER_ACTIONS = ['Disclose', 'Reveal', 'Inquire', 'Navigate', 'Note', 'Complete'] as const;

/** QRFA (Zhang & Balog Table 2): user Query/Feedback, agent Request/Answer. */
export const QRFA_USER = ['Query', 'Feedback'] as const;
export const QRFA_AGENT = ['Request', 'Answer'] as const;

export const BUILTIN_TAXONOMIES: readonly Taxonomy[] = [CONVAPPAREL_TAXONOMY, ZHANG_BALOG_TAXONOMY];

/** Finds a built-in taxonomy by name (case-insensitive). */
export function builtinTaxonomy(name: string): Taxonomy | undefined {
  const key = name.toLowerCase();
  return BUILTIN_TAXONOMIES.find((t) => t.name === key);
}

/** Parses a custom taxonomy (from settings or a JSON file); the message names the bad field. */
export function parseTaxonomy(value: unknown, origin: string): Taxonomy {
  const result = Taxonomy.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue.path.length ? issue.path.join('.') : '(root)';
  throw new Error(`${origin}: invalid taxonomy at ${path}: ${issue.message}`);
}
