/**
 * Figures the documentation quotes stay what the tool says (issue 25 item 4). Figures a shell example
 * prints are checked by examples.test.ts through ```text output blocks; this file tests how those
 * blocks are read and compared (without running a CLI), and checks the figures that are not an
 * example's output but can be counted from the source: the number of behavioural invariants the
 * pages name, mutation operators and the tagger's built-in examples, the movie catalog built from the
 * IARD gold file, and the byte count of the protocol's framing example.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { INVARIANTS } from '../../../src/core/check';
import { MUTATION_OPERATORS } from '../../../src/core/check/mutate';
import { buildMovieCatalogFromFiles } from '../../../src/core/importers/movieCatalog';
import { TAGGER_SEED } from '../../../src/core/metrics/taggerSeed';
import { missingOutput, normaliseOutput, shellBlocks } from './blocks';

const REPO = resolve(__dirname, '../../..');
const read = (path: string) => readFileSync(join(REPO, path), 'utf8');

describe('output blocks', () => {
  const doc = [
    'Run it:',
    '',
    '```bash',
    'simlens diff a b',
    '```',
    '',
    'It prints:',
    '',
    '```text output',
    'Acceptance: 15 → 20 of 200 pairs',
    '```',
    '',
    '```console',
    'simlens shown-not-run',
    '```',
  ].join('\n');

  test('a text output block belongs to the shell block before it; other blocks are neither', () => {
    const blocks = shellBlocks(doc);
    assert.equal(blocks.length, 1);
    assert.equal(blocks[0].line, 3);
    assert.deepEqual(blocks[0].expected, [{ line: 9, lines: ['Acceptance: 15 → 20 of 200 pairs'] }]);
  });

  test('an output block after a block that is not run, or before any shell block, is an error', () => {
    assert.throws(() => shellBlocks('```text output\nx\n```\n'), /line 1: a "text output" block/);
    assert.throws(() => shellBlocks('```bash\ntrue\n```\n```console\nx\n```\n```text output\nx\n```\n'), /line 7/);
    // A plain text block is prose, not an expectation.
    assert.deepEqual(shellBlocks('```bash\ntrue\n```\n```text\nx\n```\n')[0].expected, []);
  });

  const output = [
    '# Run diff: p2.sim.jsonl → p4.sim.jsonl',
    '',
    '| outcome changed | 16 | 8.0% |',
    'Acceptance: 15 → 20 of 200 pairs with a known outcome (7.5% → 10.0%); McNemar exact p = 0.180.',
    'finished: 200/200 conversations in /tmp/simlens-docs-x1/repo/p2.sim.jsonl, 0 failed, 38.6/s',
    'Time: 9.7 s (simulation 7.5 s, HLS 1.5 s)',
    'generated 2026-11-28T12:21:46.498Z',
  ].join('\n');
  const check = (expected: string[]) => missingOutput(output, expected, '/tmp/simlens-docs-x1/repo');

  test('the lines of a run must be consecutive in the output', () => {
    assert.equal(check(['# Run diff: p2.sim.jsonl → p4.sim.jsonl', '', '| outcome changed | 16 | 8.0% |']), undefined);
    assert.match(
      check(['# Run diff: p2.sim.jsonl → p4.sim.jsonl', '| outcome changed | 16 | 8.0% |'])!,
      /outcome changed/,
    );
  });

  test('a figure changed by hand fails, and the message names the line', () => {
    const changed = 'Acceptance: 15 → 20 of 200 pairs with a known outcome (43.5% → 54.5%); McNemar exact p = 0.180.';
    assert.equal(check([changed]), `not in the output: ${JSON.stringify(changed)}`);
    assert.notEqual(check(['| outcome changed | 49 | 24.5% |']), undefined);
  });

  test('… alone skips lines, … in a line stands for any text; runs keep their order', () => {
    assert.equal(check(['# Run diff: …', '…', 'Acceptance: 15 → 20 of 200 pairs…']), undefined);
    assert.notEqual(check(['Acceptance: 15 → 20 of 200 pairs…', '…', '# Run diff: …']), undefined);
    // Without the wildcard a line must match whole.
    assert.notEqual(check(['Acceptance: 15 → 20 of 200 pairs']), undefined);
  });

  test('rates, times, time stamps and the working folder are normalised on both sides', () => {
    assert.equal(check(['finished: 200/200 conversations in p2.sim.jsonl, 0 failed, 12.0/s']), undefined);
    assert.equal(check(['Time: 3.1 s (simulation 2.1 s, HLS 0.5 s)']), undefined);
    assert.equal(check(['generated 2025-01-01T00:00:00Z']), undefined);
    // Counts next to them are not.
    assert.notEqual(check(['finished: 199/200 conversations in p2.sim.jsonl, 0 failed, 38.6/s']), undefined);
    assert.equal(normaliseOutput('took 120 ms, 4 turns'), 'took <n> ms, 4 turns');
  });
});

function markdownFiles(): string[] {
  const out = ['README.md', 'marketplace/README.md'];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(REPO, dir)).sort()) {
      const p = join(dir, name);
      if (statSync(join(REPO, p)).isDirectory()) walk(p);
      else if (name.endsWith('.md')) out.push(p);
    }
  };
  if (existsSync(join(REPO, 'docs'))) walk('docs');
  return out;
}

describe('figures in the pages', () => {
  test('every text output block of the docs follows a shell block', () => {
    for (const file of markdownFiles()) assert.doesNotThrow(() => shellBlocks(read(file)), relative(REPO, file));
  });

  test('the pages name as many behavioural invariants as simlens check has', () => {
    const n = INVARIANTS.length;
    const claims: [string, RegExp][] = [
      ['README.md', /\*\*Trust the run\*\*: (\d+) named behavioural invariants/],
      ['marketplace/README.md', /\*\*Check\*\* (\d+) behavioural invariants/],
      ['docs/invariants.md', /runs the large sample \([^)]*\)\. (\d+) invariants\./],
    ];
    for (const [file, re] of claims) {
      const m = re.exec(read(file));
      assert.ok(m, `${file}: the sentence with the invariant count is gone (update this test)`);
      assert.equal(Number(m[1]), n, `${file} says ${m[1]} invariants, simlens check has ${n}`);
    }
  });

  test('invariants.md names as many mutation operators, metrics.md as many tagger examples, as the source has', () => {
    const ops = /holds (\d+) mutation operators/.exec(read('docs/invariants.md'));
    assert.ok(ops, 'docs/invariants.md: the mutation operator count is gone');
    assert.equal(Number(ops[1]), MUTATION_OPERATORS.length);
    const seed = /on (\d+) built-in example utterances/.exec(read('docs/metrics.md'));
    assert.ok(seed, 'docs/metrics.md: the tagger example count is gone');
    assert.equal(Number(seed[1]), TAGGER_SEED.length);
  });

  test("formats.md's counts for the movie catalog of the IARD gold file are what catalog build makes", async () => {
    const file = 'test/fixtures/datasets/usersimcrs-iard-gold/formatted_IARD_annotated_gold.json';
    const m =
      /On the IARD gold file in `test\/fixtures\/datasets`: (\d+) movies,\s+(\d+) with a year, from (\d+) mentions in (\d+) dialogues/.exec(
        read('docs/formats.md'),
      );
    assert.ok(m, 'docs/formats.md: the sentence with the catalog counts is gone');
    const { counts } = await buildMovieCatalogFromFiles('iard', [{ path: join(REPO, file), label: file }]);
    assert.deepEqual(m.slice(1).map(Number), [counts.items, counts.withYear, counts.mentions, counts.dialogues]);
  });

  test("protocol.md's framing example gives the body's length in bytes", () => {
    const text = read('docs/protocol.md');
    const frames = [...text.matchAll(/^Content-Length: (\d+)\\r\\n\n\\r\\n\n(.*)$/gm)];
    assert.ok(frames.length > 0, 'no framing example found');
    for (const [, length, body] of frames) assert.equal(Number(length), Buffer.byteLength(body, 'utf8'), body);
  });
});
