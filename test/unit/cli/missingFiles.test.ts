/**
 * One CLI convention for a missing file (issue 26): every command, and every option that names an
 * input file (--corpus, --catalog, --transitions, --icl-pool, ...), exits 2 with one clean line
 * naming the file, never a raw Node error (ENOENT, "open '...'") or a stack.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../support/cli';
import { tempDir } from '../jsonl/helpers';

let dir = '';
let cleanup = (): void => undefined;
before(() => {
  ({ dir, cleanup } = tempDir('simlens-missing-'));
  writeFileSync(
    join(dir, 'good.jsonl'),
    JSON.stringify({ id: 'a', turns: [{ user_utterance: 'hi', assistant_utterance: 'hello' }] }) + '\n',
  );
});
after(() => cleanup());

const CASES: { args: string[]; file: string }[] = [
  { args: ['validate', 'nope.jsonl'], file: 'nope.jsonl' },
  { args: ['stats', 'nope.jsonl'], file: 'nope.jsonl' },
  { args: ['convert', 'nope.jsonl', '-o', 'x.jsonl'], file: 'nope.jsonl' },
  { args: ['check', 'nope.jsonl'], file: 'nope.jsonl' },
  { args: ['agreement', 'nope.jsonl'], file: 'nope.jsonl' },
  { args: ['judge', 'nope.jsonl', '-o', 'j.jsonl'], file: 'nope.jsonl' },
  { args: ['export-sft', 'nope.jsonl', '-o', 'sft.jsonl'], file: 'nope.jsonl' },
  { args: ['metrics', 'zb', '--real', 'nope.jsonl', '--simulated', 'good.jsonl'], file: 'nope.jsonl' },
  { args: ['simulate', '--corpus', 'nope-corpus.json', '--n', '2', '--out', 's1.jsonl'], file: 'nope-corpus.json' },
  {
    args: ['simulate', '--catalog', 'nope-catalog.jsonl', '--n', '2', '--out', 's2.jsonl'],
    file: 'nope-catalog.jsonl',
  },
  { args: ['simulate', '--transitions', 'nope-model.json', '--n', '2', '--out', 's3.jsonl'], file: 'nope-model.json' },
  { args: ['simulate', '--aliases', 'nope-aliases.json', '--n', '2', '--out', 's4.jsonl'], file: 'nope-aliases.json' },
  { args: ['check', 'good.jsonl', '--catalog', 'nope-catalog.jsonl'], file: 'nope-catalog.jsonl' },
];

describe('a missing file: exit 2 and one clean line naming it, in every command', () => {
  for (const c of CASES) {
    test(c.args.join(' '), async () => {
      const r = await runCli(c.args, dir);
      assert.equal(r.code, 2, `exit ${r.code}: ${r.err}`);
      assert.ok(r.err.includes(c.file), r.err);
      assert.match(r.err, /no such file/);
      assert.doesNotMatch(r.err, /ENOENT|open '|\n\s+at /, r.err);
    });
  }
});
