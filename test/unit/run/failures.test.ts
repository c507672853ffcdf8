/**
 * Run accounting against a loopback HTTP recommender (127.0.0.1, started and stopped here): agent
 * failures are their own outcome and counted per reason in the summary, the manifest and the exit
 * code; the consecutive-failure policy stops a run that --resume continues; outputs do not depend
 * on --concurrency (no timings in the lines); Ctrl-C finishes the conversations in flight and a
 * second Ctrl-C aborts them at once.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { runCli } from '../../support/cli';
import { withFakeOpenAI } from '../../support/fakeOpenAI';
import { generateApparelCatalog } from '../../../src/core/catalog/catalog';
import { createAgent } from '../../../src/core/sim/recommenders/index';
import { createRng } from '../../../src/core/random';
import type { Agent, AgentSession, UserSession, UserSimulator } from '../../../src/core/sim/types';
import { checkConversations } from '../../../src/core/check';
import {
  mergeRunFiles,
  parseSimulationConfig,
  prepareEnvironment,
  readManifest,
  runSimulation,
} from '../../../src/core/run/index';
import { scratchDir } from '../../support/scratch';

const REPO = path.resolve(__dirname, '../../..');
const dir = scratchDir('simlens-run-failures-');
const file = (name: string) => path.join(dir, name);
const lines = (name: string) => {
  const text = existsSync(file(name)) ? readFileSync(file(name), 'utf8') : '';
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
};
const manifestOf = (name: string) => JSON.parse(readFileSync(`${file(name)}.manifest.json`, 'utf8'));

/** What the loopback recommender does with turn `turn` (0-based) of conversation `id`. */
type Action = 'ok' | 'http500' | 'malformed' | 'hang' | { delayMs: number };

interface Served {
  id: string;
  turn: number;
  action: string;
}

/**
 * A recommender on 127.0.0.1: a local-good session per conversation (fresh at its first turn), so
 * answers are deterministic; `behave` decides per (conversation, turn) whether it answers, fails or
 * hangs. Every request is logged.
 */
