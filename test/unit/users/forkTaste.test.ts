/**
 * A single-item agenda user restored from its trace (a fork without the run's manifest) keeps the
 * preferences it had (eighteenth round): its latent taste (the values it likes and dislikes,
 * recorded in its snapshot's liked_attributes / disliked_attributes) and every attribute coin it
 * drew before the fork turn (recorded in the trace's attribute_opinions), instead of drawing them
 * anew; and a restored fork is the same bytes with the same seed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { forkConversation, parseSimulationConfig, prepareEnvironment } from '../../../src/core/run/index';
import { runConversation } from '../../../src/core/run/conversation';
import { createRng } from '../../../src/core/random';
import type { PreferenceModel } from '../../../src/core/sim/users/preferences';
import { isRestorable } from '../../../src/core/sim/users/session';
import { scratchDir } from '../../support/scratch';

const prefsOf = (session: unknown) => (session as { prefs: PreferenceModel }).prefs;

test('a single-item user restored at turn k keeps its taste and its drawn coins; restored forks repeat byte for byte', async () => {
  const env = await prepareEnvironment(
    parseSimulationConfig({
      user: 'agenda',
      preferences: 'single',
      agent: 'local-bad',
      n: 1,
      seed: 'fork18',
      catalog_size: 400,
    }),
  );
  const dir = scratchDir('simlens-fork-taste-');
  let checked = 0;
  let coinsChecked = 0;
  for (let k = 0; k < 12; k++) {
    const task = env.catalog.categories()[k % env.catalog.categories().length];
    const id = `orig-${k}`;
    const user = env.user.createSession(id, createRng(`user/${k}`), { task });
    const agent = env.agent.createSession(id, createRng(`agent/${k}`), { task });
    const { conversation } = await runConversation({ env, id, index: k, user, agent, task });
    const turns = conversation.turns;
    if (turns.length < 4 || typeof turns[2].trace?.end_reason === 'string') continue;
    const at = 2;
    const restored = env.user.createSession(`${id}-r`, createRng(`other/${k}`), { task });
    assert.ok(isRestorable(restored));
    restored.restore(turns.slice(0, at + 1));
    const a = prefsOf(user);
    const b = prefsOf(restored);
    assert.deepEqual(b.likedValues(), a.likedValues(), `${id}: liked values`);
    assert.deepEqual(b.dislikedValues(), a.dislikedValues(), `${id}: disliked values`);
    for (const t of turns.slice(0, at + 1)) {
      const coins = (t.trace?.preferences as Record<string, unknown> | undefined)?.['attribute_opinions'] as
        Record<string, string> | undefined;
      for (const key of Object.keys(coins ?? {})) {
        const [attr, value] = [key.slice(0, key.indexOf('=')), key.slice(key.indexOf('=') + 1)];
        assert.equal(b.attributePreference(attr, value), a.attributePreference(attr, value), `${id}: coin ${key}`);
        coinsChecked++;
      }
    }
    checked++;
    if (checked === 1) {
      // a file without its manifest forks by restore: the same seed gives the same bytes
      const f = path.join(dir, 'one.jsonl');
      writeFileSync(f, `${JSON.stringify(conversation)}\n`);
      const fork = () => forkConversation({ file: f, id, turn: at, n: 2, seed: 's', environment: env });
      const first = await fork();
      assert.deepEqual(first.methods, ['restore', 'restore']);
      assert.equal(JSON.stringify((await fork()).conversations), JSON.stringify(first.conversations));
    }
  }
  assert.ok(checked >= 5 && coinsChecked >= 1, `only ${checked} conversations, ${coinsChecked} coins checked`);
});
