import { test } from 'node:test';
import assert from 'node:assert/strict';
import { indexGate } from '../../../src/extension/editor/indexGate';

/** A page-ready event of our own: `fire()` plays the page saying "ready". */
function readyEvent() {
  const listeners = new Set<() => void>();
  return {
    on: (l: () => void) => {
      listeners.add(l);
      return { dispose: () => listeners.delete(l) };
    },
    fire: () => [...listeners].forEach((l) => l()),
    get count() {
      return listeners.size;
    },
  };
}

const settled = async (p: Promise<void>, ms: number) =>
  Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

test('a small file is indexed at once; a large one after its page said ready and had time to draw', async () => {
  const ev = readyEvent();
  const signal = new AbortController().signal;
  assert.equal(await settled(indexGate({ size: 1000, onPageReady: ev.on, signal, nowBytes: 10_000 }), 5), true);
  assert.equal(ev.count, 0, 'a small file does not listen for the page');
  let waited = 0;
  const gate = indexGate({
    size: 20_000,
    onPageReady: ev.on,
    signal,
    nowBytes: 10_000,
    afterReadyMs: 30,
    maxMs: 5_000,
    onWait: () => waited++,
  });
  assert.equal(waited, 1);
  assert.equal(await settled(gate, 40), false, 'no ready yet: the index waits');
  ev.fire();
  assert.equal(await settled(gate, 5), false, 'the page gets its time to draw first');
  assert.equal(await settled(gate, 60), true);
  assert.equal(ev.count, 0, 'the listener is gone once the gate opened');
});

test('a page that never says ready does not hold the index back past maxMs; closing the editor opens the gate', async () => {
  const ev = readyEvent();
  const slow = indexGate({
    size: 20_000,
    onPageReady: ev.on,
    signal: new AbortController().signal,
    nowBytes: 10_000,
    maxMs: 30,
  });
  assert.equal(await settled(slow, 80), true);
  const ac = new AbortController();
  const closed = indexGate({ size: 20_000, onPageReady: ev.on, signal: ac.signal, nowBytes: 10_000, maxMs: 5_000 });
  ac.abort();
  assert.equal(await settled(closed, 5), true);
  assert.equal(ev.count, 0);
  const aborted = new AbortController();
  aborted.abort();
  assert.equal(
    await settled(indexGate({ size: 20_000, onPageReady: ev.on, signal: aborted.signal, nowBytes: 10_000 }), 5),
    true,
  );
});
