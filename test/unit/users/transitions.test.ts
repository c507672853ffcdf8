import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Conversation } from '../../../src/core/model';
import { createRng } from '../../../src/core/random';
import { importFile } from '../../../src/core/importers/index';
import {
  TransitionModel,
  defaultTransitionCounts,
  estimateTransitions,
  probability,
} from '../../../src/core/sim/users/index';
import {
  defaultActAliases,
  normalizeLabel,
  qrfaAgentClass,
  qrfaUserClass,
  toAgentAct,
  toConvApparelUserAct,
  toUserAct,
  mainAct,
} from '../../../src/core/taxonomy/acts';
import { FIXTURES } from './fixtures';

const aliases = defaultActAliases();

describe('act labels', () => {
  test('spelling normalisation', () => {
    const cases: [string, string | undefined][] = [
      ['DISCLOSE.NON-DISCLOSE', 'Disclose.NonDisclose'],
      ['inquire.elicit', 'Inquire.Elicit'],
      [' NOTE ', 'Note'],
    ];
    for (const [label, expected] of cases) assert.equal(normalizeLabel(label), expected, label);
  });
  test('user labels: aliases first, then CIR6 main acts, else dropped', () => {
    const cases: [string, string | undefined][] = [
      ['NOTE.YES', 'Note.Seen'],
      ['REVEAL.REVISE', 'Reveal.Revise'],
      ['ACC', 'Note.Accept'],
      ['critique', 'Reveal.Refine'],
      ['OTH', undefined],
      ['SOMETHING.ELSE', undefined],
    ];
    for (const [label, expected] of cases) assert.equal(toUserAct(label, aliases), expected, label);
  });
  test('agent labels: aliases, bare main acts completed', () => {
    const cases: [string, string | undefined][] = [
      ['REVEAL', 'Reveal.Show'],
      ['INQUIRE.ELICIT', 'Inquire.Elicit'],
      ['DISCLOSE.MORE', 'Explain'],
      ['recommend', 'Reveal.Show'],
      ['chit_chat', undefined],
    ];
    for (const [label, expected] of cases) assert.equal(toAgentAct(label, aliases), expected, label);
  });
  test('QRFA classes follow Table 2', () => {
    for (const a of ['Disclose', 'Reveal.Refine', 'Inquire.List', 'Navigate.Repeat'])
      assert.equal(qrfaUserClass(a), 'Query', a);
    for (const a of ['Navigate.Back', 'Navigate.More', 'Note.Like', 'Complete'])
      assert.equal(qrfaUserClass(a), 'Feedback', a);
    for (const a of ['Inquire.Elicit', 'Inquire.Clarify', 'Suggest']) assert.equal(qrfaAgentClass(a), 'Request', a);
    for (const a of ['Reveal.Show', 'Traverse.More', 'Explain', 'Traverse.End'])
      assert.equal(qrfaAgentClass(a), 'Answer', a);
  });
  test('ConvApparel names for metrics', () => {
    assert.equal(toConvApparelUserAct('Note.Accept'), 'accept_recommendation');
    assert.equal(toConvApparelUserAct('Reveal.Revise'), 'critique');
    assert.equal(toConvApparelUserAct('Disclose.NonDisclose', true), 'greet_thank');
    assert.equal(toConvApparelUserAct('Disclose.NonDisclose', false), 'other');
  });
});

/** A canonical conversation from (speaker, label) pairs, one utterance per pair, as the importers produce. */
function conv(steps: ['u' | 'a', string][]): Conversation {
  const turns: Conversation['turns'] = [];
  let turn: Conversation['turns'][number] | undefined;
  for (const [who, label] of steps) {
    if (who === 'u' || !turn || turn.assistant_utterance !== undefined) {
      turn = { annotations: [] };
      turns.push(turn);
    }
    if (who === 'u') turn.user_utterance = label;
    else turn.assistant_utterance = label;
    turn.annotations!.push({ speaker: who === 'u' ? 'user' : 'assistant', annotator: 'source', acts: [label] });
  }
  return { turns };
}

