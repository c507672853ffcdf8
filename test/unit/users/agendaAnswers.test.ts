/**
 * An agenda user asked, with nothing on screen, about a value its goal holds and has not said
 * ("Any colour in mind?") answers it, rather than ask to see options (a planned Inquire). The
 * independent review of the eleventh round counted 65 of 447 unanswered questions of that kind in
 * two local-good configurations.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eachAgendaVsLocalGood } from './fixtures';
import { askedAttributes, questionSentences } from '../../../src/core/sim/users/phrases';

test('agenda users vs local-good: asked about an unsaid goal value with nothing on screen, they answer', async () => {
  let asked = 0;
  let answered = 0;
  const options: string[] = [];
  await eachAgendaVsLocalGood('answer-questions', 80, (conv, _config, catalog) =>
    conv.turns.forEach((turn, k) => {
      const before = conv.turns[k - 1];
      if (k === 0 || (before.recommendations ?? []).length) return;
      const goal = before.trace?.goal as { constraints?: Record<string, unknown>; disclosed?: string[] } | undefined;
      const open = askedAttributes(
        questionSentences(before.assistant_utterance ?? ''),
        catalog.attributeNames(),
      ).filter((a) => goal?.constraints?.[a] !== undefined && !(goal.disclosed ?? []).includes(a));
      if (!open.length) return;
      asked++;
      const said = turn.trace?.said?.constraints ?? {};
      if (open.some((a) => a in said)) answered++;
      if (String(turn.trace?.user_act).startsWith('Inquire'))
        options.push(`${conv.id} turn ${k}: ${turn.user_utterance} <= ${before.assistant_utterance}`);
    }),
  );
  assert.ok(asked >= 50, `only ${asked} such questions`);
  assert.deepEqual(options.slice(0, 5), [], `${options.length} of ${asked} answered by asking to see options`);
  assert.ok(answered > 0);
});
