import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { conversationSystem, reportedOutcome, type Conversation } from '../../../src/core/model';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { computeReport } from '../../../src/core/report/compute';
import { withTempDir } from '../jsonl/helpers';
import {
  corpusShape,
  dsKl,
  conversationReward,
  effectiveFull,
  rewardTurns,
  successRate,
  rankingAgreement,
  userActCounts,
  zhangBalogSummary,
  describeUnknownOutcomes,
  zbOutcomeShare,
  zbOutcomes,
} from '../../../src/core/metrics/zhangBalog';
import { parseActSource } from '../../../src/core/metrics/features';
import { importFile } from '../../../src/core/importers';
import { datasetPath } from '../../fixtures';

const turn = (user_act: string, operation?: 'pull' | 'push') => ({
  user_utterance: user_act.toLowerCase(),
  assistant_utterance: 'ok',
  trace: { user_act, operation },
});

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
    const c: Conversation = {
      turns: [turn('Disclose'), turn('Navigate.Repeat'), turn('Navigate.Repeat'), turn('Note'), turn('Complete')],
      outcome: 'accepted',
    };
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

  test('ranking agreement: equal scores share a rank; the verdict does not depend on the order of ties', () => {
    // Three systems tie under real users; the simulated users give the same scores.
    const real = { A: 5, B: 5, C: 5, D: 1 };
    const a = rankingAgreement(real, { ...real });
    assert.deepEqual(a.real_rank, [1, 1, 1, 4]);
    assert.deepEqual(a.simulated_rank, [1, 1, 1, 4]);
    assert.equal(a.same_order, true);
    // Every renaming of the systems (which changes how ties are ordered by name) gives the same verdict.
    const names = ['A', 'B', 'C', 'D'];
    const perms = (xs: string[]): string[][] =>
      xs.length <= 1
        ? [xs]
        : xs.flatMap((x, i) => perms([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
    const scores = [5, 5, 5, 1];
    const sim = [5, 5, 5, 2];
    let checked = 0;
    for (const p of perms(names)) {
      const r: Record<string, number> = {};
      const m: Record<string, number> = {};
      p.forEach((n, i) => ((r[n] = scores[i]), (m[n] = sim[i])));
      const x = rankingAgreement(r, m);
      assert.equal(x.same_order, true, p.join(''));
      assert.equal(x.real_rank.filter((k) => k === 1).length, 3);
      checked++;
    }
    assert.equal(checked, 24);
    // A real difference is still found: B drops below D under simulated users.
    const d = rankingAgreement({ A: 5, B: 5, C: 5, D: 1 }, { A: 5, B: 0, C: 5, D: 1 });
    assert.equal(d.same_order, false);
    assert.deepEqual(d.simulated_rank, [1, 4, 1, 3]);
  });

  test('human dialogues: a crowd worker id is not a system (no ranking by worker id)', async () => {
    const gold = (await importFile(datasetPath('usersimcrs-iard-gold/formatted_IARD_annotated_gold.json')))
      .conversations;
    assert.ok(
      gold.every((c) => /^\d+$/.test(c.agent ?? '')),
      'the gold file names its recommenders by worker id',
    );
    assert.ok(gold.every((c) => conversationSystem(c) === undefined));
    assert.equal(
      conversationSystem({ id: 's', source: 'agenda', agent: 'local-good', turns: [] } as Conversation),
      'local-good',
    );
    assert.equal(
      conversationSystem({ id: 'h', source: 'human', agent: 'IAI MovieBot', turns: [] } as Conversation),
      'IAI MovieBot',
    );
    await withTempDir(async (dir) => {
      const file = join(dir, 'human.jsonl');
      writeFileSync(file, gold.map((c) => JSON.stringify(c)).join('\n') + '\n');
      const report = await computeReport({
        kind: 'simulation',
        reference: { file },
        populations: [{ file }],
        metrics: ['zb'],
      });
      assert.equal(report.sections.filter((x) => x.id.startsWith('ranking')).length, 0, 'no ranking table');
      assert.ok(
        report.warnings?.some((w) =>
          /no system ranking: the agent of 77 human dialogues is a crowd worker's id/.test(w),
        ),
        JSON.stringify(report.warnings),
      );
    }, 'simlens-zb-');
  });

  test('a conversation without an outcome is unknown, never "ended"; shares and Reward over those that report one', async () => {
    // The UserSimCRS IARD gold file: 75 accepted, 2 ended once imported. Take the outcome away from
    // two accepted dialogues (as any DialogueKit file without accepted items has none).
    const gold = (await importFile(datasetPath('usersimcrs-iard-gold/formatted_IARD_annotated_gold.json')))
      .conversations;
    const accepted = gold.filter((c) => c.outcome === 'accepted');
    const stripped = new Set([accepted[0], accepted[1]]);
    const convs: Conversation[] = gold.map((c) => {
      if (!stripped.has(c)) return c;
      const { outcome: _drop, ...rest } = c;
      return rest as Conversation;
    });
    const o = zbOutcomes(convs);
    assert.deepEqual(o, {
      conversations: 77,
      known: 75,
      accepted: 73,
      ended: 2,
      gave_up: 0,
      abandoned: 0,
      failed: 0,
      unknown: 2,
    });
    assert.ok(Math.abs(zbOutcomeShare(o, 'accepted') - 73 / 75) < 1e-12);
    assert.ok(Math.abs(zbOutcomeShare(o, 'ended') - 2 / 75) < 1e-12);
    assert.equal(
      describeUnknownOutcomes(o),
      'outcome unknown: 2 of 77 (shares are of the 75 that report one; Reward is their mean)',
    );
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
    assert.equal(
      reportedOutcome({ turns: [{ user_utterance: 'hi' }], ratings: { 'Were you able to find a product?': 'No' } }),
      'ended',
    );
    assert.equal(reportedOutcome({ turns: [turn('Disclose'), turn('Complete')] }), 'ended');
    assert.equal(reportedOutcome({ turns: [turn('Disclose'), turn('Accept')] }), 'accepted');
    const o = zbOutcomes([{ turns: [{ user_utterance: 'hi' }], outcome: 'agent_error' }, { turns: [] }]);
    assert.deepEqual([o.failed, o.unknown, o.known], [1, 1, 0]);
  });
});
