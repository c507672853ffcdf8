import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { ConversationDocumentModel, readFirstConversation } from '../../../src/core/document';
import { awkwardFile, conversation, tempFile } from './fixtures';

describe('line 1 before the index is built', () => {
  test('matches readConversation(0) on the awkward file (BOM, CRLF)', async () => {
    const { path } = awkwardFile();
    const doc = await ConversationDocumentModel.open(path);
    try {
      assert.deepEqual(await readFirstConversation(path), await doc.readConversation(0));
    } finally {
      await doc.close();
    }
  });

  test('a first line longer than one read chunk, with and without a final newline', async () => {
    const long = JSON.stringify({ ...conversation(7), id: 'long', note: 'x'.repeat(5000) });
    for (const text of [`${long}\r\n${long}\n`, long]) {
      const path = tempFile('first.conv.jsonl', text);
      const read = await readFirstConversation(path, { chunkBytes: 1024 });
      assert.equal(read.id, 'long');
      assert.equal(read.error, undefined);
      const doc = await ConversationDocumentModel.open(path);
      try {
        assert.deepEqual(read, await doc.readConversation(0));
      } finally {
        await doc.close();
      }
    }
  });

  test('a broken or blank line 1 is reported like the indexed read', async () => {
    for (const text of ['{"id": "x", "turns": [\n{}\n', '\n{}\n']) {
      const path = tempFile('broken.conv.jsonl', text);
      const doc = await ConversationDocumentModel.open(path);
      try {
        assert.deepEqual(await readFirstConversation(path), await doc.readConversation(0));
      } finally {
        await doc.close();
      }
    }
  });
});
