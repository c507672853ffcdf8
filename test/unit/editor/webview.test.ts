import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Conversation } from '../../../src/core/model';
import { loadWebview } from './webviewHarness';
import { EditorViewStateSchema } from '../../../src/shared/editorProtocol';
import { scrollGeometry, MAX_SCROLL_PX } from '../../../webview/editor/list';
import { actIndexForKey, actKeyLabel } from '../../../webview/editor/annotation';
import { multisetMinus } from '../../../webview/editor/tracePanel';

function traced(): Conversation {
  return {
    id: 'sim-1',
    task_id: 'footwear_good',
    source: 'agenda-cir6',
    turns: [
      {
        user_utterance: 'I want running shoes',
        assistant_utterance: 'What size?',
        trace: {
          agenda: ['Disclose', 'Inquire', 'Complete'],
          operation: 'init',
          user_act: 'Disclose',
          goal: { constraints: { category: 'shoes' }, requests: ['price'] },
          patience: 3,
          satisfaction: 0.5,
          frustration: 0.1,
        },
        recommendations: [
          {
            item_id: 'i1',
            title: 'Runner X',
            description: 'Light shoe',
            features: 'light, red',
            image_url: 'https://img.example/x.png',
          },
        ],
      },
      {
        user_utterance: 'Size 42, what does it cost?',
        assistant_utterance: 'It costs 80 euros.',
        trace: {
          agenda: ['Reveal', 'Inquire', 'Complete'],
          operation: 'push',
          user_act: 'Inquire',
          patience: 2,
          satisfaction: 0.4,
          frustration: 0.3,
          target: { item_id: 'i2', alternatives: ['i3'], switched_from: 'i1', switch_reason: 'tolerance' },
          llm_calls: [{ id: 'c1', role: 'nlg', model: 'm', request: { prompt: 'say hi' }, response: 'hi' }],
        },
        ratings: { Satisfied: true, 'How likely would you be to purchase this?': 'Probably yes' },
      },
      { user_utterance: 'Thanks, bye', trace: { agenda: [], operation: 'end', user_act: 'Complete', patience: 2 } },
    ],
  };
}

function human(i: number): Conversation {
  return {
    id: `h-${i}`,
    task_id: 'outerwear_bad',
    turns: [{ user_utterance: `hello ${i}`, assistant_utterance: 'hi there' }],
  };
}

