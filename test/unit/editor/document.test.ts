import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, appendFileSync, utimesSync } from 'node:fs';
import { ConversationDocumentModel, editNotice, type AnnotateInput } from '../../../src/core/document';
import { awkwardFile, conversation, splitLines, tempFile } from './fixtures';

const fixedNow = () => new Date('2025-01-02T03:04:05.000Z');

function annotate(line: number, acts: string[], extra: Partial<AnnotateInput> = {}): AnnotateInput {
  return { line, turn: 0, speaker: 'user', annotator: 'alice', acts, ...extra };
}

/** Asserts that every line except `changed` is byte-identical, and the framing (BOM, endings) too. */
function assertOnlyLinesChanged(before: Buffer, after: Buffer, changed: number[]): void {
  const a = splitLines(before);
  const b = splitLines(after);
  assert.equal(b.length, a.length, 'line count');
  for (let i = 0; i < a.length; i++) {
    if (changed.includes(i)) assert.notDeepEqual(b[i], a[i], `line ${i + 1} should have changed`);
    else assert.ok(a[i].equals(b[i]), `line ${i + 1} must be byte-identical`);
  }
  assert.equal(after[0] === 0xef && after[1] === 0xbb && after[2] === 0xbf, before[0] === 0xef, 'BOM kept');
  const endings = (buf: Buffer) => buf.toString('latin1').match(/\r?\n/g)?.join('|');
  assert.equal(endings(after), endings(before), 'line endings kept');
  assert.equal(after[after.length - 1] === 0x0a, before[before.length - 1] === 0x0a, 'final newline kept');
}

