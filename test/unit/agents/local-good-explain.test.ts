import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { generateApparelCatalog } from '../../../src/core/catalog/catalog';
import { createAgent } from '../../../src/core/sim/recommenders/index';
import { createRng } from '../../../src/core/random';
import { MATERIAL_NOTES, materialNotes, pluralNoun } from '../../../src/core/sim/recommenders/local/phrases';
import { titleShowsValue } from '../../../src/core/text/saysValue';
import { agreeWithTitles } from '../../../src/core/sim/recommenders/local/agent';
import { isPluralNoun } from '../../../src/core/text/articles';
import { playScript } from '../../support/agents';

const catalog = generateApparelCatalog({ seed: 'explain', size: 3000 });

/** The words of `text` after the first `title` up to the end of that sentence ("$25.99" is no end). */
function afterTitle(text: string, title: string): string | undefined {
  const at = text.indexOf(title);
  if (at < 0) return undefined;
  return text.slice(at + title.length).split(/[.!?](?=\s|$)/)[0];
}

describe("local-good's reasons for its top item (issue 21, class 13, recommender side)", () => {
  test("a material note is said only of an item whose own description says it, and names the item's material", () => {
    const fired = new Set<string>();
    let items = 0;
    for (const item of catalog.items) {
      const notes = materialNotes(item);
      if (notes.length) items++;
      const description = item.description.toLowerCase();
      for (const note of notes) {
        const sources = MATERIAL_NOTES.filter((n) => n.say.includes(note));
        assert.ok(
          sources.some((n) => n.material === item.attributes.material && description.includes(n.cue)),
          `"${note}" said of ${item.item_id} (${item.attributes.material}): ${item.description}`,
        );
        assert.ok(note.includes(item.attributes.material!), `"${note}" does not name ${item.attributes.material}`);
        assert.match(note, /^(?:in|made of|filled with) /);
        for (const n of sources) fired.add(n.cue);
      }
    }
    // every note is reachable (a cue no description holds would be a dead wording)
    assert.deepEqual(
      MATERIAL_NOTES.map((n) => n.cue).filter((c) => !fired.has(c)),
      [],
    );
    assert.ok(items > catalog.items.length / 3, `${items} items with a note`);
  });

  test('on a turn that asks nothing, the reason after the top item does not read back a wanted value its title says', async () => {
    let carousels = 0;
    let titled = 0;
    let readBack = 0;
    const examples: string[] = [];
    for (let k = 0; k < 200; k++) {
      const goal = catalog.items[(k * 37) % catalog.items.length];
      const { colour, type } = goal.attributes;
      if (!colour || !type) continue;
      const agent = createAgent('local-good', { catalog });
      const session = agent.createSession(`explain-${k}`, createRng(`explain-${k}`), {});
      const answers = await playScript(session, [
        `Hi, I'm looking for ${colour} ${pluralNoun(type)}, show me some`,
        'Show me more',
        'Show me more',
      ]);
      for (const r of answers) {
        const top = r.recommendations[0];
        if (!top?.title) continue;
        carousels++;
        const rest = afterTitle(r.utterance, top.title);
        if (rest === undefined || !titleShowsValue(top.title, 'colour', colour)) continue;
        titled++;
        if (new RegExp(`\\b${colour}\\b`, 'i').test(rest)) {
          readBack++;
          if (examples.length < 3) examples.push(r.utterance);
        }
      }
    }
    assert.ok(carousels >= 100 && titled >= 30, `${carousels} carousels, ${titled} with the colour in the top title`);
    assert.equal(readBack, 0, examples.join('\n'));
  });

  test("a confirmation says, now and then, what the taken item's description says of its material, and only that", async () => {
    const wordings = MATERIAL_NOTES.flatMap((n) => n.say);
    let confirmations = 0;
    let withNote = 0;
    for (let k = 0; k < 80; k++) {
      const goal = catalog.items[(k * 53) % catalog.items.length];
      const agent = createAgent('local-good', { catalog });
      const session = agent.createSession(`take-${k}`, createRng(`take-${k}`), {});
      const answers = await playScript(session, [
        `Hi, I'm looking for ${goal.attributes.colour} ${pluralNoun(goal.attributes.type!)}, show me some`,
        "I'll take the first one",
      ]);
      const last = answers[1];
      if (last.recommendations.length !== 1 || !/choice/i.test(last.utterance)) continue;
      confirmations++;
      const taken = catalog.get(last.recommendations[0].item_id)!;
      const said = wordings.filter((w) => last.utterance.includes(w));
      if (said.length) withNote++;
      for (const w of said)
        assert.ok(materialNotes(taken).includes(w), `"${w}" said of ${taken.item_id}: ${taken.description}`);
    }
    assert.ok(confirmations >= 30, `${confirmations} confirmations`);
    assert.ok(withNote >= 3, `${withNote} of ${confirmations} confirmations with a note`);
  });

  test('an item named for the first time: its whole title or "the <brand or colour> <type>", never "the ... one"', async () => {
    let firsts = 0;
    let short = 0;
    const wrong: string[] = [];
    for (let k = 0; k < 80; k++) {
      const goal = catalog.items[(k * 41) % catalog.items.length];
      const agent = createAgent('local-good', { catalog });
      const session = agent.createSession(`name-${k}`, createRng(`name-${k}`), {});
      const [r] = await playScript(session, [
        `Hi, I'm looking for ${goal.attributes.colour} ${pluralNoun(goal.attributes.type!)}, show me some`,
      ]);
      const top = r.recommendations[0];
      if (!top?.title) continue;
      firsts++;
      const item = catalog.get(top.item_id)!;
      const { brand, colour } = item.attributes;
      const leads = [brand, colour].filter((x): x is string => x !== undefined);
      if (leads.some((l) => r.utterance.toLowerCase().includes(`the ${l.toLowerCase()} one`))) wrong.push(r.utterance);
      else if (!r.utterance.includes(top.title) && leads.some((l) => r.utterance.includes(`${l} `))) short++;
    }
    assert.ok(firsts >= 60, `${firsts} first carousels`);
    assert.deepEqual(wrong, []);
    assert.ok(short >= 10, `${short} of ${firsts} first mentions short`);
  });

  test('a first carousel is not worded as a next page when the user says "more" in passing', async () => {
    const nextPage =
      /\b(?:more|another|next|page|batch|round two|arrivals|refilled|restocked|onwards|reloaded|further|deeper|carrying on|rolling on|stockroom)\b/i;
    let firsts = 0;
    const wrong: string[] = [];
    for (let k = 0; k < 40; k++) {
      const agent = createAgent('local-good', { catalog });
      const session = agent.createSession(`walk-${k}`, createRng(`walk-${k}`), {});
      const [r] = await playScript(session, [
        'Hi! I am searching for brown activewear, because my doctor told me to walk more.',
      ]);
      if (!r.recommendations.length) continue;
      firsts++;
      const first = r.utterance.split(/[.!?:](?=\s|$)/)[0];
      if (nextPage.test(first)) wrong.push(r.utterance);
    }
    assert.ok(firsts >= 30, `${firsts} first carousels`);
    assert.deepEqual(wrong, []);
  });
});

