/**
 * Issue 21 (review problems A, B, E, G), checked over generated conversations (simulate's own
 * environment: the generated apparel catalog, local-good and local-bad, with and without meta):
 * - B/E: an item question (Navigate about a shown item) is answered only when the agent's next
 *   text says the item's value of the requested attribute (a price for the price band) outside
 *   the item's title; only then is the request fulfilled. An unanswered question is a push (unless
 *   what the user came for is on screen) and goes back on the agenda; a value the item's title
 *   shows is read off the card, never asked;
 * - A: a user that ends `completed` has no request pending, was shown what it came for, and lost
 *   no patience; one that leaves otherwise with patience left ends `gave_up`;
 * - G: a carousel the agent only keeps on screen while it asks (same items, no showing act) is not
 *   "shown again right after the user passed it over": no push, and no satisfaction gained.
 * The value matcher here is the test's own (word forms written out), not the user's.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Conversation, SimulatorTrace } from '../../../src/core/model';
import {
  parseSimulationConfig,
  prepareEnvironment,
  simulateConversation,
  type SimulationConfigInput,
  type SimulationEnvironment,
} from '../../../src/core/run/index';
import { UNANSWERED_REASON } from '../../../src/core/sim/users/agenda/agendaUser';

type Loose = Record<string, unknown>;

async function* run(
  config: Omit<SimulationConfigInput, 'n'>,
  n: number,
): AsyncGenerator<[Conversation, SimulationEnvironment]> {
  const env = await prepareEnvironment(parseSimulationConfig({ ...config, n }));
  for (let i = 0; i < n; i++) {
    const { conversation, failed } = await simulateConversation(env, i);
    assert.equal(failed, false, String(conversation.metadata?.error));
    yield [conversation, env];
  }
}

const CONFIGS: Omit<SimulationConfigInput, 'n'>[] = [];
for (const agent of ['local-good', 'local-bad'] as const)
  for (const meta of [undefined, 'tol'] as const)
    for (const [interaction, preferences] of [
      ['cir6', 'single'],
      ['qrfa', 'pkg'],
    ] as const)
      CONFIGS.push({ user: 'agenda', interaction, preferences, agent, meta, seed: 'agenda-requests' });
const PER_CONFIG = 150;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The forms of a catalog value a reader takes as saying it ("party": parties; "lounge": lounging; "women": women's). */
function says(text: string, value: string): boolean {
  const forms = [value, `${value}s`, `${value}es`, `${value}'s`];
  if (value.endsWith('y')) forms.push(`${value.slice(0, -1)}ies`);
  if (value.endsWith('e')) forms.push(`${value.slice(0, -1)}ing`);
  return forms.some((f) => new RegExp(`(?<![\\p{L}\\p{N}])${escape(f)}(?![\\p{L}\\p{N}])`, 'iu').test(text));
}
/** The statements of a text (its sentences without "?") with the item's title taken out. */
const withoutTitle = (text: string, title: string) =>
  text
    .split(/(?<=[.!?])\s+/)
    .filter((s) => !s.includes('?'))
    .join(' ')
    .split(title)
    .join(' ');
const pending = (t: SimulatorTrace | undefined) =>
  (t?.goal?.requests ?? []).filter((r) => !(t?.goal?.fulfilled_requests ?? []).includes(r));
const top = (c: Conversation, k: number, n = 3) => (c.turns[k].recommendations ?? []).slice(0, n).map((r) => r.item_id);

