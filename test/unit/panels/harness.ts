/**
 * Runs the real metric-panel webview bundle (webview/panels/main.ts, bundled by esbuild) in jsdom
 * with a fake `acquireVsCodeApi`. Canvas has no 2D context here, so charts fall back to their data
 * tables (the chart drawing itself is checked in the E2E test in a real VS Code).
 */
import { webviewBundleFor } from '../../support/webviewBundle';
import { JSDOM } from 'jsdom';
import type { HostToPanel, PanelToHost } from '../../../src/shared/panelProtocol';

/** The webview bundle as a string (built once per test process). */
function panelBundle(): Promise<string> {
  return webviewBundleFor('panels');
}

interface PanelHarness {
  window: Window & typeof globalThis;
  document: Document;
  posted: PanelToHost[];
  state(): unknown;
  send(m: HostToPanel): void;
  settle(ms?: number): Promise<void>;
  /** Resolves when the webview has posted "ready". */
  ready(): Promise<void>;
  close(): void;
}

async function startPanel(savedState?: unknown): Promise<PanelHarness> {
  const code = await panelBundle();
  const dom = new JSDOM(
    '<!DOCTYPE html><html><head></head><body class="vscode-light"><div id="app"></div></body></html>',
    { runScripts: 'outside-only', pretendToBeVisual: true },
  );
  const window = dom.window as unknown as Window & typeof globalThis;
  const posted: PanelToHost[] = [];
  let state: unknown = savedState;
  (window as unknown as Record<string, unknown>).acquireVsCodeApi = () => ({
    postMessage: (m: PanelToHost) => posted.push(JSON.parse(JSON.stringify(m))),
    getState: () => state,
    setState: (s: unknown) => {
      state = JSON.parse(JSON.stringify(s));
    },
  });
  // jsdom has no canvas: say so explicitly (instead of its "not implemented" console error).
  window.HTMLCanvasElement.prototype.getContext = (() => null) as unknown as HTMLCanvasElement['getContext'];
  dom.window.eval(code);
  const settle = (ms = 20) => new Promise<void>((r) => setTimeout(r, ms));
  return {
    window,
    document: window.document,
    posted,
    state: () => state,
    send: (m) => window.dispatchEvent(new window.MessageEvent('message', { data: m })),
    settle,
    async ready() {
      for (let i = 0; i < 200 && !posted.some((m) => m.type === 'ready'); i++) await settle(10);
      if (!posted.some((m) => m.type === 'ready')) throw new Error('the webview never said ready');
    },
    close: () => dom.window.close(),
  };
}

/** A ready panel, closed when test `t` ends, that has been sent `message` (when given) and settled. */
export async function openPanel(t: { after(fn: () => void): void }, message?: HostToPanel): Promise<PanelHarness> {
  const p = await startPanel();
  t.after(() => p.close());
  await p.ready();
  if (message) {
    p.send(message);
    await p.settle();
  }
  return p;
}
