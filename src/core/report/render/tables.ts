/**
 * Table exports: CSV (RFC 4180) and JSON (an array of objects keyed by column key). Both keep
 * full numeric precision; highlighting is dropped.
 */
import type { Cell, ChartSection, TableSection } from '../model';
import { stripControl } from '../../text/escape';

/**
 * One CSV field. Strings that a spreadsheet would evaluate as a formula (leading `=`, `+`, `-`,
 * `@`, tab or carriage return) get a leading apostrophe, because labels come from data and CSV
 * files are opened in spreadsheets; numbers are written as numbers.
 */
export function csvField(cell: Cell): string {
  if (cell === null) return '';
  if (typeof cell === 'number') return Number.isFinite(cell) ? String(cell) : '';
  if (typeof cell === 'boolean') return cell ? 'true' : 'false';
  let s = stripControl(cell);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** A table as CSV: header row of column labels, then the rows, CRLF line ends. */
export function tableToCsv(table: TableSection): string {
  const lines = [table.columns.map((c) => csvField(c.label)).join(',')];
  for (const r of table.rows) lines.push(r.cells.map(csvField).join(','));
  return lines.join('\r\n') + '\r\n';
}

/** A table as plain JSON rows `{ [column.key]: cell }`. */
function tableToRows(table: TableSection): Record<string, Cell>[] {
  return table.rows.map((r) => Object.fromEntries(table.columns.map((c, i) => [c.key, r.cells[i] ?? null])));
}

/** A table as pretty-printed JSON (see `tableToRows`). */
export function tableToJson(table: TableSection): string {
  return JSON.stringify(tableToRows(table), null, 2) + '\n';
}

/**
 * A chart's data as a table (one row per category, one column per series; box charts get the
 * five numbers per series), for Markdown without images and for CSV export of charts.
 */
export function chartToTable(chart: ChartSection): TableSection {
  const columns: TableSection['columns'] = [{ key: 'category', label: chart.xLabel ?? 'category', format: 'text' }];
  if (chart.chart === 'box') {
    chart.series.forEach((s, i) => {
      for (const k of ['min', 'q1', 'median', 'q3', 'max', 'n'] as const) {
        columns.push({
          key: `s${i}_${k}`,
          label: chart.series.length > 1 ? `${s.name} ${k}` : k,
          format: k === 'n' ? 'int' : 'fixed',
        });
      }
    });
  } else {
    chart.series.forEach((s, i) => columns.push({ key: `s${i}`, label: s.name, format: 'fixed' }));
  }
  const rows = chart.categories.map((c, ci) => {
    const cells: Cell[] = [c];
    for (const s of chart.series) {
      if (chart.chart === 'box') {
        const b = s.boxes?.[ci] ?? null;
        cells.push(b?.min ?? null, b?.q1 ?? null, b?.median ?? null, b?.q3 ?? null, b?.max ?? null, b?.n ?? null);
      } else {
        cells.push(s.values?.[ci] ?? null);
      }
    }
    return { cells };
  });
  return { type: 'table', id: chart.id, title: chart.title, group: chart.group, columns, rows };
}
