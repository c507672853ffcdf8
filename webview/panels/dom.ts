/**
 * DOM creation for the metric panels: the shared safe builders (webview/shared/dom.ts; report text
 * comes from data such as file names and labels, so never innerHTML) plus the panels' button.
 */

import { h } from '../shared/dom';

export { clear, h } from '../shared/dom';

/** A button with a codicon and a label. */
export function button(
  label: string,
  icon: string | undefined,
  onClick: () => void,
  props: { title?: string; class?: string; action?: string } = {},
): HTMLButtonElement {
  const b = h('button', {
    class: `btn${props.class ? ` ${props.class}` : ''}`,
    attrs: { type: 'button', title: props.title ?? label, 'data-action': props.action },
  });
  if (icon) b.appendChild(h('span', { class: `codicon codicon-${icon}`, attrs: { 'aria-hidden': 'true' } }));
  b.appendChild(h('span', { text: label }));
  b.addEventListener('click', onClick);
  return b;
}
