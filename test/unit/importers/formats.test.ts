/** Importers on small hand-written fixtures covering the shapes not present in the real data. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Conversation } from '../../../src/core/model';
import {
  detectFormat,
  dialogueKitStats,
  importFile,
  importText,
  IMPORT_FORMATS,
  normalizeFormat,
} from '../../../src/core/importers/index';
import { countUtterances, fixture, toDialogueKit } from './helpers';

type Rec = Record<string, unknown>;
const records = (turn: unknown): Rec[] => ((turn as Rec)['source_utterances'] ?? []) as Rec[];

describe('DialogueKit variants', () => {
  test('"conversation ID", single intent, "slots", object slot values, merged utterances', async () => {
    const r = await importFile(fixture('dialoguekit-variants.json'));
    assert.equal(r.format, 'dialoguekit');
    assert.equal(r.conversations.length, 2);
    const [a, b] = r.conversations;
    assert.equal(a.id, 'space-id-1');
    assert.equal(a.metadata?.['source_id_key'], 'conversation ID');
    assert.equal(a.agent, 'TeaBot');
    assert.equal(a.metadata?.['user'], 'U7');
    assert.deepEqual(a.metadata?.['accepted_recommendations'], ['Sencha Mild']);
    assert.equal(a.metadata?.['utterances'], 7);
    assert.equal(a.metadata?.['speaker_changes'], 4); // U A U U A A U
    // User-first: turn 0 = user + agent; turn 1 = two user utterances + two agent utterances merged.
    assert.equal(a.turns.length, 3);
    assert.equal(a.turns[0].user_utterance, 'I want a green tea.');
    assert.equal(a.turns[1].user_utterance, 'Loose leaf.\nNot too bitter please.');
    assert.equal(a.turns[1].assistant_utterance, 'Try the Sencha Mild.\nIt is smooth and grassy.');
    assert.equal(a.turns[2].user_utterance, 'Great, thanks!');
    assert.equal(a.turns[2].assistant_utterance, undefined);
    // Single intent + "slots" array value with offsets.
    const first = a.turns[0].annotations!.find((x) => x.speaker === 'user')!;
    assert.deepEqual(first.acts, ['DISCLOSE']);
    assert.deepEqual(first.slots, [{ slot: 'TYPE', value: 'green', intent: 'DISCLOSE', start: 9, end: 14 }]);
    // Object slot values: {slot, value, start, end} and {SLOT: value}.
    const u1 = a.turns[1].annotations!.filter((x) => x.speaker === 'user');
    assert.deepEqual(
      u1.map((x) => x.segment),
      [0, 1],
    );
    assert.deepEqual(u1[0].slots, [{ slot: 'FORM', value: 'loose leaf', intent: 'DISCLOSE', start: 0, end: 10 }]);
    assert.deepEqual(u1[1].slots, [{ slot: 'TASTE', value: 'mild', intent: 'DISCLOSE' }]);
    // dialogue_acts with "slots", and two acts on one utterance (one without slot values).
    const ag = a.turns[1].annotations!.filter((x) => x.speaker === 'assistant');
    assert.deepEqual(
      ag.map((x) => x.acts),
      [['REVEAL.SHOW'], ['EXPLAIN', 'INQUIRE.MORE']],
    );
    assert.equal(ag[0].slots![0].value, 'Sencha Mild');
    assert.equal(ag[0].slots![0].start, null);
    // Utterance-level extras kept per segment.
    const recs = records(a.turns[1]);
    assert.equal(recs.find((x) => x['speaker'] === 'user' && x['segment'] === 1)?.['utterance_id'], 'u-4');
    assert.equal(recs.find((x) => x['speaker'] === 'assistant' && x['segment'] === 0)?.['utterance_feedback'], 1);
    // Offsets address each segment inside the merged field.
    for (const rec of recs) {
      const field = rec['speaker'] === 'user' ? a.turns[1].user_utterance! : a.turns[1].assistant_utterance!;
      assert.ok(field.slice(rec['text_start'] as number, rec['text_end'] as number).length > 0);
    }

    // Agent-first with two agent utterances in a row; numeric id; null slot value; odd offset.
    assert.equal(b.id, '42');
    assert.equal(b.metadata?.['source_id'], 42);
    assert.equal(b.turns[0].user_utterance, undefined);
    assert.equal(b.turns[0].assistant_utterance, 'Hello! Looking for coffee?\nWe have beans and pods.');
    assert.equal(b.turns[0].annotations?.length, 1, 'the second agent utterance has no acts, so no annotation');
    assert.equal(records(b.turns[0]).length, 2, 'but it is still a recorded segment');
    const nullSlot = b.turns[1].annotations![0].slots!.find((s) => s.slot === 'FORM')!;
    assert.equal(nullSlot.value, null);
    const odd = b.turns[1].annotations!.find((x) => x.speaker === 'assistant')!.slots![0];
    assert.equal(odd.start, undefined);
    assert.deepEqual(odd['raw'], ['ITEM', 'Night Owl', '2019', null]);
    assert.equal(r.warnings.length, 1);
    assert.equal(r.warnings[0].path, '[1].conversation[3].dialogue_acts[0].slot_values[0]');

    assert.equal(countUtterances(r.conversations).total, 11);
    const s = dialogueKitStats(r.conversations);
    assert.equal(s.avgTurns, (4 / 2 + 2 / 2) / 2); // A A U A has 2 changes
    assert.equal(s.userUtterances, 5);
    assert.equal(s.agentUtterances, 6);
    for (const c of r.conversations) assert.ok(Conversation.safeParse(c).success);
  });

  test('every variant survives a round trip except the spelling of rewritten slot shapes', async () => {
    const r = await importFile(fixture('dialoguekit-variants.json'));
    const back = toDialogueKit(JSON.parse(JSON.stringify(r.conversations)) as Conversation[]);
    const orig = JSON.parse(readFileSync(fixture('dialoguekit-variants.json'), 'utf8')) as Rec[];
    // Ids, participants, metadata, texts and utterance extras come back exactly.
    assert.equal(back[0]['conversation ID'], orig[0]['conversation ID']);
    assert.equal(back[1]['conversation_id'], 42);
    assert.deepEqual(back[0]['metadata'], orig[0]['metadata']);
    const texts = (d: Rec): unknown[] =>
      (d['conversation'] as Rec[]).map((u) => [
        u['participant'],
        u['utterance'],
        u['utterance_id'],
        u['utterance_feedback'],
      ]);
    assert.deepEqual(back.map(texts), orig.map(texts));
  });

  test('DialogueKit export object: agent/user inherited, simulated user becomes the source', async () => {
    assert.equal(await detectFormat(fixture('dialoguekit-export.json')), 'dialoguekit');
    const r = await importFile(fixture('dialoguekit-export.json'));
    assert.equal(r.conversations.length, 1);
    const c = r.conversations[0];
    assert.equal(c.agent, 'ShoeAgent');
    assert.equal(c.source, 'sim-3');
    assert.deepEqual(records(c.turns[0])[0]['metadata'], { time: '2024-01-01T10:00:00' });
    assert.equal(c.turns.length, 3);
  });

  test('DialogueKit JSONL (one dialogue per line), blank line skipped', async () => {
    const r = await importFile(fixture('dialoguekit-lines.jsonl'));
    assert.equal(r.format, 'dialoguekit');
    assert.deepEqual(
      r.conversations.map((c) => c.id),
      ['l-1', 'l-2'],
    );
    assert.equal(r.warnings.length, 0);
  });
});

describe('ConvApparel and canonical', () => {
  test('release document: fields unchanged, id added only when missing, bad ones skipped with paths', async () => {
    assert.equal(await detectFormat(fixture('convapparel-release.json')), 'convapparel');
    const r = await importFile(fixture('convapparel-release.json'));
    const doc = JSON.parse(readFileSync(fixture('convapparel-release.json'), 'utf8')) as {
      metadata: Rec;
      conversations: Rec[];
    };
    assert.equal(r.format, 'convapparel');
    assert.deepEqual(r.documentMetadata, { metadata: doc.metadata });
    assert.equal(r.conversations.length, 2);
    // Unchanged apart from the added id, in the original key order.
    assert.deepEqual(r.conversations[0], { id: 'convapparel-0', ...doc.conversations[0] });
    assert.deepEqual(Object.keys(r.conversations[0]), ['id', ...Object.keys(doc.conversations[0])]);
    assert.deepEqual(r.conversations[1], doc.conversations[1]);
    assert.equal(r.conversations[1].id, 'keep-me');
    assert.deepEqual(
      r.warnings.map((w) => w.path),
      ['conversations[2].turns[0].user_utterance', 'conversations[3].turns'],
    );
    assert.match(
      r.warnings[0].message,
      /conversation 2: turns\[0\]\.user_utterance: expected a string, got number 17; skipped/,
    );
    assert.match(r.warnings[1].message, /conversation 3: turns: required field is missing \(expected an array\)/);
  });

  test('ConvApparel JSONL: BOM, CRLF, blank line, no final newline; bad lines reported with line numbers', async () => {
    assert.equal(await detectFormat(fixture('convapparel.jsonl')), 'convapparel-jsonl');
    const r = await importFile(fixture('convapparel.jsonl'));
    assert.equal(r.format, 'convapparel-jsonl');
    assert.deepEqual(
      r.conversations.map((c) => c.id),
      ['convapparel-0', 'convapparel-1', 'has-id'],
    );
    assert.equal(r.conversations[0].task_id, 'tops_good');
    assert.deepEqual(
      r.warnings.map((w) => w.line),
      [4, 5],
    );
    assert.match(r.warnings[0].message, /^invalid JSON at column 58: .*trailing comma.*; line skipped$/);
    assert.match(r.warnings[1].message, /^conversation on line 5: turns: expected an array, got string "/);
    assert.equal(r.warnings[1].path, 'turns');
  });

  test('the same JSONL through importText gives the same result', async () => {
    const text = readFileSync(fixture('convapparel.jsonl'), 'utf8');
    const fromText = importText(text, { origin: 'mem.jsonl' });
    const fromFile = await importFile(fixture('convapparel.jsonl'));
    assert.deepEqual(fromText, fromFile);
  });

  test('canonical JSONL passes through unchanged', async () => {
    assert.equal(await detectFormat(fixture('canonical.jsonl')), 'canonical');
    const r = await importFile(fixture('canonical.jsonl'));
    const lines = readFileSync(fixture('canonical.jsonl'), 'utf8').trim().split('\n');
    assert.deepEqual(
      r.conversations.map((c) => JSON.stringify(c)),
      lines.map((l) => JSON.stringify(JSON.parse(l))),
    );
    assert.equal(r.warnings.length, 0);
  });

  test('--from convapparel on JSONL content reads it as ConvApparel JSONL', async () => {
    const r = await importFile(fixture('canonical.jsonl'), { from: 'ConvApparel' });
    assert.equal(r.format, 'convapparel-jsonl');
    assert.deepEqual(
      r.conversations.map((c) => c.id),
      ['c1', 'c2'],
    );
  });
});

describe('AB-ReDial CSV', () => {
  test('quoted fields, doubled quotes, newline in a quoted field, em-space role, raters, reused ConvId', async () => {
    assert.equal(await detectFormat(fixture('abredial-mini.csv')), 'ab-redial');
    const r = await importFile(fixture('abredial-mini.csv'));
    assert.deepEqual(
      r.conversations.map((c) => c.id),
      ['A1', 'B2', 'A1#2'],
    );
    const [a1, b2, a1b] = r.conversations;
    assert.deepEqual(a1.turns, [
      { assistant_utterance: 'Hi! What do you like?' },
      { user_utterance: 'Sci-fi, mostly.', assistant_utterance: 'Try "Moon (2009)".' },
      { user_utterance: 'Thanks!' },
    ]);
    assert.deepEqual(
      a1.annotations?.map((x) => x.annotator),
      ['rater:1', 'rater:2'],
    );
    assert.deepEqual(a1.annotations?.[0].fields, {
      understanding: 3,
      'task-completion': 3,
      'interest-arousal': 2,
      efficiency: 1,
      'dialogue-overall': 5,
    });
    assert.equal(a1.annotations?.[1].note, 'Line one\r\nline two');
    assert.equal(a1.annotations?.[1].fields?.['interest-arousal'], undefined);
    assert.equal(a1.annotations?.[1]['line'], 3);
    assert.equal(b2.turns[0].user_utterance, 'Any comedies?');
    assert.equal(b2.turns[0].assistant_utterance, 'Sure: Airplane!\nOr Clue.');
    assert.equal(records(b2.turns[0]).length, 2);
    assert.equal(b2.annotations?.[0]['line'], 5, 'the record after a multi-line field starts on line 5');
    assert.equal(a1b.metadata?.['conv_id'], 'A1');
    assert.deepEqual(
      r.warnings.map((w) => w.line),
      [3, 6],
    );
    assert.match(r.warnings[1].message, /ConvId A1 names 2 different dialogues/);
    assert.equal(dialogueKitStats(r.conversations).agentUtterances, 5);
  });
});

describe('format names and detection', () => {
  test('IMPORT_FORMATS, aliases and unknown names', () => {
    assert.deepEqual(
      [...IMPORT_FORMATS],
      ['canonical', 'convapparel', 'convapparel-jsonl', 'dialoguekit', 'ab-redial', 'redial', 'inspired', 'iard'],
    );
    assert.equal(normalizeFormat('UserSimCRS'), 'dialoguekit');
    assert.equal(normalizeFormat('abredial'), 'ab-redial');
    assert.equal(normalizeFormat(' canonical '), 'canonical');
    assert.throws(() => normalizeFormat('xml'), /unknown import format "xml"; known formats: canonical, convapparel/);
  });

  test('detection is by content, not extension', () => {
    const dk = '[{"conversation_id": "x", "conversation": [{"participant": "USER", "utterance": "hi"}]}]';
    assert.equal(importText(dk, { origin: 'dialogues.csv' }).format, 'dialoguekit');
    const csv = 'ConvId,utterance0,understanding\nZ9,USER\thello,3.0\n';
    assert.equal(importText(csv, { origin: 'data.json' }).format, 'ab-redial');
    const ca = '{"task_id": "x_good", "turns": []}\n';
    assert.equal(importText(ca, { origin: 'a.txt' }).format, 'convapparel-jsonl');
    const wrappedOneLine = '{"metadata": {}, "conversations": [{"task_id": "x_good", "turns": []}]}';
    assert.equal(importText(wrappedOneLine, { origin: 'w.jsonl' }).format, 'convapparel');
  });

  test('unknown content: a clear error naming the file', async () => {
    await assert.rejects(detectFormat(fixture('unknown.txt')), (e: Error) => {
      assert.match(
        e.message,
        /unknown\.txt: cannot tell the input format: it starts with "just some notes"\. Use --from with one of: canonical/,
      );
      return true;
    });
    assert.throws(
      () => importText('', { origin: 'empty.jsonl' }),
      /empty\.jsonl: the file is empty: there is nothing to convert/,
    );
    assert.throws(
      () => importText('{"a": 1}', { origin: 'obj.json' }),
      /obj\.json: cannot tell the input format: it is a JSON object with keys a/,
    );
  });
});
