/**
 * Act label spelling: every act the simulator, the Zhang & Balog taxonomy and the alias file know
 * keeps its canonical spelling through `normalizeLabel` (a PascalCase rule alone turned
 * "Disclose.NonDisclose" into "Disclose.Nondisclose"), and the places that consume normalised
 * labels (agreement with --map, transition estimation, simulation) see the canonical act.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Conversation } from '../../../src/core/model';
import { agreementFromConversations } from '../../../src/core/document/agreement';
import { ZHANG_BALOG_TAXONOMY, CIR6_USER_ACTIONS } from '../../../src/core/taxonomy';
import { TransitionModel, estimateTransitions } from '../../../src/core/sim/users/index';
import {
  AGENT_UNKNOWN,
  AGENT_ZB_ACTS,
  START,
  STOP,
  USER_FINE_ACTS,
  defaultActAliases,
  normalizeLabel,
  toAgentAct,
  toUserAct,
} from '../../../src/core/taxonomy/acts';
import { KeywordAgent, simulateOne, tinyCatalog, userEnv } from '../users/fixtures';

const aliases = defaultActAliases();

const KNOWN: string[] = [
  ...USER_FINE_ACTS,
  ...AGENT_ZB_ACTS,
  ...CIR6_USER_ACTIONS,
  ...ZHANG_BALOG_TAXONOMY.user,
  ...ZHANG_BALOG_TAXONOMY.assistant,
  START,
  STOP,
  AGENT_UNKNOWN,
  ...Object.values(aliases.user).filter(Boolean),
  ...Object.values(aliases.assistant).filter(Boolean),
];

/** "Disclose.NonDisclose" -> "disclose.non-disclose" (kebab case per segment). */
function kebab(act: string): string {
  return act
    .split('.')
    .map((s) => s.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase())
    .join('.');
}

describe('normalizeLabel keeps canonical act spellings', () => {
  test('every known act (Zhang & Balog, CIR6, simulator acts, alias targets) round-trips unchanged', () => {
    assert.ok(KNOWN.includes('Disclose.NonDisclose'));
    for (const act of KNOWN) assert.equal(normalizeLabel(act), act, act);
  });
  test('lower, upper, kebab, snake and spaced variants map to the canonical spelling', () => {
    for (const act of KNOWN) {
      for (const variant of [
        act.toLowerCase(),
        act.toUpperCase(),
        kebab(act),
        kebab(act).replace(/-/g, '_'),
        ` ${kebab(act).toUpperCase()} `,
      ]) {
        assert.equal(normalizeLabel(variant), act, `${variant} -> ${act}`);
      }
    }
    assert.equal(normalizeLabel('DISCLOSE.NON-DISCLOSE'), 'Disclose.NonDisclose');
    assert.equal(normalizeLabel('disclose.nondisclose'), 'Disclose.NonDisclose');
    assert.equal(normalizeLabel('TRAVERSE.END'), 'Traverse.End');
  });
  test('unknown labels fall back to PascalCase per dotted segment', () => {
    assert.equal(normalizeLabel('foo.bar-baz'), 'Foo.BarBaz');
    assert.equal(normalizeLabel('SOMETHING.ELSE'), 'Something.Else');
    assert.equal(normalizeLabel('reveal.brand_new'), 'Reveal.BrandNew');
  });
  test('toUserAct / toAgentAct return canonical acts for any spelling', () => {
    assert.equal(toUserAct('Disclose.NonDisclose', aliases), 'Disclose.NonDisclose');
    assert.equal(toUserAct('disclose.non_disclose', aliases), 'Disclose.NonDisclose');
    assert.equal(toUserAct('IQU', aliases), 'Disclose.NonDisclose');
    assert.equal(toAgentAct('traverse.record', aliases), 'Traverse.Record');
  });
});

