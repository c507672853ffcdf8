import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { generateApparelCatalog } from '../../../src/core/catalog/catalog';
import { createAgent } from '../../../src/core/sim/recommenders/index';
import { playScript } from '../../support/agents';
import { createRng } from '../../../src/core/random';
import { Lexicon } from '../../../src/core/sim/recommenders/local/lexicon';
import { TemplateNlg, readableAttribute } from '../../../src/core/sim/users/nlg';
import { parseSimulationConfig, prepareEnvironment } from '../../../src/core/run/config';
import { simulateConversation } from '../../../src/core/run/conversation';

/**
 * Issue 21 (reviewer, sim-7091-000028): after "Honestly, the colour is negotiable." local-good kept
 * filtering on grey. Every wording the user's Reveal.Expand templates produce must read as letting
 * go of that attribute (before the fix 1,168 of 2,400 wordings did not), and a statement that keeps
 * the attribute must not.
 */
describe('local-good reads every Reveal.Expand wording as relaxing its attribute', () => {
  const catalog = generateApparelCatalog({ size: 800, seed: 1 });
  const lexicon = Lexicon.for(catalog);

  test('all template wordings, every attribute (typo-free)', () => {
    const nlg = new TemplateNlg({ typoRate: 0 });
    const missed = new Set<string>();
    let n = 0;
    for (const attr of catalog.attributeNames()) {
      for (let s = 0; s < 300; s++) {
        const u = nlg.generate('Reveal.Expand', { attribute: readableAttribute(attr) }, createRng(`expand-${s}`));
        n++;
        if (!lexicon.parse(u).relaxed.includes(attr)) missed.add(`${attr}: ${u}`);
      }
    }
    assert.ok(n >= 2000);
    assert.deepEqual([...missed].slice(0, 10), [], `${missed.size} wordings not read as relaxing`);
  });

  test('the new forms, and sentences that keep the attribute', () => {
    const relaxed = (u: string) => lexicon.parse(u).relaxed;
    assert.deepEqual(relaxed('Honestly, the colour is negotiable.'), ['colour']);
    assert.deepEqual(relaxed("I'm not fussy about the material after all."), ['material']);
    assert.deepEqual(relaxed('Skip the style, I was being too picky there.'), ['style']);
    assert.deepEqual(relaxed('Fine, the price band is not a big deal.'), ['price_band']);
    assert.deepEqual(relaxed('The colour is not negotiable.'), []);
    assert.deepEqual(relaxed('I am fussy about the colour.'), []);
    assert.deepEqual(relaxed('You could skip ahead, the colour is black.'), []);
  });

  test('over simulated conversations, local-good drops every relaxed value it held', async () => {
    // Agenda users against local-good: on each Reveal.Expand turn, the attribute the user took back
    // (disclosed before, not after) is in the agent's trace.agent.relaxed whenever the agent had it.
    const env = await prepareEnvironment(
      parseSimulationConfig({
        user: 'agenda',
        interaction: 'cir6',
        preferences: 'pkg',
        agent: 'local-good',
        n: 400,
        seed: 'relax-21',
        catalog_size: 800,
      }),
    );
    let expands = 0;
    const kept: string[] = [];
    for (let i = 0; i < 400; i++) {
      const { conversation } = await simulateConversation(env, i);
      const turns = conversation.turns;
      for (let t = 1; t < turns.length; t++) {
        const tr = turns[t].trace;
        if (tr?.user_act !== 'Reveal.Expand') continue;
        const list = (g: unknown): string[] => (Array.isArray(g) ? g.map(String) : []);
        const before = new Set(list(turns[t - 1].trace?.goal?.disclosed));
        const after = new Set(list(tr.goal?.disclosed));
        const gone = [...before].filter((a) => a !== 'category' && !after.has(a));
        if (gone.length === 0) continue;
        expands++;
        const agent = tr.agent as { relaxed?: string[]; query?: string } | undefined;
        if (!agent) continue;
        for (const a of gone)
          if (!(agent.relaxed ?? []).includes(a))
            kept.push(
              `${conversation.id} turn ${t}: ${turns[t].user_utterance} (relaxed ${JSON.stringify(agent.relaxed ?? [])})`,
            );
      }
    }
    assert.ok(expands >= 20, `only ${expands} Reveal.Expand turns`);
    assert.deepEqual(kept.slice(0, 5), [], `${kept.length} of ${expands} relaxations ignored`);
  });
});

describe('local-good reads a title from an earlier carousel as an item, not as wishes (issue 21, negation-honoured)', () => {
  // sim-invariants-001332: "I'm not keen on anything like a skirt", a turn that shows nothing, then
  // "Honestly, I don't like <a skirt's title>": the old local-good did not know the title (not on
  // screen), read "skirt" in it as a new wish, dropped the exclusion and showed skirts.
  test('a skirt rejected by title after an empty turn: no skirt shown', async () => {
    // the reviewer's conversation, user side word for word, on the same catalog
    const env = await prepareEnvironment(
      parseSimulationConfig({ user: 'agenda', agent: 'local-good', n: 1, seed: 'invariants', catalog_size: 800 }),
    );
    const catalog = env.catalog;
    const session = createAgent('local-good', { catalog }).createSession('t', createRng('relax-neg'), {});
    const skirt = (id: string) => catalog.get(id)?.attributes.type === 'skirt';
    const script = [
      'hi im looking for a few bottoms, ideally for a party',
      'what are my options',
      "Frankly, I'm not keen on anything like a skirt.",
      'nah, not that one',
      "I'm not keen on anything like a skirt.",
      "Honestly, I don't like Ardent Polyester Skirt.",
      'More please.',
    ];
    const answers = await playScript(session, script);
    assert.ok(
      answers[1].recommendations.some((x) => x.title === 'Ardent Polyester Skirt'),
      'the skirt was shown first',
    );
    assert.ok(
      !answers[4].recommendations.some((x) => x.title === 'Ardent Polyester Skirt'),
      'and is not on screen when it is named',
    );
    for (let k = 2; k < answers.length; k++)
      assert.deepEqual(
        answers[k].recommendations.filter((x) => skirt(x.item_id)).map((x) => x.title),
        [],
        `turn ${k}: ${script[k]}`,
      );
  });
});
