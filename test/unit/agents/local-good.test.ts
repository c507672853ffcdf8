import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { generateApparelCatalog, type CatalogItem } from '../../../src/core/catalog/catalog';
import { createAgent } from '../../../src/core/sim/recommenders/index';
import { AGENT_ACTS } from '../../../src/core/taxonomy/acts';
import { createRng } from '../../../src/core/random';
import type { AgentResponse, HistoryEntry } from '../../../src/core/sim/types';
import { playScript } from '../../support/agents';

const catalog = generateApparelCatalog({ seed: 'agents', size: 3000 });

/** Plays a fixed user script; returns the agent's answers. */
async function play(spec: string, seed: number | string, script: string[]): Promise<AgentResponse[]> {
  const agent = createAgent(spec, { catalog });
  const session = agent.createSession(`c-${seed}`, createRng(seed), { task: 'footwear' });
  return playScript(session, script);
}

function goalScript(goal: CatalogItem): string[] {
  const a = goal.attributes;
  return [
    `Hi, I'm looking for ${a.type}`,
    `For ${a.gender}, in ${a.colour} please`,
    `Mostly for ${a.occasion}`,
    `Show me more`,
  ];
}

const byId = (id: string) => catalog.get(id)!;

describe('local-good', () => {
  test('greets and elicits the category first, then a missing preference, then recommends', async () => {
    const [r1, r2, r3] = await play('local-good', 1, ['hello', 'I need some shoes', "women's, black, for work"]);
    assert.deepEqual(r1.acts, ['elicit_preference', 'greet_acknowledge']);
    assert.equal(r1.recommendations.length, 0);
    assert.match(r1.utterance, /\?/);
    assert.deepEqual(r2.acts, ['elicit_preference']);
    assert.equal(r2.recommendations.length, 0);
    assert.equal(r3.acts![0], 'recommend');
    assert.ok(r3.acts!.includes('explain_recommendation'));
    assert.ok(r3.recommendations.length > 0 && r3.recommendations.length <= 12);
    for (const rec of r3.recommendations) {
      const item = byId(rec.item_id);
      assert.equal(item.category, 'footwear');
      assert.ok(['women', 'unisex'].includes(item.attributes.gender));
    }
  });

  test('recommends relevant items: attribute precision over 60 sampled goals', async () => {
    const rng = createRng('goals');
    // shown items, and those matching the goal's type, gender, type + colour; goals; top items in the goal's colour
    const c = { shown: 0, type: 0, gender: 0, colour: 0, colourAttainable: 0, goals: 0, topColour: 0 };
    for (let g = 0; g < 60; g++) {
      const goal = catalog.items[rng.int(catalog.size)];
      const a = goal.attributes;
      const responses = await play('local-good', g, goalScript(goal));
      const first = responses.find((r) => r.recommendations.length > 0);
      assert.ok(first, `goal ${goal.item_id}: never recommended`);
      c.goals++;
      const recs = first.recommendations.map((r) => byId(r.item_id));
      // items that match type, gender (or unisex) and colour: the most a carousel could hold
      const matching = catalog
        .byCategory(goal.category)
        .filter(
          (i) =>
            i.attributes.type === a.type &&
            i.attributes.colour === a.colour &&
            (i.attributes.gender === a.gender || i.attributes.gender === 'unisex'),
        );
      c.colourAttainable += Math.min(recs.length, matching.length);
      if (recs[0].attributes.colour === a.colour) c.topColour++;
      for (const item of recs) {
        c.shown++;
        if (item.attributes.type === a.type) c.type++;
        if (item.attributes.gender === a.gender || item.attributes.gender === 'unisex') c.gender++;
        if (item.attributes.colour === a.colour && item.attributes.type === a.type) c.colour++;
      }
    }
    assert.ok(c.type / c.shown > 0.9, `type precision ${c.type / c.shown}`);
    assert.ok(c.gender / c.shown > 0.9, `gender precision ${c.gender / c.shown}`);
    // every item that matches type + colour + gender is shown (up to the carousel size)
    assert.ok(c.colour / c.colourAttainable > 0.95, `type+colour hits ${c.colour} of ${c.colourAttainable} attainable`);
    assert.ok(c.topColour / c.goals > 0.9, `top-1 colour ${c.topColour / c.goals}`);
  });

  test('honours negations and rejections, and explains on request', async () => {
    const [, r2, r3, r4] = await play('local-good', 3, [
      'I want boots for men',
      'not leather, and no black please',
      "I don't like these",
      'what is the first one made of?',
    ]);
    assert.equal(r2.acts![0], 'recommend');
    for (const rec of r2.recommendations) {
      const item = byId(rec.item_id);
      assert.notEqual(item.attributes.material, 'leather');
      assert.notEqual(item.attributes.colour, 'black');
    }
    const rejected = new Set(r2.recommendations.map((r) => r.item_id));
    assert.ok(r3.recommendations.length > 0);
    for (const rec of r3.recommendations) assert.ok(!rejected.has(rec.item_id), `rejected ${rec.item_id} shown again`);
    assert.deepEqual(r4.acts, ['explain_recommendation']);
    assert.match(r4.utterance, new RegExp(byId(r3.recommendations[0].item_id).attributes.material));
  });

  test('closes on acceptance with the chosen item', async () => {
    const responses = await play('local-good', 4, [
      'black sneakers for women',
      "I'll take the second one",
      'thanks, bye',
    ]);
    const shown = responses[0].recommendations;
    assert.ok(shown.length >= 2);
    const close = responses[1];
    assert.deepEqual(close.acts, ['greet_acknowledge']);
    // any confirmation opening of `GOOD_FRAMES.accept`, `acceptDetail`, `acceptNote` (drawn by seed)
    assert.match(
      close.utterance,
      /^(?:Great choice|Excellent|Lovely choice|Good call|Wonderful|Nice one|Good pick|(?:Smart|Wise|Fine|Good|Nice) choice)\b/,
    );
    assert.ok(close.utterance.includes(byId(shown[1].item_id).title), close.utterance);
    assert.deepEqual(
      close.recommendations.map((r) => r.item_id),
      [shown[1].item_id],
    );
    assert.deepEqual(responses[2].acts, ['greet_acknowledge']);
  });

  test('understands item titles and navigation requests (as the agenda user phrases them)', async () => {
    const agent = createAgent('local-good', { catalog });
    const session = agent.createSession('nav', createRng(11), {});
    const history: HistoryEntry[] = [];
    let shown: string[] = [];
    const say = async (u: string) => {
      const r = await session.respond(u, history);
      history.push({ speaker: 'user', text: u }, { speaker: 'assistant', text: r.utterance });
      return r;
    };
    const title = (i: number) => byId(shown[i]).title;
    const first = await say("Hi, I'm shopping for bags, ideally in leather.");
    assert.deepEqual(first.acts, ['elicit_preference']);
    const r1 = await say("I don't really mind.");
    assert.equal(r1.acts![0], 'recommend', 'no preference: recommend instead of asking again');
    shown = r1.recommendations.map((r) => r.item_id);
    const cmp = await say(`How does ${title(0)} compare to ${title(1)}?`);
    assert.deepEqual(cmp.acts, ['explain_recommendation']);
    assert.ok(cmp.utterance.includes(title(0)) && cmp.utterance.includes(title(1)));
    assert.deepEqual(
      cmp.recommendations.map((r) => r.item_id),
      shown,
      'the carousel stays',
    );
    const more = await say(`Tell me more about ${title(2)}.`);
    assert.deepEqual(more.acts, ['explain_recommendation']);
    assert.ok(more.utterance.includes(title(2)), more.utterance);
    const note = await say(`Noted, ${title(0)} could work.`);
    assert.deepEqual(note.acts, ['elicit_preference'], 'a remark that "could work" is not the occasion work');
    const sim = await say(`Anything similar to ${title(1)}?`);
    assert.equal(sim.acts![0], 'recommend');
    assert.equal(sim.recommendations[0].item_id, shown[1]);
    const back = await say('Go back to the previous options.');
    assert.deepEqual(
      back.recommendations.map((r) => r.item_id),
      shown,
    );
    const rep = await say('Sorry, can you say that again?');
    assert.deepEqual(rep.acts, ['explain_recommendation']);
    const expand = await say('Something black would also work.');
    assert.equal(expand.acts![0], 'recommend');
    const colours = new Set(expand.recommendations.map((r) => byId(r.item_id).attributes.colour));
    assert.ok(colours.has('black'));
    const thanks = await say('Ok thank you.');
    assert.deepEqual(thanks.acts, ['greet_acknowledge']);
    const pick = expand.recommendations[2].item_id;
    const close = await say(`Great, I'll go with ${byId(pick).title}.`);
    assert.deepEqual(
      close.recommendations.map((r) => r.item_id),
      [pick],
    );
    // any confirmation opening of `GOOD_FRAMES.accept`, `acceptDetail`, `acceptNote` (drawn by seed)
    assert.match(
      close.utterance,
      /^(?:Great choice|Excellent|Lovely choice|Good call|Wonderful|Nice one|Good pick|(?:Smart|Wise|Fine|Good|Nice) choice)\b/,
    );
    assert.ok(close.utterance.includes(byId(pick).title), close.utterance);
  });

  test('price limits and "cheaper" are applied', async () => {
    const [r1, r2] = await play('local-good', 5, ["a women's wool coat for work under $150", 'something cheaper?']);
    assert.ok(r1.recommendations.length > 0);
    for (const rec of r1.recommendations) assert.ok((rec.price as number) <= 150);
    const cheapest = Math.min(...r1.recommendations.map((r) => r.price as number));
    // cheaper items of the same kind, or (none left: thirteenth round) the step taken back and the
    // cheapest women's wool coats under $150 first, said so; never other types to be cheaper
    const undone = (r2.agent_trace as { price_step_undone?: string } | undefined)?.price_step_undone;
    if (undone === undefined) for (const rec of r2.recommendations) assert.ok((rec.price as number) < cheapest);
    else {
      assert.equal(undone, 'cheaper');
      assert.match(r2.utterance, /cheaper|for less|low end/);
      assert.equal(r2.recommendations[0].price, cheapest);
    }
    for (const rec of r2.recommendations) {
      assert.equal(rec.attributes?.type, 'wool coat');
      assert.ok((rec.price as number) <= 150);
    }
  });

  test('same seed gives the same conversation; acts come from the ConvApparel taxonomy', async () => {
    const script = ['hi', 'a dress for a wedding', 'navy or burgundy, silk', 'more please', 'I love the third one'];
    const a = await play('local-good', 'same', script);
    const b = await play('local-good', 'same', script);
    assert.deepEqual(a, b);
    for (const r of a) for (const act of r.acts ?? []) assert.ok(AGENT_ACTS.includes(act), act);
    const c = await play('local-good', 'other', script);
    assert.notDeepEqual(
      a.map((r) => r.utterance),
      c.map((r) => r.utterance),
    );
  });

  test('varies its phrasing across conversations', async () => {
    const openers = new Set<string>();
    for (let s = 0; s < 30; s++) openers.add((await play('local-good', s, ['hi']))[0].utterance);
    assert.ok(openers.size >= 4, `only ${openers.size} distinct openers`);
  });

  test('a session started mid-conversation catches up from the history', async () => {
    const agent = createAgent('local-good', { catalog });
    const session = agent.createSession('fork', createRng(9), {});
    const history: HistoryEntry[] = [
      { speaker: 'user', text: 'I am looking for sandals for women' },
      { speaker: 'assistant', text: 'What colour?' },
    ];
    const r = await session.respond('white please', history);
    assert.equal(r.acts![0], 'recommend');
    for (const rec of r.recommendations) assert.equal(byId(rec.item_id).category, 'footwear');
  });
});
