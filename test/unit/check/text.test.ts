/**
 * The invariant checker cuts text with the one tokenizer of SimLens (src/core/text/tokenize.ts),
 * so a value or title matches the utterance the way retrieval and the NLU would read it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mentions } from '../../../src/core/check';

test('mentions: Unicode forms compare equal (NFKC, combining accents, typographic apostrophes)', () => {
  assert.equal(mentions('something ｂｌａｃｋ please', 'black'), true); // full-width letters
  assert.equal(mentions('a cafe\u0301 style jacket', 'café'), true); // decomposed accent
  assert.equal(mentions('the women\u2019s jacket', "women's jacket"), true);
});

test("mentions: an apostrophe belongs to its word, so a dropped one is the NLG's one typo", () => {
  assert.equal(mentions('a womens jacket', "women's jacket"), true);
  // "don't" does not say "don".
  assert.equal(mentions("don't like it", 'don'), false);
});
