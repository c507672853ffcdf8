/**
 * Counterfactual validation as a report: per feature, the human shift between two conditions
 * (e.g. good → bad agent) beside each simulator's shift, whether the direction agrees, and how
 * close the simulator is to the humans in the unseen condition (KS, MWU). Numbers come from
 * `src/core/metrics/counterfactual.ts`.
 */
import type { CounterfactualReport } from '../../metrics/counterfactual';
import { featureLabel } from '../../metrics/features';
import {
  REPORT_SCHEMA,
  finiteOrNull,
  type Cell,
  type Column,
  type Mark,
  type Report,
  type Row,
  type Section,
} from '../model';
import { IdAllocator, formatFixed } from '../format';
import { tableColumns, significanceMark, type ReportBuildMeta } from './common';

interface CounterfactualBuildInput extends ReportBuildMeta {
  result: CounterfactualReport;
  /** The human population's label. */
  human?: string;
  alpha?: number;
}

/** Share of features whose shift direction agrees, per simulator (NaN when no feature counted). */
export function directionAgreement(
  result: CounterfactualReport,
): { simulator: string; agrees: number; features: number; share: number }[] {
  return result.summary.map((s) => ({
    simulator: s.simulator,
    agrees: s.direction_agrees,
    features: s.features,
    share: s.features ? s.direction_agrees / s.features : NaN,
  }));
}

/**
 * The shift table's columns and rows: the human shift per feature, then for each simulator its shift,
 * whether it goes the same way, and how close it is to the humans in the unseen condition.
 */
function shiftTableBody(
  r: CounterfactualReport,
  sims: readonly string[],
  shift: ReadonlyMap<string, CounterfactualReport['shifts'][number]>,
  human: string,
  alpha: number,
): { columns: Column[]; rows: Row[] } {
  const columns = tableColumns(
    ['feature', 'Feature', 'text'],
    ['human_from', `${human} ${r.from}`, 'fixed'],
    ['human_to', `${human} ${r.to}`, 'fixed'],
    ['human_shift', `${human} shift`, 'fixed'],
  );
  sims.forEach((s, i) => {
    columns.push(
      ...tableColumns(
        [`s${i}_shift`, `${s} shift`, 'fixed'],
        [`s${i}_agrees`, `${s} same direction`, 'text'],
        [`s${i}_ks`, `${s} KS D (${r.to})`, 'fixed'],
        [`s${i}_mwu_p`, `${s} MWU p (${r.to})`, 'p'],
      ),
    );
  });
  const rows = r.features.map((f) => {
    const first = shift.get(`${sims[0]}\u0000${f}`);
    const cells: Cell[] = [
      featureLabel(f),
      finiteOrNull(first?.human_from_mean),
      finiteOrNull(first?.human_to_mean),
      finiteOrNull(first?.human_shift),
    ];
    const marks: (Mark | null)[] = [null, null, null, null];
    for (const s of sims) {
      const x = shift.get(`${s}\u0000${f}`);
      const comparable = x !== undefined && Number.isFinite(x.human_shift) && Number.isFinite(x.sim_shift);
      const p = x?.unseen.mwu_p ?? NaN;
      cells.push(
        finiteOrNull(x?.sim_shift),
        comparable ? x.direction_agrees : null,
        finiteOrNull(x?.unseen.ks_statistic),
        finiteOrNull(p),
      );
      marks.push(null, comparable ? (x.direction_agrees ? 'pass' : 'fail') : null, null, significanceMark(p, alpha));
    }
    return { cells, marks };
  });
  return { columns, rows };
}

/** The counterfactual sections (for embedding). */
export function counterfactualSections(input: CounterfactualBuildInput, ids: IdAllocator, group?: string): Section[] {
  const r = input.result;
  const human = input.human ?? 'human';
  const alpha = input.alpha ?? 0.05;
  const sims = r.summary.map((s) => s.simulator);
  const shift = new Map(r.shifts.map((s) => [`${s.simulator}\u0000${s.feature}`, s]));
  const sections: Section[] = [];

  const paragraphs = r.summary.map((s) => {
    const unseen = r.shifts.filter((x) => x.simulator === s.simulator && Number.isFinite(x.unseen.mwu_p));
    const close = unseen.filter((x) => x.unseen.mwu_p > alpha).length;
    return (
      `${s.simulator}: its shift from "${r.from}" to "${r.to}" goes the same way as the ${human} shift on ${s.direction_agrees} of ${s.features} features` +
      (Number.isFinite(s.mean_abs_log_ratio)
        ? ` (mean |log(simulated shift / human shift)| = ${formatFixed(s.mean_abs_log_ratio)} where both move the same way)`
        : '') +
      `; in the unseen condition "${r.to}", ${close} of ${unseen.length} features show no significant difference from ${human} (MWU p > ${alpha}).`
    );
  });
  sections.push({ type: 'text', id: ids.id('cf-summary'), title: 'Summary', group, paragraphs, tone: 'info' });

  const { columns, rows } = shiftTableBody(r, sims, shift, human, alpha);
  sections.push({
    type: 'table',
    id: ids.id('cf-shifts'),
    title: `Shift from "${r.from}" to "${r.to}": ${human} vs simulators`,
    group,
    caption: `Shift = mean in "${r.to}" − mean in "${r.from}". The unseen-condition columns compare each simulator with ${human} in "${r.to}".`,
    columns,
    rows,
    notes: [`close: MWU p > ${alpha}; far: MWU p <= ${alpha}.`],
  });

  sections.push({
    type: 'chart',
    id: ids.id('cf-shift-chart'),
    title: `Shift per feature, "${r.from}" → "${r.to}"`,
    group,
    chart: 'bar',
    categories: r.features.map(featureLabel),
    series: [
      { name: human, values: r.features.map((f) => finiteOrNull(shift.get(`${sims[0]}\u0000${f}`)?.human_shift)) },
      ...sims.map((s) => ({
        name: s,
        values: r.features.map((f) => finiteOrNull(shift.get(`${s}\u0000${f}`)?.sim_shift)),
      })),
    ],
    yLabel: `mean(${r.to}) − mean(${r.from})`,
    references: [{ value: 0, label: 'no shift' }],
  });
  if (sims.length) {
    sections.push({
      type: 'chart',
      id: ids.id('cf-unseen-ks'),
      title: `KS D against ${human} in the unseen condition "${r.to}" (lower = closer)`,
      group,
      chart: 'bar',
      categories: r.features.map(featureLabel),
      series: sims.map((s) => ({
        name: s,
        values: r.features.map((f) => finiteOrNull(shift.get(`${s}\u0000${f}`)?.unseen.ks_statistic)),
      })),
      yLabel: 'KS D',
      yMin: 0,
      yMax: 1,
    });
  }
  return sections;
}

/** A complete counterfactual-validation report. */
export function buildCounterfactualReport(input: CounterfactualBuildInput): Report {
  const ids = new IdAllocator();
  const r = input.result;
  return {
    schema: REPORT_SCHEMA,
    kind: 'counterfactual',
    title: input.title ?? `Counterfactual validation: "${r.from}" → "${r.to}"`,
    generated: input.generated ?? new Date().toISOString(),
    inputs: input.inputs ?? [],
    params: { from: r.from, to: r.to, alpha: input.alpha ?? 0.05, ...input.params },
    sections: counterfactualSections(input, ids),
    warnings: input.warnings?.length ? input.warnings : undefined,
  };
}
