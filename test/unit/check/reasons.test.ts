/**
 * push-reason-holds and reflected-opinions-hold (fifteenth round): a built-in user's push reason is
 * read against the conversation, and a PEPPER user's reflected opinions against its snapshot and
 * words. Each rule: a conversation where it is false (a violation) and one where it holds (clean).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { InvariantChecker } from '../../../src/core/check/index';
import { checkOptionsFromRun } from '../../../src/core/run/checkOptions';
import type { Conversation, RecommendedItem, SimulatorTrace } from '../../../src/core/model';
import { conv, findingOf, item, turn } from './helpers';

function violations(id: string, c: Conversation, options = {}): string[] {
  const f = findingOf(id, c, options);
  assert.ok(f, `${id} should apply`);
  return f.violations.map((v) => `${v.turn}: ${v.detail}`);
}

const goal = { constraints: { category: 'footwear', colour: 'navy' }, requests: [], disclosed: ['category', 'colour'] };
const navy = item('A', { colour: 'navy', type: 'boots' });
const black = item('B', { colour: 'black', type: 'boots' });
const red = item('C', { colour: 'red', type: 'heels' });

/** An agenda conversation: the user says navy, the agent shows `shown` (acts `acts`), the user pushes with `reason`. */
function agendaPush(
  reason: string | undefined,
  shown: RecommendedItem[],
  acts = ['Reveal.Show'],
  before: Partial<SimulatorTrace> = {},
): Conversation {
  return conv([
    turn(
      'Something navy.',
      {
        operation: 'init',
        user_act: 'Disclose',
        said: { constraints: { colour: 'navy' } },
        goal,
        patience: 3,
        ...before,
      },
      shown,
      'Here you go.',
    ),
    turn('Not what I asked.', {
      operation: 'push',
      ...(reason ? { push_reason: reason } : {}),
      user_act: 'Reveal.Revise',
      goal,
      patience: 2,
      nlu: { agent_act: acts[0], source: 'reported', acts } as SimulatorTrace['nlu'],
    }),
  ]);
}

