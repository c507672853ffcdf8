/** Agreement view: Cohen's kappa per act and a confusion matrix of primary acts per annotator pair. */
import type { AgreementResult } from '../../src/shared/editorProtocol';
import { h, icon } from './dom';

function k(x: number | null): string {
  return x === null ? '—' : x.toFixed(3);
}

function kappaClass(x: number | null): string {
  if (x === null) return 'kappa na';
  if (x >= 0.8) return 'kappa high';
  if (x >= 0.6) return 'kappa good';
  if (x >= 0.4) return 'kappa fair';
  return 'kappa low';
}

export function renderAgreement(result: AgreementResult | undefined, loading: boolean, onCompute: () => void): HTMLElement {
  const root = h('div', 'agreement');
  const compute = h('button', { class: 'btn primary', attrs: { type: 'button' } }, icon('refresh'), ' Compute agreement');
  compute.addEventListener('click', onCompute);
  root.appendChild(h('div', 'agreement-head', h('h2', null, 'Inter-annotator agreement'), compute));
  root.appendChild(
    h('p', 'muted', "Cohen's kappa per act (act used / not used on each utterance both annotated) and a confusion matrix of the first act each gave. An LLM judge that writes utterance annotations (annotator \"judge:…\") counts as an annotator. Unsaved annotations are included."),
  );
  if (loading) {
    root.appendChild(h('p', null, icon('loading'), ' Reading annotated conversations…'));
    return root;
  }
  if (!result) return root;
  root.appendChild(h('p', null, `${result.conversations} annotated conversation(s); annotators: ${result.annotators.join(', ') || 'none'}`));
  if (result.note) root.appendChild(h('p', 'notice-inline', icon('info'), ' ', result.note));
  if (result.reports.length === 0 && !result.note) root.appendChild(h('p', 'muted', 'No utterance was annotated by two annotators.'));
  for (const r of result.reports) {
    const perAct = h(
      'table',
      'grid',
      h('thead', null, h('tr', null, h('th', null, 'act'), h('th', null, 'κ'), h('th', null, r.annotatorA), h('th', null, r.annotatorB), h('th', null, 'both'))),
      h('tbody', null, ...r.perAct.map((a) => h('tr', null, h('td', null, a.act), h('td', kappaClass(a.kappa), k(a.kappa)), h('td', 'num', String(a.countA)), h('td', 'num', String(a.countB)), h('td', 'num', String(a.both))))),
    );
    const max = Math.max(1, ...r.matrix.flat());
    const matrix = h(
      'table',
      'grid confusion',
      h('thead', null, h('tr', null, h('th', { attrs: { title: `${r.annotatorA} (rows) vs ${r.annotatorB} (columns)` } }, `${r.annotatorA} ↓ / ${r.annotatorB} →`), ...r.labels.map((l) => h('th', null, l)))),
      h(
        'tbody',
        null,
        ...r.matrix.map((row, i) =>
          h(
            'tr',
            null,
            h('th', { attrs: { scope: 'row' } }, r.labels[i]),
            ...row.map((v, j) => h('td', `num heat-${Math.min(4, Math.ceil((v / max) * 4))}${i === j ? ' diag' : ''}`, v ? String(v) : '')),
          ),
        ),
      ),
    );
    root.appendChild(
      h(
        'section',
        'pair',
        h('h3', null, `${r.annotatorA} vs ${r.annotatorB} — ${r.speaker} utterances (${r.items})`),
        h('p', null, 'Primary-act κ: ', h('span', kappaClass(r.primaryKappa), k(r.primaryKappa))),
        perAct,
        h('h4', null, 'Confusion matrix (primary act)'),
        h('div', 'scroll-x', matrix),
      ),
    );
  }
  return root;
}
