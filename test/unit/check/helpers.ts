/** Small hand-built conversations for the invariant tests. */
import type { Conversation, RecommendedItem, SimulatorTrace, Turn } from '../../../src/core/model';
import { INVARIANTS, InvariantChecker, type CheckOptions, type InvariantFinding } from '../../../src/core/check/index';

export function item(
  id: string,
  attributes: Record<string, string>,
  extra: Partial<RecommendedItem> = {},
): RecommendedItem {
  return { item_id: id, title: `Item ${id}`, category: 'footwear', attributes, ...extra };
}

export function turn(
  user: string | undefined,
  trace: SimulatorTrace | undefined,
  recommendations?: RecommendedItem[],
  assistant = 'ok',
): Turn {
  const t: Turn = {};
  if (user !== undefined) t.user_utterance = user;
  t.assistant_utterance = assistant;
  if (recommendations) t.recommendations = recommendations;
  if (trace) t.trace = trace;
  return t;
}

/**
 * Red shoes asked for, `carousel` shown, then the user leaves at once (Complete pulled, agenda
 * empty) with `endReason`; `extra` is spread into the leaving turn's trace, `initExtra` into the first.
 */
export function leavingTurns(
  carousel: RecommendedItem[],
  goal: NonNullable<SimulatorTrace['goal']>,
  endReason: string,
  extra: SimulatorTrace = {},
  initExtra: SimulatorTrace = {},
): Turn[] {
  return [
    turn(
      'Red shoes, please.',
      { operation: 'init', user_act: 'Disclose', agenda: ['Complete'], patience: 3, goal, ...initExtra },
      carousel,
      'Here are some.',
    ),
    turn("That's all, thanks.", {
      operation: 'pull',
      pulled: ['Complete'],
      user_act: 'Complete',
      agenda: [],
      patience: 3,
      goal,
      end_reason: endReason,
      ...extra,
    } as SimulatorTrace),
  ];
}

export function conv(turns: Turn[], extra: Partial<Conversation> = {}): Conversation {
  return { id: 'c1', task_id: 'footwear_good', source: 'agenda-cir6-pkg', agent: 'local-good', turns, ...extra };
}

/** The finding of one invariant on one conversation (undefined = not applicable). */
export function findingOf(id: string, c: Conversation, options: CheckOptions = {}): InvariantFinding | undefined {
  const inv = INVARIANTS.find((i) => i.id === id);
  if (!inv) throw new Error(`no invariant ${id}`);
  // Through the checker, so the context (item lookup) is the one the CLI uses.
  const checker = new InvariantChecker({ readback: false, ...options, only: [id], examples: 100 });
  checker.add(c);
  const r = checker.report().invariants[0];
  if (r.status === 'not-applicable') return undefined;
  return { turns: r.turns, violations: r.examples.map((e) => ({ turn: e.turn, detail: e.detail })) };
}
