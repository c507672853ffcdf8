import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateApparelCatalog } from '../../../src/core/catalog/apparel';
import { Lexicon } from '../../../src/core/sim/recommenders/local/lexicon';
import type { CatalogItem } from '../../../src/core/catalog/item';

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

test('Catalog.similarities gives exactly similarity(target, item) for every item of a category', () => {
  const c = generateApparelCatalog({ size: 600 });
  // Items outside the catalog too: an unknown value, a missing attribute, an attribute no item has.
  const odd: CatalogItem[] = [
    { ...c.items[0], attributes: { ...c.items[0].attributes, colour: 'ultraviolet' } },
    { ...c.items[1], attributes: Object.fromEntries(Object.entries(c.items[1].attributes).slice(1)) },
    { ...c.items[2], attributes: { ...c.items[2].attributes, sparkle: 'high' } },
    { ...c.items[3], attributes: {} },
    // No content words at all: the Jaccard part is 0 against every item.
    { ...c.items[4], title: '', features: [] },
    // Words no catalog item has, and one the whole category shares.
    { ...c.items[5], title: `zyxwv ${c.items[5].category}`, features: ['qqqq'] },
  ];
  let pairs = 0;
  for (const target of [...c.items.slice(0, 150), ...odd])
    for (const cat of c.categories()) {
      const sims = c.similarities(target, cat);
      const items = c.categoryItems(cat);
      assert.equal(sims.length, items.length);
      items.forEach((item, i) => {
        pairs++;
        // Exact equality: alternatives are ranked by these numbers, so a rounding change would move them.
        assert.equal(sims[i], c.similarity(target, item), `${target.item_id} vs ${item.item_id}`);
      });
    }
  assert.ok(pairs > 80_000, `${pairs} pairs`);
  assert.deepEqual([...c.similarities(c.items[0], 'no such category')], []);
});
