/**
 * The webview pages' own script and stylesheets, inlined into their HTML (no `vscode` import, so
 * it is testable in plain node). A webview loads every external resource through VS Code's
 * service worker and the extension host, one round trip each; inlined, the page can run as soon as
 * its HTML arrives (measured in test/e2e/editor.test.ts: 30–70 ms less before the first render).
 * Only our own built files are inlined, under the page's CSP nonce, never data.
 */
import { readFileSync, statSync } from 'node:fs';

const cache = new Map<string, { mtimeMs: number; text: string }>();

/** A built asset's text, read once per version of the file (a rebuild is picked up on the next page). */
export function readAsset(path: string): string {
  const mtimeMs = statSync(path).mtimeMs;
  const hit = cache.get(path);
  if (hit && hit.mtimeMs === mtimeMs) return hit.text;
  const text = readFileSync(path, 'utf8');
  cache.set(path, { mtimeMs, text });
  return text;
}

/**
 * Script text safe inside <script>…</script>: `</script` would close the element and `<!--` would
 * switch the HTML parser into its escaped-script state. Their `<` becomes `\x3C`, which means `<`
 * in strings, template literals and regular expressions (unicode mode included), the only places
 * those sequences occur in a bundle besides comments (only a regular expression's `source` text
 * shows the escape). `sourceUrl` is the bundle's webview address.
 */
export function inlineScript(js: string, sourceUrl: string): string {
  const safe = js.replace(/<(\/script|!--)/gi, '\\x3C$1');
  // Named after the bundle's own address: stack traces and console locations name it (the E2E
  // tells SimLens's errors apart by it) and a relative source map resolves beside it.
  return `${safe}\n//# sourceURL=${sourceUrl.replace(/[\s<>]/g, encodeURIComponent)}\n`;
}

/** One glyph rule of the codicon stylesheet: `.codicon-add:before { content: "\ea60" }`. */
const ICON_GLYPH_RULE = /^\.codicon-[\w-]+:before\s*\{\s*content:\s*"[^"]*"\s*;?\s*\}[ \t]*\r?\n?/gm;

/**
 * The codicon stylesheet without its glyph rules (one per icon, about 95 % of its text): the
 * @font-face, the icons' box and the modifiers. A page that shows its icons only after its load
 * event (the conversation editor) inlines this and loads the whole stylesheet then.
 */
export function iconBaseStyles(codiconCss: string): string {
  return codiconCss.replace(ICON_GLYPH_RULE, '');
}

/**
 * Stylesheet text safe inside <style>…</style>, with relative url(…) references (fonts) rewritten
 * through `resolve`, since the page's own address is not the stylesheet's folder. `resolve` gets
 * the file path only; a query or fragment (codicon.ttf?hash) is kept as it is after the result.
 */
export function inlineStyle(css: string, resolve: (relativePath: string) => string): string {
  return (
    css
      // Relative only: not a scheme (data:, https:, …), not rooted, not a fragment.
      .replace(/url\(\s*(["']?)(?![a-z][a-z0-9+.-]*:|\/|#)([^"')]+)\1\s*\)/gi, (_m, _q: string, rel: string) => {
        const [, file, suffix] = /^(?:\.\/)?([^?#]*)(.*)$/.exec(rel)!;
        return `url("${resolve(file)}${suffix}")`;
      })
      .replace(/<\/(style)/gi, '<\\/$1')
  );
}
