/**
 * LLM runs end to end against the loopback server: every request on the wire is recorded in a
 * trace, budget stops are clean and resumable, empty user replies count as failures, many
 * concurrent requests do not leak abort listeners, and only a hard abort cancels requests in flight.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { withFakeOpenAI } from '../../support/fakeOpenAI';
import { simulationScript, promptKind } from '../../support/llmScripts';
import { testServices, tmpDir } from '../../support/llm';
import { runSimulation } from '../../../src/core/run/index';
import { createPromptedUser } from '../../../src/core/sim/users/llm/prompted';
import { createRng } from '../../../src/core/random';

function readLines(file: string): Array<Record<string, unknown>> {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

type Call = { purpose?: string; cached?: boolean; attempts?: unknown[] };
function recordedCalls(convs: Array<Record<string, unknown>>): Call[] {
  return convs.flatMap((c) =>
    (c.turns as Array<{ trace?: { llm_calls?: Call[] } }>).flatMap((t) => t.trace?.llm_calls ?? []),
  );
}

const settle = () => new Promise((r) => setTimeout(r, 150));

/** Collects unhandled rejections and process warnings while `body` runs. */
async function watchProcess<T>(
  body: () => Promise<T>,
): Promise<{ value?: T; error?: unknown; rejections: unknown[]; warnings: Error[] }> {
  const rejections: unknown[] = [];
  const warnings: Error[] = [];
  const onRejection = (e: unknown) => {
    rejections.push(e);
  };
  const onWarning = (w: Error) => {
    warnings.push(w);
  };
  process.on('unhandledRejection', onRejection);
  process.on('warning', onWarning);
  try {
    try {
      return { value: await body(), rejections, warnings };
    } catch (error) {
      return { error, rejections, warnings };
    } finally {
      await settle();
    }
  } finally {
    process.removeListener('unhandledRejection', onRejection);
    process.removeListener('warning', onWarning);
  }
}

const targetFree = { user: 'llm-target-free' as const, agent: 'llm-good', seed: 7, catalog_size: 120 };

describe('LLM runs: accounting and stops', () => {
  test('target-free user: every reflection request on the wire is recorded in a trace', async () => {
    await withFakeOpenAI({ handler: simulationScript({ userTurns: 3 }) }, async (fake) => {
      const dir = tmpDir();
      const out = path.join(dir, 'run.jsonl');
      const watched = await watchProcess(() =>
        runSimulation({ ...targetFree, n: 3 }, { out, concurrency: 1, llm: testServices(fake.url) }),
      );
      assert.equal(watched.error, undefined);
      assert.deepEqual(watched.rejections, []);
      const calls = recordedCalls(readLines(out));
      const onWire = fake.chatRequests;
      const reflectOnWire = onWire.filter((r) => promptKind(r) === 'reflect').length;
      assert.ok(reflectOnWire > 0);
      assert.equal(calls.filter((c) => c.purpose === 'user.reflect').length, reflectOnWire);
      // No retries and no cache here: one recorded call per request; the manifest counts every request.
      assert.equal(calls.length, onWire.length);
      const manifest = JSON.parse(fs.readFileSync(`${out}.manifest.json`, 'utf8')) as {
        llm: { usage: { requests: number } };
      };
      assert.equal(manifest.llm.usage.requests, onWire.length);
    });
  });

  test('a request budget stops a target-free run cleanly: manifest says why, finished conversations kept, resume completes', async () => {
    await withFakeOpenAI({ handler: simulationScript({ userTurns: 3 }) }, async (fake) => {
      const n = 6;
      // Several budgets, so the stop falls on every kind of call (general, reflect, reply, agent).
      for (let budget = 9; budget <= 33; budget += 4) {
        const dir = tmpDir();
        const out = path.join(dir, 'run.jsonl');
        const watched = await watchProcess(() =>
          runSimulation(
            { ...targetFree, n },
            { out, concurrency: 2, llm: testServices(fake.url, { budget: { maxRequests: budget } }) },
          ),
        );
        assert.deepEqual(watched.rejections.map(String), [], `budget ${budget}`);
        const manifest = JSON.parse(fs.readFileSync(`${out}.manifest.json`, 'utf8')) as Record<string, unknown> & {
          status: string;
          counts: { finished: number };
        };
        assert.equal(manifest.status, 'cancelled', `budget ${budget}`);
        assert.match(JSON.stringify(manifest), /budget exhausted/);
        const kept = readLines(out);
        assert.ok(kept.length < n, `kept ${kept.length}`);
        assert.equal(manifest.counts.finished, kept.length);
        assert.ok(kept.every((c) => !(c.metadata as { error?: string }).error));
        const resumed = await runSimulation(
          { ...targetFree, n },
          { out, concurrency: 2, resume: true, llm: testServices(fake.url) },
        );
        assert.equal(resumed.manifest.status, 'finished');
        assert.equal(readLines(out).length, n);
      }
    });
  });

  test('32 conversations and 32 LLM requests in flight on one run signal: no MaxListenersExceededWarning', async () => {
    await withFakeOpenAI(
      { latencyMs: 20, handler: simulationScript({ userTurns: 2 }), record: false },
      async (fake) => {
        const out = path.join(tmpDir(), 'run.jsonl');
        const hard = new AbortController();
        const services = testServices(fake.url, { defaults: { concurrency: 32 } }, { signal: hard.signal });
        const watched = await watchProcess(() =>
          runSimulation(
            { user: 'llm-prompted', agent: 'llm-good', seed: 3, catalog_size: 120, n: 96 },
            { out, concurrency: 32, llm: services },
          ),
        );
        assert.equal(watched.error, undefined);
        assert.equal(watched.value!.manifest.status, 'finished');
        assert.deepEqual(watched.warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map(String), []);
      },
    );
  });
});

