/** The metric panel's HTML shell (see ../webviewHtml.ts for the CSP and resource roots). */
import * as vscode from 'vscode';
import { webviewHtml, webviewResourceRoots } from '../webviewHtml';

export const panelResourceRoots = webviewResourceRoots;

/** The page: everything it shows arrives by message after the script says "ready". */
export function panelHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  return webviewHtml(webview, extensionUri, {
    css: 'panels.css',
    script: 'panels.js',
    title: 'SimLens metrics',
    body: '<div id="app" aria-busy="true"></div>',
  });
}
