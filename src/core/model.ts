/**
 * The canonical SimLens data model: one conversation per JSONL line.
 *
 * The shape is a superset of the ConvApparel release (task_id, turns[], ratings) so a
 * ConvApparel conversation parses unchanged. Every object schema is *loose*: keys we do not
 * know are kept on the parsed value, so a save never drops fields written by another tool.
 * Field names are snake_case, as in the datasets this tool reads.
 */
import * as z from 'zod';

/** A rating answer: a ticked checkbox (true), a chosen answer ("Probably yes"), a 1-5 score, or nothing. */
export const RatingValue = z.union([z.boolean(), z.string(), z.number(), z.null()]);
export type RatingValue = z.infer<typeof RatingValue>;

/**
 * First-person ratings, keyed by the question or feeling exactly as the rater saw it
 * (ConvApparel keys are free text such as "Satisfied" or "How likely would you be to purchase ...").
 */
const Ratings = z.record(z.string(), RatingValue);
type Ratings = z.infer<typeof Ratings>;

/** One item shown in a turn's carousel. `features` is a comma-separated string in ConvApparel. */
export const RecommendedItem = z.looseObject({
  item_id: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  image_url: z.string().optional(),
  features: z.union([z.string(), z.array(z.string())]).optional(),
  category: z.string().optional(),
  attributes: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])).optional(),
  score: z.number().optional(),
});
export type RecommendedItem = z.infer<typeof RecommendedItem>;

/** A slot value attached to a dialogue act (DialogueKit: [slot, value, start, end]). */
export const SlotValue = z.looseObject({
  intent: z.string().optional(),
  slot: z.string(),
  value: z.union([z.string(), z.number(), z.boolean(), z.null()]),
  start: z.number().nullable().optional(),
  end: z.number().nullable().optional(),
});
export type SlotValue = z.infer<typeof SlotValue>;

/** A plain JSON object (not null, not an array): the one test every reader of untyped JSON uses. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export const Speaker = z.enum(['user', 'assistant']);
export type Speaker = z.infer<typeof Speaker>;

/** One utterance of the dialogue so far, as a simulator, a recommender or an LLM prompt sees it. */
export interface HistoryEntry {
  speaker: Speaker;
  text: string;
}

/**
 * One annotator's reading of one utterance: the dialogue acts (names from `taxonomy`), optional
 * slot values, a free-text note and when it was made. `segment` addresses one of several
 * consecutive utterances that an importer merged into one turn field (0-based).
 */
export const Annotation = z.looseObject({
  speaker: Speaker,
  annotator: z.string().min(1),
  acts: z.array(z.string()),
  taxonomy: z.string().optional(),
  slots: z.array(SlotValue).optional(),
  note: z.string().optional(),
  time: z.string().optional(),
  segment: z.number().int().nonnegative().optional(),
});
export type Annotation = z.infer<typeof Annotation>;

/** The goal of an agenda-based user: constraints C (slot -> value) and requests R (slots to ask about). */
export const Goal = z.looseObject({
  constraints: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({}),
  requests: z.array(z.string()).default([]),
  fulfilled_requests: z.array(z.string()).optional(),
});
export type Goal = z.infer<typeof Goal>;

/** A preference model snapshot (or delta, when `kind` is "delta"). */
export const PreferenceState = z.looseObject({
  kind: z.enum(['snapshot', 'delta']).optional(),
  model: z.string().optional(),
  liked_items: z.array(z.string()).optional(),
  disliked_items: z.array(z.string()).optional(),
  consumed_items: z.array(z.string()).optional(),
  liked_attributes: z.array(z.string()).optional(),
  disliked_attributes: z.array(z.string()).optional(),
  attribute_ratings: z.record(z.string(), z.number()).optional(),
  /** Per shown item, the simulated user's opinion this turn (PEPPER's reflected preferences). */
  reflected: z.record(z.string(), z.enum(['like', 'dislike', 'neutral'])).optional(),
  general: z.string().optional(),
  /** Ratings (0.5-5) of the items in the user's sampled history. */
  item_ratings: z.record(z.string(), z.number()).optional(),
});
export type PreferenceState = z.infer<typeof PreferenceState>;

/** Target item and its alternatives (Fashion-AlterEval meta-simulators). */
export const TargetState = z.looseObject({
  item_id: z.string(),
  alternatives: z.array(z.string()).optional(),
  /** Set on the turn a meta-simulator switched target: the previous target. */
  switched_from: z.string().optional(),
  switch_reason: z.string().optional(),
});
export type TargetState = z.infer<typeof TargetState>;

