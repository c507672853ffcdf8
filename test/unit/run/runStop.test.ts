/**
 * One stop for every shell (src/core/run/stop.ts): the CLI's first Ctrl-C / SIGTERM and VS Code's
 * Cancel stop scheduling AND retrying at once; the second stage cancels requests in flight. Checked
 * at the seams the shells use, against the loopback fake endpoint: the extension's
 * `prepareRunEnvironment` (services built with the run's signals, as `createLlmServicesFromWorkspace`
 * builds them) and `runSimulation` building its own services from a configuration's `llm` block.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { withFakeOpenAI, type FakeHandler } from '../../support/fakeOpenAI';
import { simulationScript } from '../../support/llmScripts';
import { FAKE_KEY, tmpDir } from '../../support/llm';
import { RunStop, parseSimulationConfig, runSimulation } from '../../../src/core/run/index';
import { prepareRunEnvironment, workspaceLlmServices } from '../../../src/extension/simulationRun';

const until = async (cond: () => boolean, what: string, ms = 15_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    assert.ok(Date.now() < end, `timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

const manifestOf = (out: string) =>
  JSON.parse(fs.readFileSync(`${out}.manifest.json`, 'utf8')) as {
    status: string;
    counts: { finished: number };
    llm?: { usage: { requests: number } };
  };

/**
 * The endpoint answers the first `good` requests as a user model would, then only 503 with
 * Retry-After 30 s: a client that keeps retrying waits 30 s per retry (the test's own timeout is 20 s).
 */
function failingAfter(good: number): { handler: FakeHandler; failed: () => number } {
  const script = simulationScript({ userTurns: 3 });
  let seen = 0;
  let failed = 0;
  return {
    handler: (req) => {
      if (seen++ < good) return script(req);
      failed++;
      return { status: 503, headers: { 'retry-after': '30' } };
    },
    failed: () => failed,
  };
}

describe('RunStop: the two stages', () => {
  test('first request stops (scheduling and retries), the second aborts; abortNow is both; the signals go where they belong', () => {
    const stop = new RunStop();
    assert.equal(stop.stage, 'running');
    assert.equal(stop.runOptions().signal, stop.signal);
    assert.equal(stop.runOptions().abort, stop.abortSignal);
    // Services: `signal` is the HARD abort, `stopRetries` the first stage (never swapped).
    assert.equal(stop.llmSignals().signal, stop.abortSignal);
    assert.equal(stop.llmSignals().stopRetries, stop.signal);
    assert.equal(stop.environmentOptions().signal, stop.abortSignal);
    assert.equal(stop.environmentOptions().stopRetries, stop.signal);
    assert.equal(stop.request(), 'stopping');
    assert.ok(stop.signal.aborted && !stop.abortSignal.aborted);
    assert.equal(stop.request(), 'aborted');
    assert.ok(stop.abortSignal.aborted);
    const both = new RunStop();
    both.abortNow();
    assert.equal(both.stage, 'aborted');
    assert.ok(both.signal.aborted);
  });
});

