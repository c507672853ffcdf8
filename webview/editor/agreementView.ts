/** Agreement view: renders the core agreement report model (Cohen's kappa per pair, Fleiss' kappa, warnings, mapping). */
import type { AgreementResult } from '../../src/shared/editorProtocol';
import { h, icon } from './dom';

function k(x: number | null): string {
  return x === null ? '—' : x.toFixed(3);
}

/** Landis & Koch bands; the class sets the colour and the title names the band (colour is never the only cue). */
function kappaCell(x: number | null): HTMLElement {
  const [cls, band] =
    x === null
      ? ['na', 'undefined']
      : x >= 0.8
        ? ['high', 'almost perfect']
        : x >= 0.6
          ? ['good', 'substantial']
          : x >= 0.4
            ? ['fair', 'moderate']
            : ['low', 'fair or worse'];
  return h('td', { class: `kappa ${cls}`, attrs: { title: band } }, k(x));
}

interface AgreementViewOptions {
  result: AgreementResult | undefined;
  loading: boolean;
  map: boolean;
  onCompute(map: boolean): void;
}

/** The heading with the Compute button and the act-alias mapping switch (both recompute). */
function agreementHead(o: AgreementViewOptions): HTMLElement {
  const compute = h(
    'button',
    { class: 'btn primary', attrs: { type: 'button' } },
    icon('refresh'),
    ' Compute agreement',
  );
  const mapBox = h('input', { attrs: { type: 'checkbox', id: 'agreement-map' } });
  mapBox.checked = o.map;
  compute.addEventListener('click', () => o.onCompute(mapBox.checked));
  mapBox.addEventListener('change', () => o.onCompute(mapBox.checked));
  return h(
    'div',
    'agreement-head',
    h('h2', null, 'Inter-annotator agreement'),
    compute,
    h(
      'label',
      {
        class: 'map-toggle',
        attrs: {
          for: 'agreement-map',
          title: 'Compare annotators on different taxonomies by mapping both to Zhang & Balog acts (act-aliases.json)',
        },
      },
      mapBox,
      ' Map through act aliases',
    ),
  );
}

/** Fleiss' kappa on the primary act, one row per speaker and group of three or more annotators. */
function fleissSection(fleiss: NonNullable<AgreementResult['fleiss']>): HTMLElement {
  return h(
    'section',
    'fleiss',
    h('h3', null, "Fleiss' kappa (primary act)"),
    h(
      'table',
      'grid',
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', { attrs: { scope: 'col' } }, 'speaker'),
          h('th', { attrs: { scope: 'col' } }, 'annotators'),
          h('th', { attrs: { scope: 'col' } }, 'taxonomy'),
          h('th', { attrs: { scope: 'col' } }, 'utterances'),
          h('th', { attrs: { scope: 'col' } }, 'κ'),
        ),
      ),
      h(
        'tbody',
        null,
        ...fleiss.map((f) =>
          h(
            'tr',
            null,
            h('td', null, f.speaker),
            h('td', null, f.annotators.join(', ')),
            h('td', { attrs: { title: f.mapping ?? '' } }, f.mapping ? `${f.taxonomy} (mapped)` : f.taxonomy),
            h('td', 'num', String(f.items)),
            kappaCell(f.kappa),
          ),
        ),
      ),
    ),
  );
}

/** One pair of annotators: Cohen's kappa per act and the confusion matrix of their primary acts. */
function pairSection(r: AgreementResult['reports'][number]): HTMLElement {
  const perAct = h(
    'table',
    'grid',
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        h('th', { attrs: { scope: 'col' } }, 'act'),
        h('th', { attrs: { scope: 'col' } }, 'κ'),
        h('th', { attrs: { scope: 'col' } }, r.annotatorA),
        h('th', { attrs: { scope: 'col' } }, r.annotatorB),
        h('th', { attrs: { scope: 'col' } }, 'both'),
      ),
    ),
    h(
      'tbody',
      null,
      ...r.perAct.map((a) =>
        h(
          'tr',
          null,
          h('td', null, a.act),
          kappaCell(a.kappa),
          h('td', 'num', String(a.countA)),
          h('td', 'num', String(a.countB)),
          h('td', 'num', String(a.both)),
        ),
      ),
    ),
  );
  const max = Math.max(1, ...r.matrix.flat());
  const matrix = h(
    'table',
    'grid confusion',
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        h(
          'th',
          { attrs: { title: `${r.annotatorA} (rows) vs ${r.annotatorB} (columns)`, scope: 'col' } },
          `${r.annotatorA} ↓ / ${r.annotatorB} →`,
        ),
        ...r.labels.map((l) => h('th', { attrs: { scope: 'col' } }, l)),
      ),
    ),
    h(
      'tbody',
      null,
      ...r.matrix.map((row, i) =>
        h(
          'tr',
          null,
          h('th', { attrs: { scope: 'row' } }, r.labels[i]),
          ...row.map((v, j) =>
            h('td', `num heat-${Math.min(4, Math.ceil((v / max) * 4))}${i === j ? ' diag' : ''}`, v ? String(v) : ''),
          ),
        ),
      ),
    ),
  );
  return h(
    'section',
    'pair',
    h('h3', null, `${r.annotatorA} vs ${r.annotatorB} — ${r.speaker} utterances (${r.items})`),
    h('p', 'muted', `Taxonomy: ${r.taxonomy ?? '?'}${r.mapping ? ` — ${r.mapping}` : ''}`),
    h('p', null, 'Primary-act κ: ', h('span', null, k(r.primaryKappa))),
    perAct,
    h('h4', null, 'Confusion matrix (primary act)'),
    h('div', 'scroll-x', matrix),
  );
}

export function renderAgreement(o: AgreementViewOptions): HTMLElement {
  const root = h('div', 'agreement');
  root.appendChild(agreementHead(o));
  root.appendChild(
    h(
      'p',
      'muted',
      "Cohen's kappa per act (act used / not used on each utterance both annotated) and a confusion matrix of the " +
        "first act each gave; Fleiss' kappa on the first act for three or more annotators. Only annotators on the same " +
        'taxonomy are compared unless mapping is on. An LLM judge (annotator "judge:…") counts as an annotator. Unsaved ' +
        'annotations are included. Same report: simlens agreement FILE.',
    ),
  );
  if (o.loading) {
    root.appendChild(h('p', null, icon('loading'), ' Reading annotated conversations…'));
    return root;
  }
  const result = o.result;
  if (!result) return root;
  root.appendChild(
    h(
      'p',
      null,
      `${result.conversations} annotated conversation(s); annotators: `,
      ...(result.annotators.length
        ? result.annotators.flatMap((a, i) => [
            i ? ', ' : '',
            h('strong', null, a),
            ` (${result.taxonomies?.[a] ?? '?'})`,
          ])
        : ['none']),
    ),
  );
  if (result.note) root.appendChild(h('p', 'notice-inline', icon('info'), ' ', result.note));
  for (const w of result.warnings ?? [])
    root.appendChild(h('div', { class: 'notice-inline warning', attrs: { role: 'alert' } }, icon('warning'), ' ', w));
  if (result.reports.length === 0 && !result.note)
    root.appendChild(h('p', 'muted', 'No utterance was annotated by two annotators on a comparable taxonomy.'));
  if (result.fleiss?.length) root.appendChild(fleissSection(result.fleiss));
  for (const r of result.reports) root.appendChild(pairSection(r));
  return root;
}
