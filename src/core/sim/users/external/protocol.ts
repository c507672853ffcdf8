/**
 * The SimLens simulator protocol (docs/protocol.md): the messages between SimLens (the client, which
 * plays the recommender's side) and an external simulated user (the server). JSON-RPC 2.0, over stdio
 * with the Language Server Protocol's framing or over HTTP (one JSON-RPC message per POST).
 *
 * These zod schemas are the single definition: the client validates every result with them, and
 * docs/protocol.schema.json is generated from them (`npx tsx scripts/protocol-schema.ts`; a unit test
 * fails when the committed file differs).
 */
import * as z from 'zod';
import { Outcome, RecommendedItem, SimulatorTrace } from '../../../model';

/**
 * The protocol version this client speaks; `initialize` fails when the simulator answers another
 * major. Minor versions only add optional features, each used only when both sides speak that minor
 * and the simulator declares its capability (1.1: `item_refs`).
 */
export const PROTOCOL_VERSION = 'simlens-sim/1.1';

/** [major, minor] of "simlens-sim/M" or "simlens-sim/M.m", or undefined. */
export function protocolVersion(text: string): [number, number] | undefined {
  const m = /^simlens-sim\/(\d+)(?:\.(\d+))?$/.exec(text);
  return m ? [Number(m[1]), Number(m[2] ?? 0)] : undefined;
}

/** JSON-RPC error codes a simulator may return (besides the JSON-RPC standard ones). */
export const ProtocolErrorCode = {
  /** `restore` is not supported: the client replays the conversation with the same seed instead. */
  restoreUnsupported: -32001,
  /** The session id is not known to the simulator (it was restarted, or never started). */
  unknownSession: -32002,
  /** A `{"ref": id}` names an item the simulator was not sent in full before (1.1, `item_refs`). */
  unknownItemRef: -32003,
} as const;

const Json = z.record(z.string(), z.unknown());

/** What SimLens tells the simulator about the catalog the recommender serves. */
export const CatalogReference = z.object({
  /** Absolute path of the catalog JSONL (SimLens catalog format), absent for the generated apparel catalog. */
  path: z.string().optional(),
  items: z.number().int().nonnegative(),
  categories: z.array(z.string()),
  /** Category -> attribute name -> the values it takes there, sorted (for drawing goals without reading the file). */
  attributes: z.record(z.string(), z.record(z.string(), z.array(z.string()))),
});
export type CatalogReference = z.infer<typeof CatalogReference>;

export const InitializeParams = z.object({
  /** The version the client speaks (the highest it offers); the simulator answers its own, the lower minor is used. */
  protocol: z.literal(PROTOCOL_VERSION),
  client: z.object({ name: z.literal('simlens'), version: z.string() }),
  catalog: CatalogReference,
  /** The run's turn cap; the client ends a conversation there whatever the simulator says. */
  max_turns: z.number().int().positive(),
});
export type InitializeParams = z.infer<typeof InitializeParams>;

const Capabilities = z.looseObject({
  /**
   * How many conversations one process may hold at once (true = unlimited). Absent or 1: the
   * client starts one process per concurrent conversation.
   */
  sessions: z.union([z.boolean(), z.number().int().positive()]).optional(),
  /** The simulator implements `restore`; otherwise the client replays up to the turn. */
  restore: z.boolean().optional(),
  /**
   * 1.1: the simulator accepts item references in `respond.recommendations`: an item already sent in
   * full on this connection (over stdio: to this process; over HTTP: in this session) comes as
   * `{"ref": item_id}`. The reference adapters expand them, so the simulator's code sees full items.
   */
  item_refs: z.boolean().optional(),
});
type Capabilities = z.infer<typeof Capabilities>;

export const InitializeResult = z.looseObject({
  /** The protocol version the simulator speaks, e.g. "simlens-sim/1" or "simlens-sim/1.1". */
  protocol: z
    .string()
    .regex(/^simlens-sim\/\d+(\.\d+)?$/, 'must look like simlens-sim/<major> or simlens-sim/<major>.<minor>'),
  /** The simulator's name; written as each conversation's `source`. */
  name: z.string().min(1).max(200),
  version: z.string().optional(),
  capabilities: Capabilities.default({}),
  /**
   * The dialogue acts the simulator's `acts` use. Acts of the Zhang & Balog taxonomy (Disclose,
   * Note.Accept, Complete, ...) or of ConvApparel (inform_preference, ...) are mapped to
   * ConvApparel annotations; any other act is recorded as given under taxonomy `name`.
   */
  taxonomy: z
    .looseObject({
      name: z.string().min(1),
      user: z.array(z.string()).optional(),
      assistant: z.array(z.string()).optional(),
    })
    .optional(),
});
export type InitializeResult = z.infer<typeof InitializeResult>;

export const StartParams = z.object({
  /** The session (= conversation) id, unique in the run. Every later message names it. */
  session: z.string(),
  /** A 32-bit seed derived from the run's seed and the conversation index: the same seed must give the same conversation. */
  seed: z.number().int().nonnegative(),
  /** The conversation's index in the run. */
  index: z.number().int().nonnegative(),
  /** The shopping task (a catalog category). */
  task: z.string().optional(),
  /** A user profile when the run has one (free form). */
  profile: Json.optional(),
});
export type StartParams = z.infer<typeof StartParams>;

