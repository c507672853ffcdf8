// CLI messages that teach: inputs that are not conversation JSONL get one line saying what they
// are and what to run instead, never thousands of "invalid JSON" lines or raw bytes.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join, resolve } from 'node:path';
import { main } from '../../../src/cli/cli';
import type { CliIo } from '../../../src/cli/types';
import { tempDir } from '../jsonl/helpers';

const MOVIEBOT = resolve(__dirname, '../../fixtures/datasets/usersimcrs-moviebot/annotated_dialogues.json');

async function run(args: string[], cwd: string) {
  const io = {
    out: '',
    err: '',
    cwd,
    env: {},
    stdout: (t: string) => void (io.out += t),
    stderr: (t: string) => void (io.err += t),
  } as CliIo & { out: string; err: string };
  const code = await main(args, io);
  return { code, out: io.out, err: io.err };
}

describe('commands that read conversation JSONL recognise other inputs', () => {
  let dir = '';
  let cleanup = () => undefined as void;
  const conv = JSON.stringify({ id: 'a', turns: [{ user_utterance: 'hi', assistant_utterance: 'hello' }] });
  before(() => {
    ({ dir, cleanup } = tempDir('simlens-teach-'));
    copyFileSync(MOVIEBOT, join(dir, 'moviebot.json'));
    writeFileSync(
      join(dir, 'catalog.jsonl'),
      Array.from({ length: 50 }, (_, i) =>
        JSON.stringify({ item_id: `I${i}`, title: `Item ${i}`, category: 'tops' }),
      ).join('\n') + '\n',
    );
    writeFileSync(join(dir, 'runs.jsonl.gz'), gzipSync(Buffer.from(conv + '\n')));
    writeFileSync(join(dir, 'blob.bin'), Buffer.from([0x01, 0x02, 0x00, 0x41, 0x2c, 0x42, 0x2c, 0x43, 0x0a]));
    writeFileSync(join(dir, 'empty.json'), '[]');
    writeFileSync(join(dir, 'empty.jsonl'), '');
    writeFileSync(join(dir, 'broken.jsonl'), 'not json\n{"turns": 5}\n');
  });
  after(() => cleanup());

  test('validate on a DialogueKit document suggests convert in one line', async () => {
    const r = await run(['validate', 'moviebot.json'], dir);
    assert.equal(r.code, 1);
    assert.equal(r.out, '');
    assert.equal(r.err.trimEnd().split('\n').length, 1);
    assert.match(
      r.err,
      /dialoguekit JSON document, not SimLens conversation JSONL: convert it first with: simlens convert moviebot\.json -o moviebot\.jsonl/,
    );
  });

  test('validate --json says it too, as valid JSON', async () => {
    const r = await run(['validate', 'moviebot.json', '--json'], dir);
    assert.equal(r.code, 1);
    assert.match(JSON.parse(r.out).not_conversation_jsonl, /simlens convert/);
  });

  test('stats on a DialogueKit document exits 1 and suggests convert', async () => {
    const r = await run(['stats', 'moviebot.json'], dir);
    assert.equal(r.code, 1);
    assert.match(r.err, /simlens convert moviebot\.json/);
  });

  test('a catalog is named as a catalog', async () => {
    for (const cmd of ['validate', 'stats']) {
      const r = await run([cmd, 'catalog.jsonl'], dir);
      assert.equal(r.code, 1, cmd);
      assert.match(r.err, /is an item catalog .*simlens simulate --catalog catalog\.jsonl/, cmd);
      assert.ok(r.err.length < 300, `${cmd} printed ${r.err.length} characters`);
    }
  });

  test('gzip and binary inputs are named, never echoed as CSV columns', async () => {
    for (const cmd of [
      ['validate', 'runs.jsonl.gz'],
      ['stats', 'runs.jsonl.gz'],
      ['convert', 'runs.jsonl.gz', '-o', 'x.jsonl'],
    ]) {
      const r = await run(cmd, dir);
      assert.equal(r.code, 1, cmd.join(' '));
      assert.match(r.err, /gzip file, not text: decompress it first/, cmd.join(' '));
      assert.doesNotMatch(r.err, /CSV/);
    }
    const b = await run(['convert', 'blob.bin', '-o', 'y.jsonl'], dir);
    assert.equal(b.code, 1);
    assert.match(b.err, /binary file/);
    assert.doesNotMatch(b.err, /CSV with columns/);
  });

  test('stats with no valid conversation exits 1', async () => {
    const broken = await run(['stats', 'broken.jsonl'], dir);
    assert.equal(broken.code, 1);
    assert.match(broken.err, /no valid conversation \(2 invalid lines/);
    const empty = await run(['stats', 'empty.jsonl'], dir);
    assert.equal(empty.code, 1);
    assert.match(empty.err, /the file is empty/);
  });

  test('convert of an empty document warns', async () => {
    const r = await run(['convert', 'empty.json', '-o', 'empty-out.jsonl'], dir);
    assert.equal(r.code, 0);
    assert.match(r.err, /warning: empty\.json: no conversations found/);
  });

  test('real JSONL with a broken line is still validated line by line', async () => {
    const r = await run(['validate', 'broken.jsonl'], dir);
    assert.equal(r.code, 1);
    assert.match(r.out, /broken\.jsonl:1:\d+: invalid JSON/);
    assert.match(r.out, /broken\.jsonl:2:/);
  });
});
