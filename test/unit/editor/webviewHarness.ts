/**
 * Runs the real editor webview bundle (webview/editor/main.ts, bundled by esbuild) inside jsdom
 * against the real host side: the conversations are written to a JSONL file, opened with the real
 * `ConversationDocumentModel` behind the real `DocumentCore`, and answered by the real
 * `EditorController` (src/extension/editor/controller.ts). Only what VS Code itself provides is
 * stood in for, by an `EditorPort`: delivering messages between the two (as JSON copies, as
 * VS Code does), the settings, and the workbench commands (recorded in `commands`).
 * Used by the webview UI tests and the XSS corpus test.
 */
import { webviewBundleFor } from '../../support/webviewBundle';
import { scratchDir } from '../../support/scratch';
import { JSDOM } from 'jsdom';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Conversation } from '../../../src/core/model';
import type {
  EditorInit,
  EditorViewState,
  HostMessage,
  ImportPreview,
  WebviewMessage,
} from '../../../src/shared/editorProtocol';
import { CONVAPPAREL_TAXONOMY, builtinTaxonomy } from '../../../src/core/taxonomy';
import { ConversationDocumentModel } from '../../../src/core/document';
import { DocumentCore, type EditorLog } from '../../../src/extension/editor/documentCore';
import { EditorController, type EditorSettings } from '../../../src/extension/editor/controller';
import { appDataAttributes } from '../../../src/extension/editor/pageData';
import { parseViewState } from '../../../src/shared/editorProtocol';

/** The webview bundle as a string (built once per test process). */
function webviewBundle(): Promise<string> {
  return webviewBundleFor('editor');
}

/** A line of the test file: a conversation, a raw line that is not one, or a blank line. */
type Row = Conversation | { invalid: string } | { blank: true };

interface HarnessOptions {
  /** The file's lines, in order. */
  conversations?: Row[];
  /** Lines in the file (default: conversations.length); the conversations repeat to fill them. */
  rowCount?: number;
  /**
   * What the host knows besides the file: the settings (annotator, taxonomy, allowRemoteImages,
   * replayIntervalMs), the file name, a conversation to reveal (as "Go to Conversation" does),
   * and an import preview (the file is offered for conversion).
   */
  init?: Partial<
    Pick<
      EditorInit,
      | 'annotator'
      | 'taxonomy'
      | 'taxonomyError'
      | 'allowRemoteImages'
      | 'replayIntervalMs'
      | 'fileName'
      | 'reveal'
      | 'importable'
    >
  >;
  /** The state VS Code kept for the page (getState), as after hiding and showing the tab. */
  savedState?: unknown;
  /** The view state the host puts in the page for this file (#app data-view-state), as after reopening it. */
  pageViewState?: unknown;
  /** The line index is ready this much later (a slow index): line 1 is served before it. */
  indexDelayMs?: number;
  /**
   * The host puts its boot data (EditorBoot: init and the first conversation) in the page's HTML, as
   * the real provider does when it has them at hand (src/extension/editor/provider.ts).
   */
  boot?: boolean;
  /**
   * The page runs as in a browser that skips what is off screen (`CSS.supports('content-visibility',
   * 'auto')`, which jsdom lacks): its first render leaves the cards out of view empty until painted.
   */
  skipsOffscreen?: boolean;
  /** Called with the page's document before each animation frame's callbacks run. */
  onFrame?: (doc: Document) => void;
  /**
   * The codicon stylesheet's address the host puts in the page (#app data-icon-styles), with the
   * page's two inlined stylesheets in its head (the icons' base rules, then the page's own).
   */
  iconStyles?: string;
  /** Called with the page's window before its script runs (to watch what the script asks of the browser). */
  beforeScript?: (window: Window & typeof globalThis) => void;
  /** Called right after the page's script ran (before any host message arrived). */
  afterScript?: (window: Window & typeof globalThis) => void;
}

