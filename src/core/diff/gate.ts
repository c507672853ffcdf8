/**
 * `--fail-on` conditions of `simlens diff`: "outcome_changed > 5%", "accepted_change < -0.02",
 * "diverged >= 10". Several conditions, separated by commas, fail the gate when any holds.
 */
import type { DiffReport } from './model';

/** The quantities a condition can name, with what each measures. */
export const GATE_METRICS: Readonly<Record<string, string>> = {
  outcome_changed: 'pairs whose outcome differs (share of pairs, or a count)',
  diverged: 'pairs whose dialogue differs (share of pairs, or a count)',
  identical: 'pairs equal in dialogue, trace and outcome (share of pairs, or a count)',
  unpaired: 'conversations without a partner (share of all conversations in A and B, or a count)',
  accepted_change: 'acceptance rate of B minus A over the pairs with a known outcome (a share)',
  success_p: "McNemar's exact p-value of acceptance",
};

export interface GateCondition {
  text: string;
  metric: string;
  op: '>' | '>=' | '<' | '<=' | '==';
  value: number;
  /** The value had a % sign (a share of 100) */
  percent: boolean;
  /** A plain number >= 1 without % on a count metric: compared with the count. */
  count: boolean;
}

interface GateResult {
  condition: GateCondition;
  actual: number;
  /** The actual value as shown ("7.5% (3 of 40)"). */
  shown: string;
  failed: boolean;
}

const COUNTED = new Set(['outcome_changed', 'diverged', 'identical', 'unpaired']);

/** Parses "metric op value[%]" conditions separated by commas; throws an Error naming the bad part. */
export function parseGate(spec: string): GateCondition[] {
  const parts = spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (parts.length === 0) throw new Error(`--fail-on "${spec}": no condition (write e.g. "outcome_changed > 5%")`);
  return parts.map((text) => {
    const m = /^([a-z_]+)\s*(>=|<=|==|>|<)\s*(-?\d+(?:\.\d+)?)\s*(%?)$/.exec(text);
    if (!m)
      throw new Error(
        `--fail-on "${text}": expected METRIC OP VALUE, e.g. "outcome_changed > 5%" (OP one of > >= < <= ==)`,
      );
    const [, metric, op, raw, pct] = m;
    if (!(metric in GATE_METRICS))
      throw new Error(
        `--fail-on "${text}": unknown metric "${metric}" (known: ${Object.keys(GATE_METRICS).join(', ')})`,
      );
    const value = Number(raw);
    const percent = pct === '%';
    const count = !percent && COUNTED.has(metric) && value >= 1 && Number.isInteger(value);
    return { text, metric, op: op as GateCondition['op'], value: percent ? value / 100 : value, percent, count };
  });
}

function compare(a: number, op: GateCondition['op'], b: number): boolean {
  switch (op) {
    case '>':
      return a > b;
    case '>=':
      return a >= b;
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '==':
      return a === b;
  }
}

/** Evaluates the conditions on a report; a NaN quantity (e.g. no pair) fails the condition, as it cannot be checked. */
export function evaluateGate(report: DiffReport, conditions: readonly GateCondition[]): GateResult[] {
  const g = report.aggregate;
  const total = report.a.conversations + report.b.conversations;
  return conditions.map((c) => {
    let count: number | undefined;
    let denom = g.pairs;
    let share: number;
    switch (c.metric) {
      case 'outcome_changed':
        count = g.outcomeChanged;
        break;
      case 'diverged':
        count = g.diverged;
        break;
      case 'identical':
        count = g.identical;
        break;
      case 'unpaired':
        count = report.unpaired.length;
        denom = total;
        break;
    }
    if (count !== undefined) share = denom ? count / denom : NaN;
    else if (c.metric === 'accepted_change')
      share = report.success.n ? (report.success.acceptedB - report.success.acceptedA) / report.success.n : NaN;
    else share = report.success.mcnemar.pvalue;
    const actual = c.count && count !== undefined ? count : share;
    const shown =
      count !== undefined
        ? `${(share * 100).toFixed(1)}% (${count} of ${denom})`
        : c.metric === 'accepted_change'
          ? `${(share * 100).toFixed(1)} points`
          : share.toPrecision(3);
    const failed = Number.isNaN(actual) || compare(actual, c.op, c.value);
    return { condition: c, actual, shown, failed };
  });
}
