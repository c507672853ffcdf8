/**
 * What the metric panels need from core's report pipeline: the report data types and the pure
 * formatting the host's Markdown/HTML renderers use too, so both sides show the same numbers.
 */
export type { BoxStats, ChartSection, Mark, Report, Section, TableSection, Verdict } from '../core/report/model';
export type { ReportSpec } from '../core/report/specs';
export { formatCell, formatTick } from '../core/report/format';
export { chartToTable } from '../core/report/render/tables';
