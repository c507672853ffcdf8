/**
 * SimLens conversations -> DialogueKit / UserSimCRS annotated dialogues (the JSON array that
 * DialogueKit's `json_to_dialogues` and UserSimCRS's NLU/interaction-model training read):
 * `[{conversation_id, agent: {id, type}, user: {id, type}, conversation: [{participant: "USER" |
 * "AGENT", utterance, dialogue_acts: [{intent, slot_values: [[slot, value, start, end]]}],
 * ...}], metadata?}]`.
 *
 * - Each turn field becomes one utterance, or several when the importer recorded merged
 *   utterances in `turn.source_utterances` (their extra fields, e.g. utterance_id and
 *   utterance_feedback, are written back).
 * - Dialogue acts come from ONE annotator (`annotator`, default "source": the acts that came with
 *   imported data); slot values go to the act named by their `act_index`, else by their `intent`,
 *   else to the first act. A slot value kept in `raw` by the importer is written back as it was.
 * - Dialogues imported from DialogueKit get their original id field, participants and metadata
 *   back, so DialogueKit -> SimLens -> DialogueKit gives the original JSON. Other conversations
 *   get `agent: {id: agent or "Agent", type: "AGENT"}`, `user: {id: "User" or the simulator,
 *   type: "USER" | "SIMULATOR"}`, and their SimLens metadata (plus outcome/ratings/condition when
 *   set) in `metadata`.
 */
import type { Annotation, Conversation, SlotValue, Turn } from '../model';
import { isRecord } from '../model';

type Rec = Record<string, unknown>;

/**
 * Metadata keys the DialogueKit importer adds (importers/dialoguekit.ts; a source key of the same
 * name is kept as `original_<key>` there): format = "dialoguekit"; user = the user's id;
 * participants = the original agent/user objects; source_id_key = how the id field was spelled
 * when not `conversation_id`; source_id = the original id when it was a number; utterances = the
 * original utterance count; speaker_changes.
 */
export const DIALOGUEKIT_OWN_METADATA: ReadonlySet<string> = new Set([
  'format',
  'user',
  'participants',
  'source_id_key',
  'source_id',
  'utterances',
  'speaker_changes',
]);
/** Keys of a source_utterances record that SimLens owns. */
const RECORD_KEYS = new Set(['speaker', 'segment', 'text_start', 'text_end']);

export interface DialogueKitExportOptions {
  /** Whose dialogue acts to write (default "source"). */
  annotator?: string;
}

/** What one export wrote, for the summary line. */
export interface DialogueKitExportCounts {
  dialogues: number;
  utterances: number;
  acts: number;
  slotValues: number;
}

function slotArray(s: SlotValue): unknown {
  if (s['raw'] !== undefined) return s['raw'];
  return [s.slot, s.value, s.start ?? null, s.end ?? null];
}

/** The dialogue acts of one utterance from one annotation. */
function dialogueActs(ann: Annotation): Rec[] {
  const acts: Rec[] = ann.acts.map((intent) => ({ intent, slot_values: [] as unknown[] }));
  for (const s of ann.slots ?? []) {
    let k =
      typeof s['act_index'] === 'number'
        ? (s['act_index'] as number)
        : s.intent !== undefined
          ? ann.acts.indexOf(s.intent)
          : 0;
    if (k < 0 || k >= acts.length) k = 0;
    if (acts.length === 0) acts.push({ intent: s.intent ?? '', slot_values: [] });
    (acts[k]['slot_values'] as unknown[]).push(slotArray(s));
  }
  return acts;
}

/** The utterance records of one side of a turn: from source_utterances, else the whole field. */
function utteranceRecords(turn: Turn, speaker: 'user' | 'assistant', text: string): Rec[] {
  const records = (turn as Rec)['source_utterances'];
  const mine = Array.isArray(records)
    ? (records as unknown[]).filter((r): r is Rec => isRecord(r) && r['speaker'] === speaker)
    : [];
  if (mine.length === 0) return [{ speaker, segment: 0, text_start: 0, text_end: text.length }];
  return mine;
}

