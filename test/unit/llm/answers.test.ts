/**
 * Issue 23: an LLM run never passes a failure off as data. Against the loopback endpoint's fault
 * modes (refusals, wrong schemas, a 400 on one conversation, answers cut at the token limit, list
 * content, no usage, echoed keys), every unusable answer is repaired a bounded number of times and
 * then counted as a failure of its conversation (summary, manifest, exit code), never cached and
 * never used; the accounting holds (requests on the wire = requests recorded).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { withFakeOpenAI, type FakeHandler, type FakeReply, type RecordedRequest } from '../../support/fakeOpenAI';
import { judgeAnswer, promptKind, simulationScript } from '../../support/llmScripts';
import { FAKE_KEY, readTree, testServices, tmpDir } from '../../support/llm';
import { runCli } from '../../support/cli';
import { runSimulation } from '../../../src/core/run/index';
import { LlmClient } from '../../../src/core/llm/client';
import { LlmError } from '../../../src/core/llm/errors';
import { LlmBudget } from '../../../src/core/llm/budget';
import { resolveLlmSettings } from '../../../src/core/llm/config';
import { redactSecrets, publicBaseUrl } from '../../../src/core/llm/redact';
import { parseVerdict, discriminateConversation } from '../../../src/core/llm/discriminator';
import { judgeConversation } from '../../../src/core/llm/judge';
import { parseUserReply } from '../../../src/core/sim/users/llm/format';
import { HttpAgent } from '../../../src/core/sim/recommenders/http';
import { createRng } from '../../../src/core/random';
import { llmServicesFromFlags, type LlmFlagValues } from '../../../src/cli/llmOptions';
import { importFile } from '../../../src/core/importers/index';
import { looksLikeRefusal } from '../../../src/core/llm/validate';
import type { Conversation } from '../../../src/core/model';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

const REPO = path.resolve(__dirname, '../../..');

type Manifest = {
  status: string;
  stop_reason?: string;
  counts: { planned: number; finished: number; failed: number; by_reason: Record<string, number>; resumed: number };
  llm: {
    usage: {
      requests: number;
      tokens: number;
      cache_hits: number;
      usage_missing: number;
      estimated_tokens: number;
      exhausted: boolean;
      maxTokens?: number;
    };
  };
};

function lines(file: string): Array<Record<string, unknown>> {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
function manifestOf(out: string): Manifest {
  return JSON.parse(fs.readFileSync(`${out}.manifest.json`, 'utf8')) as Manifest;
}
const indexOf = (c: Record<string, unknown>) => (c.metadata as { index: number }).index;
const acts = (convs: Array<Record<string, unknown>>) =>
  convs.flatMap((c) =>
    (c.turns as Array<{ annotations?: Array<{ speaker: string; acts: string[] }> }>).flatMap((t) =>
      (t.annotations ?? []).filter((a) => a.speaker === 'user').flatMap((a) => a.acts),
    ),
  );

/** The scripted model, with `fault` answering the requests it matches instead. */
function withFault(
  fault: (req: RecordedRequest, kind: ReturnType<typeof promptKind>) => FakeReply | undefined,
  userTurns = 2,
): FakeHandler {
  const script = simulationScript({ userTurns });
  return (req) => fault(req, promptKind(req)) ?? script(req);
}

const prompted = { user: 'llm-prompted' as const, agent: 'local-good', seed: 11, catalog_size: 120 };