describe('Cancel stops retries at once, as the first Ctrl-C does', () => {
  test(
    "VS Code's run (prepareRunEnvironment, services from the run's signals): no retry after Cancel, the run ends cancelled",
    { timeout: 20_000 },
    async () => {
      const ep = failingAfter(3);
      await withFakeOpenAI({ handler: ep.handler }, async (fake) => {
        const dir = tmpDir();
        const out = path.join(dir, 'run.jsonl');
        const stop = new RunStop();
        const config = parseSimulationConfig({
          user: 'llm-prompted',
          agent: 'local-good',
          n: 6,
          seed: 3,
          catalog_size: 120,
        });
        const env = await prepareRunEnvironment(config, dir, stop, {
          // createLlmServicesFromWorkspace: workspace settings and the SecretStorage key, through the same function.
          llmServices: (signals) =>
            workspaceLlmServices(
              { defaults: { baseUrl: fake.url, model: 'fake-chat', maxRetries: 6 } },
              FAKE_KEY,
              signals,
            ),
        });
        const run = runSimulation(config, { environment: env, out, concurrency: 2, ...stop.runOptions() });
        await until(() => ep.failed() >= 2, 'both conversations to wait before a retry');
        const onWire = fake.chatRequests.length;
        stop.request();
        // A call not retried because the run stops ends the run as the CLI reports it (runStopOf): cancelled, resumable.
        await assert.rejects(run, /not retried: the run is stopping/);
        assert.equal(manifestOf(out).status, 'cancelled');
        assert.equal(fake.chatRequests.length, onWire, 'a retry was sent after Cancel');
        assert.equal(manifestOf(out).llm?.usage.requests, onWire);
      });
    },
  );

  test(
    'runSimulation building its own services (a configuration llm block): the first stop ends the retry waits too',
    { timeout: 20_000 },
    async () => {
      const ep = failingAfter(3);
      await withFakeOpenAI({ handler: ep.handler }, async (fake) => {
        const dir = tmpDir();
        const out = path.join(dir, 'run.jsonl');
        const stop = new RunStop();
        const saved = process.env.SIMLENS_API_KEY;
        process.env.SIMLENS_API_KEY = FAKE_KEY;
        try {
          const run = runSimulation(
            {
              user: 'llm-prompted',
              agent: 'local-good',
              n: 6,
              seed: 3,
              catalog_size: 120,
              llm: { settings: { defaults: { baseUrl: fake.url, model: 'fake-chat', maxRetries: 6 } } },
            },
            { out, cwd: dir, concurrency: 2, ...stop.runOptions() },
          );
          await until(() => ep.failed() >= 2, 'both conversations to wait before a retry');
          const onWire = fake.chatRequests.length;
          stop.request();
          await assert.rejects(run, /not retried: the run is stopping/);
          assert.equal(manifestOf(out).status, 'cancelled');
          assert.equal(fake.chatRequests.length, onWire, 'a retry was sent after the stop');
        } finally {
          if (saved === undefined) delete process.env.SIMLENS_API_KEY;
          else process.env.SIMLENS_API_KEY = saved;
        }
      });
    },
  );

  test(
    'requests in flight finish after the first stage and are cancelled by the second',
    { timeout: 20_000 },
    async () => {
      const script = simulationScript({ userTurns: 3 });
      let answered = 0;
      // Two answers, then the endpoint hangs (no answer, no close) for every later request.
      const handler: FakeHandler = (req) => (answered++ < 2 ? script(req) : { hang: true });
      await withFakeOpenAI({ handler }, async (fake) => {
        const dir = tmpDir();
        const out = path.join(dir, 'run.jsonl');
        const stop = new RunStop();
        const config = parseSimulationConfig({
          user: 'llm-prompted',
          agent: 'local-good',
          n: 4,
          seed: 3,
          catalog_size: 120,
        });
        const env = await prepareRunEnvironment(config, dir, stop, {
          llmServices: (signals) =>
            workspaceLlmServices(
              { defaults: { baseUrl: fake.url, model: 'fake-chat', timeoutMs: 60_000 } },
              FAKE_KEY,
              signals,
            ),
        });
        let settled = false;
        const run = runSimulation(config, { environment: env, out, concurrency: 2, ...stop.runOptions() }).finally(
          () => {
            settled = true;
          },
        );
        await until(() => answered >= 4, 'two requests hanging');
        stop.request();
        // Stage 1 lets the hanging requests go on: the run is still waiting for them.
        await new Promise((r) => setImmediate(r));
        assert.equal(settled, false);
        assert.equal(stop.request(), 'aborted');
        const result = await run;
        assert.equal(result.manifest.status, 'cancelled');
        assert.equal(fake.chatRequests.length, 4);
      });
    },
  );
});