describe('estimateTransitions', () => {
  test('counts a small corpus exactly', () => {
    const c = estimateTransitions([
      conv([
        ['a', 'INQUIRE.ELICIT'],
        ['u', 'DISCLOSE'],
        ['a', 'REVEAL'],
        ['u', 'NOTE.LIKE'],
        ['a', 'END'],
        ['u', 'COMPLETE'],
      ]),
      conv([
        ['u', 'DISCLOSE'],
        ['a', 'INQUIRE.ELICIT'],
        ['u', 'DISCLOSE'],
        ['a', 'REVEAL'],
        ['u', 'INQUIRE.SIMILAR'],
      ]),
    ]);
    assert.equal(c.dialogues, 2);
    assert.deepEqual(c.cir6, {
      Start: { Disclose: 2 },
      Disclose: { Note: 1, Disclose: 1, Inquire: 1 },
      Note: { Complete: 1 },
      Complete: { Stop: 1 },
      Inquire: { Stop: 1 },
    });
    assert.deepEqual(c.agent_user, {
      'Inquire.Elicit': { Disclose: 2 },
      'Reveal.Show': { 'Note.Like': 1, 'Inquire.Similar': 1 },
      'Traverse.End': { Complete: 1 },
    });
    assert.deepEqual(c.qrfa, {
      Start: { Request: 1, Query: 1 },
      Request: { Query: 2 },
      Query: { Answer: 2, Request: 1, Stop: 1 },
      Answer: { Feedback: 2, Query: 1 },
      Feedback: { Answer: 1, Stop: 1 },
    });
    assert.deepEqual(c.sub_acts.Disclose, { Disclose: 3 });
    assert.deepEqual(c.qrfa_fine.Feedback, { 'Note.Like': 1, Complete: 1 });
  });

  test('skips conversations without user acts and unmapped labels', () => {
    const c = estimateTransitions([
      conv([
        ['a', 'REVEAL'],
        ['u', 'OTH'],
      ]),
      { turns: [{ user_utterance: 'hi' }] },
    ]);
    assert.equal(c.dialogues, 0);
    assert.deepEqual(c.cir6, {});
  });

  test('MovieBot corpus: counts equal a hand computation over the raw JSON', async () => {
    const file = path.join(FIXTURES, 'datasets/usersimcrs-moviebot/annotated_dialogues.json');
    const raw = JSON.parse(readFileSync(file, 'utf8')) as {
      conversation: { participant: string; dialogue_acts: { intent: string }[] }[];
    }[];
    // Hand computation: user main act = first segment of the intent, capitalised; agent labels by this table.
    const agentMain: Record<string, string> = {
      REVEAL: 'Reveal.Show',
      'REVEAL.SIMILAR': 'Reveal.Similar',
      'REVEAL.NONE': 'Reveal.Subset',
      'INQUIRE.ELICIT': 'Inquire.Elicit',
      'INQUIRE.NEXT': 'Inquire.Elicit',
      'INQUIRE.MORE': 'Inquire.Clarify',
      'DISCLOSE.NON-DISCLOSE': 'Inquire.Elicit',
      'DISCLOSE.MORE': 'Explain',
      FAILED: 'Traverse.Repeat',
      END: 'Traverse.End',
    };
    const cap = (s: string) => s.charAt(0) + s.slice(1).toLowerCase();
    const cir6: Record<string, Record<string, number>> = {};
    const agentUser: Record<string, Record<string, number>> = {};
    const qrfa: Record<string, Record<string, number>> = {};
    const add = (t: Record<string, Record<string, number>>, a: string, b: string) => {
      t[a] ??= {};
      t[a][b] = (t[a][b] ?? 0) + 1;
    };
    for (const d of raw) {
      let prevUser = 'Start';
      let prevClass = 'Start';
      let prevAgent: string | undefined;
      for (const u of d.conversation) {
        const intent = u.dialogue_acts[0].intent;
        if (u.participant === 'USER') {
          const main = cap(intent.split('.')[0]);
          add(cir6, prevUser, main);
          prevUser = main;
          if (prevAgent) add(agentUser, prevAgent, main);
          prevAgent = undefined;
          const cls = main === 'Note' || main === 'Complete' ? 'Feedback' : 'Query';
          add(qrfa, prevClass, cls);
          prevClass = cls;
        } else {
          const mapped = agentMain[intent];
          assert.ok(mapped, `hand table lacks ${intent}`);
          prevAgent = mapped;
          const cls = mapped.startsWith('Inquire') ? 'Request' : 'Answer';
          add(qrfa, prevClass, cls);
          prevClass = cls;
        }
      }
      add(cir6, prevUser, 'Stop');
      add(qrfa, prevClass, 'Stop');
    }
    const imported = await importFile(file);
    const counts = estimateTransitions(imported.conversations);
    assert.equal(counts.dialogues, raw.length);
    assert.deepEqual(counts.cir6, cir6);
    assert.deepEqual(counts.qrfa, qrfa);
    const byMain: Record<string, Record<string, number>> = {};
    for (const [agent, row] of Object.entries(counts.agent_user))
      for (const [user, n] of Object.entries(row)) for (let i = 0; i < n; i++) add(byMain, agent, mainAct(user));
    assert.deepEqual(byMain, agentUser);
    // Spot checks written out by hand from the file.
    assert.equal(cir6.Start.Disclose, 8);
    assert.equal(cir6.Complete.Stop, 8);
  });
});

