/**
 * Counterfactual validation (ConvApparel §5/§6): a simulator built from one condition (e.g. the
 * "good" agent) is run in another, unseen one ("bad"). Its behavioural shift between the two
 * conditions should match the humans' shift feature by feature (direction and size), and in the
 * unseen condition its distributions should be close to the humans' there (KS, MWU).
 */
import { mean } from '../stats/descriptive';
import { compareFeature, type PlsaComparison } from './plsa';
import { presentValues, type FeatureTable } from './features';

/** One simulator's feature tables in the two conditions. */
interface ConditionPair {
  name: string;
  /** The condition it was built from / seen condition. */
  from: FeatureTable;
  /** The unseen condition. */
  to: FeatureTable;
}

/** The shift of one feature. */
export interface FeatureShift {
  feature: string;
  simulator: string;
  human_from_mean: number;
  human_to_mean: number;
  human_shift: number;
  sim_from_mean: number;
  sim_to_mean: number;
  sim_shift: number;
  /** sign(sim_shift) == sign(human_shift), with |shift| <= tolerance counted as 0. */
  direction_agrees: boolean;
  /** sim_shift / human_shift (NaN when the human shift is 0). */
  magnitude_ratio: number;
  /** The simulator vs the humans in the unseen condition. */
  unseen: PlsaComparison;
}

export interface CounterfactualReport {
  from: string;
  to: string;
  features: string[];
  shifts: FeatureShift[];
  /** Per simulator: features with agreeing direction, and the mean |log(sim shift / human shift)| over features shifting the same way (0 = same size). */
  summary: { simulator: string; features: number; direction_agrees: number; mean_abs_log_ratio: number }[];
}

function colMean(t: FeatureTable, f: string): number {
  const col = t.values[f];
  if (!col) throw new Error(`feature "${f}" was not computed`);
  return mean(presentValues(col));
}

/**
 * Compares simulator shifts with the human shift between conditions `fromName` and `toName`.
 * `tolerance` (default 1e-9) is the |shift| below which a shift counts as none.
 */
export function counterfactualValidation(
  human: { from: FeatureTable; to: FeatureTable },
  simulators: readonly ConditionPair[],
  features: readonly string[],
  opts: { fromName?: string; toName?: string; tolerance?: number } = {},
): CounterfactualReport {
  const tol = opts.tolerance ?? 1e-9;
  const sign = (v: number) => (Number.isNaN(v) ? NaN : Math.abs(v) <= tol ? 0 : Math.sign(v));
  const shifts: FeatureShift[] = [];
  const summary: CounterfactualReport['summary'] = [];
  for (const s of simulators) {
    let agree = 0;
    let counted = 0;
    let logSum = 0;
    let logN = 0;
    for (const f of features) {
      const hf = colMean(human.from, f);
      const ht = colMean(human.to, f);
      const sf = colMean(s.from, f);
      const st = colMean(s.to, f);
      const hs = ht - hf;
      const ss = st - sf;
      const agrees = !Number.isNaN(hs) && !Number.isNaN(ss) && sign(hs) === sign(ss);
      if (!Number.isNaN(hs) && !Number.isNaN(ss)) {
        counted++;
        if (agrees) agree++;
        const ratio = ss / hs;
        if (Number.isFinite(ratio) && ratio > 0) {
          logSum += Math.abs(Math.log(ratio));
          logN++;
        }
      }
      shifts.push({
        feature: f,
        simulator: s.name,
        human_from_mean: hf,
        human_to_mean: ht,
        human_shift: hs,
        sim_from_mean: sf,
        sim_to_mean: st,
        sim_shift: ss,
        direction_agrees: agrees,
        magnitude_ratio: sign(hs) === 0 ? NaN : ss / hs,
        unseen: compareFeature(f, s.name, human.to.values[f], s.to.values[f]),
      });
    }
    summary.push({
      simulator: s.name,
      features: counted,
      direction_agrees: agree,
      mean_abs_log_ratio: logN ? logSum / logN : NaN,
    });
  }
  return { from: opts.fromName ?? 'from', to: opts.toName ?? 'to', features: [...features], shifts, summary };
}
