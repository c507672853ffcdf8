import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateApparelCatalog } from '../../../src/core/catalog/apparel';
import { Lexicon } from '../../../src/core/sim/recommenders/local/lexicon';

// Structures the simulators derive from a catalog live in the catalog (built once, dropped with it).
test('Catalog.derived builds once per catalog and keeps one value per builder', () => {
  const a = generateApparelCatalog({ size: 50 });
  const b = generateApparelCatalog({ size: 50 });
  let builds = 0;
  const build = (c: typeof a) => ({ size: c.size, n: ++builds });
  const first = a.derived(build);
  assert.equal(a.derived(build), first);
  assert.equal(builds, 1);
  assert.notEqual(b.derived(build), first);
  assert.equal(builds, 2);
  assert.deepEqual(
    a.derived(() => 'other'),
    'other',
  );
});

test("the local recommenders' lexicon is the catalog's, one per catalog", () => {
  const a = generateApparelCatalog({ size: 50 });
  const b = generateApparelCatalog({ size: 50 });
  assert.equal(Lexicon.for(a), Lexicon.for(a));
  assert.notEqual(Lexicon.for(a), Lexicon.for(b));
});

test('categoryItems and attributeValueList read what byCategory and attributeValues copy', () => {
  const c = generateApparelCatalog({ size: 80 });
  for (const cat of c.categories()) assert.deepEqual(c.categoryItems(cat), c.byCategory(cat));
  assert.deepEqual(c.categoryItems('no such category'), []);
  for (const attr of c.attributeNames()) assert.deepEqual(c.attributeValueList(attr), c.attributeValues(attr));
});
