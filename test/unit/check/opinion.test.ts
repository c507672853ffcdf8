/**
 * The read-back's opinion reader (src/core/check/opinion.ts): hand-written likes, dislikes,
 * negated likes, wishes and slips; human utterances of the IARD gold (ReDial, UserSimCRS) against
 * their accept/reject labels; and the read-back on Like/Dislike turns whose label the words
 * contradict.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readBack, readOpinion } from '../../../src/core/check/index';
import { conv, item, turn } from './helpers';

test('likes, dislikes, negated likes, wishes and one-letter slips', () => {
  const cases: [string, string][] = [
    ["I like that it's brown.", 'like'],
    ['The Harbor Tote is nice.', 'like'],
    ['Ooh, this one is close to what I want.', 'like'],
    ['Love it!', 'like'],
    ['Oh, I quiet like this one.', 'like'],
    ['Goood that it is in wool.', 'like'],
    ['I liike that it is red.', 'like'],
    ['Not bad at all.', 'like'],
    ["This one isn't for me.", 'dislike'],
    ["I'm not keen on anything beige.", 'dislike'],
    ["I'm not ken on anything beige.", 'dislike'],
    ['Not a fan of this one, to be honest.', 'dislike'],
    ["I don't really like it.", 'dislike'],
    ['No, thanks.', 'dislike'],
    ['Not this one.', 'dislike'],
    ["I'd rather not have anything in silk.", 'dislike'],
    ['It is way too pricey.', 'dislike'],
    ["It didn't do it for me.", 'dislike'],
    ['Not one of my favorites though.', 'dislike'],
    // negative appraisal as a noun or a look
    ['Well, the second is a pass.', 'dislike'],
    ["That one's a hard pass, sorry.", 'dislike'],
    ['The third is a skip.', 'dislike'],
    ['Hmm, the first is a miss.', 'dislike'],
    ['The third is off-putting.', 'dislike'],
    ["It isn't off-putting at all.", 'none'],
    ['That one looks wrong, I think.', 'dislike'],
    ['I miss my old boots.', 'none'],
    ['It being cream is a big plus.', 'like'],
    ['That it is in wool is a real bonus.', 'like'],
    ['Plus, I need it by Friday.', 'none'],
    ['A hood would be a plus.', 'none'],
    ["It being grey isn't a plus for me.", 'dislike'],
    ['Did I miss something?', 'none'],
    ['Can I pass by the shop later?', 'none'],
    // wishes, requests and comparisons voice no opinion
    ["I'd like something red.", 'none'],
    ['Something in cotton would be perfect.', 'none'],
    ['Looking for something nice for work.', 'none'],
    ['Hmm, I was picturing something tan.', 'none'],
    ["It's dresses I came for.", 'none'],
    ['Preferably in the mid-range price range if possible.', 'none'],
    ['Something like a sweater?', 'none'],
    ['Good morning! I need boots.', 'none'],
    ['Me too, thanks.', 'none'],
    // appraisal idioms (eighteenth round: read as no opinion, or the wrong one, before)
    ['The first is too yellow for me.', 'dislike'],
    ['That one catches my eye.', 'like'],
    ['The Harbor Tote caught my eye.', 'like'],
    ['Nothing here catches my eye.', 'dislike'],
    ["It doesn't catch my eye.", 'dislike'],
    ['Honestly, it leaves me cold.', 'dislike'],
    ['It does nothing for me.', 'dislike'],
    ['Not interested, but thank you.', 'dislike'],
    ['Not so much.', 'dislike'],
    ['That one sucked.', 'dislike'],
    ['I could never get into those.', 'dislike'],
    ['It falls flat, sadly.', 'dislike'],
    ['It ticks all the boxes.', 'like'],
    ['That hits the spot.', 'like'],
    ['Right up my street.', 'like'],
    ["Yeah, that's more my speed.", 'like'],
    ['That is definitely my kind of bag.', 'like'],
    ["I don't think it is my cup of tea.", 'dislike'],
    ['Hmm, that sounds intriguing.', 'like'],
    ["I'm not sold on it.", 'dislike'],
    ["I'm not feeling it.", 'dislike'],
    ['Not convinced, sorry.', 'dislike'],
    ['I fancy this one.', 'like'],
    ["I don't fancy anything purple.", 'dislike'],
    ["Cool, I don't want anything in wool.", 'dislike'],
    ["Nearly, but I'll let the first one go.", 'dislike'],
    ["I don't want to spend much.", 'none'],
    ['Let me go and check.', 'none'],
    // an opening interjection acknowledges; the clause after it voices the opinion
    ["Cool, I don't fancy anything green.", 'dislike'],
    ["Great, I'll take it.", 'like'],
    // no appraisal: a wish, a description, a quantity, a question
    ['I fancy something red.', 'none'],
    ["I'm interested in something red.", 'none'],
    ['My style is boho.', 'none'],
    ['A red one too, please.', 'none'],
    ['Is it my size?', 'none'],
    // clauses that disagree
    ['The Harbor Tote is nice, but too pricey.', 'mixed'],
  ];
  const wrong = cases
    .filter(([t, want]) => readOpinion(t) !== want)
    .map(([t, want]) => `${JSON.stringify(t)}: ${readOpinion(t)}, want ${want}`);
  assert.deepEqual(wrong, []);
});

interface IardUtterance {
  participant: string;
  utterance: string;
  dialogue_acts: { intent: string }[];
}

test('on human utterances (IARD gold): accepts never read as dislikes, rejects seldom as likes; Dislike precision and recall', (t) => {
  const file = path.join(__dirname, '../../fixtures/datasets/usersimcrs-iard-gold/formatted_IARD_annotated_gold.json');
  const data = JSON.parse(readFileSync(file, 'utf8')) as { conversation: IardUtterance[] }[];
  const polarity = { ACC: { like: 0, dislike: 0, mixed: 0, none: 0 }, REJ: { like: 0, dislike: 0, mixed: 0, none: 0 } };
  const pr = { like: { tp: 0, fp: 0, fn: 0 }, dislike: { tp: 0, fp: 0, fn: 0 } };
  let users = 0;
  for (const c of data) {
    for (const u of c.conversation) {
      if (u.participant !== 'USER') continue;
      users++;
      const intents = u.dialogue_acts.map((a) => a.intent);
      const o = readOpinion(u.utterance);
      const acc = intents.includes('ACC');
      const rej = intents.includes('REJ');
      if (acc !== rej) polarity[acc ? 'ACC' : 'REJ'][o]++;
      for (const [k, gold] of [
        ['like', acc],
        ['dislike', rej],
      ] as const) {
        const said = o === k || o === 'mixed';
        if (said && gold) pr[k].tp++;
        else if (said) pr[k].fp++;
        else if (gold) pr[k].fn++;
      }
    }
  }
  const rate = (x: { tp: number; fp: number; fn: number }) =>
    `precision ${(x.tp / (x.tp + x.fp)).toFixed(3)} recall ${(x.tp / (x.tp + x.fn)).toFixed(3)} (${JSON.stringify(x)})`;
  t.diagnostic(
    `${users} user utterances; polarity read on accept-only / reject-only turns: ${JSON.stringify(polarity)}`,
  );
  t.diagnostic(`like vs ACC: ${rate(pr.like)}; dislike vs REJ: ${rate(pr.dislike)}`);
  assert.ok(users > 500);
  const acc = polarity.ACC;
  const rej = polarity.REJ;
  // the read-back compares polarity only where one is read: a wrong polarity is a false disagreement
  assert.ok(acc.dislike <= 0.02 * (acc.like + acc.dislike + acc.mixed + acc.none), JSON.stringify(acc));
  assert.ok(rej.like <= 0.06 * (rej.like + rej.dislike + rej.mixed + rej.none), JSON.stringify(rej));
  assert.ok(acc.like > 0.4 * (acc.like + acc.none), 'accepts are read as likes at least 40 % of the time');
  assert.ok(
    pr.dislike.tp / (pr.dislike.tp + pr.dislike.fp) >= 0.65 && pr.dislike.tp / (pr.dislike.tp + pr.dislike.fn) >= 0.7,
    rate(pr.dislike),
  );
});

test('the read-back flags a Like/Dislike label the words contradict, or an opinion label on words that voice none', () => {
  const shown = [
    item('A', { colour: 'brown', material: 'wool' }, { title: 'Harbor Tote' }),
    item('B', { colour: 'black' }, { title: 'Lumen Backpack' }),
  ];
  const cases: [string, string, Record<string, unknown>, boolean][] = [
    [
      'like words, Dislike label',
      'Harbor Tote is nice, I like that it is brown.',
      { user_act: 'Note.Dislike', said: { constraints: {}, items: ['A'] } },
      true,
    ],
    [
      'like words, no item, Dislike label',
      "I like that it's brown.",
      { user_act: 'Note.Dislike', said: { constraints: {} } },
      true,
    ],
    [
      'dislike words, Like label',
      'Not a fan of Harbor Tote, sorry.',
      { user_act: 'Note.Like', said: { constraints: {}, items: ['A'] } },
      true,
    ],
    [
      'a disclosure labelled Dislike',
      'Ideally in wool for me.',
      { user_act: 'Note.Dislike', said: { constraints: { material: 'wool' } } },
      true,
    ],
    [
      'agreeing like',
      'Harbor Tote is nice. Lumen Backpack, no thanks.',
      { user_act: 'Note.Like', said: { constraints: {}, items: ['A'] } },
      false,
    ],
    [
      'agreeing dislike with a liked value',
      'Not Harbor Tote. I like brown though.',
      { user_act: 'Note.Dislike', said: { constraints: {}, items: ['A'] } },
      false,
    ],
    [
      'agreeing bare dislike',
      'Not Harbor Tote.',
      { user_act: 'Note.Dislike', said: { constraints: {}, items: ['A'] } },
      false,
    ],
  ];
  for (const [name, text, trace, flagged] of cases) {
    const r = readBack([
      conv([turn('Hi, a bag please.', { user_act: 'Disclose', said: { constraints: {} } }, shown), turn(text, trace)]),
    ]);
    const on1 = r.disagreements.filter((d) => d.turn === 1);
    assert.equal(
      on1.some((d) => d.aspect === 'opinion'),
      flagged,
      `${name}: ${JSON.stringify(r.disagreements)}`,
    );
  }
});
