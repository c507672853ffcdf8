/**
 * The only way the editor webview creates DOM: elements from a fixed tag, attributes from a
 * fixed allow-list, and text as text nodes. Conversation data is untrusted, so there is no
 * innerHTML anywhere and no way to set an event-handler attribute, `style`, `src` or `href` from
 * data through these helpers (images are created in one audited place, `safeImage`).
 */

/** Attributes that may carry data; everything else (on*, style, src, href, srcdoc, ...) is refused. */
const SAFE_ATTRIBUTES = new Set([
  'title', 'role', 'tabindex', 'aria-label', 'aria-pressed', 'aria-selected', 'aria-expanded', 'aria-hidden',
  'aria-live', 'aria-busy', 'aria-current', 'aria-valuenow', 'aria-valuemin', 'aria-valuemax', 'aria-controls',
  'type', 'value', 'placeholder', 'for', 'id', 'name', 'colspan', 'scope', 'min', 'max', 'low', 'high', 'optimum',
  'spellcheck', 'autocomplete', 'rows', 'open', 'disabled', 'selected', 'checked', 'draggable',
]);

/** Child content: strings become text nodes; null/undefined/false are skipped. */
export type Child = Node | string | number | null | undefined | false;

export interface Props {
  class?: string;
  /** Safe attributes only (see SAFE_ATTRIBUTES); `data-*` attributes are allowed too. */
  attrs?: Record<string, string | number | boolean | undefined>;
  text?: string;
}

/** Sets an attribute if it is on the allow-list (or data-*); throws otherwise, so misuse shows up in tests. */
export function setAttr(el: Element, name: string, value: string | number | boolean | undefined): void {
  const lower = name.toLowerCase();
  if (!SAFE_ATTRIBUTES.has(lower) && !/^data-[a-z0-9-]+$/.test(lower)) throw new Error(`attribute ${name} is not allowed`);
  if (value === undefined || value === false) el.removeAttribute(lower);
  else el.setAttribute(lower, value === true ? '' : String(value));
}

/** Creates an element with safe attributes and text children. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props | string | null = null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (typeof props === 'string') el.className = props;
  else if (props) {
    if (props.class) el.className = props.class;
    if (props.attrs) for (const [k, v] of Object.entries(props.attrs)) setAttr(el, k, v);
    if (props.text !== undefined) el.textContent = props.text;
  }
  append(el, ...children);
  return el;
}

/** Appends children (strings as text nodes). */
export function append(el: Node, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

/** Removes all children. */
export function clear(el: Node): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

/** Replaces all children. */
export function replace(el: Node, ...children: Child[]): void {
  clear(el);
  append(el, ...children);
}

/** A codicon (icon font glyph). `name` is one of ours, never data. */
export function icon(name: string, label?: string): HTMLElement {
  if (!/^[a-z0-9-]+$/.test(name)) throw new Error(`bad icon name ${name}`);
  const el = h('span', { class: `codicon codicon-${name}`, attrs: label ? { 'aria-label': label, role: 'img' } : { 'aria-hidden': 'true' } });
  return el;
}

/** A button with an icon and/or a label. */
export function button(opts: { icon?: string; label?: string; title?: string; class?: string; onClick: (e: MouseEvent) => void }): HTMLButtonElement {
  const b = h('button', { class: `btn ${opts.class ?? ''}`.trim(), attrs: { type: 'button', title: opts.title, 'aria-label': opts.title ?? opts.label } });
  if (opts.icon) b.appendChild(icon(opts.icon));
  if (opts.label) b.appendChild(h('span', 'btn-label', opts.label));
  b.addEventListener('click', opts.onClick);
  return b;
}

/** Whether a URL may be used as an <img> source: https (when remote images are allowed) or an inline raster image. */
export function imageUrlAllowed(url: string, allowRemote: boolean): boolean {
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