describe('editor document model', () => {
  test('undo and redo say what they changed (shown by the editor, which may not show that line)', async () => {
    const { path } = awkwardFile();
    const doc = await ConversationDocumentModel.open(path, { now: fixedNow });
    try {
      await doc.annotate(annotate(1, ['inform_preference']));
      const second = await doc.annotate(annotate(1, ['critique']));
      assert.ok(second);
      const undone = await doc.undoEdit(second.seq);
      assert.ok(undone);
      assert.equal(
        editNotice('undo', undone),
        'Undone: Annotate turn 1 user: critique (line 2; now acts inform_preference there)',
      );
      const redone = await doc.redoEdit(second.seq);
      assert.ok(redone);
      assert.equal(
        editNotice('redo', redone),
        'Redone: Annotate turn 1 user: critique (line 2; now acts critique there)',
      );
      const first = await doc.undoEdit(second.seq);
      assert.ok(first);
      const back = await doc.undo();
      assert.ok(back);
      assert.match(
        editNotice('undo', back),
        /^Undone: Annotate turn 1 user: inform_preference \(line 2; now no annotation there\)$/,
      );
    } finally {
      await doc.close?.();
    }
  });

  test('annotate, undo, redo, save: only the annotated line changes', async () => {
    const { path, bytes } = awkwardFile();
    const doc = await ConversationDocumentModel.open(path, { now: fixedNow });
    try {
      assert.equal(doc.lineCount, 7);
      const edit = await doc.annotate(annotate(1, ['inform_preference', 'critique'], { note: 'first note' }));
      assert.ok(edit);
      const read = await doc.readConversation(1);
      assert.deepEqual(read.conversation?.turns[0].annotations?.[0].acts, ['inform_preference', 'critique']);
      assert.equal(read.conversation?.turns[0].annotations?.[0].note, 'first note');

      await doc.undo();
      assert.equal((await doc.readConversation(1)).conversation?.turns[0].annotations, undefined);
      assert.equal(await doc.isModified(), false);
      await doc.redo();
      assert.equal(await doc.isModified(), true);

      await doc.save();
      const after = readFileSync(path);
      assertOnlyLinesChanged(bytes, after, [1]);
      const line = splitLines(after)[1].toString('utf8');
      // The splice keeps the rest of the line's text, including the \u escape and Python spacing.
      assert.ok(line.includes('Caf\\u00e9 Looking'), 'escape kept');
      assert.ok(line.includes('", "task_id"'), 'spacing kept');
      const parsed = JSON.parse(line);
      assert.deepEqual(parsed.turns[0].annotations, [
        {
          speaker: 'user',
          annotator: 'alice',
          acts: ['inform_preference', 'critique'],
          note: 'first note',
          time: '2025-01-02T03:04:05.000Z',
        },
      ]);
      assert.deepEqual(parsed.vendor_field, { keep: [1, 2.5, 'x'] }, 'unknown fields kept');
      assert.equal(await doc.isModified(), false);
    } finally {
      await doc.close();
    }
  });

  test('big integers and unknown fields elsewhere in an annotated line keep their exact text', async () => {
    const { path, bytes } = awkwardFile();
    const doc = await ConversationDocumentModel.open(path, { now: fixedNow });
    try {
      await doc.annotate(annotate(5, ['other'], { turn: 1, speaker: 'assistant' }));
      await doc.save();
      const after = readFileSync(path);
      assertOnlyLinesChanged(bytes, after, [5]);
      const text = splitLines(after)[5].toString('utf8');
      assert.ok(text.includes('"big":12345678901234567890'), 'number spelling kept');
      assert.ok(text.includes('"unknown_turn_field":true,"annotations":[{'), 'inserted at the end of the turn object');
    } finally {
      await doc.close();
    }
  });

  test('annotate then undo then save writes nothing', async () => {
    const { path, bytes } = awkwardFile();
    const doc = await ConversationDocumentModel.open(path);
    try {
      await doc.annotate(annotate(0, ['critique']));
      await doc.undo();
      await doc.save();
      assert.ok(readFileSync(path).equals(bytes));
    } finally {
      await doc.close();
    }
  });

  test('toggling an act on and off returns the line to its original bytes', async () => {
    const { path, bytes } = awkwardFile();
    const doc = await ConversationDocumentModel.open(path);
    try {
      await doc.annotate(annotate(0, ['critique']));
      await doc.annotate(annotate(0, []));
      assert.equal(doc.journal.position, 2);
      await doc.save();
      assert.ok(readFileSync(path).equals(bytes));
    } finally {
      await doc.close();
    }
  });

  test('undo past a save re-dirties and saves the earlier state', async () => {
    const { path, bytes } = awkwardFile();
    const doc = await ConversationDocumentModel.open(path, { now: fixedNow });
    try {
      await doc.annotate(annotate(0, ['critique']));
      await doc.annotate(annotate(6, ['greet_thank']));
      await doc.save();
      assertOnlyLinesChanged(bytes, readFileSync(path), [0, 6]);
      await doc.undo(); // line 6 back to no annotation
      assert.equal(await doc.isModified(), true);
      await doc.save();
      assertOnlyLinesChanged(bytes, readFileSync(path), [0]);
      // Branch after undoing past the save: the undone edit's line must still be restored.
      await doc.undo(); // line 0 too
      await doc.annotate(annotate(1, ['other']));
      await doc.save();
      assertOnlyLinesChanged(bytes, readFileSync(path), [1]);
    } finally {
      await doc.close();
    }
  });

  test('several annotators and acts on one utterance; existing annotations of others are kept', async () => {
    const conv = conversation(9);
    (conv.turns as Array<Record<string, unknown>>)[0].annotations = [
      { speaker: 'user', annotator: 'bob', acts: ['critique'], slots: [{ slot: 'color', value: 'red' }], extra: 1 },
    ];
    const path = tempFile('multi.conv.jsonl', JSON.stringify(conv) + '\n');
    const doc = await ConversationDocumentModel.open(path, { now: fixedNow });
    try {
      await doc.annotate(annotate(0, ['inform_preference', 'critique']));
      await doc.annotate(annotate(0, ['critique', 'other'], { annotator: 'bob' }));
      await doc.save();
      const saved = JSON.parse(readFileSync(path, 'utf8'));
      const anns = saved.turns[0].annotations;
      assert.equal(anns.length, 2);
      assert.deepEqual(anns[0], {
        speaker: 'user',
        annotator: 'bob',
        acts: ['critique', 'other'],
        slots: [{ slot: 'color', value: 'red' }],
        extra: 1,
        time: '2025-01-02T03:04:05.000Z',
      });
      assert.deepEqual(anns[1].acts, ['inform_preference', 'critique']);
    } finally {
      await doc.close();
    }
  });

  test('annotating an invalid line, a missing turn or an absent utterance is refused with a clear message', async () => {
    const { path } = awkwardFile();
    const doc = await ConversationDocumentModel.open(path);
    try {
      await assert.rejects(doc.annotate(annotate(3, ['x'])), /line 4 is not a valid conversation/);
      await assert.rejects(doc.annotate(annotate(0, ['x'], { turn: 9 })), /has no turn 10/);
      await assert.rejects(doc.annotate(annotate(2, ['x'])), /line 3 is not a valid conversation/);
    } finally {
      await doc.close();
    }
  });

  test('a line with invalid UTF-8 is refused for annotation (its bytes would not survive)', async () => {
    const good = Buffer.from(JSON.stringify(conversation(1)) + '\n');
    const bad = Buffer.from(JSON.stringify(conversation(2)).replace('Looking', 'Looking \u0001'));
    const badBytes = Buffer.from(bad.toString('latin1').replace('\u0001', '\xff'), 'latin1');
    const path = tempFile('utf8.conv.jsonl', Buffer.concat([good, badBytes, Buffer.from('\n')]));
    const doc = await ConversationDocumentModel.open(path);
    try {
      await assert.rejects(doc.annotate(annotate(1, ['critique'])), /line 2 contains bytes that are not valid UTF-8/);
      assert.ok(await doc.annotate(annotate(0, ['critique'])));
    } finally {
      await doc.close();
    }
  });

  test('backup then restore re-applies unsaved annotations; restore after a shift matches by id', async () => {
    const { path, bytes } = awkwardFile();
    const doc = await ConversationDocumentModel.open(path, { now: fixedNow });
    await doc.annotate(annotate(6, ['greet_thank'], { note: 'n' }));
    const backup = await doc.backup();
    await doc.close();
    assert.ok(readFileSync(path).equals(bytes), 'backup never writes the file');
    assert.ok(!backup.includes('Looking for'), 'backup holds no conversation text');

    const restored = await ConversationDocumentModel.restore(path, backup);
    assert.deepEqual(restored.lost, []);
    assert.equal(await restored.doc.isModified(), true);
    assert.deepEqual((await restored.doc.readConversation(6)).conversation?.turns[0].annotations?.[0].acts, [
      'greet_thank',
    ]);
    await restored.doc.close();

    // Someone inserted a line at the top: the annotation must follow conversation conv-4.
    const shifted = tempFile(
      'shifted.conv.jsonl',
      Buffer.concat([Buffer.from(JSON.stringify(conversation(99)) + '\n'), bytes.subarray(3)]),
    );
    const moved = await ConversationDocumentModel.restore(
      shifted,
      backup.replaceAll(JSON.stringify(path).slice(1, -1), shifted),
    );
    assert.deepEqual(moved.lost, []);
    assert.deepEqual((await moved.doc.readConversation(7)).conversation?.turns[0].annotations?.[0].acts, [
      'greet_thank',
    ]);
    assert.equal((await moved.doc.readConversation(6)).conversation?.turns[0].annotations, undefined);
    await moved.doc.close();

    await assert.rejects(
      ConversationDocumentModel.restore(path, '{"format":"other"}'),
      /backup for .* is invalid: format: expected one of "simlens-annotation-backup", got string "other"/,
    );
  });

  test('revert discards edits', async () => {
    const { path, bytes } = awkwardFile();
    const doc = await ConversationDocumentModel.open(path);
    try {
      await doc.annotate(annotate(0, ['critique']));
      await doc.revert();
      assert.equal(await doc.isModified(), false);
      assert.equal((await doc.readConversation(0)).conversation?.turns[0].annotations, undefined);
      await doc.save();
      assert.ok(readFileSync(path).equals(bytes));
      // Stale undo after revert is a no-op, not a crash.
      assert.equal(await doc.undo(), undefined);
    } finally {
      await doc.close();
    }
  });

  test('save as writes a copy with the edits and leaves the source untouched', async () => {
    const { path, bytes } = awkwardFile();
    const doc = await ConversationDocumentModel.open(path);
    try {
      await doc.annotate(annotate(0, ['critique']));
      const target = path.replace('awkward', 'copy');
      await doc.saveAs(target);
      assert.ok(readFileSync(path).equals(bytes));
      assertOnlyLinesChanged(bytes, readFileSync(target), [0]);
    } finally {
      await doc.close();
    }
  });

  test('external changes: detected; save refuses; reload keeping edits follows the conversation', async () => {
    const { path, bytes } = awkwardFile();
    const doc = await ConversationDocumentModel.open(path);
    try {
      assert.equal(await doc.changedOnDisk(), false);
      await doc.annotate(annotate(6, ['critique']));
      // Another tool prepends a conversation.
      writeFileSync(path, Buffer.concat([Buffer.from(JSON.stringify(conversation(50)) + '\n'), bytes]));
      const t = new Date(Date.now() + 5000);
      utimesSync(path, t, t);
      assert.equal(await doc.changedOnDisk(), true);
      await assert.rejects(doc.save(), /changed on disk|now holds conversation|shorter/);
      const { lost } = await doc.reload({ keepEdits: true });
      assert.deepEqual(lost, []);
      await doc.save();
      const lines = splitLines(readFileSync(path));
      assert.equal(JSON.parse(lines[7].toString()).turns[0].annotations[0].acts[0], 'critique');
      assert.equal(JSON.parse(lines[0].toString()).id, 'conv-50');
    } finally {
      await doc.close();
    }
  });

  test('external change with discard drops the edits and reads the new content', async () => {
    const path = tempFile('d.conv.jsonl', JSON.stringify(conversation(1)) + '\n');
    const doc = await ConversationDocumentModel.open(path);
    try {
      await doc.annotate(annotate(0, ['critique']));
      appendFileSync(path, JSON.stringify(conversation(2)) + '\n');
      await doc.reload({ keepEdits: false });
      assert.equal(doc.lineCount, 2);
      assert.equal(await doc.isModified(), false);
      assert.equal((await doc.readConversation(1)).id, 'conv-2');
    } finally {
      await doc.close();
    }
  });

  test('one save at a time: concurrent saves serialize', async () => {
    const { path, bytes } = awkwardFile();
    const doc = await ConversationDocumentModel.open(path, { now: fixedNow });
    try {
      await doc.annotate(annotate(0, ['critique']));
      const p1 = doc.save();
      await doc.annotate(annotate(1, ['other']));
      const p2 = doc.save();
      await Promise.all([p1, p2]);
      assertOnlyLinesChanged(bytes, readFileSync(path), [0, 1]);
    } finally {
      await doc.close();
    }
  });
});
