/**
 * A pool wording that starts a sentence of its own ("Can you help me out", "You've lost me",
 * "Good speaking with you") continues a sentence after a comma in lower case (seventeenth round,
 * found reading runs: 70 of 16,689 user utterances read "Good morning, Can you help me out?",
 * "Truthfully, You've lost me"). Item titles keep their capitals.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSimulationConfig, prepareEnvironment, simulateConversation } from '../../../src/core/run/index';

test('no capital letter after a comma except names and titles', async () => {
  const wrong: string[] = [];
  let titled = 0;
  for (const config of [
    { user: 'target-free', agent: 'local-good' },
    { user: 'agenda', interaction: 'qrfa', preferences: 'single', agent: 'local-good' },
    { user: 'agenda', meta: 'tol', agent: 'local-bad' },
  ]) {
    const N = 200;
    const env = await prepareEnvironment(parseSimulationConfig({ ...config, n: N, seed: 'mid-17', catalog_size: 800 }));
    for (let c = 0; c < N; c++) {
      const conv = (await simulateConversation(env, c)).conversation;
      const names = new Set<string>();
      for (const t of conv.turns)
        for (const r of t.recommendations ?? []) for (const w of (r.title ?? '').split(/\s+/)) names.add(w);
      for (const t of conv.turns) {
        for (const m of (t.user_utterance ?? '').matchAll(/, ([A-Z][a-z'’]*)/g)) {
          if (names.has(m[1])) titled++;
          else if (!/^(I|I'm|I'd|I've|I'll)$/.test(m[1])) wrong.push(`${conv.id}: ${t.user_utterance}`);
        }
      }
    }
  }
  assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} utterances with a capital after a comma`);
  assert.ok(titled > 0, 'item titles after a comma keep their capitals');
});
