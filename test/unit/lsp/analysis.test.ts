import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LineDocument } from '../../../src/core/lsp/lineDocument';
import { DocumentAnalysis, parsePathString, CODES } from '../../../src/core/lsp/analysis';
import { escapeMarkdown } from '../../../src/core/text/escape';
import { lineId } from '../../../src/core/lsp/workspaceIds';

const conv = (id: string, extra = ''): string =>
  `{"id":"${id}","task_id":"footwear_good","turns":[{"user_utterance":"I need boots","assistant_utterance":"Which size?"${extra}},{"user_utterance":"size 9","assistant_utterance":"Here you go","recommendations":[{"item_id":"B1","title":"Boot"}]}]}`;

function analysed(text: string): { doc: LineDocument; a: DocumentAnalysis } {
  const doc = new LineDocument('file:///tmp/x.conv.jsonl', 1, text);
  return { doc, a: new DocumentAnalysis(doc) };
}

describe('LineDocument', () => {
  test('applies incremental edits within and across lines', () => {
    const doc = new LineDocument('u', 1, 'abc\ndef\r\nghi');
    assert.equal(doc.lineCount, 3);
    let e = doc.apply({ range: { start: { line: 1, character: 1 }, end: { line: 1, character: 2 } }, text: 'X' });
    assert.deepEqual(e, { first: 1, removed: 1, inserted: 1 });
    assert.equal(doc.line(1), 'dXf');
    e = doc.apply({ range: { start: { line: 0, character: 3 }, end: { line: 2, character: 0 } }, text: '\nnew\n' });
    assert.deepEqual(e, { first: 0, removed: 3, inserted: 3 });
    assert.equal(doc.getText(), 'abc\nnew\nghi');
    doc.apply({ range: { start: { line: 9, character: 0 }, end: { line: 9, character: 0 } }, text: '!' });
    assert.equal(doc.line(2), 'ghi!');
    doc.apply({ text: 'whole' });
    assert.equal(doc.getText(), 'whole');
  });
});

describe('DocumentAnalysis diagnostics', () => {
  test('valid conversations give no diagnostics', () => {
    const { a } = analysed([conv('a'), conv('b'), ''].join('\n'));
    assert.deepEqual(a.diagnostics(), []);
    assert.equal(a.looksLikeConversations(), true);
  });

  test('JSON syntax error at the exact column', () => {
    const bad = '{"id":"x","turns":[{"user_utterance":"hi",}]}';
    const { a } = analysed([conv('a'), bad].join('\n'));
    const d = a.diagnostics();
    assert.equal(d.length, 1);
    assert.equal(d[0].range.start.line, 1);
    assert.equal(d[0].range.start.character, bad.indexOf('}'));
    assert.equal(d[0].code, CODES.json);
  });

  test('schema error covers the offending value', () => {
    const bad = '{"id":"x","turns":[{"user_utterance":42}]}';
    const { a } = analysed(bad);
    const [d] = a.diagnostics();
    assert.equal(d.code, CODES.schema);
    assert.equal(d.range.start.character, bad.indexOf('42'));
    assert.equal(d.range.end.character, bad.indexOf('42') + 2);
    assert.match(d.message, /turns\[0\]\.user_utterance/);
  });

  test('only edited lines are validated again', () => {
    const lines = Array.from({ length: 200 }, (_, i) => conv(`c${i}`));
    const { doc, a } = analysed(lines.join('\n'));
    a.diagnostics();
    assert.equal(a.lastRevalidated, 200);
    a.diagnostics();
    assert.equal(a.lastRevalidated, 0);
    const edit = doc.apply({
      range: { start: { line: 50, character: 7 }, end: { line: 50, character: 10 } },
      text: 'zzz',
    });
    a.update(edit);
    a.diagnostics();
    assert.equal(a.lastRevalidated, 1);
    // Inserting a new line shifts the cache without revalidating the rest.
    const ins = doc.apply({
      range: { start: { line: 10, character: 0 }, end: { line: 10, character: 0 } },
      text: '{"turns": 5}\n',
    });
    a.update(ins);
    const d = a.diagnostics();
    assert.equal(a.lastRevalidated, 2); // the new line and the line it split (now identical text, but uncached)
    assert.equal(d.length, 1);
    assert.equal(d[0].range.start.line, 10);
  });

  test('wrapped documents get one diagnostic with a convert quick fix', () => {
    const { a } = analysed('{\n  "conversations": [\n    {"turns": []}\n  ]\n}');
    const d = a.diagnostics();
    assert.equal(d.length, 1);
    assert.equal(d[0].code, CODES.wrapped);
    const fixes = a.quickFixes(0, d);
    assert.equal(fixes[0].command?.command, 'simlens.convertFile');
  });
});