/** What the simulated user's NLU made of the agent utterance. */
export const NluResult = z.looseObject({
  agent_act: z.string(),
  /** "reported" = the agent said which act it performed; "classifier" = our lexical classifier. */
  source: z.enum(['reported', 'classifier', 'llm', 'none']).optional(),
  confidence: z.number().optional(),
  slots: z.array(SlotValue).optional(),
});
export type NluResult = z.infer<typeof NluResult>;

/** One LLM call as recorded in a trace (no API keys, ever). */
export const LlmCall = z.looseObject({
  id: z.string(),
  role: z.string().optional(),
  model: z.string().optional(),
  request_id: z.string().optional(),
  latency_ms: z.number().optional(),
  prompt_tokens: z.number().optional(),
  completion_tokens: z.number().optional(),
  cached: z.boolean().optional(),
  error: z.string().optional(),
  request: z.unknown().optional(),
  response: z.unknown().optional(),
});
export type LlmCall = z.infer<typeof LlmCall>;

/**
 * The simulator's internal state at one turn, so a dialogue can be replayed with the reasons
 * behind each user utterance. All fields are optional: each simulator records what it has.
 */
export const SimulatorTrace = z.looseObject({
  /** Pending user acts after this turn, top of the stack first. */
  agenda: z.array(z.string()).optional(),
  /** pull = the agent answered well and the next act was popped; push = a replacement act was pushed. */
  operation: z.enum(['pull', 'push', 'init', 'end']).optional(),
  pushed: z.array(z.string()).optional(),
  pulled: z.array(z.string()).optional(),
  goal: Goal.optional(),
  preferences: PreferenceState.optional(),
  nlu: NluResult.optional(),
  /** The user act chosen for this turn's user utterance. */
  user_act: z.string().optional(),
  /** The act the agent performed (reported by the agent or classified). */
  agent_act: z.string().optional(),
  target: TargetState.optional(),
  patience: z.number().optional(),
  satisfaction: z.number().optional(),
  frustration: z.number().optional(),
  /** PEPPER preference coverage after this turn. */
  preference_coverage: z.number().optional(),
  /** The target set of a target-free (PEPPER) user: held-out items it would rate highly (first turn only). */
  targets: z.array(z.string()).optional(),
  /** The act the agenda planned when the situation made the user say another one (e.g. Note with nothing shown). */
  planned_act: z.string().optional(),
  /** Why the agent's answer was judged inappropriate (on a push). */
  push_reason: z.string().optional(),
  llm_call_ids: z.array(z.string()).optional(),
  llm_calls: z.array(LlmCall).optional(),
  /**
   * What the user's utterance of this turn expressed (written by the NLG from the same content it
   * rendered): `constraints` = slot values stated, `negated` = attribute values the user said it does
   * not want. Checkers compare it with the utterance text and with the agent's answer.
   */
  said: z
    .looseObject({
      constraints: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
      negated: z.array(z.string()).optional(),
      items: z.array(z.string()).optional(),
    })
    .optional(),
  /** The recommender's reading of this turn's user utterance (reported by local and LLM agents). */
  agent: z
    .looseObject({
      /** The retrieval query it ran, if any. */
      query: z.string().optional(),
      /** Attribute filters it applied (slot -> value). */
      filters: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
      /** Values it understood as negated ("not leather"). */
      negated: z.array(z.string()).optional(),
      /** Items retrieved before truncation to the carousel. */
      retrieved: z.number().optional(),
    })
    .optional(),
  /**
   * The agent failed on this turn (timeout, HTTP error, malformed answer, LLM failure after
   * retries): the message. Only on the turn that failed, never copied to later turns.
   */
  error: z.string().optional(),
  /** The failure class of `error` (see FailureReason in src/core/failures.ts). */
  error_kind: z.string().optional(),
});
export type SimulatorTrace = z.infer<typeof SimulatorTrace>;

/**
 * One exchange: the user speaks, the assistant answers with text and a carousel. Either side may be
 * absent (an agent-first dialogue starts with a turn that has only `assistant_utterance`).
 */
export const Turn = z.looseObject({
  user_utterance: z.string().optional(),
  assistant_utterance: z.string().optional(),
  recommendations: z.array(RecommendedItem).optional(),
  ratings: Ratings.optional(),
  annotations: z.array(Annotation).optional(),
  trace: SimulatorTrace.optional(),
});
export type Turn = z.infer<typeof Turn>;

/**
 * Conversation-level annotation, e.g. an LLM judge (`annotator: "judge:<model>"`) with the
 * ConvApparel judge fields in `fields`, or a reviewer's session-level note.
 */
