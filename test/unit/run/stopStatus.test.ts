/**
 * How a run that did not go to plan ends (reviewer's D9, D10): the failure policy makes a run
 * `stopped` only when it cut the run short (all planned conversations written = `finished`, the
 * failures counted); an LLM endpoint that fails after its retries makes it `stopped` with a
 * `stop_reason` naming the cause (a spent budget: `cancelled`, also with a `stop_reason`); and
 * `report` prints the reason the run recorded and exits 1, as `simulate` does.
 */
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Agent, AgentSession } from '../../../src/core/sim/types';
import {
  parseSimulationConfig,
  prepareEnvironment,
  runSimulation,
  runStopOf,
  type SimulationEnvironment,
} from '../../../src/core/run/index';
import { LlmError } from '../../../src/core/llm/errors';
import { withFakeOpenAI } from '../../support/fakeOpenAI';
import { promptKind, simulationScript } from '../../support/llmScripts';
import { testServices } from '../../support/llm';
import { runCli } from '../../support/cli';
import { scratchDir } from '../../support/scratch';
import { writeHumanFile } from '../report/fixtures';

const dir = scratchDir('simlens-stop-status-');
const file = (name: string) => path.join(dir, name);
const manifestOf = (name: string) => JSON.parse(readFileSync(`${file(name)}.manifest.json`, 'utf8'));
const lineCount = (name: string) => readFileSync(file(name), 'utf8').split('\n').filter(Boolean).length;
const KEY = { SIMLENS_API_KEY: 'sk-test-0123456789' };
const CONFIG = { seed: 9, catalog_size: 300, agent: 'local-good' } as const;

let env: SimulationEnvironment;
before(async () => {
  env = await prepareEnvironment(parseSimulationConfig({ ...CONFIG, n: 1 }));
});

/** A recommender that always answers HTTP 503. */
const down: Agent = {
  name: 'local-down',
  condition: 'good',
  createSession(): AgentSession {
    return {
      respond: async () => ({ utterance: '', recommendations: [], error: 'HTTP 503', error_kind: 'agent_http' }),
    };
  },
};

describe('the failure policy', () => {
  test('tripping on the last planned conversation: finished, failures counted, no stop_reason', async () => {
    const { manifest } = await runSimulation(
      { ...CONFIG, n: 4 },
      {
        out: file('all-failed.jsonl'),
        environment: { ...env, agent: down },
        maxConsecutiveFailures: 4,
        concurrency: 2,
      },
    );
    assert.equal(manifest.status, 'finished');
    assert.deepEqual([manifest.counts.planned, manifest.counts.finished, manifest.counts.failed], [4, 4, 4]);
    assert.equal((manifest as Record<string, unknown>).stop_reason, undefined);
  });

  test('cutting the run short: stopped, with the reason', async () => {
    const { manifest } = await runSimulation(
      { ...CONFIG, n: 9 },
      { out: file('cut.jsonl'), environment: { ...env, agent: down }, maxConsecutiveFailures: 4 },
    );
    assert.equal(manifest.status, 'stopped');
    assert.deepEqual([manifest.counts.finished, manifest.counts.failed], [4, 4]);
    assert.equal(lineCount('cut.jsonl'), 4);
    assert.match(
      String((manifest as Record<string, unknown>).stop_reason),
      /^stopped after 4 consecutive failures \(last: agent_http: HTTP 503\)$/,
    );
  });
});

