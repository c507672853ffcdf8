import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { generateApparelCatalog } from '../../../src/core/catalog/catalog';
import { createAgent, Lexicon } from '../../../src/core/sim/recommenders/index';
import { AGENT_ACTS, agentActToZhangBalog } from '../../../src/core/taxonomy/acts';
import { mentionsOutside } from '../../../src/core/sim/recommenders/local/lexicon';
import { CONVAPPAREL_TAXONOMY, ZHANG_BALOG_TAXONOMY } from '../../../src/core/taxonomy';

describe('agent acts', () => {
  test('AGENT_ACTS is the ConvApparel assistant taxonomy', () => {
    assert.deepEqual([...AGENT_ACTS], CONVAPPAREL_TAXONOMY.assistant);
  });

  test('every act maps into the Zhang & Balog action space (or Other)', () => {
    const expected: Record<string, string> = {
      recommend: 'Reveal.Show',
      elicit_preference: 'Inquire.Elicit',
      ask_clarification_question: 'Inquire.Clarify',
      explain_recommendation: 'Explain',
      greet_acknowledge: 'Traverse.Record',
      chit_chat: 'Other',
      cannot_help: 'Other',
      other: 'Other',
    };
    for (const act of AGENT_ACTS) {
      const zb = agentActToZhangBalog(act);
      assert.equal(zb, expected[act], act);
      assert.ok(zb === 'Other' || ZHANG_BALOG_TAXONOMY.assistant.includes(zb));
    }
  });

  test('Zhang & Balog names pass through in canonical spelling', () => {
    assert.equal(agentActToZhangBalog('INQUIRE.ELICIT'), 'Inquire.Elicit');
    assert.equal(agentActToZhangBalog('reveal.similar'), 'Reveal.Similar');
    assert.equal(agentActToZhangBalog('Suggest'), 'Suggest');
    assert.equal(agentActToZhangBalog('END'), 'Traverse.End');
    assert.equal(agentActToZhangBalog('DISCLOSE.MORE'), 'Other');
    assert.equal(agentActToZhangBalog(' Recommend '), 'Reveal.Show');
  });

  test('local agents carry their condition', () => {
    const catalog = generateApparelCatalog({ size: 40 });
    assert.equal(createAgent('local-good', { catalog }).condition, 'good');
    assert.equal(createAgent('local-bad', { catalog }).condition, 'bad');
    assert.equal(createAgent('local-bad', { catalog }).name, 'local-bad');
  });
});

