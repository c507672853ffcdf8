/**
 * `agenda-pull-order` caught 1,571 of 1,613 `silent-agenda-drop` mutants, 28 only a turn late and
 * 2 never (mutation bench, sixteenth round): an act dropped on the turn the user answered the
 * agent's question instead of it, and an unanswered item question dropped on a push. Both are
 * checked on their own turn now.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SimulatorTrace, Turn } from '../../../src/core/model';
import { conv, findingOf, item, turn } from './helpers';

const GOAL = { constraints: { category: 'footwear', colour: 'red' }, requests: ['material'] };

function pullOrder(turns: Turn[]): string[] {
  return (findingOf('agenda-pull-order', conv(turns))?.violations ?? []).map((v) => `${v.turn}: ${v.detail}`);
}

function answeredFirst(agendaAfter: string[]): Turn[] {
  return [
    turn(
      'Shoes, please.',
      {
        operation: 'init',
        user_act: 'Disclose',
        agenda: ['Note', 'Complete'],
        said: { constraints: { category: 'footwear' } },
        goal: { ...GOAL, disclosed: ['category'] },
      } as SimulatorTrace,
      undefined,
      'What colour would you like?',
    ),
    turn('Red, please.', {
      operation: 'pull',
      pulled: ['Note'],
      planned_act: 'Note',
      user_act: 'Disclose',
      nlu: { agent_act: 'Inquire.Elicit' },
      agenda: agendaAfter,
      said: { constraints: { colour: 'red' } },
      goal: { ...GOAL, disclosed: ['category', 'colour'] },
    } as SimulatorTrace),
  ];
}

test('an act pulled while the user answered the question first stays on the agenda', () => {
  assert.deepEqual(pullOrder(answeredFirst(['Note', 'Complete'])), []);
  const dropped = pullOrder(answeredFirst(['Complete']));
  assert.equal(dropped.length, 1, dropped.join('\n'));
  assert.match(dropped[0], /^1: "?Disclose"? answered the agent's question instead of the pulled "?Note"?/);
});

function unansweredQuestion(agendaAfter: string[], fulfilled: string[] = []): Turn[] {
  const shown = [item('A', { colour: 'red', material: 'cotton' }), item('B', { colour: 'red', material: 'leather' })];
  return [
    turn(
      'Red shoes, please.',
      { operation: 'init', user_act: 'Disclose', agenda: ['Navigate.Ask', 'Complete'], patience: 3, goal: GOAL },
      shown,
      'Here are two.',
    ),
    turn(
      'What material is Item A?',
      {
        operation: 'pull',
        pulled: ['Navigate.Ask'],
        planned_act: 'Navigate.Ask',
        user_act: 'Navigate',
        agenda: ['Complete'],
        patience: 3,
        said: { constraints: {}, items: ['A'] },
        goal: GOAL,
      } as SimulatorTrace,
      shown,
      'Do you have a budget?',
    ),
    turn('Show me more.', {
      operation: 'push',
      pushed: ['Navigate.More'],
      user_act: 'Navigate.More',
      agenda: agendaAfter,
      patience: 2,
      goal: { ...GOAL, fulfilled_requests: fulfilled },
    } as SimulatorTrace),
  ];
}

test('an item question the agent left unanswered goes back on the agenda on the push', () => {
  assert.deepEqual(pullOrder(unansweredQuestion(['Navigate.Ask', 'Complete'])), []);
  const dropped = pullOrder(unansweredQuestion(['Complete']));
  assert.equal(dropped.length, 1, dropped.join('\n'));
  assert.match(dropped[0], /^2: the item question of turn 1 went unanswered/);
  // answered after all (the request is fulfilled): nothing to put back
  assert.deepEqual(
    pullOrder(unansweredQuestion(['Complete'], ['material'])).filter((v) => /item question/.test(v)),
    [],
  );
});
