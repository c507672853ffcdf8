/**
 * The generic lead of a user turn ("Well, ...", "Hmm, ...") is drawn whatever the agent said last, so
 * it must not presuppose a question asked or a yes/no answer: an independent review of the twelfth
 * round counted 251 turns in 9,600 conversations opening "Good question," with no question answered
 * ("Good question, more please.") and turns like "Yes, I'll stop here. Bye." after "Would you like to
 * narrow these down by colour?".
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import templates from '../../../src/core/sim/users/nlg-templates.json';

test('the generic lead pool holds no wording that presupposes a question or answers one', () => {
  const lead = (templates as unknown as { pools: Record<string, string[]> }).pools['lead'];
  assert.ok(Array.isArray(lead) && lead.length > 20, 'the lead pool is where it was');
  const presuppose = /^(good question|yes|no|nope|exactly|of course|sure thing|that's right)\b/i;
  assert.deepEqual(
    lead.filter((l) => presuppose.test(l)),
    [],
  );
});
