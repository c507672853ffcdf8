/**
 * Issue 21 (reviewer): target-free users without a meta target never accepted (all 800
 * conversations of a run ran to the 20-turn cap). Now a target-free user takes an item it expects
 * to like (docs/simulation.md, target-free user) and leaves when its patience runs out; every
 * accept keeps what the user said, and every ending is named by its rule.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSimulationConfig, prepareEnvironment, simulateConversation } from '../../../src/core/run/index';

const N = 200;

for (const agent of ['local-good', 'local-bad'] as const) {
  test(`target-free vs ${agent}: accepts, abandons at patience 0, runs to the cap otherwise`, async () => {
    const env = await prepareEnvironment(
      parseSimulationConfig({ user: 'target-free', agent, n: N, seed: 'tf-endings', catalog_size: 800 }),
    );
    const outcomes: Record<string, number> = {};
    const wrong: string[] = [];
    for (let i = 0; i < N; i++) {
      const conv = (await simulateConversation(env, i)).conversation;
      outcomes[conv.outcome ?? '?'] = (outcomes[conv.outcome ?? '?'] ?? 0) + 1;
      const last = conv.turns[conv.turns.length - 1].trace!;
      const reason = (last as Record<string, unknown>)['end_reason'];
      const expected = {
        accepted: ['accepted', 'Note.Accept'],
        abandoned: ['patience', 'Complete.Abandon'],
        ended: ['max_turns', 'Complete'],
      }[conv.outcome as string];
      if (!expected || reason !== expected[0] || last.user_act !== expected[1])
        wrong.push(`${conv.id}: outcome ${conv.outcome}, end_reason ${String(reason)}, act ${last.user_act}`);
      if (conv.outcome === 'abandoned' && last.patience !== 0)
        wrong.push(`${conv.id}: abandoned at patience ${last.patience}`);
      if (conv.outcome === 'ended' && conv.turns.length !== 20)
        wrong.push(`${conv.id}: ended after ${conv.turns.length} turns`);
      if (conv.outcome === 'accepted') {
        // the accepted item was on screen in the first three, is no history item, and keeps every value the user said
        const id = last.said?.items?.[0];
        const shown = (conv.turns[conv.turns.length - 2].recommendations ?? []).slice(0, 3).map((r) => r.item_id);
        const item = id ? env.catalog.get(id) : undefined;
        if (!item || !shown.includes(item.item_id)) {
          wrong.push(`${conv.id}: accepted ${id} not among the first three shown`);
          continue;
        }
        const consumed =
          (conv.turns[0].trace?.preferences as { consumed_items?: string[] } | undefined)?.consumed_items ?? [];
        if (consumed.includes(item.item_id)) wrong.push(`${conv.id}: accepted an item of its own history`);
        const said = new Map<string, string>();
        const negated = new Set<string>();
        for (const t of conv.turns) {
          for (const [k, v] of Object.entries(t.trace?.said?.constraints ?? {})) said.set(k, String(v));
          for (const v of t.trace?.said?.negated ?? []) negated.add(String(v));
        }
        for (const [k, v] of said) {
          const have = k === 'category' ? item.category : item.attributes[k];
          if (have !== undefined && have !== v) wrong.push(`${conv.id}: accepted ${id} with ${k}=${have}, said ${v}`);
        }
        for (const v of Object.values(item.attributes))
          if (negated.has(v)) wrong.push(`${conv.id}: accepted ${id} with ${v}, which it said it is not keen on`);
      }
    }
    assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} problems`);
    // the old user: 0 accepted, 0 abandoned, all N ended at the cap
    assert.ok((outcomes['accepted'] ?? 0) >= N * 0.05, `accepted ${outcomes['accepted'] ?? 0} of ${N}`);
    assert.ok((outcomes['abandoned'] ?? 0) >= 1, `abandoned ${outcomes['abandoned'] ?? 0} of ${N}`);
  });
}
