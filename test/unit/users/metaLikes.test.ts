/**
 * Issue 21 (class 7): meta agenda users never said Note.Like (0 Likes in 1,200 meta conversations
 * against local-good, seed fidelity-21). A meta user likes an item as close to its target as a
 * member of its target group (AlterEval's relevance judgments), never one with a value other than
 * one it said or one it said it does not want.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSimulationConfig, prepareEnvironment, simulateConversation } from '../../../src/core/run/index';

test('meta agenda users vs local-good say Like, and only of items that keep what they said', async () => {
  const env = await prepareEnvironment(
    parseSimulationConfig({
      user: 'agenda',
      interaction: 'cir6',
      preferences: 'pkg',
      meta: 'tol',
      agent: 'local-good',
      n: 300,
      seed: 'meta-likes',
      catalog_size: 800,
    }),
  );
  let likes = 0;
  const wrong: string[] = [];
  for (let i = 0; i < 300; i++) {
    const c = (await simulateConversation(env, i)).conversation;
    const said = new Map<string, string>();
    const negated = new Set<string>();
    c.turns.forEach((t, k) => {
      const tr = t.trace!;
      if (tr.user_act === 'Note.Like') {
        likes++;
        // a Like of a value names no item: the first item of the last carousel it read
        let id = tr.said?.items?.[0];
        for (let j = k - 1; id === undefined && j >= 0; j--) id = c.turns[j].recommendations?.[0]?.item_id;
        const item = id ? env.catalog.get(id) : undefined;
        const target = tr.target ? env.catalog.get(tr.target.item_id) : undefined;
        if (!item || !target) wrong.push(`${c.id} turn ${k}: Like without a known item or target`);
        else {
          const group = tr.target!.alternatives ?? [];
          const minSim = Math.min(
            ...group
              .filter((g) => g !== target.item_id)
              .map((g) => env.catalog.similarity(env.catalog.get(g)!, target)),
            0.7,
          );
          if (!group.includes(item.item_id) && env.catalog.similarity(item, target) < minSim - 1e-12)
            wrong.push(`${c.id} turn ${k}: liked ${id}, less similar to the target than its group`);
          for (const [a, v] of said)
            if (a !== 'category' && item.attributes[a] !== undefined && item.attributes[a] !== v)
              wrong.push(`${c.id} turn ${k}: liked ${id} with ${a}=${item.attributes[a]}, said ${v}`);
          for (const v of Object.values(item.attributes))
            if (negated.has(v)) wrong.push(`${c.id} turn ${k}: liked ${id} with ${v}, said not wanted`);
        }
      }
      for (const [a, v] of Object.entries(tr.said?.constraints ?? {})) said.set(a, String(v));
      // a Reveal.Expand takes a said value back
      if (tr.user_act === 'Reveal.Expand')
        for (const a of [...said.keys()])
          if (!(Array.isArray(tr.goal?.disclosed) ? tr.goal.disclosed.map(String) : []).includes(a)) said.delete(a);
      for (const v of tr.said?.negated ?? []) negated.add(String(v));
    });
  }
  assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} wrong Likes`);
  assert.ok(likes >= 10, `only ${likes} Likes (0 before the fix)`);
});
