/**
 * Data integrity across importers (issue 26): one duplicate-id policy for every importer and for
 * `validate` (both kept, the repeat renamed `#2`, a warning naming both lines), a raw IARD key
 * written twice, AB-ReDial's turn-level rating file.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importFile, importText } from '../../../src/core/importers/index';
import { validateFile } from '../../../src/core/jsonl';
import { withTempDir } from '../jsonl/helpers';

type Rec = Record<string, unknown>;

const redialLine = (id: string, text: string): string =>
  JSON.stringify({
    movieMentions: {},
    messages: [{ timeOffset: 0, text, senderWorkerId: 1, messageId: 1 }],
    conversationId: id,
    respondentWorkerId: 2,
    initiatorWorkerId: 1,
  });
const canonicalLine = (id: string, text: string): string =>
  JSON.stringify({ id, turns: [{ user_utterance: text, assistant_utterance: 'ok' }] });
const iardDialogue = (text: string): string =>
  `{"accepted_recommendation": [], "dialogue_info": {"S1": {"utterance_pos": 1, "worker_id": 3, "role": "seeker", "utterance_text": ${JSON.stringify(text)}, "sub-intent/action": ["IQU"]}}}`;

describe('one duplicate-id policy', () => {
  const cases: { name: string; text: string; lines: [number, number] }[] = [
    {
      name: 'redial',
      text: [redialLine('7', 'first'), redialLine('8', 'other'), redialLine('7', 'second')].join('\n') + '\n',
      lines: [1, 3],
    },
    {
      name: 'canonical',
      text: [canonicalLine('7', 'first'), canonicalLine('8', 'other'), canonicalLine('7', 'second')].join('\n') + '\n',
      lines: [1, 3],
    },
    {
      name: 'iard',
      text: `{\n"7": ${iardDialogue('first')},\n"8": ${iardDialogue('other')},\n"7": ${iardDialogue('second')}\n}\n`,
      lines: [2, 4],
    },
    {
      name: 'inspired',
      text:
        'dialog_id\tutt_id\tspeaker\ttext\n' +
        'd7\t1\tSEEKER\tfirst\n' +
        'd8\t1\tSEEKER\tother\n' +
        'd7\t1\tSEEKER\tsecond\n',
      lines: [2, 4],
    },
    {
      name: 'dialoguekit',
      text: '{"conversation_id": "7", "conversation": [{"participant": "USER", "utterance": "first"}]}\n{"conversation_id": "8", "conversation": [{"participant": "USER", "utterance": "other"}]}\n{"conversation_id": "7", "conversation": [{"participant": "USER", "utterance": "second"}]}\n',
      lines: [1, 3],
    },
  ];
  for (const c of cases) {
    test(`${c.name}: both kept, the repeat renamed, one warning naming both lines`, () => {
      const r = importText(c.text, { origin: `dup.${c.name}`, from: c.name });
      const ids = r.conversations.map((x) => x.id);
      assert.equal(ids.length, 3, `${c.name}: ${JSON.stringify(ids)}`);
      assert.deepEqual(new Set(ids).size, 3, `ids must be unique after import: ${JSON.stringify(ids)}`);
      const second = r.conversations.find((x) => x.id?.endsWith('#2'));
      assert.ok(second, `no renamed conversation in ${JSON.stringify(ids)}`);
      const firstText = r.conversations.find((x) => x.id === second.id!.slice(0, -2))!.turns[0].user_utterance;
      assert.equal(firstText, 'first', 'the first keeps its id');
      assert.equal(second.turns[0].user_utterance, 'second', 'the second is kept, not merged or overwritten');
      const dup = r.warnings.filter((w) => /is used again/.test(w.message));
      assert.equal(dup.length, 1, JSON.stringify(r.warnings));
      assert.match(
        dup[0].message,
        new RegExp(`first at line ${c.lines[0]}, again at line ${c.lines[1]}\\); both kept, this one as "[^"]+#2"`),
      );
      assert.equal(dup[0].line, c.lines[1]);
    });
  }

  test('a renamed id never collides with an id the file already has', () => {
    const text = [canonicalLine('7', 'a'), canonicalLine('7#2', 'b'), canonicalLine('7', 'c')].join('\n') + '\n';
    const r = importText(text, { origin: 'x.jsonl' });
    assert.deepEqual(
      r.conversations.map((c) => c.id),
      ['7', '7#2', '7#3'],
    );
  });

  test('validate warns (with both lines) where convert would rename', async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, 'dup.jsonl');
      writeFileSync(
        file,
        [canonicalLine('a', 'x'), canonicalLine('b', 'y'), canonicalLine('a', 'z')].join('\n') + '\n',
      );
      const rep = await validateFile(file);
      assert.equal(rep.conversations, 3);
      assert.equal(rep.warningCount, 1);
      assert.equal(rep.errors[0].line, 3);
      assert.match(
        rep.errors[0].message,
        /conversation id "a" is used again \(first at line 1, again at line 3\).*renames this one "a#2"/,
      );
      const conv = await importFile(file);
      assert.deepEqual(
        conv.conversations.map((c) => c.id),
        ['a', 'b', 'a#2'],
      );
    }, 'simlens-dup-');
  });
});

describe('raw IARD: a dialogue key written twice', () => {
  test('both dialogues imported from their own text (JSON.parse would keep only the last)', () => {
    const text = `{\n"7": ${iardDialogue('first')},\n"7": ${iardDialogue('second')}\n}\n`;
    const r = importText(text, { origin: 'iard.json' });
    assert.equal(r.format, 'iard');
    assert.deepEqual(
      r.conversations.map((c) => [c.id, c.turns[0].user_utterance]),
      [
        ['7', 'first'],
        ['7#2', 'second'],
      ],
    );
  });
});

describe('AB-ReDial turn-level file', () => {
  const header =
    'ConvId,utterance0,utterance1,relevance1,interestingness1,overall1,utterance2,utterance3,relevance2,interestingness2,overall2';
  const row = (a: string, b: string, c: string): string =>
    `86,SYSTEM\thi,USER\thorror please,${a},SYSTEM\ttry X,USER\tthanks,${b}${c}`;
  test('every rating cell is kept under its column; segments say which utterances each group rates', () => {
    const csv = [header, row('4,2,4', '4,3,4.0', ''), row('4,1,5', '1,2,3.0', '')].join('\n') + '\n';
    const r = importText(csv, { origin: 'annotated_turns.csv' });
    assert.equal(r.format, 'ab-redial');
    assert.equal(r.conversations.length, 1);
    const anns = r.conversations[0].annotations!;
    assert.deepEqual(
      anns.map((a) => a.fields),
      [
        { relevance1: 4, interestingness1: 2, overall1: 4, relevance2: 4, interestingness2: 3, overall2: 4 },
        { relevance1: 4, interestingness1: 1, overall1: 5, relevance2: 1, interestingness2: 2, overall2: 3 },
      ],
    );
    const cells = anns.reduce((n, a) => n + Object.keys(a.fields ?? {}).length, 0);
    assert.equal(cells, 12, 'no rating cell lost');
    assert.deepEqual((r.conversations[0].metadata as Rec)['rating_segments'], {
      '1': ['utterance0', 'utterance1'],
      '2': ['utterance2', 'utterance3'],
    });
    // The dialogue-level names are not expected in the turn file: no "header has no" warnings.
    assert.deepEqual(r.warnings, []);
  });
});

describe('INSPIRED: a malformed movie_dict', () => {
  test('is kept as raw text with a warning naming the line and column', () => {
    const tsv =
      'dialog_id\tutt_id\tspeaker\ttext\tmovie_dict\n' +
      "d1\t1\tSEEKER\thello\t{'Harbor Lights (1994)': 0\n" +
      "d2\t1\tSEEKER\thi\t{'A': 0}\n";
    const r = importText(tsv, { origin: 'dev.tsv' });
    assert.equal(r.conversations.length, 2);
    assert.equal((r.conversations[0].metadata as Rec)['movie_dict'], "{'Harbor Lights (1994)': 0");
    assert.deepEqual((r.conversations[1].metadata as Rec)['movie_dict'], { A: 0 });
    assert.equal(r.warnings.length, 1, JSON.stringify(r.warnings));
    assert.deepEqual([r.warnings[0].line, r.warnings[0].path], [2, 'movie_dict']);
    assert.match(r.warnings[0].message, /"movie_dict" is not a Python dict literal .*kept as the raw text/);
  });
});
