/**
 * Every catalog value is a word retrieval keeps. "down" (a material: down jackets) was a stopword, so
 * local-good's search for it was empty and an agenda user who wanted down outerwear heard "No luck
 * with down outerwear pieces" on every turn to the turn cap (thirteenth round, independent review:
 * sim-r13e-000137, 18 turns; the catalog holds 44 down outerwear items).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateApparelCatalog } from '../../../src/core/catalog/catalog';
import { contentTokens } from '../../../src/core/text/tokenize';

test('every attribute value of the catalog keeps a content word, and a search for it finds items that have it', () => {
  const catalog = generateApparelCatalog({ size: 3000, seed: 1 });
  const lost: string[] = [];
  const unfound: string[] = [];
  for (const attr of catalog.attributeNames())
    for (const value of catalog.attributeValues(attr)) {
      if (contentTokens(value).length === 0) lost.push(`${attr}=${value}`);
      for (const category of catalog.categories()) {
        const has = catalog.categoryItems(category).filter((it) => it.attributes[attr] === value);
        if (has.length === 0) continue;
        const hits = catalog.categoryIndex(category).search(value, 12);
        if (!hits.some((h) => h.doc.attributes[attr] === value)) unfound.push(`${category} ${attr}=${value}`);
      }
    }
  assert.deepEqual(lost, [], 'values retrieval drops as stopwords');
  assert.deepEqual(unfound.slice(0, 10), [], `${unfound.length} values a search of their category does not find`);
});
