/**
 * Two gaps the mutation bench found (sixteenth round): 14 of 1,452 `relabel-gave-up-completed`
 * mutants passed `abandon-at-zero`, users that gave up only because a goal request was still
 * unanswered or because no item meeting their goal (or their target) was ever among the first three
 * of a carousel (docs/simulation.md, Endings); and 4 of 1,010 `fulfil-unasked-request` mutants
 * passed `goal-requests`, a request marked fulfilled after a request for more items (Navigate.More,
 * no question) or after an answer that stated another item's value than the one asked about.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SimulatorTrace, Turn } from '../../../src/core/model';
import { conv, findingOf, item, leavingTurns, turn } from './helpers';

const RED_3 = [item('A', { colour: 'blue' }), item('B', { colour: 'black' }), item('C', { colour: 'red' })];
const RED_4 = [...RED_3.slice(0, 2), item('D', { colour: 'white' }), item('C', { colour: 'red' })];

function ending(
  carousel: ReturnType<typeof item>[],
  goal: Partial<NonNullable<SimulatorTrace['goal']>> = {},
  extra: SimulatorTrace = {},
): Turn[] {
  const g = { constraints: { category: 'footwear', colour: 'red' }, requests: [], ...goal };
  return leavingTurns(carousel, g, 'completed', extra, extra);
}

function served(turns: Turn[]): string[] {
  return (findingOf('abandon-at-zero', conv(turns, { outcome: 'ended' }))?.violations ?? []).map((v) => v.detail);
}

test('end_reason completed needs an item meeting the goal among the first three of a carousel', () => {
  assert.deepEqual(served(ending(RED_3)), []);
  const beyond = served(ending(RED_4));
  assert.equal(beyond.length, 1, 'the red pair fourth on screen was not looked at');
  assert.match(beyond[0], /never shown an item meeting its goal/);
  assert.match(served(ending(RED_3.slice(0, 2)))[0] ?? '', /never shown an item meeting its goal/);
  // the item of the goal's colour the user said it does not want ("not red" then: negated) does not count
  const negated = ending(RED_3);
  negated[0].trace!.said = { constraints: {}, negated: ['red'] };
  assert.match(served(negated)[0] ?? '', /never shown/);
  // a carousel of the last turn comes after the user left: not seen
  const late = ending([]);
  late[1].recommendations = RED_3;
  assert.match(served(late)[0] ?? '', /never shown/);
  // no item with known attributes: not judged
  assert.deepEqual(served(ending([{ item_id: 'Z', title: 'Some shoe' }])), []);
});

test('a meta user completes only when its target was shown among the first three', () => {
  assert.deepEqual(served(ending(RED_3, {}, { target: { item_id: 'B' } } as SimulatorTrace)), []);
  assert.match(
    served(ending(RED_4, {}, { target: { item_id: 'C' } } as SimulatorTrace))[0] ?? '',
    /its target "?C"? never shown/,
  );
});

test('end_reason completed needs every goal request answered', () => {
  assert.match(served(ending(RED_3, { requests: ['material'] }))[0] ?? '', /goal request\(s\) "?material"? unanswered/);
  assert.deepEqual(served(ending(RED_3, { requests: ['material'], fulfilled_requests: ['material'] })), []);
});

function requestTurns(askedAct: string, answer: string, saidItems?: string[]): Turn[] {
  const shown = [item('A', { colour: 'red', material: 'cotton' }), item('B', { colour: 'red', material: 'leather' })];
  const goal = (fulfilled: string[]) => ({
    constraints: { category: 'footwear', colour: 'red' },
    requests: ['material'],
    fulfilled_requests: fulfilled,
  });
  return [
    turn(
      'Red shoes, please.',
      { operation: 'init', user_act: 'Disclose', agenda: ['Navigate', 'Note'], goal: goal([]) },
      shown,
      'Here are two.',
    ),
    turn(
      'Tell me more.',
      {
        operation: 'pull',
        pulled: ['Navigate'],
        user_act: askedAct,
        agenda: ['Note'],
        goal: goal([]),
        ...(saidItems ? { said: { constraints: {}, items: saidItems } } : {}),
      },
      shown,
      answer,
    ),
    turn('Fine.', { operation: 'pull', pulled: ['Note'], user_act: 'Note.Like', agenda: [], goal: goal(['material']) }),
  ];
}

function requestViolations(turns: Turn[]): string[] {
  return (findingOf('goal-requests', conv(turns))?.violations ?? []).map((v) => v.detail);
}

test('a request is fulfilled only by an answer to a question about the item asked', () => {
  // asked about A, the answer says A's material: fulfilled
  assert.deepEqual(requestViolations(requestTurns('Navigate', 'That one is made of cotton.', ['A'])), []);
  // a request for more items asks nothing: the value said in passing fulfils nothing
  assert.match(
    requestViolations(requestTurns('Navigate.More', 'Here is another, made of leather.'))[0] ?? '',
    /the user did not ask \(act "?Navigate.More"?\)/,
  );
  // asked about A, the answer says B's material (leather): A's is still unknown
  assert.match(
    requestViolations(requestTurns('Navigate', 'Those are made of leather.', ['A']))[0] ?? '',
    /does not state the value of "?A"?/,
  );
  // without said.items, any shown item's value answers (an external simulator's trace)
  assert.deepEqual(requestViolations(requestTurns('Navigate', 'Those are made of leather.')), []);
});

test('review: items of unknown attributes are not judged, and another simulator reads the whole carousel', () => {
  // the fourth item matches: a built-in user never looked at it, another simulator may have
  assert.match(served(ending(RED_4))[0] ?? '', /never shown an item meeting its goal/);
  const external = findingOf('abandon-at-zero', conv(ending(RED_4), { outcome: 'ended', source: 'my-python-sim' }));
  assert.deepEqual(external?.violations ?? [], []);
  // an item looked at without attributes (no catalog to complete it) may have been the one
  const unknown = [RED_3[0], RED_3[1], { item_id: 'C', title: 'Item C', category: 'footwear' }];
  assert.deepEqual(served(ending(unknown)), []);
});

test('review: a request is not read off a card on a Back or Repeat turn, nor off another item than the one asked', () => {
  const shown = [
    item('A', { colour: 'red', gender: 'men' }, { title: 'Harbor Shoe' }),
    item('B', { colour: 'red', gender: 'women' }, { title: "Lumen Women's Shoe" }),
  ];
  const goal = (fulfilled: string[]) => ({
    constraints: { category: 'footwear', colour: 'red' },
    requests: ['gender'],
    fulfilled_requests: fulfilled,
  });
  const run = (act: string, items?: string[]) =>
    requestViolations([
      turn(
        'Red shoes.',
        { operation: 'init', user_act: 'Disclose', agenda: ['Navigate'], goal: goal([]) },
        shown,
        'Here.',
      ),
      turn('Hmm.', {
        operation: 'pull',
        pulled: ['Navigate'],
        user_act: act,
        agenda: [],
        goal: goal(['gender']),
        ...(items ? { said: { constraints: {}, items } } : {}),
      } as SimulatorTrace),
    ]);
  // a request for more items reads the value off one of the first three cards (as the agenda user does)
  assert.deepEqual(run('Navigate.More'), []);
  assert.equal(run('Navigate.Back').length, 1);
  assert.equal(run('Navigate.Repeat').length, 1);
  // asking about A (its title says nothing of gender) does not read B's "Women's"
  assert.equal(run('Navigate', ['A']).length, 1);
  assert.deepEqual(run('Navigate', ['B']), []);
});

test('review: an Inquire asks for items, not for an attribute: a value said after it answers no request', () => {
  assert.match(
    requestViolations(requestTurns('Inquire.Similar', 'That one is made of cotton.', ['A']))[0] ?? '',
    /the user did not ask \(act "?Inquire.Similar"?\)/,
  );
});
