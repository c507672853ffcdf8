/** The editor webview's HTML shell (see ../webviewHtml.ts for the CSP and resource roots). */
import * as vscode from 'vscode';
import { webviewHtml, webviewResourceRoots } from '../webviewHtml';
import type { EditorViewState } from '../../shared/editorProtocol';

export const editorResourceRoots = webviewResourceRoots;

/** Escapes text for a double-quoted HTML attribute. */
function attr(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/**
 * The page; it holds no conversation data: the script asks for everything by message. `viewState`
 * is what the editor showed last time this file was open (validated; in a data attribute, never as
 * script), so reopening the file or reloading the window restores it.
 */
export function editorHtml(
  webview: vscode.Webview,
  extensionUri: vscode.Uri,
  allowRemoteImages: boolean,
  viewState?: EditorViewState,
): string {
  const saved = viewState ? ` data-view-state="${attr(JSON.stringify(viewState))}"` : '';
  return webviewHtml(webview, extensionUri, {
    css: 'editor.css',
    script: 'editor.js',
    title: 'SimLens conversations',
    body: `<div id="app" class="app" aria-busy="true"${saved}><p class="boot">Loading…</p></div>`,
    allowRemoteImages,
  });
}
