/** The metric panel's HTML shell: strict CSP with a fresh nonce, and no report data in the page. */
import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';

/** A nonce from the OS CSPRNG (base64, 128 bits). */
export function makeNonce(): string {
  return randomBytes(16).toString('base64');
}

/**
 * The Content-Security-Policy: nothing by default; our one script by nonce; styles and fonts
 * (codicons) from the extension; images from the extension or data: URLs (chart.js exports).
 * chart.js 4 injects no <style> elements; it only sets canvas sizes through the CSSOM, which a CSP
 * does not restrict.
 */
export function panelCsp(cspSource: string, nonce: string): string {
  return [`default-src 'none'`, `script-src 'nonce-${nonce}'`, `style-src ${cspSource}`, `font-src ${cspSource}`, `img-src ${cspSource} data:`].join('; ');
}

/** The only folders the webview may load from. */
export function panelResourceRoots(extensionUri: vscode.Uri): vscode.Uri[] {
  return [vscode.Uri.joinPath(extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(extensionUri, 'media')];
}

/** The page: everything it shows arrives by message after the script says "ready". */
export function panelHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const nonce = makeNonce();
  const asset = (...p: string[]) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...p)).toString();
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${panelCsp(webview.cspSource, nonce)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${asset('dist', 'webview', 'codicon.css')}">
<link rel="stylesheet" href="${asset('media', 'panels.css')}">
<title>SimLens metrics</title>
</head>
<body>
<div id="app" aria-busy="true"></div>
<script nonce="${nonce}" src="${asset('dist', 'webview', 'panels.js')}"></script>
</body>
</html>`;
}
