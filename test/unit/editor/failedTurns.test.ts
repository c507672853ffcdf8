/**
 * Run failures in the conversation editor: a failed agent turn replaces the assistant bubble with
 * a "Recommender failed (<kind>)" block (icon + text, untrusted message as text), the list shows an
 * `agent_error` outcome badge, and the outcome filter offers and sends `agent_error`; the same for
 * `simulator_error` (the simulated user could not speak).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Conversation } from '../../../src/core/model';
import { SummaryIndex } from '../../../src/core/document';
import { loadWebview } from './webviewHarness';
import { failureHeadline } from '../../../webview/editor/transcript';

const PAYLOAD = '<img src=x onerror="window.__xss(\'failure\')">timed out';

function failed(): Conversation {
  return {
    id: 'sim-fail-1',
    task_id: 'footwear_good',
    source: 'agenda-cir6',
    outcome: 'agent_error',
    turns: [
      {
        user_utterance: 'I want boots',
        assistant_utterance: 'Which size?',
        trace: { user_act: 'Disclose', agenda: ['Inquire'] },
      },
      {
        user_utterance: 'Size 42 please',
        trace: { user_act: 'Disclose', agenda: ['Inquire'], error: PAYLOAD, error_kind: 'agent_timeout' },
      },
    ],
  };
}

describe('failed runs in the editor', () => {
  test('summaries carry the agent_error outcome, count it as a facet and filter on it', () => {
    const s = new SummaryIndex(3);
    const ok = { id: 'ok', turns: [{ user_utterance: 'hi', assistant_utterance: 'hello' }], outcome: 'accepted' };
    s.set(0, { kind: 'valid', line: 1, conversation: ok as never });
    s.set(1, { kind: 'valid', line: 2, conversation: failed() as never });
    s.set(2, { kind: 'valid', line: 3, conversation: { ...failed(), id: 'sim-fail-2' } as never });
    assert.equal(s.summary(1).outcome, 'agent_error');
    assert.deepEqual(s.facets().outcome, [
      ['accepted', 1],
      ['agent_error', 2],
    ]);
    assert.deepEqual([...s.filterLines({ outcome: 'agent_error' })], [1, 2]);
    assert.deepEqual([...s.filterLines({ outcome: 'accepted' })], [0]);
  });

  test('headline names who failed and the failure class', () => {
    assert.equal(failureHeadline('agent_timeout'), 'Recommender failed (agent_timeout)');
    assert.equal(failureHeadline(undefined), 'Recommender failed (unknown)');
    assert.equal(failureHeadline('user_llm'), 'Simulated user failed (user_llm)');
    assert.equal(failureHeadline('simulator_error'), 'Simulator failed (simulator_error)');
  });

  test('replay: the failed turn shows the failure where the assistant bubble would be, as text', async () => {
    const hx = await loadWebview({ conversations: [failed()] });
    try {
      await hx.waitFor('.conv-id', /sim-fail-1/);
      const turns = hx.document.querySelectorAll('section.turn');
      assert.equal(turns.length, 2);
      assert.equal(turns[0].querySelector('.agent-failure'), null);
      const box = turns[1].querySelector('.msg.assistant.agent-failure');
      assert.ok(box, 'failed turn has a failure block in the assistant slot');
      assert.match(box!.textContent ?? '', /Recommender failed \(agent_timeout\)/);
      // The message is shown verbatim as text, never as markup.
      assert.ok((box!.textContent ?? '').includes(PAYLOAD));
      assert.equal(box!.querySelector('img'), null);
      assert.ok(box!.querySelector('.codicon-error'), 'an icon, not colour alone');
      assert.equal(
        turns[1].querySelectorAll('.msg.assistant').length,
        1,
        'no empty assistant bubble besides the failure',
      );
      // The user utterance of the failed turn is still there.
      assert.match(turns[1].querySelector('.msg.user')?.textContent ?? '', /Size 42 please/);
      // The state panel at the failed turn names the failure class too.
      hx.key('End');
      await hx.waitFor('.state-panel .error-box', /agent_timeout/);
      assert.equal(
        hx.document.querySelector('.state-panel')?.textContent?.includes('Other trace fields'),
        false,
        'error_kind is not dumped as an unknown field',
      );
      await hx.settle(30);
      assert.deepEqual(hx.fired, []);
    } finally {
      hx.close();
    }
  });

  test('header: a failure no turn records (simulator crash) shows under the header, a turn failure only on its turn', async () => {
    const crash: Conversation = {
      id: 'crash-1',
      source: 'agenda-cir6',
      outcome: 'ended',
      turns: [{ user_utterance: 'hi', assistant_utterance: 'hello' }],
      metadata: { error: `TypeError ${PAYLOAD}` },
    };
    const agent: Conversation = {
      ...failed(),
      id: 'agent-1',
      metadata: { error: PAYLOAD, error_kind: 'agent_timeout' },
    };
    const hx = await loadWebview({ conversations: [crash, agent] });
    try {
      await hx.waitFor('.conv-id', /crash-1/);
      const box = hx.document.querySelector('.conv-header .conv-failure');
      assert.match(box?.textContent ?? '', /^ Simulator failed \(simulator_error\)TypeError /);
      assert.ok(box?.querySelector('.codicon-error'));
      hx.key(']');
      await hx.waitFor('.conv-id', /agent-1/);
      assert.equal(hx.document.querySelector('.conv-header .conv-failure'), null, 'not repeated under the header');
      assert.equal(hx.document.querySelectorAll('.agent-failure').length, 1);
      assert.deepEqual(hx.fired, []);
    } finally {
      hx.close();
    }
  });

  test('list: agent_error badge with an icon; the outcome filter offers and sends agent_error', async () => {
    const hx = await loadWebview({ conversations: [failed()] });
    try {
      await hx.waitFor('.conv-id', /sim-fail-1/);
      const badge = await hx.waitFor('.row .chip.outcome-agent_error', /agent_error/);
      assert.ok(badge.querySelector('.codicon'), 'badge has an icon');
      hx.send({
        type: 'view',
        viewVersion: 99,
        count: 1,
        facets: {
          task: [],
          condition: [],
          source: [],
          outcome: [['agent_error', 1]],
          annotator: [],
          valid: 1,
          invalid: 0,
          blank: 0,
          pending: 0,
        },
        filter: {},
        partial: false,
        ms: 1,
      });
      await hx.settle(20);
      const select = hx.document.querySelector('select[name="outcome"]') as HTMLSelectElement;
      const values = Array.from(select.options).map((o) => o.value);
      assert.ok(values.includes('agent_error'), `outcome options: ${values.join(', ')}`);
      select.value = 'agent_error';
      select.dispatchEvent(new hx.window.Event('change'));
      await hx.settle(20);
      const sent = hx.posted.filter((m) => m.type === 'setFilter').pop();
      assert.deepEqual(sent, { type: 'setFilter', filter: { outcome: 'agent_error' } });
    } finally {
      hx.close();
    }
  });

  test('simulator_error: a facet, a filter and a failure badge in the list (not a user outcome)', async () => {
    const muted: Conversation = {
      id: 'sim-mute-1',
      task_id: 'footwear_good',
      source: 'llm-icl',
      outcome: 'simulator_error',
      metadata: { error: 'replies stayed empty after 3 attempts', error_kind: 'user_llm' },
      turns: [
        { user_utterance: 'I want boots', assistant_utterance: 'Which size?' },
        { trace: { operation: 'end', error: 'replies stayed empty after 3 attempts', error_kind: 'user_llm' } },
      ],
    };
    const s = new SummaryIndex(2);
    s.set(0, {
      kind: 'valid',
      line: 1,
      conversation: {
        id: 'ok',
        turns: [{ user_utterance: 'hi', assistant_utterance: 'hello' }],
        outcome: 'ended',
      } as never,
    });
    s.set(1, { kind: 'valid', line: 2, conversation: muted as never });
    assert.deepEqual(s.facets().outcome, [
      ['ended', 1],
      ['simulator_error', 1],
    ]);
    assert.deepEqual([...s.filterLines({ outcome: 'simulator_error' })], [1]);
    const hx = await loadWebview({ conversations: [muted] });
    try {
      const badge = await hx.waitFor('.row .chip.outcome-simulator_error', /simulator_error/);
      assert.ok(
        badge.classList.contains('error') && badge.querySelector('.codicon'),
        'styled as a failure, with an icon',
      );
      assert.match(badge.getAttribute('title') ?? '', /not a user outcome/);
      assert.match(hx.document.querySelector('.transcript')?.textContent ?? '', /Simulated user failed \(user_llm\)/);
    } finally {
      hx.close();
    }
  });
});