export interface Harness {
  dom: JSDOM;
  window: Window & typeof globalThis;
  document: Document;
  /** Messages the webview posted. */
  posted: WebviewMessage[];
  /** Messages the host posted to the page. */
  received: HostMessage[];
  /** What the host asked VS Code to do (commands, settings pickers, view states kept), in order. */
  commands: Array<{ name: string; args?: unknown }>;
  /** What the host logged. */
  logged: Array<{ level: 'info' | 'warn' | 'error'; message: string }>;
  /** Names passed to window.__xss by any payload that managed to run. */
  fired: string[];
  /** The real host side. */
  controller: EditorController;
  /** The conversation id on screen when the page's script had just run (before any host message). */
  idAtLoad: string | undefined;
  /** The file the conversations were written to. */
  file: string;
  /** Last state given to setState. */
  state(): unknown;
  /** Delivers a host message to the page directly (events the file cannot produce on its own). */
  send(msg: HostMessage): void;
  /** Waits `ms`, then until no message is in flight either way and no animation frame is pending (at most 5 s). */
  settle(ms?: number): Promise<void>;
  key(key: string, init?: KeyboardEventInit & { code?: string }, target?: Element): void;
  /** Waits until `selector`'s text matches (or, without `re`, the element exists); throws with what it shows. */
  waitFor(selector: string, re?: RegExp, timeoutMs?: number): Promise<Element>;
  close(): void;
}

/** What arrives on the other side of VS Code's postMessage and setState: a JSON copy. */
function wire<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function lineOf(row: Row): string {
  const r = row as { blank?: unknown; invalid?: unknown };
  if (r.blank === true) return '';
  if (typeof r.invalid === 'string') return r.invalid;
  return JSON.stringify(row);
}

