import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  decodeLine,
  findJsonSyntaxError,
  formatJsonPath,
  locateJsonPath,
  parseConversationText,
  type ParsedLine,
} from '../../../src/core/jsonl';
import { createRng } from '../../../src/core/random';

function v8Error(text: string): { position?: number } | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (e) {
    const m = /at position (\d+)/.exec((e as Error).message);
    if (m) return { position: Number(m[1]) };
    if (/end of JSON input/.test((e as Error).message)) return { position: text.length };
    return {};
  }
}

function expectInvalid(p: ParsedLine): Extract<ParsedLine, { kind: 'invalid' }> {
  assert.equal(p.kind, 'invalid', JSON.stringify(p));
  return p as Extract<ParsedLine, { kind: 'invalid' }>;
}

describe('JSON syntax scanner', () => {
  const samples = [
    '{"a":}',
    '{"a":1',
    '{"a":"abc',
    '{"a":"a\u0001b"}',
    'xyz',
    '{"a":1} x',
    '{"a":1,}',
    '[1,]',
    '{a:1}',
    '{"a":01}',
    '{"a":"\\q"}',
    '',
    '{"a" 1}',
    '{"a":1.}',
    '{"a":-}',
    '{"a":tru}',
    '{"a":NaN}',
    "{'a':1}",
    '{"a":"\\u12G4"}',
    '{"a":1e}',
    '{"a":[1 2]}',
    '{"a":{"b":1}',
    '[[[[',
    '{"a":"x"}}',
    '{"a":undefined}',
    '{"a":-0.5e+3,"b":[true,false,null]}',
    ' \t{"a":1}\r',
  ];
  for (const s of samples) {
    test(`agrees with JSON.parse on ${JSON.stringify(s)}`, () => {
      const mine = findJsonSyntaxError(s);
      const v8 = v8Error(s);
      assert.equal(mine === undefined, v8 === undefined, 'valid/invalid must agree');
      if (mine && v8?.position !== undefined) assert.equal(mine.offset, v8.position, mine.message);
    });
  }

  test('random mutations of valid JSON: same verdict as JSON.parse and the same position when V8 gives one', () => {
    const rng = createRng('syntax-fuzz');
    const base = JSON.stringify({
      id: 'c1',
      turns: [
        {
          user_utterance: 'a "quoted" \\ word\n',
          recommendations: [{ item_id: 'B0', score: -1.5e-3 }],
          ratings: { ok: true, n: null },
        },
      ],
    });
    const alphabet = [
      '{',
      '}',
      '[',
      ']',
      '"',
      ':',
      ',',
      '\\',
      ' ',
      'a',
      '1',
      '-',
      '.',
      'e',
      't',
      'n',
      '\u0000',
      "'",
      'u',
    ];
    let disagreements = 0;
    for (let round = 0; round < 3000; round++) {
      let s = base;
      const edits = 1 + rng.int(3);
      for (let k = 0; k < edits; k++) {
        const at = rng.int(s.length + 1);
        const op = rng.int(3);
        if (op === 0) s = s.slice(0, at) + rng.pick(alphabet) + s.slice(at);
        else if (op === 1) s = s.slice(0, at) + s.slice(at + 1);
        else s = s.slice(0, at) + rng.pick(alphabet) + s.slice(at + 1);
      }
      const mine = findJsonSyntaxError(s);
      const v8 = v8Error(s);
      if ((mine === undefined) !== (v8 === undefined)) disagreements++;
      else if (mine && v8?.position !== undefined && mine.offset !== v8.position) disagreements++;
    }
    assert.equal(disagreements, 0);
  });

  test('deeply nested junk does not overflow the stack', () => {
    const deep = '['.repeat(200_000);
    const e = findJsonSyntaxError(deep);
    assert.ok(e);
    assert.equal(e.offset, deep.length);
    const closed = '['.repeat(100_000) + ']'.repeat(100_000);
    assert.equal(findJsonSyntaxError(closed), undefined);
  });
});

describe('locateJsonPath', () => {
  const text =
    '{"id":"x", "turns":[{"user_utterance":5},{"recommendations":[{"item_id":1}, {"item_id":"ok"}]}], "ratings":{"Was it \\"easy\\"?":true}}';
  const at = (path: (string | number)[], key = false) => {
    const span = locateJsonPath(text, path, { key });
    return span && text.slice(span.start, span.end);
  };
  test('finds values by path', () => {
    assert.equal(at(['turns', 0, 'user_utterance']), '5');
    assert.equal(at(['turns', 1, 'recommendations', 1, 'item_id']), '"ok"');
    assert.equal(at(['turns', 1, 'recommendations', 0]), '{"item_id":1}');
    assert.equal(at(['ratings', 'Was it "easy"?']), 'true');
    assert.equal(at([]), text);
    assert.equal(at(['turns', 0, 'user_utterance'], true), '"user_utterance"');
  });
  test('returns undefined for paths that do not exist', () => {
    assert.equal(at(['turns', 2]), undefined);
    assert.equal(at(['turns', 'x']), undefined);
    assert.equal(at(['nope']), undefined);
    assert.equal(at(['id', 0]), undefined);
  });
  test('the last duplicate key wins, as in JSON.parse', () => {
    const t = '{"a":1,"a":22}';
    const span = locateJsonPath(t, ['a']);
    assert.equal(span && t.slice(span.start, span.end), '22');
  });
  test('strings containing brackets, quotes and backslashes are skipped correctly', () => {
    const t = '{"x":"]}\\\\","y":["[\\"",{"z":"}"}],"w":0}';
    const span = locateJsonPath(t, ['w']);
    assert.equal(span && t.slice(span.start, span.end), '0');
    const z = locateJsonPath(t, ['y', 1, 'z']);
    assert.equal(z && t.slice(z.start, z.end), '"}"');
  });
});

