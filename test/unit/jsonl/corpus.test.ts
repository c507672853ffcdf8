/**
 * The bad-input corpus: one row per kind of broken (or hostile but valid) line. Each row gives the
 * line's bytes, the line number it is placed at, and the expected path and message fragment (and
 * column where it is exact). Every row is checked through the whole engine (file -> stream ->
 * decode -> parse -> report), then all rows together in one file.
 */
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { validateFile, parseLineBytes, JsonlFile } from '../../../src/core/jsonl';
import { convLine, tempDir, writeTemp } from './helpers';

interface Case {
  name: string;
  /** The line's content (string = UTF-8; Buffer = exact bytes). */
  bytes: string | Buffer;
  /** 1-based line where it is placed (valid lines are put before it). */
  line: number;
  /** Expected problem; `valid: true` rows must produce no error. */
  path?: string;
  message?: string | RegExp;
  column?: number;
  valid?: boolean;
  /** A warning expected (substring). */
  warning?: string;
  /** File-level framing. */
  eol?: '\n' | '\r\n';
  bom?: boolean;
}

const BIG = 'x'.repeat(5 * 1024 * 1024); // 5 MiB of text
const DEEP = 100_000;

const CASES: Case[] = [
  // --- malformed JSON at various columns -----------------------------------------------------
  {
    name: 'object not closed',
    bytes: '{"turns":[]',
    line: 1,
    path: '',
    message: 'the object is not closed',
    column: 12,
  },
  {
    name: 'trailing comma in object',
    bytes: '{"turns":[],}',
    line: 2,
    path: '',
    message: 'trailing comma',
    column: 13,
  },
  {
    name: 'trailing comma in array',
    bytes: '{"turns":[{},]}',
    line: 3,
    path: '',
    message: 'a trailing comma or a missing value',
    column: 14,
  },
  {
    name: 'single-quoted key',
    bytes: "{'turns':[]}",
    line: 1,
    path: '',
    message: 'property names must use double quotes',
    column: 2,
  },
  {
    name: 'single-quoted value',
    bytes: `{"turns":[{"user_utterance":'hi'}]}`,
    line: 2,
    path: '',
    message: 'strings must use double quotes',
    column: 29,
  },
  {
    name: 'unquoted key',
    bytes: '{turns:[]}',
    line: 1,
    path: '',
    message: 'expected a property name in double quotes',
    column: 2,
  },
  {
    name: 'missing colon',
    bytes: '{"turns" []}',
    line: 1,
    path: '',
    message: "expected ':' after the property name",
    column: 10,
  },
  {
    name: 'missing comma between members',
    bytes: '{"id":"a" "turns":[]}',
    line: 4,
    path: '',
    message: "expected ',' or '}' after a property value",
    column: 11,
  },
  { name: 'NaN', bytes: '{"turns":[],"score":NaN}', line: 1, path: '', message: "found 'NaN'", column: 21 },
  { name: 'undefined', bytes: '{"turns":undefined}', line: 1, path: '', message: "found 'undefined'", column: 10 },
  { name: 'leading zero', bytes: '{"turns":[],"n":012}', line: 1, path: '', message: 'leading zeros', column: 18 },
  {
    name: 'bad escape',
    bytes: '{"turns":[{"user_utterance":"a\\qb"}]}',
    line: 1,
    path: '',
    message: "invalid escape '\\q'",
    column: 32,
  },
  {
    name: 'bad unicode escape',
    bytes: '{"turns":[{"user_utterance":"\\u12G4"}]}',
    line: 1,
    path: '',
    message: '4 hex digits',
    column: 34,
  },
  {
    name: 'raw tab inside a string',
    bytes: '{"turns":[{"user_utterance":"a\tb"}]}',
    line: 1,
    path: '',
    message: 'raw control character U+0009',
    column: 31,
  },
  {
    name: 'unterminated string',
    bytes: '{"turns":[{"user_utterance":"hello',
    line: 2,
    path: '',
    message: 'unterminated string',
    column: 35,
  },
  {
    name: 'two objects on one line',
    bytes: '{"turns":[]}{"turns":[]}',
    line: 1,
    path: '',
    message: 'after the end of the JSON value',
    column: 13,
  },
  {
    name: 'truncated line',
    bytes: '{"turns":[{"user_utterance":"hi","assistant_utter',
    line: 3,
    path: '',
    message: 'unterminated string',
  },
  {
    name: 'trailing comment',
    bytes: '{"turns":[]} // reviewed',
    line: 1,
    path: '',
    message: "unexpected '/' after the end",
    column: 14,
  },
  {
    name: 'Python repr',
    bytes: "{'turns': [], 'task_id': None}",
    line: 1,
    path: '',
    message: 'double quotes',
    column: 2,
  },
  {
    name: 'literal typo',
    bytes: '{"turns":[],"ok":tru}',
    line: 1,
    path: '',
    message: "expected 'true', found '}'",
    column: 21,
  },
  {
    name: 'number then junk',
    bytes: '{"turns":[],"n":1.}',
    line: 1,
    path: '',
    message: 'digit after the decimal point',
    column: 19,
  },
  { name: 'empty value', bytes: '{"turns":}', line: 1, path: '', message: "expected a value, found '}'", column: 10 },
  {
    name: 'NUL byte after the object',
    bytes: Buffer.from('{"turns":[]}\0'),
    line: 1,
    path: '',
    message: 'U+0000 after the end',
    column: 13,
  },
  {
    name: 'NUL byte inside a string',
    bytes: Buffer.from('{"turns":[{"user_utterance":"a\0b"}]}'),
    line: 2,
    path: '',
    message: 'raw control character U+0000',
    column: 31,
  },
  { name: 'NUL-only line', bytes: Buffer.from([0, 0, 0]), line: 1, path: '', message: 'U+0000', column: 1 },
  {
    name: 'deeply nested junk, never closed',
    bytes: '['.repeat(DEEP),
    line: 1,
    path: '',
    message: 'an array is not closed',
    column: DEEP + 1,
  },
  {
    name: 'several-MB line missing its last brace',
    bytes: `{"turns":[{"user_utterance":"${BIG}"}]`,
    line: 2,
    path: '',
    message: 'the object is not closed',
    column: BIG.length + 33,
  },
  { name: 'YAML instead of JSON', bytes: 'turns: []', line: 1, path: '', message: "found 'turns'", column: 1 },
  // --- not one object per line -----------------------------------------------------------------
  {
    name: 'array of conversations',
    bytes: '[{"turns":[]}]',
    line: 1,
    path: '',
    message: 'found an array with 1 item',
    column: 1,
  },
  { name: 'bare number', bytes: '  42', line: 2, path: '', message: 'found a number', column: 3 },
  { name: 'bare string', bytes: '"hello"', line: 1, path: '', message: 'found a string', column: 1 },
  { name: 'null', bytes: 'null', line: 1, path: '', message: 'found null', column: 1 },
  { name: 'true', bytes: 'true', line: 1, path: '', message: 'found true', column: 1 },
  // --- schema errors at nested paths -----------------------------------------------------------
  {
    name: 'missing turns',
    bytes: '{"task_id":"footwear_good"}',
    line: 1,
    path: 'turns',
    message: 'turns: required field is missing (expected an array)',
    column: 1,
  },
  {
    name: 'turns is a string',
    bytes: '{"turns":"hi"}',
    line: 1,
    path: 'turns',
    message: 'expected an array, got string "hi"',
    column: 10,
  },
  {
    name: 'turns is an object',
    bytes: '{"turns":{}}',
    line: 1,
    path: 'turns',
    message: 'expected an array, got an object',
    column: 10,
  },
  {
    name: 'number where a string is expected',
    bytes: '{"turns":[{"user_utterance":5}]}',
    line: 1,
    path: 'turns[0].user_utterance',
    message: 'turns[0].user_utterance: expected a string, got number 5',
    column: 29,
  },
  {
    name: 'nested item_id is a number',
    bytes: '{"turns":[{},{"recommendations":[{"item_id":"a"},{"item_id":"b"},{"item_id":7}]}]}',
    line: 3,
    path: 'turns[1].recommendations[2].item_id',
    message: 'got number 7',
    column: 77,
  },
  {
    name: 'item without item_id',
    bytes: '{"turns":[{"recommendations":[{"title":"Boot"}]}]}',
    line: 1,
    path: 'turns[0].recommendations[0].item_id',
    message: 'required field is missing',
    column: 31,
  },
  {
    name: 'turn is a string',
    bytes: '{"turns":["hello"]}',
    line: 1,
    path: 'turns[0]',
    message: 'expected an object, got string "hello"',
    column: 11,
  },
  {
    name: 'deeply nested arrays as a turn',
    bytes: `{"turns":${'['.repeat(DEEP)}${']'.repeat(DEEP)}}`,
    line: 1,
    path: 'turns[0]',
    message: 'expected an object, got an array',
    column: 11,
  },
  {
    name: 'rating value is an object',
    bytes: '{"turns":[],"ratings":{"How often do you shop online?":{"a":1}}}',
    line: 1,
    path: 'ratings["How often do you shop online?"]',
    message: 'expected a boolean (true/false), a string, a number or null, got an object',
    column: 56,
  },
  {
    name: 'speaker not in the enum',
    bytes: '{"turns":[{"annotations":[{"speaker":"bot","annotator":"r1","acts":[]}]}]}',
    line: 1,
    path: 'turns[0].annotations[0].speaker',
    message: 'expected one of "user", "assistant", got string "bot"',
    column: 38,
  },
  {
    name: 'empty annotator',
    bytes: '{"turns":[{"annotations":[{"speaker":"user","annotator":"","acts":[]}]}]}',
    line: 1,
    path: 'turns[0].annotations[0].annotator',
    message: 'must not be empty',
    column: 57,
  },
  {
    name: 'acts is a string',
    bytes: '{"turns":[{"annotations":[{"speaker":"user","annotator":"a","acts":"greet"}]}]}',
    line: 1,
    path: 'turns[0].annotations[0].acts',
    message: 'expected an array, got string "greet"',
    column: 68,
  },
  {
    name: 'segment is fractional',
    bytes: '{"turns":[{"annotations":[{"speaker":"user","annotator":"a","acts":[],"segment":1.5}]}]}',
    line: 1,
    path: 'turns[0].annotations[0].segment',
    message: 'expected an integer, got number 1.5',
  },
  {
    name: 'segment is negative',
    bytes: '{"turns":[{"annotations":[{"speaker":"user","annotator":"a","acts":[],"segment":-1}]}]}',
    line: 1,
    path: 'turns[0].annotations[0].segment',
    message: 'must be >= 0',
  },
  {
    name: 'trace operation not in the enum',
    bytes: '{"turns":[{"trace":{"operation":"pop"}}]}',
    line: 1,
    path: 'turns[0].trace.operation',
    message: 'expected one of "pull", "push", "init", "end", got string "pop"',
    column: 33,
  },
  {
    name: 'patience is a string',
    bytes: '{"turns":[{"trace":{"patience":"high"}}]}',
    line: 1,
    path: 'turns[0].trace.patience',
    message: 'expected a number, got string "high"',
    column: 32,
  },
  {
    name: 'outcome not in the enum',
    bytes: '{"turns":[],"outcome":"won"}',
    line: 1,
    path: 'outcome',
    message: 'expected one of "accepted", "ended", "gave_up", "abandoned"',
    column: 23,
  },
  {
    name: 'metadata is an array',
    bytes: '{"turns":[],"metadata":[1]}',
    line: 1,
    path: 'metadata',
    message: 'expected an object, got an array (1 item)',
    column: 24,
  },
  {
    name: 'id is a number',
    bytes: '{"id":7,"turns":[]}',
    line: 1,
    path: 'id',
    message: 'id: expected a string, got number 7',
    column: 7,
  },
  {
    name: 'features is a number',
    bytes: '{"turns":[{"recommendations":[{"item_id":"a","features":3}]}]}',
    line: 1,
    path: 'turns[0].recommendations[0].features',
    message: 'expected a string or an array, got number 3',
    column: 57,
  },
  {
    name: 'version is an object',
    bytes: '{"turns":[],"version":{}}',
    line: 1,
    path: 'version',
    message: 'expected a string or a number, got an object',
    column: 23,
  },
  {
    name: 'score overflows to Infinity',
    bytes: '{"turns":[{"recommendations":[{"item_id":"a","score":1e400}]}]}',
    line: 1,
    path: 'turns[0].recommendations[0].score',
    message: 'got number Infinity',
    column: 54,
  },
  {
    name: 'wrong type after a several-MB string',
    bytes: `{"turns":[{"user_utterance":"${BIG}"}],"task_id":5}`,
    line: 1,
    path: 'task_id',
    message: 'task_id: expected a string, got number 5',
    column: BIG.length + 44,
  },
  {
    name: 'hostile key in the error path',
    bytes: '{"turns":[],"ratings":{"<b onmouseover=alert(1)>":{}}}',
    line: 1,
    path: 'ratings["<b onmouseover=alert(1)>"]',
    message: 'got an object',
  },
  {
    name: 'duplicate key: the last one counts',
    bytes: '{"turns":[],"turns":5}',
    line: 1,
    path: 'turns',
    message: 'got number 5',
    column: 21,
  },
  // --- encodings and framing ---------------------------------------------------------------------
  {
    name: 'invalid UTF-8 in a valid line is a warning',
    bytes: Buffer.concat([Buffer.from('{"turns":[{"user_utterance":"caf'), Buffer.from([0xe9]), Buffer.from('"}]}')]),
    line: 2,
    valid: true,
    warning: 'invalid UTF-8 byte 0xE9 at byte 33',
  },
  {
    name: 'invalid UTF-8 and a schema error',
    bytes: Buffer.concat([
      Buffer.from('{"turns":[{"user_utterance":"'),
      Buffer.from([0xff]),
      Buffer.from('", "assistant_utterance":1}]}'),
    ]),
    line: 1,
    path: 'turns[0].assistant_utterance',
    message: 'got number 1',
    warning: 'invalid UTF-8 byte 0xFF',
  },
  {
    name: 'BOM at file start: columns count after it',
    bytes: '{"turns":5}',
    line: 1,
    bom: true,
    path: 'turns',
    message: 'got number 5',
    column: 10,
  },
  {
    name: 'CRLF file: the CR is not content',
    bytes: '{"turns":[1]}',
    line: 2,
    eol: '\r\n',
    path: 'turns[0]',
    message: 'expected an object, got number 1',
    column: 11,
  },
  {
    name: 'CRLF file: syntax error at the end of the line',
    bytes: '{"turns":[]',
    line: 2,
    eol: '\r\n',
    path: '',
    message: 'the object is not closed',
    column: 12,
  },
  {
    name: 'BOM in the middle of a file',
    bytes: '\ufeff{"turns":[]}',
    line: 3,
    valid: true,
    warning: 'byte order mark',
  },
  // --- hostile but valid: just data ----------------------------------------------------------------
  {
    name: 'script tags are data',
    bytes: JSON.stringify({
      turns: [{ user_utterance: '<script>alert(1)</script>', assistant_utterance: '<img src=x onerror=alert(1)>' }],
    }),
    line: 1,
    valid: true,
  },
  {
    name: '__proto__ key is data',
    bytes: '{"turns":[],"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}',
    line: 1,
    valid: true,
  },
  {
    name: 'lone surrogate escape is data',
    bytes: '{"turns":[{"user_utterance":"\\ud800 \\u0000 \\u202e"}]}',
    line: 1,
    valid: true,
  },
  { name: 'several-MB valid line', bytes: JSON.stringify({ turns: [{ user_utterance: BIG }] }), line: 2, valid: true },
];