/** Converts one conversation. `counts` is updated with what was written. */
export function toDialogueKitDialogue(
  conv: Conversation,
  opts: DialogueKitExportOptions = {},
  counts?: DialogueKitExportCounts,
): Rec {
  const annotator = opts.annotator ?? 'source';
  const meta = (conv.metadata ?? {}) as Rec;
  const fromDk = meta['format'] === 'dialoguekit';
  const out: Rec = {};
  const idKey =
    fromDk && typeof meta['source_id_key'] === 'string' ? (meta['source_id_key'] as string) : 'conversation_id';
  out[idKey] = fromDk && meta['source_id'] !== undefined ? meta['source_id'] : (conv.id ?? '');
  const participants = fromDk ? (isRecord(meta['participants']) ? meta['participants'] : {}) : undefined;
  if (participants) {
    // As the source had them (some DialogueKit files leave them out).
    if (participants['agent'] !== undefined) out['agent'] = participants['agent'];
    if (participants['user'] !== undefined) out['user'] = participants['user'];
  } else {
    out['agent'] = { id: conv.agent ?? 'Agent', type: 'AGENT' };
    const simulated = conv.source !== undefined && conv.source !== 'human';
    out['user'] = { id: simulated ? conv.source : 'User', type: simulated ? 'SIMULATOR' : 'USER' };
  }
  const utterances: Rec[] = [];
  for (const turn of conv.turns) {
    for (const speaker of ['user', 'assistant'] as const) {
      const field = speaker === 'user' ? turn.user_utterance : turn.assistant_utterance;
      if (field === undefined) continue;
      for (const r of utteranceRecords(turn, speaker, field)) {
        const start = typeof r['text_start'] === 'number' ? (r['text_start'] as number) : 0;
        const end = typeof r['text_end'] === 'number' ? (r['text_end'] as number) : field.length;
        const segment = typeof r['segment'] === 'number' ? (r['segment'] as number) : 0;
        const u: Rec = { participant: speaker === 'user' ? 'USER' : 'AGENT', utterance: field.slice(start, end) };
        const ann = (turn.annotations ?? []).find(
          (a) => a.annotator === annotator && a.speaker === speaker && (a.segment ?? 0) === segment,
        );
        if (ann) {
          const das = dialogueActs(ann);
          u['dialogue_acts'] = das;
          if (counts) {
            counts.acts += das.length;
            counts.slotValues += das.reduce((n, d) => n + (d['slot_values'] as unknown[]).length, 0);
          }
        }
        for (const [k, v] of Object.entries(r)) if (!RECORD_KEYS.has(k)) u[k] = v;
        utterances.push(u);
      }
    }
  }
  out['conversation'] = utterances;
  let metadata: Rec;
  if (fromDk) metadata = Object.fromEntries(Object.entries(meta).filter(([k]) => !DIALOGUEKIT_OWN_METADATA.has(k)));
  else {
    metadata = { ...meta };
    if (conv.outcome !== undefined) metadata['outcome'] = conv.outcome;
    if (conv.condition !== undefined) metadata['condition'] = conv.condition;
    if (conv.task_id !== undefined) metadata['task_id'] = conv.task_id;
    if (conv.ratings !== undefined) metadata['ratings'] = conv.ratings;
  }
  // The importer renamed clashing original keys to original_<key>: give them their names back.
  if (fromDk) {
    for (const k of DIALOGUEKIT_OWN_METADATA) {
      if (`original_${k}` in metadata) {
        metadata[k] = metadata[`original_${k}`];
        delete metadata[`original_${k}`];
      }
    }
  }
  if (Object.keys(metadata).length) out['metadata'] = metadata;
  if (counts) {
    counts.dialogues++;
    counts.utterances += utterances.length;
  }
  return out;
}