describe('parseConversationText', () => {
  test('a ConvApparel conversation (paper appendix E shape) is valid, unchanged, unknown fields kept', () => {
    const conv = {
      turns: [
        {
          user_utterance: 'Hoodie',
          assistant_utterance: '**Are you looking for a hoodie for a specific gender or occasion?*',
          recommendations: [
            {
              item_id: 'B09825F9GP',
              title: "Men's Fashion Hoodie",
              description: "This men's fashion hoodie features a novel, casual, hip hop, and cool design.",
              image_url: 'https://m.media-amazon.com/images/I/51X06-zxhKL._AC_UL1500_.jpg',
              features: 'Casual, Hip Hop, Comfortable, Soft fleece, Deep hood',
            },
          ],
          ratings: {
            Delighted: true,
            'How likely would you be to purchase one of the recommended products in this turn?': 'Extremely likely',
            Annoyed: true,
          },
        },
      ],
      ratings: {
        'Were you able to find a product you would consider purchasing?': 'Yes',
        'How often do you shop online?': 'Rarely',
        'It was hard to use the system': true,
      },
      task_id: 'footwear_good',
      version: '1.0',
      participant_hash: 'abc123',
    };
    const p = parseConversationText(JSON.stringify(conv), 7);
    assert.equal(p.kind, 'valid');
    if (p.kind !== 'valid') return;
    assert.equal(p.line, 7);
    assert.deepEqual(p.conversation, conv);
    assert.equal(JSON.stringify(p.conversation), JSON.stringify(conv));
  });

  test('blank and whitespace-only lines are blank', () => {
    assert.equal(parseConversationText('', 1).kind, 'blank');
    assert.equal(parseConversationText(' \t ', 2).kind, 'blank');
    assert.equal(parseConversationText('\ufeff', 1).kind, 'blank');
  });

  test('schema errors carry path, readable message, column and the parsed value', () => {
    const text = '{"turns":[{"user_utterance":"a"},{"user_utterance":"b"},{"user_utterance":42}]}';
    const p = expectInvalid(parseConversationText(text, 3));
    assert.equal(p.errors.length, 1);
    const e = p.errors[0];
    assert.equal(e.path, 'turns[2].user_utterance');
    assert.equal(e.message, 'turns[2].user_utterance: expected a string, got number 42');
    assert.equal(e.column, text.indexOf('42') + 1);
    assert.equal(e.endColumn, text.indexOf('42') + 3);
    assert.deepEqual(e.segments, ['turns', 2, 'user_utterance']);
    assert.equal(e.line, 3);
    assert.equal(e.severity, 'error');
    assert.deepEqual(p.value, JSON.parse(text));
  });

  test('syntax errors give the exact column in characters, also after non-ASCII text', () => {
    const text = '{"turns":[{"user_utterance":"héllo 😀"} "x"]}';
    const p = expectInvalid(parseConversationText(text, 1));
    assert.equal(p.errors[0].column, text.indexOf(' "x"') + 2);
    assert.match(p.errors[0].message, /^invalid JSON: expected ',' or '\]' after an array element, found '"'/);
    assert.equal(p.value, undefined);
  });

  test('a BOM at the start of the text is skipped but counted in columns', () => {
    const p = expectInvalid(parseConversationText('\ufeff{"turns":5}', 1));
    assert.equal(p.errors[0].column, 11);
    const v = parseConversationText('\ufeff{"turns":[]}', 4);
    assert.equal(v.kind, 'valid');
    if (v.kind === 'valid') assert.match(v.warnings[0].message, /byte order mark/);
  });

  test('errors are capped per line with a count of the rest', () => {
    const turns = Array.from({ length: 50 }, () => ({ user_utterance: 1 }));
    const p = expectInvalid(parseConversationText(JSON.stringify({ turns }), 1));
    assert.equal(p.errors.length, 21);
    assert.match(p.errors[20].message, /and 30 more problems/);
  });

  test('formatJsonPath quotes keys that are not identifiers', () => {
    assert.equal(formatJsonPath(['turns', 2, 'ratings', 'How likely?']), 'turns[2].ratings["How likely?"]');
    assert.equal(formatJsonPath([]), '');
    assert.equal(formatJsonPath([0, 'a']), '[0].a');
  });
});

describe('decodeLine', () => {
  test('valid UTF-8 decodes without warnings', () => {
    const r = decodeLine(Buffer.from('{"a":"café 😀"}'), 1);
    assert.equal(r.text, '{"a":"café 😀"}');
    assert.deepEqual(r.errors, []);
  });
  test('invalid bytes become U+FFFD with a warning naming byte and character columns', () => {
    const bytes = Buffer.concat([Buffer.from('{"a":"é'), Buffer.from([0xff, 0xfe]), Buffer.from('x"}')]);
    const r = decodeLine(bytes, 9);
    assert.equal(r.errors.length, 1);
    const w = r.errors[0];
    assert.equal(w.severity, 'warning');
    assert.equal(w.line, 9);
    assert.equal(w.column, 8); // {"a":"é is 7 characters
    assert.match(w.message, /invalid UTF-8 byte 0xFF at byte 9 of the line/);
    assert.match(w.message, /2 invalid bytes/);
    assert.equal(r.text[7], '\ufffd');
  });
  test('overlong encodings, surrogates and truncated sequences are invalid', () => {
    for (const bad of [[0xc0, 0x80], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80], [0x80]]) {
      const r = decodeLine(Buffer.from([0x61, ...bad]), 1);
      assert.equal(r.errors.length, 1, JSON.stringify(bad));
      assert.match(r.errors[0].message, /at byte 2 /);
    }
  });
});
