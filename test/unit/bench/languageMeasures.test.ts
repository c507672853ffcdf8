/**
 * The language bench's like-for-like measures (issue 21, item 3): the moving-average type/token
 * ratio against its definition computed the slow way over thousands of random token lists, and the
 * distinct forms counted over the first K utterances only.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { languageFigures, mattr } from '../../../bench/language';
import { createRng } from '../../../src/core/random';

/** The definition, window by window. */
function slowMattr(list: readonly string[], w: number): number {
  if (list.length <= w) return new Set(list).size / list.length;
  let sum = 0;
  for (let i = 0; i + w <= list.length; i++) sum += new Set(list.slice(i, i + w)).size / w;
  return sum / (list.length - w + 1);
}

test('MATTR: hand-worked value, short lists, and the window-by-window definition on 3,000 random lists', () => {
  // windows of 3 over a b a c c: {a,b} 2/3, {b,a,c} 3/3, {a,c} 2/3 -> mean 7/9
  assert.ok(Math.abs(mattr(['a', 'b', 'a', 'c', 'c'], 3) - 7 / 9) < 1e-12);
  assert.equal(mattr(['a', 'a'], 3), 0.5);
  assert.equal(mattr([], 3), 0);
  const rng = createRng('mattr');
  let checked = 0;
  for (let k = 0; k < 3000; k++) {
    const len = 1 + rng.int(300);
    const vocab = 1 + rng.int(60);
    const w = 1 + rng.int(40);
    const list = Array.from({ length: len }, () => `t${rng.int(vocab)}`);
    const fast = mattr(list, w);
    const slow = slowMattr(list, w);
    assert.ok(Math.abs(fast - slow) < 1e-9, `len ${len} w ${w}: ${fast} vs ${slow}`);
    checked++;
  }
  assert.equal(checked, 3000);
});

test('languageFigures: TTR over the first N tokens, forms over the first K utterances, MATTR over all', () => {
  const utterances = ['a b c', 'a b d', 'e f g', 'a b c'];
  const forms = ['x', 'y', 'z', 'x'];
  const f = languageFigures(utterances, forms, 6, 2);
  assert.equal(f.tokens, 12);
  assert.equal(f.ttrAt, 4 / 6);
  assert.equal(f.ttrAll, 7 / 12);
  assert.equal(f.forms, 3);
  assert.equal(f.formsAt, 2);
  assert.equal(f.wordsPerUtterance, 3);
  assert.ok(Math.abs(f.mattr - slowMattr('a b c a b d e f g a b c'.split(' '), 100)) < 1e-12);
});
