/**
 * SimLens conversations -> ConvApparel JSONL (one conversation per line, the fields of the
 * ConvApparel release only): `task_id`, `turns[]` with `user_utterance`, `assistant_utterance`,
 * `recommendations[]` ({item_id, title, description, image_url, features as one comma-separated
 * string}) and first-person `ratings`, then session `ratings` and `version`. SimLens additions
 * (annotations, traces, source_utterances, metadata) are left out; an `id` is kept unless it is
 * the `convapparel-<n>` id the ConvApparel importer made up.
 */
import type { Conversation, RecommendedItem } from '../model';

type Rec = Record<string, unknown>;

const ITEM_FIELDS = ['item_id', 'title', 'description', 'image_url', 'features'] as const;

function item(it: RecommendedItem): Rec {
  const out: Rec = {};
  for (const k of ITEM_FIELDS) {
    const v = it[k];
    if (v === undefined) continue;
    out[k] = k === 'features' && Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

/** One ConvApparel line (as an object) for a conversation. */
export function toConvApparelLine(conv: Conversation): Rec {
  const out: Rec = {};
  if (typeof conv.id === 'string' && !/^convapparel-\d+$/.test(conv.id)) out['id'] = conv.id;
  if (conv.task_id !== undefined) out['task_id'] = conv.task_id;
  out['turns'] = conv.turns.map((t) => {
    const turn: Rec = {};
    if (t.user_utterance !== undefined) turn['user_utterance'] = t.user_utterance;
    if (t.assistant_utterance !== undefined) turn['assistant_utterance'] = t.assistant_utterance;
    if (t.recommendations !== undefined) turn['recommendations'] = t.recommendations.map(item);
    if (t.ratings !== undefined) turn['ratings'] = t.ratings;
    return turn;
  });
  if (conv.ratings !== undefined) out['ratings'] = conv.ratings;
  if (conv.version !== undefined) out['version'] = conv.version;
  return out;
}