describe('unusable answers are failures of their conversation, never data', () => {
  for (const [name, reply] of [
    ['a refusal as text', { content: "I can't help with that." }],
    ['a structured refusal (message.refusal)', { refusal: 'I cannot role-play a shopper.' }],
    ['a wrong schema (JSON instead of Response/Terminate)', { content: '{"message": "hello", "done": false}' }],
    [
      'an answer cut at the token limit',
      { content: 'Response: I would like some very warm boots for the', finishReason: 'length' },
    ],
    [
      'a refusal dressed in the format',
      { content: "Response: I'm sorry, but I can't help with that.\nTerminate: False" },
    ],
  ] as Array<[string, FakeReply]>) {
    test(`user model answering with ${name}: every conversation fails as user_llm, nothing recorded as a user act, nothing cached`, async () => {
      await withFakeOpenAI(
        { handler: withFault((_r, kind) => (kind === 'user' ? reply : undefined)) },
        async (fake) => {
          const dir = tmpDir();
          const out = path.join(dir, 'run.jsonl');
          const cacheDir = path.join(dir, 'cache');
          const { manifest } = await runSimulation(
            { ...prompted, n: 3 },
            { out, llm: testServices(fake.url, { cacheDir }), maxConsecutiveFailures: 0 },
          );
          const m = manifest as unknown as Manifest;
          assert.equal(m.status, 'finished');
          assert.deepEqual(m.counts.by_reason, { user_llm: 3 });
          const convs = lines(out);
          assert.equal(convs.length, 3);
          for (const c of convs) {
            assert.equal(c.outcome, 'simulator_error');
            assert.match(
              String((c.metadata as { error: string }).error),
              /user simulator output unusable after 3 attempts/,
            );
          }
          assert.deepEqual(acts(convs), []);
          // 3 attempts (2 repairs) per conversation, every one on the wire and counted.
          assert.equal(fake.chatRequests.length, 9);
          assert.equal(m.llm.usage.requests, 9);
          assert.equal(readTree(cacheDir), '');
        },
      );
    });
  }

  test('user answers as a list of parts are read as text (not a simulator_error)', async () => {
    const handler = withFault((req, kind) => {
      if (kind !== 'user') return undefined;
      const text = simulationScript({ userTurns: 2 })(req) as FakeReply;
      return {
        contentParts: [
          { type: 'text', text: text.content!.slice(0, 5) },
          { type: 'text', text: text.content!.slice(5) },
        ],
      };
    });
    await withFakeOpenAI({ handler }, async (fake) => {
      const out = path.join(tmpDir(), 'run.jsonl');
      const { manifest } = await runSimulation({ ...prompted, n: 2 }, { out, llm: testServices(fake.url) });
      assert.equal(manifest.counts.failed, 0);
      assert.equal(
        (lines(out)[0].turns as Array<{ user_utterance: string }>)[0].user_utterance,
        'looking for comfy black boots',
      );
    });
  });

  test('target-free reflections that are not JSON fail the conversation as user_llm; a refused general-preference answer is never the taste', async () => {
    for (const kindToBreak of ['reflect', 'general'] as const) {
      await withFakeOpenAI(
        {
          handler: withFault((_r, kind) =>
            kind === kindToBreak
              ? {
                  content:
                    kindToBreak === 'general'
                      ? "I'm sorry, but I can't help with that."
                      : 'I liked the first one and not the others.',
                }
              : undefined,
          ),
        },
        async (fake) => {
          const out = path.join(tmpDir(), 'run.jsonl');
          const { manifest } = await runSimulation(
            { user: 'llm-target-free', agent: 'llm-good', seed: 3, catalog_size: 120, n: 2 },
            { out, llm: testServices(fake.url), maxConsecutiveFailures: 0 },
          );
          assert.deepEqual(manifest.counts.by_reason, { user_llm: 2 }, kindToBreak);
          const text = fs.readFileSync(out, 'utf8');
          assert.ok(!text.includes('can\'t help with that","consumed'), kindToBreak);
          for (const c of lines(out))
            assert.match(
              String((c.metadata as { error: string }).error),
              kindToBreak === 'general'
                ? /general preferences unusable after 3 attempts/
                : /reflected preferences unusable after 3 attempts/,
            );
          assert.equal((manifest as unknown as Manifest).llm.usage.requests, fake.chatRequests.length);
        },
      );
    }
  });

  test('recommender model refusing: the conversation fails as agent_llm (outcome agent_error)', async () => {
    await withFakeOpenAI(
      {
        handler: withFault((_r, kind) =>
          kind === 'agent' ? { content: "I'm sorry, but I can't assist with that request." } : undefined,
        ),
      },
      async (fake) => {
        const out = path.join(tmpDir(), 'run.jsonl');
        const { manifest } = await runSimulation(
          { ...prompted, agent: 'llm-good', n: 2 },
          { out, llm: testServices(fake.url), maxConsecutiveFailures: 0 },
        );
        assert.deepEqual(manifest.counts.by_reason, { agent_llm: 2 });
        for (const c of lines(out)) assert.equal(c.outcome, 'agent_error');
      },
    );
  });
});

