import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Conversation, SimulatorTrace } from '../../../src/core/model';
import type { Agent } from '../../../src/core/sim/types';
import type { SimulationEnvironment } from '../../../src/core/run/index';
import {
  AgendaUserSimulator,
  TemplateNlg,
  TransitionModel,
  createInteractionModel,
  defaultTransitionCounts,
  type UserSpec,
} from '../../../src/core/sim/users/index';
import { KeywordAgent, ScriptedAgent, simulateOne, tinyCatalog, userEnv } from './fixtures';

const catalog = tinyCatalog();
const transitions = new TransitionModel(defaultTransitionCounts());

const env = (agent: Agent, spec: UserSpec = { user: 'agenda' }, maxTurns = 20): SimulationEnvironment =>
  userEnv(agent, spec, { catalog, transitions }, maxTurns);
const simulate = (
  e: SimulationEnvironment,
  i: number,
  task = i % 2 ? 'footwear' : 'outerwear',
): Promise<Conversation> => simulateOne(e, i, 'agenda-test', task);

const traces = (c: Conversation): SimulatorTrace[] => c.turns.map((t) => t.trace!);

describe('agenda-based user', () => {
  test('an agent that always answers appropriately: every turn is a pull of the next agenda act', async () => {
    const agent = new ScriptedAgent(catalog, [
      { utterance: 'Sure.', acts: ['elicit_preference', 'recommend', 'explain_recommendation', 'greet_acknowledge'] },
    ]);
    const user = new AgendaUserSimulator({
      catalog,
      interaction: createInteractionModel('cir6', { transitions }),
      preferences: 'pkg',
      checkContent: false,
    });
    const e: SimulationEnvironment = { ...env(agent), user };
    for (let i = 0; i < 30; i++) {
      const c = await simulate(e, i);
      const ts = traces(c);
      assert.equal(ts[0].operation, 'init');
      const initial = [ts[0].pulled![0], ...ts[0].agenda!];
      for (let k = 1; k < ts.length; k++) {
        assert.equal(ts[k].operation, 'pull', `turn ${k}`);
        const expected = ts[k - 1].agenda!.length ? ts[k - 1].agenda![0] : 'Complete';
        assert.equal(ts[k].pulled![0], expected, `turn ${k} pulls the top of the agenda`);
        assert.deepEqual(ts[k].agenda, ts[k].user_act === 'Note.Accept' ? [] : ts[k - 1].agenda!.slice(1), `turn ${k}`);
        assert.equal(ts[k].patience, 3);
      }
      // Without acceptance the user walks its whole initial agenda; this agent never shows
      // anything, so the user keeps pulling Complete without leaving until the turn cap.
      if (c.outcome !== 'accepted') {
        const pulled = ts.map((t) => t.pulled![0]);
        assert.deepEqual(pulled.slice(0, initial.length), initial);
        assert.ok(pulled.slice(initial.length).every((a) => a === 'Complete'));
        assert.equal(c.metadata?.turn_cap, 20, 'a user that has seen nothing does not leave');
        assert.ok(ts.every((t) => t.user_act !== 'Complete'));
      }
    }
  });

  test('an agent that never answers: push, patience down by one each turn, abandon at zero', async () => {
    const agent = new ScriptedAgent(catalog, [
      { utterance: 'Did you know socks were invented in Greece?', acts: ['chit_chat'] },
    ]);
    let abandoned = 0;
    for (const patience of [1, 3, 5]) {
      for (let seed = 0; seed < 15; seed++) {
        const c = await simulate(env(agent, { user: 'agenda', patience }), seed);
        const ts = traces(c);
        assert.ok(ts.length <= patience + 1, 'at most one push per unit of patience');
        for (let k = 1; k < ts.length; k++) {
          assert.equal(ts[k].operation, 'push');
          assert.equal(ts[k].patience, patience - k);
          assert.equal(ts[k].nlu?.agent_act, 'Other');
          assert.match(ts[k].push_reason ?? '', /does not answer/);
          assert.equal(ts[k].pushed?.length, 1);
          assert.ok((ts[k].frustration ?? 0) > (ts[k - 1].frustration ?? 0));
        }
        const last = ts[ts.length - 1];
        if (last.patience === 0) {
          abandoned++;
          assert.equal(ts.length, patience + 1);
          assert.equal(last.user_act, 'Complete.Abandon');
          assert.equal(c.outcome, 'abandoned');
          assert.equal(last.satisfaction, 0);
        } else {
          // The replacement drawn for "Other" may itself be Complete: the user leaves politely.
          assert.equal(last.user_act, 'Complete');
          assert.equal(c.outcome, 'ended');
        }
      }
    }
    assert.ok(abandoned >= 20, `most users run out of patience (${abandoned}/45)`);
  });

  test('re-asking a disclosed preference is not an answer', async () => {
    const agent = new ScriptedAgent(catalog, [
      { utterance: 'What colour would you like?', acts: ['elicit_preference'] },
      { utterance: 'And what colour was it again?', acts: ['elicit_preference'] },
    ]);
    let seen = 0;
    for (let i = 0; i < 40; i++) {
      const c = await simulate(env(agent), i);
      const ts = traces(c);
      for (let k = 1; k < ts.length; k++) {
        const disclosed = ((ts[k - 1].goal as Record<string, unknown>)['disclosed'] as string[] | undefined) ?? [];
        if (k >= 2 && disclosed.includes('colour')) {
          seen++;
          assert.equal(ts[k].operation, 'push', `conversation ${i} turn ${k}`);
          assert.match(ts[k].push_reason ?? '', /asked again/);
        }
      }
    }
    assert.ok(seen > 0, 'some users disclosed their colour');
  });

  test('acceptance empties the agenda and ends the conversation; traces are complete', async () => {
    const e = env(new KeywordAgent(catalog));
    let accepted = 0;
    for (let i = 0; i < 60; i++) {
      const c = await simulate(e, i);
      const ts = traces(c);
      assert.equal(ts[0].preferences?.kind, 'snapshot');
      for (const [k, t] of ts.entries()) {
        assert.ok(Array.isArray(t.agenda), `turn ${k} agenda`);
        assert.ok(t.goal && typeof t.goal.constraints.category === 'string');
        assert.equal(typeof t.user_act, 'string');
        assert.equal(typeof t.patience, 'number');
        if (k > 0) {
          assert.ok(t.operation === 'pull' || t.operation === 'push');
          assert.ok(t.nlu?.agent_act);
          assert.equal(t.patience, ts[k - 1].patience! - (t.operation === 'push' ? 1 : 0));
          if (t.preferences) assert.equal(t.preferences.kind, 'delta');
        }
      }
      const last = ts[ts.length - 1];
      if (c.outcome === 'accepted') {
        accepted++;
        assert.equal(last.user_act, 'Note.Accept');
        assert.deepEqual(last.agenda, []);
        assert.ok(
          (c.turns[c.turns.length - 2].recommendations?.length ?? 0) > 0,
          'an item was shown before the acceptance',
        );
      }
      assert.equal(ts.filter((t) => t.user_act === 'Note.Accept').length, c.outcome === 'accepted' ? 1 : 0);
    }
    assert.ok(accepted > 5, `some conversations end in acceptance (${accepted}/60)`);
  });

  test('the turn cap ends a conversation as "ended"', async () => {
    const agent = new ScriptedAgent(catalog, [
      {
        utterance: 'Hmm.',
        acts: ['elicit_preference', 'recommend', 'explain_recommendation'],
        items: ['F001', 'F002'],
      },
    ]);
    const c = await simulate(env(agent, { user: 'agenda', patience: 100 }, 2), 1);
    assert.ok(c.turns.length <= 2);
    if (c.turns.length === 2) assert.equal(c.metadata?.turn_cap, 2);
  });

  test('the same seed gives the same conversation; another seed another one', async () => {
    const e = env(new KeywordAgent(catalog), { user: 'agenda', interaction: 'qrfa', preferences: 'single' });
    const a = JSON.stringify(await simulate(e, 4));
    assert.equal(JSON.stringify(await simulate(e, 4)), a);
    assert.notEqual(JSON.stringify(await simulate(e, 5)), a);
  });

  test('typo rate 0 gives template text only', async () => {
    const user = new AgendaUserSimulator({
      catalog,
      interaction: createInteractionModel('cir6', { transitions }),
      preferences: 'pkg',
      nlg: new TemplateNlg({ typoRate: 0 }),
    });
    const e: SimulationEnvironment = { ...env(new KeywordAgent(catalog)), user };
    const c = await simulate(e, 2);
    for (const t of c.turns) assert.doesNotMatch(t.user_utterance ?? '', /simlar|Tnk/);
  });
});