describe('TransitionModel', () => {
  test('CIR6 probabilities are smoothed over the allowed successors only', () => {
    const counts = defaultTransitionCounts();
    const m = new TransitionModel(counts, { alpha: 1 });
    // Start allows Disclose and Inquire: (18+1)/(20+2) and (2+1)/(20+2).
    assert.ok(Math.abs(m.cir6Probability('Start', 'Disclose') - 19 / 22) < 1e-12);
    assert.ok(Math.abs(m.cir6Probability('Start', 'Inquire') - 3 / 22) < 1e-12);
    assert.equal(m.cir6Probability('Start', 'Complete'), 0);
    assert.equal(m.cir6Probability('Complete', 'Stop'), 1);
    let total = 0;
    for (const to of ['Disclose', 'Reveal', 'Inquire', 'Navigate', 'Note', 'Complete', 'Stop'])
      total += m.cir6Probability('Note', to);
    assert.ok(Math.abs(total - 1) < 1e-12);
  });

  test('counts outside the diagram are ignored', () => {
    const counts = defaultTransitionCounts();
    counts.cir6.Disclose.Complete = 1000;
    const m = new TransitionModel(counts);
    assert.equal(m.cir6Probability('Disclose', 'Complete'), 0);
  });

  test('sampling with a fixed seed matches the probabilities and repeats exactly', () => {
    const m = new TransitionModel(defaultTransitionCounts());
    const draw = (seed: number) => {
      const rng = createRng(seed);
      return Array.from({ length: 20000 }, () => m.nextCir6('Note', rng));
    };
    const a = draw(5);
    assert.deepEqual(a, draw(5));
    assert.notDeepEqual(a.slice(0, 50), draw(6).slice(0, 50));
    for (const to of ['Complete', 'Note', 'Disclose']) {
      const freq = a.filter((x) => x === to).length / a.length;
      assert.ok(
        Math.abs(freq - m.cir6Probability('Note', to)) < 0.015,
        `${to}: ${freq} vs ${m.cir6Probability('Note', to)}`,
      );
    }
  });

  test('replacement distribution falls back from the act to its main act to Other', () => {
    const m = new TransitionModel(defaultTransitionCounts(), { alpha: 0 });
    const own = m.replacementDistribution('Inquire.Elicit');
    assert.ok(probability(own, 'Disclose') > 0.7);
    const viaMain = m.replacementDistribution('Reveal.Unknown');
    assert.ok(probability(viaMain, 'Note.Like') > 0);
    const other = m.replacementDistribution('Gibberish');
    assert.deepEqual(other, m.replacementDistribution('Other'));
  });
});
