import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateApparelCatalog } from '../../../src/core/catalog/catalog';
import { createAgent, HttpAgent } from '../../../src/core/sim/recommenders/index';
import { createRng } from '../../../src/core/random';

const catalog = generateApparelCatalog({ size: 50 });

/** Resolves once `cond` holds (checked every few ms; 10 s at most). */
async function until(cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting for a condition');
    await new Promise((r) => setTimeout(r, 5));
  }
}

interface Received {
  url: string;
  contentType: string | undefined;
  auth: string | undefined;
  body: unknown;
}

describe('http agent', () => {
  let server: http.Server;
  let base = '';
  const received: Received[] = [];
  const pending = new Set<http.ServerResponse>();

  before(async () => {
    server = http.createServer((req, res) => {
      let data = '';
      req.on('data', (c) => (data += c));
      req.on('end', () => {
        received.push({
          url: req.url ?? '',
          contentType: req.headers['content-type'],
          auth: req.headers.authorization,
          body: JSON.parse(data),
        });
        const reply = (status: number, body: string) => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(body);
        };
        switch (req.url) {
          case '/ok':
            return reply(
              200,
              JSON.stringify({
                utterance: 'Here are two boots.',
                recommendations: [
                  { item_id: 'A1', title: 'Boot A', features: 'Warm, Dry' },
                  { item_id: 'B2', extra: 1 },
                ],
                acts: ['recommend'],
              }),
            );
          case '/minimal':
            return reply(200, JSON.stringify({ utterance: 'Hello' }));
          case '/fail':
            return reply(500, 'internal trouble');
          case '/notjson':
            return reply(200, '<html>oops</html>');
          case '/schema':
            return reply(200, JSON.stringify({ utterance: 'x', recommendations: [{ title: 'no id' }] }));
          case '/slow':
            pending.add(res);
            setTimeout(() => {
              pending.delete(res);
              if (!res.writableEnded) reply(200, JSON.stringify({ utterance: 'too late' }));
            }, 2000).unref();
            return;
          default:
            return reply(404, 'not found');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    for (const res of pending) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const session = (path: string, timeoutMs?: number) =>
    createAgent(`${base}${path}`, { catalog, timeoutMs, headers: { authorization: 'Bearer test' } }).createSession(
      'conv-7',
      createRng(1),
      {},
    );

  test('posts the conversation and returns the validated answer', async () => {
    const history = [
      { speaker: 'user' as const, text: 'hi' },
      { speaker: 'assistant' as const, text: 'Hello!' },
    ];
    const r = await session('/ok').respond('boots please', history);
    assert.equal(r.error, undefined);
    assert.equal(r.utterance, 'Here are two boots.');
    assert.deepEqual(r.acts, ['recommend']);
    assert.equal(r.recommendations.length, 2);
    assert.equal(r.recommendations[0].features, 'Warm, Dry');
    assert.equal(r.recommendations[1].extra, 1, 'unknown item fields are kept');
    assert.ok(typeof r.latency_ms === 'number' && r.latency_ms >= 0);
    const last = received[received.length - 1];
    assert.equal(last.url, '/ok');
    assert.match(last.contentType ?? '', /application\/json/);
    assert.equal(last.auth, 'Bearer test');
    assert.deepEqual(last.body, { conversation_id: 'conv-7', history, user_utterance: 'boots please' });
  });

  test('recommendations and acts are optional', async () => {
    const r = await session('/minimal').respond('hi', []);
    assert.equal(r.error, undefined);
    assert.deepEqual(r.recommendations, []);
    assert.equal(r.acts, undefined);
  });

  test('HTTP errors become AgentResponse.error', async () => {
    const r = await session('/fail').respond('hi', []);
    assert.equal(r.utterance, '');
    assert.deepEqual(r.recommendations, []);
    assert.match(r.error ?? '', /HTTP 500 .*internal trouble/);
    assert.equal(r.error_kind, 'agent_http');
    assert.ok(typeof r.latency_ms === 'number');
  });

  test('invalid JSON becomes an error', async () => {
    const r = await session('/notjson').respond('hi', []);
    assert.equal(r.utterance, '');
    assert.match(r.error ?? '', /invalid JSON .*<html>oops<\/html>/);
    assert.equal(r.error_kind, 'agent_malformed');
  });

  test('schema-invalid answers name the field', async () => {
    const r = await session('/schema').respond('hi', []);
    assert.equal(r.utterance, '');
    assert.match(r.error ?? '', /: recommendations\[0\]\.item_id: required field is missing \(expected a string\)/);
    assert.equal(r.error_kind, 'agent_malformed');
  });

  test('slow answers time out without throwing', async () => {
    const started = Date.now();
    const r = await session('/slow', 150).respond('hi', []);
    assert.equal(r.utterance, '');
    assert.match(r.error ?? '', /timeout after 150 ms/);
    assert.equal(r.error_kind, 'agent_timeout');
    assert.ok(r.latency_ms! >= 140 && Date.now() - started < 1500, `latency ${r.latency_ms}`);
  });

  test('connection failures become errors', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const r = await createAgent(`http://127.0.0.1:${port}/x`, { catalog })
      .createSession('c', createRng(1), {})
      .respond('hi', []);
    assert.equal(r.utterance, '');
    assert.match(r.error ?? '', /request failed .*ECONNREFUSED/);
    assert.equal(r.error_kind, 'agent_unreachable');
  });

  test("the run's hard abort cancels a request in flight and rejects (a cancelled turn is no agent failure)", async () => {
    const abort = new AbortController();
    const s = createAgent(`${base}/slow`, { catalog, timeoutMs: 10_000, signal: abort.signal }).createSession(
      'c',
      createRng(1),
      {},
    );
    const started = Date.now();
    const before = received.length;
    const answer = s.respond('hi', []);
    // Abort once the request is in flight (the server has read it and holds it), not after a fixed wait.
    await until(() => received.length > before);
    abort.abort(new Error('run aborted'));
    await assert.rejects(answer, /run aborted/);
    assert.ok(Date.now() - started < 1000, `took ${Date.now() - started} ms`);
    await assert.rejects(s.respond('again', []), /run aborted/, 'an aborted run sends nothing more');
  });

  test('agent names, the http: prefix and bad specs', () => {
    const a = createAgent(`http:${base}/ok`, { catalog });
    assert.ok(a instanceof HttpAgent);
    assert.equal(a.name, `http:${base}/ok`);
    assert.equal(a.condition, undefined);
    assert.equal((a as HttpAgent).timeoutMs, 30_000);
    assert.throws(() => createAgent('local-great', { catalog }), /unknown agent "local-great"/);
    assert.throws(() => new HttpAgent('ftp://x'), /must use http or https/);
    assert.throws(() => createAgent(`${base}/ok`, { catalog, timeoutMs: 0 }), /timeout/);
  });
});
