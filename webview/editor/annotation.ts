/**
 * Annotation mode: the taxonomy's acts for the selected utterance as numbered toggle buttons,
 * a free-text note, and the annotator id. Keyboard: 1-9 and 0 toggle the first ten acts,
 * Shift+digit the next ten; n/p or Down/Up move between utterances.
 */
import { type Conversation, builtinTaxonomy, inferTaxonomyName, type Taxonomy } from '../../src/shared/model';
import { button, h, icon, setAttr } from './dom';
import type { UtteranceRef } from './transcript';

/** Key label for act number i (0-based): 1..9, 0, then ⇧1..⇧0. */
export function actKeyLabel(i: number): string {
  if (i < 10) return String((i + 1) % 10);
  if (i < 20) return `⇧${(i - 9) % 10}`;
  return '';
}

/** Act index for a key event, or -1. Uses `code` so Shift+1 works on any layout. */
export function actIndexForKey(e: Pick<KeyboardEvent, 'code' | 'shiftKey' | 'altKey' | 'ctrlKey' | 'metaKey'>): number {
  if (e.altKey || e.ctrlKey || e.metaKey) return -1;
  const m = /^(?:Digit|Numpad)(\d)$/.exec(e.code);
  if (!m) return -1;
  const d = Number(m[1]);
  const base = d === 0 ? 9 : d - 1;
  return e.shiftKey ? base + 10 : base;
}

/** The acts and note `annotator` gave an utterance. */
export function currentAnnotation(
  conv: Conversation,
  ref: UtteranceRef,
  annotator: string,
): { acts: string[]; note: string } {
  const a = conv.turns[ref.turn]?.annotations?.find(
    (x) => x.speaker === ref.speaker && x.annotator === annotator && x.segment === undefined,
  );
  return { acts: a ? [...a.acts] : [], note: a?.note ?? '' };
}

interface AnnotationPanelOptions {
  conv: Conversation;
  ref: UtteranceRef | undefined;
  index: number;
  total: number;
  annotator: string;
  taxonomy: Taxonomy;
  onToggle(act: string): void;
  onNote(note: string): void;
  /** The note box was left with Ctrl+Enter or Esc: focus goes back to the utterance. */
  onLeaveNote(): void;
  onMove(delta: number): void;
  onOpenSettings(): void;
  /** Switch the annotation taxonomy to this built-in one. */
  onUseTaxonomy(name: string): void;
}

/**
 * The built-in taxonomy other annotators of this conversation used, when it differs from the
 * active one (their annotations' `taxonomy` field, else the taxonomy their labels belong to).
 */
function taxonomyOffer(
  conv: Conversation,
  me: string,
  active: string,
): { taxonomy: string; annotators: string[] } | undefined {
  const counts = new Map<string, Set<string>>();
  for (const turn of conv.turns) {
    for (const a of turn.annotations ?? []) {
      if (a.annotator === me) continue;
      const name = a.taxonomy?.trim() || inferTaxonomyName(a.acts, a.speaker);
      if (!name || !builtinTaxonomy(name)) continue;
      let set = counts.get(name);
      if (!set) counts.set(name, (set = new Set()));
      set.add(a.annotator);
    }
  }
  if (counts.has(active)) return undefined;
  const best = [...counts].sort((x, y) => y[1].size - x[1].size)[0];
  return best ? { taxonomy: best[0], annotators: [...best[1]].sort() } : undefined;
}

/**
 * One toggle per act of the taxonomy (digit keys shown), then the acts already on the utterance that
 * the taxonomy does not list (another taxonomy, typos), so they stay visible and can be removed.
 */
function actButtons(
  speaker: string,
  acts: readonly string[],
  mine: readonly string[],
  onToggle: (act: string) => void,
): HTMLElement {
  const grid = h('div', { class: 'act-buttons', attrs: { role: 'group', 'aria-label': `${speaker} acts` } });
  acts.forEach((act, i) => {
    const pressed = mine.includes(act);
    const b = h(
      'button',
      {
        class: `act-toggle${pressed ? ' on' : ''}`,
        attrs: {
          type: 'button',
          'aria-pressed': pressed ? 'true' : 'false',
          'data-act': act,
          title: actKeyLabel(i) ? `${act} (key ${actKeyLabel(i)})` : act,
        },
      },
      h('span', 'key', actKeyLabel(i)),
      h('span', 'name', act),
    );
    b.addEventListener('click', () => onToggle(act));
    grid.appendChild(b);
  });
  for (const extra of mine.filter((a) => !acts.includes(a))) {
    const b = h(
      'button',
      {
        class: 'act-toggle on foreign',
        attrs: { type: 'button', 'aria-pressed': 'true', title: `${extra} (not in this taxonomy)` },
      },
      h('span', 'key', ''),
      h('span', 'name', extra),
    );
    b.addEventListener('click', () => onToggle(extra));
    grid.appendChild(b);
  }
  return grid;
}

