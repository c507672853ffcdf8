/**
 * A carousel the agent keeps on screen while it only asks (the same items in the same order, no
 * showing act) is not shown again (docs/simulation.md, "A carousel kept on screen is not shown
 * again"): right after the user passed its first item over, keeping it costs no patience (no push
 * "shown again right after the user passed it over") and does not raise satisfaction. Played with a
 * scripted agent that shows one carousel and then keeps it while it asks: since the twelfth round
 * `local-good` reads every turn-down and so rarely keeps a carousel after one (the integration test
 * in agenda-requests.test.ts saw 3 cases in 1,200 conversations).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TransitionModel, defaultTransitionCounts } from '../../../src/core/sim/users/index';
import { ScriptedAgent, simulateOne, tinyCatalog, userEnv } from './fixtures';

test('agenda users: a carousel kept on screen right after a pass-over costs no patience and does not satisfy', async () => {
  const catalog = tinyCatalog();
  const transitions = new TransitionModel(defaultTransitionCounts());
  const shown = ['F000', 'F001', 'F002', 'F003'];
  const agent = new ScriptedAgent(catalog, [
    { utterance: 'Here are a few to start with.', acts: ['recommend'], items: shown },
    { utterance: 'Which colour would you like?', acts: ['elicit_preference'], items: shown },
  ]);
  let kept = 0;
  const wrong: string[] = [];
  for (const interaction of ['cir6', 'qrfa'] as const)
    for (const preferences of ['single', 'pkg'] as const) {
      const e = userEnv(agent, { user: 'agenda', interaction, preferences }, { catalog, transitions }, 6);
      for (let i = 0; i < 60; i++) {
        const c = await simulateOne(e, i, `kept-${interaction}-${preferences}`, 'footwear');
        const ts = c.turns.map((t) => t.trace!);
        // turn 1 answers the first carousel; turn 2 the same carousel kept while the agent asks
        if (ts.length < 3) continue;
        const passed = ['Note.Dislike', 'Note.Seen', 'Note.Like'].includes(String(ts[1].user_act))
          ? ts[1].said?.items?.[0]
          : undefined;
        if (passed !== shown[0]) continue;
        kept++;
        const where = `${interaction}-${preferences} ${c.id}`;
        if (String(ts[2].push_reason ?? '').includes('again right after'))
          wrong.push(`${where}: pushed for the kept carousel (${ts[2].push_reason})`);
        if ((ts[2].patience ?? 0) < (ts[1].patience ?? 0) && ts[2].operation === 'push' && !ts[2].push_reason)
          wrong.push(`${where}: patience lost without a reason`);
        if ((ts[2].satisfaction ?? 0) > (ts[1].satisfaction ?? 0)) wrong.push(`${where}: satisfaction rose`);
      }
    }
  assert.ok(kept >= 15, `only ${kept} kept carousels after a pass-over`);
  assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} of ${kept}`);
});
