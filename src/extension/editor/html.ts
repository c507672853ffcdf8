/** The editor webview's HTML shell: strict CSP with a fresh nonce, no data inside the page. */
import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';

/** A nonce from the OS CSPRNG (base64, 128 bits). */
export function makeNonce(): string {
  return randomBytes(16).toString('base64');
}

/** The Content-Security-Policy for the editor webview. */
export function editorCsp(cspSource: string, nonce: string, allowRemoteImages: boolean): string {
  return [
    `default-src 'none'`,
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource}`,
    `font-src ${cspSource}`,
    `img-src ${cspSource} data:${allowRemoteImages ? ' https:' : ''}`,
  ].join('; ');
}

/** Folders the webview may load from: the built webview assets and the CSS. */
export function editorResourceRoots(extensionUri: vscode.Uri): vscode.Uri[] {
  return [vscode.Uri.joinPath(extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(extensionUri, 'media')];
}

/**
 * The page. It holds no conversation data at all: the script asks for everything by message
 * after it says "ready" (architecture: never raw JSON inside a <script>).
 */
export function editorHtml(webview: vscode.Webview, extensionUri: vscode.Uri, allowRemoteImages: boolean): string {
  const nonce = makeNonce();
  const asset = (...p: string[]) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...p)).toString();
  const csp = editorCsp(webview.cspSource, nonce, allowRemoteImages);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${asset('dist', 'webview', 'codicon.css')}">
<link rel="stylesheet" href="${asset('media', 'editor.css')}">
<title>SimLens conversations</title>
</head>
<body>
<div id="app" class="app" aria-busy="true"><p class="boot">Loading…</p></div>
<script nonce="${nonce}" src="${asset('dist', 'webview', 'editor.js')}"></script>
</body>
</html>`;
}
