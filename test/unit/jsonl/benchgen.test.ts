import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateConvApparelFile } from '../../../bench/gen';
import { validateFile, forEachLine } from '../../../src/core/jsonl';
import { conversationCondition } from '../../../src/core/model';
import { withTempDir } from './helpers';

test('bench generator: exact counts, valid ConvApparel-shaped lines, deterministic bytes', async () => {
  await withTempDir(async (dir) => {
    const opts = { conversations: 60, turns: 213, seed: 'unit' };
    const a = await generateConvApparelFile(join(dir, 'a.jsonl'), opts);
    const b = await generateConvApparelFile(join(dir, 'b.jsonl'), opts);
    assert.deepEqual(readFileSync(a.path), readFileSync(b.path), 'same seed, same bytes');
    const c = await generateConvApparelFile(join(dir, 'c.jsonl'), { ...opts, seed: 'other' });
    assert.notDeepEqual(readFileSync(a.path), readFileSync(c.path));

    const report = await validateFile(a.path);
    assert.deepEqual([report.lines, report.conversations, report.errorCount], [60, 60, 0]);
    let turns = 0;
    let items = 0;
    let descChars = 0;
    let good = 0;
    await forEachLine(a.path, (bytes) => {
      const conv = JSON.parse(bytes.toString());
      turns += conv.turns.length;
      assert.match(conv.task_id, /^[a-z]+_(good|bad)$/);
      if (conversationCondition(conv) === 'good') good++;
      for (const t of conv.turns) {
        assert.equal(t.recommendations.length, 12);
        items += t.recommendations.length;
        for (const r of t.recommendations) descChars += r.description.length;
        assert.ok(
          typeof t.ratings['How likely would you be to purchase one of the recommended products in this turn?'] ===
            'string',
        );
      }
    });
    assert.equal(turns, 213);
    const avg = descChars / items;
    assert.ok(avg > 450 && avg < 560, `average description ${avg.toFixed(0)} characters`);
    assert.ok(good > 30 && good < 60, `about 80% good: ${good}/60`);
    assert.equal(a.bytes, readFileSync(a.path).length);
  }, 'simlens-gen-');
});
