/**
 * The built-in IARD taxonomy lists every label the IARD gold set uses, per speaker, so the
 * annotation panel (which builds its act buttons from the taxonomy) offers them all, and
 * taxonomy inference works per speaker.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { IARD_TAXONOMY, inferTaxonomyName } from '../../../src/core/taxonomy';
import { agreementFromConversations } from '../../../src/core/document/agreement';
import type { Conversation } from '../../../src/core/model';
import { datasetPath, fixturePath } from '../../fixtures';
import { importText } from '../../../src/core/importers/index';

const GOLD = datasetPath('usersimcrs-iard-gold/formatted_IARD_annotated_gold.json');
/** Label counts of UserSimCRS's IARD files, written by test/fixtures/iard_labels.py. */
const LABELS = JSON.parse(readFileSync(fixturePath('iard-labels.json'), 'utf8')) as {
  files: Record<string, { dialogues: number; labels: Record<string, Record<string, number>> }>;
};

interface GoldDialogue {
  conversation: { participant: string; dialogue_acts: { intent: string }[] }[];
}

/** Distinct labels per participant of the gold file, with their counts. */
function goldLabels(): Record<string, Map<string, number>> {
  const out: Record<string, Map<string, number>> = {};
  for (const d of JSON.parse(readFileSync(GOLD, 'utf8')) as GoldDialogue[]) {
    for (const u of d.conversation) {
      const m = (out[u.participant] ??= new Map());
      for (const a of u.dialogue_acts) m.set(a.intent, (m.get(a.intent) ?? 0) + 1);
    }
  }
  return out;
}

describe('IARD taxonomy', () => {
  test('every label of the gold file is in the taxonomy for its speaker', () => {
    const gold = goldLabels();
    assert.deepEqual(Object.keys(gold).sort(), ['AGENT', 'USER']);
    assert.deepEqual([...gold.USER.keys()].sort(), [...IARD_TAXONOMY.user].sort());
    for (const label of gold.AGENT.keys()) assert.ok(IARD_TAXONOMY.assistant.includes(label), label);
    // The two agent labels the taxonomy used to miss.
    assert.equal(gold.AGENT.get('END'), 67);
    assert.equal(gold.AGENT.get('OTH'), 81);
    // The committed counts (test/fixtures/iard_labels.py) were made from this same file.
    const counted = LABELS.files['data/datasets/iard/formatted_IARD_annotated_gold.json'].labels;
    for (const who of ['AGENT', 'USER']) assert.deepEqual(Object.fromEntries(gold[who]), counted[who]);
  });

  test('the taxonomy is exactly the union of the labels the real IARD files use (CLQ included)', () => {
    const used: Record<'AGENT' | 'USER', Set<string>> = { AGENT: new Set(), USER: new Set() };
    for (const f of Object.values(LABELS.files))
      for (const who of ['AGENT', 'USER'] as const) for (const l of Object.keys(f.labels[who] ?? {})) used[who].add(l);
    assert.deepEqual([...used.AGENT].sort(), [...IARD_TAXONOMY.assistant].sort());
    assert.deepEqual([...used.USER].sort(), [...IARD_TAXONOMY.user].sort());
    assert.equal(LABELS.files['data/datasets/iard/formatted_IARD_annotated_partially.json'].labels.AGENT['CLQ'], 22);
    // A DialogueKit file whose agent says CLQ is recorded as IARD, so the editor offers IARD's acts.
    const doc = [
      {
        conversation_id: 'q',
        conversation: [
          { participant: 'USER', utterance: 'a horror film?', dialogue_acts: [{ intent: 'IQU', slot_values: [] }] },
          { participant: 'AGENT', utterance: 'old or new?', dialogue_acts: [{ intent: 'CLQ', slot_values: [] }] },
        ],
      },
    ];
    const r = importText(JSON.stringify(doc), { origin: 'iard.json' });
    const acts = r.conversations[0].turns.flatMap((t) => t.annotations ?? []);
    assert.ok(acts.length > 0 && acts.every((a) => a.taxonomy === 'iard'), JSON.stringify(acts));
  });

  test('inference per speaker: IARD agent END/OTH are IARD, user-only labels are not agent labels', () => {
    assert.equal(inferTaxonomyName(['OTH'], 'assistant'), 'iard');
    assert.equal(inferTaxonomyName(['END', 'REC-S'], 'assistant'), 'iard');
    assert.equal(inferTaxonomyName(['ACC'], 'assistant'), undefined);
    assert.equal(inferTaxonomyName(['ACC'], 'user'), 'iard');
    assert.equal(inferTaxonomyName(['ACC']), 'iard');
    assert.equal(inferTaxonomyName(['Traverse.End'], 'assistant'), 'zhang-balog');
    assert.equal(inferTaxonomyName(['other'], 'assistant'), 'convapparel');
  });

  test('an annotator who gives only agent END/OTH labels is recognised as IARD by agreement', () => {
    const conv: Conversation = {
      id: 'c',
      turns: [
        {
          user_utterance: 'hi',
          assistant_utterance: 'bye',
          annotations: [
            { speaker: 'assistant', annotator: 'a', acts: ['OTH'] },
            { speaker: 'assistant', annotator: 'b', acts: ['END'] },
          ],
        },
      ],
    } as Conversation;
    const r = agreementFromConversations([conv]);
    assert.deepEqual(r.taxonomies, { a: 'iard', b: 'iard' });
    assert.equal(r.reports.length, 1);
  });
});