class LoopbackRecommender {
  server!: http.Server;
  url = '';
  log: Served[] = [];
  behave: (id: string, turn: number) => Action = () => 'ok';
  private readonly agent = createAgent('local-good', { catalog: generateApparelCatalog({ size: 300 }) });
  private readonly sessions = new Map<string, AgentSession>();
  private readonly open = new Set<http.ServerResponse>();

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      let data = '';
      req.on('data', (c) => (data += c));
      req.on('end', () => void this.handle(data, res));
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/chat`;
  }

  private async handle(data: string, res: http.ServerResponse): Promise<void> {
    const body = JSON.parse(data) as {
      conversation_id: string;
      history: { speaker: string; text: string }[];
      user_utterance: string;
    };
    const turn = body.history.filter((h) => h.speaker === 'user').length;
    const action = this.behave(body.conversation_id, turn);
    const served: Served = { id: body.conversation_id, turn, action: typeof action === 'string' ? action : 'ok' };
    this.log.push(served);
    if (action === 'hang') {
      this.open.add(res);
      res.on('close', () => this.open.delete(res));
      return;
    }
    if (action === 'http500') {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('upstream model crashed');
      return;
    }
    if (action === 'malformed') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ text: 'no utterance field' }));
      return;
    }
    if (typeof action === 'object') await new Promise((r) => setTimeout(r, action.delayMs));
    if (turn === 0)
      this.sessions.set(
        body.conversation_id,
        this.agent.createSession(body.conversation_id, createRng(body.conversation_id), {}),
      );
    const session = this.sessions.get(body.conversation_id)!;
    const answer = await session.respond(body.user_utterance, body.history as never);
    if (res.destroyed) {
      // The client gave up before the answer was ready (a slow answer on a loaded machine): from its
      // side this request timed out like a hang.
      served.action = 'hang';
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ utterance: answer.utterance, recommendations: answer.recommendations, acts: answer.acts }),
    );
  }

  requestsOf(id: string): Served[] {
    return this.log.filter((s) => s.id === id);
  }

  async stop(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

const cli = (...argv: string[]) => runCli(argv, dir);

const small = ['--catalog-size', '300', '--quiet'];
const indexOf = (id: string) => Number(id.slice(-6));

const rec = new LoopbackRecommender();
before(() => rec.start());
after(() => rec.stop());

describe('agent failures are their own outcome', () => {
  test('HTTP errors, malformed answers and timeouts end the conversation as agent_error, counted per reason', async () => {
    rec.log = [];
    rec.behave = (id, turn) => {
      const i = indexOf(id);
      if (i % 3 === 0 && turn === 1) return 'http500';
      if (i % 5 === 1 && turn === 0) return 'malformed';
      if (i % 7 === 2 && turn === 2) return 'hang';
      return 'ok';
    };
    const n = 40;
    const r = await runSimulation(
      { n, seed: 3, catalog_size: 300, agent: rec.url, timeout_ms: 1500 },
      { out: file('mixed.jsonl'), concurrency: 4 },
    );
    const convs = lines('mixed.jsonl');
    assert.equal(convs.length, n);
    const kindOf: Record<string, string> = {
      http500: 'agent_http',
      malformed: 'agent_malformed',
      hang: 'agent_timeout',
    };
    const expected = new Map<string, string>();
    for (const s of rec.log) if (s.action !== 'ok') expected.set(s.id, kindOf[s.action]);
    assert.ok(expected.size >= 10, `${expected.size} conversations hit a failure`);
    const byReason: Record<string, number> = {};
    for (const kind of expected.values()) byReason[kind] = (byReason[kind] ?? 0) + 1;
    assert.deepEqual(r.manifest.counts, {
      planned: n,
      finished: n,
      failed: expected.size,
      agent_errors: expected.size,
      by_reason: byReason,
      resumed: 0,
    });
    let errorEntries = 0;
    for (const c of convs) {
      errorEntries += c.turns.filter((t: { trace?: { error?: string } }) => t.trace?.error !== undefined).length;
      const kind = expected.get(c.id);
      if (!kind) {
        assert.notEqual(c.outcome, 'agent_error', c.id);
        assert.equal(c.metadata.error, undefined, c.id);
        continue;
      }
      assert.equal(c.outcome, 'agent_error', c.id);
      assert.equal(c.metadata.error_kind, kind, c.id);
      const last = c.turns[c.turns.length - 1];
      assert.equal(last.trace.error_kind, kind);
      assert.equal(last.trace.error, c.metadata.error);
      assert.equal(last.assistant_utterance, undefined, 'a failed turn has no assistant utterance');
      assert.equal(typeof last.user_utterance, 'string');
      // The conversation stopped at the failed request: no turn after it, and the user never reacted.
      const served = rec.requestsOf(c.id);
      assert.equal(served[served.length - 1].action !== 'ok', true, `${c.id}: the failure was the last request`);
      assert.equal(c.turns.length, served.length);
    }
    assert.equal(errorEntries, expected.size, 'each failure is recorded once, never copied to another turn');
    assert.ok(!JSON.stringify(convs).includes('latency_ms'), 'no timings in the output');
  });

  test('simulate: the summary line, the manifest and the exit code report failures; merge keeps the counts', async () => {
    rec.behave = (id, turn) => (indexOf(id) % 4 === 0 && turn === 0 ? 'http500' : 'ok');
    const r = await cli(
      'simulate',
      '--agent',
      rec.url,
      '--n',
      '16',
      '--seed',
      '9',
      '--out',
      'cli.jsonl',
      '--concurrency',
      '3',
      ...small,
    );
    assert.equal(r.code, 1, 'a failed conversation makes exit 1: ' + r.out + r.err + JSON.stringify(rec.log.slice(-3)));
    assert.match(r.out, /^finished: 16\/16 conversations in cli\.jsonl, 4 failed \(agent_http 4\)/);
    const m = manifestOf('cli.jsonl');
    assert.equal(m.status, 'finished');
    assert.deepEqual([m.counts.failed, m.counts.agent_errors, m.counts.by_reason], [4, 4, { agent_http: 4 }]);
    // Shards, then merge: the merged manifest counts the same failures.
    for (const i of [0, 1]) {
      const s = await cli(
        'simulate',
        '--agent',
        rec.url,
        '--n',
        '16',
        '--seed',
        '9',
        '--shard',
        `${i}/2`,
        '--out',
        `cli-p${i}.jsonl`,
        ...small,
      );
      assert.equal(s.code, i === 0 ? 1 : 0, 'the failing indices (multiples of 4) are all in shard 0');
    }
    const mr = await cli('merge', 'cli-merged.jsonl', 'cli-p0.jsonl', 'cli-p1.jsonl');
    assert.equal(mr.code, 0, mr.err);
    assert.match(mr.out, /16 conversations, 4 failed \(agent_http 4\), manifest merged/);
    assert.ok(readFileSync(file('cli-merged.jsonl')).equals(readFileSync(file('cli.jsonl'))));
    const merged = readManifest(file('cli-merged.jsonl'))!;
    assert.deepEqual(
      [merged.counts.failed, merged.counts.agent_errors, merged.counts.by_reason],
      [4, 4, { agent_http: 4 }],
    );
    // Overlapping parts (the same conversations twice) are counted once.
    const twice = await mergeRunFiles(file('cli-twice.jsonl'), [file('cli-p0.jsonl'), file('cli.jsonl')]);
    assert.deepEqual([twice.manifest!.counts.failed, twice.manifest!.counts.by_reason], [4, { agent_http: 4 }]);
  });

  test('an unreachable recommender: every conversation agent_error (agent_unreachable), exit 1', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const r = await cli(
      'simulate',
      '--agent',
      `http://127.0.0.1:${port}/chat`,
      '--n',
      '12',
      '--out',
      'down.jsonl',
      '--max-consecutive-failures',
      '0',
      ...small,
    );
    assert.equal(r.code, 1);
    assert.match(r.out, /finished: 12\/12 .*, 12 failed \(agent_unreachable 12\)/);
    const convs = lines('down.jsonl');
    assert.equal(convs.length, 12);
    assert.ok(
      convs.every(
        (c) => c.outcome === 'agent_error' && c.turns.length === 1 && c.metadata.error_kind === 'agent_unreachable',
      ),
    );
    assert.equal(manifestOf('down.jsonl').counts.by_reason.agent_unreachable, 12);
  });

  test('--max-consecutive-failures stops the run (manifest "stopped", exit 1); --resume continues with the counts kept', async () => {
    rec.behave = () => 'http500';
    const stopped = await cli(
      'simulate',
      '--agent',
      rec.url,
      '--n',
      '30',
      '--seed',
      '4',
      '--out',
      'policy.jsonl',
      ...small,
    );
    assert.equal(stopped.code, 1);
    assert.match(stopped.out, /^stopped: 10\/30 conversations .* 10 failed \(agent_http 10\)/);
    assert.match(stopped.err, /stopped after 10 consecutive failures \(last: agent_http: HTTP 500/);
    const m = manifestOf('policy.jsonl');
    assert.equal(m.status, 'stopped');
    assert.match(m.stop_reason, /10 consecutive failures/);
    assert.equal(m.policy.max_consecutive_failures, 10);
    assert.equal(lines('policy.jsonl').length, 10, 'every finished conversation is kept');
    rec.behave = () => 'ok';
    const resumed = await cli(
      'simulate',
      '--agent',
      rec.url,
      '--n',
      '30',
      '--seed',
      '4',
      '--out',
      'policy.jsonl',
      '--resume',
      ...small,
    );
    assert.equal(resumed.code, 1, 'the 10 failed conversations are still failures');
    assert.match(
      resumed.out,
      /^finished: 30\/30 conversations in policy\.jsonl \(10 from before\), 10 failed \(agent_http 10\)/,
    );
    const after = manifestOf('policy.jsonl');
    assert.equal(after.status, 'finished');
    assert.deepEqual(
      [after.counts.failed, after.counts.agent_errors, after.counts.by_reason, after.counts.resumed],
      [10, 10, { agent_http: 10 }, 10],
    );
    assert.equal(lines('policy.jsonl').filter((c) => c.outcome === 'agent_error').length, 10);
  });
});