/** The note box: Ctrl+Enter saves and leaves, Esc restores the saved note and leaves, blur saves a change. */
function noteBox(saved: string, onNote: (note: string) => void, onLeaveNote: () => void): HTMLTextAreaElement {
  const note = h('textarea', {
    class: 'note',
    attrs: {
      rows: 3,
      placeholder: 'Note (optional) — Ctrl+Enter to save, Esc to leave',
      'aria-label': 'Note',
      spellcheck: 'true',
    },
  });
  note.value = saved;
  // The value last sent: blur (also fired when a re-render removes the focused box) sends only changes.
  let sent = saved;
  const commit = () => {
    if (note.value === sent) return;
    sent = note.value;
    onNote(note.value);
  };
  note.addEventListener('blur', commit);
  note.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      commit();
      onLeaveNote();
    } else if (e.key === 'Escape') {
      e.preventDefault();
      note.value = sent;
      onLeaveNote();
    }
    e.stopPropagation();
  });
  return note;
}

export function renderAnnotationPanel(o: AnnotationPanelOptions): HTMLElement {
  const panel = h('div', { class: 'annotate-panel', attrs: { 'aria-label': 'Annotation' } });
  panel.appendChild(
    h(
      'div',
      'annotator',
      icon('account'),
      h('span', null, ' Annotator '),
      o.annotator
        ? h('strong', 'annotator-id', o.annotator)
        : h(
            'strong',
            { class: 'annotator-id unset', attrs: { title: 'You will be asked for an id on your first annotation' } },
            'not set',
          ),
      h('span', null, ' · taxonomy '),
      h('strong', 'taxonomy-name', o.taxonomy.name),
      button({
        icon: 'settings-gear',
        title: 'Annotator and taxonomy settings',
        class: 'icon',
        onClick: () => o.onOpenSettings(),
      }),
    ),
  );
  const offer = taxonomyOffer(o.conv, o.annotator, o.taxonomy.name);
  if (offer) {
    const use = button({
      label: `Annotate in ${offer.taxonomy}`,
      title: `Switch the annotation taxonomy to ${offer.taxonomy}`,
      class: 'secondary',
      onClick: () => o.onUseTaxonomy(offer.taxonomy),
    });
    panel.appendChild(
      h(
        'div',
        { class: 'taxonomy-offer', attrs: { role: 'note' } },
        icon('info'),
        h(
          'span',
          null,
          ` The existing annotations here (${offer.annotators.join(', ')}) use the ${offer.taxonomy} taxonomy; you are ` +
            `annotating in ${o.taxonomy.name}. Agreement only compares annotators on the same taxonomy. `,
        ),
        use,
      ),
    );
  }
  if (!o.ref) {
    panel.appendChild(h('p', 'muted', 'This conversation has no utterances to annotate.'));
    return panel;
  }
  const turn = o.conv.turns[o.ref.turn];
  const text = (o.ref.speaker === 'user' ? turn?.user_utterance : turn?.assistant_utterance) ?? '';
  panel.appendChild(
    h(
      'div',
      'cursor-head',
      button({ icon: 'arrow-up', title: 'Previous utterance (p, ↑)', class: 'icon', onClick: () => o.onMove(-1) }),
      h('span', null, `Utterance ${o.index + 1} of ${o.total} · turn ${o.ref.turn + 1} · ${o.ref.speaker}`),
      button({ icon: 'arrow-down', title: 'Next utterance (n, ↓)', class: 'icon', onClick: () => o.onMove(1) }),
    ),
  );
  panel.appendChild(h('blockquote', 'cursor-text', text.length > 400 ? text.slice(0, 399) + '…' : text));
  const acts = o.ref.speaker === 'user' ? o.taxonomy.user : o.taxonomy.assistant;
  const mine = currentAnnotation(o.conv, o.ref, o.annotator);
  const grid = actButtons(o.ref.speaker, acts, mine.acts, (act) => o.onToggle(act));
  panel.appendChild(grid);
  const note = noteBox(
    mine.note,
    (value) => o.onNote(value),
    () => o.onLeaveNote(),
  );
  panel.appendChild(h('label', { class: 'note-label', attrs: { for: 'note' } }, 'Note'));
  setAttr(note, 'id', 'note');
  panel.appendChild(note);
  const others = (turn?.annotations ?? []).filter((a) => a.speaker === o.ref!.speaker && a.annotator !== o.annotator);
  if (others.length) {
    panel.appendChild(
      h(
        'div',
        'others',
        h('div', 'muted', 'Other annotators'),
        ...others.map((a) =>
          h(
            'div',
            'other',
            h('span', 'act-annotator', a.annotator),
            ...a.acts.map((x) => h('span', 'chip act', x)),
            a.note ? h('span', 'muted', ` — ${a.note}`) : null,
          ),
        ),
      ),
    );
  }
  panel.appendChild(
    h(
      'p',
      'keys muted',
      '1–9, 0 toggle acts · ⇧+digit acts 11–20 · n / p or ↓ / ↑ next / previous utterance · Enter edits the note · Ctrl+Z undo',
    ),
  );
  return panel;
}