describe('DocumentAnalysis features', () => {
  test('outline lists conversations and turns', () => {
    const { a } = analysed([conv('alpha'), '{"turns":[]}'].join('\n'));
    const s = a.symbols();
    assert.equal(s.length, 2);
    assert.equal(s[0].name, 'alpha');
    assert.equal(s[0].children?.length, 2);
    assert.equal(s[0].children?.[1].detail, 'size 9');
    assert.equal(s[1].name, 'line:2');
  });

  test('hover summarises the turn under the cursor and escapes markdown', () => {
    const text = conv('a<img src=x onerror=alert(1)>');
    const { a } = analysed(text);
    const h = a.hover({ line: 0, character: text.indexOf('size 9') });
    assert.ok(h);
    assert.match(h!.contents, /turn 2 of 2/);
    assert.match(h!.contents, /Shown:\*\* 1 items/);
    assert.doesNotMatch(h!.contents, /(^|[^\\])<img/, 'raw HTML must be escaped');
    assert.match(h!.contents, /&lt;img/, 'shown literally: the one Markdown escape turns < into an entity');
    assert.equal(a.hover({ line: 0, character: 2 }), undefined);
  });

  test('code lenses per conversation', () => {
    const { a } = analysed([conv('a'), 'oops', conv('b')].join('\n'));
    const lenses = a.codeLenses();
    assert.equal(lenses.length, 4);
    assert.deepEqual(lenses[2].command.arguments, [{ file: '/tmp/x.conv.jsonl', line: 2 }]);
    assert.equal(lenses[2].command.command, 'simlens.goToConversation');
    assert.deepEqual(lenses[3].command.arguments, [{ file: '/tmp/x.conv.jsonl', line: 2, turn: 1 }]);
  });

  test('quick fixes for trailing commas and python dicts', () => {
    const { a } = analysed(["{'turns': [{'user_utterance': 'hi', 'x': True}],}", '{"turns": [],}'].join('\n'));
    const d = a.diagnostics();
    const pyFix = a.quickFixes(
      0,
      d.filter((x) => x.range.start.line === 0),
    );
    assert.equal(pyFix.length, 1);
    assert.deepEqual(JSON.parse(pyFix[0].edit!.newText), { turns: [{ user_utterance: 'hi', x: true }] });
    const commaFix = a.quickFixes(
      1,
      d.filter((x) => x.range.start.line === 1),
    );
    assert.equal(commaFix[0].title, 'Remove trailing commas');
    assert.equal(commaFix[0].edit!.newText, '{"turns": []}');
  });
});

describe('helpers', () => {
  test('parsePathString round-trips formatted paths', () => {
    assert.deepEqual(parsePathString('turns[2].user_utterance'), ['turns', 2, 'user_utterance']);
    assert.deepEqual(parsePathString('ratings["Was it \\"easy\\"?"].x'), ['ratings', 'Was it "easy"?', 'x']);
    assert.deepEqual(parsePathString(''), []);
  });
  test('lineId reads only the top-level id', () => {
    assert.equal(lineId('{"turns":[{"trace":{"llm_calls":[{"id":"inner"}]}}],"id":"outer"}'), 'outer');
    assert.equal(lineId('{"conversation_id": 474, "turns": []}'), '474');
    assert.equal(lineId('{"turns": []}'), undefined);
  });
  test('escapeMarkdown neutralises links and HTML', () => {
    // The hover's case (one line): no link, no HTML, no autolink, no emphasis.
    assert.equal(escapeMarkdown('[x](javascript:alert(1)) <b>', true), '\\[x\\](javascript:alert(1)) &lt;b&gt;');
    assert.equal(
      escapeMarkdown('see https://x.io or www.x.io, *bold* & `code`\n# no heading', true),
      'see https\\://x.io or www\\.x.io, \\*bold\\* &amp; \\`code\\` # no heading',
    );
  });
});