describe('determinism and traces', () => {
  test('HTTP runs are byte-identical for any --concurrency; latency statistics go to the manifest', async () => {
    // Delays that make later conversations finish first.
    rec.behave = (id, turn) => ({ delayMs: ((indexOf(id) * 7 + turn * 3) % 5) * 4 });
    rec.log = [];
    const cfg = { n: 14, seed: 21, catalog_size: 300, agent: rec.url };
    const one = await runSimulation(cfg, { out: file('http-c1.jsonl') });
    const calls = rec.log.length;
    await runSimulation(cfg, { out: file('http-c5.jsonl'), concurrency: 5 });
    assert.ok(readFileSync(file('http-c1.jsonl')).equals(readFileSync(file('http-c5.jsonl'))));
    assert.ok(!readFileSync(file('http-c1.jsonl'), 'utf8').includes('latency'));
    const stats = (
      one.manifest.timings as Record<string, { count: number; mean: number; p50: number; p95: number; max: number }>
    ).agent_latency_ms;
    assert.equal(stats.count, calls);
    assert.ok(stats.p50 <= stats.p95 && stats.p95 <= stats.max && stats.mean > 0, JSON.stringify(stats));
  });

  test("the agent's reading of the turn is recorded as trace.agent; an observing session's promise is awaited", async () => {
    const env = await prepareEnvironment(parseSimulationConfig({ n: 4, seed: 2, catalog_size: 300 }));
    const reading: Agent = {
      name: 'local-reading',
      createSession(id, rng, ctx): AgentSession {
        const inner = env.agent.createSession(id, rng, ctx);
        return {
          async respond(u, h) {
            const r = await inner.respond(u, h);
            return { ...r, agent_trace: { query: u.toLowerCase(), retrieved: r.recommendations.length } };
          },
        };
      },
    };
    const observing: UserSimulator = {
      name: 'observing',
      createSession(id, rng, ctx): UserSession {
        const inner = env.user.createSession(id, rng, ctx);
        return {
          start: () => inner.start(),
          respond: (r) => inner.respond(r),
          // An async hook (the contract is synchronous): its result must not be dropped.
          observe: async () => ({ satisfaction: 0.25 }),
        } as UserSession;
      },
    };
    const r = await runSimulation(
      { n: 4, seed: 2, catalog_size: 300 },
      { out: file('traces.jsonl'), environment: { ...env, agent: reading, user: observing } },
    );
    assert.equal(r.manifest.counts.failed, 0);
    const turns = lines('traces.jsonl')
      .flatMap((c) => c.turns)
      .filter((t) => t.assistant_utterance !== undefined);
    assert.ok(turns.length > 4);
    for (const t of turns) {
      assert.deepEqual(t.trace.agent, {
        query: t.user_utterance.toLowerCase(),
        retrieved: (t.recommendations ?? []).length,
      });
      assert.equal(t.trace.satisfaction, 0.25);
    }
  });

  test('a user that cannot speak ends its conversation as a failure of its reason; a simulator exception is simulator_error', async () => {
    const env = await prepareEnvironment(parseSimulationConfig({ n: 6, seed: 2, catalog_size: 300 }));
    let agentCallsAfterFailure = 0;
    let threw = false;
    const failed = new Set<string>();
    const muted: UserSimulator = {
      name: 'muted',
      createSession(id, rng, ctx): UserSession {
        const inner = env.user.createSession(id, rng, ctx);
        let turns = 0;
        return {
          start: () => inner.start(),
          async respond(r) {
            const u = await inner.respond(r);
            if (indexOf(id) % 2 === 0 && ++turns === 1) {
              failed.add(id);
              // As the LLM users do (src/core/sim/users/llm/base.ts): nothing said, nothing claimed.
              return {
                utterance: '',
                act: u.act,
                done: true,
                trace: { operation: 'end' },
                failure: { reason: 'user_llm', message: 'replies stayed empty after 3 attempts' },
              };
            }
            if (indexOf(id) === 3) {
              threw = true;
              throw new Error('simulator bug');
            }
            return u;
          },
        };
      },
    };
    const counting: Agent = {
      name: 'local-counting',
      createSession(id, rng, ctx): AgentSession {
        const inner = env.agent.createSession(id, rng, ctx);
        return {
          respond(u, h) {
            if (failed.has(id)) agentCallsAfterFailure++;
            return inner.respond(u, h);
          },
        };
      },
    };
    const r = await runSimulation(
      { n: 6, seed: 2, catalog_size: 300 },
      { out: file('user-fail.jsonl'), environment: { ...env, user: muted, agent: counting } },
    );
    const convs = lines('user-fail.jsonl');
    const muteds = convs.filter((c) => c.metadata.error_kind === 'user_llm');
    assert.equal(muteds.length, failed.size);
    assert.equal(agentCallsAfterFailure, 0, 'the agent is not called after the user failed');
    for (const c of muteds) {
      const last = c.turns[c.turns.length - 1];
      assert.equal(last.trace.error_kind, 'user_llm');
      assert.equal(last.trace.error, 'replies stayed empty after 3 attempts');
      // A failure of the run, never a user outcome (not "ended", not "abandoned").
      assert.equal(c.outcome, 'simulator_error');
    }
    const crashed = convs.filter((c) => c.metadata.error_kind === 'simulator_error');
    assert.ok(threw, 'conversation 3 reached the failing respond');
    assert.deepEqual(
      crashed.map((c) => [indexOf(c.id), c.metadata.error, c.outcome]),
      [[3, 'simulator bug', 'simulator_error']],
    );
    // Every other conversation has a user outcome; the run's invariants hold for all of them.
    for (const c of convs)
      if (c.metadata.error_kind === undefined)
        assert.ok(['accepted', 'ended', 'gave_up', 'abandoned'].includes(c.outcome), c.outcome);
    const checked = checkConversations(convs, { catalog: env.catalog });
    assert.deepEqual(
      checked.failed,
      [],
      JSON.stringify(checked.invariants.filter((i) => i.violations).map((i) => i.examples)),
    );
    const rule = checked.invariants.find((i) => i.id === 'simulator-error-outcome');
    assert.equal(rule?.status, 'pass');
    assert.equal(rule?.conversations, failed.size + 1);
    assert.ok(failed.size >= 2);
    assert.deepEqual(r.manifest.counts.by_reason, { user_llm: failed.size, simulator_error: 1 });
    assert.equal(r.manifest.counts.failed, failed.size + 1);
    assert.equal(r.manifest.counts.agent_errors, 0);
  });
});

