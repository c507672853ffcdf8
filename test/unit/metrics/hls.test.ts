import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  classificationMetrics,
  crossValidateHls,
  crossDistribution,
  hlsLearningCurve,
  llmDiscriminatorScores,
  stratifiedFolds,
  trainDiscriminator,
  userNgrams,
} from '../../../src/core/metrics/hls';
import { syntheticPopulation, DEMO_PROFILES } from '../../../src/core/metrics/synthetic';
import type { Conversation } from '../../../src/core/model';

describe('human-likeness discriminator', () => {
  test('metrics by hand (human = positive)', () => {
    const m = classificationMetrics([0.9, 0.4, 0.2, 0.7, 0.1], [1, 1, 0, 0, 0]);
    // tp = 1, fn = 1, tn = 2, fp = 1
    assert.equal(m.accuracy, 3 / 5);
    assert.equal(m.precision, 1 / 2);
    assert.equal(m.recall, 1 / 2);
    assert.equal(m.f1, 1 / 2);
    assert.equal(m.specificity, 2 / 3);
    assert.equal(m.avg_hls_human, 0.65);
    assert.ok(Math.abs(m.avg_hls_simulated - 1 / 3) < 1e-15);
  });

  test('stratified folds balance both classes', () => {
    const labels = [...new Array(10).fill(1), ...new Array(20).fill(0)];
    const f = stratifiedFolds(labels, 5, 3);
    for (let k = 0; k < 5; k++) {
      assert.equal(labels.filter((l, i) => l === 1 && f[i] === k).length, 2);
      assert.equal(labels.filter((l, i) => l === 0 && f[i] === k).length, 4);
    }
  });

  test('user n-grams stay within one utterance', () => {
    const c: Conversation = {
      turns: [{ user_utterance: 'a b' }, { user_utterance: 'c', assistant_utterance: 'ignored words' }],
    };
    assert.deepEqual(userNgrams(c), ['a', 'b', 'a b', 'c']);
  });

  const human = syntheticPopulation(DEMO_PROFILES.human, 120, 5);
  const prompted = syntheticPopulation(DEMO_PROFILES.prompted, 120, 5);
  const sft = syntheticPopulation(DEMO_PROFILES.sft, 120, 5);

  test('cross-validation separates an obviously different simulator, deterministically', () => {
    const cv = crossValidateHls(human, prompted, { k: 5, seed: 2 });
    assert.ok(cv.metrics.accuracy > 0.95, `accuracy ${cv.metrics.accuracy}`);
    assert.equal(cv.hls_human.length, 120);
    assert.ok(cv.hls_simulated.every((p) => p >= 0 && p <= 1));
    assert.ok(cv.metrics.avg_hls_human > cv.metrics.avg_hls_simulated);
    assert.deepEqual(crossValidateHls(human, prompted, { k: 5, seed: 2 }).metrics, cv.metrics);
    assert.throws(() => crossValidateHls(human.slice(0, 3), prompted, { k: 5 }), /at least 5 conversations/);
  });

  test('a near-human simulator is harder to tell apart', () => {
    const easy = crossValidateHls(human, prompted, { seed: 1 }).metrics.accuracy;
    const hard = crossValidateHls(human, sft, { seed: 1 }).metrics.accuracy;
    assert.ok(hard < easy, `sft ${hard} vs prompted ${easy}`);
  });

  test('learning curve and cross-distribution matrix', () => {
    const curve = hlsLearningCurve(human, prompted, { sizes: [10, 40, 150], seed: 1 });
    assert.deepEqual(
      curve.map((p) => p.train_size),
      [10, 40, 150],
    );
    const cells = crossDistribution(
      human,
      [
        { name: 'prompted', conversations: prompted },
        { name: 'sft', conversations: sft },
      ],
      { seed: 1 },
    );
    assert.equal(cells.length, 4);
    assert.deepEqual(
      cells.map((c) => `${c.train}>${c.test}`),
      ['prompted>prompted', 'prompted>sft', 'sft>prompted', 'sft>sft'],
    );
    const inDist = cells[0].metrics.accuracy;
    assert.ok(inDist > 0.9);
  });

  test('trained model predicts P(human) for new text', () => {
    const d = trainDiscriminator(
      [['lol', 'idk'], ['lol'], ['furthermore'], ['moreover', 'furthermore']],
      [1, 1, 0, 0],
      { minDf: 1 },
    );
    const p = d.predict([['lol'], ['furthermore']]);
    assert.ok(p[0] > 0.5 && p[1] < 0.5);
  });

  test('LLM discriminator scores are collected', () => {
    const convs: Conversation[] = [
      { turns: [], annotations: [{ annotator: 'discriminator:m', fields: { p_human: 0.2 } }] },
      { turns: [] },
      {
        turns: [],
        annotations: [
          { annotator: 'discriminator:m', fields: { p_human: 0.6 } },
          { annotator: 'judge:x', fields: {} },
        ],
      },
    ];
    const s = llmDiscriminatorScores(convs);
    assert.equal(s.n, 2);
    assert.ok(Math.abs(s.mean_p_human - 0.4) < 1e-15);
    assert.deepEqual(s.annotators, ['discriminator:m']);
    assert.ok(Number.isNaN(s.p_human[1]));
  });
});
