import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Conversation } from '../../../src/core/model';
import { loadWebview } from './webviewHarness';
import { preferencesAt } from '../../../webview/editor/tracePanel';

/** Seven turns; preferences recorded as a snapshot at turn 1 and deltas at turns 6 and 7 only (as the agenda user writes them). */
function sparse(): Conversation {
  return {
    id: 'prefs-1',
    turns: Array.from({ length: 7 }, (_, i): Conversation['turns'][number] => ({
      user_utterance: `u${i + 1}`,
      assistant_utterance: `a${i + 1}`,
      trace: {
        user_act: 'Disclose',
        ...(i === 0
          ? {
              agenda: ['Disclose', 'Complete'],
              goal: { constraints: { genre: 'sci-fi' }, requests: [] },
              preferences: { kind: 'snapshot' as const, model: 'single', liked_items: ['m1'] },
            }
          : {}),
        ...(i === 5 ? { preferences: { kind: 'delta' as const, model: 'single', liked_items: ['m2'] } } : {}),
        ...(i === 6
          ? {
              preferences: { kind: 'delta' as const, model: 'single', disliked_items: ['m3'] },
              goal: { constraints: { genre: 'horror' }, requests: [] },
            }
          : {}),
      },
    })),
  };
}

function sectionTitles(doc: Document): string[] {
  return [...doc.querySelectorAll('.state-panel .state-section h3')].map((e) => (e.textContent ?? '').trim());
}

describe('trace panel shows the full state at every turn', () => {
  test('preference deltas fold into the snapshot; this turn’s additions are marked', () => {
    const conv = sparse();
    assert.deepEqual(preferencesAt(conv, 3)?.state.liked_items, ['m1']);
    assert.equal(preferencesAt(conv, 3)?.changed, false);
    const t6 = preferencesAt(conv, 5)!;
    assert.deepEqual([t6.state.liked_items, [...t6.added], t6.changed], [['m1', 'm2'], ['m2'], true]);
    const t7 = preferencesAt(conv, 6)!;
    assert.deepEqual([t7.state.liked_items, t7.state.disliked_items, [...t7.added]], [['m1', 'm2'], ['m3'], ['m3']]);
  });

  test('sections never come and go while stepping through turns', async () => {
    const hx = await loadWebview({ conversations: [sparse()] });
    try {
      await hx.waitFor('.conv-id', /prefs-1/);
      hx.key('Home');
      const seen: string[][] = [];
      for (let t = 0; t < 7; t++) {
        await hx.settle(5);
        seen.push(sectionTitles(hx.document).map((x) => x.replace(/\s*\(.*\)$/, '')));
        if (t === 3) {
          assert.match(hx.document.querySelector('.state-panel')?.textContent ?? '', /liked items\s*m1/);
          assert.match(hx.document.querySelector('.state-panel')?.textContent ?? '', /unchanged since turn 1/);
        }
        if (t === 5) assert.equal(hx.document.querySelector('.state-panel .chip.added')?.textContent, 'm2');
        hx.key('ArrowRight');
      }
      for (const titles of seen)
        assert.deepEqual(titles, seen[0], `sections differ between turns: ${JSON.stringify(seen)}`);
      assert.ok(seen[0].includes('Preferences') && seen[0].includes('Goal') && seen[0].includes('Agenda'));
    } finally {
      hx.close();
    }
  });
});