export const ConversationAnnotation = z.looseObject({
  annotator: z.string().min(1),
  fields: z.record(z.string(), z.unknown()).optional(),
  note: z.string().optional(),
  time: z.string().optional(),
});
export type ConversationAnnotation = z.infer<typeof ConversationAnnotation>;

/**
 * How a conversation ended. User outcomes: `accepted` (the user took an item), `ended` (the user
 * completed with nothing left to do: its agenda ran out on an appropriate answer, every request
 * answered, no patience lost), `gave_up` (the user left unserved while patience was left: acts still
 * pending, a request unanswered or patience already spent on bad answers), `abandoned` (patience
 * exhausted). Two outcomes are failures of the run, never user outcomes:
 * `agent_error`: the recommender failed (HTTP error, timeout, malformed answer, LLM failure after
 * retries) and the conversation stopped there, without costing the user patience;
 * `simulator_error`: the simulated user could not produce a turn (its LLM gave no usable reply) or
 * the simulator itself failed, and the conversation stopped there.
 * In both, `metadata.error_kind` names the reason (src/core/failures.ts).
 */
export const Outcome = z.enum(['accepted', 'ended', 'gave_up', 'abandoned', 'agent_error', 'simulator_error']);
/** The user outcomes, in report order (the failures of the run are not among them). */
export const USER_OUTCOMES = ['accepted', 'ended', 'gave_up', 'abandoned'] as const;
export type UserOutcome = (typeof USER_OUTCOMES)[number];
/** Is this outcome a user outcome (not a failure of the run)? */
export function isUserOutcome(o: unknown): o is UserOutcome {
  return (USER_OUTCOMES as readonly unknown[]).includes(o);
}
export type Outcome = z.infer<typeof Outcome>;

/**
 * A conversation. ConvApparel lines carry only task_id, turns and ratings (plus version); the
 * canonical id, condition and source are then derived (see `conversationId`, `conversationCondition`).
 */
