/**
 * The simulator-state panel beside the transcript: the full state at the current turn (agenda
 * with pushes/pulls since the previous turn, goal, preferences, target and switches, patience,
 * satisfaction/frustration over turns, NLU, raw LLM calls). State a turn does not record is carried
 * from the last turn that did (preference deltas are folded into the snapshot), so a section never
 * comes and goes between turns; what changed this turn is highlighted.
 */
import type { Conversation, PreferenceState, SimulatorTrace } from '../../src/shared/model';
import { h, icon, setAttr, type Child } from './dom';
import { failureHeadline } from './transcript';

const SVG = 'http://www.w3.org/2000/svg';

function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number>,
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  // Numeric/geometry attributes we compute ourselves; never data.
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

/** Multiset difference a - b (items of a not matched in b). */
export function multisetMinus(a: readonly string[], b: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const x of b) counts.set(x, (counts.get(x) ?? 0) + 1);
  const out: string[] = [];
  for (const x of a) {
    const c = counts.get(x) ?? 0;
    if (c > 0) counts.set(x, c - 1);
    else out.push(x);
  }
  return out;
}

/** Whether any turn of the conversation carries a trace. */
function hasTrace(conv: Conversation): boolean {
  return conv.turns.some((t) => t.trace && Object.keys(t.trace).length > 0);
}

function section(title: string, iconName: string, ...children: Child[]): HTMLElement {
  return h('section', 'state-section', h('h3', null, icon(iconName), ` ${title}`), ...children);
}

function chips(values: readonly string[] | undefined, cls: string): HTMLElement | null {
  if (!values || values.length === 0) return null;
  return h('div', 'chips', ...values.map((v) => h('span', `chip ${cls}`, v)));
}

function json(value: unknown): string {
  try {
    return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

/**
 * A small line chart (SVG) of satisfaction and frustration over turns with a marker on the
 * current turn. Geometry only: labels are text nodes.
 */
function sparkline(
  series: Array<{ name: string; cls: string; values: Array<number | undefined> }>,
  current: number,
): HTMLElement | null {
  const all = series.flatMap((s) => s.values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v)));
  if (all.length === 0) return null;
  const n = Math.max(...series.map((s) => s.values.length));
  const lo = Math.min(0, ...all);
  const hi = Math.max(1, ...all);
  const W = 240;
  const H = 64;
  const pad = 4;
  const x = (i: number) => (n <= 1 ? W / 2 : pad + (i * (W - 2 * pad)) / (n - 1));
  const y = (v: number) => H - pad - ((v - lo) / (hi - lo || 1)) * (H - 2 * pad);
  const root = svg('svg', {
    viewBox: `0 0 ${W} ${H}`,
    class: 'spark',
    role: 'img',
    'aria-label': 'satisfaction and frustration over turns',
  });
  root.appendChild(svg('line', { x1: 0, x2: W, y1: y(lo), y2: y(lo), class: 'axis' }));
  if (current >= 0 && current < n)
    root.appendChild(svg('line', { x1: x(current), x2: x(current), y1: 0, y2: H, class: 'marker' }));
  for (const s of series) {
    const pts: string[] = [];
    s.values.forEach((v, i) => {
      if (typeof v === 'number' && Number.isFinite(v)) pts.push(`${x(i).toFixed(1)},${y(v).toFixed(1)}`);
    });
    if (pts.length > 1) root.appendChild(svg('polyline', { points: pts.join(' '), class: `line ${s.cls}` }));
    s.values.forEach((v, i) => {
      if (typeof v === 'number' && Number.isFinite(v))
        root.appendChild(svg('circle', { cx: x(i), cy: y(v), r: i === current ? 3.5 : 2, class: `dot ${s.cls}` }));
    });
  }
  const legend = h(
    'div',
    'legend',
    ...series.map((s) => {
      const v = s.values[current];
      return h(
        'span',
        `legend-item ${s.cls}`,
        h('span', 'swatch'),
        `${s.name}${typeof v === 'number' ? ` ${+v.toFixed(3)}` : ''}`,
      );
    }),
    h('span', 'muted', `range ${+lo.toFixed(2)}–${+hi.toFixed(2)}`),
  );
  return h('div', 'chart', root, legend);
}

/** The last value of a trace field at or before turn `t`, and the turn that recorded it. */
function latestAt<K extends keyof SimulatorTrace>(
  conv: Conversation,
  t: number,
  key: K,
): { value: NonNullable<SimulatorTrace[K]>; turn: number } | undefined {
  for (let i = Math.min(t, conv.turns.length - 1); i >= 0; i--) {
    const v = conv.turns[i]?.trace?.[key];
    if (v !== undefined && v !== null) return { value: v as NonNullable<SimulatorTrace[K]>, turn: i };
  }
  return undefined;
}

