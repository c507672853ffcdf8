import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { ngrams, textNgrams, QUESTION_FEATURE } from '../../../src/core/text/ngrams';
import { dialogueTokens } from '../../../src/core/text/tokenize';
import { lexicalFeatures } from '../../../src/core/text/classifier';
import { userNgrams } from '../../../src/core/metrics/hls';

describe('n-gram features (one featurizer)', () => {
  test('dialogue style keeps ?, ! and $ as tokens; words style adds one question feature', () => {
    assert.deepEqual(dialogueTokens("I'll take it? Yes! Under $50"), [
      "i'll",
      'take',
      'it',
      '?',
      'yes',
      '!',
      'under',
      '$',
      '50',
    ]);
    assert.deepEqual(textNgrams('Any boots?', 'dialogue'), ['any', 'boots', '?', 'any boots', 'boots ?']);
    assert.deepEqual(textNgrams('Any boots?', 'words'), ['any', 'boots', 'any boots', QUESTION_FEATURE]);
    assert.deepEqual(lexicalFeatures('Any boots?'), textNgrams('Any boots?', 'words'));
    assert.deepEqual(ngrams(['a', 'b', 'c'], 1), ['a', 'b', 'c']);
  });

  test('the discriminator sees one word however it is encoded', () => {
    // Decomposed accents, full-width letters and typographic apostrophes are the same words as
    // their plain spelling (the metrics used to have their own tokenizer that split "cafe\u0301"
    // into "cafe" and dropped the accent, so the two spellings were different features).
    const conv = (u: string) => ({ turns: [{ user_utterance: u }] });
    assert.deepEqual(userNgrams(conv('Cafe\u0301 au lait? Ｙｅｓ！')), userNgrams(conv('Café au lait? Yes!')));
    assert.deepEqual(userNgrams(conv('I don\u2018t know')), userNgrams(conv("I don't know")));
    assert.ok(userNgrams(conv('Café au lait?')).includes('café au'));
  });
});
