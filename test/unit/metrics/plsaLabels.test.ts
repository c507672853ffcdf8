/**
 * PLSA act features from annotations in another taxonomy: mapped to ConvApparel user acts when a
 * mapping exists (IARD, Zhang & Balog), not computed (NaN, with a warning naming the taxonomy)
 * when none does, never a silent 0; and features constant in both populations are not tested.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Conversation } from '../../../src/core/model';
import { importFile } from '../../../src/core/importers';
import {
  conversationFeatures,
  featureTable,
  parseActSource,
  PLSA_DEFAULT_FEATURES,
} from '../../../src/core/metrics/features';
import { comparePopulations } from '../../../src/core/metrics/plsa';
import { plsaCandidateSummaries } from '../../../src/core/report/builders/plsa';
import { datasetPath } from '../../fixtures';

const SOURCE = parseActSource('source');

/** One conversation whose user turns the annotator `source` labelled with `acts` (one list per turn). */
function conv(id: string, acts: string[][], taxonomy?: string): Conversation {
  return {
    id,
    turns: acts.map((a, i) => ({
      user_utterance: `user turn ${i}`,
      assistant_utterance: 'ok',
      annotations: [{ speaker: 'user' as const, annotator: 'source', acts: a, ...(taxonomy ? { taxonomy } : {}) }],
    })),
  } as Conversation;
}