const PREF_LISTS = [
  'liked_items',
  'disliked_items',
  'consumed_items',
  'liked_attributes',
  'disliked_attributes',
] as const;

/**
 * The preference state at turn `t`: the last snapshot with every later delta up to `t` merged in
 * (deltas only add opinions), plus what turn `t` itself added. `reflected` is this turn's only.
 */
export function preferencesAt(
  conv: Conversation,
  t: number,
): { state: PreferenceState; added: Set<string>; changed: boolean } | undefined {
  let state: PreferenceState | undefined;
  let added = new Set<string>();
  let changed = false;
  for (let i = 0; i <= Math.min(t, conv.turns.length - 1); i++) {
    const p = conv.turns[i]?.trace?.preferences;
    const here = i === t;
    if (!p) continue;
    if (here) changed = true;
    if (p.kind !== 'delta' || !state) {
      state = { ...p, kind: 'snapshot' };
      if (here) added = new Set(PREF_LISTS.flatMap((k) => p[k] ?? []));
      else added = new Set();
    } else {
      const next: PreferenceState = { ...state };
      for (const k of PREF_LISTS) {
        const extra = (p[k] ?? []).filter((x) => !(state![k] ?? []).includes(x));
        if (extra.length) next[k] = [...(state[k] ?? []), ...extra];
        if (here) for (const x of extra) added.add(x);
      }
      if (p.general !== undefined) next.general = p.general;
      if (p.attribute_ratings) next.attribute_ratings = { ...state.attribute_ratings, ...p.attribute_ratings };
      if (p.item_ratings) next.item_ratings = { ...state.item_ratings, ...p.item_ratings };
      state = next;
    }
    state.reflected = here ? p.reflected : undefined;
  }
  if (state && !changed) state = { ...state, reflected: undefined };
  return state ? { state, added, changed } : undefined;
}

/** "unchanged since turn k" (or "changed this turn") under a section title. */
function since(turn: number | undefined, t: number): HTMLElement | null {
  if (turn === undefined) return null;
  return turn === t
    ? h('div', 'state-delta changed', icon('diff-modified'), ' changed this turn')
    : h('div', 'state-delta muted', `unchanged since turn ${turn + 1}`);
}

function notYet(what: string): HTMLElement {
  return h('p', 'muted not-yet', `No ${what} recorded up to this turn.`);
}

/** Whether any turn of the conversation records a trace field. */
type Ever = (key: keyof SimulatorTrace) => boolean;

/** Agenda: pushes / pulls since the previous turn. */
function agendaSection(conv: Conversation, t: number, trace: SimulatorTrace | undefined, ever: Ever): HTMLElement[] {
  const out: HTMLElement[] = [];
  const add = (el: HTMLElement): void => void out.push(el);
  const agendaAt = latestAt(conv, t, 'agenda');
  if (agendaAt) {
    const agenda = agendaAt.value;
    const fresh = agendaAt.turn === t;
    const prev = t > 0 ? latestAt(conv, t - 1, 'agenda')?.value : undefined;
    const pushed = fresh ? (trace?.pushed ?? (prev ? multisetMinus(agenda, prev) : [])) : [];
    const pulled = fresh ? (trace?.pulled ?? (prev ? multisetMinus(prev, agenda) : [])) : [];
    const pushedLeft = [...pushed];
    const list = h('ol', { class: 'agenda', attrs: { 'aria-label': 'agenda, top first' } });
    agenda.forEach((act, i) => {
      const k = pushedLeft.indexOf(act);
      const isPushed = k >= 0;
      if (isPushed) pushedLeft.splice(k, 1);
      list.appendChild(
        h(
          'li',
          {
            class: `agenda-item${isPushed ? ' pushed' : ''}${i === 0 ? ' top' : ''}`,
            attrs: { title: isPushed ? 'pushed since the previous turn' : undefined },
          },
          isPushed ? icon('add') : null,
          act,
        ),
      );
    });
    add(
      section(
        `Agenda (${agenda.length})`,
        'layers',
        since(fresh ? undefined : agendaAt.turn, t),
        agenda.length ? list : h('p', 'muted agenda-empty', 'Empty: the dialogue ends.'),
        pulled.length
          ? h(
              'div',
              'pulled',
              h('span', 'muted', 'pulled: '),
              ...pulled.map((p) =>
                h('span', { class: 'chip pulled-item', attrs: { title: 'pulled since the previous turn' } }, p),
              ),
            )
          : null,
      ),
    );
  } else if (ever('agenda')) add(section('Agenda', 'layers', notYet('agenda')));
  return out;
}

