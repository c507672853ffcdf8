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
import { datasetPath } from '../../fixtures';

const GOLD = datasetPath('usersimcrs-iard-gold/formatted_IARD_annotated_gold.json');

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
    assert.deepEqual([...gold.AGENT.keys()].sort(), [...IARD_TAXONOMY.assistant].sort());
    // The two agent labels the taxonomy used to miss.
    assert.equal(gold.AGENT.get('END'), 67);
    assert.equal(gold.AGENT.get('OTH'), 81);
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
