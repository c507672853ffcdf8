/** The XSS corpus of the editor webview tests, and the check that no data became markup. */

/** Each payload calls window.__xss(name) if it ever executes. */
export const XSS_PAYLOADS: readonly string[] = [
  `<script>window.__xss('script')</script>`,
  `<img src=x onerror="window.__xss('img')">`,
  `<svg onload="window.__xss('svg')"></svg>`,
  `<iframe src="javascript:window.__xss('iframe')"></iframe>`,
  `"><script>window.__xss('attr-break')</script>`,
  `' onmouseover='window.__xss("single-quote")' x='`,
  `<a href="javascript:window.__xss('href')">click me</a>`,
  `<body onload=window.__xss('body')>`,
  `<details open ontoggle="window.__xss('details')"><summary>s</summary></details>`,
  `<math><mtext><table><mglyph><style><img src=x onerror=window.__xss('mxss')>`,
  `<style>@import 'https://evil.example/x.css'; body{background:url(javascript:window.__xss('css'))}</style>`,
  `<object data="javascript:window.__xss('object')"></object>`,
  `<embed src="javascript:window.__xss('embed')">`,
  `<input autofocus onfocus="window.__xss('focus')">`,
  `<video><source onerror="window.__xss('video')"></video>`,
  `<meta http-equiv="refresh" content="0;url=javascript:window.__xss('meta')">`,
  `<form action="javascript:window.__xss('form')"><button>go</button></form>`,
  `{{constructor.constructor('window.__xss("template")')()}}`,
  '${window.__xss("template-literal")}',
  `<base href="javascript:window.__xss('base')//">`,
  `<link rel="import" href="data:text/html,<script>window.__xss('link')</script>">`,
  `\u2028\u2029</script><script>window.__xss('line-separator')</script>`,
  `<noscript><p title="</noscript><img src=x onerror=window.__xss('noscript')>"></noscript>`,
  `<textarea></textarea><script>window.__xss('textarea')</script>`,
  `<marquee onstart="window.__xss('marquee')">m</marquee>`,
  `javascript:window.__xss('bare-url')`,
  `data:text/html;base64,PHNjcmlwdD53aW5kb3cuX194c3MoJ2RhdGEnKTwvc2NyaXB0Pg==`,
  `<img src="data:image/svg+xml,<svg onload=window.__xss('svg-data')>">`,
];

/** Tags our code creates. Anything else in the document came from data. */
const OUR_TAGS = new Set([
  'HTML',
  'HEAD',
  'BODY',
  'DIV',
  'SPAN',
  'BUTTON',
  'SELECT',
  'OPTION',
  'INPUT',
  'HEADER',
  'ASIDE',
  'MAIN',
  'SECTION',
  'H2',
  'H3',
  'H4',
  'P',
  'STRONG',
  'OL',
  'LI',
  'TABLE',
  'THEAD',
  'TBODY',
  'TR',
  'TH',
  'TD',
  'DETAILS',
  'SUMMARY',
  'PRE',
  'BLOCKQUOTE',
  'TEXTAREA',
  'LABEL',
  'METER',
  'svg',
  'line',
  'polyline',
  'circle',
]);

/** Returns every way the DOM shows that data became markup. Empty = safe. */
export function markupFromData(doc: Document): string[] {
  const problems: string[] = [];
  for (const el of Array.from(doc.querySelectorAll('*'))) {
    if (!OUR_TAGS.has(el.tagName)) problems.push(`unexpected <${el.tagName.toLowerCase()}>`);
    for (const attr of Array.from(el.attributes)) {
      const name = attr.name.toLowerCase();
      if (name.startsWith('on')) problems.push(`event attribute ${name} on <${el.tagName.toLowerCase()}>`);
      if (
        /javascript:|data:text/i.test(attr.value) &&
        name !== 'title' &&
        name !== 'aria-label' &&
        name !== 'value' &&
        !name.startsWith('data-')
      ) {
        problems.push(`script URL in ${name} on <${el.tagName.toLowerCase()}>`);
      }
      if (['src', 'href', 'action', 'formaction', 'srcdoc', 'xlink:href'].includes(name))
        problems.push(`${name} attribute on <${el.tagName.toLowerCase()}>`);
      if (
        name === 'style' &&
        !/^(height: \d+(\.\d+)?px;|transform: translateY\(-?\d+(\.\d+)?px\);)$/.test(attr.value.trim())
      )
        problems.push(`style from data: ${attr.value}`);
    }
  }
  return problems;
}
