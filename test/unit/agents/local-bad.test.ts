import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { generateApparelCatalog, type CatalogItem } from '../../../src/core/catalog/catalog';
import { AGENT_ACTS } from '../../../src/core/taxonomy/acts';
import {
  BAD_BEHAVIOURS,
  createAgent,
  type BadBehaviour,
  type LocalBadSession,
} from '../../../src/core/sim/recommenders/index';
import { createRng } from '../../../src/core/random';
import { occasionPhrase } from '../../../src/core/sim/recommenders/local/phrases';
import type { AgentResponse } from '../../../src/core/sim/types';
import { playScript } from '../../support/agents';

const catalog = generateApparelCatalog({ seed: 'agents', size: 3000 });
const byId = (id: string) => catalog.get(id)!;

interface Played {
  responses: AgentResponse[];
  behaviours: BadBehaviour[][];
  session: LocalBadSession;
}

async function play(spec: string, seed: number | string, script: string[]): Promise<Played> {
  const agent = createAgent(spec, { catalog });
  const session = agent.createSession(`c-${seed}`, createRng(seed), {}) as LocalBadSession;
  const behaviours: BadBehaviour[][] = [];
  const responses = await playScript(session, script, () =>
    behaviours.push(session.lastBehaviours ? session.lastBehaviours.slice() : []),
  );
  return { responses, behaviours, session };
}

function goalScript(goal: CatalogItem): string[] {
  const a = goal.attributes;
  return [
    `Hi, I'm looking for ${a.type}`,
    `For ${a.gender}, in ${a.colour} please`,
    `Mostly for ${a.occasion}`,
    "I'll take the first one",
    'ok thanks',
  ];
}

const N = 200;
const rng = createRng('bad-goals');
const goals = Array.from({ length: N }, () => catalog.items[rng.int(catalog.size)]);
let runs: Played[] = [];