describe('an LLM endpoint that stops the run', () => {
  test('recommender always HTTP 500: status stopped, stop_reason names the cause; simulate prints it and exits 1', async () => {
    await withFakeOpenAI(
      { handler: (req) => (promptKind(req) === 'agent' ? { status: 500 } : simulationScript()(req)) },
      async (fake) => {
        const services = testServices(fake.url, { defaults: { maxRetries: 1 } });
        await assert.rejects(
          runSimulation({ ...CONFIG, agent: 'llm-good', n: 5 }, { out: file('agent500.jsonl'), llm: services }),
          (e: unknown) => e instanceof LlmError && e.kind === 'http',
        );
        const m = manifestOf('agent500.jsonl');
        assert.equal(m.status, 'stopped');
        assert.match(m.stop_reason, /^stopped: the LLM endpoint failed \(.*HTTP 500/);
        assert.match(m.error, /HTTP 500/, 'the bare error stays for older readers');

        const r = await runCli(
          [
            'simulate',
            '--agent',
            'llm-good',
            '--base-url',
            fake.url,
            '--model',
            'fake-chat',
            '--llm-max-retries',
            '0',
            '--no-cache',
            '--n',
            '5',
            '--seed',
            '2',
            '--catalog-size',
            '300',
            '--quiet',
            '--out',
            'agent500-cli.jsonl',
          ],
          dir,
          KEY,
        );
        assert.equal(r.code, 1, r.err);
        const cm = manifestOf('agent500-cli.jsonl');
        assert.equal(cm.status, 'stopped');
        assert.ok(r.err.includes(`simlens simulate: ${cm.stop_reason}\n`), r.err);
      },
    );
  });

  test('a spent budget: cancelled, with a stop_reason', async () => {
    await withFakeOpenAI({ handler: simulationScript({ userTurns: 2 }) }, async (fake) => {
      await assert.rejects(
        runSimulation(
          { ...CONFIG, user: 'llm-prompted', n: 5 },
          { out: file('budget.jsonl'), llm: testServices(fake.url, { budget: { maxRequests: 3 } }) },
        ),
        /budget exhausted/,
      );
      const m = manifestOf('budget.jsonl');
      assert.equal(m.status, 'cancelled');
      assert.match(m.stop_reason, /^cancelled: the LLM budget is spent \(.*budget exhausted/);
    });
  });

  test('runStopOf: the status and reason for each kind of LLM stop', () => {
    assert.deepEqual(runStopOf(new LlmError('HTTP 502', 'http')), {
      status: 'stopped',
      reason: 'stopped: the LLM endpoint failed (HTTP 502)',
    });
    assert.equal(runStopOf(new LlmError('timed out', 'timeout')).status, 'stopped');
    assert.equal(runStopOf(new LlmError('no', 'budget')).status, 'cancelled');
    assert.equal(runStopOf(new LlmError('LLM call cancelled', 'aborted')).status, 'cancelled');
  });
});

describe('report when a simulation stops or fails entirely', () => {
  const userEmpty = () => (req: Parameters<ReturnType<typeof simulationScript>>[0]) =>
    promptKind(req) === 'user' ? { content: '' } : simulationScript()(req);

  test(
    'every user reply empty, all 10 planned finished: manifest finished (10 failed); report prints why and exits 1',
    { timeout: 120_000 },
    async () => {
      writeHumanFile(dir, 30);
      await withFakeOpenAI({ record: false, handler: userEmpty() }, async (fake) => {
        const r = await runCli(
          [
            'report',
            '--human',
            'human.jsonl',
            '--simulator',
            'llm-prompted',
            '--agents',
            'local-good',
            '--n',
            '10',
            '--seed',
            '3',
            '--base-url',
            fake.url,
            '--model',
            'fake-chat',
            '--no-cache',
            '--out',
            'rep10',
            '-q',
          ],
          dir,
          KEY,
        );
        assert.equal(r.code, 1, r.err);
        const m = JSON.parse(
          readFileSync(path.join(dir, 'rep10/populations/local-good.sim.jsonl.manifest.json'), 'utf8'),
        );
        assert.equal(m.status, 'finished');
        assert.deepEqual([m.counts.finished, m.counts.failed, m.counts.by_reason], [10, 10, { user_llm: 10 }]);
        assert.match(
          r.err,
          /^simlens report: every simulated conversation against local-good failed \(user_llm 10; first: user simulator output unusable.*; see .*local-good\.sim\.jsonl\)\n$/,
        );
      });
    },
  );

  test(
    "the failure policy cuts the simulation short: report prints the manifest's stop_reason and exits 1",
    { timeout: 120_000 },
    async () => {
      writeHumanFile(dir, 30);
      await withFakeOpenAI({ record: false, handler: userEmpty() }, async (fake) => {
        const r = await runCli(
          [
            'report',
            '--human',
            'human.jsonl',
            '--simulator',
            'llm-prompted',
            '--agents',
            'local-good',
            '--n',
            '25',
            '--seed',
            '3',
            '--concurrency',
            '1',
            '--base-url',
            fake.url,
            '--model',
            'fake-chat',
            '--no-cache',
            '--out',
            'rep25',
            '-q',
          ],
          dir,
          KEY,
        );
        assert.equal(r.code, 1, r.err);
        const m = JSON.parse(
          readFileSync(path.join(dir, 'rep25/populations/local-good.sim.jsonl.manifest.json'), 'utf8'),
        );
        assert.equal(m.status, 'stopped');
        assert.equal(m.counts.finished, 10);
        assert.match(m.stop_reason, /^stopped after 10 consecutive failures \(last: user_llm: /);
        assert.ok(r.err.startsWith(`simlens report: simulation against local-good ${m.stop_reason} (see `), r.err);
      });
    },
  );

  test('the LLM recommender is down: report says the endpoint failed and exits 1', { timeout: 120_000 }, async () => {
    writeHumanFile(dir, 30);
    await withFakeOpenAI(
      { record: false, handler: (req) => (promptKind(req) === 'agent' ? { status: 500 } : simulationScript()(req)) },
      async (fake) => {
        const r = await runCli(
          [
            'report',
            '--human',
            'human.jsonl',
            '--simulator',
            'agenda',
            '--agents',
            'llm-good',
            '--n',
            '10',
            '--seed',
            '3',
            '--base-url',
            fake.url,
            '--model',
            'fake-chat',
            '--llm-max-retries',
            '0',
            '--no-cache',
            '--out',
            'rep500',
            '-q',
          ],
          dir,
          KEY,
        );
        assert.equal(r.code, 1, r.err);
        const m = JSON.parse(
          readFileSync(path.join(dir, 'rep500/populations/llm-good.sim.jsonl.manifest.json'), 'utf8'),
        );
        assert.equal(m.status, 'stopped');
        assert.ok(r.err.startsWith(`simlens report: simulation against llm-good ${m.stop_reason} (see `), r.err);
      },
    );
  });
});
