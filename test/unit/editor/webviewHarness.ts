/**
 * Runs the real editor webview bundle (webview/editor/main.ts, bundled by esbuild) inside jsdom
 * with a fake `acquireVsCodeApi`, and a small fake host that answers its messages from a list of
 * conversations. Used by the webview UI tests and the XSS corpus test.
 */
import { webviewBundleFor } from '../../support/webviewBundle';
import { JSDOM } from 'jsdom';
import type { Conversation } from '../../../src/core/model';
import type { ConversationSummary, EditorInit, HostMessage, WebviewMessage } from '../../../src/shared/editorProtocol';
import { CONVAPPAREL_TAXONOMY } from '../../../src/core/taxonomy';
import { conversationId, conversationTask, conversationCondition, conversationSource, conversationOutcome } from '../../../src/core/model';

/** The webview bundle as a string (built once per test process). */
export function webviewBundle(): Promise<string> {
  return webviewBundleFor('editor');
}

export interface HarnessOptions {
  conversations?: Array<Conversation | { invalid: string }>;
  init?: Partial<EditorInit>;
  savedState?: unknown;
  /** Rows reported by the host (default: conversations.length). Lets a test pretend to be huge. */
  rowCount?: number;
  /** The view state the host puts in the page for this file (#app data-view-state), as after reopening it. */
  pageViewState?: unknown;
  /** Delays the host's view answers (a slow index): the first conversation arrives long before the list. */
  viewDelayMs?: number;
}

export interface Harness {
  dom: JSDOM;
  window: Window & typeof globalThis;
  document: Document;
  /** Messages the webview posted. */
  posted: WebviewMessage[];
  /** Names passed to window.__xss by any payload that managed to run. */
  fired: string[];
  /** Last state given to setState. */
  state(): unknown;
  send(msg: HostMessage): void;
  /** Waits `ms`, then until no host reply and no animation frame is pending (at most 5 s). */
  settle(ms?: number): Promise<void>;
  key(key: string, init?: KeyboardEventInit & { code?: string }, target?: Element): void;
  /** Waits until `selector`'s text matches (or, without `re`, the element exists); throws with what it shows. */
  waitFor(selector: string, re?: RegExp, timeoutMs?: number): Promise<Element>;
  close(): void;
}

type Row = Conversation | { invalid: string };
function isInvalid(c: Row): c is { invalid: string } {
  return !Array.isArray((c as { turns?: unknown }).turns);
}

function summaryOf(c: Conversation | { invalid: string }, line: number): ConversationSummary {
  if (isInvalid(c)) return { line, state: 'invalid', id: `line:${line + 1}`, turns: 0, snippet: '', error: c.invalid, annotators: 0 };
  return {
    line,
    state: 'valid',
    id: conversationId(c, line + 1),
    task: conversationTask(c),
    condition: conversationCondition(c),
    source: conversationSource(c),
    turns: c.turns.length,
    outcome: conversationOutcome(c),
    snippet: c.turns[0]?.user_utterance ?? '',
    annotators: new Set(c.turns.flatMap((t) => (t.annotations ?? []).map((a) => a.annotator))).size,
  };
}

