import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Conversation } from '../../../src/core/model';
import { loadWebview } from './webviewHarness';

function conv(i: number, task: string, condition: string): Conversation {
  return {
    id: `c-${i}`,
    task_id: task,
    condition,
    turns: [{ user_utterance: `hello ${i}`, assistant_utterance: 'hi' }],
  } as Conversation;
}

test('filters: facet selects live in a "Filters" popover (one control row at any width), labelled, keyboard operable', async () => {
  const hx = await loadWebview({
    conversations: [conv(1, 'shoes', 'good'), conv(2, 'coats', 'bad'), conv(3, 'coats', 'good')],
  });
  try {
    await hx.waitFor('.conv-id', /c-1/);
    // Let the host's own first view arrive, so it cannot replace the one this test sends below.
    await hx.settle();
    const doc = hx.document;
    const toggle = doc.querySelector('.filters button.filters-toggle') as HTMLButtonElement;
    assert.ok(toggle, 'a Filters button in the toolbar');
    const popover = doc.getElementById(toggle.getAttribute('aria-controls') ?? '') as HTMLElement;
    assert.ok(popover, 'the button controls the popover');
    assert.equal(toggle.getAttribute('aria-expanded'), 'false');
    assert.equal(popover.hidden, true);
    // Every facet select is inside the popover, with a visible label; the search box stays in the row.
    const selects = ([...doc.querySelectorAll('.filters select.filter')] as HTMLSelectElement[]).filter(
      (s) => s.name !== 'speaker',
    );
    assert.ok(selects.length >= 6);
    for (const s of selects) {
      assert.ok(popover.contains(s), `${s.name} is in the popover`);
      assert.ok(s.closest('label')?.textContent?.trim(), `${s.name} has a visible label`);
    }
    assert.ok(!popover.contains(doc.querySelector('input.search')), 'search stays in the toolbar row');
    // Open, choose a condition: the button counts the active facet filters.
    toggle.click();
    assert.equal(toggle.getAttribute('aria-expanded'), 'true');
    assert.equal(popover.hidden, false);
    hx.send({
      type: 'view',
      viewVersion: 99,
      count: 3,
      facets: {
        task: [
          ['coats', 2],
          ['shoes', 1],
        ],
        condition: [
          ['good', 2],
          ['bad', 1],
        ],
        source: [],
        outcome: [],
        annotator: [],
        valid: 3,
        invalid: 0,
        blank: 0,
        pending: 0,
      },
      filter: {},
      partial: false,
      ms: 1,
    });
    await hx.settle(20);
    const condition = doc.querySelector('select[name="condition"]') as HTMLSelectElement;
    condition.value = 'bad';
    condition.dispatchEvent(new hx.window.Event('change'));
    await hx.settle(20);
    assert.deepEqual(hx.posted.filter((m) => m.type === 'setFilter').pop(), {
      type: 'setFilter',
      filter: { condition: 'bad' },
    });
    assert.match(toggle.textContent ?? '', /Filters\s*\(1\)/);
    // Escape closes it and gives focus back to the button.
    condition.focus();
    condition.dispatchEvent(new hx.window.KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    assert.equal(popover.hidden, true);
    assert.equal(toggle.getAttribute('aria-expanded'), 'false');
    assert.equal(doc.activeElement, toggle);
  } finally {
    hx.close();
  }
});
