/**
 * The 300,000-conversation invariants bench on the merged fifteenth round found `agenda-pull-order`
 * failing in 1-5 of 10,000 conversations of every agenda configuration against local-bad: the agenda
 * user (one question reader since this round) reads "Mostly wearing them inside, or out?" as an
 * occasion question and "for whom" as a gender one, and answers them with the pulled act kept on the
 * agenda, while the checker's own cue words did not know "wearing", so it saw a deferral that answers
 * nothing. And "So, what brings you here? Shoes, a coat, or just browsing?" was no category question
 * to the user, who said "I don't really mind" to it. These are five of those conversations.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InvariantChecker } from '../../../src/core/check/index';
import { parseSimulationConfig, prepareEnvironment, simulateConversation } from '../../../src/core/run/index';

const FOUND = [4470, 4794, 6532, 9446, 9723];

test('the bench-found agenda deferrals after "wearing" questions hold, and "what brings you here" gets a category', async () => {
  const env = await prepareEnvironment(
    parseSimulationConfig({
      user: 'agenda',
      interaction: 'cir6',
      preferences: 'pkg',
      agent: 'local-bad',
      n: 10000,
      seed: 'invariants-bench',
      catalog_size: 800,
    }),
  );
  const checker = new InvariantChecker({
    catalog: env.catalog,
    examples: 5,
    readback: false,
    only: ['agenda-pull-order'],
  });
  let categoryQuestions = 0;
  for (const i of FOUND) {
    const c = (await simulateConversation(env, i)).conversation;
    checker.add(c);
    c.turns.forEach((t, k) => {
      const asked = c.turns[k - 1]?.assistant_utterance ?? '';
      if (k === 0 || !/what brings you here/i.test(asked) || c.turns[k - 1].recommendations?.length) return;
      categoryQuestions++;
      assert.notEqual(
        t.trace?.user_act,
        'Disclose.NonDisclose',
        `${c.id} turn ${k}: "${t.user_utterance}" after "${asked}"`,
      );
    });
  }
  const r = checker.report().invariants[0];
  assert.equal(r.conversations, FOUND.length);
  assert.equal(r.violations, 0, JSON.stringify(r.examples));
  assert.ok(categoryQuestions >= 1, `category questions met: ${categoryQuestions}`);
});
