import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { formatFlags, parseArgs } from '../../../src/cli/args';
import { UsageError } from '../../../src/cli/types';

const SPEC = {
  json: { type: 'boolean', description: 'print JSON' },
  output: { type: 'string', short: 'o', valueName: 'FILE', description: 'where to write' },
  seed: { type: 'number' },
  tag: { type: 'string', multiple: true },
} as const;

describe('parseArgs', () => {
  test('defaults', () => {
    const { flags, positionals } = parseArgs([], SPEC);
    assert.deepEqual(flags, { json: false, output: undefined, seed: undefined, tag: [] });
    assert.deepEqual(positionals, []);
  });

  test('all value forms, booleans, repeats and positionals in any order', () => {
    const { flags, positionals } = parseArgs(
      ['in.json', '--json', '-o', 'out.jsonl', '--seed=7', '--tag', 'a', '--tag=b', 'more'],
      SPEC,
    );
    assert.deepEqual(flags, { json: true, output: 'out.jsonl', seed: 7, tag: ['a', 'b'] });
    assert.deepEqual(positionals, ['in.json', 'more']);
    assert.equal(parseArgs(['-o=x'], SPEC).flags.output, 'x');
    assert.equal(parseArgs(['--json=false'], SPEC).flags.json, false);
    assert.equal(parseArgs(['--json', '--no-json'], SPEC).flags.json, false);
    assert.equal(parseArgs(['--seed', '-3'], SPEC).flags.seed, -3);
    assert.equal(parseArgs(['--output', '--weird-name.jsonl'], SPEC).flags.output, '--weird-name.jsonl');
  });

  test('"--" ends options and "-" is a positional', () => {
    const { flags, positionals } = parseArgs(['-', '--', '--json', '-o'], SPEC);
    assert.equal(flags.json, false);
    assert.deepEqual(positionals, ['-', '--json', '-o']);
  });

  test('usage errors say what is wrong', () => {
    assert.throws(
      () => parseArgs(['--nope'], SPEC),
      (e: Error) =>
        e instanceof UsageError && /unknown option --nope \(options: --json, --output, --seed, --tag\)/.test(e.message),
    );
    assert.throws(() => parseArgs(['-x'], SPEC), /unknown option -x/);
    assert.throws(() => parseArgs(['--output'], SPEC), /--output needs a value/);
    assert.throws(() => parseArgs(['--seed', 'abc'], SPEC), /--seed expects a number, got "abc"/);
    assert.throws(() => parseArgs(['--json=maybe'], SPEC), /--json is a switch/);
    assert.throws(() => parseArgs([], SPEC, { positionals: { min: 1, names: 'FILE' } }), /missing FILE/);
    assert.throws(
      () => parseArgs(['a', 'b'], SPEC, { positionals: { max: 1, names: 'FILE' } }),
      /too many arguments: "b" \(expected FILE\)/,
    );
    assert.throws(() => parseArgs(['--x'], {}), /this command takes no options/);
  });

  test('formatFlags lines up a help table', () => {
    const text = formatFlags(SPEC);
    assert.match(text, /^ {2} {4}--json {9}print JSON$/m);
    assert.match(text, /^ {2}-o, --output FILE {2}where to write$/m);
    assert.match(text, /--tag VALUE +\(repeatable\)/);
  });
});
