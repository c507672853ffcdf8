import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import * as zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { resolveLlmSettings, apiKeyFromEnv, publicLlmSettings } from '../../../src/core/llm/config';
import { createNodeFetch } from '../../../src/core/llm/nodeFetch';
import { ConcurrencyLimiter } from '../../../src/core/llm/limiter';
import { canonicalJson } from '../../../src/core/llm/canonical';

describe('LLM settings', () => {
  test('defaults, per-role overrides, and embeddings never inheriting the chat model', () => {
    const s = resolveLlmSettings({
      defaults: { baseUrl: 'http://localhost:11434/v1', model: 'llama3.1' },
      roles: { judge: { model: 'big', temperature: 0 } },
    });
    assert.equal(s.roles.user.model, 'llama3.1');
    assert.equal(s.roles.user.baseUrl, 'http://localhost:11434/v1');
    assert.equal(s.roles.judge.model, 'big');
    assert.equal(s.roles.judge.temperature, 0);
    assert.equal(s.roles.embeddings.model, '');
    assert.equal(s.roles.embeddings.baseUrl, 'http://localhost:11434/v1');
    assert.equal(s.roles.user.concurrency, 8);
  });
  test('an invalid value names the role and field', () => {
    assert.throws(
      () => resolveLlmSettings({ roles: { recommender: { temperature: 7 } } }, 'llm.json'),
      /llm\.json: role "recommender": temperature: must be <= 2, got number 7/,
    );
    assert.throws(
      () => resolveLlmSettings({ defaults: { baseUrl: 'not a url' } }),
      /role "user": baseUrl: must be a valid URL, got string "not a url"/,
    );
  });
  test('the key comes from SIMLENS_API_KEY, then OPENAI_API_KEY, and is not part of public settings', () => {
    assert.equal(apiKeyFromEnv({ SIMLENS_API_KEY: 'a', OPENAI_API_KEY: 'b' }), 'a');
    assert.equal(apiKeyFromEnv({ OPENAI_API_KEY: ' b ' }), 'b');
    assert.equal(apiKeyFromEnv({}), undefined);
    assert.ok(!JSON.stringify(publicLlmSettings(resolveLlmSettings())).toLowerCase().includes('key'));
  });
  test('canonical JSON ignores key order and undefined members', () => {
    assert.equal(
      canonicalJson({ b: 1, a: { d: undefined, c: [1, { y: 2, x: 1 }] } }),
      '{"a":{"c":[1,{"x":1,"y":2}]},"b":1}',
    );
  });
  test('the limiter drops a waiting task whose signal aborts', async () => {
    const lim = new ConcurrencyLimiter(1);
    let release!: () => void;
    const first = lim.run(
      () =>
        new Promise<void>((r) => {
          release = r;
        }),
    );
    const ctrl = new AbortController();
    const second = lim.run(async () => 'ran', ctrl.signal);
    assert.equal(lim.queued, 1);
    ctrl.abort(new Error('stop'));
    await assert.rejects(second, /stop/);
    assert.equal(lim.queued, 0);
    release();
    await first;
  });
});

describe('node:http transport', () => {
  test('decodes gzip bodies, passes headers and status, honours abort', async () => {
    let slowArrived!: () => void;
    const slowRequest = new Promise<void>((r) => (slowArrived = r));
    const server = http.createServer((req, res) => {
      if (req.url === '/slow') {
        slowArrived();
        return void setTimeout(() => res.end('late'), 2000);
      }
      const body = zlib.gzipSync(JSON.stringify({ got: req.headers['x-test'], method: req.method }));
      res.writeHead(201, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'x-request-id': 'r1' });
      res.end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const f = createNodeFetch();
      const res = await f(`${base}/x`, { method: 'POST', headers: { 'x-test': 'yes' }, body: '{}' });
      assert.equal(res.status, 201);
      assert.equal(res.headers.get('x-request-id'), 'r1');
      assert.deepEqual(await res.json(), { got: 'yes', method: 'POST' });
      const ctrl = new AbortController();
      const slow = f(`${base}/slow`, { signal: ctrl.signal });
      // Abort once the request is in flight (the server has it), not after a fixed wait.
      await slowRequest;
      ctrl.abort();
      await assert.rejects(slow, (e: Error) => e.name === 'AbortError');
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
