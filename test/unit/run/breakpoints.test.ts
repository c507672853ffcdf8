import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { ConditionError, conditionTurns, firstBreak, parseCondition } from '../../../src/core/run/breakpoints';
import { parseSimulationConfig, prepareEnvironment } from '../../../src/core/run/config';
import { simulateConversation } from '../../../src/core/run/conversation';
import { playConversation } from '../../../src/core/run/play';
import { runSimulation } from '../../../src/core/run/orchestrator';
import type { Conversation } from '../../../src/core/model';
import type { ExternalUserSimulator } from '../../../src/core/sim/users/external/simulator';
import { scratchDir } from '../../support/scratch';

const root = path.resolve(__dirname, '../../..');
const example = path.join(root, 'examples/python/agenda_user.py');
const dir = scratchDir('simlens-break-');

function conv(turns: Record<string, unknown>[], outcome = 'ended'): Conversation {
  return {
    id: 'c',
    outcome,
    turns: turns.map((trace, i) => ({ user_utterance: `u${i}`, assistant_utterance: `a${i}`, trace })),
  } as Conversation;
}

describe('break conditions', () => {
  test('the issue example and the operators, over fields of the turn and of the trace', () => {
    const c = conv([
      { user_act: 'Disclose', agenda: ['Note', 'Complete'], patience: 3, goal: { constraints: { colour: 'red' } } },
      { user_act: 'Complete', agenda: ['Note'], patience: 2 },
      { user_act: 'Complete', agenda: [], patience: 2 },
    ]);
    const cases: [string, number[]][] = [
      ['act == "Complete" && agenda.length > 0', [1]],
      ["act == 'Complete'", [1, 2]],
      ['patience < 3', [1, 2]],
      ['patience <= 2 && !last', [1]],
      ['goal.constraints.colour == "red"', [0]],
      ['agenda', [0, 1]],
      ['!(agenda.length > 0) || turn == 0', [0, 2]],
      ['missing.field == 1', []],
      ['missing.field != 1', [0, 1, 2]],
      ['utterance == "u2" && outcome == "ended"', [2]],
      ['patience > "2"', []],
    ];
    for (const [src, want] of cases) assert.deepEqual(conditionTurns(c, parseCondition(src)), want, src);
  });

  test('bad conditions are refused with the column; nothing is evaluated as code', () => {
    for (const [src, re] of [
      ['act ==', /expected a value at column 7/],
      ['act = "x"', /cannot read the condition at column 5/],
      ['(a', /expected "\)"/],
      ['a b', /unexpected "b" at column 3/],
      ['', /empty/],
      ['process.exit()', /unexpected "\("/],
    ] as const) {
      assert.throws(
        () => parseCondition(src),
        (e: unknown) => e instanceof ConditionError && re.test(e.message),
        src,
      );
    }
  });

  test('firstBreak: the earliest of a condition and an invariant violation', () => {
    const c = conv([
      { user_act: 'Disclose', agenda: ['Note'], patience: 3, operation: 'init', pulled: ['Disclose'] },
      { user_act: 'Note', agenda: ['Note'], patience: 5, operation: 'pull' },
      { user_act: 'Complete', agenda: ['Note'], patience: 5, operation: 'pull' },
    ]);
    assert.deepEqual(firstBreak(c, { condition: parseCondition('act == "Complete" && agenda.length > 0') }), {
      turn: 2,
      reason: 'condition act == "Complete" && agenda.length > 0',
    });
    const inv = firstBreak(c, {
      invariants: true,
      condition: parseCondition('act == "Complete" && agenda.length > 0'),
    })!;
    assert.equal(inv.turn, 1);
    assert.match(
      inv.reason,
      /^invariant (agenda-pull-order: a pull that records no pulled act|patience-non-increasing: patience rose from 3 to 5)/,
    );
    assert.equal(
      firstBreak(conv([{ user_act: 'Disclose', patience: 3 }]), { condition: parseCondition('patience < 0') }),
      undefined,
    );
  });

  test('a run pauses at the first conversation that breaks, and goes on when told to', async () => {
    const out = path.join(dir, 'pause.jsonl');
    const condition = parseCondition('act == "Note.Dislike" && patience == 1');
    const seen: { index: number; turn?: number }[] = [];
    let resume: () => void = () => {};
    let paused = false;
    const run = runSimulation(
      { user: `exec:python3 ${example}`, agent: 'local-bad', n: 40, seed: 4, catalog_size: 300 },
      {
        out,
        onConversation: (c, index) => {
          const hit = firstBreak(c, { condition });
          if (!hit || seen.length) return;
          seen.push({ index, turn: hit.turn });
          paused = true;
          return new Promise<void>((r) => (resume = r));
        },
      },
    );
    const end = Date.now() + 30_000;
    while (!paused && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    assert.ok(paused, 'no conversation matched');
    const { readFileSync } = await import('node:fs');
    // Paused: the breaking conversation is the last line on disk, nothing after it.
    const linesNow = readFileSync(out, 'utf8').trim().split('\n');
    assert.equal(linesNow.length, seen[0].index + 1);
    const hitConv = JSON.parse(linesNow[linesNow.length - 1]) as Conversation;
    assert.equal(hitConv.turns[seen[0].turn!].trace?.user_act, 'Note.Dislike');
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(readFileSync(out, 'utf8').trim().split('\n').length, linesNow.length);
    resume();
    const { manifest } = await run;
    assert.equal(manifest.counts.finished, 40);
  });
});

describe('play the recommender', () => {
  test('built-in and external users answer typed replies; from a recorded turn the user says that turn again', async () => {
    for (const user of ['agenda', `exec:python3 ${example}`]) {
      const config = parseSimulationConfig({ user, agent: 'local-good', n: 5, seed: 9, catalog_size: 300 });
      const env = await prepareEnvironment(config, dir);
      try {
        const views: number[] = [];
        const played = await playConversation(env, {
          index: 2,
          ask: async (v) => {
            views.push(v.turn);
            assert.ok(v.trace && typeof v.act === 'string');
            return v.turn < 2 ? { utterance: 'Tell me more.', recommendations: [] } : undefined;
          },
        });
        assert.deepEqual(views.slice(0, 3), [0, 1, 2].slice(0, views.length));
        assert.equal(played.failed, false);
        assert.equal(played.conversation.metadata?.['played'], true);
        assert.ok(played.conversation.turns.every((t, i) => i >= 2 || t.assistant_utterance === 'Tell me more.'));
        // From turn 2 of the simulated conversation 3: the user is replayed to turn 2 and says it again.
        const recorded = (await simulateConversation(env, 3)).conversation;
        if (recorded.turns.length < 3) continue;
        let first: string | undefined;
        const forked = await playConversation(env, {
          from: { conversation: recorded, turn: 2 },
          ask: async (v) => ((first ??= v.utterance), undefined),
        });
        assert.equal(first, recorded.turns[2].user_utterance, user);
        assert.equal(forked.conversation.metadata?.['play_stopped'], true);
        assert.equal(forked.conversation.outcome, 'ended');
        assert.deepEqual(
          forked.conversation.turns.slice(0, 2).map((t) => t.user_utterance),
          recorded.turns.slice(0, 2).map((t) => t.user_utterance),
        );
      } finally {
        await (env.user as Partial<ExternalUserSimulator>).dispose?.();
      }
    }
  });
});
