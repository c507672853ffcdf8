import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import vm from 'node:vm';
import { JSDOM } from 'jsdom';
import { inlineScript, inlineStyle, readAsset } from '../../../src/extension/webviewAssets';
import { webviewBundleFor } from '../../support/webviewBundle';
import { scratchDir } from '../../support/scratch';

/** Parses `<script>…</script>` the way a browser does and returns the script elements' text. */
function parsedScripts(inlined: string): string[] {
  const dom = new JSDOM(`<!DOCTYPE html><body><script>${inlined}</script><p id="after">after</p></body>`);
  const scripts = [...dom.window.document.querySelectorAll('script')].map((s) => s.textContent ?? '');
  assert.equal(
    dom.window.document.getElementById('after')?.textContent,
    'after',
    'the script element ended where it should',
  );
  return scripts;
}

describe('webview pages: inlined script and stylesheets', () => {
  test('a script with </script> and <!-- in strings, templates and regular expressions stays one element and means the same', () => {
    const js = [
      `var a = "</script><p id='x'>injected</p>";`,
      'var b = `<!-- and </SCRIPT > and <!--<script>`;',
      'var c = /<\\/script>/u.test("</script>");',
      'var d = /<!--/.test("x<!--") && !/<!--/.test("<!-");',
      'var e = "<" + "/script>";',
      '// a comment that says </script> and <!--',
      'result = [a, b, c, d, e];',
    ].join('\n');
    const inlined = inlineScript(js, 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview/editor.js');
    const scripts = parsedScripts(inlined);
    assert.equal(scripts.length, 1);
    const original = vm.runInNewContext(`var result; ${js}; result`);
    const after = vm.runInNewContext(`var result; ${scripts[0]}; result`);
    assert.deepEqual([...(after as unknown[])], [...(original as unknown[])]);
    assert.match(
      inlined,
      /\n\/\/# sourceURL=https:\/\/file\+\.vscode-resource\.vscode-cdn\.net\/ext\/dist\/webview\/editor\.js\n$/,
    );
  });

  test('the sourceURL cannot end the comment or the element', () => {
    const inlined = inlineScript('1', 'https://x/a b</script><img src=x onerror=alert(1)>.js');
    assert.equal(parsedScripts(inlined).length, 1);
    assert.doesNotMatch(inlined, /<img|<\/script/i);
  });

  test('the built webview bundles survive inlining: they parse as one script and compile', async () => {
    for (const name of ['editor', 'panels'] as const) {
      const bundle = await webviewBundleFor(name);
      const scripts = parsedScripts(inlineScript(bundle, `https://x/dist/webview/${name}.js`));
      assert.equal(scripts.length, 1, name);
      assert.doesNotThrow(() => new vm.Script(scripts[0]), name);
    }
  });

  test('relative url() references are resolved; data:, absolute and fragment references are kept', () => {
    const css = [
      '@font-face { font-family: codicon; src: url("./codicon.ttf?721d") format("truetype"); }',
      '.a { background: url(img/dot.png); }',
      ".b { background: url('data:image/png;base64,AAAA'); }",
      '.c { background: url(https://example.com/x.png); }',
      '.d { mask: url(#m); }',
      '.e { content: "</style><script>alert(1)</script>"; }',
    ].join('\n');
    // Like asWebviewUri, the resolver encodes what it gets: only the path may reach it.
    const out = inlineStyle(css, (rel) => `https://res/${rel.split('/').map(encodeURIComponent).join('/')}`);
    assert.match(out, /url\("https:\/\/res\/codicon\.ttf\?721d"\)/);
    assert.match(out, /url\("https:\/\/res\/img\/dot\.png"\)/);
    assert.match(out, /url\('data:image\/png;base64,AAAA'\)/);
    assert.match(out, /url\(https:\/\/example\.com\/x\.png\)/);
    assert.match(out, /url\(#m\)/);
    const dom = new JSDOM(`<!DOCTYPE html><head><style>${out}</style></head><body><p id="after">after</p></body>`);
    assert.equal(dom.window.document.querySelectorAll('style').length, 1);
    assert.equal(dom.window.document.querySelectorAll('script').length, 0);
  });

  test('the shipped codicon stylesheet points its font at the extension folder', () => {
    const css = readFileSync(
      join(__dirname, '..', '..', '..', 'node_modules', '@vscode', 'codicons', 'dist', 'codicon.css'),
      'utf8',
    );
    const out = inlineStyle(css, (rel) => `https://res/dist/webview/${encodeURIComponent(rel)}`);
    assert.match(out, /src: url\("https:\/\/res\/dist\/webview\/codicon\.ttf\?[0-9a-f]+"\)/);
    assert.doesNotMatch(out, /url\("?\.\//);
  });

  test('assets are read once per version of the file', () => {
    const file = join(scratchDir('simlens-assets-'), 'a.js');
    writeFileSync(file, 'one');
    assert.equal(readAsset(file), 'one');
    writeFileSync(file, 'two');
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    assert.equal(readAsset(file), 'two');
  });
});
