/**
 * `simlens judge` / `simlens discriminate` passes against the loopback server: budget stops keep
 * every answer already received, the consecutive-failure policy, error messages, and LLM config
 * files that try to carry an API key.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { withFakeOpenAI } from '../../support/fakeOpenAI';
import { simulationScript } from '../../support/llmScripts';
import { FAKE_KEY, tmpDir } from '../../support/llm';
import { judgeCommand } from '../../../src/cli/commands/judge';
import { discriminateCommand } from '../../../src/cli/commands/discriminate';
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

/** `n` small conversations c1..cn in data.jsonl. */
function writeData(dir: string, n: number): void {
  const rows = Array.from({ length: n }, (_, i) => ({
    id: `c${i + 1}`,
    task_id: 'footwear_good',
    source: 'llm-prompted',
    turns: [{ user_utterance: `black boots number ${i + 1}`, assistant_utterance: 'here are some' }],
  }));
  fs.writeFileSync(path.join(dir, 'data.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
}

function readOut(file: string): Array<{ id: string; annotations?: Array<{ annotator: string }> }> {
  return fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

const commands = [
  { name: 'judge', command: judgeCommand },
  { name: 'discriminate', command: discriminateCommand },
] as const;

describe('judge / discriminate: stops and failures', () => {
  for (const { name, command } of commands) {
    test(`${name}: a budget stop keeps every answer already received`, async () => {
      await withFakeOpenAI({ latencyMs: 40, handler: simulationScript() }, async (fake) => {
        const dir = tmpDir();
        writeData(dir, 12);
        const a = io(dir, { SIMLENS_BASE_URL: fake.url, SIMLENS_API_KEY: FAKE_KEY });
        const code = await command.run(
          ['data.jsonl', '-o', 'out.jsonl', '--budget-requests', '9', '--llm-concurrency', '4', '--no-cache', '--json'],
          a,
        );
        assert.equal(code, 1);
        assert.match(a.err, /stopped early: LLM budget exhausted/);
        assert.equal(fake.chatRequests.length, 9);
        const annotated = readOut(path.join(dir, 'out.jsonl')).filter((c) => c.annotations?.length);
        assert.equal(annotated.length, 9, a.err);
        const summary = JSON.parse(a.out);
        assert.equal(summary.failed, 0);
        assert.match(summary.stopped, /budget exhausted/);
      });
    });

    test(`${name}: stops after --max-consecutive-failures failures in a row (default 10), counts them per reason`, async () => {
      await withFakeOpenAI({ handler: () => ({ status: 500 }) }, async (fake) => {
        const dir = tmpDir();
        writeData(dir, 40);
        const env = { SIMLENS_BASE_URL: fake.url, SIMLENS_API_KEY: FAKE_KEY };
        const a = io(dir, env);
        const args = [
          'data.jsonl',
          '-o',
          'out.jsonl',
          '--llm-max-retries',
          '0',
          '--llm-concurrency',
          '1',
          '--no-cache',
        ];
        assert.equal(await command.run([...args, '--json'], a), 1);
        assert.equal(fake.chatRequests.length, 10);
        const summary = JSON.parse(a.out);
        assert.match(summary.stopped, /10 consecutive failures/);
        assert.equal(summary.failed, 10);
        assert.deepEqual(summary.failures.by_reason, {
          [name === 'discriminate' ? 'discriminator_llm' : 'judge_llm']: 10,
        });
        assert.equal(readOut(path.join(dir, 'out.jsonl')).length, 40);

        fake.requests.length = 0;
        const b = io(dir, env);
        assert.equal(await command.run([...args, '--max-consecutive-failures', '3'], b), 1);
        assert.equal(fake.chatRequests.length, 3);
        assert.match(
          b.out,
          new RegExp(`3 failed \\(${name === 'discriminate' ? 'discriminator_llm' : 'judge_llm'} 3\\)`),
        );
        assert.match(b.out, /^usage: 3 requests, 0 tokens, 0 cache hits$/m);
        assert.match(b.err, /stopped early: stopped after 3 consecutive failures/);

        fake.requests.length = 0;
        const c = io(dir, env);
        assert.equal(await command.run([...args, '--max-consecutive-failures', '0', '--json'], c), 1);
        assert.equal(fake.chatRequests.length, 40);
        assert.equal(JSON.parse(c.out).stopped, null);

        await assert.rejects(
          command.run([...args, '--max-consecutive-failures', '-1'], io(dir, env)),
          /--max-consecutive-failures must be a whole number >= 0/,
        );
      });
    });
  }

  test('judge: an answer that stays invalid is reported once per conversation, without a doubled prefix', async () => {
    await withFakeOpenAI({ handler: () => ({ content: 'not json at all' }) }, async (fake) => {
      const dir = tmpDir();
      writeData(dir, 1);
      const a = io(dir, { SIMLENS_BASE_URL: fake.url });
      assert.equal(await judgeCommand.run(['data.jsonl', '-o', 'out.jsonl', '--no-cache'], a), 1);
      assert.match(a.err, /data\.jsonl: conversation c1: judge answer invalid after 3 attempts/);
      assert.doesNotMatch(a.err, /conversation c1: conversation c1/);
    });
  });
});

describe('--llm-config files and API keys', () => {
  for (const [field, config] of [
    ['defaults.apiKey', { defaults: { apiKey: FAKE_KEY } }],
    ['roles.judge.api_key', { roles: { judge: { model: 'm', api_key: FAKE_KEY } } }],
  ] as const) {
    test(`a key in ${field} is refused, naming the file and the field, never echoing the key`, async () => {
      const dir = tmpDir();
      writeData(dir, 1);
      fs.writeFileSync(path.join(dir, 'llm.json'), JSON.stringify(config));
      const a = io(dir, { SIMLENS_BASE_URL: 'http://127.0.0.1:9/v1' });
      await assert.rejects(
        judgeCommand.run(['data.jsonl', '-o', 'out.jsonl', '--llm-config', 'llm.json'], a),
        (e: Error) => {
          assert.match(e.message, new RegExp(`llm\\.json: field "${field.replace(/\./g, '\\.')}"`));
          assert.match(e.message, /SIMLENS_API_KEY/);
          assert.ok(!e.message.includes('SECRET'), e.message);
          return true;
        },
      );
      assert.ok(!fs.existsSync(path.join(dir, 'out.jsonl')));
    });
  }
});