/** Loads the webview with the real host controller answering from a real file of `opts.conversations`. */
export async function loadWebview(opts: HarnessOptions = {}): Promise<Harness> {
  const code = await webviewBundle();
  const rows = opts.conversations ?? [];
  const count = opts.rowCount ?? rows.length;
  const dir = scratchDir('editor-webview');
  const name = (opts.init?.fileName ?? 'test.conv.jsonl').replace(/\//g, '∕').slice(0, 120);
  const file = join(dir, name);
  const lines: string[] = [];
  for (let i = 0; i < count; i++) lines.push(lineOf(rows[i % rows.length]));
  writeFileSync(file, lines.length ? lines.join('\n') + '\n' : '');

  const pageState = appDataAttributes(opts.pageViewState as EditorViewState | undefined, undefined, opts.iconStyles);
  const head = opts.iconStyles ? '<style id="icon-base"></style><style id="page-styles"></style>' : '';
  const dom = new JSDOM(
    `<!DOCTYPE html><html><head>${head}</head><body><div id="app" class="app"${pageState}></div></body></html>`,
    {
      runScripts: 'dangerously',
      pretendToBeVisual: true,
      url: 'https://webview.test/index.html',
    },
  );
  const window = dom.window as unknown as Window & typeof globalThis;
  const posted: WebviewMessage[] = [];
  const received: HostMessage[] = [];
  const commands: Harness['commands'] = [];
  const logged: Harness['logged'] = [];
  const fired: string[] = [];
  let state: unknown = opts.savedState;
  let closed = false;
  const w = window as unknown as Record<string, unknown>;
  w.__xss = (name: string) => fired.push(String(name));

  // Work still in flight: messages not yet delivered either way, host handlers still running, and
  // animation frames not yet run. settle() waits for all of them, so a loaded machine cannot
  // outrun a chain of replies.
  let pending = 0;
  const track = <T>(p: Promise<T>): Promise<T> => {
    pending++;
    return p.finally(() => pending--);
  };
  if (opts.skipsOffscreen)
    (window as unknown as { CSS: unknown }).CSS = {
      supports: (property: string, value?: string) => property === 'content-visibility' && value === 'auto',
    };
  const raf = window.requestAnimationFrame.bind(window);
  window.requestAnimationFrame = (cb: FrameRequestCallback) => {
    pending++;
    return raf((t) => {
      try {
        opts.onFrame?.(window.document);
        cb(t);
      } finally {
        pending--;
      }
    });
  };
  const send = (msg: HostMessage) => {
    if (!closed) window.dispatchEvent(new window.MessageEvent('message', { data: wire(msg) }));
  };

  // The host side: the real document and controller. VS Code delivers messages asynchronously and
  // as copies; so does this port.
  const log: EditorLog = {
    info: (message) => logged.push({ level: 'info', message }),
    warn: (message) => logged.push({ level: 'warn', message }),
    error: (message) => logged.push({ level: 'error', message }),
  };
  const indexing = ConversationDocumentModel.open(file);
  const model = opts.indexDelayMs
    ? indexing.then((m) => new Promise<ConversationDocumentModel>((r) => setTimeout(() => r(m), opts.indexDelayMs)))
    : await indexing;
  const document = new DocumentCore(file, model, false, log, opts.init?.importable as ImportPreview | undefined);
  const settings: EditorSettings = {
    annotator: opts.init?.annotator ?? 'alice',
    taxonomy: opts.init?.taxonomy ?? CONVAPPAREL_TAXONOMY,
    taxonomyError: opts.init?.taxonomyError,
    allowRemoteImages: opts.init?.allowRemoteImages ?? false,
    replayIntervalMs: opts.init?.replayIntervalMs ?? 50,
  };
  const record = async (name: string, args?: unknown) => {
    commands.push({ name, args });
  };
  const controller = new EditorController(document, {
    postToPage: (msg) => {
      received.push(wire(msg));
      void track(new Promise<void>((r) => setTimeout(r, 0)).then(() => send(msg)));
    },
    log,
    readSettings: async () => settings,
    askAnnotatorId: async () => {
      commands.push({ name: 'askAnnotatorId' });
      return undefined;
    },
    openAnnotationSettings: (annotator, taxonomy) => record('openAnnotationSettings', { annotator, taxonomy }),
    useTaxonomy: async (name) => {
      commands.push({ name: 'useTaxonomy', args: name });
      return builtinTaxonomy(name) !== undefined;
    },
    runCommand: (command) => record(command),
    fork: (args) => record('fork', args),
    openLineAsText: (line) => record('openLineAsText', line),
    convert: () => record('convert'),
    rebuildHtml: () => void record('rebuildHtml'),
    saveViewState: (s: EditorViewState) => void record('saveViewState', s),
  });
  if (opts.init?.reveal) controller.reveal(opts.init.reveal.line, opts.init.reveal.turn);
  if (opts.boot) {
    // The page's HTML as the provider writes it: the view state of last time and the boot data.
    const parsed = parseViewState(opts.pageViewState);
    const boot = await controller.boot(parsed?.ok ? parsed.state : undefined);
    const app = window.document.getElementById('app')!;
    app.outerHTML = `<div id="app" class="app"${appDataAttributes(opts.pageViewState as EditorViewState | undefined, boot, opts.iconStyles)}></div>`;
  }

  w.acquireVsCodeApi = () => ({
    postMessage: (m: WebviewMessage) => {
      posted.push(wire(m));
      void track(
        new Promise<void>((r) => setTimeout(r, 0)).then(() => (closed ? undefined : controller.receive(wire(m)))),
      );
    },
    getState: () => state,
    setState: (s: unknown) => {
      state = wire(s);
    },
  });
  opts.beforeScript?.(window);
  window.eval(code);
  opts.afterScript?.(window);
  const idAtLoad = window.document.querySelector('.conv-id')?.textContent ?? undefined;
  const harness: Harness = {
    dom,
    window,
    document: window.document,
    posted,
    received,
    commands,
    logged,
    fired,
    controller,
    idAtLoad,
    file,
    state: () => state,
    send,
    settle: async (ms = 20) => {
      await new Promise((r) => setTimeout(r, ms));
      // The deadline only ends a page that never goes quiet; on a loaded machine (load 40) 5 s was
      // not enough for two annotation replies (pendingEdits.test.ts saw '1' after settle()).
      for (const deadline = Date.now() + 60_000; pending > 0 && Date.now() < deadline;)
        await new Promise((r) => setTimeout(r, 5));
    },
    key: (key, init = {}, target) => {
      const ev = new window.KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...init });
      (target ?? window.document.body).dispatchEvent(ev);
    },
    close: () => {
      closed = true;
      controller.dispose();
      document.close();
      window.close();
    },
    waitFor: async (selector, re, timeoutMs = 5000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const el = window.document.querySelector(selector);
        if (el && (!re || re.test(el.textContent ?? ''))) return el;
        if (Date.now() > deadline)
          throw new Error(`${selector} never matched ${re}; it shows ${JSON.stringify(el?.textContent ?? null)}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
  };
  // A plain pause, not settle(): some tests look at the page before every reply has arrived.
  await new Promise((r) => setTimeout(r, 30));
  return harness;
}
