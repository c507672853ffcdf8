/**
 * The page's first render asks the browser for no layout before its first frame: the list reads
 * its viewport's height only once it has rows to show, and the transcript's scroll position (the
 * focused turn brought into view, or the position of last time) is set in the first frame's
 * callback, before that frame is painted. A script that reads a size or sets a scroll position
 * makes the browser lay the page out there and then, and the frame lays it out again.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Conversation } from '../../../src/core/model';
import { VIEW_STATE_VERSION } from '../../../src/shared/editorProtocol';
import { loadWebview } from './webviewHarness';

function conv(i: number): Conversation {
  return {
    id: `c-${i}`,
    turns: [
      { user_utterance: `first ${i}`, assistant_utterance: 'one' },
      { user_utterance: `second ${i}`, assistant_utterance: 'two' },
      { user_utterance: `third ${i}`, assistant_utterance: 'three' },
    ],
  };
}

const conversations = [conv(0), conv(1), conv(2)];

/** Watches the page: reads of the list viewport's height, scrollIntoView calls and scrollTop writes, in order. */
function watch(log: string[]) {
  return (window: Window & typeof globalThis) => {
    const proto = window.HTMLElement.prototype;
    Object.defineProperty(proto, 'clientHeight', {
      configurable: true,
      get(this: HTMLElement) {
        if (this.classList.contains('list-viewport')) log.push('list height');
        return 0;
      },
    });
    Object.defineProperty(window.Element.prototype, 'scrollIntoView', {
      configurable: true,
      value(this: Element) {
        log.push(`scrollIntoView ${this.tagName.toLowerCase()}[data-turn=${(this as HTMLElement).dataset.turn}]`);
      },
    });
    const top = Object.getOwnPropertyDescriptor(window.Element.prototype, 'scrollTop')!;
    Object.defineProperty(window.Element.prototype, 'scrollTop', {
      configurable: true,
      get(this: Element) {
        return top.get!.call(this) as number;
      },
      set(this: Element, v: number) {
        if (this.classList.contains('transcript-scroll')) log.push(`scrollTop ${v}`);
        top.set!.call(this, v);
      },
    });
  };
}

describe('no layout before the first frame', () => {
  test('a fresh page: the focused turn is brought into view in the first frame, the list reads no size before its view', async () => {
    const log: string[] = [];
    const hx = await loadWebview({
      conversations,
      boot: true,
      beforeScript: watch(log),
      afterScript: () => log.push('script ran'),
      onFrame: () => log.push('frame'),
    });
    try {
      assert.equal(hx.idAtLoad, 'c-0', 'drawn by the script, from the HTML');
      await hx.waitFor('.list-status', /of 3 conversations/);
      await hx.settle();
      const firstFrame = log.indexOf('frame');
      assert.ok(firstFrame >= 0, 'a frame ran');
      // Nothing while the script runs; before the first frame, only the list once its view has arrived
      // with rows (here the host answers within a task; in a webview the frame mostly comes first).
      assert.equal(log[0], 'script ran', log.join(', '));
      assert.deepEqual(
        log.slice(1, firstFrame).filter((l) => l !== 'list height'),
        [],
        `no scroll before the first frame: ${log.join(', ')}`,
      );
      // The same scroll as before, in the first frame: the last turn (a conversation opens fully shown).
      assert.equal(log[firstFrame + 1], 'scrollIntoView section[data-turn=2]', log.join(', '));
      assert.equal(log.filter((l) => l.startsWith('scrollIntoView')).length, 1, log.join(', '));
      assert.ok(log.includes('list height'), 'the list measures its viewport once it has rows');
    } finally {
      hx.close();
    }
  });

  test('a page reopened: the transcript scroll of last time is set in the first frame', async () => {
    const log: string[] = [];
    const hx = await loadWebview({
      conversations,
      boot: true,
      pageViewState: { v: VIEW_STATE_VERSION, filter: {}, line: 1, mode: 'replay', turn: 1, transcriptScroll: 120 },
      beforeScript: watch(log),
      afterScript: () => log.push('script ran'),
      onFrame: () => log.push('frame'),
    });
    try {
      assert.equal(hx.idAtLoad, 'c-1');
      await hx.settle();
      const firstFrame = log.indexOf('frame');
      assert.equal(log[0], 'script ran', log.join(', '));
      assert.deepEqual(
        log.slice(1, firstFrame).filter((l) => l !== 'list height'),
        [],
        log.join(', '),
      );
      assert.equal(log[firstFrame + 1], 'scrollTop 120', log.join(', '));
      assert.equal(log.filter((l) => l.startsWith('scrollTop')).length, 1, log.join(', '));
    } finally {
      hx.close();
    }
  });
});
