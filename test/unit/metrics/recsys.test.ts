import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Conversation } from '../../../src/core/model';
import {
  pepperCurves,
  alterEvalCurves,
  alterEvalImprovement,
  ndcgAtK,
  mrrAtK,
  conversationTargets,
} from '../../../src/core/metrics/recsys';

const recs = (ids: string[]) => ids.map((item_id) => ({ item_id }));

describe('PEPPER', () => {
  test('PC_t, PCIR_t and Recall@k by hand', () => {
    const u1: Conversation = {
      turns: [
        {
          user_utterance: 'x',
          assistant_utterance: 'y',
          recommendations: recs(['a', 'x']),
          trace: { targets: ['a', 'b'] },
        },
        { user_utterance: 'x', assistant_utterance: 'y', recommendations: recs(['a', 'b']) },
      ],
    };
    const u2: Conversation = {
      turns: [{ user_utterance: 'x', assistant_utterance: 'y', recommendations: recs(['z', 'q']) }],
      metadata: { targets: ['q', 'r', 's', 't'] },
    };
    assert.deepEqual(conversationTargets(u2), ['q', 'r', 's', 't']);
    const c = pepperCurves([u1, u2, { turns: [] }]);
    assert.equal(c.users, 2);
    // u1: PC 1/2, 1; u2: PC 1/4, then stays 1/4
    assert.deepEqual(c.pc, [(0.5 + 0.25) / 2, (1 + 0.25) / 2]);
    assert.deepEqual(c.pcir, [0.375, 0.25]);
    // recall per turn: u1 1/2, 2/2; u2 1/4, 0 (no list at turn 2)
    assert.deepEqual(c.recall_at_k, [(0.5 + 0.25) / 2, (1 + 0) / 2]);
    const k1 = pepperCurves([u1], { k: 1 });
    assert.deepEqual(k1.pc, [0.5, 0.5]);
  });
});

describe('AlterEval', () => {
  test('NDCG@10 and MRR@10 by hand', () => {
    const rel = new Set(['t', 'u']);
    assert.ok(Math.abs(ndcgAtK(['x', 'u'], rel) - 1 / Math.log2(3) / (1 + 1 / Math.log2(3))) < 1e-15);
    assert.equal(mrrAtK(['x', 'u'], rel), 0.5);
    assert.equal(mrrAtK(['x'], rel), 0);
  });

  const conv: Conversation = {
    turns: [
      {
        user_utterance: 'x',
        recommendations: recs(['x', 'u']),
        trace: { target: { item_id: 't', alternatives: ['u'] } },
      },
      { user_utterance: 'x', recommendations: recs(['u', 'x']) },
      { user_utterance: 'x', recommendations: recs(['x', 'y']) },
    ],
  };

  test('measures are 1 from the turn a relevant item reaches rank 1 (alternatives relevant)', () => {
    const c = alterEvalCurves([conv], { horizon: 4 });
    assert.deepEqual(c.sr_at_1, [0, 1, 1, 1]);
    assert.deepEqual(c.mrr_at_10, [0.5, 1, 1, 1]);
    assert.ok(Math.abs(c.ndcg_at_10[0] - 0.38685280723454163) < 1e-12);
    assert.equal(c.success, 1);
  });

  test('classical single-target setting and the meta-simulator improvement', () => {
    const t = alterEvalCurves([conv], { relevant: 'target', horizon: 4 });
    assert.deepEqual(t.sr_at_1, [0, 0, 0, 0]);
    assert.deepEqual(t.mrr_at_10, [0, 0, 0, 0]);
    const imp = alterEvalImprovement([conv], [conv], 4);
    assert.deepEqual(imp.sr_at_1, [0, 1, 1, 1]);
    assert.ok(Number.isNaN(imp.relative_at_horizon.sr_at_1), 'base is 0');
  });
});