/** Goal: constraints (changed ones marked) and requests (fulfilled ones ticked). */
function goalSection(conv: Conversation, t: number, trace: SimulatorTrace | undefined, ever: Ever): HTMLElement[] {
  const out: HTMLElement[] = [];
  const add = (el: HTMLElement): void => void out.push(el);
  const goalAt = latestAt(conv, t, 'goal');
  if (goalAt) {
    const goal = goalAt.value;
    const prevGoal = t > 0 ? latestAt(conv, t - 1, 'goal')?.value : undefined;
    const goalChanged = goalAt.turn === t && JSON.stringify(prevGoal) !== JSON.stringify(goal);
    const c = Object.entries(goal.constraints ?? {});
    const fulfilled = new Set(goal.fulfilled_requests ?? []);
    const prevC = (prevGoal?.constraints ?? {}) as Record<string, unknown>;
    add(
      section(
        'Goal',
        'target',
        since(goalChanged ? t : goalAt.turn === t ? undefined : goalAt.turn, t),
        c.length
          ? h(
              'table',
              'kv',
              ...c.map(([k, v]) =>
                h(
                  'tr',
                  {
                    class: goalChanged && JSON.stringify(prevC[k]) !== JSON.stringify(v) ? 'changed' : undefined,
                    attrs: {
                      title:
                        goalChanged && JSON.stringify(prevC[k]) !== JSON.stringify(v) ? 'changed this turn' : undefined,
                    },
                  },
                  h('th', { attrs: { scope: 'row' } }, k),
                  h('td', null, String(v)),
                ),
              ),
            )
          : h('p', 'muted', 'No constraints.'),
        goal.requests?.length
          ? h(
              'div',
              'chips',
              h('span', 'muted', 'requests: '),
              ...goal.requests.map((r) =>
                h('span', `chip request${fulfilled.has(r) ? ' done' : ''}`, fulfilled.has(r) ? icon('check') : null, r),
              ),
            )
          : null,
      ),
    );
  } else if (ever('goal')) add(section('Goal', 'target', notYet('goal')));
  return out;
}

/** Preferences: the folded state, with this turn's additions marked. */
function preferencesSection(
  conv: Conversation,
  t: number,
  trace: SimulatorTrace | undefined,
  ever: Ever,
): HTMLElement[] {
  const out: HTMLElement[] = [];
  const add = (el: HTMLElement): void => void out.push(el);
  const prefAt = preferencesAt(conv, t);
  if (prefAt) {
    const p = prefAt.state;
    const reflected = Object.entries(p.reflected ?? {});
    const list = (label: string, values: string[] | undefined, cls: string) =>
      values?.length
        ? h(
            'div',
            'pref',
            h('span', 'muted', label),
            h(
              'div',
              'chips',
              ...values.map((v) =>
                prefAt.added.has(v)
                  ? h('span', { class: `chip ${cls} added`, attrs: { title: 'added this turn' } }, icon('add'), v)
                  : h('span', `chip ${cls}`, v),
              ),
            ),
          )
        : null;
    add(
      section(
        `Preferences${p.model ? ` (${p.model})` : ''}`,
        'heart',
        prefAt.changed ? since(t, t) : h('div', 'state-delta muted', 'no change this turn'),
        list('liked items', p.liked_items, 'like'),
        list('disliked items', p.disliked_items, 'dislike'),
        list('liked attributes', p.liked_attributes, 'like'),
        list('disliked attributes', p.disliked_attributes, 'dislike'),
        !p.liked_items?.length &&
          !p.disliked_items?.length &&
          !p.liked_attributes?.length &&
          !p.disliked_attributes?.length
          ? h('p', 'muted', 'No liked or disliked items yet.')
          : null,
        h(
          'div',
          'pref',
          h('span', 'muted', 'opinions this turn'),
          reflected.length
            ? h('div', 'chips', ...reflected.map(([item, o]) => h('span', `chip ${o}`, `${item}: ${o}`)))
            : h('span', 'muted', ' none'),
        ),
        p.general ? h('details', null, h('summary', null, 'General preferences'), h('p', 'prose', p.general)) : null,
      ),
    );
  } else if (ever('preferences')) add(section('Preferences', 'heart', notYet('preferences')));
  return out;
}