describe('local-bad', () => {
  test('plays 200 conversations', async () => {
    runs = [];
    for (let i = 0; i < N; i++) runs.push(await play('local-bad', i, goalScript(goals[i])));
    assert.equal(runs.length, N);
  });

  test('every behaviour shows up at about its documented rate', () => {
    const turns = runs.flatMap((r) => r.behaviours);
    const rate = (b: BadBehaviour) => turns.filter((t) => t.includes(b)).length / turns.length;
    for (const b of ['misread', 'tangent', 'latch', 'trivia', 'reask', 'no_clear_path'] as const) {
      assert.ok(rate(b) > 0.05, `${b} fired in only ${(rate(b) * 100).toFixed(1)}% of turns`);
    }
    // misreadings: a recognised non-category value was offered on turns 1-3 of every conversation
    const convsWithMisread = runs.filter((r) => r.session.misreadings.length > 0).length / N;
    const expected = 1 - (1 - BAD_BEHAVIOURS.misread) ** 3;
    assert.ok(
      Math.abs(convsWithMisread - expected) < 0.12,
      `misread in ${convsWithMisread} of conversations, expected about ${expected}`,
    );
  });

  test('misreadings swap a value for a different catalog value and say so', () => {
    let checked = 0;
    for (const r of runs) {
      for (const m of r.session.misreadings) {
        assert.notEqual(m.heard, m.said);
        assert.ok(catalog.attributeValues(m.slot).includes(m.heard), `${m.heard} is not a ${m.slot}`);
        checked++;
      }
      r.behaviours.forEach((b, i) => {
        if (b.includes('misread')) {
          // the echo names what was heard (occasions are worded as phrases: "party" -> "for parties")
          const heard = r.session.misreadings.flatMap((m) =>
            m.slot === 'occasion' ? [m.heard, occasionPhrase(m.heard)] : [m.heard],
          );
          assert.ok(
            heard.some((h) => r.responses[i].utterance.toLowerCase().includes(h)),
            r.responses[i].utterance,
          );
        }
      });
    }
    assert.ok(checked > 50);
  });

  test('latches onto the least important criterion of several', () => {
    let latched = 0;
    for (const r of runs) {
      // turn 2 gives gender and colour: colour is the less important of the two
      if (!r.behaviours[1].includes('latch')) continue;
      latched++;
      const text = r.responses[1].utterance.toLowerCase();
      const colourNow = r.session.misreadings.find((m) => m.slot === 'colour')?.heard;
      const colours = catalog.attributeValues('colour').filter((c) => text.includes(c));
      assert.ok(colours.length > 0 || (colourNow && text.includes(colourNow)), text);
      assert.ok(r.responses[1].acts!.includes('elicit_preference'));
    }
    assert.ok(latched / N > 0.5 * BAD_BEHAVIOURS.latch, `latched in ${latched} of ${N}`);
  });

  test('adds trivia and tangents, re-asks answered questions', () => {
    const all = runs.flatMap((r) => r.responses);
    const turns = runs.flatMap((r) => r.behaviours.map((b, i) => ({ b, response: r.responses[i] })));
    const trivia = turns.filter((t) => t.b.includes('trivia'));
    assert.ok(trivia.length / all.length > 0.25, `trivia in ${trivia.length} of ${all.length} turns`);
    // the fact is said (a sentence of its own) and reported as chit-chat
    for (const t of trivia) {
      assert.ok(t.response.acts!.includes('chit_chat'));
      assert.ok(t.response.utterance.split(/(?<=[.!?])\s+/).length >= 2, t.response.utterance);
    }
    const reasks = runs.flatMap((r) => r.behaviours).filter((b) => b.includes('reask')).length;
    assert.ok(reasks > 20);
    for (const r of all) assert.match(r.utterance, /\?/, 'every bad-agent turn asks something');
  });

  test('never offers a clear path to purchase', () => {
    for (const r of runs) {
      const accept = r.responses[3];
      assert.ok(r.behaviours[3].includes('no_clear_path'));
      assert.doesNotMatch(accept.utterance, /great choice|add it to your cart|check out/i);
      assert.ok(!accept.acts!.includes('greet_acknowledge'));
      // the conversation is not closed: the next turn still shows items
      assert.ok(r.responses[4].recommendations.length > 0);
      for (const resp of r.responses) for (const act of resp.acts ?? []) assert.ok(AGENT_ACTS.includes(act), act);
    }
  });

  test('retrieves less relevant items than local-good on the same goals', async () => {
    // share of the goal's criteria (type, gender or unisex, colour, occasion) each shown item meets
    const precision = async (spec: string) => {
      const hits = { type: 0, colour: 0, all: 0 };
      let n = 0;
      let met = 0;
      for (let i = 0; i < 80; i++) {
        const goal = goals[i];
        const a = goal.attributes;
        const { responses } = await play(spec, i, goalScript(goal).slice(0, 3));
        for (const rec of responses[2].recommendations) {
          const b = byId(rec.item_id).attributes;
          const ok = [
            b.type === a.type,
            b.gender === a.gender || b.gender === 'unisex',
            b.colour === a.colour,
            b.occasion === a.occasion,
          ];
          n++;
          met += ok.filter(Boolean).length / ok.length;
          if (ok[0]) hits.type++;
          if (ok[2]) hits.colour++;
          if (ok.every(Boolean)) hits.all++;
        }
      }
      return { criteria: met / n, type: hits.type / n, colour: hits.colour / n, all: hits.all / n };
    };
    const good = await precision('local-good');
    const bad = await precision('local-bad');
    const msg = `good ${JSON.stringify(good)} bad ${JSON.stringify(bad)}`;
    assert.ok(good.criteria - bad.criteria > 0.15, msg);
    assert.ok(good.type - bad.type > 0.15, msg);
    // (colour alone is no fair test: the bad agent ignores the type, so it can fill a carousel
    // with items of the right colour but the wrong type, while few items have both)
    assert.ok(good.all > bad.all, msg);
  });

  test('deterministic for a seed', async () => {
    const script = goalScript(goals[0]);
    const a = await play('local-bad', 'x', script);
    const b = await play('local-bad', 'x', script);
    assert.deepEqual(a.responses, b.responses);
    assert.deepEqual(a.behaviours, b.behaviours);
  });
});
