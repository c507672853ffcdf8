import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { Bm25Index } from '../../../src/core/text/bm25';

// Three documents; with stopwords removed and no plural folding their terms are
//   d0: red shoes red   (|d| = 3)     d1: blue shoes (2)     d2: red hat (2)     avgdl = 7/3
// k1 = 1.2, b = 0.75, idf(t) = ln(1 + (N - n + 0.5) / (n + 0.5)). Expected scores were worked out
// by hand from these numbers, e.g. "red" in d0:
//   idf = ln(1 + 1.5/2.5) = ln 1.6 = 0.470004; norm = 1.2 * (0.25 + 0.75 * 3 / (7/3)) = 1.457143
//   score = 0.470004 * 2 * 2.2 / (2 + 1.457143) = 0.598186
const DOCS = ['The red shoes, red!', 'Blue shoes', 'A red hat'];
const make = () => new Bm25Index(DOCS, (d) => d, { stem: false });

describe('Bm25Index', () => {
  test('scores match hand-computed BM25 values', () => {
    const idx = make();
    assert.equal(idx.size, 3);
    assert.ok(Math.abs(idx.avgDocLength - 7 / 3) < 1e-12);
    const red = idx.search('red', 10);
    assert.deepEqual(
      red.map((h) => h.index),
      [0, 2],
    );
    assert.ok(Math.abs(red[0].score - 0.5981864372218454) < 1e-9);
    assert.ok(Math.abs(red[1].score - 0.4991762683023676) < 1e-9);
    const shoes = idx.search('shoes', 10);
    assert.deepEqual(
      shoes.map((h) => h.index),
      [1, 0],
    );
    assert.ok(Math.abs(shoes[0].score - 0.4991762683023676) < 1e-9);
    assert.ok(Math.abs(shoes[1].score - 0.42081720292932145) < 1e-9);
    const hat = idx.search('hat', 10);
    assert.equal(hat.length, 1);
    assert.ok(Math.abs(hat[0].score - 1.041708310095213) < 1e-9);
  });

  test('multi-term queries add up; equal scores keep document order', () => {
    const hits = make().search('red shoes', 10);
    assert.deepEqual(
      hits.map((h) => h.index),
      [0, 1, 2],
    );
    assert.ok(Math.abs(hits[0].score - 1.0190036401511668) < 1e-9);
    assert.equal(hits[1].score, hits[2].score);
    assert.equal(hits[0].doc, DOCS[0]);
    // a repeated query term counts once
    assert.deepEqual(
      make()
        .search('red red red', 10)
        .map((h) => h.score),
      make()
        .search('red', 10)
        .map((h) => h.score),
    );
  });

  test('k, filter, unknown terms and empty queries', () => {
    const idx = make();
    assert.deepEqual(
      idx.search('red shoes', 1).map((h) => h.index),
      [0],
    );
    assert.deepEqual(
      idx.search('red shoes', 10, (d) => !d.includes('Blue')).map((h) => h.index),
      [0, 2],
    );
    assert.deepEqual(idx.search('green', 10), []);
    assert.deepEqual(idx.search('', 10), []);
    assert.deepEqual(idx.search('the a of', 10), []);
    assert.deepEqual(idx.search('red', 0), []);
    // the scratch buffers are reset between searches
    assert.deepEqual(
      idx.search('red', 10).map((h) => h.score),
      make()
        .search('red', 10)
        .map((h) => h.score),
    );
  });

  test('adjust re-ranks candidates and sees their positions', () => {
    const idx = make();
    const seen: number[] = [];
    const hits = idx.search('red shoes', 10, undefined, (_d, s, i) => {
      seen.push(i);
      return i === 2 ? s + 10 : s;
    });
    assert.deepEqual(
      hits.map((h) => h.index),
      [2, 0, 1],
    );
    assert.deepEqual(seen.sort(), [0, 1, 2]);
  });

  test('large k gives the same ranking as the top-k buffer', () => {
    const docs = Array.from(
      { length: 300 },
      (_, i) => `item ${i % 7 === 0 ? 'red' : 'blue'} ${i % 3 === 0 ? 'red boots' : 'shoes'} ${'x'.repeat(i % 5)}`,
    );
    const idx = new Bm25Index(docs, (d) => d);
    const small = idx.search('red boots', 50);
    const large = idx.search('red boots', 300).slice(0, 50);
    assert.deepEqual(
      large.map((h) => h.index),
      small.map((h) => h.index),
    );
    for (let i = 1; i < large.length; i++) assert.ok(large[i - 1].score >= large[i].score);
  });

  test('plural folding is on by default', () => {
    const idx = new Bm25Index(['leather boot', 'canvas sneakers'], (d) => d);
    assert.deepEqual(
      idx.search('boots', 5).map((h) => h.index),
      [0],
    );
    assert.deepEqual(
      idx.search('sneaker', 5).map((h) => h.index),
      [1],
    );
    assert.equal(idx.documentFrequency('boots'), 1);
  });

  test('rejects bad parameters', () => {
    assert.throws(() => new Bm25Index(DOCS, (d) => d, { b: 2 }), /b must be in/);
    assert.throws(() => new Bm25Index(DOCS, (d) => d, { k1: -1 }), /k1/);
    assert.deepEqual(new Bm25Index([], (d: string) => d).search('x', 3), []);
  });
});