/** Spawns the CLI as a real process (TypeScript through tsx) in `dir`. */
function spawnCli(args: string[], env: Record<string, string> = {}) {
  const tsx = pathToFileURL(path.join(REPO, 'node_modules/tsx/dist/loader.mjs')).href;
  const child = spawn(process.execPath, ['--import', tsx, path.join(REPO, 'src/cli/cli.ts'), ...args], {
    cwd: dir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<{ code: number | null; out: string; err: string }>((r) =>
    child.on('exit', (code) => r({ code, out, err })),
  );
  return { child, exited, stderr: () => err };
}

// A condition, not a delay: the CLI children start through tsx, which takes seconds on a loaded machine.
async function waitFor(cond: () => boolean, ms = 90_000): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('Ctrl-C', () => {
  test('SIGINT finishes the conversations in flight and writes them; the manifest says cancelled; --resume completes', async () => {
    rec.log = [];
    rec.behave = () => ({ delayMs: 150 });
    const args = [
      'simulate',
      '--agent',
      rec.url,
      '--n',
      '30',
      '--seed',
      '8',
      '--concurrency',
      '4',
      '--max-turns',
      '4',
      ...small,
    ];
    const { child, exited } = spawnCli([...args, '--out', 'sigint.jsonl']);
    await waitFor(() => new Set(rec.log.map((s) => s.id)).size >= 4);
    const started = new Set(rec.log.map((s) => s.id));
    child.kill('SIGINT');
    const r = await exited;
    assert.equal(r.code, 1, r.err);
    assert.match(r.err, /finishing the conversations in flight/);
    const m = manifestOf('sigint.jsonl');
    assert.equal(m.status, 'cancelled');
    const convs = lines('sigint.jsonl');
    assert.ok(convs.length >= started.size && convs.length < 30, `${convs.length} written, ${started.size} started`);
    for (const id of started)
      assert.ok(
        convs.some((c) => c.id === id),
        `${id} was in flight and is written`,
      );
    assert.ok(
      convs.every((c) => c.outcome !== 'agent_error' && c.metadata.error === undefined),
      'nothing was cut short',
    );
    assert.equal(m.counts.finished, convs.length);
    assert.equal(m.counts.failed, 0);
    rec.behave = () => 'ok';
    const resumed = await cli(...args, '--out', 'sigint.jsonl', '--resume');
    assert.equal(resumed.code, 0, resumed.err);
    const full = await cli(...args, '--out', 'sigint-full.jsonl');
    assert.equal(full.code, 0, full.err);
    assert.ok(readFileSync(file('sigint.jsonl')).equals(readFileSync(file('sigint-full.jsonl'))));
  });

  test('SIGINT lets LLM conversations in flight finish (the LLM services only get the hard abort)', async () => {
    await withFakeOpenAI(
      { latencyMs: 250, handler: () => ({ content: 'Here are a few options. Any colour in mind?' }) },
      async (fake) => {
        const { child, exited } = spawnCli(
          [
            'simulate',
            '--agent',
            'llm-good',
            '--base-url',
            fake.url,
            '--model',
            'fake-chat',
            '--no-cache',
            '--n',
            '12',
            '--seed',
            '8',
            '--concurrency',
            '3',
            '--max-turns',
            '3',
            '--out',
            'llm-sigint.jsonl',
            ...small,
          ],
          { SIMLENS_API_KEY: 'sk-test-0123456789' },
        );
        await waitFor(() => fake.requests.length >= 3);
        child.kill('SIGINT');
        const r = await exited;
        assert.equal(r.code, 1, r.err);
        const m = manifestOf('llm-sigint.jsonl');
        assert.equal(m.status, 'cancelled', r.err);
        const convs = lines('llm-sigint.jsonl');
        assert.ok(convs.length >= 3 && convs.length < 12, `${convs.length} written: the 3 in flight were finished`);
        assert.ok(
          convs.every(
            (c) =>
              c.metadata.error === undefined &&
              c.turns.every((t: { assistant_utterance?: string }) => t.assistant_utterance),
          ),
        );
        assert.equal(m.counts.finished, convs.length);
      },
    );
  });

  test('a second SIGINT aborts the requests in flight at once; nothing cut short is written', async () => {
    rec.log = [];
    rec.behave = (id) => (indexOf(id) < 3 ? 'ok' : 'hang');
    const { child, exited, stderr } = spawnCli([
      'simulate',
      '--agent',
      rec.url,
      '--n',
      '20',
      '--seed',
      '8',
      '--concurrency',
      '2',
      '--timeout-ms',
      '20000',
      '--out',
      'abort.jsonl',
      ...small,
    ]);
    await waitFor(() => rec.log.filter((s) => s.action === 'hang').length >= 2);
    child.kill('SIGINT');
    // The first signal must be handled before the second is sent (pending signals do not queue):
    // the CLI says so on stderr, and a run that never says it fails here.
    await waitFor(() => /finishing the conversations in flight/.test(stderr()));
    child.kill('SIGINT');
    const t0 = Date.now();
    const r = await exited;
    assert.ok(Date.now() - t0 < 5000, `exited after ${Date.now() - t0} ms`);
    assert.equal(r.code, 1, r.err);
    const m = manifestOf('abort.jsonl');
    assert.equal(m.status, 'cancelled');
    assert.match(m.stop_reason, /aborted/);
    const convs = lines('abort.jsonl');
    assert.ok(
      convs.every((c) => indexOf(c.id) < 3 && c.metadata.error === undefined),
      'only finished conversations are written',
    );
    assert.equal(m.counts.finished, convs.length);
    assert.equal(m.counts.failed, 0);
  });
});

test('the manifest validates (status "stopped" is a known status)', () => {
  assert.equal(readManifest(file('down.jsonl'))!.status, 'finished');
});
