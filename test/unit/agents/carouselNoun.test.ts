/**
 * local-good describes a carousel by what its items have, not by the user's wish. Before (thirteenth
 * session), its "More $noun for you", "A new page of $noun, led by ...", "Among these $noun" and
 * "These are $noun" frames named the wanted colour and material whatever was shown: "More cream
 * ballet flats for you: the Corvid Women's Black Knit Ballet Flats" (211 of 5,065 carousel turns
 * against target-free users, 29 of 2,396 against agenda users, seeds s13tf / s13e); after, 0.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSimulationConfig, prepareEnvironment, simulateConversation } from '../../../src/core/run/index';
import { questionSentences } from '../../../src/core/text/sentences';

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('local-good names no colour or material that none of the first three items shown has', async () => {
  const wrong: string[] = [];
  let turns = 0;
  for (const user of ['agenda', 'target-free'] as const) {
    const N = 200;
    const env = await prepareEnvironment(
      parseSimulationConfig({ user, agent: 'local-good', n: N, seed: `noun-${user}`, catalog_size: 800 }),
    );
    const values = new Map<string, Set<string>>([
      ['colour', new Set()],
      ['material', new Set()],
    ]);
    // "jersey" is a material and a type ("cycling jersey")
    for (const [slot, set] of values) for (const v of env.catalog.attributeValues(slot)) if (v !== 'jersey') set.add(v);
    for (let c = 0; c < N; c++) {
      const conv = (await simulateConversation(env, c)).conversation;
      for (const turn of conv.turns) {
        const recs = turn.recommendations ?? [];
        if (!recs.length || !turn.assistant_utterance) continue;
        turns++;
        // statements only (a question's examples claim nothing), titles and feature words left out
        let low = turn.assistant_utterance.toLowerCase();
        for (const q of questionSentences(low).split(/(?<=\?)\s*/)) if (q.trim()) low = low.split(q.trim()).join(' ');
        for (const r of recs) {
          low = low.split((r.title ?? '').toLowerCase()).join(' ');
          for (const f of String(r.features ?? '').split(','))
            if (f.trim()) low = low.split(f.trim().toLowerCase()).join(' ');
        }
        const top = recs.slice(0, 3);
        for (const [slot, set] of values)
          for (const v of set) {
            if (!new RegExp(`\\b${escape(v)}\\b`).test(low)) continue;
            if (top.some((r) => r.attributes?.[slot] === v)) continue;
            if (new RegExp(`\\b(not|no|besides|instead of|other than|without)\\b[^.]{0,30}\\b${escape(v)}`).test(low))
              continue;
            wrong.push(`${conv.id}: ${v}: ${turn.assistant_utterance}`);
          }
      }
    }
  }
  assert.ok(turns >= 1000, `only ${turns} carousel turns`);
  assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} of ${turns} carousel turns`);
});
