/**
 * Chat-layout transcript of one conversation: user and assistant bubbles, each turn's
 * recommendations as a carousel, first-person ratings as chips, dialogue acts per utterance.
 * All text goes through text nodes (dom.ts).
 */
import type { Annotation, Conversation, RecommendedItem, Turn } from '../../src/shared/model';
import { button, h, icon, replace, safeImage, setAttr } from './dom';

/** One annotatable utterance of a conversation, in reading order. */
export interface UtteranceRef {
  turn: number;
  speaker: 'user' | 'assistant';
}

/** The utterances of a conversation in order (user then assistant within a turn). */
export function utterancesOf(conv: Conversation): UtteranceRef[] {
  const out: UtteranceRef[] = [];
  conv.turns.forEach((t, i) => {
    if (t.user_utterance !== undefined) out.push({ turn: i, speaker: 'user' });
    if (t.assistant_utterance !== undefined) out.push({ turn: i, speaker: 'assistant' });
  });
  return out;
}

interface TranscriptOptions {
  allowRemoteImages: boolean;
  /** Current replay turn: later turns are dimmed. */
  turn: number;
  mode: 'replay' | 'annotate' | 'agreement';
  /** Annotation cursor (annotate mode). */
  cursor?: UtteranceRef;
  annotator: string;
  onSelectUtterance(ref: UtteranceRef): void;
  onSelectTurn(turn: number): void;
  /** The list's text search: its hits are highlighted (the same case-insensitive match the host counts). */
  search?: TranscriptSearch;
  /** Turns (0-based) whose carousel shows whole cards (kept in the view state). */
  wholeCards?: ReadonlySet<number>;
  /** A carousel's "Show whole cards" was switched (the page keeps it; the transcript is not redrawn). */
  onWholeCards?(turn: number, on: boolean): void;
  /**
   * The page's first render: cards unlikely to be on screen (past the first CARDS_IN_VIEW of a
   * carousel, or on a turn more than one away from `near`) are drawn as empty cards of their final
   * size, filled by `fillDeferredCards` right after the first paint.
   */
  deferCards?: { near: number };
}

/** Cards of a carousel drawn at once on the first render: more than a transcript shows side by side at 1,400 px. */
const CARDS_IN_VIEW = 6;

/** Fillers of the cards the last transcript drew empty (`deferCards`). */
let deferredCards: Array<() => void> = [];

/** Fills every card the last transcript drew empty; true when there were some. */
export function fillDeferredCards(): boolean {
  const fill = deferredCards;
  deferredCards = [];
  for (const f of fill) f();
  return fill.length > 0;
}

/** A text search over utterances: `needle` lower-cased, and which speakers it covers. */
export interface TranscriptSearch {
  needle: string;
  speaker: 'user' | 'assistant' | 'both';
}

/** True when `text` (of `speaker`) is a hit of `search` (the host's rule: `searchUtterances`, src/core/document/search.ts). */
function isSearchHit(
  text: string | undefined,
  speaker: 'user' | 'assistant',
  search: TranscriptSearch | undefined,
): boolean {
  if (!search || !search.needle || text === undefined) return false;
  if (search.speaker !== 'both' && search.speaker !== speaker) return false;
  return text.toLowerCase().includes(search.needle);
}

/** The first turn with a hit, or undefined. */
export function firstHitTurn(conv: Conversation, search: TranscriptSearch | undefined): number | undefined {
  if (!search?.needle) return undefined;
  const t = conv.turns.findIndex(
    (turn) =>
      isSearchHit(turn.user_utterance, 'user', search) || isSearchHit(turn.assistant_utterance, 'assistant', search),
  );
  return t === -1 ? undefined : t;
}

/**
 * The text with every occurrence of the needle in <mark> (text nodes only: the data is never
 * parsed as HTML). When lower-casing changes the text's length (a few Unicode letters), offsets
 * would not line up: the whole text is marked instead.
 */
