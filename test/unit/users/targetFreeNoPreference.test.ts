/**
 * A target-free user that says it does not want a value of an attribute never says, then or later,
 * that it has no preference on that attribute (seventeenth round: "I really don't like anything in
 * the budget price range ... The price band doesn't matter a lot to me." in conversation 8478 of the
 * 300,000-conversation bench; local-good read the second as taking the exclusion back and showed
 * budget items, the checker's negation-honoured).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSimulationConfig, prepareEnvironment, simulateConversation } from '../../../src/core/run/index';
import { InvariantChecker } from '../../../src/core/check/index';

test('no "no preference" on an attribute the user negated a value of', async () => {
  const env = await prepareEnvironment(
    parseSimulationConfig({
      user: 'target-free',
      agent: 'local-good',
      n: 10000,
      seed: 'invariants-bench',
      catalog_size: 800,
    }),
  );
  const conv = (await simulateConversation(env, 8478)).conversation;
  const negatedAttrs = new Set<string>();
  const wrong: string[] = [];
  conv.turns.forEach((t, i) => {
    const said = (t.trace?.said ?? {}) as { negated?: string[]; no_preference?: string[] };
    for (const v of said.negated ?? [])
      for (const [a, have] of Object.entries(
        env.catalog.items.find((it) => Object.values(it.attributes).includes(v))?.attributes ?? {},
      ))
        if (have === v) negatedAttrs.add(a);
    for (const a of said.no_preference ?? []) if (negatedAttrs.has(a)) wrong.push(`turn ${i}: ${t.user_utterance}`);
  });
  assert.deepEqual(wrong, []);
  const checker = new InvariantChecker({
    catalog: env.catalog,
    maxTurns: env.maxTurns,
    readback: false,
    only: ['negation-honoured'],
  });
  checker.add(conv);
  assert.equal(checker.report().invariants[0].violations, 0);
});