describe('the discriminator and the judge never invent a verdict', () => {
  const conv = {
    id: 'c1',
    turns: [{ user_utterance: 'boots pls', assistant_utterance: 'Here are boots.' }],
    outcome: 'ended',
  } as unknown as Conversation;

  test('a refusal or a hedge that mentions "human" is no label; only the bare word is', () => {
    assert.equal(parseVerdict("I can't tell whether the user is human or not.").ok, false);
    assert.equal(parseVerdict('It is hard to say; possibly a human, possibly a simulation.').ok, false);
    const bare = parseVerdict(' Human. ');
    assert.ok(bare.ok && bare.verdict.p_human === 1);
  });

  for (const [name, reply] of [
    ['a refusal that mentions a label', { content: "I'm sorry, but I can't determine whether the user is human." }],
    ['an answer cut at the token limit', { content: '{"label": "human", "p_hu', finishReason: 'length' }],
    ['a cut bare label', { content: 'human', finishReason: 'length' }],
  ] as Array<[string, FakeReply]>) {
    test(`discriminator answering with ${name}: a failure after the repairs, no p_human`, async () => {
      await withFakeOpenAI({ handler: () => reply }, async (fake) => {
        const services = testServices(fake.url);
        await assert.rejects(discriminateConversation(conv, services), /discriminator answer invalid after 3 attempts/);
        assert.equal(fake.chatRequests.length, 3);
      });
    });
  }

  test('judge: failed answers are never cached; once the endpoint is fixed the same cache asks again', async () => {
    let broken: FakeReply | undefined = { content: '' };
    await withFakeOpenAI({ handler: () => broken ?? { content: judgeAnswer() } }, async (fake) => {
      const cacheDir = path.join(tmpDir(), 'cache');
      for (const bad of [
        { content: '' },
        { content: "I can't help with that." },
        { content: '{"user_sentiment": "good"}' },
        { content: judgeAnswer().slice(0, 80), finishReason: 'length' },
        { contentParts: [{ type: 'text', text: '{"user_sentiment":' }] },
      ] as FakeReply[]) {
        broken = bad;
        fake.requests.length = 0;
        await assert.rejects(
          judgeConversation(conv, testServices(fake.url, { cacheDir })),
          /judge answer invalid after 3 attempts/,
        );
        assert.equal(fake.chatRequests.length, 3);
      }
      assert.equal(readTree(cacheDir), '');
      broken = undefined;
      fake.requests.length = 0;
      const ok = await judgeConversation(conv, testServices(fake.url, { cacheDir }));
      assert.equal(ok.fields.overall_agent_rating, 4.5);
      assert.equal(fake.chatRequests.length, 1);
      // The entry records the validation it passed; a replay sends nothing.
      assert.match(readTree(cacheDir), /"validation":"answer@1\+judge-answer@1"/);
      fake.requests.length = 0;
      await judgeConversation(conv, testServices(fake.url, { cacheDir }));
      assert.equal(fake.chatRequests.length, 0);
    });
  });

  test('a cache entry without a validation record (what older versions stored, failures included) is not replayed', async () => {
    await withFakeOpenAI({ handler: () => ({ content: 'Response: boots\nTerminate: False' }) }, async (fake) => {
      const cacheDir = path.join(tmpDir(), 'cache');
      const services = testServices(fake.url, { cacheDir });
      const client = services.client('user');
      await client.chat({ messages: [{ role: 'user', content: 'go' }], seed: 1 });
      const file = fs
        .readdirSync(cacheDir)
        .flatMap((d) => fs.readdirSync(path.join(cacheDir, d)).map((f) => path.join(cacheDir, d, f)))[0];
      const entry = JSON.parse(fs.readFileSync(file, 'utf8'));
      delete entry.response.validation;
      fs.writeFileSync(file, JSON.stringify(entry));
      fake.requests.length = 0;
      const again = await client.chat({ messages: [{ role: 'user', content: 'go' }], seed: 1 });
      assert.equal(again.cached, false);
      assert.equal(fake.chatRequests.length, 1);
    });
  });
});

