/**
 * A target-free user answers the question an agent turn asks when it shows nothing ("Which
 * material?"): with a liked value of that attribute it has not said, else the value it said before,
 * else a value of it it is not keen on (fifteenth round), else that it has no preference there
 * (`Disclose.NonDisclose`), and it never states that
 * attribute later. Before (fourteenth session, review finding) it said whatever general value came
 * next: asked "Which type of dresses: shirt dresses or maxi dresses?" it answered "Again, I'm holding
 * out for something tan." (2 of 6 such turns against the local recommenders, seed s14tf; 16 of 20 in
 * the reviewer's run).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TransitionModel, defaultTransitionCounts } from '../../../src/core/sim/users/index';
import { ScriptedAgent, simulateOne, tinyCatalog, userEnv } from './fixtures';
import type { Conversation } from '../../../src/core/model';

const catalog = tinyCatalog();
const transitions = new TransitionModel(defaultTransitionCounts());
const QUESTIONS: [string, string][] = [
  ['material', 'Any material in mind?'],
  ['type', 'What type of shoes are you after?'],
  ['colour', 'Which colour would you like?'],
  ['gender', "Women's, men's or unisex?"],
  ['style', 'What style do you go for?'],
];

async function play(order: [string, string][], seed: string): Promise<Conversation[]> {
  // two questions at a time, a carousel between them (a third empty turn in a row would be a push)
  const script = [];
  for (let i = 0; i < order.length; i++) {
    script.push({ utterance: order[i][1], acts: ['elicit_preference'] });
    if (i % 2 === 1) script.push({ utterance: 'How about these?', acts: ['recommend'], items: ['F004', 'F017'] });
  }
  const agent = new ScriptedAgent(catalog, script);
  const e = userEnv(agent, { user: 'target-free' }, { catalog, transitions }, 20);
  const out = [];
  for (let i = 0; i < 40; i++) out.push(await simulateOne(e, i, seed, 'footwear'));
  return out;
}

test('asked about an attribute with nothing shown, the target-free user answers about that attribute', async () => {
  const wrong: string[] = [];
  const answers = new Map<string, number>();
  for (const [n, order] of [QUESTIONS, [...QUESTIONS].reverse()].entries()) {
    for (const c of await play(order, `tf-answers-${n}`)) {
      const noPreference = new Set<string>();
      const liked: string[] =
        (c.turns[0].trace?.preferences as { liked_attributes?: string[] })?.liked_attributes ?? [];
      const disliked: string[] =
        (c.turns[0].trace?.preferences as { disliked_attributes?: string[] })?.disliked_attributes ?? [];
      for (let k = 1; k < c.turns.length; k++) {
        const prev = c.turns[k - 1];
        const tr = c.turns[k].trace!;
        const said = Object.keys(tr.said?.constraints ?? {});
        for (const a of said)
          if (noPreference.has(a)) wrong.push(`${c.id} turn ${k}: states ${a} after "no preference" on it`);
        const asked = QUESTIONS.find(([, q]) => q === prev.assistant_utterance)?.[0];
        if (!asked || (prev.recommendations ?? []).length || tr.operation === 'push' || !tr.user_act) continue;
        if (tr.user_act === 'Note.Accept' || tr.user_act.startsWith('Complete')) continue;
        const kind =
          tr.user_act === 'Disclose.NonDisclose'
            ? 'no preference'
            : said.includes(asked)
              ? 'value'
              : // a value of it it is not keen on (fifteenth round: a general dislike, not said yet)
                (tr.said?.negated ?? []).some((v) => catalog.attributeValues(asked).includes(v))
                ? 'not keen'
                : // asked again after "no preference", or about a taste it cannot have met now: it
                  // asks to see items, nothing else
                  tr.user_act === 'Inquire.List'
                  ? 'show me'
                  : 'other';
        answers.set(kind, (answers.get(kind) ?? 0) + 1);
        if (kind === 'other')
          wrong.push(
            `${c.id} turn ${k}: asked ${asked}, said ${tr.user_act} ${JSON.stringify(tr.said)}: ${c.turns[k].user_utterance}`,
          );
        if (said.some((a) => a !== asked))
          wrong.push(`${c.id} turn ${k}: asked ${asked}, also stated ${said.join(', ')}: ${c.turns[k].user_utterance}`);
        if (kind === 'no preference') {
          noPreference.add(asked);
          // "no preference" only when no liked value of that attribute could still be met: some
          // footwear item has it, every value said so far, and none the user is not keen on
          const stated: Record<string, string> = {};
          const negated = new Set<string>();
          for (const t of c.turns.slice(0, k)) {
            Object.assign(stated, t.trace?.said?.constraints ?? {});
            for (const v of t.trace?.said?.negated ?? []) negated.add(v);
          }
          const fits = catalog
            .categoryItems('footwear')
            .filter(
              (i) =>
                Object.entries(stated).every(([a, v]) => a === 'category' || i.attributes[a] === v) &&
                !Object.values(i.attributes).some((v) => negated.has(String(v))),
            );
          const own = [...liked, ...disliked].find((kv) => kv.split('=')[0] === asked);
          if (own) wrong.push(`${c.id} turn ${k}: "no preference" on ${asked}, but it has a taste: ${own}`);
          // nor on an attribute it said it is not keen on a value of ("not into anything grey")
          const ruledOut = [...negated].find((v) => catalog.attributeValues(asked).includes(v));
          if (ruledOut) wrong.push(`${c.id} turn ${k}: "no preference" on ${asked}, but it said not ${ruledOut}`);
          if (fits.length === 0) wrong.push(`${c.id} turn ${k}: nothing fits what it said`);
        }
      }
    }
  }
  assert.deepEqual(wrong.slice(0, 6), [], `${wrong.length} wrong answers`);
  // both answers occur: a value it likes, and for what it likes no value of, a value it is not
  // keen on (fifteenth round: its general dislikes are a taste too) or "no preference"
  assert.ok((answers.get('value') ?? 0) >= 20, JSON.stringify([...answers]));
  assert.ok((answers.get('not keen') ?? 0) + (answers.get('no preference') ?? 0) >= 20, JSON.stringify([...answers]));
});

test('two attributes asked at once are both answered; an offer ("Want me to look around?") asks for no preference', async () => {
  const agent = new ScriptedAgent(catalog, [
    { utterance: 'Want me to look around? Shall I use your last search?', acts: ['elicit_preference'] },
    { utterance: 'What colour and material?', acts: ['elicit_preference'] },
    { utterance: 'How about these?', acts: ['recommend'], items: ['F004', 'F017'] },
  ]);
  const e = userEnv(agent, { user: 'target-free' }, { catalog, transitions }, 20);
  const offers: string[] = [];
  let both = 0;
  let two = 0;
  for (let i = 0; i < 60; i++) {
    const c = await simulateOne(e, i, 'tf-answers-two', 'footwear');
    const offer = c.turns[1]?.trace;
    if (offer?.user_act === 'Disclose.NonDisclose') offers.push(`${c.id}: ${c.turns[1].user_utterance}`);
    const tr = c.turns[2]?.trace;
    if (!tr || tr.operation === 'push') continue;
    const said = Object.keys(tr.said?.constraints ?? {});
    if (said.length >= 1 && said.every((a) => a === 'colour' || a === 'material')) two++;
    if (said.includes('colour') && said.includes('material')) both++;
  }
  assert.deepEqual(offers.slice(0, 5), [], `${offers.length} offers answered with "no preference"`);
  assert.ok(two >= 20, `${two} answers about colour or material`);
  assert.ok(both >= 3, `${both} answers about both`);
});
