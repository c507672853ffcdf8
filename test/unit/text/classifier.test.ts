import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { LexicalClassifier, lexicalFeatures } from '../../../src/core/text/classifier';

/** Training texts by label; EXAMPLES lists them in this order. */
const TEXTS: Record<string, string[]> = {
  elicit: ['What colour would you like?', 'Do you have a budget in mind?', 'Which size do you wear?'],
  recommend: [
    'Here are some boots you might like.',
    'I found these jackets for you.',
    'Take a look at these sneakers.',
  ],
  greet: ['Hello! Welcome to the store.', 'Hi there, nice to meet you.'],
};
const EXAMPLES = Object.entries(TEXTS).flatMap(([label, texts]) => texts.map((text) => ({ text, label })));

describe('LexicalClassifier', () => {
  test('features are unigrams, bigrams and a question marker', () => {
    assert.deepEqual(lexicalFeatures('Any colour?'), ['any', 'colour', 'any colour', '<?>']);
    assert.deepEqual(lexicalFeatures('boots'), ['boots']);
  });

  test('predicts held-out texts', () => {
    const clf = LexicalClassifier.train(EXAMPLES);
    assert.deepEqual(clf.labels(), ['elicit', 'greet', 'recommend']);
    assert.equal(clf.predict('What colour do you have in mind?').label, 'elicit');
    assert.equal(clf.predict('Here are some jackets.').label, 'recommend');
    assert.equal(clf.predict('Hello there!').label, 'greet');
    const p = clf.predict('Which colour would you like?');
    assert.ok(p.confidence > 0.5 && p.confidence <= 1);
    const probs = clf.probabilities('Which colour would you like?');
    assert.ok(Math.abs(probs.reduce((a, b) => a + b, 0) - 1) < 1e-12);
    assert.equal(Math.max(...probs), p.confidence);
  });

  test('Laplace smoothing matches a hand computation', () => {
    // labels a: "x" (features: x), b: "y" (features: y); V = 2, alpha = 1.
    // P(x|a) = (1+1)/(1+2) = 2/3, P(x|b) = (0+1)/(1+2) = 1/3, priors equal (1/2 each).
    // For text "x": P(a|x) = (1/2 * 2/3) / (1/2 * 2/3 + 1/2 * 1/3) = 2/3.
    const clf = LexicalClassifier.train([
      { text: 'x', label: 'a' },
      { text: 'y', label: 'b' },
    ]);
    const p = clf.predict('x');
    assert.equal(p.label, 'a');
    assert.ok(Math.abs(p.confidence - 2 / 3) < 1e-12);
    // alpha = 0.5: P(x|a) = 1.5/2, P(x|b) = 0.5/2 -> posterior 0.75
    const half = LexicalClassifier.train(
      [
        { text: 'x', label: 'a' },
        { text: 'y', label: 'b' },
      ],
      { alpha: 0.5 },
    );
    assert.ok(Math.abs(half.predict('x').confidence - 0.75) < 1e-12);
    // unseen features are ignored: the prior decides, ties go to the first label
    assert.deepEqual(clf.predict('zzz'), { label: 'a', confidence: 0.5 });
  });

  test('deterministic regardless of example order; JSON round trip', () => {
    const a = LexicalClassifier.train(EXAMPLES);
    const b = LexicalClassifier.train(EXAMPLES.slice().reverse());
    assert.deepEqual(a.toJSON(), b.toJSON());
    const restored = LexicalClassifier.fromJSON(JSON.parse(JSON.stringify(a.toJSON())));
    for (const t of ['What size?', 'Here are boots', 'hello', 'random words'])
      assert.deepEqual(restored.predict(t), a.predict(t));
  });

  test('bad input is reported', () => {
    assert.throws(() => LexicalClassifier.train([]), /no training examples/);
    assert.throws(() => LexicalClassifier.train(EXAMPLES, { alpha: 0 }), /alpha/);
    assert.throws(
      () => LexicalClassifier.fromJSON({ kind: 'other' }),
      /invalid model: kind: expected one of "simlens-lexical-nb", got string "other"/,
    );
    const json = LexicalClassifier.train(EXAMPLES).toJSON() as { counts: Record<string, number[]> };
    json.counts['boots'] = [1];
    assert.throws(() => LexicalClassifier.fromJSON(json), /counts\["boots"\]/);
  });
});
