/**
 * When a conversation file's index (one read of the whole file, src/core/document) starts. A file
 * under `nowBytes` at once. A larger one once its editor page has said "ready" and had `afterReadyMs`
 * to draw its first conversation (read from line 1 apart from the index), and at the latest `maxMs`
 * after the open (a page that never says "ready": hidden, failed). On two cores the scan of a large
 * file otherwise runs beside VS Code delivering the page's HTML and the page's first render: the
 * first conversation of a 147 MB file reached the screen about 0.1 s after a small file's (issue 26
 * item 20, bench/RESULTS.md "Editor first render"). No `vscode` import: unit-tested with fake events.
 */

/** Files from this size on are indexed after their page's first render. */
const INDEX_NOW_BYTES = 8 * 1024 * 1024;
/** After the page's "ready": time for its first render before the index starts. */
const INDEX_AFTER_READY_MS = 250;
/** The index starts at the latest this long after the open. */
const INDEX_START_MAX_MS = 2000;

interface IndexGateOptions {
  /** The file's size in bytes. */
  size: number;
  /** Subscribes to this file's page saying "ready"; the returned object unsubscribes. */
  onPageReady: (listener: () => void) => { dispose(): void };
  /** The open was cancelled or the editor closed: the gate opens at once (the index then stops on its own signal). */
  signal: AbortSignal;
  /** Called once when the gate does not open at once. */
  onWait?: () => void;
  nowBytes?: number;
  afterReadyMs?: number;
  maxMs?: number;
}

/** Resolves when the index may start (never rejects). */
export function indexGate(o: IndexGateOptions): Promise<void> {
  if (o.size < (o.nowBytes ?? INDEX_NOW_BYTES) || o.signal.aborted) return Promise.resolve();
  o.onWait?.();
  return new Promise<void>((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const open = () => {
      clearTimeout(timer);
      sub.dispose();
      o.signal.removeEventListener('abort', open);
      resolve();
    };
    const sub = o.onPageReady(() => {
      clearTimeout(timer);
      timer = setTimeout(open, o.afterReadyMs ?? INDEX_AFTER_READY_MS);
    });
    timer = setTimeout(open, o.maxMs ?? INDEX_START_MAX_MS);
    o.signal.addEventListener('abort', open, { once: true });
  });
}
