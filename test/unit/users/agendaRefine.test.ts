/**
 * An agenda user refines what is on screen ("only the ones in wool"): after an agent turn that
 * showed no items, a planned Reveal.Refine is said as a plain disclosure, never "narrow these" about
 * no items (independent review, eleventh round: 1-9 of 23-43 refinements per configuration against
 * local-good followed a turn without items).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eachAgendaVsLocalGood } from './fixtures';

test('agenda users vs local-good: no Reveal.Refine right after an agent turn without items', async () => {
  let empty = 0;
  let refines = 0;
  const bad: string[] = [];
  await eachAgendaVsLocalGood('refine-on-screen', 80, (conv, config) =>
    conv.turns.forEach((turn, k) => {
      if (k === 0) return;
      const act = turn.trace?.user_act;
      if (act === 'Reveal.Refine') refines++;
      if ((conv.turns[k - 1].recommendations ?? []).length) return;
      empty++;
      if (act === 'Reveal.Refine') bad.push(`${config} ${conv.id} turn ${k}: ${turn.user_utterance}`);
    }),
  );
  assert.ok(empty >= 50 && refines >= 20, `only ${empty} agent turns without items, ${refines} refinements`);
  assert.deepEqual(bad.slice(0, 5), [], `${bad.length} refinements about no items`);
});