async function runCase(c: Case, dir: string, k: number) {
  const eol = c.eol ?? '\n';
  const before = Array.from({ length: c.line - 1 }, (_, i) => convLine(`ok${i}`));
  const parts: Buffer[] = [];
  if (c.bom) parts.push(Buffer.from([0xef, 0xbb, 0xbf]));
  for (const l of before) parts.push(Buffer.from(l + eol));
  parts.push(typeof c.bytes === 'string' ? Buffer.from(c.bytes, 'utf8') : c.bytes, Buffer.from(eol));
  parts.push(Buffer.from(convLine('after') + eol));
  const path = writeTemp(dir, `case${k}.jsonl`, Buffer.concat(parts));
  return { path, report: await validateFile(path) };
}

describe('bad-input corpus', () => {
  test('has at least 40 cases', () => assert.ok(CASES.length >= 40, `${CASES.length} cases`));

  const { dir, cleanup } = tempDir('simlens-corpus-');
  after(cleanup);
  CASES.forEach((c, k) => {
    test(c.name, async () => {
      const { path, report } = await runCase(c, dir, k);
      const errors = report.errors.filter((e) => e.severity === 'error');
      const warnings = report.errors.filter((e) => e.severity === 'warning');
      assert.equal(report.lines, c.line + 1);
      for (const e of report.errors) assert.equal(e.line, c.line, `every problem is on line ${c.line}: ${e.message}`);
      if (c.warning)
        assert.ok(
          warnings.some((w) => w.message.includes(c.warning!)),
          `warning "${c.warning}" in ${JSON.stringify(warnings)}`,
        );
      else assert.deepEqual(warnings, []);
      if (c.valid) {
        assert.deepEqual(errors, []);
        assert.equal(report.conversations, c.line + 1);
        // Hostile content is returned as plain data, and nothing leaked onto prototypes.
        const file = await JsonlFile.open(path);
        try {
          const parsed = await file.parseLine(c.line - 1);
          assert.equal(parsed.kind, 'valid');
          assert.equal(({} as Record<string, unknown>).polluted, undefined);
          if (c.name.startsWith('__proto__') && parsed.kind === 'valid') {
            assert.equal(Object.getPrototypeOf(parsed.conversation), Object.prototype);
            assert.equal(JSON.stringify(parsed.conversation), c.bytes, 'the odd keys survive as data');
          }
          if (c.name.startsWith('script')) {
            assert.equal(
              parsed.kind === 'valid' && parsed.conversation.turns[0].user_utterance,
              '<script>alert(1)</script>',
            );
          }
        } finally {
          await file.close();
        }
        return;
      }
      assert.equal(report.invalid, 1);
      assert.equal(report.conversations, c.line);
      const hit = errors.find((e) => e.path === c.path);
      assert.ok(
        hit,
        `an error with path "${c.path}" in ${JSON.stringify(errors.map((e) => [e.path, e.message.slice(0, 200)]))}`,
      );
      if (c.message instanceof RegExp) assert.match(hit.message, c.message);
      else if (c.message)
        assert.ok(hit.message.includes(c.message), `"${hit.message.slice(0, 300)}" should contain "${c.message}"`);
      if (c.column !== undefined) assert.equal(hit.column, c.column, hit.message.slice(0, 200));
      assert.ok(hit.message.length < 400, 'messages stay short even for huge lines');
      // The same line through the random-access path gives the same verdict.
      const bytes = typeof c.bytes === 'string' ? Buffer.from(c.bytes) : c.bytes;
      const direct = parseLineBytes(bytes, c.line - 1);
      assert.equal(direct.kind, 'invalid');
    });
  });

  test('all cases in one file: one problem line per case, counted once', async () => {
    const lines = CASES.filter((c) => !c.bom && !c.eol).map((c) =>
      typeof c.bytes === 'string' ? Buffer.from(c.bytes) : c.bytes,
    );
    const path = writeTemp(dir, 'all.jsonl', Buffer.concat(lines.flatMap((b) => [b, Buffer.from('\n')])));
    const report = await validateFile(path);
    const expectedInvalid = CASES.filter((c) => !c.bom && !c.eol && !c.valid).length;
    assert.equal(report.lines, lines.length);
    assert.equal(report.invalid, expectedInvalid);
    const invalidLines = new Set(report.errors.filter((e) => e.severity === 'error').map((e) => e.line));
    assert.equal(invalidLines.size, expectedInvalid);
  });
});
