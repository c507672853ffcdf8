/**
 * The conversation editor's HTML carries the codicon stylesheet without its glyph rules (about
 * 32 KB of its 34): the icons show only after the page's load event, and the page loads the whole
 * stylesheet then, before its own stylesheet so that the cascade is the one of the inlined sheets.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { iconBaseStyles } from '../../../src/extension/webviewAssets';
import { loadWebview } from './webviewHarness';

const codiconCss = readFileSync(
  join(__dirname, '..', '..', '..', 'node_modules', '@vscode', 'codicons', 'dist', 'codicon.css'),
  'utf8',
);

describe('icon glyphs after the page loads', () => {
  test('the base styles keep the font, the icon box and the modifiers, and no glyph rule', () => {
    const base = iconBaseStyles(codiconCss);
    assert.match(base, /@font-face\s*\{[^}]*font-family: "codicon"[^}]*src: url\("\.\/codicon\.ttf\?[0-9a-f]+"\)/);
    assert.match(
      base,
      /\.codicon\[class\*='codicon-'\]\s*\{[^}]*font: normal normal normal 16px\/1 codicon;[^}]*display: inline-block;/,
    );
    assert.match(base, /\.codicon-modifier-spin/);
    assert.match(base, /@keyframes codicon-spin/);
    assert.doesNotMatch(base, /:before/);
    const glyphs = codiconCss.match(/^\.codicon-[\w-]+:before\s*\{\s*content:/gm) ?? [];
    assert.ok(glyphs.length > 400, `${glyphs.length} glyph rules in the shipped stylesheet`);
    assert.ok(base.length < 3000, `base ${base.length} characters of ${codiconCss.length}`);
    // Nothing but glyph rules is left out: every other line of the stylesheet is kept, in order.
    const kept = codiconCss.split('\n').filter((l) => !/^\.codicon-[\w-]+:before\s*\{\s*content:/.test(l));
    assert.equal(base, kept.join('\n'));
  });

  test('after its load event the page links the whole stylesheet before its own, once', async () => {
    const href = 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview/codicon.css';
    const hx = await loadWebview({
      conversations: [{ id: 'c-1', turns: [{ user_utterance: 'hello', assistant_utterance: 'hi' }] }],
      iconStyles: href,
    });
    try {
      await hx.waitFor('.conv-id', /^c-1$/);
      await hx.settle();
      const links = hx.document.querySelectorAll('link#icon-glyphs');
      assert.equal(links.length, 1);
      const link = links[0] as HTMLLinkElement;
      assert.equal(link.rel, 'stylesheet');
      assert.equal(link.getAttribute('href'), href);
      assert.deepEqual(
        [...hx.document.head.children].map((e) => e.id),
        ['icon-base', 'icon-glyphs', 'page-styles'],
        'between the icons base rules and the page stylesheet',
      );
      assert.ok(hx.document.body.classList.contains('codicons'), 'the icons take their font');
    } finally {
      hx.close();
    }
  });

  test('without the address (a page built by an older host) nothing is linked', async () => {
    const hx = await loadWebview({
      conversations: [{ id: 'c-1', turns: [{ user_utterance: 'hello', assistant_utterance: 'hi' }] }],
    });
    try {
      await hx.waitFor('.conv-id', /^c-1$/);
      await hx.settle();
      assert.equal(hx.document.querySelectorAll('link').length, 0);
      assert.ok(hx.document.body.classList.contains('codicons'));
    } finally {
      hx.close();
    }
  });
});
