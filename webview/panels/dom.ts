/**
 * DOM creation for the metric panels. Report text comes from data (file names, labels), so the
 * panels never use innerHTML: elements are created by tag, attributes come from an allow-list,
 * and text is always set as text nodes.
 */

const SAFE_ATTRIBUTES = new Set([
  'title', 'role', 'tabindex', 'aria-label', 'aria-live', 'aria-busy', 'aria-hidden', 'aria-pressed', 'aria-describedby',
  'type', 'id', 'scope', 'colspan', 'max', 'value', 'hidden', 'disabled',
]);

export type Child = Node | string | number | null | undefined | false;

export interface Props {
  class?: string;
  attrs?: Record<string, string | number | boolean | undefined>;
  text?: string;
}

/** Sets an allowed attribute (or data-*); throws on anything else so misuse shows up in tests. */
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
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
  return el;
}

/** A button with a codicon and a label. */
export function button(label: string, icon: string | undefined, onClick: () => void, props: { title?: string; class?: string; action?: string } = {}): HTMLButtonElement {
  const b = h('button', { class: `btn${props.class ? ` ${props.class}` : ''}`, attrs: { type: 'button', title: props.title ?? label, 'data-action': props.action } });
  if (icon) b.appendChild(h('span', { class: `codicon codicon-${icon}`, attrs: { 'aria-hidden': 'true' } }));
  b.appendChild(h('span', { text: label }));
  b.addEventListener('click', onClick);
  return b;
}

/** Removes every child of an element. */
export function clear(el: Element): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}
