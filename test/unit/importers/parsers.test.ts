/** The building blocks: JSON error locator, CSV parser, sniffer, turn builder. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRng } from '../../../src/core/random';
import { findJsonSyntaxError, lineColumnAt, scanFirstValue } from '../../../src/core/importers/json';
import { parseCsv } from '../../../src/core/importers/csv';
import { sniffFormat } from '../../../src/core/importers/sniff';
import { buildTurns, utteranceRuns } from '../../../src/core/importers/turns';
import { dialogueKitStats } from '../../../src/core/importers/dialoguekitStats';

describe('findJsonSyntaxError', () => {
  test('accepts valid JSON and locates typical mistakes', () => {
    for (const ok of ['{}', '[]', ' {"a": [1, -2.5e3, true, null, "x\\u00e9\\n"]} ', '"s"', '0', '[[[[]]]]'])
      assert.equal(findJsonSyntaxError(ok), undefined, ok);
    const cases: [string, number, number, RegExp][] = [
      ['{"a": 1,}', 1, 9, /trailing comma: expected a property name after ','/],
      ['{"a" 1}', 1, 6, /expected ':'/],
      ['[1,\n 2', 2, 3, /array is not closed/],
      ['{"a":\n  tru}', 2, 6, /expected 'true', found '}'/],
      ['{"a": "x\ny"}', 1, 9, /U\+000A \(a line break\) inside a string/],
      ['[1] x', 1, 5, /after the end of the JSON value$/],
      ['{"a": 01}', 1, 8, /leading zeros/],
      ['[1, ]', 1, 5, /trailing comma/],
      ['{"a": "\\q"}', 1, 9, /invalid escape/],
      ['', 1, 1, /end of the file: expected a value/],
      ['{"a": "open', 1, 12, /unterminated string/],
      // A long valid number before the mistake is not the mistake.
      [`[${'1'.repeat(500)}, }`, 1, 504, /expected a value, found '}'/],
    ];
    for (const [text, line, column, re] of cases) {
      const p = findJsonSyntaxError(text);
      assert.ok(p, text);
      assert.deepEqual([p.line, p.column], [line, column], text);
      assert.match(p.message, re, text);
    }
  });

  test('property: agrees with JSON.parse on randomly damaged JSON (seeded)', () => {
    const rng = createRng('importers-json-property');
    const base = JSON.stringify({ a: [1, 2.5, -3e2, 'x"y', null, true, false], b: { c: 'caf\u00e9\n', d: [] }, e: '' });
    const alphabet = ['{', '}', '[', ']', ',', ':', '"', '\\', '1', '-', '.', 'e', 't', 'n', ' ', '\n', 'x', '0'];
    for (let k = 0; k < 3000; k++) {
      let s = base;
      const edits = 1 + rng.int(3);
      for (let j = 0; j < edits; j++) {
        const at = rng.int(s.length + 1);
        const op = rng.int(3);
        if (op === 0) s = s.slice(0, at) + s.slice(at + 1);
        else if (op === 1) s = s.slice(0, at) + rng.pick(alphabet) + s.slice(at);
        else s = s.slice(0, at) + rng.pick(alphabet) + s.slice(at + 1);
      }
      let valid = true;
      try {
        JSON.parse(s);
      } catch {
        valid = false;
      }
      const p = findJsonSyntaxError(s);
      assert.equal(p === undefined, valid, `disagreement on ${JSON.stringify(s)}`);
      if (p) assert.ok(p.offset >= 0 && p.offset <= s.length);
    }
  });

  test('lineColumnAt counts CRLF as one break', () => {
    assert.deepEqual(lineColumnAt('ab\r\ncd', 5), { line: 2, column: 2 });
  });
});

describe('parseCsv (RFC 4180)', () => {
  test('quotes, doubled quotes, separators and line breaks inside quotes, CRLF, BOM', () => {
    const text = '\ufeffa,b,c\r\n"x, y","say ""hi""","two\nlines"\r\n,,\r\nlast,"",end';
    const { records, warnings } = parseCsv(text, 't.csv');
    assert.deepEqual(
      records.map((r) => r.fields),
      [
        ['a', 'b', 'c'],
        ['x, y', 'say "hi"', 'two\nlines'],
        ['', '', ''],
        ['last', '', 'end'],
      ],
    );
    assert.deepEqual(
      records.map((r) => r.line),
      [1, 2, 4, 5],
    );
    assert.equal(warnings.length, 0);
  });

  test('lenient on stray quotes (with warnings), strict on unterminated quotes', () => {
    const r = parseCsv('a,b"c,"d"e\n', 't.csv');
    assert.deepEqual(r.records[0].fields, ['a', 'b"c', 'de']);
    assert.equal(r.warnings.length, 2);
    assert.match(r.warnings[0].message, /column 4: a quote inside an unquoted field/);
    assert.match(r.warnings[1].message, /column 10: text after a closing quote/);
    assert.throws(() => parseCsv('a\n"b,c\nd', 'u.csv'), /u\.csv:2:1: unterminated quoted field/);
  });

  test('property: parse(serialize(rows)) == rows (seeded)', () => {
    const rng = createRng('importers-csv-property');
    const chars = ['a', 'b', ',', '"', '\n', '\r\n', ' ', '\t', 'é', 'x'];
    const quote = (f: string): string => (/[",\r\n]/.test(f) || f === '' ? `"${f.replace(/"/g, '""')}"` : f);
    for (let k = 0; k < 300; k++) {
      const cols = 1 + rng.int(4);
      const rows = Array.from({ length: 1 + rng.int(5) }, () =>
        Array.from({ length: cols }, () => Array.from({ length: rng.int(6) }, () => rng.pick(chars)).join('')),
      );
      const eol = rng.chance(0.5) ? '\r\n' : '\n';
      const text = rows.map((r) => r.map(quote).join(',')).join(eol) + (rng.chance(0.5) ? eol : '');
      assert.deepEqual(
        parseCsv(text, 'p.csv').records.map((r) => r.fields),
        rows,
        JSON.stringify(text),
      );
    }
  });
});

describe('sniffFormat and scanFirstValue', () => {
  test('keys of the first value, even in a cut-off prefix', () => {
    assert.deepEqual(scanFirstValue('{"task_id": "a", "turns": [{"user_utterance": "{not a key}"').keys, [
      'task_id',
      'turns',
    ]);
    assert.deepEqual(scanFirstValue('[{"conversation ID": "1", "x": {"y": 1}}, {"z": 2}]').keys, [
      'conversation ID',
      'x',
    ]);
    const s = scanFirstValue('{"a": 1}\n{"b": 2}');
    assert.equal(s.end, 8);
  });

  test('formats from prefixes', () => {
    const f = (t: string, complete = true): string | undefined => sniffFormat(t, complete).format;
    assert.equal(f('[\n  {\n    "conversation_id": "x"'), 'dialoguekit');
    assert.equal(f('{"agent": {}, "user": {}, "dialogues": []}'), 'dialoguekit');
    assert.equal(f('{\n "metadata": {"v": 1},\n "conversations": ['), 'convapparel');
    assert.equal(f('[{"task_id": "a", "turns": []}]'), 'convapparel');
    assert.equal(f('{"id": "x", "turns": []}\n'), 'canonical');
    assert.equal(f('{"task_id": "a_good", "turns": [', false), 'convapparel-jsonl');
    assert.equal(f('{"task_id": "a_good", "id": "k", "turns": []}\n'), 'canonical');
    assert.equal(f('\ufeff  ConvId,utterance0,utterance1\n'), 'ab-redial');
    assert.equal(f('name,age\n'), undefined);
    assert.match(
      (sniffFormat('{\n "id": "x",\n "turns": []\n}\n', true) as { reason: string }).reason,
      /single conversation spread over several lines/,
    );
  });
});

describe('buildTurns', () => {
  test('agent-first, user-last, merged runs; stats from the runs', () => {
    const turns = buildTurns([
      { speaker: 'assistant', text: 'A1' },
      { speaker: 'assistant', text: 'A2', extras: { id: 2 } },
      { speaker: 'user', text: 'U1', annotation: { annotator: 'source', acts: ['x'] } },
      { speaker: 'assistant', text: 'A3' },
      { speaker: 'user', text: 'U2' },
      { speaker: 'user', text: 'U3', annotation: { annotator: 'source', acts: ['y'] } },
    ]);
    assert.deepEqual(turns, [
      {
        assistant_utterance: 'A1\nA2',
        source_utterances: [
          { speaker: 'assistant', segment: 0, text_start: 0, text_end: 2 },
          { speaker: 'assistant', segment: 1, text_start: 3, text_end: 5, id: 2 },
        ],
      },
      {
        user_utterance: 'U1',
        assistant_utterance: 'A3',
        annotations: [{ speaker: 'user', annotator: 'source', acts: ['x'], segment: 0 }],
      },
      {
        user_utterance: 'U2\nU3',
        annotations: [{ speaker: 'user', annotator: 'source', acts: ['y'], segment: 1 }],
        source_utterances: [
          { speaker: 'user', segment: 0, text_start: 0, text_end: 2 },
          { speaker: 'user', segment: 1, text_start: 3, text_end: 5 },
        ],
      },
    ]);
    assert.deepEqual(utteranceRuns(turns), [
      { speaker: 'assistant', count: 2 },
      { speaker: 'user', count: 1 },
      { speaker: 'assistant', count: 1 },
      { speaker: 'user', count: 2 },
    ]);
    const s = dialogueKitStats([{ turns }]);
    assert.deepEqual([s.avgTurns, s.userUtterances, s.agentUtterances, s.ratio], [1.5, 3, 3, 1]);
  });

  test('stats on plain canonical conversations and on nothing', () => {
    const s = dialogueKitStats([
      { turns: [{ user_utterance: 'a', assistant_utterance: 'b' }, { user_utterance: 'c' }] },
      { turns: [] },
    ]);
    assert.deepEqual([s.conversations, s.avgTurns, s.userUtterances, s.agentUtterances], [2, 0.5, 2, 1]);
    const empty = dialogueKitStats([]);
    assert.equal(empty.avgTurns, 0);
    assert.ok(Number.isNaN(empty.ratio));
  });
});
