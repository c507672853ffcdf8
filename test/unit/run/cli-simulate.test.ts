import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../support/cli';
import type { CliIo } from '../../../src/cli/types';
import { parseForkSpec } from '../../../src/cli/commands/simulate';
import { scratchDir } from '../../support/scratch';

const dir = scratchDir('simlens-cli-sim-');

const run = (...argv: string[]) => runCli(argv, dir);

const small = ['--catalog-size', '300', '--quiet'];

describe('simlens simulate / merge / catalog', () => {
  test('simulate writes JSONL and a manifest; a second run with --shard parts merges to the same bytes', async () => {
    const a = await run('simulate', '--n', '12', '--seed', '5', '--out', 'a.sim.jsonl', ...small);
    assert.equal(a.code, 0, a.err);
    assert.match(a.out, /finished: 12\/12 conversations/);
    assert.ok(existsSync(path.join(dir, 'a.sim.jsonl.manifest.json')));
    for (const i of [0, 1]) {
      const r = await run(
        'simulate',
        '--n',
        '12',
        '--seed',
        '5',
        '--shard',
        `${i}/2`,
        '--out',
        `p${i}.jsonl`,
        ...small,
      );
      assert.equal(r.code, 0, r.err);
    }
    const m = await run('merge', 'm.jsonl', 'p1.jsonl', 'p0.jsonl');
    assert.equal(m.code, 0, m.err);
    assert.ok(readFileSync(path.join(dir, 'm.jsonl')).equals(readFileSync(path.join(dir, 'a.sim.jsonl'))));
    const incomplete = await run('merge', 'half.jsonl', 'p0.jsonl');
    assert.equal(incomplete.code, 1);
    assert.match(incomplete.err, /missing 6 conversation indices/);
  });

  test('usage errors exit 2 with a clear message', async () => {
    const cases: [string[], RegExp][] = [
      [['simulate', '--out', 'x.jsonl'], /--n is required/],
      [['simulate', '--n', '3'], /--out is required/],
      [
        ['simulate', '--n', '3', '--out', 'x.jsonl', '--interaction', 'cir7'],
        /--interaction must be one of cir6, qrfa/,
      ],
      [['simulate', '--n', '3', '--out', 'x.jsonl', '--shard', '3/3'], /--shard: shard index must be below/],
      [['simulate', '--n', '3', '--out', 'x.jsonl', '--p-switch', '2'], /p-switch/],
      [
        ['simulate', '--n', '3', '--out', 'x.jsonl', '--max-consecutive-failures', '1.5'],
        /--max-consecutive-failures must be a whole number >= 0/,
      ],
      [['simulate', '--n', '3', '--out', 'a.sim.jsonl', ...small], /already exists; use --resume/],
      [['simulate', '--fork', 'nofile:x:1', '--n', '2', '--out', 'f.jsonl'], /no file found/],
      [['catalog', 'generate'], /needs --out/],
      [['merge'], /missing OUT/],
      [['merge', 'only.jsonl'], /no part files given and none found beside/],
    ];
    for (const [argv, message] of cases) {
      const r = await run(...argv);
      assert.equal(r.code, 2, `${argv.join(' ')}: ${r.err}`);
      assert.match(r.err, message, argv.join(' '));
    }
  });

  test('--resume continues and --fork writes continuations with a manifest', async () => {
    const resumed = await run('simulate', '--n', '14', '--seed', '5', '--out', 'a.sim.jsonl', '--resume', ...small);
    assert.equal(resumed.code, 2, 'another n is another configuration');
    assert.match(resumed.err, /another configuration/);
    const same = await run('simulate', '--n', '12', '--seed', '5', '--out', 'a.sim.jsonl', '--resume', ...small);
    assert.equal(same.code, 0, same.err);
    assert.match(same.out, /12\/12 conversations in a.sim.jsonl \(12 from before\)/);
    const first = JSON.parse(readFileSync(path.join(dir, 'a.sim.jsonl'), 'utf8').split('\n')[0]);
    const f = await run(
      'simulate',
      '--fork',
      `a.sim.jsonl:${first.id}:0`,
      '--n',
      '2',
      '--out',
      'forks.sim.jsonl',
      '--quiet',
    );
    assert.equal(f.code, 0, f.err);
    assert.match(f.out, /2 continuations .* \(state by replay\)/);
    const forks = readFileSync(path.join(dir, 'forks.sim.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(forks.length, 2);
    assert.deepEqual(forks[0].metadata.forked_from, { file: 'a.sim.jsonl', id: first.id, turn: 0 });
    const manifest = JSON.parse(readFileSync(path.join(dir, 'forks.sim.jsonl.manifest.json'), 'utf8'));
    assert.equal(manifest.fork.id, first.id);
  });

  test('fork specs with colons in the id and the path', () => {
    writeFileSync(path.join(dir, 'with:colon.jsonl'), '');
    const io: CliIo = { stdout: () => {}, stderr: () => {}, cwd: dir, env: {} };
    assert.deepEqual(parseForkSpec('with:colon.jsonl:line:7:3', io), {
      file: 'with:colon.jsonl',
      id: 'line:7',
      turn: 3,
    });
    assert.throws(() => parseForkSpec('with:colon.jsonl:id:x', io), /TURN must be a turn number/);
  });

  test('catalog generate is deterministic; save-model writes counts', async () => {
    for (const name of ['c1.jsonl', 'c2.jsonl']) {
      const r = await run('catalog', 'generate', '--out', name, '--size', '50', '--seed', '3');
      assert.equal(r.code, 0, r.err);
    }
    assert.ok(readFileSync(path.join(dir, 'c1.jsonl')).equals(readFileSync(path.join(dir, 'c2.jsonl'))));
    const info = await run('catalog', 'info', 'c1.jsonl');
    assert.match(info.out, /50 items/);
    const corpus = path.join(dir, 'corpus.jsonl');
    writeFileSync(
      corpus,
      JSON.stringify({
        id: 'c',
        turns: [
          {
            user_utterance: 'hi',
            assistant_utterance: 'What colour?',
            annotations: [
              { speaker: 'user', annotator: 'source', acts: ['inform_preference'] },
              { speaker: 'assistant', annotator: 'source', acts: ['elicit_preference'] },
            ],
          },
          {
            user_utterance: 'red',
            annotations: [{ speaker: 'user', annotator: 'source', acts: ['accept_recommendation'] }],
          },
        ],
      }) + '\n',
    );
    const s = await run('simulate', '--corpus', 'corpus.jsonl', '--save-model', 'model.json');
    assert.equal(s.code, 0, s.err);
    const model = JSON.parse(readFileSync(path.join(dir, 'model.json'), 'utf8'));
    assert.equal(model.format, 'simlens-transitions/1');
    assert.deepEqual(model.cir6, { Start: { Disclose: 1 }, Disclose: { Note: 1 }, Note: { Stop: 1 } });
    assert.deepEqual(model.agent_user, { 'Inquire.Elicit': { 'Note.Accept': 1 } });
    const withModel = await run(
      'simulate',
      '--transitions',
      'model.json',
      '--n',
      '3',
      '--out',
      'm.sim.jsonl',
      ...small,
    );
    assert.equal(withModel.code, 0, withModel.err);
  });
});