describe('LLM runs: stop scheduling vs hard abort', () => {
  test("the run's stop signal lets LLM conversations in flight finish; services built by the run do not cancel them", async () => {
    await withFakeOpenAI({ latencyMs: 60, handler: simulationScript({ userTurns: 2 }) }, async (fake) => {
      const out = path.join(tmpDir(), 'run.jsonl');
      const stop = new AbortController();
      // Stop once every one of the 3 conversations in flight has had its first answer.
      fake.setHandler((req) => {
        if (fake.chatRequests.length === 4) setTimeout(() => stop.abort(), 10);
        return simulationScript({ userTurns: 2 })(req);
      });
      const settings = { defaults: { baseUrl: fake.url, model: 'fake-chat', backoffMs: 5, maxBackoffMs: 20 } };
      const watched = await watchProcess(() =>
        runSimulation(
          { user: 'llm-prompted', agent: 'llm-good', seed: 4, catalog_size: 120, n: 12, llm: { settings } },
          { out, concurrency: 3, signal: stop.signal },
        ),
      );
      assert.equal(watched.error, undefined, String(watched.error));
      const { manifest } = watched.value!;
      assert.equal(manifest.status, 'cancelled');
      const kept = readLines(out);
      assert.ok(kept.length >= 3 && kept.length < 12, `kept ${kept.length}`);
      assert.equal(manifest.counts.failed, 0);
      assert.ok(kept.every((c) => !(c.metadata as { error?: string }).error));
      assert.ok(!recordedCalls(kept).some((c) => /cancelled/.test(String((c as { error?: string }).error))));
    });
  });
});

describe('LLM users: failures', () => {
  test('a user whose replies stay unusable returns a user_llm failure (counted by the run)', async () => {
    await withFakeOpenAI({ handler: () => ({ content: '' }) }, async (fake) => {
      const session = createPromptedUser(testServices(fake.url), { maxRepairs: 1 }).createSession(
        'c1',
        createRng('s'),
        { task: 'footwear' },
      );
      const turn = await session.start();
      assert.equal(turn.done, true);
      assert.equal(turn.failure?.reason, 'user_llm');
      assert.match(turn.failure!.message, /unusable after 2 attempts/);
      assert.equal(turn.trace.error, turn.failure!.message);
      assert.equal(fake.chatRequests.length, 2);
    });
  });
});

describe('LLM users: failures counted by the run', () => {
  test('a run whose LLM user only gets empty replies reports every conversation failed (user_llm)', async () => {
    await withFakeOpenAI({ handler: () => ({ content: '' }) }, async (fake) => {
      const out = path.join(tmpDir(), 'run.jsonl');
      const { manifest } = await runSimulation(
        { user: 'llm-prompted', agent: 'local-good', seed: 2, catalog_size: 120, n: 3, llm: { max_repairs: 1 } },
        { out, concurrency: 1, llm: testServices(fake.url) },
      );
      assert.equal(manifest.counts.failed, 3);
      assert.match(JSON.stringify(manifest.counts), /"user_llm":3/);
      assert.equal(readLines(out).length, 3);
    });
  });
});

describe('LlmServices.whileWaiting', () => {
  test('runs once every started request is on the wire, before the answers arrive', async () => {
    await withFakeOpenAI({ latencyMs: 150 }, async (fake) => {
      const services = testServices(fake.url, { defaults: { concurrency: 8 } });
      const client = services.client('user');
      const events: string[] = [];
      services.whileWaiting(() => events.push('task'));
      const calls = Array.from({ length: 8 }, (_, i) =>
        client.chat({ messages: [{ role: 'user', content: `hi ${i}` }] }).then(() => events.push('answer')),
      );
      await Promise.all(calls);
      assert.deepEqual(events, ['task', ...Array(8).fill('answer')]);
      assert.equal(fake.chatRequests.length, 8);
      await client.chat({ messages: [{ role: 'user', content: 'again' }] });
      assert.equal(events.filter((e) => e === 'task').length, 1);
    });
  });
});
