/** The editor webview's HTML shell (see ../webviewHtml.ts for the CSP and resource roots). */
import * as vscode from 'vscode';
import { iconStylesUri, webviewHtml, webviewResourceRoots } from '../webviewHtml';
import type { EditorBoot, EditorViewState } from '../../shared/editorProtocol';
import { appDataAttributes } from './pageData';

export const editorResourceRoots = webviewResourceRoots;

/**
 * The page. `viewState` is what the editor showed last time this file was open, so reopening the
 * file or reloading the window restores it; `boot` is the `init` and first conversation the page would
 * otherwise ask for by message (EditorBoot). Both are JSON in data attributes, never script: the
 * conversation text is untrusted.
 */
export function editorHtml(
  webview: vscode.Webview,
  extensionUri: vscode.Uri,
  allowRemoteImages: boolean,
  viewState?: EditorViewState,
  boot?: EditorBoot,
): string {
  // The icons' glyph rules (34 KB of the codicon stylesheet's 35) are not in the HTML: the icons show
  // only after the page's load event (webview/editor/main.ts), and the page loads them then.
  const saved = appDataAttributes(viewState, boot, iconStylesUri(webview, extensionUri));
  return webviewHtml(webview, extensionUri, {
    css: 'editor.css',
    script: 'editor.js',
    title: 'SimLens conversations',
    body: `<div id="app" class="app" aria-busy="true"${saved}><p class="boot">Loading…</p></div>`,
    allowRemoteImages,
    iconGlyphs: 'afterLoad',
  });
}
