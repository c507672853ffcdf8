/**
 * A price step the recommender takes on its own ("fancier" / "cheaper" read as over the dearest or
 * under the cheapest item shown) never leaves the user with nothing. Before (thirteenth session),
 * "Something for swimming would be nicer" read as "pricier" ("nicer" was a price cue), the step put
 * the minimum over every swimsuit, and local-good answered "I have no orange spandex swimsuits.
 * Perhaps another material?" for 18 turns while the target-free user restated its wish (2 of 500
 * conversations against target-free users ran to the turn cap that way; 52 "nothing matches" turns).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateApparelCatalog } from '../../../src/core/catalog/catalog';
import { createAgent } from '../../../src/core/sim/recommenders/index';
import { createRng } from '../../../src/core/random';
import { Lexicon } from '../../../src/core/sim/recommenders/local/lexicon';
import type { AgentResponse } from '../../../src/core/sim/types';
import { playScript } from '../../support/agents';

const catalog = generateApparelCatalog({ seed: 'agents', size: 3000 });

test('"... would be nicer" about a wish is no price cue; "something nicer" and "fancier" are', () => {
  const lexicon = Lexicon.for(catalog);
  const pricier = (u: string) => lexicon.parse(u).intents.has('pricier');
  assert.equal(pricier('Something for swimming would be nicer, to be frank.'), false);
  assert.equal(pricier('Something in black might be nicer.'), false);
  assert.equal(pricier('Do you have something nicer?'), true);
  assert.equal(pricier('Something a bit nicer, please.'), true);
  assert.equal(pricier('Show me something fancier.'), true);
});

for (const [cue, dir] of [
  ['Something fancier, please.', 'pricier'],
  ['Anything cheaper?', 'cheaper'],
] as const) {
  test(`local-good takes back its own price step when nothing is left under it ("${cue}")`, async () => {
    let undone = 0;
    let empty = 0;
    for (let s = 0; s < 20; s++) {
      const session = createAgent('local-good', { catalog }).createSession(`p-${s}`, createRng(`step-${s}`), {
        task: 'outerwear',
      });
      const answers: AgentResponse[] = await playScript(session, [
        'Hi, I need a coat for the winter.',
        cue,
        cue,
        cue,
        cue,
        cue,
        cue,
      ]);
      for (const r of answers.slice(1)) {
        if (r.recommendations.length === 0 && (r.acts ?? []).includes('cannot_help')) empty++;
        const t = (r.agent_trace ?? {}) as Record<string, unknown>;
        if (t['price_step_undone'] !== undefined) {
          undone++;
          assert.equal(t['price_step_undone'], dir);
          assert.ok(r.recommendations.length > 0, `the dearest (cheapest) items are shown: ${r.utterance}`);
          // and they are: the carousel runs from the dearest (cheapest) item down (up)
          const prices = r.recommendations.map((it) => Number(it.price ?? NaN)).filter((p) => !Number.isNaN(p));
          const sorted = [...prices].sort((a, b) => (dir === 'pricier' ? b - a : a - b));
          assert.deepEqual(prices, sorted, `${r.utterance}: ${prices.join(' ')}`);
          assert.match(r.utterance, dir === 'pricier' ? /pricier|dearer|top of the range/ : /cheaper|for less|low end/);
        }
      }
    }
    assert.equal(empty, 0, `${empty} "nothing matches" turns after a price step`);
    assert.ok(undone >= 10, `the step was taken back ${undone} times in 20 conversations`);
  });
}

test('a price band said outright replaces the step the agent took', async () => {
  const session = createAgent('local-good', { catalog }).createSession('band', createRng('step-0'), {
    task: 'outerwear',
  });
  const filters = (r: AgentResponse) => ((r.agent_trace ?? {}) as { filters?: Record<string, unknown> }).filters ?? {};
  // the agent asks twice before its first carousel; "fancier" then steps over the dearest item shown
  const answers = await playScript(session, [
    'Hi, I need a coat for the winter.',
    'Something fancier, please.',
    'Something fancier, please.',
    'Something fancier, please.',
    'Actually, something in the budget price range.',
  ]);
  assert.ok(filters(answers[3])['min_price'] !== undefined, 'the step set a minimum price');
  assert.equal(filters(answers[4])['min_price'], undefined, 'the band said replaces it');
  assert.ok(answers[4].recommendations.length > 0);
});

test("taking its own step back, local-good keeps the user's own budget", async () => {
  let undone = 0;
  for (let s = 0; s < 10; s++) {
    const session = createAgent('local-good', { catalog }).createSession(`b-${s}`, createRng(`budget-${s}`), {
      task: 'outerwear',
    });
    const answers = await playScript(session, [
      'I need a wool coat for men, under $40.',
      'Any colour is fine.',
      'Anything cheaper?',
      'Anything cheaper?',
      'Something fancier, please.',
      'Something fancier, please.',
    ]);
    for (const r of answers) {
      const over = r.recommendations.filter((it) => Number(it.price ?? 0) > 40);
      assert.deepEqual(
        over.map((it) => it.price),
        [],
        `items over the user's $40 after "${r.utterance}"`,
      );
      if (((r.agent_trace ?? {}) as Record<string, unknown>)['price_step_undone'] !== undefined) undone++;
    }
  }
  assert.ok(undone >= 10, `the step was taken back ${undone} times`);
});