describe('one bad conversation blocks nothing', () => {
  test('HTTP 400 on one conversation: written as failed (user_llm), the run goes on and finishes; --resume does not retry it unless --retry-failed', async () => {
    let rejectFirst = true;
    const handler = withFault((_r, kind) => {
      if (kind === 'user' && rejectFirst) {
        rejectFirst = false;
        return { status: 400, errorMessage: "This model's maximum context length is 8192 tokens" };
      }
      return undefined;
    });
    await withFakeOpenAI({ handler }, async (fake) => {
      const dir = tmpDir();
      const out = path.join(dir, 'run.jsonl');
      const { manifest } = await runSimulation({ ...prompted, n: 4 }, { out, llm: testServices(fake.url) });
      assert.equal(manifest.status, 'finished');
      assert.deepEqual(manifest.counts.by_reason, { user_llm: 1 });
      assert.equal(lines(out).length, 4);
      const failed = lines(out).find((c) => (c.metadata as { error_kind?: string }).error_kind);
      assert.match(String((failed!.metadata as { error: string }).error), /HTTP 400.*maximum context length/);
      assert.equal((manifest as unknown as Manifest).llm.usage.requests, fake.chatRequests.length);

      // Resume: nothing to do, no request.
      fake.requests.length = 0;
      const again = await runSimulation({ ...prompted, n: 4 }, { out, resume: true, llm: testServices(fake.url) });
      assert.equal(fake.chatRequests.length, 0);
      assert.deepEqual(again.manifest.counts.by_reason, { user_llm: 1 });
      // --retry-failed runs it again (the endpoint now accepts it): the same bytes as a clean run.
      const retried = await runSimulation(
        { ...prompted, n: 4 },
        { out, resume: true, retryFailed: true, llm: testServices(fake.url) },
      );
      assert.equal(retried.manifest.counts.failed, 0);
      assert.ok(fake.chatRequests.length > 0);
      const ref = path.join(dir, 'ref.jsonl');
      await runSimulation({ ...prompted, n: 4 }, { out: ref, llm: testServices(fake.url) });
      assert.ok(fs.readFileSync(out).equals(fs.readFileSync(ref)));
    });
  });

  test('an endpoint-wide failure stops the run, but conversations that finished after the failing one are written; resume gives the bytes of an uninterrupted run', async () => {
    // The first user request is answered 503 only once the 5 other conversations have finished
    // (a condition, not a delay: under load a fixed wait let fewer finish first).
    const script = simulationScript({ userTurns: 2 });
    let first = true;
    let fail: ((reply: FakeReply) => void) | undefined;
    let finished = 0;
    const handler: FakeHandler = (req) => {
      if (promptKind(req) === 'user' && first) {
        first = false;
        return new Promise<FakeReply>((resolve) => (fail = resolve));
      }
      return script(req);
    };
    await withFakeOpenAI({ handler }, async (fake) => {
      const dir = tmpDir();
      const out = path.join(dir, 'run.jsonl');
      const settings = { defaults: { maxRetries: 0 } };
      const onConversation = () => {
        if (++finished === 5) fail?.({ status: 503 });
      };
      await assert.rejects(
        runSimulation(
          { ...prompted, n: 6 },
          { out, concurrency: 3, onConversation, llm: testServices(fake.url, settings) },
        ),
        LlmError,
      );
      const kept = lines(out).map(indexOf);
      assert.equal(manifestOf(out).status, 'stopped');
      // The conversations that finished while the failing one waited are on disk, those after it included.
      const missing = [0, 1, 2, 3, 4, 5].filter((i) => !kept.includes(i));
      assert.equal(missing.length, 1, `kept ${kept}`);
      assert.ok(Math.max(...kept) > missing[0], `kept ${kept}`);
      assert.equal(manifestOf(out).counts.finished, kept.length);
      await runSimulation(
        { ...prompted, n: 6 },
        { out, concurrency: 3, resume: true, llm: testServices(fake.url, settings) },
      );
      const ref = path.join(dir, 'ref.jsonl');
      await runSimulation({ ...prompted, n: 6 }, { out: ref, concurrency: 1, llm: testServices(fake.url, settings) });
      assert.deepEqual(lines(out).map(indexOf), [0, 1, 2, 3, 4, 5]);
      assert.ok(fs.readFileSync(out).equals(fs.readFileSync(ref)));
    });
  });

  test('a resumed run writes the same bytes as an uninterrupted one whatever came from the cache (cache hits in the manifest only)', async () => {
    await withFakeOpenAI({ handler: simulationScript({ userTurns: 3 }) }, async (fake) => {
      const dir = tmpDir();
      const ref = path.join(dir, 'ref.jsonl');
      await runSimulation(
        { ...prompted, agent: 'llm-good', n: 4 },
        { out: ref, concurrency: 2, llm: testServices(fake.url) },
      );
      const out = path.join(dir, 'run.jsonl');
      const cacheDir = path.join(dir, 'cache');
      // Stopped part-way by a request budget (conversations cut mid-way; their answers are cached).
      await assert.rejects(
        runSimulation(
          { ...prompted, agent: 'llm-good', n: 4 },
          { out, concurrency: 2, llm: testServices(fake.url, { cacheDir, budget: { maxRequests: 9 } }) },
        ),
        /budget/,
      );
      const { manifest } = await runSimulation(
        { ...prompted, agent: 'llm-good', n: 4 },
        { out, concurrency: 2, resume: true, llm: testServices(fake.url, { cacheDir }) },
      );
      assert.ok((manifest as unknown as Manifest).llm.usage.cache_hits > 0);
      assert.ok(fs.readFileSync(out).equals(fs.readFileSync(ref)));
      // A second run from the cache alone: no request, same bytes.
      fake.requests.length = 0;
      const warm = path.join(dir, 'warm.jsonl');
      await runSimulation(
        { ...prompted, agent: 'llm-good', n: 4 },
        { out: warm, concurrency: 2, llm: testServices(fake.url, { cacheDir }) },
      );
      assert.equal(fake.chatRequests.length, 0);
      assert.ok(fs.readFileSync(warm).equals(fs.readFileSync(ref)));
    });
  });
});

