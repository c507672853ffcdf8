/**
 * How target-free users name the items they like and dislike (docs/simulation.md, "Items named by
 * their place, and why they are liked"), counted over simulated runs against both local agents:
 * a place ("the second one") points at an item the trace says the turn was about; every item of
 * `said.items` is named by its title or its place; a detail praised is one of that item's own
 * sayable details, said once per item and conversation; the opening narrative is worded in more
 * than one way.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSimulationConfig, prepareEnvironment, simulateConversation } from '../../../src/core/run/index';
import { sayableDetails } from '../../../src/core/sim/recommenders/index';

const PLACES: Record<string, number> = { first: 0, second: 1, third: 2 };
const PLACE = /\b(?:the|that|this) (first|second|third)(?: one)?\b/gi;

for (const agent of ['local-good', 'local-bad']) {
  test(`target-free users vs ${agent}: items named by title or place, details of the item itself, said once`, async () => {
    const env = await prepareEnvironment(
      parseSimulationConfig({ user: 'target-free', agent, n: 400, seed: 'item-references', catalog_size: 800 }),
    );
    const details = sayableDetails(env.catalog);
    let places = 0;
    let titles = 0;
    let praised = 0;
    const leads = new Set<string>();
    for (let i = 0; i < 400; i++) {
      const { conversation } = await simulateConversation(env, i);
      const said = new Set<string>();
      let carousel: string[] = [];
      conversation.turns.forEach((turn, k) => {
        const text = turn.user_utterance ?? '';
        const tr = turn.trace;
        if (k === 0)
          leads.add(/\b(I[^,.]*?) (?:[a-z]+ )?pieces\b/.exec(text)?.[1]?.split(' ').slice(0, 3).join(' ') ?? '');
        const act = tr?.user_act;
        if (act === 'Note.Like' || act === 'Note.Dislike') {
          const items = (tr?.said?.items ?? []) as string[];
          for (const m of text.matchAll(PLACE)) {
            const id = carousel[PLACES[m[1].toLowerCase()]];
            assert.ok(
              id && items.includes(id),
              `${conversation.id} turn ${k}: "${m[0]}" points at ${id}, said ${items}: ${text}`,
            );
            places++;
          }
          for (const id of items) {
            const title = env.catalog.get(id)?.title ?? '';
            const at = carousel.indexOf(id);
            const byPlace = [...text.matchAll(PLACE)].some((m) => PLACES[m[1].toLowerCase()] === at);
            if (text.includes(title)) titles++;
            assert.ok(text.includes(title) || byPlace, `${conversation.id} turn ${k}: ${id} unnamed: ${text}`);
          }
          // a detail said is one of the liked item's own, never said twice of it
          for (const id of carousel) {
            const item = env.catalog.get(id);
            if (!item) continue;
            for (const d of details(item)) {
              if (!new RegExp(`(?:: |for |and |plus )${d.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`).test(text))
                continue;
              const mine =
                act === 'Note.Like' && items[0] !== undefined && details(env.catalog.get(items[0])!).includes(d);
              assert.ok(mine, `${conversation.id} turn ${k}: "${d}" is not a detail of the liked item: ${text}`);
              if (id !== items[0]) continue;
              assert.ok(!said.has(`${id}|${d}`), `${conversation.id} turn ${k}: "${d}" praised again: ${text}`);
              said.add(`${id}|${d}`);
              praised++;
            }
          }
        }
        carousel = (turn.recommendations ?? []).map((r) => r.item_id);
      });
    }
    assert.ok(places > 200, `${places} items named by their place`);
    assert.ok(titles > 50, `${titles} items named by their title`);
    // fewer since the tenth round: an item lacking a value the user wants is liked for a wanted
    // value it has (the Like names that value, not a detail)
    assert.ok(praised > 25, `${praised} details praised`);
    leads.delete('');
    assert.ok(leads.size >= 5, `opening leads: ${[...leads].join(' | ')}`);
  });
}