/** Target and alternatives, with a switch made this turn. */
function targetSection(conv: Conversation, t: number, trace: SimulatorTrace | undefined, ever: Ever): HTMLElement[] {
  const out: HTMLElement[] = [];
  const add = (el: HTMLElement): void => void out.push(el);
  const targetAt = latestAt(conv, t, 'target');
  if (targetAt) {
    const tg = targetAt.value;
    const switchedNow = targetAt.turn === t && tg.switched_from !== undefined;
    add(
      section(
        'Target',
        'pinned',
        switchedNow ? null : since(targetAt.turn === t ? undefined : targetAt.turn, t),
        h('div', 'target', h('span', 'chip target-item', tg.item_id)),
        switchedNow
          ? h(
              'div',
              'switch changed',
              icon('arrow-swap'),
              ` switched from ${tg.switched_from}${tg.switch_reason ? ` (${tg.switch_reason})` : ''}`,
            )
          : null,
        tg.alternatives?.length
          ? h('div', 'pref', h('span', 'muted', 'alternatives'), chips(tg.alternatives, 'alt'))
          : null,
      ),
    );
  } else if (ever('target')) add(section('Target', 'pinned', notYet('target')));
  return out;
}

/** Patience and the satisfaction / frustration chart. */
function experienceSection(
  conv: Conversation,
  t: number,
  trace: SimulatorTrace | undefined,
  _ever: Ever,
): HTMLElement[] {
  const out: HTMLElement[] = [];
  const add = (el: HTMLElement): void => void out.push(el);
  const sat = conv.turns.map((x) => x.trace?.satisfaction);
  const fru = conv.turns.map((x) => x.trace?.frustration);
  const chart = sparkline(
    [
      { name: 'satisfaction', cls: 'sat', values: sat },
      { name: 'frustration', cls: 'fru', values: fru },
    ],
    t,
  );
  const patience = latestAt(conv, t, 'patience')?.value;
  if (patience !== undefined || chart) {
    const maxPatience = Math.max(1, ...conv.turns.map((x) => x.trace?.patience ?? 0));
    const meter = patience !== undefined ? document.createElement('meter') : null;
    if (meter) {
      setAttr(meter, 'min', 0);
      setAttr(meter, 'max', maxPatience);
      setAttr(meter, 'value', Math.max(0, patience ?? 0));
      setAttr(meter, 'low', maxPatience * 0.34);
      setAttr(meter, 'optimum', maxPatience);
    }
    add(
      section(
        'Patience & experience',
        'pulse',
        patience !== undefined ? h('div', 'patience', h('span', 'muted', 'patience '), meter, ` ${patience}`) : null,
        chart,
        trace?.preference_coverage !== undefined
          ? h('div', 'muted', `preference coverage ${(trace.preference_coverage * 100).toFixed(0)}%`)
          : null,
      ),
    );
  }
  return out;
}

/** NLU: this turn's reading of the agent (not carried). */
function nluSection(conv: Conversation, t: number, trace: SimulatorTrace | undefined, ever: Ever): HTMLElement[] {
  const out: HTMLElement[] = [];
  const add = (el: HTMLElement): void => void out.push(el);
  if (!trace?.nlu && ever('nlu')) add(section('NLU', 'symbol-keyword', h('p', 'muted', 'No NLU reading this turn.')));
  if (trace?.nlu) {
    const n = trace.nlu;
    add(
      section(
        'NLU',
        'symbol-keyword',
        h(
          'div',
          'chips',
          h('span', 'chip meta', n.agent_act),
          n.source ? h('span', 'muted', ` ${n.source}`) : null,
          n.confidence !== undefined ? h('span', 'muted', ` · ${(n.confidence * 100).toFixed(0)}%`) : null,
        ),
        n.slots?.length
          ? h('div', 'chips', ...n.slots.map((s) => h('span', 'chip', `${s.slot}=${String(s.value)}`)))
          : null,
      ),
    );
  }
  return out;
}

