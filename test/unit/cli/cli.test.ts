/**
 * The CLI, both in-process (main() with a fake CliIo) and as a real process (the esbuild bundle,
 * built here into a temp folder with the same settings as scripts/build.mjs, run with spawnSync).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { runCli } from '../../support/cli';
import { tempDir } from '../jsonl/helpers';

const REPO = resolve(__dirname, '../../..');
const DATASETS = resolve(REPO, 'test/fixtures/datasets');

const run = (args: string[], cwd: string) => runCli(args, cwd);

const conv = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id,
    task_id: 'footwear_good',
    turns: [
      {
        user_utterance: 'red boots please',
        assistant_utterance: 'Here are three pairs',
        recommendations: [{ item_id: 'B1' }, { item_id: 'B2' }],
      },
    ],
    ...extra,
  });

let dir = '';
let cleanup = () => undefined as void;
before(() => {
  ({ dir, cleanup } = tempDir('simlens-cli-'));
  writeFileSync(
    join(dir, 'good.jsonl'),
    `${conv('a')}\n${conv('b', { task_id: 'tops_bad' })}\n\n${conv('c', { condition: 'good', task_id: undefined, source: 'sim-agenda' })}\n`,
  );
  writeFileSync(join(dir, 'bad.jsonl'), `${conv('a')}\n{"turns":[{"user_utterance":5}]}\n{"turns":[]\n`);
});
after(() => cleanup());

describe('simlens (in-process)', () => {
  test('--help lists the commands; --version prints the package version', async () => {
    const h = await run(['--help'], dir);
    assert.equal(h.code, 0);
    for (const name of ['validate', 'convert', 'stats']) assert.match(h.out, new RegExp(`^  ${name} `, 'm'));
    const v = await run(['--version'], dir);
    assert.equal(v.out.trim(), JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version);
  });

  test('unknown command: exit 2 with a hint', async () => {
    const r = await run(['valdate', 'x'], dir);
    assert.equal(r.code, 2);
    assert.match(r.err, /unknown command 'valdate'\. Did you mean 'validate'\?/);
  });

  test("<cmd> --help prints that command's help, exit 0", async () => {
    for (const name of ['validate', 'convert', 'stats']) {
      const r = await run([name, '--help'], dir);
      assert.equal(r.code, 0);
      assert.match(r.out, new RegExp(`^Usage: simlens ${name} `));
      assert.match(r.out, /Exit codes:/);
    }
  });

  test('usage errors print the message and where to find help, exit 2', async () => {
    const r = await run(['validate'], dir);
    assert.equal(r.code, 2);
    assert.equal(r.err, "simlens validate: missing FILE\nRun 'simlens validate --help' for its options.\n");
    const r2 = await run(['stats', 'a', 'b'], dir);
    assert.equal(r2.code, 2);
    assert.match(r2.err, /too many arguments/);
  });

  test('simulate: --meta with a user it cannot wrap is refused, naming the option and the user as given', async () => {
    for (const user of ['llm-target-free', 'exec:python3 my_sim.py']) {
      const r = await run(['simulate', '--user', user, '--meta', 'tol', '--n', '2', '--out', 'meta.jsonl'], dir);
      assert.equal(r.code, 2, r.err);
      assert.equal(
        r.err.split('\n')[0],
        `simlens simulate: --meta: a meta-simulator wraps the built-in agenda and target-free users only, not ${user}`,
      );
      assert.equal(existsSync(join(dir, 'meta.jsonl')), false);
    }
    const r = await run(['simulate', '--max-turns', '0', '--n', '2', '--out', 'meta.jsonl'], dir);
    assert.match(r.err, /^simlens simulate: --max-turns: /);
  });

  test('validate: valid file exits 0 with a summary on stderr', async () => {
    const r = await run(['validate', 'good.jsonl'], dir);
    assert.equal(r.code, 0);
    assert.equal(r.out, '');
    assert.match(r.err, /^good\.jsonl: OK: 4 lines, 3 valid conversations, 1 blank, 0 invalid lines\n$/);
  });

  test('validate: invalid lines give file:line:column: message and exit 1', async () => {
    const r = await run(['validate', 'bad.jsonl'], dir);
    assert.equal(r.code, 1);
    assert.deepEqual(r.out.trim().split('\n'), [
      'bad.jsonl:2:29: turns[0].user_utterance: expected a string, got number 5',
      "bad.jsonl:3:12: invalid JSON: unexpected end of the line: expected ',' or '}' (the object is not closed)",
    ]);
    assert.match(r.err, /INVALID: 3 lines, 1 valid conversation, 2 invalid lines, 2 errors/);
  });

  test('validate --max-errors limits printed problems but not the counts', async () => {
    const r = await run(['validate', 'bad.jsonl', '--max-errors', '1'], dir);
    assert.equal(r.code, 1);
    assert.deepEqual(r.out.trim().split('\n'), [
      'bad.jsonl:2:29: turns[0].user_utterance: expected a string, got number 5',
      'bad.jsonl: … 1 more problem not shown (--max-errors)',
    ]);
    assert.match(r.err, /2 errors/);
  });

  test('validate --json has the documented shape', async () => {
    const r = await run(['validate', '--json', 'bad.jsonl'], dir);
    assert.equal(r.code, 1);
    const j = JSON.parse(r.out);
    assert.equal(j.file, 'bad.jsonl');
    assert.equal(j.lines, 3);
    assert.equal(j.conversations, 1);
    assert.deepEqual(j.errors[0], {
      line: 2,
      column: 29,
      path: 'turns[0].user_utterance',
      message: 'turns[0].user_utterance: expected a string, got number 5',
    });
    assert.deepEqual(Object.keys(j.errors[1]), ['line', 'column', 'path', 'message']);
  });

  test('validate: missing file or a directory is exit 2 naming the file', async () => {
    const r = await run(['validate', 'missing.jsonl'], dir);
    assert.equal(r.code, 2);
    assert.match(r.err, /cannot read missing\.jsonl: no such file or directory/);
    const d = await run(['validate', '.'], dir);
    assert.equal(d.code, 2);
    assert.match(d.err, /cannot read \.: is a directory/);
  });

  test('stats: counts conversations, turns, words, items, per task/condition/source', async () => {
    const r = await run(['stats', '--json', 'good.jsonl'], dir);
    assert.equal(r.code, 0);
    const s = JSON.parse(r.out);
    assert.equal(s.conversations, 3);
    assert.equal(s.lines, 4);
    assert.equal(s.blank_lines, 1);
    assert.equal(s.invalid_lines, 0);
    assert.equal(s.turns, 3);
    assert.equal(s.user_words, 9);
    assert.equal(s.assistant_words, 12);
    assert.equal(s.items_shown, 6);
    assert.deepEqual(s.by_task, { footwear: 1, tops: 1, '(none)': 1 });
    assert.deepEqual(s.by_condition, { good: 2, bad: 1 });
    assert.deepEqual(s.by_source, { human: 2, 'sim-agenda': 1 });
    const text = await run(['stats', 'bad.jsonl'], dir);
    assert.equal(text.code, 0);
    assert.match(text.out, /lines +3 \(0 blank, 2 invalid\)/);
    assert.match(text.err, /2 invalid lines skipped/);
  });

  test('convert: a ConvApparel document becomes valid canonical JSONL', async () => {
    const doc = {
      metadata: { name: 'tiny' },
      conversations: [JSON.parse(conv('x')), { turns: [{ user_utterance: 'hi' }], task_id: 'tops_bad', version: 1 }],
    };
    writeFileSync(join(dir, 'doc.json'), JSON.stringify(doc));
    const r = await run(['convert', 'doc.json', '-o', 'doc.jsonl'], dir);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /format convapparel, 2 conversations written to doc\.jsonl/);
    const lines = readFileSync(join(dir, 'doc.jsonl'), 'utf8').trimEnd().split('\n');
    assert.equal(lines.length, 2);
    assert.equal(JSON.parse(lines[1]).task_id, 'tops_bad');
    const v = await run(['validate', 'doc.jsonl'], dir);
    assert.equal(v.code, 0, v.out);
  });

  test('convert: usage, unknown format, unreadable input, garbage input', async () => {
    assert.equal((await run(['convert', 'doc.json'], dir)).code, 2);
    const f = await run(['convert', 'doc.json', '--from', 'excel', '-o', 'x.jsonl'], dir);
    assert.equal(f.code, 2);
    assert.match(f.err, /unknown format "excel" for --from; known formats: canonical/);
    const m = await run(['convert', 'nope.json', '-o', 'x.jsonl'], dir);
    assert.equal(m.code, 2);
    assert.match(m.err, /cannot read nope\.json: no such file or directory/);
    writeFileSync(join(dir, 'garbage.txt'), 'hello world\nthis is not data\n');
    const g = await run(['convert', 'garbage.txt', '-o', 'g.jsonl'], dir);
    assert.equal(g.code, 1);
    assert.match(g.err, /garbage\.txt/);
    assert.equal(existsSync(join(dir, 'g.jsonl')), false, 'nothing written on failure');
  });

  test('convert: the real UserSimCRS MovieBot file (8 dialogues)', async () => {
    const src = join(DATASETS, 'usersimcrs-moviebot/annotated_dialogues.json');
    const r = await run(['convert', src, '-o', 'moviebot.jsonl'], dir);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /format dialoguekit, 8 conversations/);
    const s = JSON.parse((await run(['stats', '--json', 'moviebot.jsonl'], dir)).out);
    assert.equal(s.conversations, 8);
    assert.equal((await run(['validate', 'moviebot.jsonl'], dir)).code, 0);
  });
});

describe('simlens (bundled, real process)', () => {
  let cli = '';
  before(async () => {
    cli = join(dir, 'cli.js');
    await build({
      entryPoints: [join(REPO, 'src/cli/cli.ts')],
      outfile: cli,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      logLevel: 'silent',
      external: ['vscode'],
    });
  });
  const node = (args: string[]) =>
    spawnSync(process.execPath, [cli, ...args], { cwd: dir, encoding: 'utf8', timeout: 30_000 });

  test('--version and unknown command exit codes', () => {
    const v = node(['--version']);
    assert.equal(v.status, 0);
    assert.match(v.stdout, /^\d+\.\d+\.\d+\n$/);
    assert.equal(node(['frobnicate']).status, 2);
  });

  test('validate exit codes 0 / 1 / 2 and JSON output', () => {
    assert.equal(node(['validate', 'good.jsonl']).status, 0);
    const bad = node(['validate', 'bad.jsonl', '--json']);
    assert.equal(bad.status, 1);
    assert.equal(JSON.parse(bad.stdout).errors.length, 2);
    const missing = node(['validate', 'nope.jsonl']);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /nope\.jsonl/);
  });

  test('stats --json and convert to stdout', () => {
    const s = node(['stats', 'good.jsonl', '--json']);
    assert.equal(s.status, 0);
    assert.equal(JSON.parse(s.stdout).turns, 3);
    const c = node(['convert', 'good.jsonl', '-o', '-']);
    assert.equal(c.status, 0, c.stderr);
    assert.equal(c.stdout.trimEnd().split('\n').length, 3);
    assert.match(c.stderr, /3 conversations/);
  });
});
