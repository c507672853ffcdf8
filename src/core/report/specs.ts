/**
 * What each metric report is computed from ("report specs"). A spec is small, serialisable and
 * validated with zod: the panels keep it in the webview state so a panel can be recomputed after a
 * window reload, and the host validates it again when it comes back.
 */
import * as z from 'zod';
import { PopulationSpecSchema } from './populations';

const Features = z.array(z.string().min(1).max(200)).max(200).optional();
/** Act source as the CLI takes it: "tagger", "trace", "judge", "judge:<model>", an annotator, "annotator@map". */
const Acts = z.string().min(1).max(500).optional();
const Seed = z.union([z.number(), z.string().max(200)]).optional();
/** Where the user-experience features come from: auto (judge, then first-person ratings), judge, first-person. */
const Ux = z.enum(['auto', 'judge', 'first-person']).optional();
/** The judge annotator for the UX features ("judge:<model>"; default: any judge). */
const Judge = z.string().min(1).max(500).optional();
/** What the feature reports (PLSA, counterfactual) compare, and where acts and UX come from. */
const FeatureFields = { features: Features, acts: Acts, ux: Ux, judge: Judge };

export const PlsaSpecSchema = z.object({
  kind: z.literal('plsa'),
  reference: PopulationSpecSchema,
  candidates: z.array(PopulationSpecSchema).min(1).max(20),
  ...FeatureFields,
  chart: z.enum(['histogram', 'box']).optional(),
  /** Add the reference's split-half baseline (default true). */
  baseline: z.boolean().optional(),
  /** Size of each half of the baseline (default 300, capped at half the reference). */
  baselineSize: z.number().int().positive().max(1_000_000).optional(),
  alpha: z.number().gt(0).lt(1).optional(),
  seed: Seed,
});
export type PlsaSpec = z.infer<typeof PlsaSpecSchema>;

export const HlsSpecSchema = z.object({
  kind: z.literal('human-likeness'),
  human: PopulationSpecSchema,
  simulated: z.array(PopulationSpecSchema).min(1).max(20),
  folds: z.number().int().min(2).max(20).optional(),
  /** Learning curve per simulator (default true). */
  learningCurve: z.boolean().optional(),
  /** Cross-distribution matrix (default true when there are two or more simulators). */
  cross: z.boolean().optional(),
  /** Sample each side down to this many conversations (default: no sampling). */
  maxPerSide: z.number().int().positive().optional(),
  /** Keep n-grams seen in at least this many training conversations (default 2). */
  minDf: z.number().int().positive().max(1000).optional(),
  /** Add a table of every conversation's out-of-fold HLS (default false). */
  scores: z.boolean().optional(),
  seed: Seed,
});
export type HlsSpec = z.infer<typeof HlsSpecSchema>;

/** A simulator's populations in the two conditions. */
export const ConditionPairSpecSchema = z.object({
  label: z.string().min(1).max(200),
  from: PopulationSpecSchema,
  to: PopulationSpecSchema,
});
export type ConditionPairSpec = z.infer<typeof ConditionPairSpecSchema>;

export const CounterfactualSpecSchema = z.object({
  kind: z.literal('counterfactual'),
  /** Human conversations in both conditions (filters on condition are set from `from`/`to`). */
  human: PopulationSpecSchema,
  simulators: z.array(ConditionPairSpecSchema).min(1).max(20),
  /** Condition names, e.g. "good" and "bad". */
  from: z.string().min(1).max(200),
  to: z.string().min(1).max(200),
  ...FeatureFields,
  alpha: z.number().gt(0).lt(1).optional(),
});
export type CounterfactualSpec = z.infer<typeof CounterfactualSpecSchema>;

export const SimulationSpecSchema = z.object({
  kind: z.literal('simulation'),
  populations: z.array(PopulationSpecSchema).min(1).max(20),
  /** Real-user population for DS-KL and the ranking agreement. */
  reference: PopulationSpecSchema.optional(),
  acts: Acts,
  reward: z
    .object({
      full: z.number().optional(),
      cost: z.number().optional(),
      unsupported: z.array(z.string().max(100)).max(20).optional(),
    })
    .optional(),
  /** PEPPER list depth (default 50). */
  pepperK: z.number().int().positive().max(1000).optional(),
  /** AlterEval horizon (default 10). */
  horizon: z.number().int().positive().max(100).optional(),
  /** Which metric families to compute (default all); a family selected here that finds no data is a warning. */
  metrics: z
    .array(z.enum(['zb', 'pepper', 'altereval']))
    .min(1)
    .max(3)
    .optional(),
  /** Pseudo-counts added to every act for DS-KL (default 1). */
  klSmoothing: z.number().nonnegative().max(1e6).optional(),
  /** PEPPER turns (default: the longest conversation). */
  pepperTurns: z.number().int().positive().max(1000).optional(),
  /** AlterEval relevance: the alternatives (default) or the target only. */
  relevant: z.enum(['alternatives', 'target']).optional(),
  /** A base-simulator run: report each population's AlterEval improvement over it. */
  base: PopulationSpecSchema.optional(),
  /**
   * Systems evaluated with real and with simulated users, one file each, for the ranking
   * agreement (default: systems are the agents or conditions inside `reference` and `populations`).
   */
  systems: z
    .array(z.object({ name: z.string().min(1).max(200), real: PopulationSpecSchema, simulated: PopulationSpecSchema }))
    .min(2)
    .max(50)
    .optional(),
  /** The metric systems are ranked by (default: AvgTurns and Reward, one agreement each). */
  rankBy: z.enum(['reward', 'success_rate', 'avg_turns']).optional(),
});
export type SimulationSpec = z.infer<typeof SimulationSpecSchema>;

export const FidelitySpecSchema = z.object({
  kind: z.literal('fidelity'),
  human: PopulationSpecSchema,
  /** A JSON file of simulation options or an inline spec such as "agenda:cir6:pkg". */
  simulator: z.string().min(1).max(4000),
  agents: z.array(z.string().min(1).max(2000)).min(1).max(10),
  n: z.number().int().min(10).max(100_000),
  seed: Seed,
  /** Output folder (default: a new folder named after the run). */
  out: z.string().max(4000).optional(),
  features: Features,
  acts: Acts,
  folds: z.number().int().min(2).max(20).optional(),
  learningCurve: z.boolean().optional(),
});

/** The behavioural invariants (src/core/check) of one file ("SimLens: Check Behavioural Invariants"). */
export const InvariantsSpecSchema = z.object({
  kind: z.literal('invariants'),
  population: PopulationSpecSchema,
  /** Only these invariant ids (default: all). */
  only: z.array(z.string().min(1).max(200)).max(200).optional(),
  /** The run's turn cap (default: each conversation's `metadata.turn_cap`). */
  maxTurns: z.number().int().positive().max(10_000).optional(),
  /** Example violations listed per invariant (default 20). */
  examples: z.number().int().min(1).max(1000).optional(),
});
export type InvariantsSpec = z.infer<typeof InvariantsSpecSchema>;

export const ReportSpecSchema = z.discriminatedUnion('kind', [
  PlsaSpecSchema,
  HlsSpecSchema,
  CounterfactualSpecSchema,
  SimulationSpecSchema,
  FidelitySpecSchema,
  InvariantsSpecSchema,
]);
export type ReportSpec = z.infer<typeof ReportSpecSchema>;
