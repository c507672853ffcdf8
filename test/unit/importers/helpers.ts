/** Shared helpers for the importer tests. */
import path from 'node:path';
import type { Annotation, Conversation, SlotValue } from '../../../src/core/model';
import { utteranceRuns } from '../../../src/core/importers/turns';
import assert from 'node:assert/strict';
import { detectFormat, importFile, type ImportResult } from '../../../src/core/importers/index';

export { datasetPath as dataset } from '../../fixtures';
const FIXTURES = path.resolve(__dirname, 'fixtures');

export function fixture(name: string): string {
  return path.join(FIXTURES, name);
}

/** Utterances in imported output, counted from segments (source_utterances) per field. */
export function countUtterances(convs: readonly Conversation[]): { user: number; agent: number; total: number } {
  let user = 0;
  let agent = 0;
  for (const c of convs)
    for (const r of utteranceRuns(c.turns)) {
      if (r.speaker === 'user') user += r.count;
      else agent += r.count;
    }
  return { user, agent, total: user + agent };
}

type Rec = Record<string, unknown>;
const OWN_META = new Set([
  'format',
  'user',
  'participants',
  'source_id_key',
  'source_id',
  'utterances',
  'speaker_changes',
]);
const OWN_RECORD = new Set(['speaker', 'segment', 'text_start', 'text_end']);

/**
 * Rebuilds DialogueKit dialogues from imported conversations — the inverse of the importer, used
 * to prove the import keeps everything. Not part of the product (yet).
 */
export function toDialogueKit(convs: readonly Conversation[]): Rec[] {
  return convs.map((conv) => {
    const meta = (conv.metadata ?? {}) as Rec;
    const out: Rec = {};
    const idKey = typeof meta['source_id_key'] === 'string' ? meta['source_id_key'] : 'conversation_id';
    out[idKey] = meta['source_id'] ?? conv.id;
    const participants = (meta['participants'] ?? {}) as Rec;
    if (participants['agent'] !== undefined) out['agent'] = participants['agent'];
    if (participants['user'] !== undefined) out['user'] = participants['user'];
    const utterances: Rec[] = [];
    for (const turn of conv.turns) {
      const records = ((turn as Rec)['source_utterances'] ?? []) as Rec[];
      for (const speaker of ['user', 'assistant'] as const) {
        const field = speaker === 'user' ? turn.user_utterance : turn.assistant_utterance;
        if (field === undefined) continue;
        let mine = records.filter((r) => r['speaker'] === speaker);
        if (mine.length === 0) mine = [{ speaker, segment: 0, text_start: 0, text_end: field.length }];
        for (const r of mine) {
          const u: Rec = {
            participant: speaker === 'user' ? 'USER' : 'AGENT',
            utterance: field.slice(r['text_start'] as number, r['text_end'] as number),
          };
          const ann = (turn.annotations ?? []).find(
            (a: Annotation) => a.annotator === 'source' && a.speaker === speaker && (a.segment ?? 0) === r['segment'],
          );
          if (ann) {
            u['dialogue_acts'] = ann.acts.map((intent, k) => ({
              intent,
              slot_values: (ann.slots ?? [])
                .filter((s: SlotValue) => (s['act_index'] !== undefined ? s['act_index'] === k : s.intent === intent))
                .map((s: SlotValue) => s['raw'] ?? [s.slot, s.value, s.start ?? null, s.end ?? null]),
            }));
          }
          for (const [k, v] of Object.entries(r)) if (!OWN_RECORD.has(k)) u[k] = v;
          utterances.push(u);
        }
      }
    }
    out['conversation'] = utterances;
    const origMeta = Object.fromEntries(Object.entries(meta).filter(([k]) => !OWN_META.has(k)));
    if (Object.keys(origMeta).length) out['metadata'] = origMeta;
    return out;
  });
}

/** Imports `file`, asserting that it is detected, and imported, as `format`. */
export async function importDetected(file: string, format: string): Promise<ImportResult> {
  assert.equal(await detectFormat(file), format);
  const r = await importFile(file);
  assert.equal(r.format, format);
  return r;
}
