/** The editor webview's HTML shell (see ../webviewHtml.ts for the CSP and resource roots). */
import * as vscode from 'vscode';
import { webviewHtml, webviewResourceRoots } from '../webviewHtml';

export const editorResourceRoots = webviewResourceRoots;

/** The page; it holds no conversation data: the script asks for everything by message. */
export function editorHtml(webview: vscode.Webview, extensionUri: vscode.Uri, allowRemoteImages: boolean): string {
  return webviewHtml(webview, extensionUri, {
    css: 'editor.css',
    script: 'editor.js',
    title: 'SimLens conversations',
    body: '<div id="app" class="app" aria-busy="true"><p class="boot">Loading…</p></div>',
    allowRemoteImages,
  });
}
