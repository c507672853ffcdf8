/** Small pieces shared by the report builders. */
import type { Column, ColumnFormat, Mark, ReportInput, ReportParams } from '../model';

/** The optional report-level fields every builder input accepts (each builder has its own defaults). */
export interface ReportBuildMeta {
  title?: string;
  /** ISO time stamp (default: now). */
  generated?: string;
  /** Overrides the inputs list (e.g. to add filters). */
  inputs?: ReportInput[];
  /** Extra parameters, merged over the builder's own. */
  params?: ReportParams;
  warnings?: string[];
}

/**
 * The mark of a two-sample test's p-value: 'close' when the samples are indistinguishable at
 * `alpha` (p > alpha), 'far' when they differ, none when there is no p-value.
 */
export function significanceMark(p: number, alpha: number): Mark | null {
  return Number.isFinite(p) ? (p > alpha ? 'close' : 'far') : null;
}

/** One table column as [key, label, format, digits] (format and digits optional). */
export type ColumnRow = readonly [key: string, label: string, format?: ColumnFormat, digits?: number];

/** Table columns from `[key, label, format, digits]` rows. */
export function tableColumns(...rows: ColumnRow[]): Column[] {
  return rows.map(([key, label, format, digits]) => ({
    key,
    label,
    ...(format ? { format } : {}),
    ...(digits === undefined ? {} : { digits }),
  }));
}