/** Raw LLM calls of this turn. */
function llmCallsSection(conv: Conversation, t: number, trace: SimulatorTrace | undefined, ever: Ever): HTMLElement[] {
  const out: HTMLElement[] = [];
  const add = (el: HTMLElement): void => void out.push(el);
  const calls = trace?.llm_calls ?? [];
  if (!calls.length && !trace?.llm_call_ids?.length && (ever('llm_calls') || ever('llm_call_ids')))
    add(section('LLM calls (0)', 'sparkle', h('p', 'muted', 'No LLM call this turn.')));
  if (trace && (calls.length || trace.llm_call_ids?.length)) {
    add(
      section(
        `LLM calls (${calls.length || trace.llm_call_ids?.length})`,
        'sparkle',
        ...calls.map((c) =>
          h(
            'details',
            'llm-call',
            h(
              'summary',
              null,
              [c.role, c.model].filter(Boolean).join(' · ') || c.id,
              c.latency_ms !== undefined ? ` · ${Math.round(c.latency_ms)} ms` : '',
              c.prompt_tokens !== undefined ? ` · ${c.prompt_tokens}+${c.completion_tokens ?? 0} tok` : '',
              c.cached ? ' · cached' : '',
              c.error ? ' · error' : '',
            ),
            c.error ? h('div', 'error-box', c.error) : null,
            c.request !== undefined
              ? h('div', null, h('div', 'muted', 'request'), h('pre', 'raw', json(c.request)))
              : null,
            c.response !== undefined
              ? h('div', null, h('div', 'muted', 'response'), h('pre', 'raw', json(c.response)))
              : null,
          ),
        ),
        !calls.length && trace.llm_call_ids
          ? h('p', 'muted', `ids: ${trace.llm_call_ids.join(', ')} (stored outside this file)`)
          : null,
      ),
    );
  }
  return out;
}

/** Anything else the simulator recorded, as JSON. */
function otherFieldsSection(
  conv: Conversation,
  t: number,
  trace: SimulatorTrace | undefined,
  _ever: Ever,
): HTMLElement[] {
  const out: HTMLElement[] = [];
  const add = (el: HTMLElement): void => void out.push(el);
  const known = new Set([
    'agenda',
    'operation',
    'pushed',
    'pulled',
    'goal',
    'preferences',
    'nlu',
    'user_act',
    'agent_act',
    'target',
    'patience',
    'satisfaction',
    'frustration',
    'preference_coverage',
    'llm_call_ids',
    'llm_calls',
    'error',
    'error_kind',
  ]);
  const extra = Object.entries(trace ?? {}).filter(([k]) => !known.has(k));
  if (extra.length) {
    add(
      h(
        'details',
        'state-section',
        h('summary', null, `Other trace fields (${extra.length})`),
        h('pre', 'raw', json(Object.fromEntries(extra))),
      ),
    );
  }
  return out;
}

/** Renders the state panel for turn `t`. */
export function renderStatePanel(conv: Conversation, t: number): HTMLElement {
  const panel = h('div', { class: 'state-panel', attrs: { 'aria-label': 'Simulator state' } });
  if (!hasTrace(conv)) {
    panel.appendChild(
      h(
        'div',
        'empty-state',
        icon('info'),
        h('p', null, 'No simulator trace in this conversation.'),
        h(
          'p',
          'muted',
          'Human dialogues and simulators that do not export their state replay without it; the transcript and ratings still step turn by turn.',
        ),
      ),
    );
    return panel;
  }
  const turn = conv.turns[t];
  const trace: SimulatorTrace | undefined = turn?.trace;
  panel.appendChild(h('div', 'state-title', `State after turn ${t + 1} of ${conv.turns.length}`));
  if (!trace)
    panel.appendChild(
      h('p', 'muted', 'No trace recorded for this turn; the state below is carried from earlier turns.'),
    );
  const ever: Ever = (key) => conv.turns.some((x) => x.trace?.[key] !== undefined);
  if (trace?.error !== undefined) {
    panel.appendChild(
      h(
        'div',
        { class: 'error-box failure', attrs: { role: 'note' } },
        h('div', 'failure-head', icon('error', 'failed'), ' ', h('strong', null, failureHeadline(trace.error_kind))),
        h('div', 'failure-message', trace.error),
      ),
    );
  }

  // Acts of this turn.
  const actRow: Child[] = [];
  if (trace?.user_act)
    actRow.push(
      h('span', { class: 'chip sim-act', attrs: { title: 'user act' } }, h('span', 'k', 'user'), trace.user_act),
    );
  if (trace?.agent_act)
    actRow.push(
      h('span', { class: 'chip meta', attrs: { title: 'agent act' } }, h('span', 'k', 'agent'), trace.agent_act),
    );
  if (trace?.operation) actRow.push(h('span', `chip op op-${trace.operation}`, trace.operation));
  if (actRow.length) panel.appendChild(h('div', 'chips', ...actRow));

  for (const part of [
    agendaSection,
    goalSection,
    preferencesSection,
    targetSection,
    experienceSection,
    nluSection,
    llmCallsSection,
    otherFieldsSection,
  ]) {
    for (const el of part(conv, t, trace, ever)) panel.appendChild(el);
  }
  return panel;
}
