/**
 * A carousel the agent keeps on screen while it only asks (the items of its last turn, in the same
 * order, no showing act) is not shown again, for the target-free user as for the agenda user: it is
 * not weighed again, costs no patience, and leaves satisfaction as it was (no `operation`). Against
 * local-good, which keeps its carousel while it asks ("A new batch, or tweaks to these?"), counting
 * such turns as pushes made 61 % of target-free users abandon (30 % with the rule; seed kept11, 500).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSimulationConfig, prepareEnvironment, simulateConversation } from '../../../src/core/run/index';

test('target-free vs local-good: a carousel kept on screen while the agent asks is not weighed again', async () => {
  const N = 60;
  const env = await prepareEnvironment(
    parseSimulationConfig({ user: 'target-free', agent: 'local-good', n: N, seed: 'kept-carousel', catalog_size: 800 }),
  );
  let kept = 0;
  const judged: string[] = [];
  for (let c = 0; c < N; c++) {
    const conv = (await simulateConversation(env, c)).conversation;
    const ids = (k: number) => (conv.turns[k]?.recommendations ?? []).map((r) => r.item_id).join(' ');
    for (let k = 2; k < conv.turns.length; k++) {
      const tr = conv.turns[k].trace;
      const prev = conv.turns[k - 1].trace;
      if (!tr || !prev || tr.user_act === 'Note.Accept') continue;
      const acts = ((tr.nlu as { acts?: string[] } | undefined)?.acts ?? [tr.nlu?.agent_act]) as string[];
      if (ids(k - 1) === '' || ids(k - 1) !== ids(k - 2) || acts.includes('Reveal.Show')) continue;
      kept++;
      if (tr.operation !== undefined || tr.patience !== prev.patience || tr.satisfaction !== prev.satisfaction)
        judged.push(
          `${conv.id} turn ${k}: ${tr.operation} patience ${prev.patience}->${tr.patience} satisfaction ${prev.satisfaction}->${tr.satisfaction}`,
        );
    }
  }
  assert.ok(kept >= 20, `only ${kept} kept carousels in ${N} conversations`);
  assert.deepEqual(judged.slice(0, 5), [], `${judged.length} of ${kept} kept carousels weighed again`);
});
