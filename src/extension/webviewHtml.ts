/**
 * The HTML shell shared by every SimLens webview (conversation editor, metric panels, Compare Runs): a strict
 * Content-Security-Policy with a fresh nonce, our own script and stylesheets inlined under that
 * nonce (see webviewAssets.ts), fonts and images only from the extension's `dist/webview` and
 * `media` folders, and no data in the page: the script asks for everything by message after it
 * says "ready" (never raw JSON inside a <script>).
 */
import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';
import { iconBaseStyles, inlineScript, inlineStyle, readAsset } from './webviewAssets';

/** A nonce from the OS CSPRNG (base64, 128 bits). */
function makeNonce(): string {
  return randomBytes(16).toString('base64');
}

/**
 * Nothing by default; our one script and our stylesheets by nonce (inlined), plus styles from the
 * extension; fonts (codicons) from the extension;
 * images from the extension or data: URLs (chart.js exports, inline item images), plus `https:`
 * only when the user allows remote item images. chart.js 4 injects no <style> elements; it only
 * sets canvas sizes through the CSSOM, which a CSP does not restrict.
 */
function webviewCsp(cspSource: string, nonce: string, allowRemoteImages = false): string {
  return [
    `default-src 'none'`,
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `font-src ${cspSource}`,
    `img-src ${cspSource} data:${allowRemoteImages ? ' https:' : ''}`,
  ].join('; ');
}

/** The only folders a webview may load from: the built webview assets and the CSS. */
export function webviewResourceRoots(extensionUri: vscode.Uri): vscode.Uri[] {
  return [vscode.Uri.joinPath(extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(extensionUri, 'media')];
}

interface WebviewPage {
  /** Stylesheet in media/, e.g. "editor.css". */
  css: string;
  /** Bundle in dist/webview/, e.g. "editor.js". */
  script: string;
  title: string;
  /** Static markup of the body before the script runs (ours, never data). */
  body: string;
  allowRemoteImages?: boolean;
  /**
   * 'afterLoad': the HTML carries the codicon stylesheet without its glyph rules (iconBaseStyles)
   * and the page loads the whole stylesheet after its load event (the conversation editor, whose
   * icons wait for that event anyway: webview/editor/main.ts). Default: all of it inlined.
   */
  iconGlyphs?: 'inline' | 'afterLoad';
}

/** The codicon stylesheet's address in a webview (a page that loads it itself: `iconGlyphs: 'afterLoad'`). */
export function iconStylesUri(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  return webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview', 'codicon.css')).toString();
}

export function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, page: WebviewPage): string {
  const nonce = makeNonce();
  const file = (...p: string[]) => vscode.Uri.joinPath(extensionUri, ...p);
  const style = (p: string[], select: (css: string) => string = (css) => css) => {
    const folder = p.slice(0, -1);
    const css = inlineStyle(select(readAsset(file(...p).fsPath)), (relative) =>
      webview.asWebviewUri(file(...folder, relative)).toString(),
    );
    return `<style nonce="${nonce}">\n${css}\n</style>`;
  };
  const icons = page.iconGlyphs === 'afterLoad' ? iconBaseStyles : undefined;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${webviewCsp(webview.cspSource, nonce, page.allowRemoteImages)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
${style(['dist', 'webview', 'codicon.css'], icons)}
${style(['media', page.css])}
<title>${page.title}</title>
</head>
<body>
${page.body}
<script nonce="${nonce}">
${inlineScript(readAsset(file('dist', 'webview', page.script).fsPath), webview.asWebviewUri(file('dist', 'webview', page.script)).toString())}
</script>
</body>
</html>`;
}
