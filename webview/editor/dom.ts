/**
 * Editor-specific DOM helpers on top of the shared safe builders (webview/shared/dom.ts): icons,
 * buttons, and item images, created in one audited place (`safeImage`).
 */

import { append, clear, h, type Child } from '../shared/dom';

export { h, setAttr, type Child } from '../shared/dom';

/** Replaces all children. */
export function replace(el: Node, ...children: Child[]): void {
  clear(el);
  append(el, ...children);
}

/** A codicon (icon font glyph). `name` is one of ours, never data. */
export function icon(name: string, label?: string): HTMLElement {
  if (!/^[a-z0-9-]+$/.test(name)) throw new Error(`bad icon name ${name}`);
  const el = h('span', {
    class: `codicon codicon-${name}`,
    attrs: label ? { 'aria-label': label, role: 'img' } : { 'aria-hidden': 'true' },
  });
  return el;
}

/** A button with an icon and/or a label. */
export function button(opts: {
  icon?: string;
  label?: string;
  title?: string;
  class?: string;
  onClick: (e: MouseEvent) => void;
}): HTMLButtonElement {
  const b = h('button', {
    class: `btn ${opts.class ?? ''}`.trim(),
    attrs: { type: 'button', title: opts.title, 'aria-label': opts.title ?? opts.label },
  });
  if (opts.icon) b.appendChild(icon(opts.icon));
  if (opts.label) b.appendChild(h('span', 'btn-label', opts.label));
  b.addEventListener('click', opts.onClick);
  return b;
}

/** Whether a URL may be used as an <img> source: https (when remote images are allowed) or an inline raster image. */
function imageUrlAllowed(url: string, allowRemote: boolean): boolean {
  if (/^data:image\/(png|jpeg|gif|webp);base64,[a-z0-9+/=\s]+$/i.test(url)) return true;
  return allowRemote && /^https:\/\/[^\s"'<>]+$/i.test(url);
}

/**
 * An <img> for an item image, or undefined when the URL is not allowed. The one place that sets
 * `src` from data; the CSP (img-src) is the second line of defence.
 */
export function safeImage(url: string, alt: string, allowRemote: boolean): HTMLImageElement | undefined {
  if (!imageUrlAllowed(url, allowRemote)) return undefined;
  const img = document.createElement('img');
  img.alt = alt;
  img.loading = 'lazy';
  img.setAttribute('referrerpolicy', 'no-referrer');
  img.decoding = 'async';
  img.src = url;
  return img;
}

/** Formats an integer with thousands separators. */
export function fmt(n: number): string {
  return n.toLocaleString('en-US');
}
