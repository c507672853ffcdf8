/**
 * "Does this answer state the item's value" (src/core/text/saysValue.ts) keeps what it reads of a
 * text (its statements, the word forms) by the text itself; the item's title is taken out of the
 * statements before they are read, so the same answer may say a value for one item and not for
 * another. These tests ask the same texts again in turn, so a memo keyed by the wrong string
 * (the answer instead of the statements without the title) shows.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statesItemValue, titleShowsValue } from '../../../src/core/text/saysValue';

test('statesItemValue: the title is taken out per item, also when the answer was read before', () => {
  const answer = 'The Black Storm Boots are waterproof. Is black fine?';
  for (let round = 0; round < 3; round++) {
    // the value only in the title: nothing new said of that item
    assert.equal(statesItemValue(answer, 'colour', 'black', 'Black Storm Boots'), false, `round ${round}`);
    // another item's title: the same words state its colour
    assert.equal(statesItemValue(answer, 'colour', 'black', 'Grey Clogs'), true, `round ${round}`);
    assert.equal(statesItemValue(answer, 'colour', 'black'), true, `round ${round}`);
    // a value named only in the question is not stated
    assert.equal(statesItemValue('Is black fine?', 'colour', 'black', 'Grey Clogs'), false, `round ${round}`);
  }
});

test('statesItemValue and titleShowsValue: word forms and prices, asked twice', () => {
  for (let round = 0; round < 2; round++) {
    assert.equal(statesItemValue('Great for date nights.', 'occasion', 'date night'), true);
    assert.equal(statesItemValue('Made for lounging.', 'occasion', 'lounge'), true);
    assert.equal(statesItemValue('Made for lounging.', 'occasion', 'party'), false);
    assert.equal(statesItemValue('It is priced at $ 30.', 'price_band', 'budget'), true);
    assert.equal(statesItemValue('It is cheap?', 'price_band', 'budget'), false);
    assert.equal(titleShowsValue("Women's Party Dress", 'gender', 'women'), true);
    assert.equal(titleShowsValue("Women's Party Dress", 'occasion', 'parties'), true);
    assert.equal(titleShowsValue("Women's Party Dress", 'price_band', 'budget'), false);
    assert.equal(titleShowsValue("Women's Party Dress", 'colour', 'red'), false);
  }
});
