import { test, describe, after, before } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FakeOpenAI } from '../../support/fakeOpenAI';
import { LlmClient, backoffDelay, retryAfterMs, type RecordedLlmCall as LlmCall } from '../../../src/core/llm/client';
import { resolveLlmSettings, type LlmRoleConfig } from '../../../src/core/llm/config';
import { LlmResponseCache } from '../../../src/core/llm/cache';
import { LlmBudget } from '../../../src/core/llm/budget';
import { LlmError, BudgetExceededError } from '../../../src/core/llm/errors';
import { ConcurrencyLimiter } from '../../../src/core/llm/limiter';
import { scratchDir } from '../../support/scratch';

const FAKE_KEY = 'sk-test-SECRET-0123456789abcdef';

function roleConfig(url: string, over: Partial<LlmRoleConfig> = {}): LlmRoleConfig {
  const s = resolveLlmSettings({
    defaults: { baseUrl: url, model: 'fake-chat', backoffMs: 5, maxBackoffMs: 20, timeoutMs: 2000, ...over },
  });
  return s.roles.user;
}

function tmpDir(): string {
  return scratchDir('simlens-llm-');
}

describe('LlmClient against the loopback server', () => {
  let fake: FakeOpenAI;
  before(async () => {
    fake = await FakeOpenAI.start();
  });
  after(async () => {
    await fake.close();
  });

  test('sends model, messages and parameters; returns text, usage and request id', async () => {
    fake.requests.length = 0;
    fake.enqueue({ content: 'Hello there', usage: { prompt_tokens: 11, completion_tokens: 3 } });
    const calls: LlmCall[] = [];
    const client = new LlmClient({
      role: 'user',
      config: roleConfig(fake.url, { temperature: 0.3, maxTokens: 77 }),
      apiKey: FAKE_KEY,
      onCall: (c) => calls.push(c),
    });
    const res = await client.chat({
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'hi' },
      ],
      seed: 42,
      template: 'x@1',
    });
    assert.equal(res.text, 'Hello there');
    assert.equal(res.promptTokens, 11);
    assert.equal(res.completionTokens, 3);
    const body = fake.requests[0].body!;
    assert.equal(body.model, 'fake-chat');
    assert.deepEqual(body.messages, [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'hi' },
    ]);
    assert.equal(body.temperature, 0.3);
    assert.equal(body.max_tokens, 77);
    assert.equal(body.seed, 42);
    assert.equal(body.stream, undefined);
    assert.equal(fake.requests[0].headers.authorization, `Bearer ${FAKE_KEY}`);
    assert.equal(calls.length, 1);
    assert.match(calls[0].request_id!, /^req_fake_/);
    assert.equal(calls[0].cached, false);
    assert.ok(calls[0].latency_ms! >= 0);
  });

  test('streaming assembles the SSE chunks and reads usage', async () => {
    fake.requests.length = 0;
    fake.enqueue({
      content: 'A streamed answer that spans several chunks.',
      chunkSize: 5,
      usage: { prompt_tokens: 9, completion_tokens: 8 },
    });
    const client = new LlmClient({ role: 'user', config: roleConfig(fake.url, { stream: true }) });
    const res = await client.chat({ messages: [{ role: 'user', content: 'go' }] });
    assert.equal(res.text, 'A streamed answer that spans several chunks.');
    assert.equal(res.completionTokens, 8);
    assert.equal(res.finishReason, 'stop');
    assert.equal(fake.requests[0].body!.stream, true);
  });

  test('a stream cut short is retried, not taken as an answer', async () => {
    fake.enqueue(
      { content: 'this will be cut off before the end', chunkSize: 4, cutStreamAfter: 2 },
      { content: 'complete' },
    );
    const calls: LlmCall[] = [];
    const client = new LlmClient({
      role: 'user',
      config: roleConfig(fake.url, { stream: true }),
      onCall: (c) => calls.push(c),
    });
    const res = await client.chat({ messages: [{ role: 'user', content: 'go' }] });
    assert.equal(res.text, 'complete');
    const attempts = calls[0].attempts;
    assert.equal(attempts.length, 2);
    assert.ok(attempts[0].error);
  });

  test('429 with Retry-After waits at least that long, then succeeds', async () => {
    fake.enqueue({ status: 429, headers: { 'retry-after': '1' } }, { content: 'ok after wait' });
    const waits: number[] = [];
    const calls: LlmCall[] = [];
    const client = new LlmClient({
      role: 'user',
      config: roleConfig(fake.url),
      random: () => 0.5,
      sleep: async (ms) => {
        waits.push(ms);
      },
      onCall: (c) => calls.push(c),
    });
    const res = await client.chat({ messages: [{ role: 'user', content: 'x' }] });
    assert.equal(res.text, 'ok after wait');
    assert.equal(waits.length, 1);
    assert.ok(waits[0] >= 1000 && waits[0] <= 1100, `wait ${waits[0]}`);
    const attempts = calls[0].attempts;
    assert.equal(attempts[0].status, 429);
    assert.equal(attempts[0].wait_ms, waits[0]);
  });

  test('429 with retry-after-ms is honoured with a real sleep', async () => {
    fake.enqueue({ status: 429, headers: { 'retry-after-ms': '250' } }, { content: 'late' });
    const client = new LlmClient({ role: 'user', config: roleConfig(fake.url) });
    const t0 = Date.now();
    const res = await client.chat({ messages: [{ role: 'user', content: 'x' }] });
    assert.equal(res.text, 'late');
    assert.ok(Date.now() - t0 >= 250, `elapsed ${Date.now() - t0}`);
  });

  test('500s are retried with exponential backoff, then give up with a clear error', async () => {
    fake.enqueue({ status: 500 }, { status: 502 }, { status: 503 });
    const waits: number[] = [];
    const client = new LlmClient({
      role: 'judge',
      config: roleConfig(fake.url, { maxRetries: 2, backoffMs: 100, maxBackoffMs: 10_000 }),
      random: () => 1,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    await assert.rejects(client.chat({ messages: [{ role: 'user', content: 'x' }] }), (e: unknown) => {
      assert.ok(e instanceof LlmError);
      assert.equal(e.kind, 'http');
      assert.equal(e.details.status, 503);
      assert.match(e.message, /gave up after 3 attempts/);
      return true;
    });
    assert.deepEqual(waits, [100, 200]);
  });

  test('400 is not retried', async () => {
    const before = fake.served;
    fake.enqueue({ status: 400, errorMessage: 'bad parameter temperature' });
    const client = new LlmClient({ role: 'user', config: roleConfig(fake.url) });
    await assert.rejects(client.chat({ messages: [{ role: 'user', content: 'x' }] }), /HTTP 400.*bad parameter/);
    assert.equal(fake.served - before, 1);
  });

  test('a hanging endpoint times out and the retry succeeds', async () => {
    fake.enqueue({ hang: true }, { content: 'second try' });
    const calls: LlmCall[] = [];
    const client = new LlmClient({
      role: 'user',
      config: roleConfig(fake.url, { timeoutMs: 150 }),
      onCall: (c) => calls.push(c),
    });
    const res = await client.chat({ messages: [{ role: 'user', content: 'x' }] });
    assert.equal(res.text, 'second try');
    const attempts = calls[0].attempts;
    assert.match(attempts[0].error!, /within 150 ms/);
    assert.ok(attempts[0].latency_ms >= 140);
  });

  test('slow but in-time responses are accepted without retry', async () => {
    fake.enqueue({ content: 'slow', delayMs: 120 });
    const calls: LlmCall[] = [];
    const client = new LlmClient({
      role: 'user',
      config: roleConfig(fake.url, { timeoutMs: 1000 }),
      onCall: (c) => calls.push(c),
    });
    assert.equal((await client.chat({ messages: [{ role: 'user', content: 'x' }] })).text, 'slow');
    assert.equal(calls[0].attempts.length, 1);
    assert.ok(calls[0].latency_ms! >= 110);
  });

  test('truncated and invalid JSON bodies are retried', async () => {
    fake.enqueue(
      { body: '{"id":"x","choices":[{"index":0,"message":{"role":"assis' },
      { body: 'not json at all <html>' },
      { content: 'finally' },
    );
    const calls: LlmCall[] = [];
    const client = new LlmClient({ role: 'user', config: roleConfig(fake.url), onCall: (c) => calls.push(c) });
    assert.equal((await client.chat({ messages: [{ role: 'user', content: 'x' }] })).text, 'finally');
    assert.equal(calls[0].attempts.length, 3);
  });

  test('a dead endpoint fails with a connection error', async () => {
    const dead = await FakeOpenAI.start();
    const url = dead.url;
    await dead.close();
    const client = new LlmClient({ role: 'user', config: roleConfig(url, { maxRetries: 1 }) });
    await assert.rejects(
      client.chat({ messages: [{ role: 'user', content: 'x' }] }),
      (e: unknown) => e instanceof LlmError && e.kind === 'connection',
    );
  });

  test('the API key never appears in errors, call records or cache files', async () => {
    const dir = tmpDir();
    fake.enqueue({
      status: 401,
      errorMessage: `Incorrect API key provided: ${FAKE_KEY}. Authorization: Bearer ${FAKE_KEY}`,
    });
    const calls: LlmCall[] = [];
    const client = new LlmClient({
      role: 'user',
      config: roleConfig(fake.url),
      apiKey: FAKE_KEY,
      cache: new LlmResponseCache(dir),
      onCall: (c) => calls.push(c),
      recordPrompts: true,
    });
    let message = '';
    await client.chat({ messages: [{ role: 'user', content: 'x' }] }).catch((e: Error) => {
      message = `${e.message} ${e.stack}`;
    });
    assert.match(message, /HTTP 401/);
    assert.ok(!message.includes(FAKE_KEY), message);
    assert.ok(!message.includes('SECRET'), message);
    fake.enqueue({ content: 'fine' });
    await client.chat({ messages: [{ role: 'user', content: 'y' }] });
    const all = JSON.stringify(calls) + JSON.stringify(client) + readAll(dir);
    assert.ok(!all.includes('SECRET'));
  });

  test('a cache hit makes zero requests and replays the same text', async () => {
    const dir = tmpDir();
    const cache = new LlmResponseCache(dir);
    fake.enqueue({ content: 'first answer' });
    const a = new LlmClient({ role: 'user', config: roleConfig(fake.url), cache });
    const req = { messages: [{ role: 'user' as const, content: 'cache me' }], seed: 7, template: 't@1' };
    assert.equal((await a.chat(req)).text, 'first answer');
    const served = fake.served;
    const b = new LlmClient({ role: 'user', config: roleConfig(fake.url), cache: new LlmResponseCache(dir) });
    const again = await b.chat(req);
    assert.equal(again.text, 'first answer');
    assert.equal(again.cached, true);
    assert.equal(fake.served, served);
    // Another template version or seed misses.
    fake.enqueue({ content: 'other' }, { content: 'other2' });
    assert.equal((await b.chat({ ...req, template: 't@2' })).cached, false);
    assert.equal((await b.chat({ ...req, seed: 8 })).cached, false);
  });

  test('budget exhaustion stops before sending and tells listeners once', async () => {
    const budget = new LlmBudget({ maxRequests: 2 });
    const reasons: string[] = [];
    budget.onExhausted((r) => reasons.push(r));
    const client = new LlmClient({ role: 'user', config: roleConfig(fake.url), budget });
    const served = fake.served;
    await client.chat({ messages: [{ role: 'user', content: '1' }] });
    await client.chat({ messages: [{ role: 'user', content: '2' }] });
    await assert.rejects(client.chat({ messages: [{ role: 'user', content: '3' }] }), BudgetExceededError);
    await assert.rejects(client.chat({ messages: [{ role: 'user', content: '4' }] }), BudgetExceededError);
    assert.equal(fake.served - served, 2);
    assert.equal(reasons.length, 1);
    const tokens = new LlmBudget({ maxTokens: 5 });
    const c2 = new LlmClient({ role: 'user', config: roleConfig(fake.url), budget: tokens });
    fake.enqueue({ content: 'x', usage: { prompt_tokens: 4, completion_tokens: 2 } });
    await c2.chat({ messages: [{ role: 'user', content: 'a' }] });
    assert.equal(tokens.snapshot().tokens, 6);
    await assert.rejects(c2.chat({ messages: [{ role: 'user', content: 'b' }] }), /token budget/);
  });

  test('an AbortSignal cancels an in-flight call without retrying', async () => {
    fake.enqueue({ delayMs: 2000, content: 'too late' });
    const ctrl = new AbortController();
    const client = new LlmClient({ role: 'user', config: roleConfig(fake.url), signal: ctrl.signal });
    const before = fake.chatRequests.length;
    const call = client.chat({ messages: [{ role: 'user', content: 'x' }] });
    // Abort once the call is in flight (the server has it), not after a fixed wait.
    while (fake.chatRequests.length === before) await new Promise((r) => setTimeout(r, 5));
    const t0 = Date.now();
    ctrl.abort();
    await assert.rejects(call, (e: unknown) => e instanceof LlmError && e.kind === 'aborted');
    assert.ok(Date.now() - t0 < 1000);
  });

  test('the limiter bounds requests in flight', async () => {
    fake.setHandler(() => ({ content: 'p', delayMs: 60 }));
    const limiter = new ConcurrencyLimiter(2);
    const client = new LlmClient({ role: 'user', config: roleConfig(fake.url), limiter });
    let peak = 0;
    const timer = setInterval(() => {
      peak = Math.max(peak, limiter.running);
    }, 5);
    await Promise.all(
      Array.from({ length: 6 }, (_, i) => client.chat({ messages: [{ role: 'user', content: `m${i}` }] })),
    );
    clearInterval(timer);
    assert.equal(peak, 2);
  });

  test('embeddings come back in input order and are cached', async () => {
    const dir = tmpDir();
    const cfg = roleConfig(fake.url, { model: 'fake-embed' });
    const client = new LlmClient({ role: 'embeddings', config: cfg, cache: new LlmResponseCache(dir) });
    const r = await client.embed(['red boots', 'blue jacket']);
    assert.equal(r.vectors.length, 2);
    assert.equal(r.vectors[0].length, 64);
    const served = fake.served;
    const again = await client.embed(['red boots', 'blue jacket']);
    assert.equal(again.cached, true);
    assert.equal(fake.served, served);
  });
});

