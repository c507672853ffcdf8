/**
 * The transcript's first render (webview/editor/transcript.ts, `deferCards`): cards unlikely to be
 * on screen are drawn as empty cards of their final size, and `fillDeferredCards` fills those very
 * elements so that the transcript is the one drawn at once. Run in jsdom on the module itself (the
 * page-level test is in webview.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JSDOM } from 'jsdom';
import type { Conversation } from '../../../src/core/model';
import { fillDeferredCards, renderTranscript } from '../../../webview/editor/transcript';

const dom = new JSDOM('<!DOCTYPE html><body></body>');
const g = globalThis as unknown as Record<string, unknown>;
for (const k of ['window', 'document', 'HTMLElement', 'Node', 'Element', 'Image', 'HTMLImageElement'])
  g[k] ??= (dom.window as unknown as Record<string, unknown>)[k];

function conversation(turns: number, cards: number): Conversation {
  return {
    id: 'c',
    turns: Array.from({ length: turns }, (_, t) => ({
      user_utterance: `u${t}`,
      assistant_utterance: `a${t}`,
      recommendations: Array.from({ length: cards }, (_, i) => ({
        item_id: `t${t}-${i}`,
        title: `Item ${t}.${i}`,
        description: `About ${t}.${i}`,
        features: 'Soft, Light',
        score: i / cards,
      })),
    })),
  };
}

test('cards out of view are drawn empty, and filled in place as if drawn at once', () => {
  const opts = {
    allowRemoteImages: false,
    turn: 2,
    mode: 'replay' as const,
    annotator: 'a',
    onSelectUtterance: () => undefined,
    onSelectTurn: () => undefined,
  };
  const conv = conversation(5, 12);
  const eager = renderTranscript(conv, opts).innerHTML;
  assert.equal(fillDeferredCards(), false, 'nothing deferred without deferCards');
  const lazy = renderTranscript(conv, { ...opts, deferCards: { near: 2 } });
  const cards = [...lazy.querySelectorAll<HTMLElement>('.card')];
  const empty = cards.filter((c) => c.childElementCount === 0);
  const perTurn = (t: number) =>
    [...lazy.querySelectorAll(`section.turn[data-turn="${t}"] .card`)].filter((c) => c.childElementCount > 0).length;
  // turns 1-3 (near 2) draw their first 6 cards; turns 0 and 4 none
  assert.deepEqual([0, 1, 2, 3, 4].map(perTurn), [0, 6, 6, 6, 0]);
  assert.equal(empty.length, 60 - 18);
  assert.equal(fillDeferredCards(), true);
  assert.ok(
    empty.every((c) => c.childElementCount > 0),
    'the very cards drawn empty are filled',
  );
  assert.equal(lazy.innerHTML, eager, 'the same transcript as drawn at once');
  assert.equal(fillDeferredCards(), false, 'filled once');
  // A carousel showing whole cards is drawn at once (its cards have their own heights).
  const whole = renderTranscript(conv, { ...opts, wholeCards: new Set([0]), deferCards: { near: 4 } });
  assert.equal(
    [...whole.querySelectorAll('section.turn[data-turn="0"] .card')].filter((c) => c.childElementCount === 0).length,
    0,
  );
  // A new transcript drops the fillers of the last one (its cards are gone).
  renderTranscript(conv, opts);
  assert.equal(fillDeferredCards(), false);
});
