/** Bad inputs: every message names the file and the line/column or the JSON path. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ImportError, importFile, importText } from '../../../src/core/importers/index';
import { fixture } from './helpers';

function rejectsWith(p: Promise<unknown>, re: RegExp): Promise<void> {
  return assert.rejects(p, (e: Error) => {
    assert.match(e.message, re);
    return true;
  });
}

describe('fatal errors', () => {
  test('bad JSON document: line and column of the trailing comma', async () => {
    await assert.rejects(importFile(fixture('bad-json.json')), (e: unknown) => {
      assert.ok(e instanceof ImportError);
      assert.equal(e.line, 5);
      assert.equal(e.column, 49);
      assert.match(
        e.message,
        /bad-json\.json:5:49: invalid JSON: trailing comma: expected a property name after ',', found '}'/,
      );
      return true;
    });
  });

  test('a bare word in a JSON document: the column of its first character, also when it starts like a literal', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'simlens-bareword-'));
    try {
      for (const [text, where] of [
        ['this is text\n', '1:1'],
        ['[\n  none\n]\n', '2:3'],
        ['{"a": nope}', '1:7'],
        ['hello', '1:1'],
      ]) {
        const file = path.join(dir, 'doc.json');
        writeFileSync(file, text);
        await rejectsWith(
          importFile(file, { from: 'dialoguekit' }),
          new RegExp(`doc\\.json:${where}: invalid JSON: expected a value, found '`),
        );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('unterminated quoted CSV field: line and column where it opens', async () => {
    await rejectsWith(
      importFile(fixture('abredial-unterminated.csv')),
      /abredial-unterminated\.csv:2:4: unterminated quoted field/,
    );
  });

  test('a DialogueKit document without dialogues', () => {
    assert.throws(
      () => importText('{"dialogues": 3}', { origin: 'x.json', from: 'dialoguekit' }),
      /x\.json: dialogues: "dialogues" must be an array of dialogues, found number 3/,
    );
    assert.throws(
      () => importText('{"foo": []}', { origin: 'y.json', from: 'dialoguekit' }),
      /y\.json: expected a DialogueKit file: .* found an object with keys foo/,
    );
    assert.throws(
      () => importText('"text"', { origin: 'z.json', from: 'dialoguekit' }),
      /z\.json: expected a DialogueKit file \(a JSON array of dialogues\), found string "/,
    );
  });

  test('a ConvApparel document without a conversations array', () => {
    assert.throws(
      () => importText('{"metadata": {}}', { origin: 'r.json', from: 'convapparel' }),
      /r\.json: conversations: expected a ConvApparel document with a "conversations" array, found an object with keys metadata/,
    );
    assert.throws(
      () => importText('{"conversations": {}}', { origin: 'r.json', from: 'convapparel' }),
      /r\.json: conversations: "conversations" must be an array, found an object/,
    );
  });

  test('wrong --from: the error says what the content looks like', async () => {
    await rejectsWith(
      importFile(fixture('convapparel-release.json'), { from: 'dialoguekit' }),
      /convapparel-release\.json: expected a DialogueKit file.*\(read as dialoguekit, but the content looks like convapparel: try --from convapparel, or leave --from out\)/,
    );
    await rejectsWith(
      importFile(fixture('dialoguekit-variants.json'), { from: 'ab-redial' }),
      /dialoguekit-variants\.json:1:1: expected an AB-ReDial CSV header.*looks like dialoguekit/,
    );
    await rejectsWith(
      importFile(fixture('dialoguekit-variants.json'), { from: 'canonical' }),
      /no conversation could be imported as canonical \(\d+ problems\); the first: line 1: invalid JSON at column 2: .*looks like dialoguekit/,
    );
    await rejectsWith(
      importFile(fixture('abredial-mini.csv'), { from: 'dialoguekit' }),
      /abredial-mini\.csv:1:1: invalid JSON: expected a value, found 'ConvId'.*looks like ab-redial/,
    );
    await rejectsWith(
      importFile(fixture('canonical.jsonl'), { from: 'dialoguekit' }),
      /the first: line 1: dialogue "dialoguekit-0" has no "conversation" array \(found nothing\); dialogue skipped/,
    );
    await rejectsWith(importFile(fixture('canonical.jsonl'), { from: 'bogus' }), /unknown import format "bogus"/);
  });

  test('a JSONL file in which no line is valid is an error, not an empty import', () => {
    assert.throws(
      () => importText('{"turns": 1}\n{"turns": "x"}\n', { origin: 'all-bad.jsonl', from: 'canonical' }),
      /all-bad\.jsonl: no conversation could be imported as canonical \(2 problems\); the first: line 1: conversation on line 1: turns: expected an array, got number 1; skipped/,
    );
  });

  test('UTF-16 files are refused with a clear message; invalid UTF-8 is reported per line', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'simlens-imp-'));
    try {
      const u16 = path.join(dir, 'u16.jsonl');
      writeFileSync(u16, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"turns": []}\n', 'utf16le')]));
      await rejectsWith(
        importFile(u16, { from: 'canonical' }),
        /u16\.jsonl: the file is UTF-16 encoded; save it as UTF-8/,
      );
      const bad = path.join(dir, 'bad8.jsonl');
      writeFileSync(
        bad,
        Buffer.concat([
          Buffer.from('{"id": "a", "turns": []}\n{"id": "b", "turns": [{"user_utterance": "caf'),
          Buffer.from([0xe9]),
          Buffer.from('"}]}\n'),
        ]),
      );
      const r = await importFile(bad);
      assert.equal(r.conversations.length, 2);
      assert.equal(r.conversations[1].turns[0].user_utterance, 'caf\ufffd');
      assert.deepEqual(r.warnings, [
        { line: 2, message: 'the line contains bytes that are not valid UTF-8; they were replaced with U+FFFD' },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a missing file: the error names it', async () => {
    await rejectsWith(
      importFile(path.join(os.tmpdir(), 'simlens-no-such-file.jsonl')),
      /simlens-no-such-file\.jsonl: cannot read the file \(ENOENT\)/,
    );
  });
});

describe('skipped dialogues and repaired values are warnings with paths', () => {
  test('DialogueKit: missing conversation, wrong participant, bad utterance, bad acts and slots, no id', async () => {
    const r = await importFile(fixture('dialoguekit-malformed.json'));
    assert.deepEqual(
      r.conversations.map((c) => c.id),
      ['ok', 'dialoguekit-5'],
    );
    const byPath = new Map(r.warnings.map((w) => [w.path, w.message]));
    assert.match(
      byPath.get('[0].conversation')!,
      /dialogue "no-conv" has no "conversation" array \(found nothing\); dialogue skipped/,
    );
    assert.match(
      byPath.get('[1].conversation[1].participant')!,
      /participant must be "USER" or "AGENT", found string "ROBOT"; dialogue skipped/,
    );
    assert.match(
      byPath.get('[2].conversation[0].utterance')!,
      /"utterance" must be a string, found number 5; dialogue skipped/,
    );
    assert.match(byPath.get('[3].conversation[0].dialogue_acts[0].slot_values[0]')!, /slot value without a slot name/);
    assert.match(byPath.get('[3].conversation[0].dialogue_acts[0].slot_values[1]')!, /expected a slot value/);
    assert.match(byPath.get('[3].conversation[0].dialogue_acts[1].intent')!, /dialogue act without a string "intent"/);
    assert.match(byPath.get('[4]')!, /expected a dialogue object, found string "/);
    assert.match(byPath.get('[5]')!, /no "conversation_id".*id set to "dialoguekit-5"/);
    // What could not be converted is kept raw with the utterance.
    const ok = r.conversations[0];
    const rec = ((ok.turns[0] as Record<string, unknown>)['source_utterances'] as Record<string, unknown>[])[0];
    assert.deepEqual(rec['dialogue_acts'], [
      { intent: 'DISCLOSE', slot_values: [[7, 'x'], 'nonsense'] },
      { slot_values: [] },
    ]);
    // Lower-case participant accepted, original spelling kept.
    const lower = (
      (r.conversations[1].turns[0] as Record<string, unknown>)['source_utterances'] as Record<string, unknown>[]
    )[0];
    assert.equal(lower['participant'], 'user');
  });

  test('DialogueKit JSONL: a bad line is skipped with its line number', () => {
    const text =
      '{"conversation_id": "a", "conversation": [{"participant": "USER", "utterance": "x"}]}\n{"conversation_id": "b", "conversation": [{"participant": "USER" "utterance": "y"}]}\n{"conversation_id": "c", "conversation": [{"participant": "BOT", "utterance": "z"}]}\n';
    const r = importText(text, { origin: 'd.jsonl' });
    assert.equal(r.format, 'dialoguekit');
    assert.deepEqual(
      r.conversations.map((c) => c.id),
      ['a'],
    );
    assert.deepEqual(
      r.warnings.map((w) => w.line),
      [2, 3],
    );
    assert.match(
      r.warnings[0].message,
      /invalid JSON at column 66: expected ',' or '}' after a property value, found '"'/,
    );
    assert.equal(r.warnings[1].path, 'conversation[0].participant');
  });

  test('duplicate conversation ids are reported, both kept', () => {
    const text = JSON.stringify([
      { conversation_id: 'same', conversation: [{ participant: 'USER', utterance: 'a' }] },
      { conversation_id: 'same', conversation: [{ participant: 'USER', utterance: 'b' }] },
    ]);
    const r = importText(text, { origin: 'dup.json' });
    assert.deepEqual(
      r.conversations.map((c) => c.id),
      ['same', 'same#2'],
    );
    assert.match(r.warnings[0].message, /conversation id "same" is used again .*both kept, this one as "same#2"/);
  });

  test('metadata keys that SimLens writes do not overwrite the originals', () => {
    const text = JSON.stringify([
      {
        conversation_id: 'm',
        metadata: { format: 'mine', utterances: 'many' },
        conversation: [{ participant: 'USER', utterance: 'a' }],
      },
    ]);
    const r = importText(text, { origin: 'm.json' });
    const md = r.conversations[0].metadata!;
    assert.equal(md['format'], 'dialoguekit');
    assert.equal(md['original_format'], 'mine');
    assert.equal(md['original_utterances'], 'many');
    assert.equal(md['utterances'], 1);
    assert.equal(r.warnings.length, 2);
  });

  test('AB-ReDial: rows with a bad role or a wrong field count', () => {
    const csv =
      'ConvId,utterance0,utterance1,understanding,justification-text\nA,USER\thi,BOT\tbeep,3.0,x\nB,USER\thello,SYSTEM\thi,abc\nC,SYSTEM\tyo\n,USER\tno id,,1.0,\n';
    const r = importText(csv, { origin: 'a.csv' });
    assert.deepEqual(
      r.conversations.map((c) => c.id),
      ['B', 'C'],
    );
    const msgs = r.warnings.map((w) => `${w.line}:${w.path ?? ''}:${w.message}`);
    assert.ok(
      msgs.some((m) =>
        /^2:utterance1:row 1 \(ConvId A\): expected "USER<TAB>text" or "SYSTEM<TAB>text", found "BOT\\tbeep"; row skipped$/.test(
          m,
        ),
      ),
      msgs.join('\n'),
    );
    assert.ok(
      msgs.some((m) =>
        /^3:understanding:row 2 \(ConvId B\): rating "understanding" is not a number \("abc"\); kept as text$/.test(m),
      ),
      msgs.join('\n'),
    );
    assert.ok(
      msgs.some((m) => /^4::row 3 has 2 fields, the header has 5/.test(m)),
      msgs.join('\n'),
    );
    assert.ok(
      msgs.some((m) => /^5:ConvId:row 4 has an empty ConvId; row skipped$/.test(m)),
      msgs.join('\n'),
    );
    assert.equal(r.conversations[0].annotations![0].fields!['understanding'], 'abc');
  });
});
