/**
 * A target-free user is not pleased by a recommender that has nothing to show. An agent turn that
 * shows nothing and is no recommender move (read as Other or Traverse.End: "nothing matches",
 * small talk) is a missed answer (a push: one unit of patience, satisfaction does not rise), unless
 * it asks something for the first time in a row ("Nothing matches. Another colour?"). Before
 * (thirteenth session) every such turn was a pull: against local-good, 2 of 500 target-free users
 * heard "I have no orange spandex swimsuits. Perhaps another material?" 18 times with patience
 * untouched and satisfaction rising from 0.5 to 0.95, to the turn cap.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TransitionModel, defaultTransitionCounts } from '../../../src/core/sim/users/index';
import { ScriptedAgent, simulateOne, tinyCatalog, userEnv } from './fixtures';

const catalog = tinyCatalog();
const transitions = new TransitionModel(defaultTransitionCounts());
const shown = ['F000', 'F001', 'F002', 'F003'];

async function play(after: { utterance: string; acts: string[] }[], seed: string) {
  const agent = new ScriptedAgent(catalog, [
    { utterance: 'Here are a few to start with.', acts: ['recommend'], items: shown },
    ...after,
  ]);
  const e = userEnv(agent, { user: 'target-free' }, { catalog, transitions }, 20);
  const out = [];
  for (let i = 0; i < 30; i++) out.push(await simulateOne(e, i, seed, 'footwear'));
  return out;
}

test('"nothing matches" again and again costs patience: the user leaves instead of waiting to the turn cap', async () => {
  const convs = await play(
    [{ utterance: 'Nothing matches. Maybe another colour?', acts: ['cannot_help', 'elicit_preference'] }],
    'empty-ask',
  );
  const wrong: string[] = [];
  for (const c of convs) {
    const ts = c.turns.map((t) => t.trace!);
    // turn 2 answers the first "nothing matches" with a question: no push; every later one is
    for (let k = 2; k < ts.length; k++) {
      if (ts[k].user_act === 'Note.Accept') break;
      const pushed = ts[k].operation === 'push';
      if (k === 2 && pushed) wrong.push(`${c.id} turn ${k}: the first "nothing matches" with a question was a push`);
      if (k > 2 && !pushed) wrong.push(`${c.id} turn ${k}: ${ts[k].operation} on a repeated "nothing matches"`);
      if (k > 2 && (ts[k].satisfaction ?? 0) > (ts[k - 1].satisfaction ?? 0))
        wrong.push(`${c.id} turn ${k}: satisfaction rose`);
      if (pushed) assert.equal(ts[k].push_reason, 'the agent had nothing to show');
    }
    assert.ok(c.turns.length < 20, `${c.id} ran ${c.turns.length} turns`);
    if (c.outcome !== 'accepted') assert.equal(c.outcome, 'abandoned', `${c.id} ended ${c.outcome}`);
  }
  assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} turns`);
});

test('"nothing matches" without a question is a push at once; a question with nothing shown only from the third in a row', async () => {
  const bare = await play([{ utterance: 'Nothing matches.', acts: ['cannot_help'] }], 'empty-bare');
  let pushes = 0;
  for (const c of bare) if (c.turns[2]?.trace?.operation === 'push') pushes++;
  assert.equal(pushes, bare.filter((c) => c.turns.length > 2).length);
  assert.ok(pushes >= 20, `${pushes} of 30`);
  // questions with nothing shown: the first two are fine, the third in a row is not
  const asks = await play(
    [{ utterance: 'Which colour would you like?', acts: ['elicit_preference'] }],
    'empty-question',
  );
  let third = 0;
  for (const c of asks) {
    const ts = c.turns.map((t) => t.trace!);
    if (ts.length > 2) assert.notEqual(ts[2].operation, 'push', `${c.id}: the first question is no empty answer`);
    if (ts.length > 3) assert.notEqual(ts[3].operation, 'push', `${c.id}: nor the second`);
    if (ts.length > 4 && ts[4].user_act !== 'Note.Accept') {
      third++;
      assert.equal(ts[4].push_reason, 'the agent showed nothing for the third turn in a row', c.id);
    }
  }
  assert.ok(third >= 10, `${third} conversations reached a third question`);
});

test('agenda users: "nothing matches" again and again, or "here are some options" with nothing shown, costs patience', async () => {
  for (const [step, seed] of [
    [{ utterance: 'Nothing matches. Maybe another colour?', acts: ['cannot_help', 'elicit_preference'] }, 'ag-ask'],
    [{ utterance: 'Here are some great options for you!', acts: ['recommend'] }, 'ag-show'],
  ] as const) {
    const agent = new ScriptedAgent(catalog, [
      { utterance: 'Here are a few to start with.', acts: ['recommend'], items: shown },
      { utterance: step.utterance, acts: [...step.acts] },
    ]);
    for (const preferences of ['single', 'pkg'] as const) {
      const e = userEnv(agent, { user: 'agenda', interaction: 'cir6', preferences }, { catalog, transitions }, 20);
      for (let i = 0; i < 20; i++) {
        const c = await simulateOne(e, i, `${seed}-${preferences}`, 'footwear');
        if (c.outcome === 'accepted') continue;
        assert.ok(c.turns.length <= 8, `${c.id} (${step.utterance}) ran ${c.turns.length} turns, ${c.outcome}`);
        const pulls = c.turns.slice(3).filter((t) => t.trace?.operation === 'pull');
        assert.deepEqual(
          pulls.map((t) => t.user_utterance),
          [],
          `${c.id}: pulls on empty answers`,
        );
      }
    }
  }
});
