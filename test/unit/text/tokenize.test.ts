import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { contentTokens, foldPlural, tokenize, tokenizeSpans } from '../../../src/core/text/tokenize';
import { isStopword } from '../../../src/core/text/stopwords';

describe('tokenize', () => {
  test('lowercases and splits on punctuation, hyphens and spaces', () => {
    assert.deepEqual(tokenize('Black T-Shirt, size M!'), ['black', 't', 'shirt', 'size', 'm']);
    assert.deepEqual(tokenize('  multiple   spaces\tand\nlines '), ['multiple', 'spaces', 'and', 'lines']);
    assert.deepEqual(tokenize(''), []);
    assert.deepEqual(tokenize('?!...'), []);
  });

  test('keeps apostrophes inside words and folds the typographic one', () => {
    assert.deepEqual(tokenize("I don't like women's boots"), ['i', "don't", 'like', "women's", 'boots']);
    assert.deepEqual(tokenize('I don\u2019t'), ['i', "don't"]);
    assert.deepEqual(tokenize("'quoted' words'"), ['quoted', 'words']);
  });

  test('keeps digits and mixed tokens', () => {
    assert.deepEqual(tokenize('under $100, UV400 lenses'), ['under', '100', 'uv400', 'lenses']);
  });

  test('is unicode-aware: accents, other scripts, NFKC compatibility forms', () => {
    assert.deepEqual(tokenize('Café Crème'), ['café', 'crème']);
    assert.deepEqual(tokenize('Ｂｌａｃｋ　ＢＯＯＴＳ'), ['black', 'boots']);
    assert.deepEqual(tokenize('Schuhe für Männer – 東京'), ['schuhe', 'für', 'männer', '東京']);
    // a decomposed accent (e + combining acute) stays inside the word
    assert.deepEqual(tokenize('cafe\u0301 noir'), ['café', 'noir']);
  });

  test('spans point at the tokens in the lowercased text', () => {
    const s = tokenizeSpans('Hi, Black boots');
    assert.deepEqual(s.tokens, ['hi', 'black', 'boots']);
    for (let i = 0; i < s.tokens.length; i++) assert.equal(s.text.slice(s.starts[i], s.ends[i]), s.tokens[i]);
    const u = tokenizeSpans('Ça va, très bien');
    for (let i = 0; i < u.tokens.length; i++) assert.equal(u.text.slice(u.starts[i], u.ends[i]), u.tokens[i]);
  });
});

describe('contentTokens and stopwords', () => {
  test('drops stopwords but keeps shopping words', () => {
    assert.deepEqual(contentTokens('I am looking for a pair of the warmest boots'), [
      'looking',
      'pair',
      'warmest',
      'boots',
    ]);
    assert.deepEqual(contentTokens('not too light, a long top'), ['light', 'long', 'top']);
    assert.ok(isStopword('the'));
    assert.ok(!isStopword('boots'));
  });
});

describe('foldPlural', () => {
  test('folds common English plurals and leaves other words alone', () => {
    const cases: [string, string][] = [
      ['boots', 'boot'],
      ['dresses', 'dress'],
      ['accessories', 'accessory'],
      ['shoes', 'shoe'],
      ['watches', 'watch'],
      ['boxes', 'box'],
      ['dress', 'dress'],
      ['bus', 'bus'],
      ['his', 'his'],
      ['jeans', 'jean'],
      ['bag', 'bag'],
      ["women's", "women's"],
    ];
    for (const [input, expected] of cases) assert.equal(foldPlural(input), expected, input);
  });
});
