/**
 * The seam's typed channel (src/shared/rpc.ts) and the versioned view state: replies correlated
 * by id, stale and unknown replies dropped (counted), events by type, zod at the host edge; a view
 * state of another version (or none) dropped with a reason, on the host and in the page.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { RpcClient } from '../../../src/shared/rpc';
import {
  parseViewState,
  parseWebviewMessage,
  VIEW_STATE_VERSION,
  type HostMessage,
  type WebviewMessage,
} from '../../../src/shared/editorProtocol';
import { loadWebview } from './webviewHarness';

type Conv = Extract<HostMessage, { type: 'conversation' }>;
const conv = (requestId: number, line: number): Conv => ({
  type: 'conversation',
  requestId,
  line,
  id: `c${line}`,
  viewIndex: line,
});

describe('rpc channel', () => {
  test('a reply goes to its request; a newer request of the same key makes the older reply stale (dropped)', () => {
    const sent: WebviewMessage[] = [];
    const rpc = new RpcClient<WebviewMessage, HostMessage>((m) => sent.push(m));
    const got: number[] = [];
    const a = rpc.request(
      'conversation',
      (requestId) => ({ type: 'openConversation', requestId, line: 1 }),
      (m) => got.push((m as Conv).line),
    );
    const b = rpc.request(
      'conversation',
      (requestId) => ({ type: 'openConversation', requestId, line: 2 }),
      (m) => got.push((m as Conv).line),
    );
    assert.notEqual(a, b);
    assert.deepEqual(
      sent.map((m) => (m as { requestId: number }).requestId),
      [a, b],
    );
    // Answers arrive out of order: the newer one is shown, the older one is dropped.
    rpc.receive(conv(b, 2));
    rpc.receive(conv(a, 1));
    assert.deepEqual(got, [2]);
    assert.equal(rpc.dropped, 1);
    // A second answer to the same id, and an answer to an id never asked, are dropped too.
    rpc.receive(conv(b, 2));
    rpc.receive(conv(999, 9));
    assert.deepEqual(got, [2]);
    assert.equal(rpc.dropped, 3);
  });

  test('keys are independent; stale answers can be counted instead of dropped; cancel drops a late answer', () => {
    const rpc = new RpcClient<WebviewMessage, HostMessage>(() => undefined);
    const log: string[] = [];
    const page0 = rpc.request(
      'page:0',
      (requestId) => ({ type: 'requestPage', requestId, viewVersion: 1, start: 0, count: 100 }),
      () => log.push('page0'),
    );
    const e1 = rpc.request(
      'annotate',
      (requestId) => ({ type: 'annotate', requestId, line: 0, turn: 0, speaker: 'user', acts: ['a'] }),
      { reply: () => log.push('e1'), stale: () => log.push('e1 stale') },
    );
    const e2 = rpc.request(
      'annotate',
      (requestId) => ({ type: 'annotate', requestId, line: 0, turn: 0, speaker: 'user', acts: ['b'] }),
      { reply: () => log.push('e2'), stale: () => log.push('e2 stale') },
    );
    const c = rpc.request(
      'conversation',
      (requestId) => ({ type: 'openConversation', requestId, line: 0 }),
      () => log.push('conv'),
    );
    assert.equal(rpc.waiting('conversation'), true);
    rpc.cancel('conversation');
    assert.equal(rpc.waiting('conversation'), false);
    const changed = (requestId: number): HostMessage => ({
      type: 'annotationsChanged',
      line: 0,
      conversation: { turns: [] } as never,
      requestId,
    });
    rpc.receive(changed(e1));
    rpc.receive(changed(e2));
    rpc.receive({ type: 'page', requestId: page0, viewVersion: 1, start: 0, rows: [] });
    rpc.receive(conv(c, 0));
    assert.deepEqual(log, ['e1 stale', 'e2', 'page0']);
    assert.equal(rpc.dropped, 1);
  });

  test('events are routed by type; an event type may let unmatched ids through', () => {
    const rpc = new RpcClient<WebviewMessage, HostMessage>(() => undefined);
    const seen: string[] = [];
    rpc
      .on('notice', (m) => seen.push(`notice ${m.message}`))
      .on('annotationsChanged', (m) => seen.push(`changed ${m.line}`));
    rpc.receive({ type: 'notice', level: 'info', message: 'hi' });
    rpc.receive({ type: 'annotationsChanged', line: 3, conversation: { turns: [] } as never });
    // An answer to an edit made before the page reloaded: not an event unless allowed.
    rpc.receive({ type: 'annotationsChanged', line: 4, conversation: { turns: [] } as never, requestId: 77 });
    rpc.allowUnmatched('annotationsChanged');
    rpc.receive({ type: 'annotationsChanged', line: 5, conversation: { turns: [] } as never, requestId: 78 });
    rpc.receive({ type: 'indexed', lineCount: 1, fileSize: 1 });
    assert.deepEqual(seen, ['notice hi', 'changed 3', 'changed 5']);
    assert.equal(rpc.dropped, 2);
  });

  test('the host edge validates with zod and names the field', () => {
    assert.equal(parseWebviewMessage({ type: 'openConversation', requestId: 1, line: 3 }).ok, true);
    const bad = parseWebviewMessage({ type: 'openConversation', requestId: -1, line: 3 });
    assert.equal(bad.ok, false);
    assert.match((bad as { error: string }).error, /requestId/);
    assert.equal(parseWebviewMessage({ type: 'nope' }).ok, false);
  });
});

describe('persisted view state: versioned and validated', () => {
  const good = { v: VIEW_STATE_VERSION, filter: {}, mode: 'replay', line: 2 };

  test('this version is read; no version, another version, a wrong shape are dropped with a reason', () => {
    assert.deepEqual(parseViewState(good), { ok: true, state: good });
    const whole = { ...good, wholeCards: [0, 3] };
    assert.deepEqual(parseViewState(whole), { ok: true, state: whole }, 'the carousels showing whole cards are kept');
    assert.equal(parseViewState(undefined), undefined);
    const cases: Array<[unknown, RegExp]> = [
      [{ filter: {}, mode: 'replay' }, /has no version/],
      [{ ...good, v: 0 }, /is version 0/],
      [{ ...good, v: VIEW_STATE_VERSION + 1 }, new RegExp(`is version ${VIEW_STATE_VERSION + 1}`)],
      [{ ...good, mode: 'edit' }, /mode/],
      [{ ...good, line: -3 }, /line/],
      [{ ...good, wholeCards: [1.5] }, /wholeCards/],
      ['a string', /not an object/],
      [[1, 2], /not an object/],
    ];
    for (const [raw, why] of cases) {
      const r = parseViewState(raw);
      assert.equal(r?.ok, false, JSON.stringify(raw));
      assert.match((r as { reason: string }).reason, why);
      assert.match((r as { reason: string }).reason, /dropped/);
    }
  });

  test('the page drops an unversioned state of its own and of the file, logs why, and opens fresh', async () => {
    const human = (i: number) => ({
      id: `h-${i}`,
      turns: [{ user_utterance: `hello ${i}`, assistant_utterance: 'hi' }],
    });
    const hx = await loadWebview({
      conversations: [human(0), human(1)],
      savedState: { filter: {}, line: 1, mode: 'annotate' },
      pageViewState: { v: 99, filter: {}, line: 1, mode: 'annotate' },
    });
    try {
      await hx.waitFor('.conv-id', /^h-0$/);
      await hx.settle();
      const logs = hx.logged.map((l) => l.message);
      assert.ok(
        logs.some((m) => /webview: page saved view state has no version/.test(m)),
        logs.join('\n'),
      );
      assert.ok(
        logs.some((m) => /webview: file saved view state is version 99/.test(m)),
        logs.join('\n'),
      );
      assert.equal((hx.state() as { mode?: string } | undefined)?.mode ?? 'replay', 'replay');
    } finally {
      hx.close();
    }
    // The same states with this version are restored (so the test above can fail).
    const ok = await loadWebview({
      conversations: [human(0), human(1)],
      savedState: { v: VIEW_STATE_VERSION, filter: {}, line: 1, mode: 'annotate' },
    });
    try {
      await ok.waitFor('.conv-id', /^h-1$/);
      await ok.waitFor('.annotate-panel');
      assert.deepEqual(
        ok.logged.filter((l) => /view state/.test(l.message)),
        [],
      );
    } finally {
      ok.close();
    }
  });
});
