import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  APPAREL_ATTRIBUTES,
  APPAREL_CATEGORIES,
  Catalog,
  CatalogError,
  catalogItemLine,
  generateApparelCatalog,
  itemPartialText,
  loadCatalog,
  writeCatalog,
  type CatalogItem,
} from '../../../src/core/catalog/catalog';
import { plainFeatures } from '../../../src/core/catalog/features';
import { foldPlural, tokenize } from '../../../src/core/text/tokenize';

const jsonl = (c: Catalog) => c.items.map(catalogItemLine).join('\n');

const tmpDirs: string[] = [];
after(async () => {
  for (const d of tmpDirs) await fs.rm(d, { recursive: true, force: true });
});

async function tmpFile(name: string, text?: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'simlens-catalog-'));
  tmpDirs.push(dir);
  const file = path.join(dir, name);
  if (text !== undefined) await fs.writeFile(file, text, 'utf8');
  return file;
}

describe('generateApparelCatalog', () => {
  const catalog = generateApparelCatalog();

  test('same seed and size give identical JSON; another seed differs', () => {
    const a = generateApparelCatalog({ seed: 42, size: 400 });
    const b = generateApparelCatalog({ seed: 42, size: 400 });
    assert.equal(jsonl(a), jsonl(b));
    assert.notEqual(jsonl(a), jsonl(generateApparelCatalog({ seed: 43, size: 400 })));
    assert.equal(jsonl(generateApparelCatalog()).length, jsonl(catalog).length);
  });

  test('default size is 3000 with unique ids; size is honoured', () => {
    assert.equal(catalog.size, 3000);
    assert.equal(new Set(catalog.items.map((i) => i.item_id)).size, 3000);
    assert.equal(generateApparelCatalog({ size: 17 }).size, 17);
    assert.throws(() => generateApparelCatalog({ size: 0 }), /size/);
  });

  test('every category and attribute is populated', () => {
    assert.deepEqual(catalog.categories(), APPAREL_CATEGORIES.map((c) => c.name).sort());
    for (const spec of APPAREL_CATEGORIES) {
      const items = catalog.byCategory(spec.name);
      assert.ok(items.length >= 100, `${spec.name}: ${items.length}`);
      const types = new Set(items.map((i) => i.attributes.type));
      for (const t of spec.types) assert.ok(types.has(t.name), `${spec.name} lacks type ${t.name}`);
    }
    for (const item of catalog.items) {
      for (const attr of APPAREL_ATTRIBUTES) assert.ok(item.attributes[attr], `${item.item_id} lacks ${attr}`);
      assert.ok(item.title.length > 0 && item.features.length >= 4);
      assert.ok(typeof item.price === 'number' && item.price > 0);
    }
    assert.deepEqual(catalog.attributeNames(), [...APPAREL_ATTRIBUTES].sort());
    assert.deepEqual(catalog.attributeValues('price_band'), ['budget', 'luxury', 'mid-range', 'premium']);
    assert.deepEqual(catalog.attributeValues('gender'), ['men', 'unisex', 'women']);
    assert.ok(catalog.attributeValues('colour').length >= 15);
    // small catalogs still cover every category
    assert.equal(generateApparelCatalog({ size: 8 }).categories().length, APPAREL_CATEGORIES.length);
  });

  test('descriptions are 300-500 characters and mention the item itself', () => {
    for (const item of catalog.items) {
      const d = item.description;
      assert.ok(d.length >= 300 && d.length <= 500, `${item.item_id}: ${d.length} chars`);
      const text = d.toLowerCase();
      assert.ok(text.includes(item.attributes.colour), `${item.item_id} description lacks its colour`);
      assert.ok(text.includes(item.attributes.type), `${item.item_id} description lacks its type`);
    }
    // the partial text the bad agent sees is much shorter
    const item = catalog.items[0];
    assert.ok(itemPartialText(item).length < item.title.length + 90);
  });

  test('prices follow the price band', () => {
    const mean = (band: string) => {
      const ps = catalog.items.filter((i) => i.attributes.price_band === band).map((i) => i.price!);
      return ps.reduce((a, b) => a + b, 0) / ps.length;
    };
    assert.ok(
      mean('budget') < mean('mid-range') && mean('mid-range') < mean('premium') && mean('premium') < mean('luxury'),
    );
  });
});

