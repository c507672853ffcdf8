import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync, truncateSync, writeFileSync, copyFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { RunManifest } from '../../../src/core/model';
import type { Agent, AgentSession } from '../../../src/core/sim/types';
import {
  forkConversation,
  manifestPath,
  mergeRunFiles,
  parseShard,
  parseSimulationConfig,
  prepareEnvironment,
  readManifest,
  runSimulation,
  shardIndices,
  simulateConversation,
  type SimulationEnvironment,
} from '../../../src/core/run/index';
import { encodeConversationLine, serializeConversation } from '../../../src/core/run/output';
import { scratchDir } from '../../support/scratch';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const dir = scratchDir('simlens-run-');
const file = (name: string) => path.join(dir, name);
const read = (name: string) => readFileSync(file(name));
/** A small catalog keeps the local agents' retrieval cheap; the runs are what is under test. */
const CONFIG = { n: 60, seed: 11, catalog_size: 400, agent: 'local-good' } as const;

let env: SimulationEnvironment;
before(async () => {
  env = await prepareEnvironment(parseSimulationConfig(CONFIG));
});

/** The run's local-good agent renamed `name`, calling `before(conversation id, turn from 1)` before each answer. */
function wrappedAgent(name: string, before: (id: string, turn: number) => void | Promise<void>): Agent {
  return {
    name,
    condition: 'good',
    createSession(id, rng, ctx): AgentSession {
      const inner = env.agent.createSession(id, rng, ctx);
      let turn = 0;
      return {
        async respond(u, h) {
          await before(id, ++turn);
          return inner.respond(u, h);
        },
      };
    },
  };
}

describe('shards', () => {
  test('parseShard and shardIndices', () => {
    assert.deepEqual(parseShard('1/4'), { index: 1, count: 4 });
    assert.throws(() => parseShard('4/4'), /below the count/);
    assert.throws(() => parseShard('a/b'), /I\/K/);
    assert.deepEqual(shardIndices(10, { index: 1, count: 4 }), [1, 5, 9]);
    assert.deepEqual(shardIndices(3), [0, 1, 2]);
  });
});

