import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FakeOpenAI, withFakeOpenAI } from '../../support/fakeOpenAI';
import { simulationScript, promptKind } from '../../support/llmScripts';
import { FAKE_KEY, tmpDir, readTree } from '../../support/llm';
import { judgeCommand } from '../../../src/cli/commands/judge';
import { discriminateCommand } from '../../../src/cli/commands/discriminate';
import { exportSftCommand } from '../../../src/cli/commands/export-sft';
import { COMMANDS } from '../../../src/cli/commands/index';
import { simulateCommand } from '../../../src/cli/commands/simulate';
import type { CliIo } from '../../../src/cli/types';

function io(cwd: string, env: NodeJS.ProcessEnv): CliIo & { out: string; err: string } {
  const o = {
    out: '',
    err: '',
    cwd,
    env,
    stdout: (t: string) => {
      o.out += t;
    },
    stderr: (t: string) => {
      o.err += t;
    },
  };
  return o;
}

function writeData(dir: string): string {
  const file = path.join(dir, 'data.jsonl');
  const convs = [
    {
      id: 'h1',
      task_id: 'footwear_good',
      turns: [
        { user_utterance: 'black boots', assistant_utterance: 'here', ratings: { Satisfied: true } },
        { user_utterance: 'buy 2nd', assistant_utterance: 'done' },
      ],
      ratings: { 'Were you able to find a product?': 'Yes' },
    },
    {
      id: 'h2',
      task_id: 'footwear_bad',
      turns: [{ user_utterance: 'sandals', assistant_utterance: 'fun fact', ratings: { Frustrated: true } }],
    },
    {
      id: 's1',
      task_id: 'footwear_good',
      source: 'llm-prompted',
      turns: [{ user_utterance: 'I am looking for boots.', assistant_utterance: 'ok' }],
    },
  ];
  fs.writeFileSync(file, convs.map((c) => JSON.stringify(c)).join('\n') + '\n');
  return file;
}

