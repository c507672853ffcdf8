/**
 * `opinion-matches-preferences` reads a request for similar items (`Inquire.Similar`) as a like of
 * the item it names (agenda user rule 15, seventeenth round): never one lacking a value the user
 * said it wants, one with a value it said it does not want, one of another category, or (users
 * with a preference model) one the model dislikes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RecommendedItem, SimulatorTrace } from '../../../src/core/model';
import { conv, findingOf, item, turn } from './helpers';

const shown = [
  item('A', { colour: 'red', type: 'sneakers' }),
  item('B', { colour: 'navy', type: 'sneakers' }),
  item('C', { colour: 'navy', type: 'dress' }, { category: 'dresses' }),
  item('D', { colour: 'navy', type: 'boots', material: 'suede' }),
];

function similar(id: string, opening: Partial<SimulatorTrace> = {}, preferences?: SimulatorTrace['preferences']) {
  const goal = {
    constraints: { category: 'footwear', colour: 'navy' },
    requests: [],
    disclosed: ['category', 'colour'],
  };
  const recs: RecommendedItem[] = shown;
  return conv([
    turn(
      'Navy footwear, please, nothing in suede.',
      {
        operation: 'init',
        user_act: 'Disclose',
        agenda: ['Inquire'],
        goal,
        said: { constraints: { category: 'footwear', colour: 'navy' }, negated: ['suede'] },
        ...opening,
      },
      recs,
      'Here are some.',
    ),
    turn(`Anything similar to Item ${id}?`, {
      operation: 'pull',
      pulled: ['Inquire'],
      user_act: 'Inquire.Similar',
      agenda: [],
      goal,
      said: { constraints: {}, items: [id] },
      ...(preferences ? { preferences } : {}),
    }),
  ]);
}

const details = (c: ReturnType<typeof similar>) =>
  (findingOf('opinion-matches-preferences', c)?.violations ?? []).map((v) => v.detail);

test('more like an item that keeps what the user said passes', () => {
  assert.deepEqual(details(similar('B')), []);
});

test('more like an item lacking a said value, with a negated value, or of another category is flagged', () => {
  assert.match(details(similar('A'))[0] ?? '', /lacks the "?colour"? "?navy"?/);
  assert.match(details(similar('D'))[0] ?? '', /"?material=suede"?, a value the user said it does not want/);
  assert.match(details(similar('C'))[0] ?? '', /category "?dresses"?, not the task "?footwear"?/);
});

test('more like an item the preference model dislikes is flagged', () => {
  const c = similar('B', {}, { kind: 'delta', model: 'pkg', disliked_items: ['B'] });
  assert.match(details(c)[0] ?? '', /Inquire\.Similar on "?B"? but the preference model dislikes it/);
});
