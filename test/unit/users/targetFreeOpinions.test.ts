/**
 * Target-free users never like or take an item carrying a value they said they do not want, said
 * earlier or in the same turn (an independent review found "Brindle & Co Grey Slippers is nice ...
 * I'm not keen on anything grey" in 25 of 6,382 Like turns, seed 7338 against local-good).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSimulationConfig, prepareEnvironment, simulateConversation } from '../../../src/core/run/index';

for (const agent of ['local-good', 'local-bad'] as const) {
  test(`target-free vs ${agent}: no Like or accept of an item with a value the user negated (so far or in that turn)`, async () => {
    const env = await prepareEnvironment(
      parseSimulationConfig({ user: 'target-free', agent, n: 260, seed: '7338', catalog_size: 800 }),
    );
    let judged = 0;
    const found: string[] = [];
    // 260 conversations: fewer Like turns since the tenth round (a reason is given once), and
    // shorter conversations since the fourteenth (an opening that says fewer values leaves more
    // items the user takes: 482 turns to judge in 220 conversations against local-bad)
    for (let i = 0; i < 260; i++) {
      const conv = (await simulateConversation(env, i)).conversation;
      const negated = new Set<string>();
      conv.turns.forEach((turn, k) => {
        const tr = turn.trace;
        for (const v of tr?.said?.negated ?? []) negated.add(String(v));
        const id = tr?.said?.items?.[0];
        if (!id || (tr?.user_act !== 'Note.Like' && tr?.user_act !== 'Note.Accept')) return;
        const item = env.catalog.get(id);
        if (!item) return;
        judged++;
        const clash = Object.values(item.attributes).filter((v) => negated.has(String(v)));
        if (clash.length)
          found.push(`${conv.id} turn ${k}: ${tr.user_act} of ${id} (${clash.join(', ')}): ${turn.user_utterance}`);
      });
    }
    assert.ok(judged > 500, `only ${judged} Like/accept turns to judge`);
    assert.deepEqual(found.slice(0, 5), [], `${found.length} of ${judged}`);
  });
}

// An independent review (ninth round) found one item praised on up to 18 turns and never taken
// (59 % of target-free conversations against local-good liked one item 3 or more times): an item's
// praise is said once; shown again, the user says what keeps it from taking it, and the agent's
// reading of a hedge ("give or take, the second ...") is no accept.
test('target-free vs local-good: an item is praised in one Like turn at most, and a turned-down item shown again costs patience', async () => {
  const env = await prepareEnvironment(
    parseSimulationConfig({ user: 'target-free', agent: 'local-good', n: 160, seed: 'praise-once', catalog_size: 800 }),
  );
  let likes = 0;
  let restated = 0;
  const again: string[] = [];
  // 160 conversations: shorter ones since the eleventh round (a liked item is weighed once)
  for (let i = 0; i < 160; i++) {
    const conv = (await simulateConversation(env, i)).conversation;
    const praised = new Set<string>();
    for (const [k, turn] of conv.turns.entries()) {
      const tr = turn.trace;
      if (tr?.user_act === 'Disclose' && Object.keys(tr.said?.constraints ?? {}).length) restated++;
      if (tr?.user_act !== 'Note.Like') continue;
      // the liked item is named first (a disliked one, if any, after it)
      const id = tr.said?.items?.[0];
      if (!id) continue;
      likes++;
      if (praised.has(id)) again.push(`${conv.id} turn ${k}: ${turn.user_utterance}`);
      praised.add(id);
    }
  }
  assert.ok(likes > 300, `${likes} Like turns`);
  assert.ok(restated > 0, 'no turn said again a value a liked item lacks');
  assert.deepEqual(again.slice(0, 5), []);
});

// An independent review (ninth round, class D) found target-free users liking items that lack a value
// they said they want: 17.6-97 % of Like turns; in 2,188 of 4,278 against local-bad (seed d10-fresh)
// the Like gave no wanted value as its reason ("the first one is charming, plus adjustable cuffs"
// of an orange leather bomber after "beige denim for everyday wear"). Stated wants win over the
// reflected opinion: such an item is liked only for a wanted value it has, and the Like says it.
for (const [agent, meta] of [
  ['local-bad', undefined],
  ['local-good', undefined],
  ['local-bad', 'tol'],
] as const) {
  test(`target-free${meta ? ` meta-${meta}` : ''} vs ${agent}: a Like of an item lacking a wanted value says a wanted value it has`, async () => {
    const env = await prepareEnvironment(
      parseSimulationConfig({ user: 'target-free', agent, meta, n: 150, seed: 'like-lacking', catalog_size: 800 }),
    );
    let lacking = 0;
    const found: string[] = [];
    for (let i = 0; i < 150; i++) {
      const conv = (await simulateConversation(env, i)).conversation;
      const wanted = new Map<string, string>();
      conv.turns.forEach((turn, k) => {
        const tr = turn.trace;
        const now = Object.entries(tr?.said?.constraints ?? {}).filter(([a]) => a !== 'category');
        const id = tr?.said?.items?.[0];
        const item = id !== undefined && tr?.user_act === 'Note.Like' ? env.catalog.get(id) : undefined;
        if (item && item.item_id !== tr?.target?.item_id) {
          const lacks = [...wanted].filter(([a, v]) => item.attributes[a] !== undefined && item.attributes[a] !== v);
          if (lacks.length) {
            lacking++;
            if (!now.some(([a, v]) => wanted.get(a) === String(v) && item.attributes[a] === String(v)))
              found.push(
                `${conv.id} turn ${k}: lacks ${lacks.map((x) => x.join('=')).join(', ')}: ${turn.user_utterance}`,
              );
          }
        }
        for (const [a, v] of now) wanted.set(a, String(v));
      });
    }
    assert.ok(lacking > 50, `only ${lacking} Likes of an item lacking a wanted value`);
    assert.deepEqual(found.slice(0, 5), [], `${found.length} of ${lacking}`);
  });
}
