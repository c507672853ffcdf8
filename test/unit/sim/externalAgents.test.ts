/**
 * An external simulated user against every kind of recommender (issue 24 item 3): the Python example
 * behind the protocol against a loopback HTTP recommender (127.0.0.1, started and stopped here) and
 * against the LLM recommender on a fake OpenAI endpoint, with faults on both sides in the same run.
 * Each failed conversation is counted under its own reason (simulator_error for the simulator,
 * agent_unreachable / agent_http for the HTTP recommender, agent_llm for the model), never as a
 * user's choice; the others finish normally and pass `simlens check`.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { createAgent } from '../../../src/core/sim/recommenders/index';
import { generateApparelCatalog } from '../../../src/core/catalog/catalog';
import { createRng } from '../../../src/core/random';
import type { AgentSession } from '../../../src/core/sim/types';
import type { Conversation } from '../../../src/core/model';
import { runSimulation } from '../../../src/core/run/orchestrator';
import { writeFileSync } from 'node:fs';
import { liveSimulatorPids } from '../../../src/core/sim/users/external/connection';
import { withFakeOpenAI } from '../../support/fakeOpenAI';
import { runCli } from '../../support/cli';
import { scratchDir } from '../../support/scratch';

const root = path.resolve(__dirname, '../../..');
const faulty = path.join(root, 'test/fixtures/simulators/faulty_user.py');
const dir = scratchDir('simlens-external-agents-');
const lines = (file: string): Conversation[] =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Conversation);
/** faulty_user.py error EVERY: conversations with index % EVERY == 1 raise at their first respond (turn 2). */
const EVERY = 4;
const simulatorFails = (index: number) => index % EVERY === 1;

