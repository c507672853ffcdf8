/**
 * A Like's reason says what the item is: "I like that it's a polo shirt", not "it's like a polo
 * shirt" (the wish's wording, "something like a polo shirt", read as if the item were not one).
 * Found reading runs in the fourteenth session: "It being like a polo shirt is a nice bonus".
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSimulationConfig, prepareEnvironment, simulateConversation } from '../../../src/core/run/index';

test('a Like that gives the type as its reason says the item is one, for agenda and target-free users', async () => {
  const odd: string[] = [];
  let typed = 0;
  for (const config of [
    { user: 'agenda', interaction: 'cir6', preferences: 'pkg' },
    { user: 'target-free' },
  ] as const) {
    const N = 80;
    const env = await prepareEnvironment(
      parseSimulationConfig({ ...config, agent: 'local-good', n: N, seed: 'reason-14', typo_rate: 0 }),
    );
    for (let c = 0; c < N; c++) {
      const conv = (await simulateConversation(env, c)).conversation;
      for (const turn of conv.turns) {
        const act = turn.trace?.user_act;
        if (act !== 'Note.Like' || !('type' in (turn.trace?.said?.constraints ?? {}))) continue;
        typed++;
        // the Like's sentences (a wish beside it, "Ideally it's like a messenger bag too.", is not a reason)
        const said = (turn.user_utterance ?? '').split(/(?<=[.!?])\s+/).filter((x) => !/^ideally\b/i.test(x));
        if (said.some((x) => /\b(?:it's|is|being) like an? /i.test(x))) odd.push(`${conv.id}: ${turn.user_utterance}`);
      }
    }
  }
  assert.ok(typed >= 20, `${typed} Likes with the type as their reason`);
  assert.deepEqual(odd.slice(0, 5), [], `${odd.length} of ${typed}`);
});