/** The fields of a user turn (UserTurnResult without its one cross-field rule). */
export const UserTurnFields = z.looseObject({
  /** What the user says ("" only together with done = true: the user leaves without a word). */
  utterance: z.string(),
  /** The user's dialogue acts for this utterance, first = main act. */
  acts: z.array(z.string().min(1)).min(1),
  /** The simulator's state after this turn: SimLens trace fields (agenda, goal, preferences, target, patience, satisfaction, ...) plus any extras. */
  trace: SimulatorTrace.optional(),
  /** True when the user ends the conversation with this utterance. */
  done: z.boolean().optional(),
  /** With done: how it ended (accepted, ended, abandoned, gave_up: left unserved with patience left). */
  outcome: Outcome.extract(['accepted', 'ended', 'abandoned', 'gave_up']).optional(),
  /** With done: why (e.g. "goal_reached", "patience", "early_quit"); written as the last turn's trace.end_reason. */
  end_reason: z.string().optional(),
});

/** The cross-field rule of a user turn: an empty utterance only when the user leaves. */
export function userTurnSpeaks(t: { utterance: string; done?: boolean }): boolean {
  return t.utterance !== '' || t.done === true;
}

/** One user turn, the result of `start` and `respond`. */
export const UserTurnResult = UserTurnFields.refine(userTurnSpeaks, {
  message: 'utterance is empty but done is not true',
  path: ['utterance'],
});
export type UserTurnResult = z.infer<typeof UserTurnResult>;

/** 1.1 with `item_refs`: an item sent in full before on the same connection (stdio) or session (HTTP). */
export const ItemRef = z.strictObject({ ref: z.string() });
export type ItemRef = z.infer<typeof ItemRef>;

export const RespondParams = z.object({
  session: z.string(),
  /** The recommender's reply. */
  utterance: z.string(),
  /** The carousel, in order: full items, or (1.1, `item_refs`) references to items sent in full before. */
  recommendations: z.array(z.union([RecommendedItem, ItemRef])),
  /** The recommender's reported acts (may be empty). */
  acts: z.array(z.string()),
});
export type RespondParams = z.infer<typeof RespondParams>;

/** One recorded turn given to `restore`. */
export const RecordedTurn = z.object({
  user_utterance: z.string().optional(),
  user_acts: z.array(z.string()).optional(),
  assistant_utterance: z.string().optional(),
  recommendations: z.array(RecommendedItem).optional(),
  agent_acts: z.array(z.string()).optional(),
  /** The simulator's own trace of that turn, as it returned it. */
  trace: SimulatorTrace.optional(),
});
export type RecordedTurn = z.infer<typeof RecordedTurn>;

export const RestoreParams = StartParams.extend({
  /**
   * 1.1: the seed for the randomness after the restored point (a fork sends a different one per
   * continuation, so the continuations can differ); absent: continue as the original would.
   */
  continue_seed: z.number().int().nonnegative().optional(),
  /**
   * The conversation so far. After `restore` the session stands where it stood after the last
   * turn's user utterance; the next message is `respond` with that turn's recommender reply.
   */
  turns: z.array(RecordedTurn).min(1),
});
export type RestoreParams = z.infer<typeof RestoreParams>;

export const RestoreResult = z.looseObject({ restored: z.literal(true) });

const EndParams = z.object({ session: z.string() });

/** The methods, their parameters and results (JSON Schema generation walks this table). */
const PROTOCOL_METHODS = {
  initialize: { params: InitializeParams, result: InitializeResult, kind: 'request' },
  start: { params: StartParams, result: UserTurnResult, kind: 'request' },
  respond: { params: RespondParams, result: UserTurnResult, kind: 'request' },
  restore: { params: RestoreParams, result: RestoreResult, kind: 'request' },
  end: { params: EndParams, result: undefined, kind: 'notification' },
  shutdown: { params: undefined, result: z.null(), kind: 'request' },
} as const;

/** Builds the JSON Schema of the protocol (docs/protocol.schema.json). */
export function protocolJsonSchema(): Record<string, unknown> {
  const defs: Record<string, unknown> = {};
  const methods: Record<string, unknown> = {};
  for (const [name, m] of Object.entries(PROTOCOL_METHODS)) {
    const entry: Record<string, unknown> = { kind: m.kind };
    if (m.params) entry.params = z.toJSONSchema(m.params, { io: 'input', unrepresentable: 'any' });
    if (m.result) entry.result = z.toJSONSchema(m.result, { io: 'output', unrepresentable: 'any' });
    methods[name] = entry;
  }
  defs.methods = methods;
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://simlens.dev/protocol/simlens-sim-1.1.schema.json',
    title: `SimLens simulator protocol ${PROTOCOL_VERSION}`,
    description:
      'JSON-RPC 2.0 params and results of each method (see docs/protocol.md). Generated from src/core/sim/users/external/protocol.ts.',
    protocol: PROTOCOL_VERSION,
    ...defs,
  };
}
