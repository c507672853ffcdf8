/**
 * The bank of user sentences drawn from the human corpora (src/core/sim/users/corpus-frames.json,
 * issue 21): what scripts/user-frames.ts builds from test/fixtures/datasets, each frame traceable
 * to the line it came from, and every frame safe to say (no catalog word, the opinion its pool
 * promises).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import bank from '../../../src/core/sim/users/corpus-frames.json';
import { buildFrameBank } from '../../../scripts/user-frames';
import { readOpinion } from '../../../src/core/check/opinion';
import { TemplateNlg } from '../../../src/core/sim/users/nlg';
import { createRng } from '../../../src/core/random';

const DATASETS = path.resolve(__dirname, '..', '..', 'fixtures', 'datasets');

test('the committed bank is what scripts/user-frames.ts builds from the fixtures', async () => {
  assert.deepEqual(await buildFrameBank(), bank);
});

test('every frame names a fixture line that holds its words', () => {
  let frames = 0;
  const files = new Map<string, string[]>();
  for (const [pool, list] of Object.entries(bank.pools)) {
    assert.ok(list.length > 0, `pool ${pool} is empty`);
    for (const f of list) {
      const m = /^(.+):(\d+)$/.exec(f.from);
      assert.ok(m, `${pool}: "${f.text}" has no file:line (${f.from})`);
      const file = m[1];
      if (!files.has(file)) files.set(file, fs.readFileSync(path.join(DATASETS, file), 'utf8').split('\n'));
      // a CSV record may run over several lines: the record's text from its first line on
      const lines = files.get(file)!;
      const text = lines
        .slice(Number(m[2]) - 1, Number(m[2]) + 3)
        .join(' ')
        .toLowerCase();
      // relexicalised words (plural pronouns made singular, "im" written out) aside
      const relexed = new Set(['it', 'that', 'one', "i'm", "i'll", 'alley']);
      for (const w of f.text.toLowerCase().match(/[a-z']+/g) ?? [])
        if (!relexed.has(w)) assert.ok(text.includes(w), `${pool}: "${f.text}": "${w}" not at ${f.from}`);
      frames++;
    }
  }
  assert.ok(frames >= 100, `${frames} frames`);
});

test('frames say what their pool promises; the template grammar takes them as they are', () => {
  for (const f of bank.pools.c_good) assert.notEqual(readOpinion(f.text), 'dislike', f.text);
  for (const f of bank.pools.c_pass) assert.equal(readOpinion(f.text), 'dislike', f.text);
  for (const name of ['c_help', 'c_more', 'c_aside'] as const)
    for (const f of bank.pools[name]) assert.equal(readOpinion(f.text), 'none', `${name}: ${f.text}`);
  for (const list of Object.values(bank.pools))
    for (const f of list) assert.doesNotMatch(f.text, /[()[\]{}<>|]/, `grammar characters in "${f.text}"`);
  // every frame of a pool is said by a template that uses it
  const nlg = new TemplateNlg({ typoRate: 0, templates: { acts: { A: ['<c_thanks>.'] } } });
  const rng = createRng('frames');
  const said = new Set<string>();
  for (let i = 0; i < 2000; i++) said.add(nlg.generate('A', {}, rng));
  assert.equal(said.size, bank.pools.c_thanks.length);
});
