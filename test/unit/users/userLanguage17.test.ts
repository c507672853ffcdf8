/**
 * The users' language, seventeenth round (issue 21, item 3, user side): a reason about a plural
 * type agrees in number ("it's a pair of joggers", not "it's joggers"); a random typo never lands
 * on the word an opinion rests on ("The first one is a miiss for me", "looks deecent" read as no
 * opinion at all); the attribute's own Like wordings ("I love the navy on the first one", "the
 * second comes in leather") are grammatical with every value and read back as the liking and the
 * value they say; a conversation never says a user utterance twice.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Conversation } from '../../../src/core/model';
import { createRng } from '../../../src/core/random';
import { mentionPolarity } from '../../../src/core/check/text';
import { readOpinion } from '../../../src/core/check/opinion';
import { TemplateNlg, typoMayChange } from '../../../src/core/sim/users/nlg';
import { reasonPhrase } from '../../../src/core/sim/users/phrases';
import { parseSimulationConfig, prepareEnvironment, simulateConversation } from '../../../src/core/run/index';
import { grammarSlips, tokens } from '../../../bench/language';
import { isPluralNoun } from '../../../src/core/text/articles';
import { grammarFixture } from './fixtures';

async function run(config: Record<string, unknown>, n: number, seed: string): Promise<Conversation[]> {
  const env = await prepareEnvironment(parseSimulationConfig({ ...config, n, seed, catalog_size: 800 }));
  const out: Conversation[] = [];
  for (let i = 0; i < n; i++) out.push((await simulateConversation(env, i)).conversation);
  return out;
}

test('a reason about a plural type says the item is a pair of them, for agenda and target-free users', async () => {
  assert.equal(reasonPhrase('type', 'joggers'), 'a pair of joggers');
  assert.equal(reasonPhrase('type', 'parka'), 'a parka');
  const env = await prepareEnvironment(parseSimulationConfig({ n: 1, catalog_size: 800 }));
  const plural = [...env.catalog.attributeValues('type')].map((v) => v.toLowerCase()).filter(isPluralNoun);
  const bare = new RegExp(`\\b(?:it's|is|being) (?:${plural.join('|')})\\b`, 'i');
  const odd: string[] = [];
  let pairs = 0;
  for (const config of [
    { user: 'agenda', interaction: 'cir6', preferences: 'pkg', agent: 'local-good' },
    { user: 'target-free', agent: 'local-good' },
  ])
    for (const c of await run({ ...config, typo_rate: 0 }, 120, 'plural-17')) {
      for (const t of c.turns) {
        if (t.trace?.user_act !== 'Note.Like') continue;
        const text = t.user_utterance ?? '';
        if (/\ba pair of\b/.test(text)) pairs++;
        if (bare.test(text)) odd.push(`${c.id}: ${text}`);
      }
    }
  assert.ok(pairs >= 5, `${pairs} Likes give a plural type as their reason`);
  assert.deepEqual(odd.slice(0, 5), [], `${odd.length} Likes say a plural type as if it were one thing`);
});

test('a typo never lands on the word an opinion rests on: the text reads as the same opinion as without it', () => {
  const withTypos = new TemplateNlg({ typoRate: 1 });
  const clean = new TemplateNlg({ typoRate: 0 });
  const fills = [
    { item: 'the first one', liked: 'in leather', disliked: 'in nylon', feature: 'storm flap' },
    { item: 'the second', liked: 'black', disliked: 'yellow' },
    { item: 'the third one', liked: 'a pair of joggers', disliked: 'like a clutch' },
  ];
  const changed: string[] = [];
  let typos = 0;
  for (const act of ['Pepper.Like', 'Pepper.Dislike', 'Note.Like', 'Note.Dislike'])
    for (let i = 0; i < 400; i++) {
      const fill = fills[i % fills.length];
      const a = clean.generate(act, fill, createRng(`typo-17/${act}/${i}`));
      const b = withTypos.generate(act, fill, createRng(`typo-17/${act}/${i}`));
      if (a === b) continue;
      typos++;
      const before = readOpinion(a);
      if (readOpinion(b) !== before) changed.push(`${act}: "${a}" (${before}) -> "${b}" (${readOpinion(b)})`);
    }
  assert.ok(typos > 600, `${typos} utterances with a typo`);
  assert.deepEqual(changed.slice(0, 5), [], `${changed.length} typos changed the opinion read`);
  for (const w of ['like', 'love', 'keen', 'miss', 'decent', 'neat', 'interesting', "doesn't", 'pass', 'take'])
    assert.equal(typoMayChange(w), false, w);
  assert.equal(typoMayChange('honestly'), true);
});

test("the attribute's own Like wordings are grammatical with every value and read back as a liking of that value", async () => {
  const { catalog, singular, plural, nlg, rng } = await grammarFixture('own-like-17');
  const bad: string[] = [];
  let lists = 0;
  for (const attr of catalog.attributeNames()) {
    if (!nlg.has(`Pepper.Like.${attr}`)) continue;
    lists++;
    for (const v of catalog.attributeValues(attr))
      for (const item of ['the first one', 'the second', 'Lumen Cream Belt'])
        for (let i = 0; i < 6; i++) {
          const r = nlg.realise(`Pepper.Like.${attr}`, { item, liked: reasonPhrase(attr, v) }, rng, undefined, [
            'liked',
          ]);
          const slips = grammarSlips(r.text, singular, plural);
          if (slips.length) bad.push(`slip ${slips.join(', ')}: ${r.text}`);
          if (!r.used.includes('liked') || !r.used.includes('item')) bad.push(`says not both: ${r.text}`);
          if (mentionPolarity(r.text, v) !== 'stated') bad.push(`${attr}=${v} not read as liked: ${r.text}`);
          if (readOpinion(r.text) !== 'like') bad.push(`reads as ${readOpinion(r.text)}: ${r.text}`);
          // the user capitalises an item named first (targetFree's `capitalised`); nothing else starts in lower case
          if (!/^[A-Z]/.test(r.text) && !r.text.startsWith(item)) bad.push(`starts in lower case: ${r.text}`);
        }
  }
  assert.ok(lists >= 4, `${lists} attributes with Like wordings of their own`);
  assert.deepEqual(bad.slice(0, 5), [], `${bad.length} bad`);
});

test('the seventeenth-round wordings are said in runs, and no conversation says a user utterance twice', async () => {
  const convs = [
    ...(await run({ user: 'target-free', agent: 'local-good' }, 80, 'own-like-runs-17')),
    ...(await run({ user: 'agenda', interaction: 'qrfa', preferences: 'pkg', agent: 'local-bad' }, 80, 'again-17')),
  ];
  const repeats: string[] = [];
  let own = 0;
  let again = 0;
  for (const c of convs) {
    const said = new Set<string>();
    for (const t of c.turns) {
      const u = t.user_utterance;
      if (!u) continue;
      const key = tokens(u).join(' ');
      if (said.has(key)) repeats.push(`${c.id}: ${u}`);
      said.add(key);
      if (/\b(?:I love the \w+ on|comes in|has the \w+ look I like|I like how \w+)\b/.test(u)) own++;
      // (the eighteenth round's Disclose.Again wordings share the draws: counted with them)
      if (
        /^(?:It has to be .*, as I said\.|Once more: |Hmm, it's meant to be |Let me repeat myself: |Let me put it another way: |Maybe I was unclear: |I'll spell it out: |You've misheard me; |Could you stick to |My wish hasn't changed: |Once again, I'm after |My mind's still on )/.test(
          u,
        )
      )
        again++;
    }
  }
  assert.deepEqual(repeats.slice(0, 3), []);
  assert.ok(own >= 10, `${own} Likes in the attribute's own wordings`);
  assert.ok(again >= 3, `${again} restatements in the new Disclose.Again wordings`);
});