describe('push-reason-holds (agenda)', () => {
  test('"none of the first items has colour=navy" is false when a first item is navy', () => {
    const v = violations(
      'push-reason-holds',
      agendaPush('none of the first items has colour=navy', [black, navy, red]),
    );
    assert.match(v.join(), /1: push reason .* does not hold: "?A"? has colour=navy/);
    assert.deepEqual(
      violations('push-reason-holds', agendaPush('none of the first items has colour=navy', [black, red, red])),
      [],
    );
  });

  test('a push without a reason is a violation', () => {
    assert.match(violations('push-reason-holds', agendaPush(undefined, [black])).join(), /without a reason/);
  });

  test('"X does not answer Y" is judged by the answers table: the default, or the run\'s own', () => {
    // Reveal.Show answers Disclose in the default table (appropriate-answers.json)
    const c = agendaPush('Reveal.Show does not answer Disclose', [black, red]);
    assert.match(violations('push-reason-holds', c).join(), /Reveal\.Show answers Disclose/);
    // a run whose own table does not list it: the reason holds
    assert.deepEqual(violations('push-reason-holds', c, { answers: { Disclose: ['Inquire.Elicit'] } }), []);
    // an act that does not answer it in the default table: the reason holds
    assert.deepEqual(
      violations('push-reason-holds', agendaPush('Traverse.End does not answer Disclose', [], ['Traverse.End'])),
      [],
    );
    // the act named must be the act read
    assert.match(
      violations(
        'push-reason-holds',
        agendaPush('Traverse.End does not answer Disclose', [black], ['Reveal.Show']),
      ).join(),
      /act read is "?Reveal\.Show/,
    );
    // a table the run used but the checker could not read: unchecked, not judged
    const checker = new InvariantChecker({ readback: false, only: ['push-reason-holds'], answers: null });
    checker.add(c);
    const r = checker.report().invariants[0];
    assert.equal(r.violations, 0);
    assert.match(JSON.stringify(r.unchecked), /answers/);
  });

  test('"the agent showed X again right after the user passed it over" needs X first, passed over on the turn before', () => {
    const passed = (shown: RecommendedItem[]) =>
      conv([
        turn(
          'Something navy.',
          { operation: 'init', user_act: 'Disclose', said: { constraints: { colour: 'navy' } }, goal, patience: 3 },
          [navy, black],
        ),
        turn(
          'Not that one.',
          {
            operation: 'pull',
            user_act: 'Note.Dislike',
            said: { items: ['A'] },
            goal,
            patience: 3,
            nlu: { agent_act: 'Reveal.Show', source: 'reported' },
          },
          shown,
        ),
        turn('Again?', {
          operation: 'push',
          push_reason: 'the agent showed A again right after the user passed it over',
          user_act: 'Reveal.Revise',
          goal,
          patience: 2,
          nlu: { agent_act: 'Reveal.Show', source: 'reported' },
        }),
      ]);
    assert.deepEqual(violations('push-reason-holds', passed([navy, red])), []);
    // the same item shown again, but not first: not the reason's re-show
    assert.match(violations('push-reason-holds', passed([red, navy])).join(), /first item shown is "?C/);
  });

  test('"every one of the first items has a value the user said it does not want" needs the value said and on every first item', () => {
    const c = (shown: RecommendedItem[], said = ['red']) =>
      agendaPush(
        'every one of the first items has a value the user said it does not want (red)',
        shown,
        ['Reveal.Show'],
        {
          said: { constraints: { colour: 'navy' }, negated: said },
        },
      );
    assert.deepEqual(violations('push-reason-holds', c([red, red])), []);
    assert.match(violations('push-reason-holds', c([red, black])).join(), /"?B"? has none of them/);
    assert.match(violations('push-reason-holds', c([red], ['black'])).join(), /never said it does not want/);
  });
});

/** The snapshot's opinion of an item of one value (navy liked, red disliked). */
const opinionOf = (r: RecommendedItem) =>
  r.attributes?.['colour'] === 'navy' ? 'like' : r.attributes?.['colour'] === 'red' ? 'dislike' : 'neutral';

/** A target-free conversation: the snapshot likes navy; the agent shows `first` then `second`; the user pushes with `reason`. */
function pepper(
  first: RecommendedItem[],
  second: RecommendedItem[],
  reason: string,
  reflected: Record<string, string>,
): Conversation {
  const snapshot = {
    kind: 'snapshot',
    model: 'pepper',
    liked_attributes: ['colour=navy'],
    disliked_attributes: ['colour=red'],
    item_ratings: {},
  };
  return conv(
    [
      turn(
        'Hi, footwear please.',
        {
          operation: 'init',
          user_act: 'Disclose',
          said: { constraints: { category: 'footwear' } },
          preferences: snapshot,
          patience: 3,
        } as SimulatorTrace,
        first,
      ),
      turn(
        'Not for me.',
        {
          operation: 'pull',
          user_act: 'Note.Dislike',
          patience: 3,
          nlu: { agent_act: 'Reveal.Show', source: 'reported' },
          preferences: {
            kind: 'delta',
            model: 'pepper',
            reflected: Object.fromEntries(first.map((r) => [r.item_id, opinionOf(r)])),
          },
        } as SimulatorTrace,
        second,
      ),
      turn('Same again?', {
        operation: 'push',
        push_reason: reason,
        user_act: 'Note.Dislike',
        patience: 2,
        nlu: { agent_act: 'Reveal.Show', source: 'reported' },
        preferences: { kind: 'delta', model: 'pepper', reflected },
      } as SimulatorTrace),
    ],
    { source: 'target-free' },
  );
}

describe('push-reason-holds (target-free)', () => {
  const reshown = 'the agent showed again the items the user just turned down';
  const r1 = item('R1', { colour: 'red' });
  const r2 = item('R2', { colour: 'red', type: 'heels' });
  const r3 = item('R3', { colour: 'red', type: 'boots' });
  const r4 = item('R4', { colour: 'red', type: 'flats' });
  test('the re-shown carousel is the first three items in the same order', () => {
    const refl = { R1: 'dislike', R2: 'dislike', R3: 'dislike' };
    assert.deepEqual(violations('push-reason-holds', pepper([r1, r2, r3, r4], [r1, r2, r3], reshown, refl)), []);
    // the same items in another order are not shown again as they were turned down
    assert.match(
      violations('push-reason-holds', pepper([r1, r2, r3, r4], [r2, r1, r3], reshown, refl)).join(),
      /same order/,
    );
    // the turned-down items at ranks 4-6 (browse depth 3) are not re-shown either
    assert.match(
      violations(
        'push-reason-holds',
        pepper([r1, r2, r3], [r4, r4, r4, r1, r2, r3], reshown, { R4: 'dislike' }),
      ).join(),
      /same order/,
    );
  });
  test('"none of the items shown is one the user likes" is false beside a reflected like', () => {
    const none = 'none of the items shown is one the user likes';
    assert.match(
      violations('push-reason-holds', pepper([r1], [navy], none, { A: 'like' })).join(),
      /reflects "?A"? as liked/,
    );
    assert.deepEqual(violations('push-reason-holds', pepper([r1], [r2], none, { R2: 'dislike' })), []);
  });
});

describe('reflected-opinions-hold', () => {
  const none = 'none of the items shown is one the user likes';
  test('an item with a liked value of the snapshot (and none disliked) is liked: neutral is a violation', () => {
    assert.match(
      violations('reflected-opinions-hold', pepper([red], [navy], none, { A: 'neutral' })).join(),
      /reflected "?neutral"? of "?A"?.* make like/,
    );
    assert.deepEqual(violations('reflected-opinions-hold', pepper([red], [navy], none, { A: 'like' })), []);
  });
  test('a disliked value makes a dislike, a seen item goes by its rating, its target is liked', () => {
    assert.deepEqual(violations('reflected-opinions-hold', pepper([black], [red], none, { C: 'dislike' })), []);
    assert.match(
      violations('reflected-opinions-hold', pepper([black], [red], none, { C: 'like' })).join(),
      /make dislike/,
    );
    const c = pepper([black], [red], none, { C: 'like' });
    (c.turns[0].trace!.preferences as Record<string, unknown>)['item_ratings'] = { C: 4 };
    assert.deepEqual(violations('reflected-opinions-hold', c), []);
    const t = pepper([black], [red], none, { C: 'neutral' });
    t.turns[2].trace!.target = { item_id: 'C' } as SimulatorTrace['target'];
    assert.match(violations('reflected-opinions-hold', t).join(), /make like \(its target\)/);
  });
  test('an item with a value the user said it is not keen on is not judged', () => {
    const c = pepper([black], [navy], none, { A: 'dislike' });
    c.turns[1].trace!.said = { negated: ['boots'] };
    assert.deepEqual(violations('reflected-opinions-hold', c), []);
  });
});

test("check reads the run's --answers table from its manifest (unreadable: null, those reasons unchecked)", () => {
  const dir = mkdtempSync(join(tmpdir(), 'simlens-answers-'));
  const run = join(dir, 'run.jsonl');
  const manifest = (answers: string) =>
    JSON.stringify({
      run_id: 'r',
      created: '2026-11-28T00:00:00.000Z',
      simlens_version: '0.1.0',
      node_version: 'v20',
      command: 'simlens simulate',
      config: { user: 'agenda', answers },
      seed: '1',
      counts: { planned: 1, finished: 1, failed: 0, agent_errors: 0, by_reason: {} },
      timings: { started: '2026-11-28T00:00:00.000Z' },
      status: 'finished',
    });
  writeFileSync(join(dir, 'answers.json'), JSON.stringify({ answers: { Disclose: ['Inquire.Elicit'] } }));
  writeFileSync(`${run}.manifest.json`, manifest(join(dir, 'answers.json')));
  assert.deepEqual(checkOptionsFromRun(run, () => {}).answers, { Disclose: ['Inquire.Elicit'] });
  const warned: string[] = [];
  writeFileSync(`${run}.manifest.json`, manifest(join(dir, 'gone.json')));
  assert.equal(checkOptionsFromRun(run, (m) => warned.push(m)).answers, null);
  assert.match(warned.join(), /answers table/);
});
