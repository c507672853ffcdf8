import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { generateApparelCatalog } from '../../../src/core/catalog/catalog';
import { createAgent } from '../../../src/core/sim/recommenders/index';
import { createRng } from '../../../src/core/random';
import {
  FEATURE_NOTES,
  MATERIAL_NOTES,
  featureNotes,
  leavesUnserved,
  materialNotes,
  pluralNoun,
  pluralPronouns,
} from '../../../src/core/sim/recommenders/local/phrases';
import { Lexicon } from '../../../src/core/sim/recommenders/local/lexicon';
import { holdsNegation } from '../../../src/core/text/negation';
import { titleShowsValue } from '../../../src/core/text/saysValue';
import { agreeWithTitles, namedFeatures } from '../../../src/core/sim/recommenders/local/agent';
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

describe('local-good reacts to what was said (issue 21, class 13, thirteenth round)', () => {
  test('a user leaving unserved is not thanked for being helped, nor told to take its time', async () => {
    const leaving = [
      "I don't think I'll find it here. Thanks anyway.",
      "Hmm, no luck today, so I'm off. Bye.",
      "I'll look on my own instead. Thanks anyway.",
      'Not quite what I am after. I will stop here.',
      'This is going nowhere. Thanks anyway.',
    ];
    for (const u of leaving) assert.ok(leavesUnserved(u), u);
    for (const u of ['Thanks!', 'Thank you, these look great.', 'Show me more, please.'])
      assert.ok(!leavesUnserved(u), u);
    let answered = 0;
    const wrong: string[] = [];
    for (let k = 0; k < 60; k++) {
      const agent = createAgent('local-good', { catalog });
      const session = agent.createSession(`leave-${k}`, createRng(`leave-${k}`), {});
      const answers = await playScript(session, [
        'Hi, I am looking for red bags, show me some',
        leaving[k % leaving.length],
      ]);
      const last = answers[1];
      if (!(last.acts ?? []).some((a) => a === 'greet_acknowledge' || a === 'elicit_preference')) continue;
      answered++;
      if (/\b(?:welcome|pleasure|glad to help|anytime|no trouble|take your time|no rush|mull)\b/i.test(last.utterance))
        wrong.push(last.utterance);
    }
    assert.ok(answered >= 20, `${answered} answers to a leaving user`);
    assert.deepEqual(wrong, []);
  });

  test('an item whose type is a plural noun is "they", not "it" ("They come with ...")', async () => {
    assert.equal(
      pluralPronouns(
        'The Saltmarsh Hiking Boots are nylon. It comes with a lining. Also, it is light. Is it nice? Enjoy it!',
      ),
      'The Saltmarsh Hiking Boots are nylon. They come with a lining. Also, they are light. Is it nice? Enjoy them!',
    );
    let checked = 0;
    const wrong: string[] = [];
    for (let k = 0; k < 200; k++) {
      const goal = catalog.items[(k * 37) % catalog.items.length];
      const type = goal.attributes.type!;
      if (!isPluralNoun(type)) continue;
      const agent = createAgent('local-good', { catalog });
      const session = agent.createSession(`they-${k}`, createRng(`they-${k}`), {});
      const answers = await playScript(session, [
        `Hi, I'm looking for ${goal.attributes.colour} ${type}, show me some`,
        'Tell me more about the first one',
        "I'll take the first one",
      ]);
      for (const r of answers) {
        const top = r.recommendations[0] && catalog.get(r.recommendations[0].item_id);
        if (!top || !isPluralNoun(top.attributes.type ?? '') || (r.acts ?? []).includes('elicit_preference')) continue;
        checked++;
        if (/(?:^|[.!?:]\s+|, )It (?:is|has|comes|boasts|also offers)\b|\bEnjoy it\b/.test(r.utterance))
          wrong.push(r.utterance);
      }
    }
    assert.ok(checked >= 60, `${checked} turns about a plural item`);
    assert.deepEqual(wrong, []);
  });

  test('a confirmation agrees with the feature the user named as what won it over', async () => {
    let praised = 0;
    const wrong: string[] = [];
    for (let k = 0; k < 120; k++) {
      const goal = catalog.items[(k * 43) % catalog.items.length];
      const agent = createAgent('local-good', { catalog });
      const session = agent.createSession(`praise-${k}`, createRng(`praise-${k}`), {});
      const [first] = await playScript(session, [
        `Hi, I'm looking for ${goal.attributes.colour} ${pluralNoun(goal.attributes.type!)}, show me some`,
      ]);
      const top = first.recommendations[0] && catalog.get(first.recommendations[0].item_id);
      const feature = top && namedFeatures(catalog, top)[0];
      if (!feature) continue;
      const r = await session.respond(`I'll take the first one. The ${feature} won me over.`, []);
      if (r.recommendations.length !== 1) continue;
      praised++;
      if (!r.utterance.includes(feature)) wrong.push(`${feature}: ${r.utterance}`);
    }
    assert.ok(praised >= 40, `${praised} confirmations after a praised feature`);
    assert.deepEqual(wrong, []);
  });

  test('what a feature is for: each note holds its feature, reads as no value, no cue, no negation, and is said', async () => {
    const lexicon = Lexicon.for(catalog);
    const features = new Set(catalog.items.flatMap((it) => namedFeatures(catalog, it).map((f) => f.toLowerCase())));
    for (const [feature, notes] of Object.entries(FEATURE_NOTES)) {
      // a note of a feature no item has would be a dead wording
      assert.ok(features.has(feature), `${feature} is no catalog feature`);
      for (const note of notes) {
        assert.ok(note.toLowerCase().includes(feature), `"${note}" does not say ${feature}`);
        assert.ok(lexicon.readsNothing(note.toLowerCase().replace(feature, ' ')), `"${note}" reads as a wish`);
        assert.equal(holdsNegation(note), false, note);
        assert.ok(!note.includes('?'), note);
      }
    }
    const wordings = Object.values(FEATURE_NOTES).flat();
    let carousels = 0;
    let withNote = 0;
    for (let k = 0; k < 80; k++) {
      const goal = catalog.items[(k * 31) % catalog.items.length];
      const agent = createAgent('local-good', { catalog });
      const session = agent.createSession(`note-${k}`, createRng(`note-${k}`), {});
      const [r] = await playScript(session, [
        `Hi, I'm looking for ${goal.attributes.colour} ${pluralNoun(goal.attributes.type!)}, show me some`,
      ]);
      if (!r.recommendations.length) continue;
      carousels++;
      const top = catalog.get(r.recommendations[0].item_id)!;
      const said = wordings.filter((w) => r.utterance.includes(w));
      if (said.length) withNote++;
      // only a note of a feature the top item has
      for (const w of said)
        assert.ok(
          namedFeatures(catalog, top).some((f) => featureNotes(f).includes(w)),
          `"${w}" said of ${top.item_id}`,
        );
    }
    assert.ok(carousels >= 60, `${carousels} carousels`);
    assert.ok(withNote >= 8, `${withNote} of ${carousels} reasons with what a feature is for`);
  });
});
