/**
 * The data the editor page's HTML carries for its script (#app data attributes): the view state of
 * last time and the boot data (EditorBoot). JSON in attributes, escaped, never script: conversation
 * text is untrusted. No `vscode` import, so the jsdom tests build the page's HTML with it too.
 */
import type { EditorBoot, EditorViewState } from '../../shared/editorProtocol';

/** Escapes text for a double-quoted HTML attribute. */
function attr(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/**
 * ` data-view-state="…" data-boot="…" data-icon-styles="…"` for the page's #app element (each only
 * when given). `iconStyles` is the codicon stylesheet's webview address: the HTML carries its
 * base rules only, and the page loads the glyph rules after its load event.
 */
export function appDataAttributes(viewState?: EditorViewState, boot?: EditorBoot, iconStyles?: string): string {
  return (
    (viewState ? ` data-view-state="${attr(JSON.stringify(viewState))}"` : '') +
    (boot ? ` data-boot="${attr(JSON.stringify(boot))}"` : '') +
    (iconStyles ? ` data-icon-styles="${attr(iconStyles)}"` : '')
  );
}
