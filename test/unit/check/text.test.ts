/**
 * The invariant checker cuts text with the one tokenizer of SimLens (src/core/text/tokenize.ts),
 * so a value or title matches the utterance the way retrieval and the NLU would read it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mentions, oneTypoApart } from '../../../src/core/check';

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

/** The definition of one typo apart, written with slices (the checker's version compares characters in place). */
function oneTypoApartBySlices(a: string, b: string): boolean {
  if (a === b) return true;
  // the NLG never changes a word's first letter, nor its last one when it drops or doubles a letter
  if (a === '' || b === '' || a[0] !== b[0]) return false;
  if (a.length !== b.length && a[a.length - 1] !== b[b.length - 1]) return false;
  if (a.length === b.length) {
    let i = 0;
    while (i < a.length && a[i] === b[i]) i++;
    return i + 1 < a.length && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  const [s, l] = a.length < b.length ? [a, b] : [b, a];
  if (l.length - s.length !== 1) return false;
  let i = 0;
  while (i < s.length && s[i] === l[i]) i++;
  return s.slice(i) === l.slice(i + 1);
}

test('oneTypoApart: the same answer as the definition over 60,000 word pairs made one edit or more apart', () => {
  let seed = 22;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const letters = 'abcdeé';
  const word = () => Array.from({ length: 1 + rand(7) }, () => letters[rand(letters.length)]).join('');
  const edit = (w: string): string => {
    const i = rand(w.length + 1);
    switch (rand(4)) {
      case 0: // swap two neighbours
        return i + 1 < w.length ? w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2) : w;
      case 1: // drop one
        return w.slice(0, i) + w.slice(i + 1);
      case 2: // double one
        return w.slice(0, i) + (w[i] ?? '') + w.slice(i);
      default: // substitute one
        return w.slice(0, i) + letters[rand(letters.length)] + w.slice(i + 1);
    }
  };
  const counts = { true: 0, false: 0 };
  for (let k = 0; k < 60000; k++) {
    const a = word();
    const b = k % 3 === 0 ? word() : k % 3 === 1 ? edit(a) : edit(edit(a));
    const want = oneTypoApartBySlices(a, b);
    assert.equal(oneTypoApart(a, b), want, `${a} / ${b}`);
    assert.equal(oneTypoApart(b, a), oneTypoApartBySlices(b, a), `${b} / ${a}`);
    counts[`${want}`]++;
  }
  // both answers are common, so the comparison means something
  assert.ok(counts.true > 10000 && counts.false > 10000, JSON.stringify(counts));
});

test('mentions: a word one typo of the NLG away reads as the word; a word that only looks like one does not', () => {
  assert.equal(mentions('something in oragne', 'orange'), true); // swapped
  assert.equal(mentions('something in ornge', 'orange'), true); // dropped
  assert.equal(mentions('something in oraange', 'orange'), true); // doubled
  // "range" is "orange" without its first letter, which the NLG never drops (thirteenth round:
  // "a mid-range bag, nothing orange" failed the negation check)
  assert.equal(mentions('a mid-range bag', 'orange'), false);
  assert.equal(mentions('an orang bag', 'orange'), false); // the last letter is never dropped
});
