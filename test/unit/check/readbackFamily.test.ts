/**
 * Wordings the read-back misread (eighteenth round, found running every built-in configuration and
 * listing every disagreement): a shared title, a said value holding another value's word, a
 * courtesy the tagger reads alone, a like or dislike only the opinion reader hears, a dislike of a
 * value said as its negation, and an excess ("too yellow") read as a statement of the value. Each
 * case agrees now; the turns that truly disagree still do.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SimulatorTrace } from '../../../src/core/model';
import { readBack } from '../../../src/core/check/index';
import { conv, item, turn } from './helpers';

const shown = [
  item('A', { colour: 'navy', material: 'denim', occasion: 'cycling' }, { title: 'Copperleaf Denim Jeans' }),
  item('B', { colour: 'purple', material: 'denim', occasion: 'party' }, { title: 'Copperleaf Denim Jeans' }),
  item('C', { colour: 'yellow', material: 'cotton', occasion: 'work' }, { title: 'Lumen Cotton Tee' }),
];

function aspects(text: string, trace: SimulatorTrace): string[] {
  const r = readBack([
    conv([
      turn('Hi, something to wear please.', { user_act: 'Disclose', said: { constraints: {} } }, shown),
      turn(text, trace),
    ]),
  ]);
  return r.disagreements.filter((d) => d.turn === 1).map((d) => `${d.aspect}: ${d.detail}`);
}

test('two shown items sharing a title: naming it names the said one', () => {
  assert.deepEqual(
    aspects("I'll take Copperleaf Denim Jeans.", { user_act: 'Note.Accept', said: { constraints: {}, items: ['B'] } }),
    [],
  );
  // another title is still another item
  assert.equal(
    aspects("I'll take Lumen Cotton Tee.", { user_act: 'Note.Accept', said: { constraints: {}, items: ['B'] } })
      .length > 0,
    true,
  );
});

test('a said value holding another value of the conversation ("cycling jersey" holds "cycling") is that value', () => {
  assert.deepEqual(
    aspects('Something like a cycling jersey.', {
      user_act: 'Disclose',
      said: { constraints: { type: 'cycling jersey' } },
    }),
    [],
  );
  // the other value said on its own is still unsaid in the trace
  assert.match(
    aspects('Something like a cycling jersey, for cycling.', {
      user_act: 'Disclose',
      said: { constraints: { type: 'cycling jersey' } },
    }).join(),
    /states "?occasion"?="?cycling"?/,
  );
});

test('a thanks beside an act is read without it; a thanks alone is no disclosure', () => {
  assert.deepEqual(
    aspects('Mm, make it in cotton, thanks in advance.', {
      user_act: 'Disclose',
      said: { constraints: { material: 'cotton' } },
    }),
    [],
  );
  assert.match(
    aspects('Thanks in advance!', { user_act: 'Disclose', said: { constraints: {} } }).join(),
    /act: .*greet_thank/,
  );
});

test('a like or a dislike the opinion reader hears is that feedback act', () => {
  assert.deepEqual(
    aspects("I like that it's for a party.", { user_act: 'Note.Like', said: { constraints: { occasion: 'party' } } }),
    [],
  );
  assert.deepEqual(
    aspects('Lumen Cotton Tee misses the mark. I think I will pass on it.', {
      user_act: 'Note.Dislike',
      said: { constraints: {}, items: ['C'] },
    }),
    [],
  );
  // the opposite opinion still disagrees
  assert.ok(
    aspects('Lumen Cotton Tee misses the mark. I think I will pass on it.', {
      user_act: 'Note.Like',
      said: { constraints: {}, items: ['C'] },
    }).length > 0,
  );
});

test('a dislike of a value said as its negation voices the dislike; a bare negation of nothing said does not', () => {
  assert.deepEqual(
    aspects("Now, I don't want anything yellow, sorry.", {
      user_act: 'Note.Dislike',
      said: { constraints: {}, negated: ['yellow'] },
    }),
    [],
  );
  assert.deepEqual(
    aspects("Cool, I don't fancy anything yellow.", {
      user_act: 'Note.Dislike',
      said: { constraints: {}, negated: ['yellow'] },
    }),
    [],
  );
  // a disclosure that also negates a value, labelled a dislike, is still a disclosure
  assert.match(
    aspects('Something in cotton. Just nothing yellow.', {
      user_act: 'Note.Dislike',
      said: { constraints: { material: 'cotton' }, negated: ['yellow'] },
    }).join(),
    /opinion: trace act "?Note.Dislike"? voices an opinion, the text none/,
  );
  assert.match(
    aspects('Well, I see.', { user_act: 'Note.Dislike', said: { constraints: {}, negated: ['yellow'] } }).join(),
    /negations: said.negated "?yellow"? is not in the text/,
  );
});

test('"too yellow for me" negates yellow: a dislike with yellow in said.negated agrees, one without it does not', () => {
  const said = { constraints: {}, items: ['C'], negated: ['yellow'] };
  assert.deepEqual(aspects('The Lumen Cotton Tee is too yellow for me.', { user_act: 'Note.Dislike', said }), []);
  const d = aspects('The Lumen Cotton Tee is too yellow for me.', {
    user_act: 'Note.Dislike',
    said: { constraints: {}, items: ['C'] },
  });
  assert.match(d.join(), /negates "?colour"?="?yellow"?, said.negated does not/);
  assert.doesNotMatch(d.join(), /states "?colour"?="?yellow"?/);
  // "too" after a value is "also"
  assert.deepEqual(
    aspects('Something yellow too.', { user_act: 'Disclose', said: { constraints: { colour: 'yellow' } } }),
    [],
  );
});

test('a concession then a verdict is read by its verdict: a refinement that passes on the item is no accept', () => {
  assert.deepEqual(
    aspects(
      "Lumen Cotton Tee tempted me with the seams; still, I'll pass. I'd additionally welcome something for work.",
      {
        user_act: 'Reveal.Refine',
        said: { constraints: { occasion: 'work' }, items: ['C'] },
      },
    ),
    [],
  );
});

test('the sentence naming the item speaks for the act: a like of it beside a dislike of a value is a like', () => {
  assert.deepEqual(
    aspects(
      "Hm, okay, I like Lumen Cotton Tee, especially that it's for work. The colour: I don't want anything navy.",
      {
        user_act: 'Note.Like',
        said: { constraints: { occasion: 'work' }, negated: ['navy'], items: ['C'] },
      },
    ),
    [],
  );
});