describe('runSimulation', () => {
  test('byte-identical output for concurrency 1 and 4; manifest beside it', async () => {
    const a = await runSimulation(CONFIG, { out: file('c1.jsonl'), environment: env });
    await runSimulation(CONFIG, { out: file('c4.jsonl'), environment: env, concurrency: 4 });
    assert.ok(read('c1.jsonl').equals(read('c4.jsonl')));
    const lines = read('c1.jsonl').toString('utf8').trim().split('\n');
    assert.equal(lines.length, CONFIG.n);
    lines.forEach((l, i) => {
      const c = JSON.parse(l);
      assert.equal(c.metadata.index, i);
      assert.equal(c.id, `sim-11-${String(i).padStart(6, '0')}`);
      assert.match(c.task_id, /_good$/);
      assert.equal(c.condition, 'good');
      assert.equal(c.source, 'agenda-cir6-pkg');
      assert.equal(c.agent, 'local-good');
      assert.ok(['accepted', 'ended', 'gave_up', 'abandoned'].includes(c.outcome), c.outcome);
    });
    const m = RunManifest.parse(JSON.parse(readFileSync(manifestPath(file('c1.jsonl')), 'utf8')));
    assert.equal(m.status, 'finished');
    assert.deepEqual(m.counts, { planned: 60, finished: 60, failed: 0, agent_errors: 0, by_reason: {}, resumed: 0 });
    assert.equal((m as Record<string, unknown>).status, 'finished');
    assert.deepEqual((m as Record<string, unknown>).policy, { max_consecutive_failures: 10 });
    assert.equal(m.seed, 11);
    assert.equal(m.config.agent, 'local-good');
    assert.ok(m.timings.finished && typeof m.timings.wall_ms === 'number');
    assert.equal(a.manifest.run_id, m.run_id);
  });

  test('conversations finishing out of order are still written in index order', async () => {
    // An agent that answers after a delay depending on the conversation, so later ones finish first.
    const slow = wrappedAgent(
      'local-delayed',
      (id) => new Promise((r) => setTimeout(r, 12 - (Number(id.slice(-6)) % 6) * 2)),
    );
    const delayed: SimulationEnvironment = { ...env, agent: slow };
    const cfg = { ...CONFIG, n: 18 };
    await runSimulation(cfg, { out: file('delayed1.jsonl'), environment: delayed });
    await runSimulation(cfg, { out: file('delayed6.jsonl'), environment: delayed, concurrency: 6 });
    assert.ok(read('delayed6.jsonl').equals(read('delayed1.jsonl')));
    const expected = read('c1.jsonl')
      .toString('utf8')
      .split('\n')
      .slice(0, 18)
      .map((l) => l.replace('"agent":"local-good"', '"agent":"local-delayed"'));
    assert.deepEqual(read('delayed6.jsonl').toString('utf8').trim().split('\n'), expected);
  });

  test('the same seed reproduces a conversation independently of the run', async () => {
    const lines = read('c1.jsonl').toString('utf8').trim().split('\n');
    const { conversation } = await simulateConversation(env, 17);
    assert.equal(JSON.stringify(conversation), lines[17]);
  });

  test('resume after a crash mid-line gives the same bytes as an uninterrupted run', async () => {
    copyFileSync(file('c1.jsonl'), file('resume.jsonl'));
    copyFileSync(manifestPath(file('c1.jsonl')), manifestPath(file('resume.jsonl')));
    const full = statSync(file('resume.jsonl')).size;
    truncateSync(file('resume.jsonl'), Math.floor(full * 0.45));
    const r = await runSimulation(CONFIG, { out: file('resume.jsonl'), environment: env, resume: true });
    assert.ok(read('resume.jsonl').equals(read('c1.jsonl')));
    assert.ok(r.manifest.counts.resumed! > 0 && r.manifest.counts.resumed! < CONFIG.n);
    assert.equal(r.manifest.counts.finished, CONFIG.n);
  });

  test('resume refuses another configuration; a fresh run refuses an existing file', async () => {
    await assert.rejects(
      runSimulation({ ...CONFIG, seed: 12 }, { out: file('c1.jsonl'), environment: env, resume: true }),
      /another configuration/,
    );
    await assert.rejects(runSimulation(CONFIG, { out: file('c1.jsonl'), environment: env }), /already exists/);
  });

  test('shards merged in index order equal the unsharded run byte for byte', async () => {
    const parts: string[] = [];
    for (let i = 0; i < 3; i++) {
      const out = file(`part${i}.jsonl`);
      const r = await runSimulation(CONFIG, { out, environment: env, shard: { index: i, count: 3 } });
      assert.equal(r.manifest.counts.planned, shardIndices(CONFIG.n, { index: i, count: 3 }).length);
      parts.push(out);
    }
    const merged = await mergeRunFiles(file('merged.jsonl'), [parts[2], parts[0], parts[1]]);
    assert.equal(merged.lines, CONFIG.n);
    assert.deepEqual(merged.missing, []);
    assert.ok(read('merged.jsonl').equals(read('c1.jsonl')));
    const m = readManifest(file('merged.jsonl'))!;
    assert.equal(m.status, 'finished');
    assert.equal(m.counts.finished, CONFIG.n);
    assert.equal(m.counts.planned, CONFIG.n);
    assert.equal(m.shard, undefined);
    assert.equal(((m as Record<string, unknown>).parts as unknown[]).length, 3);
    // A missing shard is reported.
    const partial = await mergeRunFiles(file('partial.jsonl'), [parts[0], parts[1]]);
    assert.equal(partial.missing.length, shardIndices(CONFIG.n, { index: 2, count: 3 }).length);
    // Parts of different runs are refused.
    await runSimulation(
      { ...CONFIG, seed: 99, n: 6 },
      { out: file('other.jsonl'), environment: env, shard: { index: 0, count: 3 } },
    );
    await assert.rejects(mergeRunFiles(file('bad.jsonl'), [parts[0], file('other.jsonl')]), /configuration differs/);
  });

  test('cancellation keeps finished conversations in order; resume completes the run', async () => {
    const controller = new AbortController();
    let seen = 0;
    const r = await runSimulation(CONFIG, {
      out: file('cancel.jsonl'),
      environment: env,
      concurrency: 3,
      signal: controller.signal,
      progressIntervalMs: 0,
      onProgress: (p) => {
        seen = p.finished;
        if (p.finished >= 10) controller.abort();
      },
    });
    assert.equal(r.manifest.status, 'cancelled');
    assert.ok(seen >= 10);
    const written = read('cancel.jsonl').toString('utf8').trim().split('\n');
    assert.ok(written.length >= 10 && written.length < CONFIG.n, `${written.length} written`);
    written.forEach((l, i) => assert.equal(JSON.parse(l).metadata.index, i));
    assert.equal(r.manifest.counts.finished, written.length);
    await runSimulation(CONFIG, { out: file('cancel.jsonl'), environment: env, resume: true });
    assert.ok(read('cancel.jsonl').equals(read('c1.jsonl')));
  });

  test('a finished conversation is not kept alive by the run (hard-abort race): collectable before the run ends', async () => {
    // Racing every conversation against one shared, never-settling abort promise kept every
    // result alive until the run ended (~22 KB a conversation; 850 MB RSS at 40,000).
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const controller = new AbortController();
    let first: WeakRef<object> | undefined;
    let collected: boolean | undefined;
    const agent = wrappedAgent('local-good', async (id, turn) => {
      if (id.endsWith('000050') && turn === 2) {
        await new Promise((r) => setImmediate(r));
        gc();
        collected = first !== undefined && first.deref() === undefined;
      }
    });
    const runEnv: SimulationEnvironment = {
      ...env,
      agent: {
        ...agent,
        createSession(id, rng, ctx) {
          const s = agent.createSession(id, rng, ctx);
          return {
            respond: async (u, h) => {
              const response = await s.respond(u, h);
              // The carousel goes into the conversation's turn as it is: reachable exactly as long as the conversation.
              if (id.endsWith('000000') && !first && response.recommendations?.length)
                first = new WeakRef(response.recommendations);
              return response;
            },
          };
        },
      },
    };
    const r = await runSimulation(CONFIG, {
      out: file('abort-gc.jsonl'),
      environment: runEnv,
      abort: controller.signal,
      overwrite: true,
    });
    assert.equal(r.manifest.counts.finished, CONFIG.n);
    assert.ok(first, 'conversation 0 was seen');
    assert.equal(collected, true, 'conversation 0 was still reachable while conversation 50 ran');
  });

  test('an error inside one conversation is recorded on it and the run goes on', async () => {
    const failing = wrappedAgent('local-flaky', (id, turn) => {
      if (id.endsWith('000003') && turn === 2) throw new Error('recommender exploded');
    });
    const flaky: SimulationEnvironment = { ...env, agent: failing };
    const r = await runSimulation({ ...CONFIG, n: 6 }, { out: file('flaky.jsonl'), environment: flaky });
    assert.equal(r.manifest.status, 'finished');
    assert.equal(r.manifest.counts.failed, 1);
    assert.deepEqual(r.manifest.counts.by_reason, { simulator_error: 1 });
    const convs = read('flaky.jsonl')
      .toString('utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(convs.length, 6);
    assert.equal(convs[3].metadata.error, 'recommender exploded');
    assert.equal(convs[3].metadata.error_kind, 'simulator_error');
    assert.equal(convs[3].outcome, 'simulator_error', 'a failure of the run, not a user outcome');
    assert.equal(convs[3].turns.length, 1, 'the turns before the error are kept');
    assert.ok(convs.filter((c) => c.metadata.error).length === 1);
  });

  test('an agent error is recorded on its turn only and ends the conversation as agent_error', async () => {
    const erring: Agent = {
      name: 'local-erring',
      createSession(): AgentSession {
        return {
          async respond() {
            return {
              utterance: '',
              recommendations: [],
              error: 'timeout after 5 ms',
              error_kind: 'agent_timeout',
              latency_ms: 5,
            };
          },
        };
      },
    };
    const r = await runSimulation(
      { ...CONFIG, n: 2 },
      { out: file('erring.jsonl'), environment: { ...env, agent: erring } },
    );
    assert.deepEqual(
      [r.manifest.counts.failed, r.manifest.counts.agent_errors, r.manifest.counts.by_reason],
      [2, 2, { agent_timeout: 2 }],
    );
    const c = JSON.parse(read('erring.jsonl').toString('utf8').split('\n')[0]);
    assert.equal(c.outcome, 'agent_error');
    assert.equal(c.turns.length, 1, 'the user never reacts to a failed turn');
    assert.equal(c.turns[0].trace.error, 'timeout after 5 ms');
    assert.equal(c.turns[0].trace.error_kind, 'agent_timeout');
    assert.equal(c.turns[0].trace.latency_ms, undefined, 'timings stay out of the output');
    assert.equal(c.turns[0].assistant_utterance, undefined);
    assert.deepEqual([c.metadata.error, c.metadata.error_kind], ['timeout after 5 ms', 'agent_timeout']);
    assert.equal(c.task_id.includes('_'), false, 'no condition, no suffix');
    assert.deepEqual((r.manifest.timings as Record<string, unknown>).agent_latency_ms, {
      count: 2,
      mean: 5,
      p50: 5,
      p95: 5,
      max: 5,
    });
  });

  test('a run that stopped on failures resumes with the failures counted from the file', async () => {
    let down = true;
    const flaky: Agent = {
      name: 'local-outage',
      condition: 'good',
      createSession(id, rng, ctx): AgentSession {
        const inner = env.agent.createSession(id, rng, ctx);
        return {
          respond: async (u, h) =>
            down
              ? { utterance: '', recommendations: [], error: 'HTTP 503', error_kind: 'agent_http' }
              : inner.respond(u, h),
        };
      },
    };
    const outage = { ...env, agent: flaky };
    const cfg = { ...CONFIG, n: 12 };
    const stopped = await runSimulation(cfg, {
      out: file('outage.jsonl'),
      environment: outage,
      maxConsecutiveFailures: 4,
      concurrency: 2,
    });
    assert.equal(stopped.manifest.status, 'stopped');
    assert.match(
      String((stopped.manifest as Record<string, unknown>).stop_reason),
      /4 consecutive failures \(last: agent_http: HTTP 503\)/,
    );
    const kept = read('outage.jsonl').toString('utf8').trim().split('\n');
    assert.ok(kept.length >= 4 && kept.length < 12, `${kept.length} kept`);
    assert.equal(stopped.manifest.counts.failed, kept.length);
    down = false;
    const resumed = await runSimulation(cfg, {
      out: file('outage.jsonl'),
      environment: outage,
      resume: true,
      maxConsecutiveFailures: 4,
    });
    assert.equal(resumed.manifest.status, 'finished');
    assert.deepEqual(
      [
        resumed.manifest.counts.finished,
        resumed.manifest.counts.failed,
        resumed.manifest.counts.by_reason,
        resumed.manifest.counts.resumed,
      ],
      [12, kept.length, { agent_http: kept.length }, kept.length],
    );
    // 0 = never stop.
    down = true;
    const never = await runSimulation(cfg, {
      out: file('outage-never.jsonl'),
      environment: outage,
      maxConsecutiveFailures: 0,
    });
    assert.deepEqual([never.manifest.status, never.manifest.counts.failed], ['finished', 12]);
  });
});

describe('fork', () => {
  test('replay: K continuations share the prefix byte for byte and record where they come from', async () => {
    const lines = read('c1.jsonl')
      .toString('utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const original = lines.find((c) => c.turns.length >= 3)!;
    const r = await forkConversation({ file: file('c1.jsonl'), id: original.id, turn: 1, n: 4, environment: env });
    assert.equal(r.conversations.length, 4);
    assert.deepEqual(r.methods, ['replay', 'replay', 'replay', 'replay']);
    const prefix = JSON.stringify(original.turns.slice(0, 2));
    for (const [k, c] of r.conversations.entries()) {
      assert.equal(JSON.stringify(c.turns.slice(0, 2)), prefix);
      assert.ok(c.turns.length >= 3);
      assert.deepEqual(c.metadata?.forked_from, { file: file('c1.jsonl'), id: original.id, turn: 1 });
      assert.equal(c.id, `${original.id}~fork-t1-${k}`);
    }
    const again = await forkConversation({ file: file('c1.jsonl'), id: original.id, turn: 1, n: 4, environment: env });
    assert.equal(JSON.stringify(again.conversations), JSON.stringify(r.conversations), 'forks are seeded');
  });

  test('restore: without a manifest the user state comes from the trace', async () => {
    const lines = read('c1.jsonl').toString('utf8').trim().split('\n');
    writeFileSync(file('nomanifest.jsonl'), lines.slice(0, 10).join('\n') + '\n');
    const original = lines
      .map((l) => JSON.parse(l))
      .slice(0, 10)
      .find((c) => c.turns.length >= 3)!;
    // The fresh agent session of each continuation hears the prefix's user utterances, each with
    // the history before it, before the conversation runs on.
    const heard: { id: string; text: string; history: string[] }[] = [];
    const listening: SimulationEnvironment = {
      ...env,
      agent: {
        ...env.agent,
        createSession: (id, rng, context) => {
          const session = env.agent.createSession(id, rng, context);
          const respond = session.respond.bind(session);
          session.respond = (text, history) => {
            heard.push({ id, text, history: history.map((h) => `${h.speaker}: ${h.text}`) });
            return respond(text, history);
          };
          return session;
        },
      },
    };
    const r = await forkConversation({
      file: file('nomanifest.jsonl'),
      id: original.id,
      turn: 1,
      n: 2,
      environment: listening,
    });
    assert.deepEqual(r.methods, ['restore', 'restore']);
    const t = original.turns as { user_utterance: string; assistant_utterance: string }[];
    for (const c of r.conversations)
      assert.deepEqual(heard.filter((h) => h.id === c.id).slice(0, 2), [
        { id: c.id, text: t[0].user_utterance, history: [] },
        {
          id: c.id,
          text: t[1].user_utterance,
          history: [`user: ${t[0].user_utterance}`, `assistant: ${t[0].assistant_utterance}`],
        },
      ]);
    for (const c of r.conversations) {
      assert.equal(JSON.stringify(c.turns.slice(0, 2)), JSON.stringify(original.turns.slice(0, 2)));
      const t2 = c.turns[2]?.trace;
      assert.ok(t2, 'a continuation turn exists');
      assert.equal(t2.patience! <= original.turns[1].trace.patience, true);
      assert.equal(c.metadata?.fork_method, 'restore');
    }
  });

  test('bad fork requests name the problem', async () => {
    await assert.rejects(
      forkConversation({ file: file('c1.jsonl'), id: 'nope', turn: 0, n: 1, environment: env }),
      /no conversation with id "nope"/,
    );
    const first = JSON.parse(read('c1.jsonl').toString('utf8').split('\n')[0]);
    // Turns are counted from 1 in messages, as the editor and the CLI's FILE:ID:TURN count them.
    await assert.rejects(
      forkConversation({ file: file('c1.jsonl'), id: first.id, turn: 99, n: 1, environment: env }),
      new RegExp(`has turns 1\\.\\.${first.turns.length}; turn 100 does not exist`),
    );
  });

  test('a human dialogue is refused with the reason, not read as a simulator run (its agent is a crowd worker)', async () => {
    const human = {
      id: '20001',
      source: 'human',
      agent: '293',
      turns: [
        { user_utterance: 'hi', assistant_utterance: 'hello, what do you like?' },
        { user_utterance: 'comedies', assistant_utterance: 'try X' },
      ],
    };
    writeFileSync(file('human.jsonl'), JSON.stringify(human) + '\n');
    await assert.rejects(forkConversation({ file: file('human.jsonl'), id: '20001', turn: 0, n: 1 }), (e: Error) => {
      assert.match(e.message, /cannot fork "20001": a human dialogue has no simulated user to continue it/);
      assert.doesNotMatch(e.message, /unknown agent/);
      return true;
    });
  });
});

test('the output directory is clean of temporary manifests', () => {
  assert.ok(existsSync(manifestPath(file('c1.jsonl'))));
  assert.deepEqual(
    readdirSync(path.dirname(file('c1.jsonl'))).filter((n) => n.endsWith('.tmp')),
    [],
  );
});

describe('serializeConversation', () => {
  test('equals JSON.stringify on real runs and on odd input', async () => {
    for (let i = 0; i < 40; i++) {
      const { conversation } = await simulateConversation(env, 1000 + i);
      assert.equal(serializeConversation(conversation), JSON.stringify(conversation));
      assert.equal(serializeConversation(conversation), JSON.stringify(conversation), 'again, from the cache');
      assert.equal(
        Buffer.concat(encodeConversationLine(conversation)).toString('utf8'),
        JSON.stringify(conversation) + '\n',
      );
    }
    const { conversation } = await simulateConversation(env, 7);
    const twisted = structuredClone(conversation);
    const shown = twisted.turns.find((t) => t.recommendations?.length)!;
    shown.recommendations![0].title = 'Changed title';
    shown.assistant_utterance = '\u0000rec0\u0000';
    twisted.turns.push({ user_utterance: '"\u0000rec1\u0000"', recommendations: [] });
    assert.equal(serializeConversation(twisted), JSON.stringify(twisted));
    assert.equal(Buffer.concat(encodeConversationLine(twisted)).toString('utf8'), JSON.stringify(twisted) + '\n');
    shown.recommendations![1].title = 'Ünïcödé ✓';
    assert.equal(Buffer.concat(encodeConversationLine(twisted)).toString('utf8'), JSON.stringify(twisted) + '\n');
    assert.equal(serializeConversation({ turns: [] }), '{"turns":[]}');
  });
});
