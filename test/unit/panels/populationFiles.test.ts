import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Conversation } from '../../../src/core/model';
import { conversationFilesOnly, domainMismatchWarnings } from '../../../src/extension/panels/populationFiles';

test('population pickers offer conversation files only: a catalog, an empty file and a gzip are left out, importable formats stay', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'simlens-popfiles-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, content: string | Buffer) => {
    writeFileSync(path.join(dir, name), content);
    return path.join(dir, name);
  };
  const conv = file(
    'human.conv.jsonl',
    JSON.stringify({ id: 'a', turns: [{ user_utterance: 'hi', assistant_utterance: 'hello' }] }) + '\n',
  );
  const catalog = file(
    'catalog.jsonl',
    JSON.stringify({ item_id: 'J-1', title: 'Parka', category: 'jackets', price: 120 }) +
      '\n' +
      JSON.stringify({ item_id: 'J-2', title: 'Coat', category: 'jackets', price: 90 }) +
      '\n',
  );
  const empty = file('empty.jsonl', '');
  const gz = file('old.jsonl', Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0]));
  const { files, skipped } = await conversationFilesOnly([conv, catalog, empty, gz]);
  assert.deepEqual(files, [conv]);
  assert.deepEqual(
    skipped.map((s) => path.basename(s.path)),
    ['catalog.jsonl', 'empty.jsonl', 'old.jsonl'],
  );
  assert.match(skipped[0].reason, /catalog/);
});

const conv = (task: string | undefined, category?: string): Conversation =>
  ({
    id: `${task}`,
    task_id: task,
    turns: [
      { user_utterance: 'x', assistant_utterance: 'y', recommendations: category ? [{ item_id: 'i', category }] : [] },
    ],
  }) as Conversation;

test('a candidate that shares no task or item category with the reference is warned about; sharing one is fine', () => {
  const movies = { label: 'redial', conversations: [conv('movie_recs', 'movie'), conv('movie_recs')] };
  const apparel = { label: 'sim-apparel', conversations: [conv('footwear_good', 'shoes'), conv('outerwear_bad')] };
  const overlap = { label: 'sim-mixed', conversations: [conv('movie_recs_good'), conv('footwear_good')] };
  const unknown = { label: 'no-tasks', conversations: [conv(undefined)] };
  const warnings = domainMismatchWarnings(movies, [apparel, overlap, unknown]);
  assert.equal(warnings.length, 1);
  assert.match(
    warnings[0],
    /^sim-apparel shares no task or item category with redial \(redial: movie, movie_recs; sim-apparel: footwear, outerwear, shoes\)/,
  );
  assert.deepEqual(domainMismatchWarnings(apparel, [{ label: 'good', conversations: [conv('footwear_bad')] }]), []);
});
