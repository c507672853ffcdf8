/**
 * The outcome of IARD dialogues, whichever copy is read: the UserSimCRS copy in DialogueKit format
 * (`metadata.accepted_recommendations`, titles) and the raw release (`accepted_recommendation`,
 * movie ids) follow one rule (src/core/importers/outcome.ts). Before, the DialogueKit path set no
 * outcome, so the 77 gold dialogues counted as 0% accepted.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { importFile, importText } from '../../../src/core/importers/index';
import { outcomeFromAcceptedList } from '../../../src/core/importers/outcome';
import { toDialogueKitDialogue } from '../../../src/core/export/dialoguekit';
import { countOutcomes, userOutcomeShare } from '../../../src/core/report/outcomes';
import { dataset } from './helpers';

const IARD_GOLD = 'usersimcrs-iard-gold/formatted_IARD_annotated_gold.json';

/** One DialogueKit dialogue with the given metadata. */
function dkDialogue(id: string, metadata?: unknown): Record<string, unknown> {
  const d: Record<string, unknown> = {
    conversation_id: id,
    conversation: [
      { participant: 'USER', utterance: 'Any horror movie?', intent: 'ASK' },
      { participant: 'AGENT', utterance: 'The Conjuring', intent: 'REC-S' },
    ],
  };
  if (metadata !== undefined) d['metadata'] = metadata;
  return d;
}

/** One raw-IARD dialogue with the given accepted_recommendation. */
function rawIard(accepted: unknown): Record<string, unknown> {
  return {
    accepted_recommendation: accepted,
    dialogue_info: {
      S1: {
        utterance_pos: 1,
        worker_id: 1,
        role: 'seeker',
        utterance_text: 'Any horror movie?',
        'sub-intent/action': ['ASK'],
      },
      R2: {
        utterance_pos: 2,
        worker_id: 2,
        role: 'recommender',
        utterance_text: '@5 <The Conjuring (2013)>',
        'sub-intent/action': ['REC-S'],
      },
    },
  };
}

describe('accepted recommendations -> outcome', () => {
  test('UserSimCRS IARD gold (real file, unchanged): 75 accepted, 2 ended, titles kept in metadata', async () => {
    const file = dataset(IARD_GOLD);
    const raw = JSON.parse(readFileSync(file, 'utf8')) as { metadata?: { accepted_recommendations?: unknown[] } }[];
    const r = await importFile(file);
    assert.equal(r.format, 'dialoguekit');
    assert.equal(r.conversations.length, 77);
    const nonEmpty = raw.filter((d) => (d.metadata?.accepted_recommendations ?? []).length > 0).length;
    assert.equal(nonEmpty, 75);
    assert.equal(r.conversations.filter((c) => c.outcome === 'accepted').length, 75);
    assert.equal(r.conversations.filter((c) => c.outcome === 'ended').length, 2);
    r.conversations.forEach((c, i) => {
      const list = raw[i].metadata?.accepted_recommendations ?? [];
      assert.equal(c.outcome, list.length > 0 ? 'accepted' : 'ended', `dialogue ${i}`);
      // No item-id field exists for what was accepted: the titles stay where the source had them.
      assert.deepEqual(c.metadata?.['accepted_recommendations'], list);
    });
    // What the zb metrics' Outcomes table counts (it said 0.0% accepted / 100% ended before).
    const counts = countOutcomes(r.conversations);
    assert.equal(counts.accepted, 75);
    assert.equal(counts.ended, 2);
    assert.ok(Math.abs(userOutcomeShare(counts, 'accepted') - 75 / 77) < 1e-12);
    // The no-warning baseline is unchanged: only the known year-as-offset slot is reported.
    assert.equal(r.warnings.length, 1);
  });

  test('the outcome does not leak into the DialogueKit export (round trip stays the original)', async () => {
    const r = await importFile(dataset(IARD_GOLD));
    const raw = JSON.parse(readFileSync(dataset(IARD_GOLD), 'utf8')) as Record<string, unknown>[];
    r.conversations.forEach((c, i) => {
      assert.deepEqual(toDialogueKitDialogue(c)['metadata'], raw[i]['metadata']);
    });
  });

  test('DialogueKit and raw IARD give the same outcome for the same accepted list', () => {
    for (const [accepted, expected] of [
      [['The Conjuring'], 'accepted'],
      [[], 'ended'],
    ] as const) {
      const dk = importText(JSON.stringify([dkDialogue('a', { accepted_recommendations: accepted })]), {
        origin: 'dk.json',
        from: 'dialoguekit',
      });
      const iard = importText(JSON.stringify({ '7': rawIard(accepted) }), { origin: 'iard.json', from: 'iard' });
      assert.equal(dk.conversations[0].outcome, expected);
      assert.equal(iard.conversations[0].outcome, expected);
      assert.equal(outcomeFromAcceptedList(accepted).outcome, expected);
    }
  });

  test('no list, no outcome; a list that is not a list is reported, not guessed', () => {
    const none = importText(JSON.stringify([dkDialogue('a'), dkDialogue('b', { rating: 3 })]), {
      origin: 'dk.json',
      from: 'dialoguekit',
    });
    assert.deepEqual(
      none.conversations.map((c) => c.outcome),
      [undefined, undefined],
    );
    assert.equal(none.warnings.length, 0);

    const bad = importText(JSON.stringify([dkDialogue('a', { accepted_recommendations: 'The Conjuring' })]), {
      origin: 'dk.json',
      from: 'dialoguekit',
    });
    assert.equal(bad.conversations[0].outcome, undefined);
    assert.equal(bad.conversations[0].metadata?.['accepted_recommendations'], 'The Conjuring');
    assert.equal(bad.warnings.length, 1);
    assert.equal(bad.warnings[0].path, '[0].metadata.accepted_recommendations');
    assert.match(bad.warnings[0].message, /must be a list .*found string.*outcome not set/);

    const badRaw = importText(JSON.stringify({ '7': rawIard(5) }), { origin: 'iard.json', from: 'iard' });
    assert.equal(badRaw.conversations[0].outcome, undefined);
    assert.match(badRaw.warnings.map((w) => w.message).join('\n'), /"accepted_recommendation" must be a list/);
    // Absent on the raw release: no outcome either.
    const absent = rawIard([]);
    delete absent['accepted_recommendation'];
    assert.equal(
      importText(JSON.stringify({ '7': absent }), { origin: 'iard.json', from: 'iard' }).conversations[0].outcome,
      undefined,
    );
  });
});
