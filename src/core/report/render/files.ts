/**
 * Writes a report to a folder: `report.md` (Markdown with chart images), `report.json` (the
 * report itself, re-readable with `parseReport`), `charts/<id>.svg` and `tables/<id>.csv`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Report } from '../model';
import { renderMarkdown } from './markdown';
import { renderChartSvg, type SvgOptions } from './svg';
import { tableToCsv } from './tables';

export interface WrittenReport {
  dir: string;
  markdown: string;
  json: string;
  charts: string[];
  tables: string[];
}

/** Writes every file of the report into `dir` (created if needed); existing files are replaced. */
export function writeReportFiles(report: Report, dir: string, svg: SvgOptions = {}): WrittenReport {
  mkdirSync(join(dir, 'charts'), { recursive: true });
  mkdirSync(join(dir, 'tables'), { recursive: true });
  const charts: string[] = [];
  const tables: string[] = [];
  for (const s of report.sections) {
    if (s.type === 'chart') {
      const file = join(dir, 'charts', `${s.id}.svg`);
      writeFileSync(file, renderChartSvg(s, svg));
      charts.push(file);
    } else if (s.type === 'table') {
      const file = join(dir, 'tables', `${s.id}.csv`);
      writeFileSync(file, tableToCsv(s));
      tables.push(file);
    }
  }
  const markdown = join(dir, 'report.md');
  writeFileSync(markdown, renderMarkdown(report, { chartImage: (c) => `charts/${c.id}.svg` }));
  const json = join(dir, 'report.json');
  writeFileSync(json, JSON.stringify(report, null, 2) + '\n');
  return { dir, markdown, json, charts, tables };
}
