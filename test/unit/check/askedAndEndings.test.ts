/**
 * Seventeenth round (issue 21's checks): what an independent review still got through.
 * - A built-in user takes in what it is told (agenda rule 6): an answer to its item question that
 *   also says the item's value of another pending request fulfils that one too, and a request
 *   fulfilled beside the one asked needs the answer to say its value.
 * - A price answers the price band only when it is the asked item's price (or the band is said).
 * - `gave_up` where `completed` was due: the mirror of the completed check of `abandon-at-zero`.
 * - A meta user's revision said first on a pull of another kind keeps the pulled act on top.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SimulatorTrace, Turn } from '../../../src/core/model';
import { statesItemValue } from '../../../src/core/text/saysValue';
import { conv, findingOf, item, leavingTurns, turn } from './helpers';

function details(id: string, turns: Turn[], extra: Parameters<typeof conv>[1] = {}): string[] {
  return (findingOf(id, conv(turns, extra))?.violations ?? []).map((v) => v.detail);
}

// --- one request per question -----------------------------------------------------------------

function asked(answer: string, fulfilledAfter: string[], requests = ['material', 'colour']): Turn[] {
  const shown = [item('A', { colour: 'red', material: 'cotton', price_band: 'budget' }, { price: 24.99 })];
  const goal = (fulfilled: string[]) => ({
    constraints: { category: 'footwear', type: 'sneakers' },
    requests,
    fulfilled_requests: fulfilled,
  });
  return [
    turn(
      'Sneakers, please.',
      { operation: 'init', user_act: 'Disclose', agenda: ['Navigate', 'Note'], goal: goal([]) },
      shown,
      'Here is one.',
    ),
    turn(
      `What's the ${requests[0].replace('_', ' ')} of Item A?`,
      {
        operation: 'pull',
        pulled: ['Navigate'],
        user_act: 'Navigate',
        agenda: ['Note'],
        goal: goal([]),
        said: { constraints: {}, items: ['A'] },
      },
      shown,
      answer,
    ),
    turn('Nice.', {
      operation: 'pull',
      pulled: ['Note'],
      user_act: 'Note.Like',
      agenda: [],
      goal: goal(fulfilledAfter),
    }),
  ];
}

test('an answer stating a second requested value fulfils it too; one it does not state stays pending', () => {
  const both = 'It is made of cotton and it comes in red.';
  assert.deepEqual(details('goal-requests', asked(both, ['material', 'colour'])), []);
  // told the colour, the user must not keep it pending (it would ask next what it was just told)
  const pending = details('goal-requests', asked(both, ['material']));
  assert.equal(pending.length, 1);
  assert.match(pending[0], /"?colour"?, yet the request stays pending/);
  assert.match(
    details('goal-requests', asked(both, ['colour']))[0] ?? '',
    /"?material"?, yet the request stays pending/,
  );
  // a request the answer does not state is not fulfilled beside the one asked
  const one = 'It is made of cotton.';
  assert.deepEqual(details('goal-requests', asked(one, ['material'])), []);
  assert.match(details('goal-requests', asked(one, ['material', 'colour']))[0] ?? '', /does not state the value/);
  // another simulator may ask and hear as it likes: only what it fulfils is held to the answer
  assert.deepEqual(details('goal-requests', asked(both, ['material']), { source: 'my-python-sim' }), []);
});

// --- a price answers the price band when it is the item's --------------------------------------

test('a price answers the price band only when it is the asked item’s price', () => {
  assert.equal(statesItemValue('It is $72.99.', 'price_band', 'premium', undefined, 72.99), true);
  assert.equal(statesItemValue('That one is about $73.', 'price_band', 'premium', undefined, 72.99), true);
  assert.equal(statesItemValue('We have plenty under $50.', 'price_band', 'premium', undefined, 72.99), false);
  assert.equal(statesItemValue('It costs $1,200.00.', 'price_band', 'luxury', undefined, 1200), true);
  assert.equal(statesItemValue('It sits in the premium band.', 'price_band', 'premium', undefined, 72.99), true);
  // the price unknown (no catalog prices the item): any price is read as saying it
  assert.equal(statesItemValue('We have plenty under $50.', 'price_band', 'premium'), true);
  const req = ['price_band'];
  assert.deepEqual(details('goal-requests', asked('That pair is $24.99.', req, req)), []);
  assert.match(
    details('goal-requests', asked('Lots of sneakers under $60 here.', req, req))[0] ?? '',
    /does not state the value/,
  );
});

// --- gave_up where completed was due ------------------------------------------------------------

const SHOWN = [item('A', { colour: 'blue' }), item('B', { colour: 'red' })];

function leaving(extra: SimulatorTrace = {}, carousel = SHOWN, requests: string[] = []): Turn[] {
  const goal = { constraints: { category: 'footwear', colour: 'red' }, requests, fulfilled_requests: [] };
  return leavingTurns(carousel, goal, 'gave_up', extra);
}

function gaveUp(turns: Turn[], source?: string): string[] {
  return details('abandon-at-zero', turns, { outcome: 'gave_up', ...(source ? { source } : {}) });
}

test('gave_up with every completion condition met is flagged (that is completing)', () => {
  const v = gaveUp(leaving());
  assert.equal(v.length, 1);
  assert.match(v[0], /end_reason gave_up .* \(that is completing: completed\)/);
  // each reason to give up clears it
  assert.deepEqual(gaveUp(leaving({}, [item('A', { colour: 'blue' })])), [], 'never shown a red pair');
  assert.deepEqual(gaveUp(leaving({ patience: 2 })), [], 'patience spent');
  assert.deepEqual(gaveUp(leaving({ operation: 'push' } as SimulatorTrace)), [], 'a pushed Complete');
  assert.deepEqual(gaveUp(leaving({ agenda: ['Note'] })), [], 'an act pending');
  assert.deepEqual(gaveUp(leaving({}, SHOWN, ['material'])), [], 'a request unanswered');
  // items of unknown attributes: not judged either way
  assert.deepEqual(gaveUp(leaving({}, [{ item_id: 'Z', title: 'Some shoe' }])), []);
  // another simulator may give up for reasons of its own
  assert.deepEqual(gaveUp(leaving(), 'my-python-sim'), []);
});

// --- a meta user's switch change said first keeps the pulled act --------------------------------

function revising(after: string[]): Turn[] {
  const shown = [item('A', { colour: 'red' })];
  const target = { item_id: 'A' };
  return [
    turn(
      'Red shoes.',
      { operation: 'init', user_act: 'Disclose', agenda: ['Inquire', 'Note', 'Complete'], patience: 3, target },
      shown,
      'Here.',
    ),
    turn('Actually, make that black.', {
      operation: 'pull',
      pulled: ['Inquire'],
      planned_act: 'Inquire',
      user_act: 'Reveal.Revise',
      agenda: after,
      patience: 3,
      target,
      said: { constraints: { colour: 'black' } },
    } as SimulatorTrace),
  ];
}

test("a meta user's revision on a pull of another act keeps that act on top", () => {
  assert.deepEqual(details('agenda-pull-order', revising(['Inquire', 'Note', 'Complete'])), []);
  const dropped = details('agenda-pull-order', revising(['Note', 'Complete']));
  assert.equal(dropped.length, 1);
  assert.match(dropped[0], /said a switch's change instead of the pulled "?Inquire"?/);
});
