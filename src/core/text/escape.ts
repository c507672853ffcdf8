/**
 * Escaping for every text format a report (and the language server's hovers) is written to. Report text can come from data (file
 * names, labels, feature names), so nothing is ever written unescaped.
 */

/** Text for XML/HTML/SVG character data and attribute values. */
export function escapeXml(text: string): string {
  return stripControl(text).replace(/[&<>"']/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&#39;',
  );
}

/**
 * Text for Markdown (CommonMark/GFM) so it renders literally:
 * - `<`, `>` and `&` become entities, so no raw HTML (and no entity trick) can form;
 * - emphasis, code, link, table and strikethrough characters are backslash-escaped;
 * - block markers at the start of a line (headings, list bullets, numbered lists, setext
 *   underlines) are escaped;
 * - GFM autolinks (`scheme://`, `www.`) are broken so data cannot become a link.
 * Line breaks become spaces when `inline` (table cells, headings, list items).
 */
export function escapeMarkdown(text: string, inline = false): string {
  let s = stripControl(text)
    .replace(/[\\`*_[\]|~]/g, (c) => `\\${c}`)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/:\/\//g, '\\://')
    .replace(/\bwww\./gi, (m) => `${m.slice(0, 3)}\\.`);
  if (inline) s = s.replace(/\r\n|\r|\n/g, ' ');
  // Block markers only count when followed by white space (or repeated, for rules/underlines),
  // so a number such as -0.25 stays as it is.
  s = s.replace(/^([ \t]*)([#+=-])(?=[\s#+=-]|$)/gm, '$1\\$2').replace(/^([ \t]*\d+)([.)])(?=\s|$)/gm, '$1\\$2');
  return s;
}

/** Strips control characters (except tab and line breaks) that have no business in a report. */
export function stripControl(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, '');
}
