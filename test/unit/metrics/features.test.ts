import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Conversation } from '../../../src/core/model';
import {
  conversationFeatures,
  featureValue,
  featureTable,
  parseActSource,
  presentValues,
  PLSA_DEFAULT_FEATURES,
  availableFeatures,
} from '../../../src/core/metrics/features';
import { isQuestion } from '../../../src/core/metrics/features';
import { dialogueTokens as tokenize } from '../../../src/core/text/tokenize';

const gold = (acts: string[]) => [{ speaker: 'user' as const, annotator: 'gold', acts }];

const conv: Conversation = {
  id: 'c1',
  turns: [
    {
      user_utterance: "Hi, I'm looking for boots",
      assistant_utterance: 'Sure! What size?',
      annotations: gold(['greet_thank', 'inform_preference']),
    },
    {
      user_utterance: 'what material is it',
      assistant_utterance: 'Leather.',
      annotations: gold(['ask_clarification']),
    },
    {
      user_utterance: "I'll take the second one",
      assistant_utterance: 'Great choice.',
      annotations: gold(['accept_recommendation']),
    },
  ],
  outcome: 'accepted',
};

describe('per-conversation features', () => {
  test('basic features and annotator acts, by hand', () => {
    const f = conversationFeatures(conv, { acts: { kind: 'annotator', annotator: 'gold' } });
    assert.equal(f.values.num_turns, 3);
    assert.equal(f.values.user_words_per_turn, (5 + 4 + 5) / 3);
    assert.equal(f.values.user_turns_with_question, 1); // "what material is it" (no "?")
    assert.equal(f.values.assistant_turns_with_question, 1);
    assert.equal(f.values['act:greet_thank'], 1);
    assert.equal(f.values['act:inform_preference'], 1);
    assert.equal(featureValue(f, 'act:critique'), 0, 'absent act with known acts is 0');
    assert.equal(f.values.accepted, 1);
    assert.equal(f.values.turns_until_acceptance, 3);
    assert.ok(Number.isNaN(f.values.satisfaction), 'no ratings, no judge');
  });

  test('unknown acts are missing, not zero', () => {
    const f = conversationFeatures(conv, { acts: { kind: 'annotator', annotator: 'nobody' } });
    assert.ok(Number.isNaN(featureValue(f, 'act:critique')));
  });

  test('first-person UX mapping, by hand', () => {
    const c: Conversation = {
      turns: [
        { user_utterance: 'a', ratings: { Satisfied: true, Delighted: true, Annoyed: false, Confused: false } },
        { user_utterance: 'b', ratings: { Satisfied: false, Annoyed: true, Confused: true, Engaged: true } },
        { user_utterance: 'c', ratings: { Satisfied: false, Frustrated: false } },
        { user_utterance: 'd' },
      ],
      ratings: { 'Were you able to find a product?': 'No' },
    };
    const f = conversationFeatures(c, { ux: 'first-person' });
    assert.equal(f.values.satisfaction, 1 / 3);
    assert.equal(f.values.frustration, 1 / 3);
    assert.equal(f.values.confusion, 1 / 3);
    // turn sentiments: (2-0)/2 = 1, (1-2)/3 = -1/3, 0 -> mean 2/9
    assert.ok(Math.abs(f.values.sentiment - 2 / 9) < 1e-15);
    assert.equal(f.values.accepted, 0);
    assert.ok(Number.isNaN(f.values.turns_until_acceptance));
  });

  test('judge fields give UX and acts', () => {
    const c: Conversation = {
      turns: [{ user_utterance: 'hello' }],
      annotations: [
        {
          annotator: 'judge:gpt-x',
          fields: {
            user_satisfaction: 4,
            user_frustration_annoyance: 2,
            user_confusion: 1,
            user_sentiment: 5,
            recommendation_accepted: true,
            turns_until_acceptance: 1,
            user_dialog_acts: { greet_thank: 1, critique: 0 },
            assistant_dialog_acts: { recommend: 2 },
          },
        },
      ],
    };
    const f = conversationFeatures(c, { acts: parseActSource('judge'), ux: 'judge' });
    assert.deepEqual(
      [
        f.values.satisfaction,
        f.values.frustration,
        f.values.confusion,
        f.values.sentiment,
        f.values.accepted,
        f.values.turns_until_acceptance,
      ],
      [4, 2, 1, 5, 1, 1],
    );
    assert.equal(f.values['act:greet_thank'], 1);
    assert.equal(featureValue(f, 'act:other'), 0);
    assert.equal(f.values['agent_act:recommend'], 2);
    // a different judge is not used
    const g = conversationFeatures(c, { acts: parseActSource('judge:other'), ux: 'judge', judge: 'judge:other' });
    assert.ok(Number.isNaN(g.values.satisfaction));
    assert.ok(Number.isNaN(featureValue(g, 'act:greet_thank')));
  });

  test('trace acts and tagger acts', () => {
    const c: Conversation = {
      turns: [{ user_utterance: 'x', trace: { user_act: 'Disclose', agent_act: 'Inquire.Elicit', operation: 'pull' } }],
    };
    const f = conversationFeatures(c, { acts: parseActSource('trace') });
    assert.equal(f.values['act:Disclose'], 1);
    assert.equal(f.values['agent_act:Inquire.Elicit'], 1);
    const t = conversationFeatures(conv, { acts: parseActSource('tagger') });
    assert.ok(t.values['act:greet_thank'] >= 1);
    assert.equal(t.values['act:accept_recommendation'], 1);
  });

  test('act-source specs', () => {
    assert.deepEqual(parseActSource(undefined), { kind: 'tagger' });
    assert.deepEqual(parseActSource('judge:m'), { kind: 'judge', annotator: 'judge:m' });
    assert.equal(parseActSource('source@iard').kind, 'annotator');
    assert.throws(() => parseActSource('x@nomap'), /unknown act map "nomap"/);
  });

  test('feature table, missing values and available names', () => {
    const t = featureTable([conv, { turns: [] }], ['num_turns', 'user_words_per_turn'], {
      acts: parseActSource('gold'),
    });
    assert.deepEqual(Array.from(t.values.num_turns), [3, 0]);
    assert.equal(presentValues(t.values.user_words_per_turn).length, 1);
    assert.equal(PLSA_DEFAULT_FEATURES.length, 11);
    const names = availableFeatures([conv], { acts: parseActSource('gold') });
    assert.ok(names.includes('act:ask_clarification') && names.includes('satisfaction'));
  });

  test('text helpers', () => {
    assert.deepEqual(tokenize("I'll take it? Yes!"), ["i'll", 'take', 'it', '?', 'yes', '!']);
    assert.equal(isQuestion('Any other ideas'), true);
    assert.equal(isQuestion('I like it. how warm is it'), true);
    assert.equal(isQuestion('I know what I want'), false);
  });
});