describe('Catalog', () => {
  const catalog = generateApparelCatalog({ seed: 5, size: 1200 });

  test('get, byCategory, search with category and partial text', () => {
    const first = catalog.items[0];
    assert.equal(catalog.get(first.item_id), first);
    assert.equal(catalog.get('nope'), undefined);
    assert.deepEqual(catalog.byCategory('no-such'), []);
    const boots = catalog.search('black leather boots', 12, { category: 'footwear' });
    assert.ok(boots.length > 0 && boots.length <= 12);
    assert.ok(boots.every((i) => i.category === 'footwear'));
    assert.ok(
      boots.slice(0, 3).every((i) => /boot/.test(i.attributes.type)),
      boots.map((i) => i.title).join(' | '),
    );
    const partial = catalog.search('black boots', 12, { partialText: true });
    assert.ok(partial.length > 0);
    const filtered = catalog.search('boots', 50, { filter: (i) => i.attributes.colour === 'black' });
    assert.ok(filtered.every((i) => i.attributes.colour === 'black'));
  });

  test('category index and attribute codes line up with byCategory', () => {
    const items = catalog.byCategory('bags');
    const idx = catalog.categoryIndex('bags');
    assert.equal(idx.size, items.length);
    const codes = catalog.attributeCodes('bags', 'colour');
    for (let i = 0; i < items.length; i++)
      assert.equal(codes[i], catalog.valueId('colour', items[i].attributes.colour));
    const hit = idx.search('backpack', 1)[0];
    assert.equal(items[hit.index], hit.doc);
    assert.equal(catalog.valueId('colour', 'no-such'), -1);
  });

  test('similarity is in [0,1], symmetric, 1 for the item itself, higher for alike items', () => {
    const items = catalog.items.slice(0, 60);
    for (const a of items) {
      assert.equal(catalog.similarity(a, a), 1);
      for (const b of items.slice(0, 10)) {
        const s = catalog.similarity(a, b);
        assert.ok(s >= 0 && s <= 1);
        assert.ok(Math.abs(s - catalog.similarity(b, a)) < 1e-12);
      }
    }
    const base = catalog.byCategory('footwear')[0];
    const twin: CatalogItem = { ...base, item_id: 'twin', attributes: { ...base.attributes, brand: 'Other' } };
    const other = catalog.byCategory('bags')[0];
    assert.ok(catalog.similarity(base, twin) > 0.8);
    assert.ok(catalog.similarity(base, twin) > catalog.similarity(base, other));
  });

  test('toRecommendedItem gives the ConvApparel carousel shape', () => {
    const item = catalog.items[3];
    const rec = catalog.toRecommendedItem(item);
    assert.equal(rec.item_id, item.item_id);
    assert.equal(rec.features, item.features.join(', '));
    assert.equal(rec.price, item.price);
    assert.deepEqual(rec.attributes, item.attributes);
    assert.notEqual(catalog.toRecommendedItem(item), rec);
  });

  test('duplicate ids are refused', () => {
    const item = catalog.items[0];
    assert.throws(() => new Catalog([item, { ...item }]), /duplicate item_id/);
  });
});