/** A local-good recommender over HTTP on 127.0.0.1; conversations with index % 3 == 0 lose the connection at their second request. */
class Loopback {
  server!: http.Server;
  url = '';
  requests: { id: string; turn: number; dropped: boolean }[] = [];
  private readonly agent = createAgent('local-good', { catalog: generateApparelCatalog({ size: 300 }) });
  private readonly sessions = new Map<string, AgentSession>();

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      let data = '';
      req.on('data', (c) => (data += c));
      req.on('end', () => void this.handle(data, req, res));
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/chat`;
  }

  private async handle(data: string, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const body = JSON.parse(data) as {
      conversation_id: string;
      history: { speaker: string; text: string }[];
      user_utterance: string;
    };
    const turn = body.history.filter((h) => h.speaker === 'user').length;
    const index = Number(body.conversation_id.slice(-6));
    const dropped = index % 3 === 0 && turn === 1;
    this.requests.push({ id: body.conversation_id, turn, dropped });
    if (dropped) {
      req.socket.destroy(); // no status line: the recommender is unreachable
      return;
    }
    if (turn === 0)
      this.sessions.set(
        body.conversation_id,
        this.agent.createSession(body.conversation_id, createRng(body.conversation_id), {}),
      );
    const answer = await this.sessions.get(body.conversation_id)!.respond(body.user_utterance, body.history as never);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ utterance: answer.utterance, recommendations: answer.recommendations, acts: answer.acts }),
    );
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

const rec = new Loopback();
before(() => rec.start());
after(() => rec.stop());

describe('an external simulator against an HTTP recommender', () => {
  test('simulator and recommender faults in one run: each conversation counted under its own reason', async () => {
    const n = 36;
    const out = path.join(dir, 'http.jsonl');
    const { manifest } = await runSimulation(
      { user: `exec:python3 ${faulty} error ${EVERY}`, agent: rec.url, n, seed: 4, catalog_size: 300 },
      { out, concurrency: 3, maxConsecutiveFailures: 0 },
    );
    const convs = lines(out);
    assert.equal(convs.length, n);
    const expected: Record<string, number> = {};
    for (const c of convs) {
      const index = c.metadata!.index as number;
      // The simulator fails at its first respond, before the recommender's second request.
      const reason = simulatorFails(index)
        ? 'simulator_error'
        : index % 3 === 0 && c.turns.length >= 2
          ? 'agent_unreachable'
          : undefined;
      if (reason) expected[reason] = (expected[reason] ?? 0) + 1;
      if (reason === 'simulator_error') {
        assert.equal(c.outcome, 'simulator_error', c.id);
        assert.match(
          String(c.metadata!.error),
          new RegExp(
            `^simulator "faulty-error" .*, conversation ${c.id}, turn 2 \\(respond\\): respond failed: ValueError: my simulator has a bug`,
          ),
        );
        assert.ok(
          !rec.requests.some((r) => r.id === c.id && r.turn >= 1),
          `${c.id}: no request after the simulator failed`,
        );
      } else if (reason === 'agent_unreachable') {
        assert.equal(c.outcome, 'agent_error', c.id);
        assert.equal(c.metadata!.error_kind, 'agent_unreachable', c.id);
        assert.equal(c.turns[c.turns.length - 1].trace?.error_kind, 'agent_unreachable');
        assert.equal(c.turns.length, 2, c.id);
      } else {
        assert.ok(
          ['accepted', 'abandoned', 'ended'].includes(c.outcome!),
          `${c.id}: ${c.outcome} ${String(c.metadata?.error)}`,
        );
        assert.equal(c.metadata?.error, undefined);
      }
    }
    assert.ok((expected.simulator_error ?? 0) >= 5 && (expected.agent_unreachable ?? 0) >= 5, JSON.stringify(expected));
    assert.deepEqual(manifest.counts.by_reason, expected);
    assert.equal(manifest.counts.failed, expected.simulator_error + expected.agent_unreachable);
    // Dropped requests are exactly the agent_unreachable conversations.
    assert.equal(rec.requests.filter((r) => r.dropped).length, expected.agent_unreachable);
    const ok = convs.filter((c) => !c.metadata?.error);
    const okFile = path.join(dir, 'http-ok.jsonl');
    writeFileSync(okFile, ok.map((c) => JSON.stringify(c)).join('\n') + '\n');
    const check = await runCli(['check', okFile], dir);
    assert.equal(check.code, 0, check.out + check.err);
    assert.deepEqual(liveSimulatorPids(), []);
  });
});

describe('an external simulator against the LLM recommender (fake OpenAI endpoint on 127.0.0.1)', () => {
  test('simulator faults and model faults in one run: simulator_error vs agent_llm', async () => {
    const REPLY = 'Here are a few options that fit. Any colour in mind?';
    let refused = 0;
    // The model refuses (HTTP 400, not retried) a prompt that already holds two of its replies (a later turn of a conversation).
    await withFakeOpenAI(
      {
        handler: (r) => {
          // The recommender's prompt carries the conversation so far: its own two earlier replies make this its third turn.
          const prompt = ((r.body?.messages ?? []) as { content: string }[]).map((m) => m.content).join('\n');
          if (prompt.split(REPLY).length - 1 >= 2) {
            refused++;
            return { status: 400, errorMessage: 'context rejected by the test' };
          }
          return { content: REPLY };
        },
      },
      async (fake) => {
        const n = 24;
        const r = await runCli(
          [
            'simulate',
            '--user',
            `exec:python3 ${faulty} error ${EVERY}`,
            '--agent',
            'llm-good',
            '--base-url',
            fake.url,
            '--model',
            'fake-chat',
            '--no-cache',
            '--n',
            String(n),
            '--seed',
            '6',
            '--concurrency',
            '2',
            '--max-turns',
            '8',
            '--max-consecutive-failures',
            '0',
            '--catalog-size',
            '300',
            '--out',
            'llm.jsonl',
            '--quiet',
          ],
          dir,
        );
        assert.equal(r.code, 1, r.out + r.err); // failures in the run: exit 1
        const convs = lines(path.join(dir, 'llm.jsonl'));
        assert.equal(convs.length, n);
        let simulatorErrors = 0;
        let agentLlm = 0;
        for (const c of convs) {
          const index = c.metadata!.index as number;
          if (simulatorFails(index)) {
            simulatorErrors++;
            assert.equal(c.outcome, 'simulator_error', c.id);
            assert.match(String(c.metadata!.error), /turn 2 \(respond\): respond failed: ValueError/);
          } else if (c.metadata?.error_kind === 'agent_llm') {
            agentLlm++;
            assert.equal(c.outcome, 'agent_error', c.id);
            const last = c.turns[c.turns.length - 1];
            assert.equal(last.trace?.error_kind, 'agent_llm');
            assert.equal(last.assistant_utterance, undefined);
            // The user's turn the model failed on is kept, with the simulator's state.
            assert.ok(last.user_utterance && Array.isArray(last.trace?.agenda), c.id);
            assert.ok(
              c.turns.slice(0, -1).every((t) => t.assistant_utterance === REPLY),
              c.id,
            );
          } else {
            assert.ok(
              ['accepted', 'abandoned', 'ended'].includes(c.outcome!),
              `${c.id}: ${c.outcome} ${String(c.metadata?.error)}`,
            );
          }
        }
        assert.ok(simulatorErrors >= 5 && agentLlm >= 3, `simulator_error ${simulatorErrors}, agent_llm ${agentLlm}`);
        // Every refusal the model sent is one agent_llm conversation, and nothing else is counted.
        assert.equal(agentLlm, refused);
        const manifest = JSON.parse(readFileSync(path.join(dir, 'llm.jsonl.manifest.json'), 'utf8')) as {
          counts: { by_reason: Record<string, number> };
        };
        assert.deepEqual(manifest.counts.by_reason, { simulator_error: simulatorErrors, agent_llm: agentLlm });
      },
    );
    assert.deepEqual(liveSimulatorPids(), []);
  });
});
