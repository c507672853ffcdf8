/**
 * Fifteenth round (issue 21, class 13): the agenda user's ways of leaving and its first words were
 * the thinnest of its wordings against local-bad, where a third of its turns leave or open
 * ("I'll stop here" in 38 % of give-up wordings, "I'll look elsewhere" / "this isn't working" in
 * 11 % of abandons, "can you help me" in 23 % of openings that state nothing). No trigram may
 * dominate them now; every wording still reads as leaving (localBye.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TemplateNlg } from '../../../src/core/sim/users/nlg';
import { createRng } from '../../../src/core/random';
import { tokenize } from '../../../src/core/text/tokenize';

const nlg = new TemplateNlg({ typoRate: 0 });
const fill = { category: 'tops', value: 'grey', item: 'the second one', attribute: 'colour' };

/** The most frequent word trigram of `n` wordings of `act`, and the share of wordings holding it. */
function topTrigram(act: string, n = 2000): [string, number] {
  const counts = new Map<string, number>();
  for (let s = 0; s < n; s++) {
    const words = tokenize(nlg.generate(act, fill, createRng(`${act}-${s}`)));
    const seen = new Set<string>();
    for (let i = 0; i + 2 < words.length; i++) seen.add(words.slice(i, i + 3).join(' '));
    for (const t of seen) counts.set(t, (counts.get(t) ?? 0) + 1);
  }
  const [top, count] = [...counts].sort((a, b) => b[1] - a[1])[0];
  return [top, count / n];
}

test('no trigram dominates the ways of leaving or the openings that state nothing', () => {
  for (const [act, most] of [
    ['Complete.Abandon', 0.1],
    ['Complete.GaveUp', 0.25],
    ['Disclose.NonDisclose.Open', 0.18],
  ] as const) {
    const [trigram, share] = topTrigram(act);
    assert.ok(share < most, `${act}: "${trigram}" in ${(share * 100).toFixed(1)} % of wordings`);
  }
});