describe('loadCatalog / writeCatalog', () => {
  test('round trip keeps every item', async () => {
    const catalog = generateApparelCatalog({ seed: 'rt', size: 150 });
    const file = await tmpFile('catalog.jsonl');
    await writeCatalog(catalog, file);
    const loaded = await loadCatalog(file);
    assert.deepEqual(loaded.items, catalog.items);
    assert.equal(jsonl(loaded), jsonl(catalog));
  });

  test('accepts ConvApparel-style features strings, numeric ids and attribute values, blank lines', async () => {
    const file = await tmpFile(
      'c.jsonl',
      [
        JSON.stringify({
          item_id: 'B00LUE800M',
          title: "Joe's USA Hooded",
          description: 'A hoodie.',
          features: 'Classic fit, Soft,  Comfortable ,',
          category: 'tops',
          attributes: { colour: 'blue' },
        }),
        '',
        JSON.stringify({
          item_id: 17,
          title: 'Socks',
          category: 'accessories',
          attributes: { pairs: 3, organic: true },
        }),
      ].join('\r\n'),
    );
    const c = await loadCatalog(file);
    assert.equal(c.size, 2);
    assert.deepEqual(c.get('B00LUE800M')!.features, ['Classic fit', 'Soft', 'Comfortable']);
    assert.deepEqual(c.get('17')!.attributes, { pairs: '3', organic: 'true' });
    assert.equal(c.get('17')!.description, '');
  });

  test('errors name file, line and field', async () => {
    const good = JSON.stringify({
      item_id: 'a',
      title: 'A',
      description: '',
      features: [],
      category: 'tops',
      attributes: {},
    });
    const file = await tmpFile(
      'bad.jsonl',
      [
        good,
        '{not json',
        JSON.stringify({ item_id: 'b', description: 'no title', category: 'tops' }),
        JSON.stringify({ item_id: 'c', title: 'C', category: 'tops', features: 5 }),
        JSON.stringify({ item_id: 'a', title: 'dup', category: 'tops' }),
        JSON.stringify({ item_id: 'd', title: 'D', category: 'tops', attributes: { colour: ['red'] } }),
        '[1, 2]',
      ].join('\n'),
    );
    await assert.rejects(loadCatalog(file), (e: unknown) => {
      assert.ok(e instanceof CatalogError);
      const m = e.message;
      assert.match(m, new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: invalid JSON`));
      assert.match(m, /:3: title: required field is missing \(expected a string\)/);
      assert.match(m, /:4: features: expected a string or an array, got number 5/);
      assert.match(m, /:5: item_id: duplicate id "a" \(first on line 1\)/);
      assert.match(m, /:6: attributes\.colour: expected a string, a number or a boolean \(true\/false\), got an array/);
      assert.match(m, /:7: expected a JSON object/);
      assert.equal(e.issues.length, 6);
      return true;
    });
  });

  test('empty and missing files', async () => {
    await assert.rejects(loadCatalog(await tmpFile('empty.jsonl', '\n\n')), /has no items/);
    await assert.rejects(loadCatalog(path.join(os.tmpdir(), 'simlens-no-such-dir', 'x.jsonl')), /cannot read catalog/);
  });
});

describe('plainFeatures (what may be said of an item beyond its values)', () => {
  const catalog = generateApparelCatalog();
  const values = new Set<string>();
  for (const c of catalog.categories()) for (const w of tokenize(c)) values.add(foldPlural(w));
  for (const a of catalog.attributeNames())
    for (const v of catalog.attributeValues(a)) for (const w of tokenize(v)) values.add(foldPlural(w));
  test('no plain feature states a value or a category, in the singular or the plural', () => {
    const stating: string[] = [];
    for (const item of catalog.items)
      for (const f of plainFeatures(catalog, item))
        if (tokenize(f).some((w) => values.has(foldPlural(w)))) stating.push(`${item.item_id}: ${f}`);
    assert.deepEqual(stating.slice(0, 5), []);
  });
  test("the occasion said in the plural ('parties and nights out') is not a plain feature; a real one stays", () => {
    const party = catalog.items.find((i) => i.features.includes('Parties and nights out'));
    assert.ok(party, 'an item for parties');
    const plain = plainFeatures(catalog, party);
    assert.ok(!plain.includes('parties and nights out'), plain.join(', '));
    assert.ok(plain.length > 0, `${party.item_id} keeps some plain features`);
  });
});
