/**
 * Each behavioural invariant on small hand-built conversations: one that violates it, one that
 * keeps it, and (where it matters) one that lacks the fields it needs (not applicable, not a pass).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  INVARIANTS,
  InvariantChecker,
  checkConversations,
  checkedInvariants,
  mentions,
  nothingCheckedReason,
  type Invariant,
  type ItemLookup,
} from '../../../src/core/check/index';
import type { Conversation, SimulatorTrace } from '../../../src/core/model';
import { conv, findingOf, item, turn } from './helpers';

function violations(id: string, c: Conversation, options = {}): string[] {
  const f = findingOf(id, c, options);
  assert.ok(f, `${id} should apply`);
  return f.violations.map((v) => `${v.turn}: ${v.detail}`);
}

function assertViolates(id: string, c: Conversation, pattern: RegExp, options = {}): void {
  const v = violations(id, c, options);
  assert.ok(
    v.some((x) => pattern.test(x)),
    `${id}: expected a violation matching ${pattern}, got ${JSON.stringify(v)}`,
  );
}

function assertClean(id: string, c: Conversation, options = {}): void {
  assert.deepEqual(violations(id, c, options), []);
}

const goal = (constraints: Record<string, string>, disclosed: string[]) => ({
  constraints: { category: 'footwear', ...constraints },
  requests: [],
  disclosed,
});

describe('mentions (value and title matching)', () => {
  test('case-insensitive, whole words, in order', () => {
    assert.equal(mentions('Something BLACK would be great.', 'black'), true);
    assert.equal(mentions('blackish', 'black'), false);
    assert.equal(mentions('I want date night shoes', 'date night'), true);
    assert.equal(mentions('night date', 'date night'), false);
  });
  test('allows the one typo of the NLG typo model, not a different word', () => {
    assert.equal(mentions('Something balck.', 'black'), true); // swap
    assert.equal(mentions('Something blak.', 'black'), true); // drop
    assert.equal(mentions('Something blaack.', 'black'), true); // double
    assert.equal(mentions('Something brack.', 'black'), false); // substitution
    assert.equal(mentions('Something rde.', 'red'), false); // short words are never typo'd
  });
});

describe('disclosed-value-stated', () => {
  test('a goal that marks a value disclosed which the opening never says is a violation', () => {
    const c = conv([
      turn('hi im looking for some footwear', { user_act: 'Disclose', goal: goal({ colour: 'black' }, ['colour']) }),
    ]);
    assertViolates('disclosed-value-stated', c, /^0: colour=black/);
  });
  test('an Expand that marks the goal value disclosed while stating another value is a violation', () => {
    const c = conv([
      turn('Hi, I need new footwear. Something black.', {
        goal: goal({ colour: 'black', material: 'knit' }, ['colour']),
      }),
      turn("I'm open to something in canvas too.", {
        user_act: 'Reveal.Expand',
        goal: goal({ colour: 'black', material: 'knit' }, ['colour', 'material']),
      }),
    ]);
    assertViolates('disclosed-value-stated', c, /^1: material=knit/);
  });
  test('said.constraints are checked against the text', () => {
    const c = conv([turn('Something red would be great.', { said: { constraints: { colour: 'black' } } })]);
    assertViolates('disclosed-value-stated', c, /colour=black \(said\)/);
  });
  test('values stated in the utterance (a typo allowed) are clean', () => {
    const c = conv([
      turn('Hi, I need new footwear. Something balck.', {
        goal: goal({ colour: 'black', material: 'knit' }, ['colour']),
      }),
      turn('Ideally in knit.', {
        goal: goal({ colour: 'black', material: 'knit' }, ['colour', 'material']),
        said: { constraints: { material: 'knit' } },
      }),
    ]);
    assertClean('disclosed-value-stated', c);
  });
  test('not applicable without goal or said', () => {
    assert.equal(findingOf('disclosed-value-stated', conv([turn('hello', { user_act: 'Disclose' })])), undefined);
  });
});

describe('no-end-before-recommendation', () => {
  const ended = (extra: Partial<SimulatorTrace> = {}, firstRecs?: ReturnType<typeof item>[]) =>
    conv(
      [
        turn('hi', { user_act: 'Disclose', patience: 3 }, firstRecs),
        turn('Thanks, bye!', { user_act: 'Complete', patience: 3, ...extra }),
      ],
      { outcome: 'ended' },
    );
  test('ending with patience left and nothing shown is a violation', () => {
    assertViolates('no-end-before-recommendation', ended(), /without having been shown any item; end_reason absent/);
  });
  test('an undocumented end_reason does not excuse it', () => {
    assertViolates(
      'no-end-before-recommendation',
      ended({ end_reason: 'agenda_empty' } as SimulatorTrace),
      /end_reason agenda_empty/,
    );
  });
  test('clean after a carousel, when patience ran out, or with a documented end_reason', () => {
    assertClean('no-end-before-recommendation', ended({}, [item('A', { colour: 'black' })]));
    assertClean('no-end-before-recommendation', ended({ user_act: 'Complete.Abandon', patience: 0 }));
    assertClean('no-end-before-recommendation', ended({ end_reason: 'max_turns' } as SimulatorTrace));
    assertClean('no-end-before-recommendation', ended({ end_reason: 'early_quit' } as SimulatorTrace));
  });
  test('not applicable when the run ended it (turn cap) or for human data', () => {
    const c = ended();
    c.metadata = { turn_cap: 2 };
    assert.equal(findingOf('no-end-before-recommendation', c), undefined);
    assert.equal(findingOf('no-end-before-recommendation', conv([turn('bye', undefined)])), undefined);
    assert.equal(
      findingOf('no-end-before-recommendation', conv([turn('bye', { user_act: 'Complete', patience: 3 })])),
      undefined,
    ); // no outcome
  });
});

describe('agenda-pull-order', () => {
  test('Complete pulled with acts still pending is a violation', () => {
    const c = conv([
      turn('hi', { operation: 'init', pulled: ['Disclose'], agenda: ['Complete', 'Note'] }),
      turn('bye', { operation: 'pull', pulled: ['Complete'], agenda: ['Note'], user_act: 'Complete' }),
    ]);
    assertViolates('agenda-pull-order', c, /^1: Complete pulled while 1 act\(s\) were pending: Note/);
  });
  test('a pull that is not the top of the agenda, or a push that edits it, is a violation', () => {
    const c = conv([
      turn('hi', { operation: 'init', pulled: ['Disclose'], agenda: ['Note', 'Complete'] }),
      turn('x', { operation: 'pull', pulled: ['Inquire'], agenda: ['Complete'] }),
      turn('y', { operation: 'push', pushed: ['Disclose'], agenda: [] }),
    ]);
    assertViolates('agenda-pull-order', c, /^1: pulled Inquire but the previous agenda's top was Note/);
    assertViolates('agenda-pull-order', c, /^2: a push changed the pending agenda/);
  });
  test('pulls in stack order, a push that keeps the agenda, Complete on an empty agenda: clean', () => {
    const c = conv([
      turn('hi', { operation: 'init', pulled: ['Disclose'], agenda: ['Note', 'Complete'] }),
      turn('x', { operation: 'pull', pulled: ['Note'], agenda: ['Complete'], user_act: 'Note.Like' }),
      turn('y', { operation: 'push', pushed: ['Inquire.List'], agenda: ['Complete'] }),
      turn('z', { operation: 'pull', pulled: ['Complete'], agenda: [] }),
    ]);
    assertClean('agenda-pull-order', c);
    const empty = conv([
      turn('hi', { operation: 'init', pulled: ['Disclose'], agenda: [] }),
      turn('bye', { operation: 'pull', pulled: ['Complete'], agenda: [] }),
    ]);
    assertClean('agenda-pull-order', empty);
  });
  // Fourteenth round: "no preference" on a question about what the goal lacks, the pulled act kept
  test('"no preference" answering a question only about attributes the goal lacks keeps the pulled act on top', () => {
    const g = goal({ category: 'tops', colour: 'black' }, ['category']);
    const asked = (question: string, pulled = 'Disclose', items = 0) =>
      conv([
        turn(
          'I need tops.',
          { operation: 'init', pulled: ['Disclose'], agenda: [pulled, 'Note', 'Complete'], goal: g },
          items ? [item('a', { colour: 'black' })] : undefined,
          question,
        ),
        turn("I don't mind.", {
          operation: 'pull',
          pulled: [pulled],
          user_act: 'Disclose.NonDisclose',
          planned_act: pulled,
          agenda: [pulled, 'Note', 'Complete'],
          goal: g,
          nlu: { agent_act: 'Inquire.Elicit', source: 'reported' },
        } as SimulatorTrace),
      ]);
    assertClean('agenda-pull-order', asked('Which type: shirts or blouses?'));
    assertClean('agenda-pull-order', asked('Which type: shirts or blouses?', 'Navigate'));
    // the goal holds the colour: "no preference" on it is no answer, and the pull must take the act
    assertViolates('agenda-pull-order', asked('Any colour in mind?'), /^1: after the pull the agenda is/);
    // no question; a revision; an opinion of items on screen: nothing waits
    assertViolates('agenda-pull-order', asked('Here you go.'), /^1: after the pull the agenda is/);
    assertViolates('agenda-pull-order', asked('Which type?', 'Reveal.Revise'), /^1: after the pull the agenda is/);
    assertViolates('agenda-pull-order', asked('Which type?', 'Note', 1), /^1: after the pull the agenda is/);
  });
});

describe('accepted-meets-constraints', () => {
  const carousel = () => [
    item('A', { colour: 'black' }, { title: 'Ridge Runner' }),
    item('B', { colour: 'red' }, { title: 'Calder Boot' }),
  ];
  const accepting = (utterance: string, extra: Partial<SimulatorTrace> = {}) =>
    conv(
      [
        turn('Something black.', { user_act: 'Disclose', goal: goal({ colour: 'black' }, ['colour']) }, carousel()),
        turn(utterance, { user_act: 'Note.Accept', goal: goal({ colour: 'black' }, ['colour']), agenda: [], ...extra }),
      ],
      { outcome: 'accepted' },
    );
  test('accepting an item without a disclosed value is a violation', () => {
    assertViolates(
      'accepted-meets-constraints',
      accepting("I'll take Calder Boot!"),
      /^1: accepted B: colour=red, disclosed black/,
    );
    assertViolates(
      'accepted-meets-constraints',
      accepting('perfect, ill take it', { said: { items: ['B'] } }),
      /accepted B/,
    );
  });
  test('said.constraints are what was disclosed (the goal may have changed silently)', () => {
    const c = accepting("I'll take Ridge Runner!");
    c.turns[0].trace!.said = { constraints: { colour: 'red' } };
    assertViolates('accepted-meets-constraints', c, /colour=black, disclosed red/);
  });
  test('a value taken back (the goal no longer counts it as disclosed) no longer binds the accepted item', () => {
    const c = conv(
      [
        turn(
          'Something black.',
          {
            user_act: 'Disclose',
            goal: goal({ colour: 'black' }, ['colour']),
            said: { constraints: { colour: 'black' } },
          },
          carousel(),
        ),
        turn('Actually, any colour is fine.', {
          user_act: 'Reveal.Expand',
          goal: goal({}, []),
          said: { constraints: {} },
        }),
        turn("I'll take Calder Boot!", { user_act: 'Note.Accept', goal: goal({}, []), agenda: [] }),
      ],
      { outcome: 'accepted' },
    );
    assertClean('accepted-meets-constraints', c);
    c.turns[1].trace!.goal = goal({ colour: 'black' }, ['colour']);
    c.turns[2].trace!.goal = goal({ colour: 'black' }, ['colour']);
    assertViolates('accepted-meets-constraints', c, /^2: accepted B: colour=red, disclosed black/);
  });
  test('an item from another category is a violation', () => {
    const c = accepting("I'll take Ridge Runner!");
    c.turns[0].recommendations![0].category = 'tops';
    assertViolates('accepted-meets-constraints', c, /category tops is not the task footwear/);
  });
  test('accepting a matching item (a typo in the title allowed) is clean', () => {
    assertClean('accepted-meets-constraints', accepting("I'll take Ridge Runer!"));
  });
  test('not applicable when the accepted item cannot be told', () => {
    assert.equal(findingOf('accepted-meets-constraints', accepting('perfect, ill take it')), undefined);
  });
});

describe('meta-consistent-with-target', () => {
  const catalog: ItemLookup = {
    get: (id) =>
      id === 'T'
        ? {
            item_id: 'T',
            title: 'Target Boot',
            category: 'footwear',
            attributes: { colour: 'black', material: 'leather' },
          }
        : undefined,
  };
  const meta = (constraints: Record<string, string>, said?: Record<string, string>) =>
    conv(
      [
        turn('Something black.', {
          target: { item_id: 'T', alternatives: ['T', 'U'] },
          goal: goal(constraints, Object.keys(constraints)),
          ...(said ? { said: { constraints: said } } : {}),
        }),
      ],
      { source: 'meta-tol(agenda-cir6-pkg)' },
    );
  test('a goal or a stated value that contradicts the target is a violation', () => {
    assertViolates('meta-consistent-with-target', meta({ colour: 'red' }), /goal colour=red but target T has black/, {
      catalog,
    });
    assertViolates(
      'meta-consistent-with-target',
      meta({ colour: 'black' }, { material: 'suede' }),
      /said material=suede but target T has leather/,
      { catalog },
    );
  });
  test('saying "not X" about a value the target has is a violation', () => {
    const negating = (negated: string[]) =>
      conv(
        [
          turn("I'm not keen on anything in leather.", {
            target: { item_id: 'T', alternatives: ['T'] },
            said: { constraints: {}, negated },
          }),
        ],
        { source: 'meta-tol(target-free)' },
      );
    assertViolates(
      'meta-consistent-with-target',
      negating(['leather']),
      /does not want leather but target T has material=leather/,
      { catalog },
    );
    assertClean('meta-consistent-with-target', negating(['suede']), { catalog });
  });
  test('a value said on an earlier turn and never revised must agree with the (switched) target, except on a leaving last turn', () => {
    const earlier = (act: string) =>
      conv(
        [
          turn('Something in suede.', {
            user_act: 'Disclose',
            target: { item_id: 'U', alternatives: ['T', 'U'] },
            said: { constraints: { material: 'suede' } },
          }),
          turn('Hmm.', {
            user_act: act,
            target: { item_id: 'T', alternatives: ['T', 'U'], switched_from: 'U' },
            goal: goal({ colour: 'black', material: 'suede' }, ['category', 'material']),
            said: { constraints: {} },
          }),
        ],
        { source: 'meta-tol(agenda-cir6-pkg)' },
      );
    const found = findingOf('meta-consistent-with-target', earlier('Navigate.More'), { catalog });
    assert.ok(
      found?.violations.some((v) => v.turn === 1 && /goal material=suede but target T has leather/.test(v.detail)),
      JSON.stringify(found),
    );
    // Without the goal, the earlier said value alone is enough (a target-free user's trace has none).
    const noGoal = earlier('Navigate.More');
    delete noGoal.turns[1].trace!.goal;
    assertViolates(
      'meta-consistent-with-target',
      noGoal,
      /said material=suede earlier and has not revised it, but target T has leather/,
      { catalog },
    );
    // Leaving at patience 0 on the switch turn, the user keeps what it said.
    const left = earlier('Complete.Abandon');
    const f = findingOf('meta-consistent-with-target', left, { catalog });
    assert.ok(!f?.violations.some((v) => v.turn === 1), JSON.stringify(f));
  });
  test('values of the target are clean', () => {
    assertClean('meta-consistent-with-target', meta({ colour: 'black', material: 'leather' }, { colour: 'black' }), {
      catalog,
    });
  });
  test('not applicable when the target cannot be resolved (no carousel, no catalog)', () => {
    assert.equal(findingOf('meta-consistent-with-target', meta({ colour: 'red' })), undefined);
  });
});

describe('no-silent-contradiction', () => {
  const saying = (...turns: [string, string, Record<string, string>, string[]?][]) =>
    conv(
      turns.map(([text, act, said, disclosed]) =>
        turn(text, { user_act: act, said: { constraints: said }, ...(disclosed ? { goal: goal({}, disclosed) } : {}) }),
      ),
    );
  test('a different value for an attribute already stated, on a turn that is not a revision, is a violation', () => {
    // sim-5-000004 of the reviewer's meta-tol target-free run: "for men", later "for unisex too".
    assertViolates(
      'no-silent-contradiction',
      saying(
        ['Hi! I usually go for things for men.', 'Disclose', { gender: 'men' }],
        ["Ideally it's for unisex too.", 'Reveal.Refine', { gender: 'unisex' }],
      ),
      /gender=unisex \(act Reveal.Refine\) contradicts the earlier men without a revision/,
    );
    assertViolates(
      'no-silent-contradiction',
      saying(
        ['Something grey would be great.', 'Disclose', { colour: 'grey' }],
        ["I like Boot, especially that it's black.", 'Note.Like', { colour: 'black' }],
      ),
      /colour=black \(act Note.Like\) contradicts the earlier grey/,
    );
  });
  test('a revision may change the value, and later turns are held to the new one', () => {
    const revised = saying(
      ['Something grey would be great.', 'Disclose', { colour: 'grey' }],
      ['Actually, make that green instead.', 'Reveal.Revise', { colour: 'green' }],
      ['Ideally green.', 'Disclose', { colour: 'green' }],
    );
    assertClean('no-silent-contradiction', revised);
    assertViolates(
      'no-silent-contradiction',
      saying(
        ['Something grey would be great.', 'Disclose', { colour: 'grey' }],
        ['Actually, make that green instead.', 'Reveal.Revise', { colour: 'green' }],
        ['Grey, please.', 'Disclose', { colour: 'grey' }],
      ),
      /colour=grey \(act Disclose\) contradicts the earlier green/,
    );
  });
  test('restating the same value (any case) is clean', () => {
    assertClean(
      'no-silent-contradiction',
      saying(['Something Grey.', 'Disclose', { colour: 'Grey' }], ['grey, please', 'Disclose', { colour: 'grey' }]),
    );
  });
  test('an Expand that drops the constraint from goal.disclosed takes it back; a goal that drops it on another act does not', () => {
    assertClean(
      'no-silent-contradiction',
      saying(
        ['Ideally beige.', 'Disclose', { colour: 'beige' }, ['category', 'colour']],
        ['the colour doesnt matter that much after all', 'Reveal.Expand', {}, ['category']],
        [
          "On second thought, I'd rather have something brown.",
          'Reveal.Revise',
          { colour: 'brown' },
          ['category', 'colour'],
        ],
      ),
    );
    // sim-5-000029 of the reviewer's meta-prob run: the switch drops colour from the goal silently.
    assertViolates(
      'no-silent-contradiction',
      saying(
        ['Something grey would be great.', 'Disclose', { colour: 'grey' }, ['category', 'colour']],
        ['Show me more.', 'Navigate.More', {}, ['category']],
        ["I'm after something orange.", 'Disclose', { colour: 'orange' }, ['category', 'colour']],
      ),
      /colour=orange \(act Disclose\) contradicts the earlier grey/,
    );
  });
  test('a relaxed attribute stays relaxed: stating it again (any value) without a revision is a violation', () => {
    // Review finding 7 of the tenth round: "any colour is fine", later "something brown" as a refinement.
    for (const value of ['brown', 'beige'])
      assertViolates(
        'no-silent-contradiction',
        saying(
          ['Ideally beige.', 'Disclose', { colour: 'beige' }, ['category', 'colour']],
          ['the colour doesnt matter that much after all', 'Reveal.Expand', {}, ['category']],
          ['Show me more.', 'Navigate.More', {}, ['category']],
          [`I'd like something ${value}.`, 'Reveal.Refine', { colour: value }, ['category', 'colour']],
        ),
        new RegExp(`^3: colour=${value} \\(act Reveal.Refine\\) requires again an attribute the user relaxed`),
      );
    // Relaxing another attribute, or stating the relaxed one again inside an Expand, is no re-require.
    assertClean(
      'no-silent-contradiction',
      saying(
        [
          'Ideally beige, in leather.',
          'Disclose',
          { colour: 'beige', material: 'leather' },
          ['category', 'colour', 'material'],
        ],
        ['any colour is fine', 'Reveal.Expand', {}, ['category', 'material']],
        ['beige or brown, both fine', 'Reveal.Expand', { colour: 'brown' }, ['category', 'material']],
        ['In leather, please.', 'Disclose', { material: 'leather' }, ['category', 'material']],
      ),
    );
  });
  test('not applicable without said values', () => {
    assert.equal(findingOf('no-silent-contradiction', conv([turn('hi', { user_act: 'Disclose' })])), undefined);
  });
});

describe('accepted-item-shown', () => {
  const boot = item('B1', { colour: 'black' });
  const shoe = item('S1', { colour: 'white' });
  test('a Note about an item after an agent turn that showed none is a violation (review finding 5)', () => {
    const c = conv([
      turn('boots, please', { user_act: 'Disclose' }, [boot, shoe], 'Here are two.'),
      turn('Which colour?', { user_act: 'Disclose' }, undefined, 'Which colour would you like?'),
      turn('I like Item B1.', { user_act: 'Note.Like', said: { constraints: {}, items: ['B1'] } }),
    ]);
    assertViolates(
      'accepted-item-shown',
      c,
      /^2: Note.Like speaks about B1, which the agent's last turn did not show \(it showed no items\)/,
    );
  });
  test('an item question about an item the last carousel does not hold is a violation; one it holds is clean', () => {
    const asking = (id: string) =>
      conv([
        turn('boots, please', { user_act: 'Disclose' }, [boot], 'Here is one.'),
        turn('more?', { user_act: 'Navigate.More' }, [shoe], 'Another one.'),
        turn('What style is it?', { user_act: 'Navigate', said: { constraints: {}, items: [id] } }),
      ]);
    assertViolates('accepted-item-shown', asking('B1'), /^2: Navigate speaks about B1/);
    assertClean('accepted-item-shown', asking('S1'));
  });
  test('an accept may take an item shown on any earlier turn, not one never shown', () => {
    const taking = (id: string) =>
      conv([
        turn('boots, please', { user_act: 'Disclose' }, [boot], 'Here is one.'),
        turn('Which colour?', { user_act: 'Disclose' }, undefined, 'Which colour?'),
        turn('I will take it.', { user_act: 'Note.Accept', said: { constraints: {}, items: [id] } }),
      ]);
    assertClean('accepted-item-shown', taking('B1'));
    assertViolates('accepted-item-shown', taking('X9'), /accepted X9, which no earlier carousel showed/);
  });
});

describe('negation-honoured', () => {
  const negating = (recs: ReturnType<typeof item>[], agent = 'local-good') =>
    conv([turn("I'm not keen on anything in leather.", { said: { negated: ['material=leather'] } }, recs)], { agent });
  const leather = item('L', { material: 'leather' });
  const others = ['A', 'B', 'C'].map((id) => item(id, { material: 'canvas' }));
  test('local-good showing a negated value in its top three is a violation', () => {
    assertViolates('negation-honoured', negating([others[0], leather, others[1]]), /item #2 L has material=leather/);
    assertViolates(
      'negation-honoured',
      conv([turn('not leather', { said: { negated: ['leather'] } }, [leather])]),
      /item #1 L/,
    );
  });
  test('the negated value below the top three, or not at all, is clean', () => {
    assertClean('negation-honoured', negating([...others, leather]));
  });
  test('other agents are not held to it', () => {
    assert.equal(findingOf('negation-honoured', negating([leather], 'local-bad')), undefined);
  });
});

describe('agent-error-on-failing-turn and agent-error-no-user-effect', () => {
  const copied = conv(
    [
      turn(
        'hi',
        { user_act: 'Disclose', patience: 3, error: 'timeout after 30000 ms', error_kind: 'agent_timeout' },
        undefined,
        '',
      ),
      turn('hello?', { user_act: 'Inquire.List', patience: 2, operation: 'push', error: 'timeout after 30000 ms' }),
    ],
    { outcome: 'ended' },
  );
  const clean = conv(
    [
      turn('hi', { user_act: 'Disclose', patience: 3 }),
      turn(
        'more?',
        { user_act: 'Navigate.More', patience: 3, error: 'HTTP 500', error_kind: 'agent_http' },
        undefined,
        '',
      ),
    ],
    { outcome: 'agent_error' },
  );
  test('an error copied to the next turn is a violation', () => {
    assertViolates('agent-error-on-failing-turn', copied, /^1: the error of turn 0 is repeated on turn 1/);
    assertViolates(
      'agent-error-on-failing-turn',
      copied,
      /^1: error .* on a turn with an assistant answer and no error_kind/,
    );
  });
  test('a conversation that goes on after a failure, costs patience or is not agent_error is a violation', () => {
    assertViolates(
      'agent-error-no-user-effect',
      copied,
      /^1: the conversation went on after the agent failed on turn 0/,
    );
    assertViolates('agent-error-no-user-effect', copied, /patience fell from 3 to 2/);
    assertViolates('agent-error-no-user-effect', copied, /outcome is ended/);
    assertViolates(
      'agent-error-no-user-effect',
      conv([turn('hi', { patience: 3 })], { outcome: 'agent_error' }),
      /no turn records the agent error/,
    );
  });
  test('the error on the failing last turn with outcome agent_error is clean', () => {
    assertClean('agent-error-on-failing-turn', clean);
    assertClean('agent-error-no-user-effect', clean);
  });
  test('not applicable without any failure', () => {
    const ok = conv([turn('hi', { patience: 3 })], { outcome: 'ended' });
    assert.equal(findingOf('agent-error-on-failing-turn', ok), undefined);
    assert.equal(findingOf('agent-error-no-user-effect', ok), undefined);
  });
});

describe('simulator-error-outcome', () => {
  const mutedTurn = turn(
    '',
    { operation: 'end', error: 'replies stayed empty after 3 attempts', error_kind: 'user_llm' },
    undefined,
    '',
  );
  test('a user failure recorded as a user outcome, or followed by more turns, is a violation', () => {
    assertViolates(
      'simulator-error-outcome',
      conv([turn('hi', { patience: 3 }), mutedTurn], {
        outcome: 'ended',
        metadata: { error: 'x', error_kind: 'user_llm' },
      }),
      /^1: the simulator failed \(user_llm\) but the outcome is ended/,
    );
    assertViolates(
      'simulator-error-outcome',
      conv([mutedTurn, turn('hi again', { patience: 3 })], {
        outcome: 'simulator_error',
        metadata: { error: 'x', error_kind: 'user_llm' },
      }),
      /^1: the conversation went on after the simulated user failed on turn 0/,
    );
    assertViolates(
      'simulator-error-outcome',
      conv([turn('hi', { patience: 3 })], {
        outcome: 'abandoned',
        metadata: { error: 'TypeError', error_kind: 'simulator_error' },
      }),
      /the simulator failed \(simulator_error\) but the outcome is abandoned/,
    );
    assertViolates(
      'simulator-error-outcome',
      conv([turn('hi', { patience: 3 })], { outcome: 'simulator_error' }),
      /outcome simulator_error but metadata.error_kind is absent/,
    );
  });
  test('the failure on the last turn with outcome simulator_error and its reason is clean; an agent failure is not its business', () => {
    assertClean(
      'simulator-error-outcome',
      conv([turn('hi', { patience: 3 }), mutedTurn], {
        outcome: 'simulator_error',
        metadata: { error: 'x', error_kind: 'user_llm' },
      }),
    );
    const agentFailure = conv(
      [turn('more?', { patience: 3, error: 'HTTP 500', error_kind: 'agent_http' }, undefined, '')],
      { outcome: 'agent_error', metadata: { error: 'HTTP 500', error_kind: 'agent_http' } },
    );
    assert.equal(findingOf('simulator-error-outcome', agentFailure), undefined);
    // …and a user failure is not the agent's: agent-error-no-user-effect leaves it alone.
    assert.equal(
      findingOf(
        'agent-error-no-user-effect',
        conv([turn('hi', { patience: 3 }), mutedTurn], {
          outcome: 'simulator_error',
          metadata: { error: 'x', error_kind: 'user_llm' },
        }),
      ),
      undefined,
    );
  });
});

describe('accept-ends-dialogue', () => {
  test('a dialogue that goes on after an accept, or keeps acts pending, is a violation', () => {
    const c = conv(
      [
        turn("I'll take it", { user_act: 'Note.Accept', agenda: ['Complete'] }),
        turn('bye', { user_act: 'Complete', agenda: [] }),
      ],
      { outcome: 'ended' },
    );
    assertViolates('accept-ends-dialogue', c, /^0: the dialogue went on for 1 turn/);
    assertViolates('accept-ends-dialogue', c, /^0: the agenda still holds Complete/);
  });
  test('outcome accepted without a final accept is a violation', () => {
    assertViolates(
      'accept-ends-dialogue',
      conv([turn('bye', { user_act: 'Complete' })], { outcome: 'accepted' }),
      /outcome accepted but the last user act is Complete/,
    );
  });
  test('a final accept with an empty agenda and outcome accepted is clean', () => {
    assertClean(
      'accept-ends-dialogue',
      conv([turn('hi', { user_act: 'Disclose' }), turn("I'll take it", { user_act: 'Note.Accept', agenda: [] })], {
        outcome: 'accepted',
      }),
    );
  });
});

describe('turn-cap and meta-turn-cap', () => {
  const turns = (n: number) => Array.from({ length: n }, (_, i) => turn(`u${i}`, { user_act: 'Inquire.List' }));
  test('more user turns than the cap is a violation', () => {
    assertViolates('turn-cap', conv(turns(3)), /3 user turns, cap 2/, { maxTurns: 2 });
    assertViolates('turn-cap', conv(turns(21)), /21 user turns, cap 20/);
    assertViolates(
      'meta-turn-cap',
      conv(turns(11), { source: 'meta-prob(agenda-cir6-pkg)' }),
      /11 user turns, AlterEval cap 10/,
    );
  });
  test('at the cap is clean', () => {
    assertClean('turn-cap', conv(turns(3)), { maxTurns: 3 });
    assertClean('meta-turn-cap', conv(turns(10), { source: 'meta-tol(target-free)' }));
  });
  test('not applicable: human data without a cap, non-meta sources for the AlterEval cap', () => {
    assert.equal(findingOf('turn-cap', conv([turn('hi', undefined)])), undefined);
    assert.equal(findingOf('meta-turn-cap', conv(turns(11))), undefined);
  });
});

describe('initial-agenda', () => {
  test('Disclose only sixth, or thirteen acts, is a violation', () => {
    assertViolates(
      'initial-agenda',
      conv([
        turn('x', {
          operation: 'init',
          pulled: ['Inquire.List'],
          agenda: ['Note', 'Note', 'Navigate', 'Note', 'Disclose'],
        }),
      ]),
      /no Disclose among the first 5 acts/,
    );
    assertViolates(
      'initial-agenda',
      conv([turn('x', { operation: 'init', pulled: ['Disclose'], agenda: Array(12).fill('Note') })]),
      /13 acts \(max 12\)/,
    );
  });
  test('Disclose within five and at most twelve acts is clean (a refined Disclose counts)', () => {
    assertClean(
      'initial-agenda',
      conv([
        turn('x', {
          operation: 'init',
          pulled: ['Inquire.List'],
          agenda: ['Note', 'Note', 'Disclose.NonDisclose', 'Complete'],
        }),
      ]),
    );
    assertClean(
      'initial-agenda',
      conv([turn('x', { operation: 'init', pulled: ['Disclose'], agenda: Array(11).fill('Note') })]),
    );
  });
  test('not applicable to users without an agenda (target-free)', () => {
    assert.equal(
      findingOf('initial-agenda', conv([turn('x', { operation: 'init', user_act: 'Disclose' })])),
      undefined,
    );
  });
});

// Issue 21, eleventh round (review finding 4): "none of these" about a carousel that is not there
describe('opinion-matches-preferences: no carousel turned down before any was shown', () => {
  const pepper: SimulatorTrace = { preferences: { kind: 'delta', model: 'pepper', reflected: {} } };
  test('a PEPPER user turning down "these" after agent turns without items is a violation', () => {
    const c = conv([
      turn('Some bottoms, please.', { user_act: 'Disclose' }),
      turn('Could you show me a few bottoms first?', { user_act: 'Inquire.List' }),
      turn('None of these are really what I had in mind.', { user_act: 'Disclose' }, [item('b1', {})]),
      turn('Sorry, none of these please me.', { ...pepper, user_act: 'Navigate.More' }),
    ]);
    assertViolates('opinion-matches-preferences', c, /^2: turns down a carousel before any item was shown/);
    assert.equal(findingOf('opinion-matches-preferences', c)!.violations.length, 1);
  });
});

describe('patience-non-increasing and abandon-at-zero', () => {
  test('patience that rises, or falls on a pull, is a violation', () => {
    const c = conv([
      turn('a', { patience: 3 }),
      turn('b', { patience: 2, operation: 'pull' }),
      turn('c', { patience: 3, operation: 'push' }),
    ]);
    assertViolates('patience-non-increasing', c, /^1: patience fell on a pull/);
    assertViolates('patience-non-increasing', c, /^2: patience rose from 2 to 3/);
  });
  test('a fall by one on a push is clean', () => {
    assertClean(
      'patience-non-increasing',
      conv([
        turn('a', { patience: 3 }),
        turn('b', { patience: 2, operation: 'push' }),
        turn('c', { patience: 2, operation: 'pull' }),
      ]),
    );
  });
  // Issue 21, eleventh round: a PEPPER user weighs a liked item once (docs/simulation.md)
  test('a PEPPER pull on a carousel whose liked items were all liked on an earlier one is a violation', () => {
    const pepper = (
      reflected: Record<string, 'like' | 'dislike' | 'neutral'>,
      extra: Partial<SimulatorTrace> = {},
    ): SimulatorTrace => ({
      patience: 3,
      operation: 'pull',
      preferences: { kind: 'delta', model: 'pepper', reflected },
      ...extra,
    });
    const c = conv([
      turn('a', { patience: 3 }),
      turn('b', pepper({ x1: 'like', x2: 'neutral' })),
      turn('c', pepper({ x1: 'like', x3: 'like' })),
      turn('d', pepper({ x1: 'like', x3: 'like', x4: 'dislike' })),
    ]);
    assertViolates(
      'patience-non-increasing',
      c,
      /^3: a pull on a carousel whose liked items .* all liked on an earlier carousel/,
    );
    assert.equal(findingOf('patience-non-increasing', c)!.violations.length, 1);
    // the meta target on screen, or an item taken, is no stale pull
    assertClean(
      'patience-non-increasing',
      conv([
        turn('a', { patience: 3 }),
        turn('b', pepper({ x1: 'like' })),
        turn('c', pepper({ x1: 'like' }, { target: { item_id: 'x1' } as SimulatorTrace['target'] })),
        turn('d', pepper({ x1: 'like' }, { user_act: 'Note.Accept' })),
      ]),
    );
  });
  // Issue 21, eleventh round: a carousel the agent keeps on screen while it only asks is not weighed again
  test('a PEPPER push on the carousel the agent kept on screen while it only asked is a violation; a new showing is not', () => {
    const items = [item('x1', { colour: 'red' }), item('x2', { colour: 'blue' })];
    const others = [item('x3', { colour: 'red' })];
    const pepper = (extra: Partial<SimulatorTrace>): SimulatorTrace => ({
      patience: 3,
      operation: 'pull',
      preferences: { kind: 'delta', model: 'pepper', reflected: { x1: 'like', x2: 'neutral' } },
      ...extra,
    });
    const run = (showAgain: boolean, second = items) =>
      conv([
        turn('hi', { patience: 3, operation: 'init' }, items),
        turn(
          'I like the first',
          pepper({ nlu: { agent_act: 'Reveal.Show', acts: ['Reveal.Show'] } } as Partial<SimulatorTrace>),
          second,
        ),
        turn(
          'hmm',
          pepper({
            patience: 2,
            operation: 'push',
            push_reason: 'the only items shown the user likes are ones it liked before and did not take',
            nlu: { agent_act: showAgain ? 'Reveal.Show' : 'Inquire', acts: showAgain ? ['Reveal.Show'] : ['Inquire'] },
          } as Partial<SimulatorTrace>),
        ),
      ]);
    assertViolates('patience-non-increasing', run(false), /^2: a push on the carousel the agent kept on screen/);
    assert.ok(
      !findingOf('patience-non-increasing', run(true))!.violations.some((v) => /kept on screen/.test(v.detail)),
      'shown again with a showing act: weighed again',
    );
    assert.ok(
      !findingOf('patience-non-increasing', run(false, others))!.violations.some((v) =>
        /kept on screen/.test(v.detail),
      ),
      'another carousel: weighed',
    );
  });
  // Issue 21, thirteenth round: an agent turn with nothing in it does not please a built-in user
  test('a pull on an agent turn with nothing in it is a violation, unless it is a first question', () => {
    const items = [item('x1', { colour: 'red' })];
    const pepper = { kind: 'delta', model: 'pepper', reflected: { x1: 'like' } } as SimulatorTrace['preferences'];
    const start = { kind: 'snapshot', model: 'pepper' } as SimulatorTrace['preferences'];
    const nothing = (acts: string[], op: 'pull' | 'push', patience: number): SimulatorTrace =>
      ({
        patience,
        operation: op,
        nlu: { agent_act: acts[0], source: 'reported', ...(acts.length > 1 ? { acts } : {}) },
      }) as SimulatorTrace;
    // turn 1 likes the carousel; the agent then answers with nothing, asking; then again
    const run = (second: SimulatorTrace, third: SimulatorTrace, firstActs = ['Other', 'Inquire.Elicit']) =>
      conv([
        turn('hi', { patience: 3, operation: 'init', preferences: start }, items),
        turn('I like it', { patience: 3, operation: 'pull', preferences: pepper }, []),
        turn('still red', { ...nothing(firstActs, 'pull', 3), ...second }),
        turn('red, please', third),
      ]);
    // the first "nothing matches, another colour?" is a question: a pull is clean; the second is not
    assertViolates(
      'patience-non-increasing',
      run({}, nothing(['Other', 'Inquire.Elicit'], 'pull', 3)),
      /^3: a pull on an agent turn with nothing in it \(nothing shown, the same empty answer again\)/,
    );
    assertClean('patience-non-increasing', run({}, nothing(['Other', 'Inquire.Elicit'], 'push', 2)));
    // without a question, the first one already is a push
    assertViolates(
      'patience-non-increasing',
      run({}, nothing(['Other'], 'push', 2), ['Other']),
      /^2: a pull on an agent turn with nothing in it \(nothing shown, no question\)/,
    );
    // the agenda user is held to it too; a simulator of the researcher's own (another source) is not
    const agenda = (source: string) =>
      conv(
        [
          turn('hi', { patience: 3, operation: 'init' }, items),
          turn('I like it', { patience: 3, operation: 'pull' }, []),
          turn('still red', nothing(['Other'], 'pull', 3)),
        ],
        { source },
      );
    assertViolates(
      'patience-non-increasing',
      agenda('agenda-cir6-pkg'),
      /^2: a pull on an agent turn with nothing in it/,
    );
    assertViolates('patience-non-increasing', agenda('meta-tol(agenda-qrfa-single)'), /^2: a pull on an agent turn/);
    assert.ok(
      !findingOf('patience-non-increasing', agenda('my-simulator'))!.violations.some((v) =>
        /nothing in it/.test(v.detail),
      ),
    );
    // three questions in a row with nothing shown: the third is a push
    const ask = (op: 'pull' | 'push', patience: number) => nothing(['Inquire.Elicit'], op, patience);
    const questions = (third: SimulatorTrace) =>
      conv([
        turn('hi', { patience: 3, operation: 'init' }, []),
        turn('boots', ask('pull', 3), []),
        turn('black', ask('pull', 3), []),
        turn('leather', third),
      ]);
    assertViolates(
      'patience-non-increasing',
      questions(ask('pull', 3)),
      /^3: a pull on an agent turn with nothing in it \(nothing shown for the third turn in a row\)/,
    );
    assertClean('patience-non-increasing', questions(ask('push', 2)));
    // A turn marked as ignoring a failed agent turn is exempt from the rule: only after a failure
    // (fourteenth round: a forged mark let a pull on "nothing matches" through)
    const ignoring = (failed: boolean) =>
      conv([
        turn('hi', { patience: 3, operation: 'init', ...(failed ? { error: 'timeout' } : {}) }, items),
        turn('hi', { ...nothing(['Other'], 'pull', 3), ignored_agent_error: true } as SimulatorTrace),
      ]);
    assertViolates(
      'patience-non-increasing',
      ignoring(false),
      /^1: marked as ignoring a failed agent turn \(ignored_agent_error\), but the agent's turn before did not fail/,
    );
    assertClean('patience-non-increasing', ignoring(true));
  });
  // Fourteenth round: the checker accepted any push of a built-in PEPPER user, justified or not
  test("a built-in target-free user's push on a carousel with an item it likes for the first time needs a reason", () => {
    const a = [item('a1', { colour: 'grey' }), item('a2', { colour: 'red' }), item('a3', { colour: 'grey' })];
    const b = [item('b1', { colour: 'grey' }), item('b2', { colour: 'grey' }), item('b3', { colour: 'grey' })];
    const reflected = (likes: string[]) =>
      ({
        kind: 'delta',
        model: 'pepper',
        reflected: Object.fromEntries(likes.map((id) => [id, 'like'])),
      }) as SimulatorTrace['preferences'];
    const run = (second: typeof a, said: SimulatorTrace['said'] = { constraints: {} }, source = 'target-free') =>
      conv(
        [
          turn('hi', { patience: 3, operation: 'init' }, a),
          turn('the first, no thanks', { patience: 3, operation: 'pull', preferences: reflected([]), said }, second),
          turn('hmm', {
            patience: 2,
            operation: 'push',
            push_reason: 'none of the items shown is one the user likes',
            preferences: reflected([second[0].item_id]),
            nlu: { agent_act: 'Reveal.Show', source: 'reported' },
          }),
        ],
        { source },
      );
    // another carousel, with an item it likes, and no value it said it is not keen on: no reason
    assertViolates(
      'patience-non-increasing',
      run(b),
      /^2: a push \(none of the items shown is one the user…\) although the user likes b1, on screen for the first time/,
    );
    assertViolates('patience-non-increasing', run(b, undefined, 'meta-prob(target-free)'), /^2: a push .* although/);
    // the same first three again after it turned them down: a reason
    assertClean('patience-non-increasing', run(a));
    // every one of the first three is grey, which it said it is not keen on: a reason
    assertClean('patience-non-increasing', run(b, { constraints: {}, negated: ['grey'] }));
    // a simulator of the researcher's own is not held to the built-in user's rule
    assertClean('patience-non-increasing', run(b, undefined, 'my-simulator'));
  });
  test('abandoning with patience left, or not abandoning at zero, is a violation', () => {
    assertViolates(
      'abandon-at-zero',
      conv([turn('a', { patience: 1, user_act: 'Complete.Abandon' })], { outcome: 'abandoned' }),
      /abandoned with patience 1/,
    );
    assertViolates(
      'abandon-at-zero',
      conv([
        turn('a', { patience: 0, user_act: 'Inquire.List' }),
        turn('b', { patience: 0, user_act: 'Complete.Abandon' }),
      ]),
      /^0: patience 0 but the user did not abandon/,
    );
    assertViolates(
      'abandon-at-zero',
      conv([turn('a', { patience: 1, user_act: 'Complete' })], { outcome: 'abandoned' }),
      /outcome abandoned but the last user act is Complete/,
    );
  });
  test('abandoning on the last turn at zero is clean', () => {
    assertClean(
      'abandon-at-zero',
      conv(
        [turn('a', { patience: 1, user_act: 'Disclose' }), turn('b', { patience: 0, user_act: 'Complete.Abandon' })],
        { outcome: 'abandoned' },
      ),
    );
  });
});

describe('coverage-monotone and coverage-definition', () => {
  const pepper = (pcs: number[], shown: string[][]) =>
    conv(
      pcs.map((pc, i) =>
        turn(
          `u${i}`,
          { preference_coverage: pc, ...(i === 0 ? { targets: ['A', 'B', 'C'] } : {}) },
          shown[i].map((id) => item(id, {})),
        ),
      ),
      { source: 'target-free' },
    );
  test('coverage that falls, leaves [0, 1] or does not match the targets shown is a violation', () => {
    assertViolates(
      'coverage-monotone',
      pepper([0.333, 0.667, 0.333], [['A'], ['B'], []]),
      /^2: coverage fell from 0.667 to 0.333/,
    );
    assertViolates('coverage-monotone', pepper([1.5], [[]]), /outside \[0, 1\]/);
    assertViolates(
      'coverage-definition',
      pepper([0.333, 0.5], [['A'], ['D']]),
      /^1: coverage 0.5, expected 0.333 \(1 of 3 targets/,
    );
  });
  test('cumulative coverage over the items shown so far is clean', () => {
    const c = pepper([0.333, 0.333, 0.667, 1], [['A', 'D'], ['D'], ['B', 'A'], ['C']]);
    assertClean('coverage-monotone', c);
    assertClean('coverage-definition', c);
  });
});

describe('target-free-no-early-target', () => {
  const catalog: ItemLookup = {
    get: (id) =>
      id === 'T' ? { item_id: 'T', title: 'Trail Runner X', category: 'footwear', attributes: {} } : undefined,
  };
  test('naming a target before it was shown is a violation (title from the catalog or a later carousel, or said.items)', () => {
    const c = conv([turn('Do you have the Trail Runner X?', { targets: ['T'] }), turn('ok', {})], {
      source: 'target-free',
    });
    assertViolates('target-free-no-early-target', c, /^0: names target T "Trail Runner X"/, { catalog });
    const later = conv(
      [
        turn('hi', { targets: ['T'] }),
        turn('the trail runner x please', {}),
        turn('ok', {}, [item('T', {}, { title: 'Trail Runner X' })]),
      ],
      { source: 'target-free' },
    );
    assertViolates('target-free-no-early-target', later, /^1: names target T/);
    assertViolates(
      'target-free-no-early-target',
      conv([turn('hi', { targets: ['T'], said: { items: ['T'] } })]),
      /said.items/,
    );
  });
  test('naming it after it was shown is clean', () => {
    const c = conv(
      [
        turn('hi', { targets: ['T'] }, [item('T', {}, { title: 'Trail Runner X' })]),
        turn('I like Trail Runner X.', {}),
      ],
      { source: 'target-free' },
    );
    assertClean('target-free-no-early-target', c, { catalog });
  });
});

describe('meta-switch-rule', () => {
  const meta = (targets: { item_id: string; switched_from?: string; alternatives?: string[] }[]) =>
    conv(
      targets.map((t, i) =>
        turn(`u${i}`, { target: { alternatives: ['T', 'U', 'V'], ...t } }, [item('Z', { colour: 'red' })]),
      ),
      { source: 'meta-tol(agenda-cir6-pkg)' },
    );
  test('a switch within the tolerance, out of the group or unrecorded is a violation', () => {
    assertViolates(
      'meta-switch-rule',
      meta([{ item_id: 'T' }, { item_id: 'U', switched_from: 'T' }]),
      /^1: target switched on turn 1, tolerance 2/,
    );
    assertViolates(
      'meta-switch-rule',
      meta([{ item_id: 'T' }, { item_id: 'T' }, { item_id: 'T' }, { item_id: 'X', switched_from: 'T' }]),
      /not in the target group/,
    );
    assertViolates(
      'meta-switch-rule',
      meta([{ item_id: 'T' }, { item_id: 'T' }, { item_id: 'T' }, { item_id: 'U' }]),
      /recorded as switched_from \(none\)/,
    );
    assertViolates(
      'meta-switch-rule',
      meta([{ item_id: 'T' }, { item_id: 'T', alternatives: ['T', 'W'] }]),
      /target group changed/,
    );
  });
  test('a recorded switch to a group member after the tolerance is clean (tolerance from the options)', () => {
    const c = meta([{ item_id: 'T' }, { item_id: 'T' }, { item_id: 'U', switched_from: 'T' }]);
    assertViolates('meta-switch-rule', c, /tolerance 2/);
    assertClean('meta-switch-rule', c, { metaTolerance: 1 });
    assertClean(
      'meta-switch-rule',
      meta([{ item_id: 'T' }, { item_id: 'T' }, { item_id: 'T' }, { item_id: 'V', switched_from: 'T' }]),
    );
  });
});

describe('the checker', () => {
  test('every invariant has a kebab-case id, a statement and a source, and ids are unique', () => {
    const ids = INVARIANTS.map((i) => i.id);
    assert.equal(new Set(ids).size, ids.length);
    for (const i of INVARIANTS) {
      assert.match(i.id, /^[a-z0-9]+(-[a-z0-9]+)*$/);
      assert.ok(i.statement.length > 10 && !i.statement.includes('\n'), i.id);
      assert.ok(i.source.length > 5 && !i.source.includes('\n'), i.id);
    }
  });
  test('human data without traces is not applicable for every invariant, never a pass', () => {
    const human: Conversation = {
      task_id: 'footwear_good',
      turns: [{ user_utterance: 'hi', assistant_utterance: 'hello', recommendations: [item('A', {})] }],
    };
    const r = checkConversations([human]);
    assert.equal(r.conversations, 1);
    assert.deepEqual(
      r.invariants.filter((i) => i.status !== 'not-applicable').map((i) => i.id),
      [],
    );
    // Nothing failed, but nothing was checked either: callers must not call that a pass.
    assert.equal(r.ok, true);
    assert.equal(checkedInvariants(r), 0);
    assert.equal(r.traced, 0);
    assert.match(
      nothingCheckedReason(r),
      /^nothing checked: no conversation carries a simulator trace \(all 27 invariants are n\/a\)/,
    );
  });
  test('counts conversations, turns and violations; keeps at most N examples with the conversation id and line', () => {
    const bad = (id: string) =>
      conv(
        [
          turn('hi im looking for some footwear', {
            goal: goal({ colour: 'black', material: 'knit' }, ['colour', 'material']),
          }),
        ],
        { id },
      );
    const checker = new InvariantChecker({ only: ['disclosed-value-stated'], examples: 3 });
    checker.add(bad('a'), 1);
    checker.add(bad('b'), 2);
    checker.add(conv([turn('Something black.', { goal: goal({ colour: 'black' }, ['colour']) })], { id: 'c' }), 3);
    const r = checker.report().invariants[0];
    assert.equal(r.status, 'fail');
    assert.equal(r.conversations, 3);
    assert.equal(r.turns, 3);
    assert.equal(r.violations, 4);
    assert.equal(r.violatingConversations, 2);
    assert.equal(r.examples.length, 3);
    assert.deepEqual(r.examples[0], {
      conversation: 'a',
      line: 1,
      turn: 0,
      detail: 'colour=black (newly disclosed in goal) is not in the utterance "hi im looking for some footwear"',
    });
    assert.deepEqual(checker.report().failed, ['disclosed-value-stated']);
  });
  test('a documented tolerance turns a rare violation into "tolerated", a frequent one still fails', () => {
    const flaky: Invariant = {
      id: 'no-x',
      statement: 'no x',
      source: 'test',
      tolerance: { share: 0.25, reason: 'x is rare by design' },
      check: (ctx) => ({ turns: 1, violations: ctx.conversation.id === 'x' ? [{ detail: 'x' }] : [] }),
    };
    const four = ['x', 'a', 'b', 'c'].map((id) => conv([], { id }));
    assert.equal(checkConversations(four, { invariants: [flaky] }).invariants[0].status, 'tolerated');
    assert.equal(checkConversations(four.slice(0, 2), { invariants: [flaky] }).invariants[0].status, 'fail');
  });
  test('an invariant that throws on a malformed trace reports a violation instead of crashing', () => {
    const weird = conv([
      turn('hi', { agenda: ['Note'], operation: 'init', pulled: ['Disclose'] }),
      turn('x', { agenda: ['Note'], operation: 'pull', pulled: [5 as unknown as string] }),
    ]);
    const r = checkConversations([weird], { only: ['agenda-pull-order'] });
    assert.equal(r.invariants[0].status, 'fail');
  });
  test('details escape control characters from the conversation text', () => {
    const c = conv([turn('hi\u001b[2J im looking for footwear', { goal: goal({ colour: 'black' }, ['colour']) })]);
    const detail = checkConversations([c], { only: ['disclosed-value-stated'] }).invariants[0].examples[0].detail;
    // eslint-disable-next-line no-control-regex
    assert.ok(!/\u001b/.test(detail), detail);
    assert.match(detail, /\\u001b/);
  });
  test('unknown ids in `only` throw, naming the known ones', () => {
    assert.throws(
      () => new InvariantChecker({ only: ['nope'] }),
      /unknown invariant "nope" \(known: disclosed-value-stated/,
    );
  });
});

describe('the goal behind what is said (issue 22 review)', () => {
  const shown = [
    item('A', { colour: 'black', material: 'wool' }, { title: 'Harbor Boot' }),
    item('B', { colour: 'black', material: 'canvas' }, { title: 'Calder Boot' }),
  ];
  const goal = (constraints: Record<string, string>, disclosed: string[]) => ({
    constraints: { category: 'footwear', ...constraints },
    requests: [] as string[],
    disclosed,
  });
  test('an accept breaking a goal constraint not said yet is flagged; meeting it passes', () => {
    const mk = (id: string) =>
      conv(
        [
          turn(
            'Boots in black.',
            {
              user_act: 'Disclose',
              said: { constraints: { colour: 'black' } },
              goal: goal({ colour: 'black', material: 'wool' }, ['category', 'colour']),
            } as SimulatorTrace,
            shown,
          ),
          turn(`I'll take it.`, {
            user_act: 'Note.Accept',
            said: { constraints: {}, items: [id] },
            goal: goal({ colour: 'black', material: 'wool' }, ['category', 'colour']),
          } as SimulatorTrace),
        ],
        { outcome: 'accepted' },
      );
    assertViolates(
      'accepted-meets-constraints',
      mk('B'),
      /^1: accepted B: material=canvas, the goal \(not yet said\) wants wool/,
    );
    assertClean('accepted-meets-constraints', mk('A'));
  });
  test('a disclosed goal value that changes on a turn not saying it, or a said value the goal does not hold, is flagged; a revision passes, with or without a meta target', () => {
    const t0 = turn(
      'Boots in black.',
      {
        user_act: 'Disclose',
        said: { constraints: { colour: 'black' } },
        goal: goal({ colour: 'black' }, ['category', 'colour']),
      } as SimulatorTrace,
      shown,
    );
    const silent = conv([
      t0,
      turn('What else?', {
        user_act: 'Navigate.More',
        said: { constraints: {} },
        goal: goal({ colour: 'navy' }, ['category', 'colour']),
      } as SimulatorTrace),
    ]);
    assertViolates('no-silent-contradiction', silent, /^1: the goal's disclosed colour changes black -> navy/);
    const against = conv([
      t0,
      turn('Something black, please.', {
        user_act: 'Reveal.Revise',
        said: { constraints: { colour: 'black' } },
        goal: goal({ colour: 'navy' }, ['category', 'colour']),
      } as SimulatorTrace),
    ]);
    assertViolates('no-silent-contradiction', against, /^1: /);
    const revised = conv([
      t0,
      turn('Actually, navy instead.', {
        user_act: 'Reveal.Revise',
        said: { constraints: { colour: 'navy' } },
        goal: goal({ colour: 'navy' }, ['category', 'colour']),
      } as SimulatorTrace),
    ]);
    assertClean('no-silent-contradiction', revised);
    // A meta user's goal that follows a switched target without the user saying the change (review
    // finding H: goal.disclosed forgot the colour, the goal now wants navy, the user said black).
    const meta = conv([
      t0,
      turn('What else?', {
        user_act: 'Navigate.More',
        said: { constraints: {} },
        goal: goal({ colour: 'navy' }, ['category']),
        target: { item_id: 'B', switched_from: 'A' },
      } as SimulatorTrace),
      turn('Show me more.', {
        user_act: 'Navigate.More',
        said: { constraints: {} },
        goal: goal({ colour: 'navy' }, ['category']),
        target: { item_id: 'B' },
      } as SimulatorTrace),
    ]);
    const found = findingOf('no-silent-contradiction', meta);
    assert.deepEqual(
      found?.violations.map((v) => v.turn),
      [1, 2],
      JSON.stringify(found),
    );
    assert.match(found!.violations[0].detail, /its goal wants colour=navy but the user last said black/);
    const metaRevised = conv([
      t0,
      turn('Actually, navy instead.', {
        user_act: 'Reveal.Revise',
        said: { constraints: { colour: 'navy' } },
        goal: goal({ colour: 'navy' }, ['category', 'colour']),
        target: { item_id: 'B', switched_from: 'A' },
      } as SimulatorTrace),
    ]);
    assertClean('no-silent-contradiction', metaRevised);
  });
});
