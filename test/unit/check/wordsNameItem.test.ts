/**
 * `accepted-item-shown` holds a built-in user's words to the items its trace says the turn is
 * about (agenda rule 16, eighteenth round): a request for similar items (or any turn naming items)
 * whose trace names item A while its words name item B by title fails; two items sharing a title
 * count as one; and the mutation operator that plants exactly this is caught.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Conversation } from '../../../src/core/model';
import { MUTATION_OPERATORS } from '../../../src/core/check/mutate';
import { createRng } from '../../../src/core/random';
import { conv, findingOf, item, turn } from './helpers';

const shown = [
  item('A', { colour: 'navy', type: 'sneakers' }, { title: 'Harbor Canvas Sneakers' }),
  item('B', { colour: 'navy', type: 'boots' }, { title: 'Lumen Suede Boots' }),
  item('C', { colour: 'red', type: 'sneakers' }, { title: 'Harbor Canvas Sneakers' }),
];

function similar(words: string, items: string[], source = 'agenda-cir6-pkg'): Conversation {
  const goal = {
    constraints: { category: 'footwear', colour: 'navy' },
    requests: [],
    disclosed: ['category', 'colour'],
  };
  return conv(
    [
      turn(
        'Navy footwear, please.',
        {
          operation: 'init',
          user_act: 'Disclose',
          agenda: ['Inquire'],
          goal,
          said: { constraints: { category: 'footwear', colour: 'navy' } },
        },
        shown,
        'Here are some.',
      ),
      turn(words, {
        operation: 'pull',
        pulled: ['Inquire'],
        user_act: 'Inquire.Similar',
        agenda: [],
        goal,
        said: { constraints: {}, items },
      }),
    ],
    { source },
  );
}

const details = (c: Conversation) => (findingOf('accepted-item-shown', c)?.violations ?? []).map((v) => v.detail);

test('words that name the item the trace names pass; a reference word or a shared title too', () => {
  assert.deepEqual(details(similar('Anything similar to Harbor Canvas Sneakers?', ['A'])), []);
  assert.deepEqual(details(similar('Got more in that spirit?', ['A'])), []);
  // C's title is A's word for word (two catalog items may share a title)
  assert.deepEqual(details(similar('Anything similar to Harbor Canvas Sneakers?', ['C'])), []);
  // a typo in the title is still the title
  assert.deepEqual(details(similar('Anything similar to Harbor Canvas Sneakrs?', ['A'])), []);
});

test('the trace naming one item and the words another fails', () => {
  const d = details(similar('Anything similar to Lumen Suede Boots?', ['A']));
  assert.equal(d.length, 1);
  assert.match(d[0], /speaks about A \(said\.items\) but its words name B/);
  // other users (LLM, external) are left to the read-back
  assert.deepEqual(details(similar('Anything similar to Lumen Suede Boots?', ['A'], 'llm-prompted')), []);
});

test('the mutant similar-words-name-other swaps the title in the words only and is caught on its turn', () => {
  const op = MUTATION_OPERATORS.find((o) => o.id === 'similar-words-name-other');
  assert.ok(op);
  assert.equal(op.invariant, 'accepted-item-shown');
  const base = similar('Anything similar to Harbor Canvas Sneakers?', ['A']);
  assert.deepEqual(details(base), []);
  const m = op.apply(base, createRng('t'), {});
  assert.ok(m);
  assert.equal(m.turn, 1);
  assert.equal(m.conversation.turns[1].user_utterance, 'Anything similar to Lumen Suede Boots?');
  assert.deepEqual(m.conversation.turns[1].trace?.said?.items, ['A']);
  const v = findingOf('accepted-item-shown', m.conversation)?.violations ?? [];
  assert.ok(v.some((x) => x.turn === 1));
});