function highlighted(text: string, needle: string): Array<string | HTMLElement> {
  const lower = text.toLowerCase();
  if (lower.length !== text.length) return [h('mark', 'hit', text)];
  const out: Array<string | HTMLElement> = [];
  let at = 0;
  for (let i = lower.indexOf(needle); i !== -1; i = lower.indexOf(needle, i + needle.length)) {
    if (i > at) out.push(text.slice(at, i));
    out.push(h('mark', 'hit', text.slice(i, i + needle.length)));
    at = i + needle.length;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

/**
 * Chips for ratings: ticked checkboxes (true) as their name, other answers as "question: answer";
 * false is an answer too ("no": a ReDial movie not seen, not suggested, not liked) and null one
 * that was not given ("not said"). Only a missing or empty value has no chip.
 */
function ratingChips(ratings: Record<string, unknown> | undefined): HTMLElement[] {
  if (!ratings) return [];
  const chips: HTMLElement[] = [];
  for (const [k, raw] of Object.entries(ratings)) {
    if (raw === undefined || raw === '') continue;
    const v = raw === false ? 'no' : raw === null ? 'not said' : raw;
    const negative =
      /annoy|confus|frustrat|unsatisf|impatient|not in control|unsupported|not at all|probably not|hard|unnatural|too long|did not/i.test(
        k + ' ' + String(v),
      );
    const cls = `chip rating ${raw === false || raw === null ? 'neutral' : negative ? 'neg' : 'pos'}`;
    if (v === true) chips.push(h('span', { class: cls, attrs: { title: k } }, k));
    else {
      const short = k.length > 48 ? k.slice(0, 47) + '…' : k;
      chips.push(
        h(
          'span',
          { class: `${cls} qa`, attrs: { title: `${k}: ${String(v)}` } },
          h('span', 'q', short),
          h('span', 'a', String(v)),
        ),
      );
    }
  }
  return chips;
}

function actChips(annotations: readonly Annotation[], speaker: 'user' | 'assistant', me: string): HTMLElement | null {
  const mine = annotations.filter((a) => a.speaker === speaker);
  if (mine.length === 0) return null;
  return h(
    'div',
    'acts',
    ...mine.map((a) =>
      h(
        'span',
        {
          class: `act-group${a.annotator === me ? ' mine' : ''}${a.annotator.startsWith('judge') ? ' judge' : ''}`,
          attrs: { title: a.note ? `${a.annotator}: ${a.note}` : a.annotator },
        },
        h('span', 'act-annotator', a.annotator),
        ...a.acts.map((act) => h('span', 'chip act', act)),
        a.note ? icon('note', 'has a note') : null,
      ),
    ),
  );
}

function features(item: RecommendedItem): string[] {
  const f = item.features;
  if (Array.isArray(f)) return f.map(String).filter(Boolean);
  if (typeof f === 'string')
    return f
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  return [];
}

/**
 * What the items of a carousel hold, as classes that size its cards (media/editor.css: every card of
 * a carousel has one height, with room for an image, a description and features only when some item
 * has one). The height depends only on the data, so a card the browser skips off screen takes exactly
 * the room it takes when drawn, and a carousel of titles only stays small.
 */
function cardParts(items: readonly RecommendedItem[]): string {
  return [
    items.some((i) => i.image_url) ? ' has-media' : '',
    items.some((i) => i.description) ? ' has-desc' : '',
    items.some((i) => features(i).length) ? ' has-features' : '',
  ].join('');
}

/** What a card shows: the image (or why not), title, id and score, description, features. */
function cardContent(item: RecommendedItem, allowRemoteImages: boolean, toggleWhole: () => void): HTMLElement[] {
  const title = item.title ?? item.item_id;
  let media: HTMLElement | undefined;
  if (item.image_url) {
    const img = safeImage(item.image_url, title, allowRemoteImages);
    if (img) {
      media = h('div', 'card-media', img);
      img.addEventListener('error', () => replace(media!, icon('file-media'), h('span', 'muted', 'image failed')));
    } else {
      media = h(
        'div',
        {
          class: 'card-media placeholder',
          attrs: {
            title: allowRemoteImages
              ? 'Only https: images are shown'
              : 'Remote images are off (setting simlens.allowRemoteImages)',
          },
        },
        icon('file-media'),
        h('span', 'muted', 'image hidden'),
      );
    }
  }
  const desc = item.description ? h('p', 'card-desc', item.description) : null;
  const feats = features(item);
  const featureList = feats.length
    ? h(
        'div',
        { class: 'card-features', attrs: { title: feats.join(', ') } },
        ...feats.map((f) => h('span', 'chip feature', f)),
      )
    : null;
  for (const part of [desc, featureList]) part?.addEventListener('click', toggleWhole);
  return [
    media,
    h('div', { class: 'card-title', attrs: { title } }, title),
    h(
      'div',
      'card-id muted',
      h('span', { class: 'card-id-text', attrs: { title: item.item_id } }, item.item_id),
      item.score !== undefined ? h('span', 'card-score', ` · score ${Number(item.score).toFixed(3)}`) : null,
    ),
    desc,
    featureList,
  ].filter((x): x is HTMLElement => x !== null && x !== undefined);
}

/**
 * A horizontally scrolling carousel of recommended items. Cards are cut to one height until the
 * carousel shows whole cards: its "Show whole cards" button (keyboard too), or a click on a card's
 * description or features.
 */
function carousel(
  items: readonly RecommendedItem[],
  allowRemoteImages: boolean,
  whole: boolean,
  onWholeCards: (on: boolean) => void,
  deferFrom = Infinity,
): HTMLElement {
  // Focusable so a keyboard can reach and scroll it (WCAG: scrollable regions must be focusable).
  const track = h('div', {
    class: 'carousel-track',
    attrs: {
      role: 'list',
      tabindex: 0,
      'aria-label': `${items.length} recommended item${items.length === 1 ? '' : 's'}`,
    },
  });
  const box = h('div', `carousel${cardParts(items)}${whole ? ' expanded' : ''}`);
  const toggle = button({
    icon: 'unfold',
    title: 'Show whole cards',
    class: 'icon whole-cards',
    onClick: () => setWhole(!box.classList.contains('expanded')),
  });
  const setWhole = (on: boolean) => {
    box.classList.toggle('expanded', on);
    toggle.setAttribute('aria-pressed', String(on));
    onWholeCards(on);
  };
  toggle.setAttribute('aria-pressed', String(whole));
  items.forEach((item, index) => {
    const card = h('div', { class: 'card', attrs: { role: 'listitem' } });
    track.appendChild(card);
    const draw = () =>
      card.append(...cardContent(item, allowRemoteImages, () => setWhole(!box.classList.contains('expanded'))));
    if (index >= deferFrom && !whole) deferredCards.push(draw);
    else draw();
  });
  const scroll = (dir: number) => {
    const card = track.querySelector('.card') as HTMLElement | null;
    const by = (card?.offsetWidth ?? 220) + 8;
    if (typeof track.scrollBy === 'function') track.scrollBy({ left: dir * by, behavior: 'smooth' });
    else track.scrollLeft += dir * by;
  };
  box.append(
    h(
      'div',
      'carousel-head',
      icon('list-flat'),
      h('span', null, `${items.length} recommendation${items.length === 1 ? '' : 's'}`),
      button({ icon: 'chevron-left', title: 'Previous items', class: 'icon', onClick: () => scroll(-1) }),
      button({ icon: 'chevron-right', title: 'Next items', class: 'icon', onClick: () => scroll(1) }),
      toggle,
    ),
    track,
  );
  return box;
}

/**
 * The headline of a failed turn from its `trace.error_kind` (a FailureReason, see
 * src/core/failures.ts): who failed, and the failure class. A missing kind is an agent failure
 * (the only kind older runs recorded on a turn).
 */
export function failureHeadline(kind: string | undefined): string {
  const k = kind && kind.trim() !== '' ? kind : undefined;
  const who =
    !k || k.startsWith('agent_')
      ? 'Recommender failed'
      : k.startsWith('user_')
        ? 'Simulated user failed'
        : k.startsWith('judge_')
          ? 'Judge failed'
          : k.startsWith('simulator_')
            ? 'Simulator failed'
            : 'Turn failed';
  return `${who} (${k ?? 'unknown'})`;
}

/** A failed turn (trace.error) shown where the assistant bubble would be: icon, headline, message. */
function failureBlock(turn: Turn, t: number): HTMLElement | null {
  const message = turn.trace?.error;
  if (typeof message !== 'string') return null;
  const headline = failureHeadline(turn.trace?.error_kind);
  return h(
    'div',
    {
      class: 'msg assistant agent-failure',
      attrs: { 'data-turn': t, 'data-failure': 'true', role: 'note', 'aria-label': headline },
    },
    h('div', 'avatar', icon('hubot', 'assistant')),
    h(
      'div',
      'msg-body',
      h(
        'div',
        'error-box failure',
        h('div', 'failure-head', icon('error', 'failed'), ' ', h('strong', null, headline)),
        h('div', 'failure-message', message === '' ? '(no message)' : message),
      ),
    ),
  );
}

function utterance(turn: Turn, t: number, speaker: 'user' | 'assistant', opts: TranscriptOptions): HTMLElement | null {
  const text = speaker === 'user' ? turn.user_utterance : turn.assistant_utterance;
  if (text === undefined) return null;
  // A failed agent call has no answer: older runs wrote an empty one, which is not shown as a bubble.
  if (speaker === 'assistant' && text === '' && typeof turn.trace?.error === 'string') return null;
  const selected = opts.mode === 'annotate' && opts.cursor?.turn === t && opts.cursor.speaker === speaker;
  const hit = isSearchHit(text, speaker, opts.search);
  const simAct = speaker === 'user' ? turn.trace?.user_act : (turn.trace?.agent_act ?? turn.trace?.nlu?.agent_act);
  const el = h(
    'div',
    {
      class: `msg ${speaker}${selected ? ' cursor' : ''}${hit ? ' search-hit' : ''}`,
      attrs: { 'data-turn': t, 'data-speaker': speaker, tabindex: opts.mode === 'annotate' ? -1 : undefined },
    },
    h('div', 'avatar', icon(speaker === 'user' ? 'account' : 'hubot', speaker)),
    h(
      'div',
      'msg-body',
      h(
        'div',
        'bubble',
        ...(text === '' ? [h('span', 'muted', '(empty)')] : hit ? highlighted(text, opts.search!.needle) : [text]),
      ),
      h(
        'div',
        'msg-meta',
        simAct
          ? h(
              'span',
              {
                class: 'chip sim-act',
                attrs: { title: speaker === 'user' ? 'simulator act (trace)' : 'agent act (trace)' },
              },
              simAct,
            )
          : null,
      ),
      actChips(turn.annotations ?? [], speaker, opts.annotator),
    ),
  );
  el.addEventListener('click', () => opts.onSelectUtterance({ turn: t, speaker }));
  return el;
}

/** Renders the header (id, facets, session ratings) of a conversation. */
export function conversationHeader(conv: Conversation, id: string, line: number): HTMLElement {
  const meta: Array<[string, string | undefined]> = [
    ['task', conv.task_id],
    ['condition', conv.condition],
    ['source', conv.source],
    ['agent', conv.agent],
    ['outcome', conv.outcome],
    ['version', conv.version !== undefined ? String(conv.version) : undefined],
  ];
  const session = ratingChips(conv.ratings);
  // A failure no turn records (a simulator crash) is shown under the header; one a turn records is
  // shown on that turn only.
  const md = conv.metadata ?? {};
  const crash =
    typeof md.error === 'string' && !conv.turns.some((t) => t.trace?.error !== undefined) ? md.error : undefined;
  const crashKind = typeof md.error_kind === 'string' ? md.error_kind : 'simulator_error';
  return h(
    'div',
    'conv-header',
    h('h2', { class: 'conv-id', attrs: { title: `line ${line + 1}` } }, id),
    h(
      'div',
      'conv-meta',
      h('span', 'muted', `line ${line + 1}`),
      ...meta
        .filter(([, v]) => v !== undefined && v !== '')
        .map(([k, v]) => h('span', { class: 'chip meta', attrs: { title: k } }, h('span', 'k', k), String(v))),
    ),
    crash !== undefined
      ? h(
          'div',
          { class: 'error-box failure conv-failure', attrs: { role: 'note' } },
          h('div', 'failure-head', icon('error', 'failed'), ' ', h('strong', null, failureHeadline(crashKind))),
          h('div', 'failure-message', crash),
        )
      : null,
    session.length
      ? h(
          'details',
          'session-ratings',
          h('summary', null, icon('star-empty'), ` Session ratings (${session.length})`),
          h('div', 'chips', ...session),
        )
      : null,
  );
}

/**
 * Renders all turns. Turns after `opts.turn` are dimmed ("future") in replay mode, and in annotate
 * mode after the turn of the utterance being labelled (what comes later is not read yet).
 */
export function renderTranscript(conv: Conversation, opts: TranscriptOptions): HTMLElement {
  const root = h('div', { class: 'transcript', attrs: { role: 'log', 'aria-label': 'Transcript' } });
  deferredCards = [];
  const defer = opts.deferCards;
  conv.turns.forEach((turn, t) => {
    const ratings = ratingChips(turn.ratings);
    const future = (opts.mode === 'replay' || opts.mode === 'annotate') && t > opts.turn;
    const el = h(
      'section',
      {
        class: `turn${t === opts.turn && opts.mode === 'replay' ? ' current' : ''}${future ? ' future' : ''}`,
        attrs: { 'data-turn': t, 'aria-current': t === opts.turn ? 'step' : undefined },
      },
      h(
        'div',
        'turn-label',
        h('span', null, `Turn ${t + 1}`),
        turn.trace?.error !== undefined
          ? h('span', { class: 'chip error', attrs: { title: turn.trace.error } }, icon('warning'), ' failed')
          : null,
      ),
      utterance(turn, t, 'user', opts),
      failureBlock(turn, t),
      utterance(turn, t, 'assistant', opts),
      turn.recommendations && turn.recommendations.length
        ? carousel(
            turn.recommendations,
            opts.allowRemoteImages,
            opts.wholeCards?.has(t) ?? false,
            (on) => opts.onWholeCards?.(t, on),
            !defer ? Infinity : Math.abs(t - defer.near) <= 1 ? CARDS_IN_VIEW : 0,
          )
        : null,
      ratings.length ? h('div', 'turn-ratings', h('span', 'muted', 'Rated:'), ...ratings) : null,
    );
    el.querySelector('.turn-label')?.addEventListener('click', () => opts.onSelectTurn(t));
    root.appendChild(el);
  });
  if (conv.turns.length === 0) root.appendChild(h('p', 'muted', 'This conversation has no turns.'));
  return root;
}

/** Marks the current turn / cursor without re-rendering (keeps scroll and carousel positions). */
export function updateTranscriptMarks(
  root: HTMLElement,
  opts: Pick<TranscriptOptions, 'turn' | 'mode' | 'cursor'>,
): void {
  for (const el of Array.from(root.querySelectorAll<HTMLElement>('section.turn'))) {
    const t = Number(el.dataset.turn);
    el.classList.toggle('current', t === opts.turn && opts.mode === 'replay');
    el.classList.toggle('future', (opts.mode === 'replay' || opts.mode === 'annotate') && t > opts.turn);
    setAttr(el, 'aria-current', t === opts.turn ? 'step' : undefined);
  }
  for (const el of Array.from(root.querySelectorAll<HTMLElement>('.msg'))) {
    const on =
      opts.mode === 'annotate' &&
      opts.cursor !== undefined &&
      Number(el.dataset.turn) === opts.cursor.turn &&
      el.dataset.speaker === opts.cursor.speaker;
    el.classList.toggle('cursor', on);
  }
}
