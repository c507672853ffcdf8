import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { zodErrorMessage } from '../../../src/core/jsonl/zodIssues';
import { parseReport } from '../../../src/core/report/model';
import { LexicalClassifier } from '../../../src/core/text/classifier';
import { parseInlineSimulator, resolveSimulator } from '../../../src/core/report/simulator';

describe('one zod-issue formatter', () => {
  test('path in JSON style, what was expected and what was found', () => {
    const S = z.object({
      turns: z.array(z.object({ n: z.number().int().min(1) })),
      kind: z.enum(['a', 'b']),
      x: z.union([z.string(), z.number()]),
    });
    const msg = (v: unknown) => {
      const r = S.safeParse(v);
      assert.equal(r.success, false);
      return zodErrorMessage('f.json', r.error!, v);
    };
    assert.equal(
      msg({ turns: [{ n: 'x' }], kind: 'a', x: 1 }),
      'f.json: turns[0].n: expected a number, got string "x"',
    );
    assert.equal(msg({ turns: [], kind: 'c', x: 1 }), 'f.json: kind: expected one of "a", "b", got string "c"');
    assert.equal(msg({ turns: [], kind: 'a' }), 'f.json: x: required field is missing (expected a string or a number)');
    assert.equal(msg(5), 'f.json: (root): expected an object, got number 5');
  });

  test('reports, saved classifiers and simulator specs name the value found', () => {
    // These used zod's own text ("Invalid input: expected number, received string") without the value.
    const r = {
      schema: 'simlens-report/1',
      kind: 'plsa',
      title: 't',
      generated: 'g',
      inputs: [{ label: 'a', file: 'a.jsonl', n: 'ten' }],
      sections: [],
    };
    assert.throws(() => parseReport(r, 'report.json'), {
      message: 'report.json: inputs[0].n: expected a number, got string "ten"',
    });
    assert.throws(
      () =>
        LexicalClassifier.fromJSON({
          kind: 'simlens-lexical-nb',
          version: 1,
          alpha: -1,
          labels: ['a'],
          doc_counts: [1],
          counts: {},
        }),
      {
        message: 'LexicalClassifier.fromJSON: invalid model: alpha: must be > 0, got number -1',
      },
    );
    assert.throws(() => resolveSimulator('agenda:patience=-1', '.'), /: patience: must be > 0, got number -1$/);
    assert.ok(parseInlineSimulator('agenda'));
  });
});
