/**
 * local-good compares two shown items however the built-in users ask. Before (thirteenth session),
 * 66 of 600 wordings of Inquire.Compare ("How do A and B differ?", "Of A and B, which do you rate
 * higher?", "Between A and B, which would you pick?") carried no comparison cue: it described one of
 * the two ("As for A, it is in linen ..."), or read "you pick" as having no preference; a leading
 * "Huh," made it a "say that again". And 74 of 400 wordings of "say that again" ("Pardon? I missed
 * that.", "Could you put that another way?") were read as nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateApparelCatalog } from '../../../src/core/catalog/catalog';
import { createAgent } from '../../../src/core/sim/recommenders/index';
import { createRng } from '../../../src/core/random';
import { TemplateNlg } from '../../../src/core/sim/users/nlg';
import { Lexicon } from '../../../src/core/sim/recommenders/local/lexicon';
import { playScript } from '../../support/agents';

const catalog = generateApparelCatalog({ seed: 'agents', size: 3000 });
const nlg = new TemplateNlg({ typoRate: 0 });

test('every wording of comparing two shown items gets both compared', async () => {
  const wrong: string[] = [];
  let asked = 0;
  for (let s = 0; s < 200; s++) {
    const session = createAgent('local-good', { catalog }).createSession(`c-${s}`, createRng(`cmp-${s}`), {
      task: 'footwear',
    });
    const [first] = await playScript(session, ['I need black leather boots for women, for work.']);
    const shown = first.recommendations;
    if (shown.length < 2) continue;
    const [a, b] = [shown[0].title ?? shown[0].item_id, shown[1].title ?? shown[1].item_id];
    const u = nlg.generate('Inquire.Compare', { item: a, item2: b }, createRng(`cmp-u-${s}`));
    if (!u.includes(a) || !u.includes(b)) continue;
    asked++;
    const [r] = await playScript(session, [u]);
    if (!r.utterance.includes(a) || !r.utterance.includes(b)) wrong.push(`"${u}" -> "${r.utterance}"`);
  }
  assert.ok(asked >= 100, `only ${asked} comparisons asked`);
  assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} of ${asked} compared nothing`);
});

test('every "say that again" reads as one; "Huh," opening a question and "pardon me" do not', () => {
  const lexicon = Lexicon.for(catalog);
  const fill = { category: 'tops', item: 'the first one', item2: 'the second one', value: 'grey', attribute: 'colour' };
  const missed = new Set<string>();
  for (let s = 0; s < 600; s++) {
    const u = nlg.generate('Navigate.Repeat', fill, createRng(`r-${s}`));
    if (!lexicon.parse(u).intents.has('repeat')) missed.add(u);
  }
  assert.deepEqual([...missed].slice(0, 10), [], `${missed.size} wordings of "say that again" not read as one`);
  for (const u of ['Huh?', 'Pardon? I missed that.']) assert.ok(lexicon.parse(u).intents.has('repeat'), u);
  for (const u of ['Huh, how does the first compare to the second?', "I don't want anything grey, pardon me."])
    assert.ok(!lexicon.parse(u).intents.has('repeat'), u);
});
