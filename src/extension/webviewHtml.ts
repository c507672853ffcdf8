/**
 * The HTML shell shared by every SimLens webview (conversation editor, metric panels): a strict
 * Content-Security-Policy with a fresh nonce, resources only from the extension's `dist/webview`
 * and `media` folders, and no data in the page: the script asks for everything by message after
 * it says "ready" (never raw JSON inside a <script>).
 */
import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';

/** A nonce from the OS CSPRNG (base64, 128 bits). */
export function makeNonce(): string {
  return randomBytes(16).toString('base64');
}

/**
 * Nothing by default; our one script by nonce; styles and fonts (codicons) from the extension;
 * images from the extension or data: URLs (chart.js exports, inline item images), plus `https:`
 * only when the user allows remote item images. chart.js 4 injects no <style> elements; it only
 * sets canvas sizes through the CSSOM, which a CSP does not restrict.
 */
export function webviewCsp(cspSource: string, nonce: string, allowRemoteImages = false): string {
  return [
    `default-src 'none'`,
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource}`,
    `font-src ${cspSource}`,
    `img-src ${cspSource} data:${allowRemoteImages ? ' https:' : ''}`,
  ].join('; ');
}

/** The only folders a webview may load from: the built webview assets and the CSS. */
export function webviewResourceRoots(extensionUri: vscode.Uri): vscode.Uri[] {
  return [vscode.Uri.joinPath(extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(extensionUri, 'media')];
}

export interface WebviewPage {
  /** Stylesheet in media/, e.g. "editor.css". */
  css: string;
  /** Bundle in dist/webview/, e.g. "editor.js". */
  script: string;
  title: string;
  /** Static markup of the body before the script runs (ours, never data). */
  body: string;
  allowRemoteImages?: boolean;
}

export function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, page: WebviewPage): string {
  const nonce = makeNonce();
  const asset = (...p: string[]) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...p)).toString();
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${webviewCsp(webview.cspSource, nonce, page.allowRemoteImages)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${asset('dist', 'webview', 'codicon.css')}">
<link rel="stylesheet" href="${asset('media', page.css)}">
<title>${page.title}</title>
</head>
<body>
${page.body}
<script nonce="${nonce}" src="${asset('dist', 'webview', page.script)}"></script>
</body>
</html>`;
}
