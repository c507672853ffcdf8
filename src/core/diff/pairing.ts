/**
 * Which conversation of run B is "the same" as which of run A.
 *
 * - `seed`: the run's seed and the conversation's index. Built-in runs record `metadata.index` on
 *   every conversation and the seed in `<run>.manifest.json`; an external simulator writes
 *   `metadata.seed` and `metadata.index` (a per-conversation seed wins over the manifest's). Two
 *   runs with the same seed then pair conversation i with conversation i; different seeds pair
 *   nothing, which is the truth (their randomness differs from the first turn).
 * - `id`: the conversation id (`id`, else `conversation_id`).
 * - `profile`: the simulated user's profile (`metadata.profile`), else its goal (the first
 *   turn's `trace.goal`: constraints and requests), compared as canonical JSON. Several
 *   conversations may share a profile: the k-th of A pairs with the k-th of B.
 * - `auto`: `seed` when every conversation of A and the first of B have a seed and an index,
 *   else `id`.
 */
import { readFile } from 'node:fs/promises';
import { canonicalJson } from '../llm/canonical';
import { conversationId, type Conversation } from '../model';
import type { PairingMode } from './model';

export type { PairingMode } from './model';
export const PAIRING_MODES: readonly (PairingMode | 'auto')[] = ['auto', 'seed', 'id', 'profile'];

/** The seed in `<run>.manifest.json`, when the file exists and names one. */
export async function manifestSeed(runPath: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(`${runPath}.manifest.json`, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const m = JSON.parse(text) as { seed?: unknown };
    return typeof m.seed === 'string' || typeof m.seed === 'number' ? String(m.seed) : undefined;
  } catch {
    return undefined; // a broken manifest does not name a seed; per-conversation seeds may still
  }
}

/** seed + index of a conversation (seed: metadata.seed, else the run's), or undefined when either is missing. */
export function seedKey(conv: Conversation, runSeed: string | undefined): string | undefined {
  const md = conv.metadata ?? {};
  const seed = typeof md.seed === 'string' || typeof md.seed === 'number' ? String(md.seed) : runSeed;
  const index = md.index;
  if (seed === undefined || typeof index !== 'number' || !Number.isInteger(index)) return undefined;
  return `seed ${seed} #${index}`;
}

/** The profile (or goal) a conversation was simulated for, as canonical JSON; undefined when it has neither. */
function profileKey(conv: Conversation): string | undefined {
  const profile = conv.metadata?.profile;
  if (profile !== undefined && profile !== null) return `profile ${canonicalJson(profile)}`;
  const goal = conv.turns.find((t) => t.trace?.goal)?.trace?.goal;
  // The schema's defaults, so a line read without the schema gives the same key.
  if (goal) return `goal ${canonicalJson({ constraints: goal.constraints ?? {}, requests: goal.requests ?? [] })}`;
  return undefined;
}

/** The pairing key of a conversation under a mode (line is 1-based, for `line:<n>` ids). */
export function pairingKey(
  mode: PairingMode,
  conv: Conversation,
  line: number,
  runSeed: string | undefined,
): string | undefined {
  switch (mode) {
    case 'seed':
      return seedKey(conv, runSeed);
    case 'id':
      return `id ${conversationId(conv, line)}`;
    case 'profile':
      return profileKey(conv);
  }
}
