/**
 * Fifteenth round (issue 21): the agenda user reads an agent's questions one way for every rule
 * (users/phrases.ts `readQuestions`): rule 14's answer, "no preference" on what the goal lacks, a
 * planned "no preference", and the re-ask check. Before, three readers disagreed on offers ("Shall I
 * filter these by colour?" asked about colour for rule 14 but not for "no preference"; "Want me to
 * look around?" asked about style, and re-asked it) and on the extra cue words ("And these are for
 * whom?" was a re-ask of the gender, but no question about it for any other rule).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Conversation } from '../../../src/core/model';
import {
  AgendaUserSimulator,
  TransitionModel,
  createInteractionModel,
  defaultTransitionCounts,
} from '../../../src/core/sim/users/index';
import { REASK_REASON } from '../../../src/core/sim/users/agenda/agendaUser';
import { questionAttributes, readQuestions } from '../../../src/core/sim/users/phrases';
import { ScriptedAgent, simulateOne, tinyCatalog, userEnv } from './fixtures';

const catalog = tinyCatalog();
const names = catalog.attributeNames();
const transitions = new TransitionModel(defaultTransitionCounts());

test('readQuestions: offers ask about nothing unless they offer a choice or name what they go by; extra cues count', () => {
  const read = (text: string) => questionAttributes(text, names);
  assert.deepEqual(read('Want me to look around?'), []);
  assert.deepEqual(read('Shall I use your last search?'), []);
  assert.deepEqual(read('Can I show you a different look?'), []);
  assert.deepEqual(read('Shall I filter these by colour?'), ['colour']);
  assert.deepEqual(read('Want to narrow them by colour?'), ['colour']);
  assert.deepEqual(read("Should I browse the women's, men's or unisex racks?"), ['gender']);
  assert.deepEqual(read('May I ask your budget?'), ['price_band']);
  assert.deepEqual(read('Let me get this straight: which colour was it?'), ['colour']);
  assert.deepEqual(read('And these are for whom, again?'), ['gender']);
  assert.deepEqual(read('Here they are. Who is it for?'), ['gender']);
  assert.deepEqual(read('They are worn by many.'), [], 'a statement asks nothing');
  const [offer] = readQuestions('Want me to look around?', names);
  assert.equal(offer.offer, true);
  assert.deepEqual(
    readQuestions('Hi! What are we looking for today? Shall I keep looking for boots?', names).map((q) => q.category),
    [true, false],
    'a question about what the user shops for asks for its category; an offer asks nothing',
  );
});

/** Conversations of a CIR6 agenda user against an agent that says `utterance` every turn, reporting an elicitation and showing nothing. */
async function against(utterance: string, preferences: 'pkg' | 'single', n: number): Promise<Conversation[]> {
  const agent = new ScriptedAgent(catalog, [{ utterance, acts: ['elicit_preference'] }]);
  const user = new AgendaUserSimulator({
    catalog,
    interaction: createInteractionModel('cir6', { transitions }),
    preferences,
  });
  const env = { ...userEnv(agent, { user: 'agenda' }, { catalog, transitions }, 8), user };
  const out: Conversation[] = [];
  for (let i = 0; i < n; i++)
    out.push(await simulateOne(env, i, `agq-${preferences}`, i % 2 ? 'footwear' : 'outerwear'));
  return out;
}

/**
 * Every turn after the agent's question, judged as the rules read it: an attribute the goal holds
 * and the user has not said is answered (rule 14), one the goal lacks gets "no preference" the first
 * time (leaving, a revision and taking an item come first), and asked again once said it is a re-ask.
 */
