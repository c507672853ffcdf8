/**
 * An agenda user whose next act is a request for options (Inquire, Inquire.List) asks for other
 * options when a carousel is on screen (`Navigate.More`, `planned_act` naming the planned act), not
 * for a list beside the list ("Can you list some tops for me?" under twelve tops). Before (fourteenth
 * session, review finding), 49 of 2,577 user turns (CIR6 PKG) and 59 of 2,656 (QRFA single) against
 * local-good did that (500 conversations each, seed s14ag), 38 of them right after the first carousel.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSimulationConfig, prepareEnvironment, simulateConversation } from '../../../src/core/run/index';

test('a request for options with options on screen asks for others, as the act it plans', async () => {
  const wrong: string[] = [];
  let more = 0;
  for (const [interaction, preferences] of [
    ['cir6', 'pkg'],
    ['qrfa', 'single'],
  ]) {
    const N = 100;
    const env = await prepareEnvironment(
      parseSimulationConfig({ user: 'agenda', interaction, preferences, agent: 'local-good', n: N, seed: 'list-14' }),
    );
    for (let c = 0; c < N; c++) {
      const conv = (await simulateConversation(env, c)).conversation;
      for (let k = 1; k < conv.turns.length; k++) {
        const tr = conv.turns[k].trace!;
        const onScreen = (conv.turns[k - 1].recommendations ?? []).length > 0;
        if (onScreen && tr.user_act === 'Inquire.List')
          wrong.push(`${conv.id} turn ${k}: ${conv.turns[k].user_utterance}`);
        const planned = (tr as Record<string, unknown>)['planned_act'];
        if (onScreen && tr.user_act === 'Navigate.More' && typeof planned === 'string' && planned.startsWith('Inquire'))
          more++;
      }
    }
  }
  assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} requests for a list beside a list`);
  assert.ok(more >= 5, `${more} requests for options said as a request for others`);
});