describe('agreement --map across IARD and Zhang & Balog', () => {
  test('IQU vs Disclose.NonDisclose is an agreement (kappa 1.0)', () => {
    const conv: Conversation = {
      id: 'c1',
      turns: [
        {
          user_utterance: 'whatever you like',
          assistant_utterance: 'ok',
          annotations: [
            { speaker: 'user', annotator: 'ann_iard', taxonomy: 'iard', acts: ['IQU'] },
            { speaker: 'user', annotator: 'ann_zb', taxonomy: 'zhang-balog', acts: ['Disclose.NonDisclose'] },
          ],
        },
        {
          user_utterance: 'I like comedies',
          assistant_utterance: 'ok',
          annotations: [
            { speaker: 'user', annotator: 'ann_iard', taxonomy: 'iard', acts: ['PRO'] },
            { speaker: 'user', annotator: 'ann_zb', taxonomy: 'zhang-balog', acts: ['Disclose'] },
          ],
        },
      ],
    } as Conversation;
    const r = agreementFromConversations([conv], { map: true });
    assert.equal(r.reports.length, 1);
    const rep = r.reports[0];
    assert.equal(rep.primaryKappa, 1);
    assert.deepEqual(
      rep.perAct.map((a) => a.act),
      ['Disclose', 'Disclose.NonDisclose'],
    );
    for (const a of rep.perAct) assert.equal(a.kappa, 1, a.act);
  });
});

describe('simulation from a corpus labelled with Disclose.NonDisclose', () => {
  /** A corpus whose openers are non-disclosures, spelled as the alias file and in lower case. */
  function corpus(): Conversation[] {
    const out: Conversation[] = [];
    for (let i = 0; i < 12; i++) {
      const u = (acts: string[]) => ({ speaker: 'user' as const, annotator: 'source', taxonomy: 'zhang-balog', acts });
      const a = (acts: string[]) => ({
        speaker: 'assistant' as const,
        annotator: 'source',
        taxonomy: 'zhang-balog',
        acts,
      });
      out.push({
        id: `z${i}`,
        turns: [
          {
            user_utterance: 'hi',
            assistant_utterance: 'what do you like?',
            annotations: [u([i % 2 ? 'disclose.nondisclose' : 'Disclose.NonDisclose']), a(['Inquire.Elicit'])],
          },
          {
            user_utterance: 'anything',
            assistant_utterance: 'any colour?',
            annotations: [u(['Disclose.NonDisclose']), a(['Inquire.Elicit'])],
          },
          {
            user_utterance: 'red',
            assistant_utterance: 'how about this?',
            annotations: [u(['Disclose']), a(['Reveal.Show'])],
          },
          {
            user_utterance: 'great, I take it',
            assistant_utterance: 'enjoy',
            annotations: [u(['Note.Accept']), a(['Traverse.End'])],
          },
          { user_utterance: 'bye', annotations: [u(['Complete'])] },
        ],
      } as Conversation);
    }
    return out;
  }

  test('the estimated model stores the canonical sub-act', () => {
    const counts = estimateTransitions(corpus());
    assert.deepEqual(Object.keys(counts.sub_acts.Disclose).sort(), ['Disclose', 'Disclose.NonDisclose']);
    assert.equal(counts.sub_acts.Disclose['Disclose.NonDisclose'], 24);
  });

  test('simulated user turns plan and record Disclose.NonDisclose', async () => {
    const catalog = tinyCatalog();
    const transitions = new TransitionModel(estimateTransitions(corpus()));
    const env = userEnv(
      new KeywordAgent(catalog),
      { user: 'agenda', interaction: 'cir6', preferences: 'pkg' },
      { catalog, transitions },
      12,
    );
    const acts: string[] = [];
    const planned: string[] = [];
    for (let i = 0; i < 8; i++) {
      const conv = await simulateOne(env, i, 'nondisclose', i % 2 ? 'outerwear' : 'footwear');
      for (const t of conv.turns) {
        const tr = t.trace as Record<string, unknown> | undefined;
        if (typeof tr?.user_act === 'string') acts.push(tr.user_act);
        if (typeof tr?.planned_act === 'string') planned.push(tr.planned_act);
      }
    }
    assert.ok(acts.includes('Disclose.NonDisclose'), `no Disclose.NonDisclose turn in ${acts.join(', ')}`);
    for (const a of [...acts, ...planned]) assert.ok(KNOWN.includes(a), `non-canonical act ${a}`);
    assert.ok(!planned.includes('Disclose.Nondisclose'));
  });
});