/** Loads the webview with a fake host answering from `opts.conversations`. */
export async function loadWebview(opts: HarnessOptions = {}): Promise<Harness> {
  const code = await webviewBundle();
  const conversations = opts.conversations ?? [];
  const rowCount = opts.rowCount ?? conversations.length;
  const pageState = opts.pageViewState === undefined ? '' : ` data-view-state="${JSON.stringify(opts.pageViewState).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;')}"`;
  const dom = new JSDOM(`<!DOCTYPE html><html><head></head><body><div id="app" class="app"${pageState}></div></body></html>`, {
    runScripts: 'dangerously',
    pretendToBeVisual: true,
    url: 'https://webview.test/index.html',
  });
  const window = dom.window as unknown as Window & typeof globalThis;
  const posted: WebviewMessage[] = [];
  const fired: string[] = [];
  let state: unknown = opts.savedState;
  const w = window as unknown as Record<string, unknown>;
  w.__xss = (name: string) => fired.push(String(name));
  // Conversation state held by the fake host, so annotations round-trip like with the real one.
  const convs: Row[] = conversations.map((c) => (isInvalid(c) ? c : (JSON.parse(JSON.stringify(c)) as Conversation)));
  const send = (msg: HostMessage) => window.dispatchEvent(new window.MessageEvent('message', { data: JSON.parse(JSON.stringify(msg)) }));
  // Work still queued for the page: host replies not yet delivered and animation frames not yet
  // run. settle() waits for both, so a loaded machine cannot outrun a chain of replies.
  let pending = 0;
  const later = (fn: () => void, ms: number) => {
    pending++;
    window.setTimeout(() => {
      try {
        fn();
      } finally {
        pending--;
      }
    }, ms);
  };
  const reply = (msg: HostMessage) => later(() => send(msg), 0);
  const raf = window.requestAnimationFrame.bind(window);
  window.requestAnimationFrame = (cb: FrameRequestCallback) => {
    pending++;
    return raf((t) => {
      try {
        cb(t);
      } finally {
        pending--;
      }
    });
  };
  let viewVersion = 0;
  const host = (m: WebviewMessage) => {
    switch (m.type) {
      case 'ready':
        reply({
          type: 'init',
          init: {
            fileName: 'test.conv.jsonl',
            filePath: '/tmp/test.conv.jsonl',
            fileSize: 1000,
            lineCount: rowCount,
            annotator: 'alice',
            taxonomy: CONVAPPAREL_TAXONOMY,
            allowRemoteImages: false,
            replayIntervalMs: 50,
            ...opts.init,
          },
        });
        // Like the real host (EditorSession.onReady): the conversation asked for with "ready"
        // follows init, unless there is one to reveal or the file is offered for conversion.
        if (m.first && !opts.init?.reveal && !opts.init?.importable) host({ type: 'openConversation', ...m.first });
        return;
      case 'setFilter': {
        viewVersion++;
        const valid = convs.filter((c) => !isInvalid(c)).length;
        (opts.viewDelayMs ? (msg: HostMessage) => later(() => send(msg), opts.viewDelayMs!) : reply)({
          type: 'view',
          viewVersion,
          count: rowCount,
          facets: { task: [['footwear', valid]], condition: [], source: [], outcome: [], annotator: [], valid, invalid: convs.length - valid, blank: 0, pending: 0 },
          filter: m.filter,
          partial: false,
          ms: 1,
        });
        return;
      }
      case 'requestPage': {
        const rows: ConversationSummary[] = [];
        for (let i = m.start; i < Math.min(rowCount, m.start + m.count); i++) {
          const c = convs[i % Math.max(1, convs.length)];
          rows.push(c ? summaryOf(c, i) : { line: i, state: 'valid', id: `synthetic-${i}`, turns: 1, snippet: '', annotators: 0 });
        }
        reply({ type: 'page', requestId: m.requestId, viewVersion: m.viewVersion, start: m.start, rows });
        return;
      }
      case 'openConversation': {
        const c = convs[m.line % Math.max(1, convs.length)];
        if (!c) return;
        if (isInvalid(c)) reply({ type: 'conversation', requestId: m.requestId, line: m.line, id: `line:${m.line + 1}`, error: c.invalid, viewIndex: m.line });
        else reply({ type: 'conversation', requestId: m.requestId, line: m.line, id: conversationId(c, m.line + 1), conversation: c, viewIndex: m.line });
        return;
      }
      case 'annotate': {
        const c = convs[m.line];
        if (!c || isInvalid(c)) return;
        const turn = c.turns[m.turn];
        const list = (turn.annotations ??= []);
        const at = list.findIndex((a) => a.speaker === m.speaker && a.annotator === 'alice');
        const value = { speaker: m.speaker, annotator: 'alice', acts: m.acts, ...(m.note ? { note: m.note } : {}) };
        if (at >= 0) list[at] = value;
        else list.push(value);
        reply({ type: 'annotationsChanged', line: m.line, conversation: c, requestId: m.requestId });
        return;
      }
      default:
        return;
    }
  };
  w.acquireVsCodeApi = () => ({
    postMessage: (m: WebviewMessage) => {
      posted.push(JSON.parse(JSON.stringify(m)));
      host(m);
    },
    getState: () => state,
    setState: (s: unknown) => {
      state = JSON.parse(JSON.stringify(s));
    },
  });
  window.eval(code);
  const harness: Harness = {
    dom,
    window,
    document: window.document,
    posted,
    fired,
    state: () => state,
    send,
    settle: async (ms = 20) => {
      await new Promise((r) => setTimeout(r, ms));
      for (const deadline = Date.now() + 5000; pending > 0 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 5));
    },
    key: (key, init = {}, target) => {
      const ev = new window.KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...init });
      (target ?? window.document.body).dispatchEvent(ev);
    },
    close: () => window.close(),
    waitFor: async (selector, re, timeoutMs = 5000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const el = window.document.querySelector(selector);
        if (el && (!re || re.test(el.textContent ?? ''))) return el;
        if (Date.now() > deadline) throw new Error(`${selector} never matched ${re}; it shows ${JSON.stringify(el?.textContent ?? null)}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
  };
  // A plain pause, not settle(): some tests look at the page before every reply has arrived.
  await new Promise((r) => setTimeout(r, 30));
  return harness;
}