describe('local agents: the verb after an item whose type is plural', () => {
  test('agreeWithTitles: "The X Boots is" -> "are", "which has" -> "which have"; short references and other items untouched', () => {
    const boots = { title: 'Saltmarsh Hiking Boots' };
    assert.equal(
      agreeWithTitles(
        'The Saltmarsh Hiking Boots is a strong match, and the Saltmarsh Hiking Boots also brings a lining.',
        [boots],
      ),
      'The Saltmarsh Hiking Boots are a strong match, and the Saltmarsh Hiking Boots also bring a lining.',
    );
    assert.equal(
      agreeWithTitles('Try the Saltmarsh Hiking Boots, which has grip.', [boots]),
      'Try the Saltmarsh Hiking Boots, which have grip.',
    );
    assert.equal(
      agreeWithTitles('The Saltmarsh Hiking Boots: issued in 2020.', [boots]),
      'The Saltmarsh Hiking Boots: issued in 2020.',
    );
    assert.equal(agreeWithTitles('The Saltmarsh pair is great.', [boots]), 'The Saltmarsh pair is great.');
  });

  test('in conversations, no whole title of a plural item is followed by a singular verb', async () => {
    const singular =
      /^(?:,? which)? (?:also )?(?:is|has|was|looks|fits|stands|leads|shines|heads|tops|opens|brings|offers|costs|comes)\b/;
    let checked = 0;
    const wrong: string[] = [];
    for (let k = 0; k < 300; k++) {
      const goal = catalog.items[(k * 29) % catalog.items.length];
      const type = goal.attributes.type!;
      if (!isPluralNoun(type)) continue;
      const agent = createAgent('local-good', { catalog });
      const session = agent.createSession(`agree-${k}`, createRng(`agree-${k}`), {});
      const answers = await playScript(session, [
        `Hi, I'm looking for ${type}, show me some`,
        'Show me more',
        'Tell me more about the first one',
        "I'll take the first one",
      ]);
      for (const r of answers)
        for (const rec of r.recommendations.slice(0, 3)) {
          const t = catalog.get(rec.item_id)!;
          if (!isPluralNoun(t.attributes.type ?? '') || !rec.title) continue;
          for (const part of r.utterance.split(rec.title).slice(1)) {
            checked++;
            if (singular.test(part)) wrong.push(r.utterance);
          }
        }
    }
    assert.ok(checked >= 100, `${checked} mentions`);
    assert.deepEqual(wrong, []);
  });
});