describe('editor webview (jsdom)', () => {
  test('list geometry scales beyond the browser scroll cap and round-trips', () => {
    const rows = 2_000_000;
    const g = scrollGeometry(rows, 46, 600);
    assert.equal(g.spacer, MAX_SCROLL_PX);
    assert.ok(rows * 46 > 33_500_000, 'the case needs scaling');
    // Scrolling to the end shows the last row.
    const end = g.window(MAX_SCROLL_PX - 600);
    assert.equal(end.first, Math.floor((rows * 46 - 600) / 46));
    // toScroll / toVirtual round trip for a row in the middle.
    const v = 1_234_567 * 46;
    assert.ok(Math.abs(g.toVirtual(g.toScroll(v)) - v) < 1e-6 * v);
    // Small lists are unscaled.
    const s = scrollGeometry(100, 46, 600);
    assert.equal(s.spacer, 4600);
    assert.equal(s.window(460).first, 10);
  });

  test('opens the first conversation, shows ready rows only for the visible window (20,000 rows)', async () => {
    // (Beyond the browser's scroll cap the list scales: see the geometry test above.)
    const hx = await loadWebview({ conversations: [traced(), human(1)], rowCount: 20_000 });
    try {
      await hx.waitFor('.conv-id', /sim-1/);
      // The first conversation is sent with init, before the list's view and first page:
      // wait for the list's rows instead of assuming they came first.
      await hx.waitFor('.row:not([hidden])');
      await hx.waitFor('.list-status', /20,000/);
      const rows = hx.document.querySelectorAll('.row:not([hidden])');
      assert.ok(rows.length > 0 && rows.length < 40, `rendered ${rows.length} rows`);
      const pages = hx.posted.filter((m) => m.type === 'requestPage');
      assert.ok(pages.length >= 1 && pages.length <= 2, `requested ${pages.length} pages`);
      assert.equal(hx.document.querySelector('.conv-id')?.textContent, 'sim-1');
      assert.match(hx.document.querySelector('.list-status')?.textContent ?? '', /20,000/);
    } finally {
      hx.close();
    }
  });

  test('replay: keys step turns; state panel shows agenda pushes, goal, target switch, LLM call', async () => {
    const hx = await loadWebview({ conversations: [traced()] });
    try {
      // Opens at the last turn; Home goes to the first.
      await hx.waitFor('.turn-pos', /Turn 3 \/ 3/);
      hx.key('Home');
      assert.match(hx.document.querySelector('.turn-pos')?.textContent ?? '', /Turn 1 \/ 3/);
      assert.equal(hx.document.querySelectorAll('section.turn.future').length, 2);
      assert.match(hx.document.querySelector('.state-panel')?.textContent ?? '', /category/);
      hx.key('j');
      assert.match(hx.document.querySelector('.turn-pos')?.textContent ?? '', /Turn 2 \/ 3/);
      const pushed = [...hx.document.querySelectorAll('.agenda-item.pushed')].map((e) => e.textContent);
      assert.deepEqual(pushed, ['Reveal']);
      assert.deepEqual(
        [...hx.document.querySelectorAll('.chip.pulled-item')].map((e) => e.textContent),
        ['Disclose'],
      );
      assert.match(hx.document.querySelector('.switch')?.textContent ?? '', /switched from i1 \(tolerance\)/);
      assert.match(hx.document.querySelector('pre.raw')?.textContent ?? '', /"prompt": "say hi"/);
      assert.ok(hx.document.querySelector('svg.spark polyline.sat'), 'satisfaction line drawn');
      hx.key('ArrowLeft');
      assert.match(hx.document.querySelector('.turn-pos')?.textContent ?? '', /Turn 1 \/ 3/);
      hx.key('k');
      assert.match(
        hx.document.querySelector('.turn-pos')?.textContent ?? '',
        /Turn 1 \/ 3/,
        'k at the first turn stays',
      );
      // Play advances by itself (interval 50 ms in the harness).
      hx.key(' ');
      await hx.waitFor('.turn-pos', /Turn 3 \/ 3/, 3000);
      // Remote images are off: a placeholder, no <img>.
      assert.equal(hx.document.querySelectorAll('img').length, 0);
      assert.ok(hx.document.querySelector('.card-media.placeholder'));
      // Ratings as chips.
      assert.ok([...hx.document.querySelectorAll('.chip.rating')].some((c) => c.textContent === 'Satisfied'));
      const st = hx.state() as { line: number; turn: number; mode: string };
      assert.equal(st.line, 0);
      assert.equal(st.turn, 2);
      assert.equal(st.mode, 'replay');
    } finally {
      hx.close();
    }
  });

  test('ratings that are false or null are shown as answers (ReDial: not seen, not liked, did not say)', async () => {
    const conv: Conversation = {
      id: '20001',
      source: 'human',
      ratings: {
        'liked: A (2000) [@1]': true,
        'seen: A (2000) [@1]': false,
        'suggested: A (2000) [@1]': null,
        'liked: B [@2]': false,
      },
      turns: [{ user_utterance: 'hi', assistant_utterance: 'hello' }],
    };
    const hx = await loadWebview({ conversations: [conv] });
    try {
      await hx.waitFor('.conv-id', /20001/);
      const chips = [...hx.document.querySelectorAll('.session-ratings .chip.rating')].map((c) =>
        c.getAttribute('title'),
      );
      assert.deepEqual(chips, [
        'liked: A (2000) [@1]',
        'seen: A (2000) [@1]: no',
        'suggested: A (2000) [@1]: not said',
        'liked: B [@2]: no',
      ]);
    } finally {
      hx.close();
    }
  });

  test('Fork from here: offered on a simulated conversation, disabled with the reason on a human dialogue', async () => {
    const hx = await loadWebview({ conversations: [traced(), human(1)] });
    try {
      await hx.waitFor('.conv-id', /sim-1/);
      const sim = hx.document.querySelector('button.fork') as HTMLButtonElement;
      assert.equal(sim.disabled, false);
      hx.key(']');
      await hx.waitFor('.conv-id', /h-1/);
      const h = hx.document.querySelector('button.fork') as HTMLButtonElement;
      assert.equal(h.disabled, true);
      assert.match(
        h.getAttribute('title') ?? '',
        /not available: a human dialogue has no simulated user to continue it/,
      );
      h.click();
      assert.equal(hx.posted.filter((m) => m.type === 'fork').length, 0, 'nothing sent to the host');
    } finally {
      hx.close();
    }
  });

  test('invalid lines are counted as lines, not as conversations', async () => {
    const hx = await loadWebview({ conversations: [traced(), human(1), { invalid: 'line 3: invalid JSON' }] });
    try {
      await hx.waitFor('.list-status', /invalid/);
      const text = hx.document.querySelector('.list-status')?.textContent ?? '';
      assert.match(text, /of 3 lines: 2 conversations, 1 invalid line/);
      assert.doesNotMatch(text, /3 conversations/);
    } finally {
      hx.close();
    }
  });

  test('the transcript scroll area takes keyboard focus; in annotate mode later turns are dimmed', async () => {
    const hx = await loadWebview({ conversations: [traced()], init: { annotator: 'alice' } });
    try {
      await hx.waitFor('.conv-id', /sim-1/);
      const scroller = hx.document.querySelector('.transcript-scroll') as HTMLElement;
      assert.equal(scroller.getAttribute('tabindex'), '0');
      assert.equal(scroller.getAttribute('aria-label'), 'Transcript');
      (hx.document.querySelector('.modes .mode:nth-child(2)') as HTMLButtonElement).click();
      await hx.settle();
      await hx.waitFor('.annotate-panel');
      const st = hx.state() as { mode: string; turn: number };
      assert.equal(st.mode, 'annotate');
      const future = [...hx.document.querySelectorAll('section.turn.future')].map((e) =>
        Number(e.getAttribute('data-turn')),
      );
      assert.deepEqual(
        future,
        [0, 1, 2].filter((t) => t > st.turn),
      );
      assert.ok(future.length > 0, `annotating turn ${st.turn} of 3: later turns dimmed`);
    } finally {
      hx.close();
    }
  });

  test('a text search: the conversation opens at the first hit and the hits are marked (text nodes only)', async () => {
    const hx = await loadWebview({ conversations: [human(1), traced()] });
    try {
      await hx.waitFor('.conv-id', /h-1/);
      const input = hx.document.querySelector('input.search') as HTMLInputElement;
      input.value = 'SIZE';
      input.dispatchEvent(new hx.window.Event('input'));
      await hx.waitFor('.list-status', /matching|of/);
      await hx.settle(300);
      hx.key(']');
      await hx.waitFor('.conv-id', /sim-1/);
      await hx.waitFor('mark.hit');
      // Turn 1's assistant answer ("What size?") is the first hit (case-insensitive): it opens there, not at the last turn.
      assert.match(hx.document.querySelector('.turn-pos')?.textContent ?? '', /Turn 1 \/ 3/);
      const marks = [...hx.document.querySelectorAll('mark.hit')].map((m) => m.textContent);
      assert.deepEqual(marks, ['size', 'Size']);
      const hits = [...hx.document.querySelectorAll('.msg.search-hit')].map(
        (m) => `${m.getAttribute('data-turn')}:${m.getAttribute('data-speaker')}`,
      );
      assert.deepEqual(hits, ['0:assistant', '1:user']);
      assert.equal(
        hx.document.querySelector('.msg.search-hit[data-turn="1"] .bubble')?.textContent,
        'Size 42, what does it cost?',
      );
    } finally {
      hx.close();
    }
  });

  test('view state per file: sent to the host as it changes, and restored from the page when the file is reopened', async () => {
    const first = await loadWebview({ conversations: [human(1), traced()] });
    let saved: unknown;
    try {
      await first.waitFor('.conv-id', /h-1/);
      first.key(']');
      await first.waitFor('.conv-id', /sim-1/);
      (first.document.querySelector('.modes .mode:nth-child(2)') as HTMLButtonElement).click();
      await first.settle(700);
      const sent = first.posted.filter((m) => m.type === 'viewState');
      assert.ok(sent.length > 0, 'the view state reaches the host');
      saved = (sent[sent.length - 1] as { state: unknown }).state;
      // The host validates it with the protocol's schema before keeping it.
      assert.equal(EditorViewStateSchema.safeParse(saved).success, true, JSON.stringify(saved));
      assert.deepEqual([(saved as { line: number }).line, (saved as { mode: string }).mode], [1, 'annotate']);
      assert.equal((saved as Record<string, unknown>)['agreement'], undefined);
    } finally {
      first.close();
    }
    // Reopened: a new page with no webview state of its own, the host's saved state in the page.
    const again = await loadWebview({ conversations: [human(1), traced()], pageViewState: saved });
    try {
      await again.waitFor('.conv-id', /sim-1/);
      assert.equal((again.state() as { mode: string }).mode, 'annotate');
      await again.waitFor('.annotate-panel');
    } finally {
      again.close();
    }
  });

  test('cards: a carousel shows whole cards from its button or a click on a description or features, kept in the view state', async () => {
    const conv = traced();
    conv.turns[1].recommendations = [
      { item_id: 'a', title: 'Alpha coat', description: 'long text', features: 'Warm, Light', score: 0.5 },
      { item_id: 'b', title: 'Beta coat', description: 'more text' },
    ];
    conv.turns[2].recommendations = [{ item_id: 'c', title: 'Gamma' }];
    const hx = await loadWebview({ conversations: [conv] });
    const carousels = (doc: Document) => [...doc.querySelectorAll<HTMLElement>('.carousel')];
    try {
      await hx.waitFor('.card');
      const [, two, one] = carousels(hx.document);
      assert.equal(two.querySelectorAll('.card').length, 2);
      // One height per carousel, from what its items hold: titles only is the smallest.
      assert.deepEqual([...two.classList], ['carousel', 'has-desc', 'has-features']);
      assert.deepEqual([...one.classList], ['carousel']);
      const [a] = [...two.querySelectorAll<HTMLElement>('.card')];
      // Cut text says what it holds on hover; the score is apart from the (cut) id.
      assert.equal(a.querySelector('.card-title')?.getAttribute('title'), 'Alpha coat');
      assert.equal(a.querySelector('.card-features')?.getAttribute('title'), 'Warm, Light');
      assert.equal(a.querySelector('.card-id-text')?.getAttribute('title'), 'a');
      assert.equal(a.querySelector('.card-score')?.textContent, ' · score 0.500');
      const whole = two.querySelector<HTMLButtonElement>('button.whole-cards')!;
      assert.equal(whole.getAttribute('aria-pressed'), 'false');
      a.querySelector<HTMLElement>('.card-desc')!.click();
      assert.ok(two.classList.contains('expanded') && !one.classList.contains('expanded'), 'that carousel only');
      assert.equal(whole.getAttribute('aria-pressed'), 'true');
      assert.deepEqual((hx.state() as { wholeCards?: number[] }).wholeCards, [1]);
      a.querySelector<HTMLElement>('.card-features')!.click();
      assert.ok(!two.classList.contains('expanded'), 'a second click folds it');
      assert.equal((hx.state() as { wholeCards?: number[] }).wholeCards, undefined);
      whole.click();
      assert.equal(whole.getAttribute('aria-pressed'), 'true');
      // Kept when the page is loaded again with its state (reopen, reload).
      const again = await loadWebview({ conversations: [conv], pageViewState: hx.state() });
      try {
        await again.waitFor('.card');
        const [, two2, one2] = carousels(again.document);
        assert.ok(two2.classList.contains('expanded') && !one2.classList.contains('expanded'));
        assert.equal(two2.querySelector('button.whole-cards')?.getAttribute('aria-pressed'), 'true');
      } finally {
        again.close();
      }
    } finally {
      hx.close();
    }
  });

  test('first render: cards unlikely to be on screen are drawn empty, then filled after the first frame exactly as drawn at once', async () => {
    const conv = traced();
    const items = (t: number) =>
      Array.from({ length: 12 }, (_, i) => ({
        item_id: `t${t}-${i}`,
        title: `Item ${t}.${i}`,
        description: `About item ${t}.${i}`,
        features: 'Soft, Light',
        score: i / 12,
      }));
    conv.turns.forEach((turn, t) => (turn.recommendations = items(t)));
    const carousels = conv.turns.length;
    const emptyCards = (doc: Document) =>
      [...doc.querySelectorAll<HTMLElement>('.transcript .card')].filter((c) => c.childElementCount === 0).length;
    let mostEmpty = 0;
    const leftEmpty = new Set<HTMLElement>();
    const lazy = await loadWebview({
      conversations: [conv],
      boot: true,
      skipsOffscreen: true,
      onFrame: (doc) => {
        mostEmpty = Math.max(mostEmpty, emptyCards(doc));
        for (const c of doc.querySelectorAll<HTMLElement>('.transcript .card'))
          if (!c.childElementCount) leftEmpty.add(c);
      },
    });
    const eager = await loadWebview({ conversations: [conv] });
    try {
      await lazy.waitFor('.card-title');
      await eager.waitFor('.card-title');
      await lazy.settle(250);
      await eager.settle(250);
      const current = Number(lazy.document.querySelector('section.turn[aria-current]')?.getAttribute('data-turn') ?? 0);
      const near = conv.turns.filter((_, t) => Math.abs(t - current) <= 1).length;
      // Cards past the sixth of the carousels near the current turn, and every card of the others.
      assert.equal(mostEmpty, carousels * 12 - near * 6, `empty cards at the first frame (current turn ${current})`);
      assert.equal(emptyCards(lazy.document), 0, 'every card filled after the first frame');
      // The very cards drawn empty are filled in place: the transcript is not drawn again when the
      // list's view arrives and the page re-finds the conversation on screen.
      assert.equal([...leftEmpty].filter((c) => c.isConnected && c.childElementCount > 0).length, mostEmpty);
      assert.equal(
        lazy.document.querySelector('.transcript')?.innerHTML,
        eager.document.querySelector('.transcript')?.innerHTML,
        'the same transcript as drawn at once',
      );
      // A filled card works as one drawn at once: its description folds the carousel out.
      const last = [...lazy.document.querySelectorAll<HTMLElement>('.carousel')].pop()!;
      last.querySelectorAll<HTMLElement>('.card-desc')[11].click();
      assert.ok(last.classList.contains('expanded'));
    } finally {
      lazy.close();
      eager.close();
    }
  });

  test('first render: the cards drawn empty wait for the first frame after the load event (the first one VS Code shows)', async () => {
    const conv = traced();
    conv.turns.forEach(
      (turn, t) =>
        (turn.recommendations = Array.from({ length: 12 }, (_, i) => ({
          item_id: `t${t}-${i}`,
          title: `Item ${t}.${i}`,
        }))),
    );
    const emptyCards = (doc: Document) =>
      [...doc.querySelectorAll<HTMLElement>('.transcript .card')].filter((c) => c.childElementCount === 0).length;
    // The page's HTML still loading when its script runs, as in a webview; its load event after a frame.
    let loaded = false;
    let frames = 0;
    const atFrame: number[] = [];
    let emptyAtLoad = -1;
    const hx = await loadWebview({
      conversations: [conv],
      boot: true,
      skipsOffscreen: true,
      beforeScript: (window) =>
        Object.defineProperty(window.document, 'readyState', {
          configurable: true,
          get: () => (loaded ? 'complete' : 'loading'),
        }),
      onFrame: (doc) => {
        atFrame.push(emptyCards(doc));
        if (++frames === 1) {
          setTimeout(() => {
            emptyAtLoad = emptyCards(doc);
            loaded = true;
            doc.defaultView!.dispatchEvent(new doc.defaultView!.Event('load'));
          }, 50);
        }
      },
    });
    try {
      await hx.waitFor('.card');
      for (const deadline = Date.now() + 5000; !loaded && Date.now() < deadline;)
        await new Promise((r) => setTimeout(r, 10));
      await hx.settle(300);
      assert.ok(atFrame[0] > 0, `cards drawn empty: ${atFrame.join(', ')}`);
      assert.equal(emptyAtLoad, atFrame[0], 'still empty at the load event, frames before it notwithstanding');
      assert.equal(emptyCards(hx.document), 0, 'filled after the first frame after the load');
    } finally {
      hx.close();
    }
  });

  test('remote images appear only when allowed, and only https', async () => {
    const conv = traced();
    conv.turns[1].recommendations = [{ item_id: 'j', image_url: 'http://plain.example/a.png' }];
    const hx = await loadWebview({ conversations: [conv], init: { allowRemoteImages: true } });
    try {
      await hx.waitFor('.card');
      const imgs = [...hx.document.querySelectorAll('img')];
      assert.deepEqual(
        imgs.map((i) => i.getAttribute('src')),
        ['https://img.example/x.png'],
      );
      assert.equal(imgs[0].getAttribute('referrerpolicy'), 'no-referrer');
    } finally {
      hx.close();
    }
  });

  test('conversation without a trace still replays and says so', async () => {
    const hx = await loadWebview({ conversations: [human(0)] });
    try {
      await hx.waitFor('.state-panel', /No simulator trace/);
      assert.ok(hx.document.querySelector('.replay-bar'));
    } finally {
      hx.close();
    }
  });

  test('annotation mode: number keys toggle acts, n/p move, note is sent, shift+digit reaches act 11+', async () => {
    const hx = await loadWebview({ conversations: [traced()] });
    try {
      await hx.waitFor('.conv-id', /sim-1/);
      (hx.document.querySelector('.modes .mode:nth-child(2)') as HTMLButtonElement).click();
      await hx.settle();
      assert.equal((hx.state() as { mode: string }).mode, 'annotate');
      hx.key('Home'); // no-op in annotate mode
      hx.key('p');
      hx.key('p');
      hx.key('p');
      hx.key('p');
      hx.key('p'); // at the first utterance
      hx.key('1', { code: 'Digit1' });
      hx.key('5', { code: 'Digit5' });
      await hx.settle();
      let ann = hx.posted.filter((m) => m.type === 'annotate');
      assert.equal(ann.length, 2);
      assert.deepEqual(
        { ...ann[1], requestId: undefined },
        {
          type: 'annotate',
          requestId: undefined,
          line: 0,
          turn: 0,
          speaker: 'user',
          acts: ['inform_preference', 'critique'],
        },
      );
      assert.deepEqual(
        [...hx.document.querySelectorAll('.act-toggle.on .name')].map((e) => e.textContent),
        ['inform_preference', 'critique'],
      );
      // Chips in the transcript reflect the host's answer.
      assert.match(
        hx.document.querySelector('.msg.user .acts')?.textContent ?? '',
        /alice.*inform_preference.*critique/,
      );
      hx.key('1', { code: 'Digit1' }); // toggle off
      await hx.settle();
      ann = hx.posted.filter((m) => m.type === 'annotate');
      assert.deepEqual((ann[2] as { acts: string[] }).acts, ['critique']);
      hx.key('n'); // assistant utterance of turn 1
      assert.match(hx.document.querySelector('.cursor-head')?.textContent ?? '', /turn 1 · assistant/);
      hx.key('2', { code: 'Digit2' });
      await hx.settle();
      ann = hx.posted.filter((m) => m.type === 'annotate');
      assert.deepEqual(
        { ...ann[3], requestId: undefined },
        { type: 'annotate', requestId: undefined, line: 0, turn: 0, speaker: 'assistant', acts: ['elicit_preference'] },
      );
      // Note: typed, committed with Ctrl+Enter.
      const note = hx.document.querySelector('textarea.note') as HTMLTextAreaElement;
      note.value = 'unclear question';
      note.dispatchEvent(new hx.window.KeyboardEvent('keydown', { key: 'Enter', ctrlKey: true, bubbles: true }));
      await hx.settle();
      ann = hx.posted.filter((m) => m.type === 'annotate');
      assert.deepEqual(
        { ...ann[4], requestId: undefined },
        {
          type: 'annotate',
          requestId: undefined,
          line: 0,
          turn: 0,
          speaker: 'assistant',
          acts: ['elicit_preference'],
          note: 'unclear question',
        },
      );
      // Digits typed into the note do not toggle acts.
      const before = hx.posted.length;
      note.dispatchEvent(new hx.window.KeyboardEvent('keydown', { key: '3', code: 'Digit3', bubbles: true }));
      assert.equal(hx.posted.length, before);
    } finally {
      hx.close();
    }
    assert.equal(actIndexForKey({ code: 'Digit1', shiftKey: true, altKey: false, ctrlKey: false, metaKey: false }), 10);
    assert.equal(actIndexForKey({ code: 'Digit0', shiftKey: false, altKey: false, ctrlKey: false, metaKey: false }), 9);
    assert.equal(actIndexForKey({ code: 'KeyA', shiftKey: false, altKey: false, ctrlKey: false, metaKey: false }), -1);
    assert.equal(actKeyLabel(10), '⇧1');
  });

  test('invalid lines show their error and offer to open the line as text', async () => {
    const hx = await loadWebview({ conversations: [{ invalid: '{"id": }' }, human(1)] });
    try {
      const row = await hx.waitFor('.row.invalid');
      assert.ok(row);
      assert.match(row!.textContent ?? '', /Invalid line.*1:\d+ invalid JSON: expected a value/);
      (row!.querySelector('button.link') as HTMLButtonElement).click();
      assert.deepEqual(hx.posted.at(-1), { type: 'openLineAsText', line: 0 });
      await hx.waitFor('.error-box', /not a valid conversation/);
    } finally {
      hx.close();
    }
  });

  test('view state is restored: filter, conversation, turn and mode', async () => {
    const saved = { v: 1, filter: { text: 'size' }, line: 1, turn: 1, mode: 'replay', listIndex: 0 };
    const hx = await loadWebview({ conversations: [human(0), traced()], savedState: saved });
    try {
      await hx.waitFor('.turn-pos', /Turn 2 \/ 3/);
      const setFilter = hx.posted.find((m) => m.type === 'setFilter');
      assert.deepEqual(setFilter, { type: 'setFilter', filter: { text: 'size' } });
      assert.equal((hx.document.querySelector('input.search') as HTMLInputElement).value, 'size');
      assert.equal(hx.document.querySelector('.conv-id')?.textContent, 'sim-1');
      assert.match(hx.document.querySelector('.turn-pos')?.textContent ?? '', /Turn 2 \/ 3/);
    } finally {
      hx.close();
    }
  });

  test('the restored conversation is asked for with "ready"; a reveal from the host replaces it', async () => {
    const saved = { v: 1, filter: {}, line: 1, turn: 0, mode: 'replay' };
    const restored = await loadWebview({ conversations: [human(0), traced(), human(2)], savedState: saved });
    try {
      await restored.waitFor('.conv-id', /sim-1/);
      assert.deepEqual((restored.posted[0] as { first?: unknown }).first, {
        requestId: (restored.posted[0] as { first: { requestId: number } }).first.requestId,
        line: 1,
      });
      // (Asked again only to find its position in the view, same line.)
      assert.ok(
        restored.posted.filter((m) => m.type === 'openConversation').every((m) => (m as { line: number }).line === 1),
      );
    } finally {
      restored.close();
    }
    // "Open at conversation" (a violation link, Go to conversation): the host reveals line 3 in
    // init and does not answer the request sent with "ready"; the page asks for line 3.
    const revealed = await loadWebview({
      conversations: [human(0), traced(), human(2)],
      savedState: saved,
      init: { reveal: { line: 2 } },
    });
    try {
      await revealed.waitFor('.conv-id', /^h-2$/);
      const opens = revealed.posted.filter((m) => m.type === 'openConversation');
      assert.ok(opens.length > 0 && opens.every((m) => (m as { line: number }).line === 2), JSON.stringify(opens));
    } finally {
      revealed.close();
    }
  });

  test("list keys pressed before the list (or the selection's place in it) arrived are kept, not lost", async () => {
    const hx = await loadWebview({ conversations: [human(0), human(1), human(2)], indexDelayMs: 300 });
    try {
      await hx.waitFor('.conv-id', /^h-0$/);
      // The first conversation is on screen; the list is still on its way.
      assert.doesNotMatch(hx.document.querySelector('.list-status')?.textContent ?? '', /of 3 conversations/);
      hx.key(']');
      hx.key(']');
      await hx.waitFor('.conv-id', /^h-2$/);
    } finally {
      hx.close();
    }
  });

  test('agenda diff helper', () => {
    assert.deepEqual(multisetMinus(['a', 'b', 'a'], ['a']), ['b', 'a']);
    assert.deepEqual(multisetMinus([], ['a']), []);
  });
});
