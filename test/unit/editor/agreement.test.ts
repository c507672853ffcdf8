import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { agreementFromConversations, computeAgreement, ConversationDocumentModel } from '../../../src/core/document';
import { CONVAPPAREL_TAXONOMY } from '../../../src/core/taxonomy';
import type { Conversation } from '../../../src/core/model';
import { conversation, tempFile } from './fixtures';

function annotated(a: string[][], b: string[][], judge?: string[][]): Conversation {
  return {
    id: 'k',
    turns: a.map((actsA, i) => ({
      user_utterance: `u${i}`,
      assistant_utterance: `a${i}`,
      annotations: [
        { speaker: 'user' as const, annotator: 'ann', acts: actsA },
        { speaker: 'user' as const, annotator: 'bob', acts: b[i] },
        ...(judge
          ? [
              { speaker: 'assistant' as const, annotator: 'judge:m', acts: judge[i] },
              { speaker: 'assistant' as const, annotator: 'ann', acts: judge[(i + 1) % judge.length] },
            ]
          : []),
      ],
    })),
  };
}

describe('agreement', () => {
  test("Cohen's kappa per act and primary-act confusion matrix on a hand example", () => {
    const conv = annotated(
      [['inform_preference'], ['critique'], ['inform_preference', 'critique'], ['other']],
      [['inform_preference'], ['inform_preference'], ['critique'], ['other']],
    );
    const r = agreementFromConversations([conv], { order: { user: CONVAPPAREL_TAXONOMY.user } });
    assert.deepEqual(r.annotators, ['ann', 'bob']);
    assert.equal(r.reports.length, 1);
    const rep = r.reports[0];
    assert.equal(rep.items, 4);
    const k = Object.fromEntries(rep.perAct.map((a) => [a.act, a.kappa]));
    assert.equal(k.inform_preference, 0);
    assert.ok(Math.abs((k.critique ?? NaN) - 0.5) < 1e-12);
    assert.equal(k.other, 1);
    assert.deepEqual(rep.labels, ['inform_preference', 'critique', 'other']);
    assert.deepEqual(rep.matrix, [
      [1, 1, 0],
      [1, 0, 0],
      [0, 0, 1],
    ]);
    assert.ok(Math.abs((rep.primaryKappa ?? NaN) - 0.2) < 1e-12);
    const crit = rep.perAct.find((a) => a.act === 'critique')!;
    assert.deepEqual([crit.countA, crit.countB, crit.both], [2, 1, 1]);
  });

  test('a judge is one more annotator; kappa is null when undefined; single annotator gives a note', () => {
    const conv = annotated([['a'], ['a']], [['a'], ['a']], [['recommend'], ['chit_chat']]);
    const r = agreementFromConversations([conv]);
    assert.deepEqual(r.annotators, ['ann', 'bob', 'judge:m']);
    const userPair = r.reports.find((x) => x.annotatorA === 'ann' && x.annotatorB === 'bob' && x.speaker === 'user')!;
    assert.equal(userPair.perAct[0].kappa, null, 'both always used the same act: kappa undefined');
    const judgePair = r.reports.find((x) => x.annotatorB === 'judge:m' && x.speaker === 'assistant')!;
    assert.equal(judgePair.items, 2);
    assert.equal(judgePair.primaryKappa, -1);
    const single = agreementFromConversations([
      { turns: [{ user_utterance: 'x', annotations: [{ speaker: 'user', annotator: 'solo', acts: ['a'] }] }] },
    ]);
    assert.equal(single.reports.length, 0);
    assert.match(single.note ?? '', /at least two annotators/);
  });

  test('computeAgreement reads a document including unsaved edits', async () => {
    const c = conversation(1);
    (c.turns as Array<Record<string, unknown>>)[0].annotations = [
      { speaker: 'user', annotator: 'bob', acts: ['critique'] },
    ];
    const path = tempFile('agree.conv.jsonl', JSON.stringify(c) + '\n' + JSON.stringify(conversation(2)) + '\n');
    const doc = await ConversationDocumentModel.open(path);
    try {
      await doc.annotate({ line: 0, turn: 0, speaker: 'user', annotator: 'alice', acts: ['critique'] });
      const r = await computeAgreement(doc);
      assert.deepEqual(r.annotators, ['alice', 'bob']);
      assert.equal(r.reports[0].items, 1);
      assert.deepEqual(r.reports[0].matrix, [[1]]);
    } finally {
      await doc.close();
    }
  });
});
