import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { looksLikeWrappedDocument, pythonLiteralToJson, removeTrailingCommas } from '../../../src/core/lsp/repair';

describe('removeTrailingCommas', () => {
  test('drops commas before } and ] outside strings only', () => {
    const fixed = removeTrailingCommas('{"turns": [{"user_utterance": "a, ]",},], "x": [1,2,],}');
    assert.equal(fixed, '{"turns": [{"user_utterance": "a, ]"}], "x": [1,2]}');
    assert.deepEqual(JSON.parse(fixed!), { turns: [{ user_utterance: 'a, ]' }], x: [1, 2] });
  });
  test('keeps escaped quotes inside strings', () => {
    assert.equal(removeTrailingCommas('{"a": "say \\",}\\"",}'), '{"a": "say \\",}\\""}');
  });
  test('returns undefined when nothing to fix or still broken', () => {
    assert.equal(removeTrailingCommas('{"a": 1}'), undefined);
    assert.equal(removeTrailingCommas('{"a": 1,,}'), undefined);
  });
});

describe('pythonLiteralToJson', () => {
  test('converts a ConvApparel-style repr line', () => {
    const py =
      "{'turns': [{'user_utterance': 'Hoodie', 'assistant_utterance': \"It's warm\", 'ratings': {'Delighted': True, 'Annoyed': False, 'x': None}}], 'task_id': 'footwear_good',}";
    const json = pythonLiteralToJson(py);
    assert.ok(json);
    assert.deepEqual(JSON.parse(json!), {
      turns: [
        {
          user_utterance: 'Hoodie',
          assistant_utterance: "It's warm",
          ratings: { Delighted: true, Annoyed: false, x: null },
        },
      ],
      task_id: 'footwear_good',
    });
  });
  test('handles escapes and leaves True inside strings alone', () => {
    const json = pythonLiteralToJson("{'a': 'it\\'s True\\n', 'b': '\\x41\\u00e9'}");
    assert.deepEqual(JSON.parse(json!), { a: "it's True\n", b: 'Aé' });
  });
  test('rejects text that is not a literal', () => {
    assert.equal(pythonLiteralToJson('{"a": 1}'), undefined);
    assert.equal(pythonLiteralToJson("{'a': 'unterminated}"), undefined);
    assert.equal(pythonLiteralToJson("{'a': foo}"), undefined);
  });
});

describe('looksLikeWrappedDocument', () => {
  test('detects pretty-printed documents', () => {
    assert.equal(looksLikeWrappedDocument(['{', '  "conversations": [']), true);
    assert.equal(looksLikeWrappedDocument(['[', '  {']), true);
    assert.equal(looksLikeWrappedDocument(['{"metadata": {},', '  "conversations": [']), true);
  });
  test('does not flag JSONL, even with a broken first line', () => {
    assert.equal(looksLikeWrappedDocument(['{"turns": []}', '{"turns": []}']), false);
    assert.equal(looksLikeWrappedDocument(['{"turns": [}', '{"turns": []}']), false);
    assert.equal(looksLikeWrappedDocument(['', '']), false);
  });
});
