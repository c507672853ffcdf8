/**
 * The only way SimLens webviews create DOM: elements by tag, attributes from a fixed allow-list,
 * text as text nodes. Conversation and report data are untrusted, so there is no innerHTML and no
 * way to set an event-handler attribute, `style`, `src` or `href` from data through these helpers.
 * Shared by the conversation editor, the metric panels and Compare Runs.
 */

/** Attributes that may carry data; everything else (on*, style, src, href, srcdoc, ...) is refused. */
const SAFE_ATTRIBUTES = new Set([
  'title',
  'role',
  'tabindex',
  'aria-label',
  'aria-pressed',
  'aria-selected',
  'aria-expanded',
  'aria-hidden',
  'aria-live',
  'aria-busy',
  'aria-current',
  'aria-valuenow',
  'aria-valuemin',
  'aria-valuemax',
  'aria-controls',
  'aria-describedby',
  'type',
  'value',
  'placeholder',
  'for',
  'id',
  'name',
  'colspan',
  'scope',
  'min',
  'max',
  'low',
  'high',
  'optimum',
  'spellcheck',
  'autocomplete',
  'rows',
  'open',
  'disabled',
  'selected',
  'checked',
  'draggable',
  'hidden',
]);

/** Child content: strings become text nodes; null/undefined/false are skipped. */
export type Child = Node | string | number | null | undefined | false;

interface Props {
  class?: string;
  /** Safe attributes only (see SAFE_ATTRIBUTES); `data-*` attributes are allowed too. */
  attrs?: Record<string, string | number | boolean | undefined>;
  text?: string;
}

/** Sets an attribute if it is on the allow-list (or data-*); throws otherwise, so misuse shows up in tests. */
export function setAttr(el: Element, name: string, value: string | number | boolean | undefined): void {
  const lower = name.toLowerCase();
  if (!SAFE_ATTRIBUTES.has(lower) && !/^data-[a-z0-9-]+$/.test(lower))
    throw new Error(`attribute ${name} is not allowed`);
  if (value === undefined || value === false) el.removeAttribute(lower);
  else el.setAttribute(lower, value === true ? '' : String(value));
}

/** Creates an element with safe attributes and text children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props | string | null = null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
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
