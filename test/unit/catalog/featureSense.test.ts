/**
 * The synthetic catalog's features make sense together (fifteenth round, found reading a run: "I'll
 * take the Northvale Denim Skirt! It had me at the tapered leg."). Before, 130 of 800 items broke
 * one of the rules below (a skirt with a tapered leg, trousers with both a straight and a tapered
 * leg, a top both slim and relaxed, a dress with two necklines, sandals with a padded collar). The
 * rules are written here independently of the generator's own lists.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { generateApparelCatalog } from '../../../src/core/catalog/catalog';

/** Features of which an item has at most one. */
const EXCLUSIVE: readonly (readonly string[])[] = [
  ['Tapered leg', 'Straight leg'],
  ['Mid rise', 'High rise'],
  ['Relaxed fit', 'Slim fit'],
  ['V-neckline', 'Square neckline'],
  ['Zip front', 'Double-breasted front', 'Button front', 'Asymmetric zip'],
  ['Crew neckline', 'Crew neck', 'Folded high neck', 'Scoop neck', 'Tie neck', 'Ribbed collar', 'Button-down collar'],
];

/** Features an item of a type cannot have. */
const IMPOSSIBLE: Record<string, readonly string[]> = {
  skirt: ['Tapered leg', 'Straight leg', 'Zip fly'],
  leggings: ['Zip fly', 'Belt loops', 'Five pockets'],
  joggers: ['Zip fly', 'Belt loops'],
  sandals: ['Padded collar', 'Pull tab at the heel'],
  'ballet flats': ['Padded collar', 'Pull tab at the heel'],
  heels: ['Padded collar', 'Pull tab at the heel'],
  'tank top': ['Ribbed cuffs'],
  't-shirt': ['Ribbed cuffs'],
  gilet: ['Adjustable cuffs'],
  'shirt dress': ['V-neckline', 'Square neckline'],
  jumpsuit: ['Flowing skirt'],
  'sweater dress': ['Adjustable straps'],
  swimsuit: ['Zip key pocket', 'Sweat-proof phone pocket'],
  clutch: ['Padded back panel', 'Top handles'],
  'belt bag': ['Padded back panel', 'Metal feet', 'Top handles'],
};

describe('catalog features that make sense together', () => {
  for (const [seed, size] of [
    ['simlens', 3000],
    [1, 800],
    ['other', 800],
  ] as const) {
    test(`seed ${seed}, ${size} items: no two features of one kind, none a type cannot have`, () => {
      const problems: string[] = [];
      let checked = 0;
      for (const item of generateApparelCatalog({ seed, size }).items) {
        const f = new Set(item.features);
        for (const group of EXCLUSIVE) {
          const have = group.filter((g) => f.has(g));
          if (have.length > 1) problems.push(`${item.item_id} ${item.title}: ${have.join(' + ')}`);
        }
        for (const x of IMPOSSIBLE[item.attributes.type] ?? []) {
          checked++;
          if (f.has(x)) problems.push(`${item.item_id} ${item.title} (${item.attributes.type}): ${x}`);
        }
        // the description speaks of the same features
        for (const x of IMPOSSIBLE[item.attributes.type] ?? [])
          if (item.description.toLowerCase().includes(x.toLowerCase()))
            problems.push(`${item.item_id}: description names ${x}`);
      }
      assert.ok(checked > 100, `type rules applied ${checked} times`);
      assert.deepEqual(problems.slice(0, 10), [], `${problems.length} items break a rule`);
    });
  }
});