describe('budgets hold', () => {
  test('reserve() refuses a request that would pass the token budget with what is in flight', () => {
    const b = new LlmBudget({ maxTokens: 1000 });
    const r1 = b.reserve(400);
    const r2 = b.reserve(400);
    assert.throws(() => b.reserve(400), /token budget of 1000 reached \(0 used, 800 reserved/);
    b.settle(r1, 120, false);
    b.settle(r2, 130, true);
    assert.deepEqual([b.snapshot().tokens, b.snapshot().usage_missing, b.snapshot().estimated_tokens], [250, 1, 130]);
  });

  test('judge --budget-tokens under concurrency 8: tokens spent stay within the budget plus one request', async () => {
    await withFakeOpenAI({ latencyMs: 30, handler: () => ({ content: judgeAnswer() }) }, async (fake) => {
      const dir = tmpDir();
      const convs = Array.from({ length: 40 }, (_, i) =>
        JSON.stringify({
          id: `c${i}`,
          turns: [{ user_utterance: `boots ${i}`, assistant_utterance: 'Here are boots.' }],
          outcome: 'ended',
        }),
      );
      fs.writeFileSync(path.join(dir, 'in.jsonl'), convs.join('\n') + '\n');
      const r = await runCli(
        [
          'judge',
          'in.jsonl',
          '--out',
          'out.jsonl',
          '--budget-tokens',
          '3000',
          '--llm-concurrency',
          '8',
          '--no-cache',
          '--max-tokens',
          '300',
          '--json',
        ],
        dir,
        { SIMLENS_BASE_URL: fake.url, SIMLENS_API_KEY: FAKE_KEY },
      );
      assert.equal(r.code, 1, r.err);
      const summary = JSON.parse(r.out) as { usage: Manifest['llm']['usage'] };
      const perRequest = Math.max(
        ...fake.chatRequests.map((q) => Math.ceil(q.rawBody.length / 4) + Math.ceil(judgeAnswer().length / 4)),
      );
      assert.ok(summary.usage.tokens <= 3000 + perRequest, `spent ${summary.usage.tokens}`);
      assert.ok(summary.usage.tokens <= 3000, `spent ${summary.usage.tokens}`);
      assert.equal(summary.usage.exhausted, true);
      assert.equal(summary.usage.requests, fake.chatRequests.length);
    });
  });

  test('simulate --budget-tokens under concurrency: the manifest stays within the budget, and its stop reason agrees', async () => {
    await withFakeOpenAI({ latencyMs: 20, handler: simulationScript({ userTurns: 3 }) }, async (fake) => {
      const dir = tmpDir();
      const r = await runCli(
        [
          'simulate',
          '--user',
          'llm-prompted',
          '--agent',
          'llm-good',
          '--n',
          '30',
          '--seed',
          '2',
          '--catalog-size',
          '120',
          '--concurrency',
          '8',
          '--budget-tokens',
          '3000',
          '--no-cache',
          '--out',
          'run.jsonl',
          '--quiet',
        ],
        dir,
        { SIMLENS_BASE_URL: fake.url, SIMLENS_API_KEY: FAKE_KEY },
      );
      assert.equal(r.code, 1, r.err);
      const m = manifestOf(path.join(dir, 'run.jsonl'));
      assert.equal(m.status, 'cancelled');
      assert.ok(m.llm.usage.tokens <= 3000, `manifest says ${m.llm.usage.tokens}`);
      assert.equal(m.llm.usage.requests, fake.chatRequests.length);
      assert.match(r.err, /each request reserves its prompt's estimated tokens plus max_tokens/);
    });
  });

  test('an endpoint without usage: tokens are estimated, said so, and the budget still stops the run', async () => {
    const script = simulationScript({ userTurns: 3 });
    await withFakeOpenAI({ handler: (req) => ({ ...script(req), omitUsage: true }) as FakeReply }, async (fake) => {
      const dir = tmpDir();
      const r = await runCli(
        [
          'simulate',
          '--user',
          'llm-prompted',
          '--agent',
          'llm-good',
          '--n',
          '30',
          '--seed',
          '2',
          '--catalog-size',
          '120',
          '--concurrency',
          '4',
          '--budget-tokens',
          '4000',
          '--no-cache',
          '--out',
          'run.jsonl',
          '--quiet',
        ],
        dir,
        { SIMLENS_BASE_URL: fake.url, SIMLENS_API_KEY: FAKE_KEY },
      );
      assert.equal(r.code, 1, r.err);
      const m = manifestOf(path.join(dir, 'run.jsonl'));
      assert.equal(m.status, 'cancelled');
      assert.equal(m.llm.usage.usage_missing, m.llm.usage.requests);
      assert.ok(
        m.llm.usage.tokens > 0 && m.llm.usage.tokens === m.llm.usage.estimated_tokens && m.llm.usage.tokens <= 4000,
      );
      assert.ok(m.counts.finished < 30);
      assert.match(r.err, /LLM answers came without "usage"; their \d+ tokens are estimated/);
    });
  });
});

describe('stopping', () => {
  test('once the run stops retrying (first Ctrl-C), no new retry is sent and a wait before one ends at once', async () => {
    await withFakeOpenAI({ handler: () => ({ status: 503, headers: { 'retry-after': '30' } }) }, async (fake) => {
      const stop = new AbortController();
      const settings = resolveLlmSettings({ defaults: { baseUrl: fake.url, model: 'm', maxRetries: 6 } });
      // The client's wait before its retry (30 s, from retry-after) tells the test it has begun.
      let waitBegan!: () => void;
      const inWait = new Promise<void>((r) => (waitBegan = r));
      const sleep = (ms: number, signal?: AbortSignal) =>
        new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, ms);
          signal?.addEventListener('abort', () => (clearTimeout(timer), reject(new Error('wait ended'))), {
            once: true,
          });
          waitBegan();
        });
      const client = new LlmClient({
        role: 'user',
        config: settings.roles.user,
        apiKey: FAKE_KEY,
        stopRetries: stop.signal,
        sleep,
      });
      const call = client.chat({ messages: [{ role: 'user', content: 'hi' }] });
      await inWait;
      const t0 = Date.now();
      stop.abort();
      await assert.rejects(call, /not retried: the run is stopping/);
      assert.ok(Date.now() - t0 < 1000);
      assert.equal(fake.chatRequests.length, 1);
    });
  });

  test(
    'SIGTERM is a first Ctrl-C: conversations in flight finish, the manifest says cancelled with the requests counted',
    { timeout: 60_000 },
    async () => {
      await withFakeOpenAI({ latencyMs: 40, handler: simulationScript({ userTurns: 3 }) }, async (fake) => {
        const dir = tmpDir();
        const tsx = pathToFileURL(path.join(REPO, 'node_modules/tsx/dist/loader.mjs')).href;
        const args = [
          'simulate',
          '--user',
          'llm-prompted',
          '--agent',
          'llm-good',
          '--base-url',
          fake.url,
          '--model',
          'fake-chat',
          '--no-cache',
          '--n',
          '200',
          '--seed',
          '4',
          '--concurrency',
          '4',
          '--catalog-size',
          '120',
          '--quiet',
          '--out',
          'term.jsonl',
        ];
        const child = spawn(process.execPath, ['--import', tsx, path.join(REPO, 'src/cli/cli.ts'), ...args], {
          cwd: dir,
          env: { ...process.env, SIMLENS_API_KEY: FAKE_KEY },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let err = '';
        child.stderr!.on('data', (d) => (err += d));
        const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
        const until = Date.now() + 40_000;
        while (fake.chatRequests.length < 30) {
          assert.ok(Date.now() < until, 'no requests');
          await new Promise((r) => setTimeout(r, 20));
        }
        child.kill('SIGTERM');
        assert.equal(await exited, 1, err);
        const m = manifestOf(path.join(dir, 'term.jsonl'));
        assert.equal(m.status, 'cancelled');
        assert.equal(m.llm.usage.requests, fake.chatRequests.length);
        assert.ok(m.counts.finished > 0 && m.counts.finished < 200);
        assert.equal(lines(path.join(dir, 'term.jsonl')).length, m.counts.finished);
      });
    },
  );
});

describe('usage of judge and discriminate', () => {
  for (const command of ['judge', 'discriminate'] as const) {
    test(`${command}: prints its usage without --json and writes a manifest with it`, async () => {
      await withFakeOpenAI({ handler: simulationScript() }, async (fake) => {
        const dir = tmpDir();
        const convs = Array.from({ length: 3 }, (_, i) =>
          JSON.stringify({
            id: `c${i}`,
            turns: [{ user_utterance: `boots ${i}`, assistant_utterance: 'Here are boots.' }],
            outcome: 'ended',
          }),
        );
        fs.writeFileSync(path.join(dir, 'in.jsonl'), convs.join('\n') + '\n');
        const r = await runCli([command, 'in.jsonl', '--out', 'out.jsonl', '--no-cache'], dir, {
          SIMLENS_BASE_URL: fake.url,
          SIMLENS_API_KEY: FAKE_KEY,
        });
        assert.equal(r.code, 0, r.err);
        assert.match(r.out, /^usage: 3 requests, \d+ tokens, 0 cache hits$/m);
        const m = manifestOf(path.join(dir, 'out.jsonl'));
        assert.equal(m.status, 'finished');
        assert.equal(m.llm.usage.requests, 3);
        assert.equal(m.llm.usage.requests, fake.chatRequests.length);
        assert.ok(!fs.readFileSync(path.join(dir, 'out.jsonl.manifest.json'), 'utf8').includes(FAKE_KEY));
      });
    });
  }
});

describe('concurrency defaults', () => {
  test('LLM requests in flight per role follow --concurrency unless --llm-concurrency says otherwise', async () => {
    const io = { stdout: () => {}, stderr: () => {}, cwd: tmpDir(), env: {} };
    const a = await llmServicesFromFlags({} as LlmFlagValues, io, { command: 'simulate', defaultConcurrency: 64 });
    assert.equal(a.settings.roles.user.concurrency, 64);
    assert.equal(a.settings.roles.recommender.concurrency, 64);
    const b = await llmServicesFromFlags({ 'llm-concurrency': 5 } as LlmFlagValues, io, {
      command: 'simulate',
      defaultConcurrency: 64,
    });
    assert.equal(b.settings.roles.user.concurrency, 5);
    const c = await llmServicesFromFlags({} as LlmFlagValues, io, { command: 'judge' });
    assert.equal(c.settings.roles.judge.concurrency, 8);
  });
});

describe('the HTTP recommender', () => {
  async function server(
    handler: (req: http.IncomingMessage, res: http.ServerResponse, n: number) => void,
  ): Promise<{ url: string; close: () => Promise<void>; count: () => number }> {
    let n = 0;
    const s = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => handler(req, res, ++n));
    });
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    return {
      url: `http://127.0.0.1:${(s.address() as AddressInfo).port}/chat`,
      count: () => n,
      close: () =>
        new Promise<void>((r) => {
          s.closeAllConnections();
          s.close(() => r());
        }),
    };
  }

  test('a body cut off after the status is agent_malformed, not agent_unreachable', async () => {
    const srv = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
      res.write('{"utterance": "Here are');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    try {
      const session = new HttpAgent(srv.url).createSession('c', createRng('x'), {});
      const r = await session.respond('hi', []);
      assert.equal(r.error_kind, 'agent_malformed');
      assert.match(r.error!, /cut off before its end/);
    } finally {
      await srv.close();
    }
  });

  test('a 429 is retried after its Retry-After; the conversation goes on', async () => {
    const srv = await server((_req, res, n) => {
      if (n === 1) {
        res.writeHead(429, { 'retry-after': '0.2', 'content-type': 'application/json' });
        res.end('{"error": "slow down"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ utterance: 'Here are boots.', recommendations: [] }));
    });
    try {
      const session = new HttpAgent(srv.url).createSession('c', createRng('x'), {});
      const t0 = Date.now();
      const r = await session.respond('hi', []);
      assert.equal(r.error, undefined);
      assert.equal(r.utterance, 'Here are boots.');
      assert.ok(Date.now() - t0 >= 190);
      assert.equal(srv.count(), 2);
    } finally {
      await srv.close();
    }
  });

  test("the run's first stop ends a wait before a 429 retry at once and sends no new retry (HTTP recommender)", async () => {
    const srv = await server((_req, res) => {
      res.writeHead(429, { 'retry-after': '30', 'content-type': 'application/json' });
      res.end('{"error": "slow down"}');
    });
    try {
      // Stopped while it waits (Retry-After 30 s, longer than the test's own timeout).
      const stop = new AbortController();
      const session = new HttpAgent(srv.url, { stopRetries: stop.signal }).createSession('c', createRng('x'), {});
      const pending = session.respond('hi', []);
      const end = Date.now() + 10_000;
      while (srv.count() < 1 && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
      assert.equal(srv.count(), 1);
      stop.abort();
      const r = await pending;
      assert.equal(r.error_kind, 'agent_http');
      assert.match(r.error!, /HTTP 429 .*\(after 1 attempt; not retried: the run is stopping\)/);
      // Already stopped before the first answer: that answer is final, nothing is retried.
      const again = await new HttpAgent(srv.url, { stopRetries: stop.signal })
        .createSession('d', createRng('x'), {})
        .respond('hi', []);
      assert.equal(again.error_kind, 'agent_http');
      assert.equal(srv.count(), 2);
    } finally {
      await srv.close();
    }
  });

  test('runSimulation with an HTTP recommender: the first stop reaches its retries (no request after the stop)', async () => {
    const srv = await server((_req, res) => {
      res.writeHead(429, { 'retry-after': '30', 'content-type': 'application/json' });
      res.end('{"error": "slow down"}');
    });
    const dir = tmpDir();
    try {
      const stop = new AbortController();
      const out = path.join(dir, 'http429.jsonl');
      const run = runSimulation(
        { user: 'agenda', agent: srv.url, n: 2, seed: 's429' },
        { out, signal: stop.signal, concurrency: 2 },
      );
      const end = Date.now() + 10_000;
      while (srv.count() < 2 && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
      assert.equal(srv.count(), 2);
      stop.abort();
      await run;
      assert.equal(srv.count(), 2, 'a retry was sent after the stop');
    } finally {
      await srv.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('keys are never written', () => {
  const KEY = 'sk-proj-ABCDEFGHIJ0123456789zyxwvu';
  const URL_KEY = 'azKEY9876543210secretQQ';
  const USER_PASS = 'pw-5551234567-hunter';

  test('the redactor: partly masked keys, URL credentials, env var names kept', () => {
    assert.equal(
      redactSecrets('Incorrect API key provided: abc123******wxyz.'),
      'Incorrect API key provided: [REDACTED].',
    );
    assert.match(
      redactSecrets('check the API key: SIMLENS_API_KEY / OPENAI_API_KEY'),
      /key: SIMLENS_API_KEY \/ OPENAI_API_KEY/,
    );
    assert.equal(redactSecrets('GET https://me:pw@host/v1'), 'GET https://[REDACTED]@host/v1');
    assert.equal(
      publicBaseUrl(`https://u:${USER_PASS}@h.example/v1?api-key=${URL_KEY}&api-version=2024-06-01`),
      'https://[REDACTED]@h.example/v1?api-key=[REDACTED]&api-version=2024-06-01',
    );
  });

  for (const field of ['openai_api_key', 'OPENAI_API_KEY', 'bearer', 'accessToken']) {
    test(`a config field "${field}" is refused with a message naming it`, () => {
      assert.throws(
        () => resolveLlmSettings({ defaults: { [field]: 'x' } } as never, 'cfg.json'),
        new RegExp(`cfg\\.json: field "defaults\\.${field}": API keys are not read`),
      );
    });
  }

  test('a whole run with the key in the environment, the base URL userinfo and query, echoed by a 401 and partly masked: no file written holds any of it', async () => {
    let deny = true;
    const script = simulationScript({ userTurns: 2 });
    await withFakeOpenAI(
      { handler: (req) => (deny ? { status: 401, echoCredentials: true } : script(req)) },
      async (fake) => {
        const dir = tmpDir();
        const u = new URL(fake.url);
        const baseUrl = `http://key-user:${USER_PASS}@${u.host}${u.pathname}?api-key=${URL_KEY}`;
        const env = { SIMLENS_API_KEY: KEY };
        const args = [
          'simulate',
          '--user',
          'llm-prompted',
          '--agent',
          'llm-good',
          '--base-url',
          baseUrl,
          '--model',
          'fake-chat',
          '--n',
          '3',
          '--seed',
          '1',
          '--catalog-size',
          '120',
          '--out',
          'run.jsonl',
          '--quiet',
        ];
        const first = await runCli(args, dir, env);
        assert.equal(first.code, 1);
        // The 401 echoed the key (whole and partly masked) and the URL's query: the message keeps the variable name only.
        assert.ok(fake.chatRequests[0].query.includes(URL_KEY));
        const stop = manifestOf(path.join(dir, 'run.jsonl')).stop_reason!;
        assert.match(stop, /HTTP 401/);
        assert.match(stop, /SIMLENS_API_KEY/);
        deny = false;
        const second = await runCli([...args, '--resume'], dir, env);
        assert.equal(second.code, 0, second.err);
        const everything = readTree(dir) + first.out + first.err + second.out + second.err;
        assert.ok(everything.length > 1000);
        for (const secret of [
          KEY,
          KEY.slice(0, 6) + '*',
          KEY.slice(-4),
          URL_KEY,
          USER_PASS,
          encodeURIComponent(USER_PASS),
        ]) {
          const at = everything.indexOf(secret);
          assert.ok(at < 0, `found ${secret} in ...${everything.slice(Math.max(0, at - 200), at + 50)}`);
        }
        assert.ok(readTree(path.join(dir, '.simlens-cache')).length > 0);
      },
    );
  });
});

describe('the refusal check', () => {
  test('no real utterance of the fixture datasets (thousands of human and recommender turns) reads as a refusal; refusals do', async () => {
    let n = 0;
    const hits: string[] = [];
    for (const f of [
      'ab-redial/annotated_dialogues.csv',
      'dialoguekit-tests/annotated_dialogues.json',
      'usersimcrs-iard-gold/formatted_IARD_annotated_gold.json',
    ]) {
      const { conversations } = await importFile(path.join(REPO, 'test/fixtures/datasets', f));
      for (const c of conversations)
        for (const t of c.turns)
          for (const u of [t.user_utterance, t.assistant_utterance]) {
            if (!u) continue;
            n++;
            if (
              looksLikeRefusal(u) ||
              (!parseUserReply(`Response: ${u}\nTerminate: False`).ok && t.user_utterance === u)
            )
              hits.push(u);
          }
    }
    assert.ok(n > 3000, `${n} utterances`);
    assert.deepEqual(hits, []);
    for (const r of [
      "I can't help with that.",
      "I'm sorry, but I can't assist with that request.",
      'I cannot comply with this.',
      'As an AI language model, I do not shop.',
      "Sorry, I won't role-play a shopper.",
      'I am unable to provide that.',
      "I'm an AI and cannot pretend to be a person.",
      '  "I can’t continue this conversation."',
    ]) {
      assert.ok(looksLikeRefusal(r), r);
    }
  });
});

describe('user reply format', () => {
  test('JSON and refusals are problems; plain text stays a documented repair', () => {
    assert.equal(parseUserReply('{"message": "hi"}').ok, false);
    assert.equal(parseUserReply("I'm sorry, but I can't help with that.").ok, false);
    assert.ok(parseUserReply('just show me boots').ok);
  });
});
