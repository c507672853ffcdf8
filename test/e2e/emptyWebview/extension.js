// Test-only extension (see package.json): the E2E's floor for the conversation editor's first
// render. Opening a *.empty-webview file runs the same workbench path as a conversation file
// (custom editor, document, webview with scripts) but the page is one line of static text, no
// stylesheet, no bundle and no messages. The page marks the frame that paints it on the machine's
// clock, as the conversation editor does (data-first-paint-epoch), and when the browser painted its
// text (data-text-visible-epoch, Element Timing).
'use strict';
const vscode = require('vscode');
const { randomBytes } = require('node:crypto');

function activate(context) {
  context.subscriptions.push(
    vscode.window.registerCustomEditorProvider('simlensE2E.emptyWebview', {
      openCustomDocument(uri) {
        return { uri, dispose() {} };
      },
      resolveCustomEditor(_document, panel) {
        const nonce = randomBytes(16).toString('base64');
        panel.webview.options = { enableScripts: true };
        panel.webview.html = `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'nonce-${nonce}'">
<title>Empty webview</title></head>
<body><p class="empty-webview" elementtiming="simlens-first-text">Empty webview</p>
<script nonce="${nonce}">requestAnimationFrame(() => { document.body.dataset.firstPaintEpoch = String(Math.round(performance.timeOrigin + performance.now())); });
if (typeof PerformanceObserver === 'function' && (PerformanceObserver.supportedEntryTypes || []).includes('element')) {
  const observer = new PerformanceObserver((list) => {
    const e = list.getEntries().find((x) => x.identifier === 'simlens-first-text');
    if (!e) return;
    document.body.dataset.textVisibleEpoch = String(Math.round(performance.timeOrigin + (e.renderTime || e.loadTime)));
    observer.disconnect();
  });
  observer.observe({ type: 'element', buffered: true });
}</script>
</body></html>`;
      },
    }),
  );
}

module.exports = { activate, deactivate() {} };
