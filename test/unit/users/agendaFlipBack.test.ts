/**
 * A change of mind never goes back (twelfth round, an independent review: 1-6 plain agenda
 * conversations per 500 revised a value to one they had said before and changed away from,
 * "On second thought, something brown" after brown -> orange). A user without a meta-simulator
 * revises to a value it has not said for that attribute; meta users follow their target (AlterEval)
 * and are not covered here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eachAgendaVsLocalGood } from './fixtures';

test('agenda users vs local-good: a revision never goes back to a value said before for that attribute', async () => {
  let revisions = 0;
  const flips: string[] = [];
  await eachAgendaVsLocalGood('flip-back', 200, (conv, config) => {
    const history = new Map<string, string[]>();
    conv.turns.forEach((turn, k) => {
      if (String(turn.trace?.user_act).includes('Revise')) revisions++;
      for (const [attr, value] of Object.entries(turn.trace?.said?.constraints ?? {})) {
        if (attr === 'category') continue;
        const said = history.get(attr) ?? [];
        if (said.length && said[said.length - 1] !== value && said.includes(String(value)))
          flips.push(
            `${config} ${conv.id} turn ${k}: ${attr} ${said.join(' -> ')} -> ${value}: ${turn.user_utterance}`,
          );
        history.set(attr, [...said, String(value)]);
      }
    });
  });
  assert.ok(revisions >= 50, `only ${revisions} revisions`);
  assert.deepEqual(flips.slice(0, 5), [], `${flips.length} flip-backs in ${revisions} revisions`);
});
