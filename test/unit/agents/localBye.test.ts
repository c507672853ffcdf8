/**
 * local-good hears every way the built-in users leave. Before (thirteenth session), of 600 draws per
 * act, 80 distinct Complete.Abandon wordings ("Sadly, this isn't for me today. Farewell.", "I'll
 * try elsewhere. Take care."), 60 Complete.GaveUp wordings ("I'll stop here.", "I don't think I'll
 * find it here. Thanks anyway.") and 26 Complete wordings ("I'll come back later. Cheerio!") carried
 * no goodbye cue it knew: it answered the user's last words with another carousel ("Understood,
 * those are out. The white pair might do ...") or "Glad to help! Keep browsing".
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateApparelCatalog } from '../../../src/core/catalog/catalog';
import { createRng } from '../../../src/core/random';
import { Lexicon } from '../../../src/core/sim/recommenders/local/lexicon';
import { TemplateNlg } from '../../../src/core/sim/users/nlg';
import { parseSimulationConfig, prepareEnvironment, simulateConversation } from '../../../src/core/run/index';

const lexicon = Lexicon.for(generateApparelCatalog({ size: 800, seed: 1 }));
const nlg = new TemplateNlg({ typoRate: 0 });
const fill = { category: 'tops', item: 'the second one', value: 'grey', attribute: 'colour', disliked: 'grey' };

test('every wording of leaving reads as goodbye; of completing, as goodbye or thanks', () => {
  const missed = new Set<string>();
  let n = 0;
  for (const act of ['Complete', 'Complete.Abandon', 'Complete.GaveUp'])
    for (let s = 0; s < 600; s++) {
      const u = nlg.generate(act, fill, createRng(`${act}-${s}`));
      n++;
      const intents = lexicon.parse(u).intents;
      if (!intents.has('bye') && !(act === 'Complete' && intents.has('thanks'))) missed.add(`${act}: ${u}`);
    }
  assert.ok(n >= 1800);
  assert.deepEqual([...missed].slice(0, 10), [], `${missed.size} wordings not read as leaving`);
});

test('wishes, opinions, requests and turn-downs are not read as goodbye', () => {
  const read: string[] = [];
  for (const act of [
    'Disclose',
    'Disclose.NonDisclose',
    'Inquire.List',
    'Navigate.More',
    'Note.Like',
    'Note.Dislike',
    'Note.Seen',
    'Pepper.Pass',
    'Reveal.Revise',
    'Reveal.Refine',
    'Reveal.Expand',
  ])
    for (let s = 0; s < 300; s++) {
      const u = nlg.generate(act, fill, createRng(`${act}-${s}`));
      if (lexicon.parse(u).intents.has('bye')) read.push(`${act}: ${u}`);
    }
  for (const u of [
    "I'm off to a wedding, so I need a dress.",
    'Something I can wear on its own, please.',
    'Could I try another colour?',
    "That's everything I wanted to know about the second one. What about the first?",
  ])
    if (lexicon.parse(u).intents.has('bye')) read.push(u);
  assert.deepEqual(read.slice(0, 10), [], `${read.length} read as goodbye`);
});

test('against local-good, a user who leaves is never answered with a new carousel', async () => {
  const wrong: string[] = [];
  let left = 0;
  for (const user of ['agenda', 'target-free'] as const) {
    const N = 150;
    const env = await prepareEnvironment(
      parseSimulationConfig({ user, agent: 'local-good', n: N, seed: `bye-${user}`, catalog_size: 800 }),
    );
    for (let c = 0; c < N; c++) {
      const conv = (await simulateConversation(env, c)).conversation;
      if (conv.outcome === 'accepted') continue;
      const last = conv.turns[conv.turns.length - 1];
      if (!String(last.trace?.user_act ?? '').startsWith('Complete')) continue;
      left++;
      const before = (conv.turns[conv.turns.length - 2]?.recommendations ?? []).map((r) => r.item_id).join(' ');
      const after = (last.recommendations ?? []).map((r) => r.item_id).join(' ');
      if (after !== '' && after !== before)
        wrong.push(`${conv.id}: "${last.user_utterance}" -> "${last.assistant_utterance}"`);
    }
  }
  assert.ok(left >= 100, `only ${left} conversations the user left`);
  assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} of ${left}`);
});