export const Conversation = z.looseObject({
  id: z.string().optional(),
  task_id: z.string().optional(),
  /** Which recommender condition served it, e.g. "good" or "bad". */
  condition: z.string().optional(),
  /** "human" or the simulator's name. */
  source: z.string().optional(),
  /** The recommender it talked to. */
  agent: z.string().optional(),
  version: z.union([z.string(), z.number()]).optional(),
  turns: z.array(Turn),
  ratings: Ratings.optional(),
  outcome: Outcome.optional(),
  annotations: z.array(ConversationAnnotation).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type Conversation = z.infer<typeof Conversation>;

/** Written beside every simulation run as `<out>.manifest.json`. */
export const RunManifest = z.looseObject({
  run_id: z.string(),
  created: z.string(),
  simlens_version: z.string(),
  node_version: z.string().optional(),
  command: z.string().optional(),
  config: z.record(z.string(), z.unknown()),
  seed: z.union([z.number(), z.string()]),
  prompt_template_version: z.string().optional(),
  shard: z.object({ index: z.number().int(), count: z.number().int() }).optional(),
  counts: z.looseObject({
    planned: z.number().int(),
    finished: z.number().int(),
    failed: z.number().int(),
    resumed: z.number().int().optional(),
  }),
  timings: z.looseObject({
    started: z.string(),
    finished: z.string().optional(),
    wall_ms: z.number().optional(),
  }),
  /** `stopped`: a failure policy (e.g. max consecutive failures) ended the run; `stop_reason` says which. */
  status: z.enum(['running', 'finished', 'cancelled', 'stopped', 'crashed']).optional(),
});
export type RunManifest = z.infer<typeof RunManifest>;

// ---------------------------------------------------------------------------------------------
// Derived properties. Everything that reads a conversation (list, metrics, CLI) uses these, so a
// ConvApparel line and a SimLens line answer the same questions the same way.

/** The id of a conversation: `id`, else `conversation_id`, else a stable `line:<n>` (1-based). */
export function conversationId(conv: Conversation, line?: number): string {
  if (typeof conv.id === 'string' && conv.id !== '') return conv.id;
  const alt = (conv as Record<string, unknown>)['conversation_id'];
  if (typeof alt === 'string' && alt !== '') return alt;
  if (typeof alt === 'number') return String(alt);
  return line !== undefined ? `line:${line}` : 'unknown';
}

/** The shopping task, e.g. "footwear" for task_id "footwear_good". */
export function conversationTask(conv: Conversation): string | undefined {
  if (!conv.task_id) return undefined;
  const m = /^(.*)_(good|bad)$/i.exec(conv.task_id);
  return m ? m[1] : conv.task_id;
}

/** The condition: `condition`, else the suffix of task_id ("footwear_good" -> "good"). */
export function conversationCondition(conv: Conversation): string | undefined {
  if (conv.condition) return conv.condition;
  if (!conv.task_id) return undefined;
  const m = /_(good|bad)$/i.exec(conv.task_id);
  return m ? m[1].toLowerCase() : undefined;
}

/**
 * The recommender system a conversation was held with, for comparing systems: `agent`, except in
 * human dialogues whose agent is a number, which is a crowd worker's id (ReDial, IARD and the
 * UserSimCRS copy of IARD name the human recommender by worker id), not a system. Undefined then
 * and when there is no agent.
 */
export function conversationSystem(conv: Conversation): string | undefined {
  const a = conv.agent;
  if (typeof a !== 'string' || a === '') return undefined;
  if (conversationSource(conv) === 'human' && /^\d+$/.test(a)) return undefined;
  return a;
}

export { forkRefusal } from './forkPolicy';

/** "human" unless the line names a simulator. */
export function conversationSource(conv: Conversation): string {
  return conv.source ?? 'human';
}

const FOUND_PRODUCT_KEY = /able to find a product/i;
const PURCHASE_KEY = /likely would you be to purchase/i;

/**
 * The outcome a conversation reports, or undefined when nothing in it says how it ended. Uses
 * `outcome` when present; else a session rating saying whether a product was found ("Yes" means
 * accepted, anything else ended); else the last turn's simulator trace (an accept act means
 * accepted, an `abandon`/patience-out end abandoned, `end_reason: gave_up` gave up, any other traced end ended). Human data
 * converted without an outcome (e.g. DialogueKit dialogues without accepted items) reports none:
 * counting it as a user who left would invent an outcome.
 */
export function reportedOutcome(conv: Conversation): Outcome | undefined {
  if (conv.outcome) return conv.outcome;
  if (conv.ratings) {
    for (const [k, v] of Object.entries(conv.ratings)) {
      if (FOUND_PRODUCT_KEY.test(k) && typeof v === 'string') return /^yes/i.test(v.trim()) ? 'accepted' : 'ended';
    }
  }
  const last = conv.turns[conv.turns.length - 1];
  if (last?.trace === undefined || last.trace === null) return undefined;
  const act = last.trace.user_act?.toLowerCase() ?? '';
  if (/accept/.test(act)) return 'accepted';
  if (/abandon|quit/.test(act) || (last.trace.patience !== undefined && last.trace.patience <= 0)) return 'abandoned';
  if (last.trace.end_reason === 'gave_up') return 'gave_up';
  return 'ended';
}

/** The fields of the latest conversation annotation by a judge (a given one, or any `judge:*`). */
export function judgeFields(conv: Conversation, annotator?: string): Record<string, unknown> | undefined {
  const list = conv.annotations ?? [];
  for (let i = list.length - 1; i >= 0; i--) {
    const a = list[i];
    if ((annotator ? a.annotator === annotator : a.annotator.startsWith('judge:')) && a.fields) return a.fields;
  }
  return undefined;
}

/**
 * `reportedOutcome`, with "ended" for a conversation that reports none: for callers that need a
 * yes/no on acceptance (rewards, the judge's human label). Counts and lists use `reportedOutcome`.
 */
export function conversationOutcome(conv: Conversation): Outcome {
  return reportedOutcome(conv) ?? 'ended';
}

/** The purchase-likelihood answer of a turn, if the rater gave one. */
export function purchaseLikelihood(turn: Turn): string | undefined {
  if (!turn.ratings) return undefined;
  for (const [k, v] of Object.entries(turn.ratings)) if (PURCHASE_KEY.test(k) && typeof v === 'string') return v;
  return undefined;
}

/** Words in a text, the way every metric counts them (runs of non-space characters). */
export function countWords(text: string | undefined): number {
  if (!text) return 0;
  const m = text.trim().match(/\S+/g);
  return m ? m.length : 0;
}

/** The ConvApparel purchase-likelihood answers, least to most likely. */
export const PURCHASE_ANSWERS = ['Not at all likely', 'Probably not', 'Probably yes', 'Extremely likely'] as const;

/** The ConvApparel turn-level feelings (checkboxes). */
export const TURN_FEELINGS = [
  'Satisfied',
  'Delighted',
  'Engaged',
  'Patient',
  'In control',
  'Supported',
  'Annoyed',
  'Confused',
  'Frustrated',
  'Unsatisfied',
  'Impatient',
  'Not in control',
  'Unsupported',
] as const;