describe('CLI: judge, discriminate, export-sft', () => {
  let fake: FakeOpenAI;
  before(async () => {
    fake = await FakeOpenAI.start({ handler: simulationScript() });
  });
  after(async () => {
    await fake.close();
  });

  test('the commands are registered', () => {
    for (const name of ['judge', 'discriminate', 'export-sft'])
      assert.ok(
        COMMANDS.some((c) => c.name === name),
        name,
      );
  });

  test('judge writes judge:<model> annotations, reruns from the cache, validates, and never writes the key', async () => {
    const dir = tmpDir();
    writeData(dir);
    const env = { SIMLENS_API_KEY: FAKE_KEY, SIMLENS_BASE_URL: fake.url };
    fake.requests.length = 0;
    const a = io(dir, env);
    const code = await judgeCommand.run(
      ['data.jsonl', '--out', 'judged.jsonl', '--model', 'judge-x', '--temperature', '0'],
      a,
    );
    assert.equal(code, 0, a.err);
    assert.match(a.out, /judge:judge-x: 3 judged/);
    assert.equal(fake.chatRequests.length, 3);
    assert.equal(fake.chatRequests[0].body!.model, 'judge-x');
    assert.equal(fake.chatRequests[0].headers.authorization, `Bearer ${FAKE_KEY}`);
    const lines = fs
      .readFileSync(path.join(dir, 'judged.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(lines.length, 3);
    assert.equal(lines[0].annotations[0].annotator, 'judge:judge-x');
    assert.equal(lines[0].annotations[0].fields.user_satisfaction, 4);
    // --force on the same input: every answer comes from the cache beside the output.
    const served = fake.served;
    const b = io(dir, env);
    assert.equal(
      await judgeCommand.run(['data.jsonl', '--out', 'judged2.jsonl', '--model', 'judge-x', '--temperature', '0'], b),
      0,
      b.err,
    );
    assert.equal(fake.served, served);
    // Rerunning on the output skips what is judged.
    const c = io(dir, env);
    assert.equal(await judgeCommand.run(['judged.jsonl', '--out', 'judged.jsonl', '--model', 'judge-x'], c), 0);
    assert.match(c.out, /0 judged, 3 already judged/);
    const v = io(dir, env);
    assert.equal(await judgeCommand.run(['judged.jsonl', '--validate', '--json'], v), 0, v.err);
    const report = JSON.parse(v.out);
    assert.equal(report.annotator, 'judge:judge-x');
    assert.equal(report.acceptance.n, 1);
    assert.ok(!readTree(dir).includes('SECRET'), 'the API key was written to disk');
  });

  test('judge: an endpoint that keeps failing gives exit 1, a redacted message, and leaves conversations unjudged', async () => {
    const dir = tmpDir();
    writeData(dir);
    fake.setHandler(() => ({ status: 401, errorMessage: `Incorrect API key provided: ${FAKE_KEY}` }));
    try {
      const a = io(dir, { OPENAI_API_KEY: FAKE_KEY, OPENAI_BASE_URL: fake.url });
      const code = await judgeCommand.run(['data.jsonl', '-o', 'out.jsonl', '--llm-concurrency', '1'], a);
      assert.equal(code, 1);
      assert.match(a.err, /HTTP 401/);
      assert.ok(!a.err.includes('SECRET'), a.err);
      assert.ok(!readTree(dir).includes('SECRET'));
      const lines = fs.readFileSync(path.join(dir, 'out.jsonl'), 'utf8').trim().split('\n');
      assert.equal(lines.length, 3);
      assert.ok(lines.every((l) => !JSON.parse(l).annotations));
    } finally {
      fake.setHandler(simulationScript());
    }
  });

  test('judge: a budget stops the pass early; a rerun continues', async () => {
    const dir = tmpDir();
    writeData(dir);
    const env = { SIMLENS_BASE_URL: fake.url };
    const a = io(dir, env);
    assert.equal(
      await judgeCommand.run(
        ['data.jsonl', '-o', 'out.jsonl', '--budget-requests', '1', '--llm-concurrency', '1', '--no-cache'],
        a,
      ),
      1,
    );
    assert.match(a.err, /stopped early: LLM budget exhausted/);
    const b = io(dir, env);
    assert.equal(await judgeCommand.run(['out.jsonl', '-o', 'out.jsonl', '--no-cache'], b), 0, b.err);
    assert.match(b.out, /2 judged, 1 already judged/);
  });

  test('judge: an invalid prompt override is a clear usage error', async () => {
    const dir = tmpDir();
    writeData(dir);
    fs.mkdirSync(path.join(dir, '.simlens', 'prompts'), { recursive: true });
    fs.writeFileSync(path.join(dir, '.simlens', 'prompts', 'judge.md'), 'Rate {{conversaton}}');
    const a = io(dir, { SIMLENS_BASE_URL: fake.url });
    assert.equal(await judgeCommand.run(['data.jsonl', '-o', 'o.jsonl'], a), 2);
    assert.match(a.err, /judge\.md:1: unknown placeholder \{\{conversaton\}\}/);
  });

  test('discriminate stores p_human and summarises accuracy against the source', async () => {
    const dir = tmpDir();
    writeData(dir);
    fake.enqueue(
      { content: '{"label": "human", "p_human": 0.9}' },
      { content: '{"label": "human", "p_human": 0.6}' },
      { content: '{"label": "simulation", "p_human": 0.1}' },
    );
    const a = io(dir, { SIMLENS_BASE_URL: fake.url });
    assert.equal(
      await discriminateCommand.run(
        ['data.jsonl', '-o', 'd.jsonl', '--model', 'disc', '--llm-concurrency', '1', '--json'],
        a,
      ),
      0,
      a.err,
    );
    const s = JSON.parse(a.out);
    assert.equal(s.annotator, 'discriminator:disc');
    assert.equal(s.accuracy, 1);
    assert.ok(Math.abs(s.mean_p_human - (0.9 + 0.6 + 0.1) / 3) < 1e-9);
  });

  test('export-sft writes one example per human user turn (+ stop example) with the condition filter', async () => {
    const dir = tmpDir();
    writeData(dir);
    const a = io(dir, {});
    assert.equal(await exportSftCommand.run(['data.jsonl', '--out', 'sft.jsonl', '--condition', 'good'], a), 0, a.err);
    const rows = fs
      .readFileSync(path.join(dir, 'sft.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(rows.length, 3); // h1: 2 turns + stop; s1 is simulated; h2 is bad
    assert.equal(rows[1].messages.at(-1).content, 'Response: buy 2nd\nTerminate: False');
    const b = io(dir, {});
    assert.equal(await exportSftCommand.run(['data.jsonl', '--out', 'none.jsonl', '--condition', 'ugly'], b), 1);
    await assert.rejects(
      exportSftCommand.run(['data.jsonl', '--out', 'x.jsonl', '--format', 'xml'], b),
      /--format must be chat or prompt/,
    );
  });
});

describe('CLI: simulate with LLM users and agents', () => {
  test('llm-prompted vs llm-good; a budget stop, then --resume finishes from the cache; no key on disk', async () => {
    await withFakeOpenAI({ handler: simulationScript({ userTurns: 2 }) }, async (fake) => {
      const dir = tmpDir();
      const env = { SIMLENS_API_KEY: FAKE_KEY, SIMLENS_BASE_URL: fake.url };
      const args = [
        '--user',
        'llm-prompted',
        '--agent',
        'llm-good',
        '--n',
        '4',
        '--catalog-size',
        '100',
        '--seed',
        '3',
        '--out',
        'run.jsonl',
        '-q',
        '--user-model',
        'u-model',
      ];
      const a = io(dir, env);
      assert.equal(await simulateCommand.run([...args, '--budget-requests', '6'], a), 1);
      assert.match(a.err, /cancelled: the LLM budget is spent \(LLM budget exhausted.*\n.*--resume/);
      const kept = fs.readFileSync(path.join(dir, 'run.jsonl'), 'utf8').trim().split('\n').filter(Boolean).length;
      assert.equal(kept, 1);
      const b = io(dir, env);
      assert.equal(
        await simulateCommand.run([...args, '--resume', '--llm-concurrency', '2', '--concurrency', '2'], b),
        0,
        b.err,
      );
      assert.match(b.out, /finished: 4\/4 conversations .*\(1 from before\)/);
      const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'run.jsonl.manifest.json'), 'utf8'));
      assert.equal(manifest.config.user, 'llm-prompted');
      assert.equal(manifest.config.llm.settings.roles.user.model, 'u-model');
      assert.equal(manifest.prompt_template_version, 'simlens-prompts-1');
      for (const r of fake.chatRequests)
        assert.equal(r.body!.model, promptKind(r) === 'agent' ? 'gpt-4o-mini' : 'u-model');
      assert.ok(fake.chatRequests.some((r) => promptKind(r) === 'agent'));
      assert.ok(!readTree(dir).includes('SECRET'));
    });
  });
});
