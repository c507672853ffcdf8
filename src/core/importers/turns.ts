/**
 * Turns a flat list of utterances (speaker + text, in order) into canonical turns: a user field
 * then an assistant field per turn. Consecutive utterances by the same speaker are joined with
 * "\n" into one field; each keeps its own annotation (with `segment` = its index within the field)
 * and its own record in `turn.source_utterances`, so the original utterances can be recovered.
 */
import type { Annotation, RecommendedItem, SlotValue, Speaker, Turn } from '../model';

/** A source's annotation of one utterance; speaker and segment are added when turns are built. */
export interface SourceAnnotation {
  annotator: string;
  acts: string[];
  taxonomy?: string;
  slots?: SlotValue[];
  [key: string]: unknown;
}

/** One utterance from a source format, before merging. */
export interface SourceUtterance {
  speaker: Speaker;
  text: string;
  /** The source's own annotation of this utterance (acts, slots, ...), without speaker/segment. */
  annotation?: SourceAnnotation;
  /** Everything else the source said about this utterance (ids, feedback, raw fields). */
  extras?: Record<string, unknown>;
  /**
   * Items this (assistant) utterance recommended. They become the turn's `recommendations`, in
   * order, once per item_id across the merged utterances of the field.
   */
  items?: RecommendedItem[];
}

/**
 * What `turn.source_utterances` holds for each original utterance: who spoke, its index within the
 * merged field, where its text sits in that field (UTF-16 offsets, end exclusive), and the
 * source's extra fields.
 */
interface SourceUtteranceRecord {
  speaker: Speaker;
  segment: number;
  text_start: number;
  text_end: number;
  [key: string]: unknown;
}

/** The separator placed between consecutive same-speaker utterances in one field. */
const SEGMENT_SEPARATOR = '\n';

interface Block {
  speaker: Speaker;
  utterances: SourceUtterance[];
}

/**
 * Builds canonical turns. A dialogue that starts with the agent gets a first turn with only
 * `assistant_utterance`; one that ends with the user gets a last turn with only `user_utterance`.
 * A field gets `source_utterances` records when it merged several utterances or when an
 * utterance has extras to keep; a plain single utterance needs none (it is the whole field).
 * Keys come out in a fixed order: user_utterance, assistant_utterance, recommendations, annotations,
 * source_utterances.
 */
export function buildTurns(utterances: readonly SourceUtterance[]): Turn[] {
  const blocks: Block[] = [];
  for (const u of utterances) {
    const last = blocks[blocks.length - 1];
    if (last && last.speaker === u.speaker) last.utterances.push(u);
    else blocks.push({ speaker: u.speaker, utterances: [u] });
  }
  interface Draft {
    user?: string;
    assistant?: string;
    annotations: Annotation[];
    records: SourceUtteranceRecord[];
    items: RecommendedItem[];
  }
  const drafts: Draft[] = [];
  let current: Draft | undefined;
  for (const block of blocks) {
    // A user block always opens a turn; an assistant block completes the open turn when that turn
    // has a user side and no assistant side yet, else opens its own turn.
    if (!current || block.speaker === 'user' || current.assistant !== undefined) {
      current = { annotations: [], records: [], items: [] };
      drafts.push(current);
    }
    let text = '';
    const records: SourceUtteranceRecord[] = [];
    let needRecords = block.utterances.length > 1;
    block.utterances.forEach((u, segment) => {
      if (segment > 0) text += SEGMENT_SEPARATOR;
      const start = text.length;
      text += u.text;
      if (u.annotation) current!.annotations.push({ speaker: block.speaker, ...u.annotation, segment });
      for (const item of u.items ?? [])
        if (!current!.items.some((x) => x.item_id === item.item_id)) current!.items.push(item);
      const extras = u.extras ?? {};
      if (Object.keys(extras).length) needRecords = true;
      const record: SourceUtteranceRecord = {
        speaker: block.speaker,
        segment,
        text_start: start,
        text_end: text.length,
      };
      // Extras never overwrite the four fields above: a clashing key is kept as `source_<key>`.
      for (const [k, v] of Object.entries(extras)) record[k in record ? `source_${k}` : k] = v;
      records.push(record);
    });
    if (block.speaker === 'user') current.user = text;
    else current.assistant = text;
    if (needRecords) current.records.push(...records);
  }
  return drafts.map((d) => {
    const turn: Turn = {};
    if (d.user !== undefined) turn.user_utterance = d.user;
    if (d.assistant !== undefined) turn.assistant_utterance = d.assistant;
    if (d.items.length) turn.recommendations = d.items;
    if (d.annotations.length) turn.annotations = d.annotations;
    if (d.records.length) (turn as Record<string, unknown>)['source_utterances'] = d.records;
    return turn;
  });
}

/**
 * The utterances of a canonical conversation's turns in order, as (speaker, count) runs: a field
 * with `source_utterances` records counts as that many utterances, any other present field as
 * one. Used by `dialogueKitStats` and by tests to count what an import produced.
 */
export function utteranceRuns(turns: readonly Turn[]): { speaker: Speaker; count: number }[] {
  const runs: { speaker: Speaker; count: number }[] = [];
  for (const turn of turns) {
    const records = (turn as Record<string, unknown>)['source_utterances'];
    for (const speaker of ['user', 'assistant'] as const) {
      const text = speaker === 'user' ? turn.user_utterance : turn.assistant_utterance;
      if (text === undefined) continue;
      let count = 1;
      if (Array.isArray(records)) {
        const n = records.filter(
          (r) => r !== null && typeof r === 'object' && (r as { speaker?: unknown }).speaker === speaker,
        ).length;
        if (n > 0) count = n;
      }
      const last = runs[runs.length - 1];
      if (last && last.speaker === speaker) last.count += count;
      else runs.push({ speaker, count });
    }
  }
  return runs;
}
