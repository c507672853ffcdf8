/**
 * An agenda user never asks about an attribute it stated a value of itself (agenda rule 16,
 * eighteenth round): a refinement never states a value of a goal request (what the user wants to
 * learn of an item), and an item question skips a request the user has stated. Before, 18 of
 * 1,256 item questions over the 30 configurations (300 conversations each, seed chk18b, catalog
 * 800) asked about an attribute a Reveal.Refine had stated ("What's the price band of ...?" after
 * "only the ones in the luxury price range"); seven of them in QRFA PKG against local-good.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSimulationConfig, prepareEnvironment, simulateConversation } from '../../../src/core/run/index';
import { InvariantChecker } from '../../../src/core/check/index';

test('agenda QRFA users vs local-good: no refinement on a request, no item question about a stated attribute', async () => {
  const bad: string[] = [];
  let questions = 0;
  let refines = 0;
  for (const preferences of ['pkg', 'single'] as const) {
    const env = await prepareEnvironment(
      parseSimulationConfig({
        user: 'agenda',
        interaction: 'qrfa',
        preferences,
        agent: 'local-good',
        n: 210,
        seed: 'chk18b',
        catalog_size: 800,
      }),
    );
    const checker = new InvariantChecker({ only: ['goal-requests'], readback: false, examples: 20 });
    for (let k = 0; k < 210; k++) {
      const conv = (await simulateConversation(env, k)).conversation;
      checker.add(conv);
      const stated = new Set<string>();
      conv.turns.forEach((turn, i) => {
        const tr = turn.trace;
        const goal = tr?.goal;
        if (tr?.user_act === 'Reveal.Refine') {
          refines++;
          for (const a of Object.keys(tr.said?.constraints ?? {}))
            if (goal?.requests.includes(a)) bad.push(`${conv.id} turn ${i}: refines on request ${a}`);
        }
        if (tr?.user_act === 'Navigate' && tr.said?.items?.length && goal) {
          questions++;
          const text = (turn.user_utterance ?? '').toLowerCase();
          const asked = goal.requests.filter(
            (r) => !(goal.fulfilled_requests ?? []).includes(r) && text.includes(r.replace(/_/g, ' ')),
          );
          if (asked.some((r) => stated.has(r)))
            bad.push(`${conv.id} turn ${i}: asks ${asked.join()}: ${turn.user_utterance}`);
        }
        for (const a of Object.keys(tr?.said?.constraints ?? {})) if (a !== 'category') stated.add(a);
      });
    }
    const r = checker.report().invariants[0];
    assert.equal(r.violations, 0, `${preferences}: ${JSON.stringify(r.examples)}`);
  }
  assert.ok(questions >= 100 && refines >= 50, `only ${questions} item questions, ${refines} refinements`);
  assert.deepEqual(bad, []);
});