describe('agenda users: item questions, endings, a carousel kept on screen', () => {
  test(
    `${CONFIGS.length} configurations x ${PER_CONFIG}: item questions are answered only by the asked value; completed users were served; a kept carousel costs no patience`,
    {
      timeout: 300_000,
    },
    async () => {
      let answered = 0;
      let unanswered = 0;
      let unansweredPushed = 0;
      let reAsked = 0;
      let completed = 0;
      let gaveUpPending = 0;
      let gaveUpNeverShown = 0;
      let kept = 0;
      for (const config of CONFIGS) {
        for await (const [c, env] of run(config, PER_CONFIG)) {
          const ts = c.turns.map((t) => t.trace!);
          const item = (id: string) => env.catalog.get(id)!;
          const meetsGoal = (id: string, goal: Record<string, unknown>) => {
            const it = env.catalog.get(id);
            return (
              it !== undefined &&
              Object.entries(goal).every(([k, v]) => (k === 'category' ? it.category === v : it.attributes[k] === v))
            );
          };
          for (let k = 1; k < ts.length; k++) {
            const tr = ts[k];
            const where = `${c.id} turn ${k}`;
            // B/E: the Navigate of turn k asks the first pending request of its own goal snapshot.
            if (tr.user_act === 'Navigate' && tr.said?.items?.length && k + 1 < ts.length) {
              const asked = item(tr.said.items[0]);
              const attr = pending(tr)[0];
              assert.ok(attr !== undefined, `${where}: an item question with no request pending`);
              const value = asked.attributes[attr];
              if (attr !== 'price_band')
                assert.ok(!says(asked.title, value), `${where}: asks ${attr} of "${asked.title}", which shows it`);
              const text = withoutTitle(c.turns[k].assistant_utterance ?? '', asked.title);
              const next = ts[k + 1];
              const ok = attr === 'price_band' ? /\$\s?\d/.test(text) || says(text, value) : says(text, value);
              const fulfilled = (next.goal?.fulfilled_requests ?? []).includes(attr);
              // or read off the card of the item the next item question asks about (rule 6: "A
              // value the card shows is read, not asked")
              const nextItem = next.user_act === 'Navigate' ? next.said?.items?.[0] : undefined;
              const cardValue = nextItem !== undefined ? item(nextItem).attributes[attr] : undefined;
              const card = nextItem !== undefined && !!cardValue && says(item(nextItem).title, cardValue);
              assert.equal(
                fulfilled,
                ok || (card && attr !== 'price_band'),
                `${where}: ${attr}=${value} "${text}" -> fulfilled ${fulfilled}`,
              );
              if (ok) answered++;
              else {
                unanswered++;
                if (next.operation === 'pull') {
                  // Only what the user came for on screen outweighs the unanswered question.
                  const shown = top(c, k);
                  const target = (next as Loose)['target'] as { item_id: string } | undefined;
                  assert.ok(
                    target ? shown.includes(target.item_id) : shown.some((id) => meetsGoal(id, next.goal!.constraints)),
                    `${where}: unanswered ("${text}") yet a pull`,
                  );
                } else {
                  unansweredPushed++;
                  assert.equal(next.patience, (tr.patience ?? NaN) - 1, where);
                  if (String(next.push_reason).startsWith(UNANSWERED_REASON) && next.patience! > 0) {
                    assert.ok(
                      next.agenda?.includes('Navigate.Ask'),
                      `${where}: the question is not back on the agenda`,
                    );
                    reAsked++;
                  }
                }
              }
            }
            // G: the agent kept the carousel (same items, no showing act) right after the user passed its first item over.
            const prevIds = (c.turns[k - 1].recommendations ?? []).map((r) => r.item_id).join();
            const nowIds = (c.turns[k].recommendations ?? []).map((r) => r.item_id).join();
            const passed = ['Note.Dislike', 'Note.Seen', 'Note.Like'].includes(String(ts[k].user_act))
              ? ts[k].said?.items?.[0]
              : undefined;
            if (k + 1 < ts.length && passed && nowIds && nowIds === prevIds && top(c, k, 1)[0] === passed) {
              const next = ts[k + 1];
              const nextActs = ((next.nlu as Loose | undefined)?.['acts'] as string[] | undefined) ?? [
                next.nlu?.agent_act,
              ];
              if (!nextActs.includes('Reveal.Show')) {
                kept++;
                assert.ok(
                  !String(next.push_reason ?? '').includes('again right after'),
                  `${where}: pushed for a carousel kept on screen (${next.push_reason})`,
                );
                assert.ok((next.satisfaction ?? 0) <= (tr.satisfaction ?? 0), `${where}: satisfaction rose`);
              }
            }
          }
          // A: endings.
          const last = ts[ts.length - 1];
          const looked = new Set(c.turns.flatMap((_, k) => top(c, k)));
          const target = (last as Loose)['target'] as { item_id: string } | undefined;
          const served = target
            ? looked.has(target.item_id)
            : [...looked].some((id) => meetsGoal(id, last.goal?.constraints ?? {}));
          const reason = (last as Loose)['end_reason'];
          if (reason === 'completed') {
            completed++;
            assert.deepEqual(pending(last), [], `${c.id}: completed with a request pending`);
            assert.ok(served, `${c.id}: completed without ever being shown what it came for`);
            assert.equal(last.operation, 'pull', c.id);
            assert.deepEqual(last.agenda, [], c.id);
            assert.equal(last.patience, ts[0].patience, c.id);
          }
          if (reason === 'gave_up' && last.patience! > 0) {
            if (pending(last).length) gaveUpPending++;
            if (!served) gaveUpNeverShown++;
          }
        }
      }
      // Every rule had cases to judge (a counter that sees nothing proves nothing).
      const counts = {
        answered,
        unanswered,
        unansweredPushed,
        reAsked,
        completed,
        gaveUpPending,
        gaveUpNeverShown,
        kept,
      };
      // (Since the twelfth round local-good reads every turn-down, so it rarely keeps a carousel right
      // after one: the kept-carousel rule has its own scripted test, agendaKept.test.ts.)
      for (const [k, v] of Object.entries(counts))
        if (k !== 'kept') assert.ok(v >= 15, `${k}: only ${v} cases (${JSON.stringify(counts)})`);
    },
  );
});