function judge(convs: Conversation[], attr: string) {
  const counts = { answered: 0, held: 0, noPreference: 0, lacked: 0, reasks: 0, saidBefore: 0 };
  const wrong: string[] = [];
  for (const c of convs) {
    let declined = false;
    c.turns.forEach((turn, k) => {
      if (k === 0) return;
      const tr = turn.trace!;
      const before = c.turns[k - 1].trace!;
      const disclosed = ((before.goal as { disclosed?: string[] } | undefined)?.disclosed ?? []).includes(attr);
      const inGoal = tr.goal?.constraints[attr] !== undefined;
      const act = String(tr.user_act);
      const where = `${c.id} turn ${k} [${act}] ${turn.user_utterance}`;
      if (disclosed) {
        counts.saidBefore++;
        if (String(tr.push_reason ?? '').startsWith(REASK_REASON)) counts.reasks++;
        return;
      }
      if (act.startsWith('Complete') || act === 'Reveal.Revise' || act === 'Note.Accept') return;
      if (inGoal) {
        counts.held++;
        if (attr in (tr.said?.constraints ?? {})) counts.answered++;
        else wrong.push(`${where}: ${attr} in the goal, not said`);
      } else if (!declined) {
        counts.lacked++;
        if (act === 'Disclose.NonDisclose') counts.noPreference++;
        else wrong.push(`${where}: ${attr} not in the goal, no "no preference"`);
      }
      if (act === 'Disclose.NonDisclose') declined = true;
    });
  }
  return { counts, wrong };
}

test('an offer with a cue word verb ("Want me to look around?") asks nothing for any rule: no answer, no "no preference", no re-ask', async () => {
  for (const preferences of ['pkg', 'single'] as const) {
    const convs = await against('Want me to look around? I can pull up what is popular.', preferences, 30);
    let styled = 0;
    for (const c of convs)
      c.turns.forEach((turn, k) => {
        if (k === 0) return;
        const tr = turn.trace!;
        const where = `${preferences} ${c.id} turn ${k}: ${turn.user_utterance}`;
        assert.ok(!String(tr.push_reason ?? '').startsWith(REASK_REASON), `${where}: ${tr.push_reason}`);
        assert.notEqual(tr.user_act, 'Disclose.NonDisclose', `${where}: "no preference" on an offer`);
        if ((tr.goal as { disclosed?: string[] } | undefined)?.disclosed?.includes('style')) styled++;
      });
    assert.ok(styled > 0, `${preferences}: the style was never said, so a re-ask was never possible`);
  }
});

test('an offer that names what it goes by ("Shall I filter these by colour?") asks about it for every rule', async () => {
  const { counts, wrong } = judge(await against('Shall I filter these by colour?', 'pkg', 40), 'colour');
  assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} turns read the offer otherwise`);
  assert.ok(counts.held >= 5 && counts.lacked >= 5, JSON.stringify(counts));
  assert.ok(counts.reasks >= 5 && counts.reasks === counts.saidBefore, JSON.stringify(counts));
});

test('a question with an extra cue ("And these are for whom?") asks about the gender for every rule', async () => {
  const convs = [
    ...(await against('And these are for whom?', 'pkg', 40)),
    ...(await against('And these are for whom?', 'single', 40)),
  ];
  const { counts, wrong } = judge(convs, 'gender');
  assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} turns read the question otherwise`);
  assert.ok(counts.held >= 5 && counts.lacked >= 5, JSON.stringify(counts));
  assert.ok(counts.reasks >= 3 && counts.reasks === counts.saidBefore, JSON.stringify(counts));
});

test('a turn that also asks what the user is shopping for is not answered with "no preference" while the user has things to say', async () => {
  let asked = 0;
  for (const preferences of ['pkg', 'single'] as const)
    for (const c of await against('What are we looking for today? And these are for whom?', preferences, 30))
      c.turns.forEach((turn, k) => {
        const before = (c.turns[k - 1]?.trace?.goal ?? undefined) as
          { constraints: Record<string, unknown>; disclosed?: string[] } | undefined;
        // with every goal value said, "no preference" on the gender is all that is left to say
        if (k === 0 || !before || Object.keys(before.constraints).every((a) => before.disclosed?.includes(a))) return;
        asked++;
        assert.notEqual(turn.trace?.user_act, 'Disclose.NonDisclose', `${c.id} turn ${k}: ${turn.user_utterance}`);
      });
  assert.ok(asked >= 30, `only ${asked} turns`);
});