describe('act features from annotations in another taxonomy', () => {
  test('IARD labels are mapped to ConvApparel acts (taxonomy field or inferred)', () => {
    for (const tax of ['iard', undefined]) {
      const f = conversationFeatures(conv('i', [['OTH', 'IQU'], ['REJ', 'CRI-A'], ['ACC']], tax), { acts: SOURCE });
      assert.equal(f.actsMappedFrom, 'iard');
      assert.equal(f.values['act:accept_recommendation'], 1);
      assert.equal(f.values['act:reject_recommendation'], 1);
      assert.equal(f.values['act:critique'], 1);
      assert.equal(f.values['act:inform_preference'], 1);
      assert.equal(f.values['act:greet_thank'], 1);
      assert.equal(f.values['act:ACC'], undefined, 'raw IARD labels are not features');
    }
  });

  test('Zhang & Balog labels are mapped through toConvApparelUserAct, in any spelling', () => {
    const f = conversationFeatures(
      conv('z', [['disclose.non-disclose'], ['Disclose'], ['Note.Accept']], 'zhang-balog'),
      { acts: SOURCE },
    );
    assert.equal(f.actsMappedFrom, 'zhang-balog');
    assert.equal(f.values['act:greet_thank'], 1, 'a non-disclosing opener is a greeting');
    assert.equal(f.values['act:inform_preference'], 1);
    assert.equal(f.values['act:accept_recommendation'], 1);
  });

  test('ConvApparel labels are counted as they are', () => {
    const f = conversationFeatures(conv('c', [['inform_preference'], ['critique']], 'convapparel'), { acts: SOURCE });
    assert.equal(f.actsMappedFrom, undefined);
    assert.equal(f.actsUnmappedTaxonomy, undefined);
    assert.equal(f.values['act:critique'], 1);
  });

  test('a taxonomy without a mapping: ConvApparel act features not computed, warning names it', () => {
    const ref = [conv('m1', [['foo'], ['bar']], 'mytax'), conv('m2', [['foo']], 'mytax')];
    const cand = [conv('c1', [['inform_preference']], 'convapparel'), conv('c2', [['critique']], 'convapparel')];
    const f = conversationFeatures(ref[0], { acts: SOURCE });
    assert.equal(f.actsUnmappedTaxonomy, 'mytax');
    assert.ok(Number.isNaN(f.values['act:critique']));
    assert.equal(f.values['act:foo'], 1, 'its own labels still count');
    const features = ['num_turns', 'act:critique', 'act:inform_preference'];
    const rt = featureTable(ref, features, { acts: SOURCE });
    assert.match(
      rt.notes!.join('\n'),
      /2 of 2 conversation\(s\) are in the mytax taxonomy, which has no mapping to ConvApparel user acts: act:critique, act:inform_preference not computed/,
    );
    const report = comparePopulations(
      { file: 'ref', table: rt },
      [{ file: 'cand', table: featureTable(cand, features, { acts: SOURCE }) }],
      features,
    );
    const critique = report.comparisons.find((c) => c.feature === 'act:critique')!;
    assert.equal(critique.n_reference, 0);
    assert.ok(Number.isNaN(critique.mwu_p) && Number.isNaN(critique.reference_mean), 'not a silent 0');
    const w = report.warnings!.join('\n');
    assert.match(w, /^ref: user acts of 2 of 2 conversation\(s\) are in the mytax taxonomy/m);
    assert.match(
      w,
      /cand: 2 feature\(s\) not computed on one side \(no values\), left out of the counts: act:critique, act:inform_preference/,
    );
    assert.equal(plsaCandidateSummaries(report)[0].features, 1, 'only num_turns is tested');
  });

  test('the IARD gold set gives act counts, not zeros, and the report says which mapping was used', async () => {
    const r = await importFile(datasetPath('usersimcrs-iard-gold/formatted_IARD_annotated_gold.json'));
    const t = featureTable(r.conversations, PLSA_DEFAULT_FEATURES, { acts: SOURCE });
    const sum = (f: string) => t.values[f].reduce((s, v) => s + v, 0);
    // Per conversation the acts are a set per turn, so these are turns with the act.
    assert.ok(sum('act:accept_recommendation') > 100, String(sum('act:accept_recommendation')));
    assert.ok(sum('act:reject_recommendation') > 50);
    assert.ok(sum('act:critique') > 50);
    assert.match(
      t.notes!.join('\n'),
      /77 of 77 conversation\(s\) are in the iard taxonomy: IARD labels mapped to ConvApparel user acts \(IARD_TO_CONVAPPAREL/,
    );
  });
});

describe('features constant in both populations', () => {
  test('are not tested, not counted in "k of n", and named in the warnings', () => {
    const a = [
      conv('a1', [['inform_preference'], ['critique']]),
      conv('a2', [['inform_preference']]),
      conv('a3', [['critique'], ['critique'], ['other']]),
    ];
    const b = [
      conv('b1', [['inform_preference']]),
      conv('b2', [['critique'], ['inform_preference']]),
      conv('b3', [['other']]),
    ];
    const features = ['num_turns', 'act:critique', 'act:provide_feedback_negative', 'act:provide_feedback_positive'];
    const report = comparePopulations(
      { file: 'human', table: featureTable(a, features, { acts: SOURCE }) },
      [{ file: 'sim', table: featureTable(b, features, { acts: SOURCE }) }],
      features,
    );
    const neg = report.comparisons.find((c) => c.feature === 'act:provide_feedback_negative')!;
    assert.equal(neg.untested, 'constant');
    assert.equal(neg.reference_mean, 0);
    assert.equal(neg.candidate_mean, 0);
    assert.ok(Number.isNaN(neg.mwu_p) && Number.isNaN(neg.ks_statistic));
    const crit = report.comparisons.find((c) => c.feature === 'act:critique')!;
    assert.equal(crit.untested, undefined);
    assert.ok(Number.isFinite(crit.mwu_p));
    const s = plsaCandidateSummaries(report)[0];
    assert.equal(s.features, 2, 'num_turns and critique are tested; the two constant features are not');
    assert.match(
      report.warnings!.join('\n'),
      /sim: 2 feature\(s\) constant in both populations not tested .*act:provide_feedback_negative \(0\), act:provide_feedback_positive \(0\)/,
    );
  });

  test('a constant that differs between the populations is still tested', () => {
    const a = [conv('a1', [['critique']]), conv('a2', [['critique']])];
    const b = [conv('b1', [['other']]), conv('b2', [['other']])];
    const report = comparePopulations({ file: 'human', table: featureTable(a, ['act:critique'], { acts: SOURCE }) }, [
      { file: 'sim', table: featureTable(b, ['act:critique'], { acts: SOURCE }) },
    ]);
    assert.equal(report.comparisons[0].untested, undefined);
    assert.equal(report.comparisons[0].ks_statistic, 1);
    assert.equal(report.warnings, undefined);
  });
});
