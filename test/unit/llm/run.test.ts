import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FakeOpenAI, withFakeOpenAI } from '../../support/fakeOpenAI';
import { simulationScript } from '../../support/llmScripts';
import { FAKE_KEY, testServices, tmpDir, readTree } from '../../support/llm';
import { runSimulation } from '../../../src/core/run/index';
import { LlmError } from '../../../src/core/llm/errors';

function readLines(file: string): Array<Record<string, unknown>> {
  return fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const base = { user: 'llm-prompted' as const, agent: 'llm-good', seed: 5, catalog_size: 120, task: undefined };

describe('simulation runs with LLM users and agents', () => {
  test("prompted user vs llm-good: traces carry both roles' calls; the manifest records templates, never the key", async () => {
    await withFakeOpenAI({ handler: simulationScript({ userTurns: 2 }) }, async (fake) => {
      const dir = tmpDir();
      const cacheDir = path.join(dir, 'cache');
      const out = path.join(dir, 'run.jsonl');
      const services = testServices(fake.url, { cacheDir });
      const { manifest } = await runSimulation({ ...base, n: 4 }, { out, concurrency: 2, llm: services });
      assert.equal(manifest.status, 'finished');
      assert.match(String(manifest.prompt_template_version), /^simlens-prompts-1$/);
      const m = manifest as Record<string, unknown>;
      assert.match(String(m.user), /^llm-prompted\(fake-chat\)$/);
      assert.ok((m.llm as { usage: { requests: number } }).usage.requests >= 16);
      const convs = readLines(out);
      assert.equal(convs.length, 4);
      const turns = convs[0].turns as Array<{ trace: { llm_calls: Array<{ role: string }> }; user_utterance: string }>;
      assert.equal(turns[0].user_utterance, 'looking for comfy black boots');
      assert.deepEqual(
        turns[0].trace.llm_calls.map((c) => c.role),
        ['user', 'recommender'],
      );
      const onDisk =
        fs.readFileSync(out, 'utf8') + fs.readFileSync(`${out}.manifest.json`, 'utf8') + readTree(cacheDir);
      assert.ok(!onDisk.includes(FAKE_KEY) && !onDisk.includes('SECRET'));
    });
  });

  test('an endpoint that dies mid-run: finished conversations are kept, the run stops, resume completes it from the cache', async () => {
    let fake = await FakeOpenAI.start({ handler: simulationScript({ userTurns: 2 }) });
    const port = Number(new URL(fake.url).port);
    const dir = tmpDir();
    const out = path.join(dir, 'run.jsonl');
    const cacheDir = path.join(dir, 'cache');
    const n = 6;
    // Die after 9 chat requests (each conversation needs 4).
    let count = 0;
    const script = simulationScript({ userTurns: 2 });
    fake.setHandler((req) => {
      if (++count === 9) setImmediate(() => void fake.close());
      return script(req);
    });
    const first = testServices(fake.url, { cacheDir, defaults: { maxRetries: 1 } });
    await assert.rejects(
      runSimulation({ ...base, n }, { out, concurrency: 1, llm: first }),
      (e: unknown) => e instanceof LlmError && e.kind === 'connection',
    );
    const kept = readLines(out);
    assert.ok(kept.length >= 1 && kept.length < n, `kept ${kept.length}`);
    const manifest1 = JSON.parse(fs.readFileSync(`${out}.manifest.json`, 'utf8'));
    assert.equal(manifest1.status, 'stopped');
    assert.match(manifest1.stop_reason, /^stopped: the LLM endpoint failed \(.*connection failed/);
    assert.match(manifest1.error, /connection failed/);

    fake = await FakeOpenAI.start({ port, handler: simulationScript({ userTurns: 2 }) });
    try {
      const again = testServices(fake.url, { cacheDir });
      const { manifest } = await runSimulation({ ...base, n }, { out, concurrency: 2, resume: true, llm: again });
      assert.equal(manifest.status, 'finished');
      assert.equal(manifest.counts.resumed, kept.length);
      const all = readLines(out);
      assert.equal(all.length, n);
      assert.deepEqual(
        all.map((c) => (c.metadata as { index: number }).index),
        [0, 1, 2, 3, 4, 5],
      );
      assert.ok(all.every((c) => !(c.metadata as { error?: string }).error));
      // The interrupted conversation's first calls were answered from the cache: counted in the
      // manifest, not written into the conversations (a resumed run writes what an uninterrupted one would).
      const calls = all
        .slice(kept.length)
        .flatMap((c) =>
          (c.turns as Array<{ trace: { llm_calls: Array<Record<string, unknown>> } }>).flatMap(
            (t) => t.trace.llm_calls,
          ),
        );
      assert.ok(calls.every((c) => !('cached' in c) && !('attempts' in c) && !('request_id' in c)));
      const hits = (manifest as unknown as { llm: { usage: { cache_hits: number; requests: number } } }).llm.usage;
      assert.ok(hits.cache_hits > 0);
      assert.equal(fake.chatRequests.length, (n - kept.length) * 4 - hits.cache_hits);
      assert.equal(hits.requests, fake.chatRequests.length);
    } finally {
      await fake.close();
    }
  });

  test('budget exhaustion stops the run cleanly with the finished conversations written', async () => {
    await withFakeOpenAI({ handler: simulationScript({ userTurns: 2 }) }, async (fake) => {
      const dir = tmpDir();
      const out = path.join(dir, 'run.jsonl');
      const services = testServices(fake.url, { budget: { maxRequests: 10 } });
      await assert.rejects(
        runSimulation({ ...base, n: 5 }, { out, concurrency: 1, llm: services }),
        /budget exhausted/,
      );
      assert.equal(readLines(out).length, 2);
      const manifest = JSON.parse(fs.readFileSync(`${out}.manifest.json`, 'utf8'));
      assert.equal(manifest.status, 'cancelled');
      assert.equal(manifest.llm.usage.exhausted, true);
      assert.equal(fake.chatRequests.length, 10);
    });
  });
});