describe('retry helpers', () => {
  test('retryAfterMs reads seconds, ms and HTTP dates', () => {
    const h = (o: Record<string, string>) => ({ get: (n: string) => o[n] ?? null });
    assert.equal(retryAfterMs(h({ 'retry-after': '3' })), 3000);
    assert.equal(retryAfterMs(h({ 'retry-after-ms': '120', 'retry-after': '3' })), 120);
    const now = Date.parse('2025-01-01T00:00:00Z');
    assert.equal(retryAfterMs(h({ 'retry-after': 'Wed, 01 Jan 2025 00:00:05 GMT' }), now), 5000);
    assert.equal(retryAfterMs(h({})), undefined);
  });
  test('backoffDelay doubles, caps and jitters within [exp/2, exp]', () => {
    assert.equal(
      backoffDelay(0, 100, 1000, () => 0),
      50,
    );
    assert.equal(
      backoffDelay(3, 100, 1000, () => 1),
      800,
    );
    assert.equal(
      backoffDelay(10, 100, 1000, () => 1),
      1000,
    );
  });
});

function readAll(dir: string): string {
  let out = '';
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true } as {
    withFileTypes: true;
    recursive: true;
  })) {
    const p = path.join(
      (entry as fs.Dirent & { parentPath?: string; path?: string }).parentPath ??
        (entry as { path?: string }).path ??
        dir,
      entry.name,
    );
    if (entry.isFile()) out += fs.readFileSync(p, 'utf8');
  }
  return out;
}
