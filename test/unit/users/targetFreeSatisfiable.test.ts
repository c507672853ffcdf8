/**
 * A target-free user never states a value that would leave nothing it could take (`satisfiable`).
 * The eleventh round answers it with the catalog's value ids (`attributeCodes`) instead of reading
 * every item's attributes by name: the two must agree on every question, including values the
 * catalog does not have, attributes no item of the category has, and values the user rejected.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateApparelCatalog } from '../../../src/core/catalog/apparel';
import { Catalog, type CatalogItem } from '../../../src/core/catalog/item';
import { createRng } from '../../../src/core/random';
import { TargetFreeUserSimulator, type TargetFreeSession } from '../../../src/core/sim/users/targetFree';

/** The rule as docs/simulation.md states it, item by item and by name. */
function byName(items: readonly CatalogItem[], want: ReadonlyMap<string, string>, rejected: ReadonlySet<string>) {
  return items.some(
    (it) =>
      [...want].every(([k, v]) => it.attributes[k] === undefined || it.attributes[k] === v) &&
      !Object.entries(it.attributes).some(([k, v]) => rejected.has(`${k}=${v}`)),
  );
}

test('target-free satisfiable: value ids answer as the scan by name (4,000 random questions)', () => {
  // every third item lacks one of its attributes (an item without a value holds any wanted one)
  const catalog = new Catalog(
    generateApparelCatalog({ size: 400 }).items.map((it, i) => {
      if (i % 3) return it;
      const entries = Object.entries(it.attributes);
      return { ...it, attributes: Object.fromEntries(entries.filter((_, j) => j !== i % entries.length)) };
    }),
  );
  const rng = createRng('satisfiable-eleventh');
  const sim = new TargetFreeUserSimulator({ catalog });
  let yes = 0;
  let no = 0;
  for (let q = 0; q < 4000; q++) {
    const task = rng.pick(catalog.categories());
    const s = sim.createSession(`c${q}`, createRng(q), { task }) as TargetFreeSession;
    const priv = s as unknown as {
      rejected: Set<string>;
      scanSatisfiable(extra: [string, string][], base: ReadonlyMap<string, string>): boolean;
    };
    const items = catalog.categoryItems(task);
    const pickValue = (): [string, string] => {
      const it = rng.pick(catalog.items);
      const keys = Object.keys(it.attributes);
      const k = rng.pick(keys);
      // sometimes a value no item has, or an attribute no item has
      const r = rng.next();
      if (r < 0.05) return [k, 'ultraviolet'];
      if (r < 0.08) return ['sparkle', 'high'];
      return [k, it.attributes[k]];
    };
    const base = new Map<string, string>();
    for (let j = rng.int(3); j > 0; j--) base.set(...pickValue());
    const extra: [string, string][] = [];
    for (let j = rng.int(3); j > 0; j--) extra.push(pickValue());
    priv.rejected.clear();
    for (let j = rng.int(3); j > 0; j--) priv.rejected.add(pickValue().join('='));
    const want = new Map(base);
    for (const [k, v] of extra) want.set(k, v);
    const expected = byName(items, want, priv.rejected);
    assert.equal(
      priv.scanSatisfiable(extra, base),
      expected,
      JSON.stringify({ task, want: [...want], rej: [...priv.rejected] }),
    );
    if (expected) yes++;
    else no++;
  }
  // both answers are common, so a wrong one cannot hide
  assert.ok(yes > 400 && no > 400, `yes ${yes}, no ${no}`);
});

test('target-free satisfiable: an attribute named like an inherited property is read by name', () => {
  const base = generateApparelCatalog({ size: 60 });
  const items = base.items.map((it, i) => ({
    ...it,
    attributes: i % 2 ? { ...it.attributes, constructor: 'x' } : { ...it.attributes },
  }));
  const catalog = new Catalog(items);
  const task = catalog.categories()[0];
  const s = new TargetFreeUserSimulator({ catalog }).createSession('c', createRng(1), { task }) as TargetFreeSession;
  const priv = s as unknown as {
    scanSatisfiable(extra: [string, string][], base: ReadonlyMap<string, string>): boolean;
  };
  const cat = catalog.categoryItems(task);
  for (const v of ['x', 'y']) {
    const want = new Map([['constructor', v]]);
    assert.equal(priv.scanSatisfiable([['constructor', v]], new Map()), byName(cat, want, new Set()), v);
  }
});