describe('agent NLU (Lexicon)', () => {
  const lex = Lexicon.for(generateApparelCatalog({ size: 600 }));
  const read = (u: string) => lex.parse(u).mentions.map((m) => `${m.negated ? '!' : ''}${m.slot}=${m.value}`);

  test('values, synonyms, plurals and multi-word phrases', () => {
    assert.deepEqual(read("I'm looking for black leather ankle boots for women"), [
      'colour=black',
      'material=leather',
      'type=ankle boots',
      'gender=women',
    ]);
    assert.deepEqual(read('gray trainers for my husband'), ['colour=grey', 'type=sneakers', 'gender=men']);
    assert.deepEqual(read('a t-shirt'), ['type=t-shirt']);
    assert.deepEqual(read('some dresses'), ['category=dresses']);
    assert.deepEqual(read('faux leather please'), ['material=synthetic']);
  });

  test('negations stay inside their clause', () => {
    assert.deepEqual(read('boots, not leather'), ['category=footwear', '!material=leather']);
    assert.deepEqual(read('anything but black'), ['!colour=black']);
    assert.deepEqual(read("I don't want heels, flats for work"), ['!type=heels', 'type=ballet flats', 'occasion=work']);
    assert.deepEqual(read('not black but navy'), ['!colour=black', 'colour=navy']);
    assert.deepEqual(read('red rather than pink'), ['colour=red', '!colour=pink']);
  });

  test('negation covers the phrasings of the built-in users and common human ones', () => {
    // the target-free user's narrative and dislike clauses (src/core/sim/users/targetFree.ts, nlg-templates.json)
    assert.deepEqual(read("I'm not keen on anything in spandex."), ['!material=spandex']);
    assert.deepEqual(read("I usually go for things black, blue and yellow, and I'm not into anything navy or pink."), [
      'colour=black',
      'colour=blue',
      'colour=yellow',
      '!colour=navy',
      '!colour=pink',
    ]);
    assert.deepEqual(read("I'm not keen on anything in the budget price range."), ['!price_band=budget']);
    assert.deepEqual(read("I'm not into anything for the gym or in leather."), ['!occasion=gym', '!material=leather']);
    // lists, and where the negation stops
    assert.deepEqual(read('no black, navy or grey'), ['!colour=black', '!colour=navy', '!colour=grey']);
    assert.deepEqual(read('not black, navy please'), ['!colour=black', 'colour=navy']);
    assert.deepEqual(read("I don't like black or navy"), ['!colour=black', '!colour=navy']);
    assert.deepEqual(read('I dislike wool and I want cotton'), ['!material=wool', 'material=cotton']);
    assert.deepEqual(read('boots without heels and in black'), ['category=footwear', '!type=heels', 'colour=black']);
    assert.deepEqual(read('No I want black'), ['colour=black']);
    // other negation words and post-posed negations
    assert.deepEqual(read('I hate pink'), ['!colour=pink']);
    assert.deepEqual(read("I can't stand orange"), ['!colour=orange']);
    assert.deepEqual(read('anything except heels'), ['!type=heels']);
    assert.deepEqual(read('no heels please'), ['!type=heels']);
    assert.deepEqual(read("I'd rather avoid synthetic"), ['!material=synthetic']);
    assert.deepEqual(read('not a fan of leather'), ['!material=leather']);
    assert.deepEqual(read('leather is not for me'), ['!material=leather']);
    assert.deepEqual(read("The black ones aren't great, show me navy"), ['!colour=black', 'colour=navy']);
    // not negations
    assert.deepEqual(read("I don't mind leather"), ['material=leather']);
    assert.deepEqual(read('nothing but black'), ['colour=black']);
    assert.deepEqual(read("I'm not sure, maybe black"), ['colour=black']);
  });

  test("reads which attribute the user lets go of (the agenda user's Reveal.Expand phrasings)", () => {
    const relaxed = (u: string) => lex.parse(u).relaxed;
    assert.deepEqual(relaxed('Actually, any colour is fine.'), ['colour']);
    assert.deepEqual(relaxed("I'm flexible on the material."), ['material']);
    assert.deepEqual(relaxed("Don't worry about the style so much."), ['style']);
    assert.deepEqual(relaxed('the price band doesnt matter that much after all'), ['price_band']);
    assert.deepEqual(relaxed('any color works'), ['colour']);
    assert.deepEqual(relaxed('what colour is it?'), []);
    assert.deepEqual(relaxed('any colour but black'), []);
  });

  test('intents, ordinals and prices', () => {
    const p = lex.parse("I'll take the second one");
    assert.ok(p.intents.has('accept'));
    assert.deepEqual(p.ordinals, [1]);
    assert.deepEqual(lex.parse('the last one looks nice').ordinals, [-1]);
    assert.deepEqual(lex.parse('number 3 please').ordinals, [2]);
    assert.ok(lex.parse("I don't like these").intents.has('reject'));
    assert.ok(lex.parse('show me more options').intents.has('more'));
    assert.ok(!lex.parse('something more expensive').intents.has('more'));
    assert.ok(lex.parse('something more expensive').intents.has('pricier'));
    assert.ok(lex.parse('Does it come in blue?').intents.has('question'));
    assert.equal(lex.parse('under $80 please').maxPrice, 80);
    assert.equal(lex.parse('more than 200').minPrice, 200);
    // "warm" is no word of the catalog's values or features: not a keyword
    assert.deepEqual(lex.parse('warm waterproof boots').keywords, ['waterproof', 'boots']);
    assert.deepEqual(lex.parse('warm waterproof boots').unknownWords, ['warm']);
    assert.deepEqual(lex.parse('compare the first two').ordinals, [0, 1]);
    // words of the text are never inherited properties of the ordinal table
    assert.deepEqual(lex.parse('I like the constructor one').ordinals, []);
    assert.ok(lex.parse("I don't really mind.").intents.has('nopref'));
    assert.ok(lex.parse('Tell me more about it').intents.has('detail'));
    assert.ok(!lex.parse('Tell me more about it').intents.has('more'));
    // the users' ways of turning an item down or leaving (seventeenth round: read as nothing or as taking it)
    for (const text of [
      'Not sold on Item A, sorry.',
      "Item A isn't my cup of tea.",
      "Item A doesn't quite make it for me.",
    ]) {
      const q = lex.parse(text).intents;
      assert.ok(q.has('reject') && !q.has('accept'), `${text}: ${[...q].join(', ')}`);
    }
    assert.ok(lex.parse("I'm sold on Item A!").intents.has('accept'));
    assert.ok(lex.parse("I'll stop looking here. Thanks.").intents.has('bye'));
    // an item question with a reason clause naming options asks about the item, not for a list
    assert.ok(!lex.parse("What's the material of Item A? I'm comparing a few options.").intents.has('list'));
    assert.ok(lex.parse('What options do you have?').intents.has('list'));
    // the users' wordings of a request for similar items (seventeenth round review: read as "more")
    for (const text of [
      'Got more resembling Item A?',
      'I rather like Item A. Got others in that spirit?',
      'Any chance of a few more in the style of Item A?',
      'Anything in the vein of Item A?',
      'Something akin to Item A?',
      'Um, anything close to Item A?',
    ]) {
      const q = lex.parse(text).intents;
      assert.ok(q.has('similar') && !q.has('more'), `${text}: ${[...q].join(', ')}`);
    }
  });

  test('context-sensitive words and typed item titles', () => {
    assert.deepEqual(read('that could work'), []);
    assert.deepEqual(read('shoes for work'), ['category=footwear', 'occasion=work']);
    const items = generateApparelCatalog({ size: 600 }).items.slice(0, 12);
    const p = lex.parse(`I'll take the ${items[4].title}, or maybe ${items[2].title}!`);
    const refs = lex.findItems(p, items);
    assert.deepEqual(
      refs.map((r) => r.item.item_id),
      [items[4].item_id, items[2].item_id],
    );
    assert.equal(mentionsOutside(p.mentions, refs).length, 0, 'words of the titles are not preferences');
  });
});
