/**
 * The bank of recommender sentences drawn from the human corpora
 * (src/core/sim/recommenders/local/corpus-frames.json, issue 21 item 3): what
 * scripts/agent-frames.ts builds from test/fixtures/datasets, each frame traceable to the line it
 * came from, safe to say (no catalog word, no attribute a user would read as asked), and said by
 * the local recommenders' frames.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import bank from '../../../src/core/sim/recommenders/local/corpus-frames.json';
import { buildAgentFrameBank } from '../../../scripts/agent-frames';
import { generateApparelCatalog } from '../../../src/core/catalog/catalog';
import { createRng } from '../../../src/core/random';
import { GOOD_FRAMES, expand } from '../../../src/core/sim/recommenders/local/phrases';
import { Lexicon } from '../../../src/core/sim/recommenders/local/lexicon';
import { askedAttributes } from '../../../src/core/sim/users/phrases';

const DATASETS = path.resolve(__dirname, '..', '..', 'fixtures', 'datasets');

test('the committed recommender bank is what scripts/agent-frames.ts builds from the fixtures', async () => {
  assert.deepEqual(await buildAgentFrameBank(), bank);
});

test('every recommender frame names a fixture line that holds its words, from a recommender turn', () => {
  let frames = 0;
  const files = new Map<string, string[]>();
  for (const [pool, list] of Object.entries(bank.pools)) {
    assert.ok(list.length >= 5, `pool ${pool} has ${list.length} frames`);
    for (const f of list) {
      const m = /^(.+):(\d+)$/.exec(f.from);
      assert.ok(m, `${pool}: "${f.text}" has no file:line (${f.from})`);
      const file = m[1];
      if (!files.has(file)) files.set(file, fs.readFileSync(path.join(DATASETS, file), 'utf8').split('\n'));
      const lines = files.get(file)!;
      const line = lines[Number(m[2]) - 1];
      // the JSON corpora: the participant is on a line just before the utterance; the CSV: SYSTEM cells
      if (file.endsWith('.json'))
        assert.match(lines.slice(Number(m[2]) - 3, Number(m[2])).join(' '), /"AGENT"/, `${pool}: ${f.from}`);
      else assert.match(line, /SYSTEM\t/, `${pool}: ${f.from}`);
      const text = lines
        .slice(Number(m[2]) - 1, Number(m[2]) + 3)
        .join(' ')
        .toLowerCase()
        .replace(/\u2019/g, "'");
      for (const w of f.text.toLowerCase().match(/[a-z']+/g) ?? [])
        assert.ok(text.includes(w === "i'm" ? 'i' : w), `${pool}: "${f.text}": "${w}" not at ${f.from}`);
      frames++;
    }
  }
  assert.ok(frames >= 100, `${frames} frames`);
});

test('recommender frames name no catalog value and ask about no attribute; the grammar says every one', () => {
  const catalog = generateApparelCatalog({ seed: 'agent-frames', size: 1500 });
  const lexicon = Lexicon.for(catalog);
  const names = catalog.attributeNames();
  for (const [pool, list] of Object.entries(bank.pools))
    for (const f of list) {
      assert.equal(lexicon.parse(f.text).mentions.length, 0, `${pool}: "${f.text}" names a catalog value`);
      assert.deepEqual(askedAttributes(f.text, names), [], `${pool}: "${f.text}"`);
      assert.doesNotMatch(f.text, /[{}|$@]/, `grammar characters in "${f.text}"`);
    }
  // a question only where the frame using the pool asks anyway
  for (const f of bank.pools.r_offer) assert.match(f.text, /\?$/, f.text);
  for (const name of ['r_ack', 'r_sure', 'r_sorry', 'r_pitch', 'r_welcome', 'r_bye', 'r_enjoy', 'r_hedge'] as const)
    for (const f of bank.pools[name]) assert.doesNotMatch(f.text, /\?/, `${name}: ${f.text}`);
  const rng = createRng('agent-frames');
  const said = new Set<string>();
  for (let i = 0; i < 3000; i++) said.add(expand(rng, '@r_bye'));
  assert.equal(said.size, bank.pools.r_bye.length);
  assert.throws(() => expand(rng, '@r_nope'), /not a corpus pool/);
  // every pool is used by some frame of the good or the bad agent
  const src = ['good.ts', 'bad.ts', 'phrases.ts']
    .map((f) => fs.readFileSync(path.resolve(__dirname, '../../../src/core/sim/recommenders/local', f), 'utf8'))
    .join('\n');
  for (const name of Object.keys(bank.pools)) assert.match(src, new RegExp(`@${name}\\b`), `pool ${name} unused`);
  assert.ok(GOOD_FRAMES.closerAsk.includes('@r_offer'));
});
