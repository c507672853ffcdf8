import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { reportedOutcome, type Conversation } from '../../../src/core/model';
import {
  corpusShape, dsKl, conversationReward, effectiveFull, rewardTurns, successRate, rankingAgreement, userActCounts, zhangBalogSummary,
  describeUnknownOutcomes, zbOutcomeShare, zbOutcomes,
} from '../../../src/core/metrics/zhangBalog';
import { parseActSource } from '../../../src/core/metrics/features';
import { importFile } from '../../../src/core/importers';
import { datasetPath } from '../../fixtures';

const turn = (user_act: string, operation?: 'pull' | 'push') => ({ user_utterance: user_act.toLowerCase(), assistant_utterance: 'ok', trace: { user_act, operation } });

describe('Zhang & Balog metrics', () => {
  test('AvgTurns and UserActRatio on the DialogueKit reference figures', async () => {
    const expected: [string, number, number, number, number][] = [
      ['dialoguekit-tests/annotated_dialogues.json', 15.8333, 50, 59, 0.8475],
      ['usersimcrs-moviebot/annotated_dialogues.json', 12.625, 101, 109, 0.9266],
      ['usersimcrs-iard-gold/formatted_IARD_annotated_gold.json', 6.6623, 549, 554, 0.991],
    ];
    for (const [file, avg, user, agent, ratio] of expected) {
      const r = await importFile(datasetPath(file));
      const s = corpusShape(r.conversations);
      assert.ok(Math.abs(s.avg_turns - avg) < 5e-5, `${file}: AvgTurns ${s.avg_turns}`);
      assert.equal(s.user_utterances, user);
      assert.equal(s.agent_utterances, agent);
      assert.ok(Math.abs(s.user_act_ratio - ratio) < 5e-5, `${file}: ratio ${s.user_act_ratio}`);
    }
  });

  test('AvgTurns by hand: speaker changes / 2', () => {
    const c: Conversation = { turns: [{ user_utterance: 'a', assistant_utterance: 'b' }, { user_utterance: 'c' }] };
    // U A U: 2 changes -> 1 turn
    assert.equal(corpusShape([c]).avg_turns, 1);
    assert.equal(corpusShape([c]).user_act_ratio, 2);
  });

  test('DS-KL with Laplace smoothing, by hand', () => {
    const r = dsKl(new Map([['a', 1]]), new Map([['b', 1]]), 1);
    assert.deepEqual(r.acts, ['a', 'b']);
    assert.ok(Math.abs(r.value - Math.log(2) / 3) < 1e-15);
    assert.equal(dsKl(new Map([['a', 1]]), new Map([['b', 1]]), 0).value, Infinity);
    assert.equal(dsKl(new Map([['a', 3]]), new Map([['a', 5]]), 0).value, 0);
    const convs: Conversation[] = [{ turns: [turn('Disclose'), turn('Reveal'), turn('Disclose')] }];
    assert.deepEqual(Object.fromEntries(userActCounts(convs, parseActSource('trace'))), { Disclose: 2, Reveal: 1 });
  });

  test('Reward: Full − Cost·T for accepted conversations, consecutive repeats count once', () => {
    const c: Conversation = { turns: [turn('Disclose'), turn('Navigate.Repeat'), turn('Navigate.Repeat'), turn('Note'), turn('Complete')], outcome: 'accepted' };
    assert.equal(rewardTurns(c), 4);
    assert.equal(conversationReward(c), 16);
    assert.equal(effectiveFull({ unsupported: ['navigate'] }), 16);
    assert.equal(conversationReward(c, { unsupported: ['navigate', 'mixed-initiative'] }), 8);
    assert.equal(conversationReward({ ...c, outcome: 'ended' }), 0);
    assert.equal(conversationReward({ ...c, outcome: 'ended' }, { requireSuccess: false }), 16);
    assert.equal(conversationReward(c, { full: 3 }), 0, 'never negative');
    assert.throws(() => effectiveFull({ unsupported: ['teleport'] }), /unknown function "teleport"/);
  });

  test('Success Rate: share of pull operations', () => {
    const convs: Conversation[] = [
      { turns: [turn('Disclose', 'pull'), turn('Reveal', 'push'), turn('Note', 'pull')] },
      { turns: [turn('Disclose', 'push'), turn('Complete')] },
    ];
    const s = successRate(convs);
    assert.equal(s.turns, 4);
    assert.equal(s.rate, 0.5);
    assert.ok(Math.abs(s.mean_per_conversation - (2 / 3 + 0) / 2) < 1e-15);
    const z = zhangBalogSummary(convs);
    assert.equal(z.success_rate.rate, 0.5);
  });

  test("ranking agreement: Kendall's tau between real and simulated scores", () => {
    const same = rankingAgreement({ A: 10, B: 8, C: 3 }, { A: 12, B: 9, C: 1 });
    assert.equal(same.kendall_tau, 1);
    assert.equal(same.same_order, true);
    assert.deepEqual(same.real_order, ['A', 'B', 'C']);
    const flip = rankingAgreement({ A: 10, B: 8, C: 3 }, { A: 8, B: 10, C: 1 });
    assert.ok(Math.abs(flip.kendall_tau - 1 / 3) < 1e-15);
    assert.equal(flip.same_order, false);
    assert.throws(() => rankingAgreement({ A: 1 }, { A: 2 }), /at least two systems/);
  });

  test('a conversation without an outcome is unknown, never "ended"; shares and Reward over those that report one', async () => {
    // The UserSimCRS IARD gold file: 75 accepted, 2 ended once imported. Take the outcome away from
    // two accepted dialogues (as any DialogueKit file without accepted items has none).
    const gold = (await importFile(datasetPath('usersimcrs-iard-gold/formatted_IARD_annotated_gold.json'))).conversations;
    const accepted = gold.filter((c) => c.outcome === 'accepted');
    const stripped = new Set([accepted[0], accepted[1]]);
    const convs: Conversation[] = gold.map((c) => {
      if (!stripped.has(c)) return c;
      const { outcome: _drop, ...rest } = c;
      return rest as Conversation;
    });
    const o = zbOutcomes(convs);
    assert.deepEqual(o, { conversations: 77, known: 75, accepted: 73, ended: 2, gave_up: 0, abandoned: 0, failed: 0, unknown: 2 });
    assert.ok(Math.abs(zbOutcomeShare(o, 'accepted') - 73 / 75) < 1e-12);
    assert.ok(Math.abs(zbOutcomeShare(o, 'ended') - 2 / 75) < 1e-12);
    assert.equal(describeUnknownOutcomes(o), 'outcome unknown: 2 of 77 (shares are of the 75 that report one; Reward is their mean)');
    assert.equal(describeUnknownOutcomes(zbOutcomes(gold)), undefined);

    const z = zhangBalogSummary(convs);
    assert.equal(z.reward_conversations, 75);
    assert.deepEqual(z.outcomes, o);
    const known = convs.filter((c) => c.outcome !== undefined);
    const mean = known.reduce((s, c) => s + conversationReward(c), 0) / 75;
    assert.ok(Math.abs(z.reward - mean) < 1e-12);
    // Nothing reports an outcome (MovieBot dialogues): every share and the Reward are unknown, not 0.
    const moviebot = (await importFile(datasetPath('usersimcrs-moviebot/annotated_dialogues.json'))).conversations;
    const mo = zbOutcomes(moviebot);
    assert.deepEqual([mo.unknown, mo.known, mo.ended], [8, 0, 0]);
    assert.ok(Number.isNaN(zbOutcomeShare(mo, 'ended')));
    const mz = zhangBalogSummary(moviebot);
    assert.ok(Number.isNaN(mz.reward));
    assert.equal(mz.reward_conversations, 0);
    // Without requireSuccess the Reward does not depend on the outcome: all conversations count.
    assert.equal(zhangBalogSummary(moviebot, { requireSuccess: false }).reward_conversations, 8);
  });

  test('reported outcome: the field, a "found a product" rating, or a trace on the last turn; else none', () => {
    assert.equal(reportedOutcome({ turns: [{ user_utterance: 'hi' }] }), undefined);
    assert.equal(reportedOutcome({ turns: [{ user_utterance: 'hi' }], outcome: 'ended' }), 'ended');
    assert.equal(reportedOutcome({ turns: [{ user_utterance: 'hi' }], outcome: 'agent_error' }), 'agent_error');
    assert.equal(reportedOutcome({ turns: [{ user_utterance: 'hi' }], ratings: { 'Were you able to find a product?': 'No' } }), 'ended');
    assert.equal(reportedOutcome({ turns: [turn('Disclose'), turn('Complete')] }), 'ended');
    assert.equal(reportedOutcome({ turns: [turn('Disclose'), turn('Accept')] }), 'accepted');
    const o = zbOutcomes([{ turns: [{ user_utterance: 'hi' }], outcome: 'agent_error' }, { turns: [] }]);
    assert.deepEqual([o.failed, o.unknown, o.known], [1, 1, 0]);
  });
});
