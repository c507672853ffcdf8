/**
 * A report as Markdown (GFM tables). Every piece of text from the report is escaped, so a hostile
 * label renders literally. Charts become image links when the caller has written them to files
 * (`chartImage`), otherwise their data is shown as a table.
 */
import type { ChartSection, Mark, Report, Section, TableSection, Verdict } from '../model';
import { formatCell } from '../format';
import { escapeMarkdown, stripControl } from '../../text/escape';
import { chartToTable } from './tables';

interface MarkdownOptions {
  /**
   * Relative path of a chart's image (e.g. "charts/plsa-ks.svg"), or undefined to render the
   * chart's data as a table instead.
   */
  chartImage?: (chart: ChartSection) => string | undefined;
  /** Also render the data table under each chart image (default false). */
  chartData?: boolean;
  /**
   * Leave charts out (terminal output): one line at the end says how many were left out. Their
   * data stays in the report's JSON.
   */
  omitCharts?: boolean;
  /**
   * Plain text in the same layout (terminal output): text is written as it is, without the
   * Markdown escapes (`&gt;`, `\_`, `\|`) that only a Markdown renderer would undo. Control
   * characters are still stripped and line breaks in inline text still become spaces. Default
   * false: files and panels get escaped Markdown.
   */
  plain?: boolean;
}

/** Options of `markdownTableOf`. */
interface MarkdownTableOptions {
  /** Cell text as it is, without Markdown escapes (see MarkdownOptions.plain). */
  plain?: boolean;
}

/** `escapeMarkdown`, or for plain text only what keeps the layout: no control characters, inline text on one line. */
function textEscaper(plain: boolean | undefined): (text: string, inline?: boolean) => string {
  if (!plain) return escapeMarkdown;
  return (text, inline = false) => (inline ? stripControl(text).replace(/\r\n|\r|\n/g, ' ') : stripControl(text));
}

const VERDICT_TEXT: Record<Verdict['verdict'], string> = { pass: '✅ PASS', warn: '⚠️ WARN', fail: '❌ FAIL' };

function markCell(text: string, mark: Mark | null | undefined): string {
  switch (mark) {
    case 'closest':
      return `**${text}**`;
    case 'far':
      return `_${text}_`;
    case 'pass':
      return `✓ ${text}`;
    case 'fail':
      return `✗ ${text}`;
    case 'warn':
      return `⚠ ${text}`;
    default:
      return text;
  }
}

/**
 * What the bold and italic marks of a table mean, for the marks it uses (the same text in Markdown
 * and plain text, where the marks show as * and _). A "closest" cell is only the best among the
 * populations compared: it can still differ significantly from the reference.
 */
function markLegend(table: TableSection): string[] {
  const used = new Set(table.rows.flatMap((r) => r.marks ?? []));
  const parts: string[] = [];
  if (used.has('closest'))
    parts.push(
      '**bold** = closest to the reference among the populations compared (it may still differ significantly)',
    );
  if (used.has('far')) parts.push('_italic_ = far: significantly different at alpha');
  return parts.length ? [`Marks: ${parts.join('; ')}.`] : [];
}

/** A GFM table of a table section (highlighting: bold = closest, italic = far, ✓/✗/⚠ = pass/fail/warn). */
export function markdownTableOf(table: TableSection, opts: MarkdownTableOptions = {}): string {
  const escapeMarkdown = textEscaper(opts.plain);
  const head = `| ${table.columns.map((c) => escapeMarkdown(c.label, true)).join(' | ')} |`;
  const rule = `|${table.columns.map((c, i) => (i > 0 && c.format !== 'text' ? '---:' : '---')).join('|')}|`;
  const body = table.rows.map((r) => {
    const cells = r.cells.map((cell, i) =>
      markCell(escapeMarkdown(formatCell(cell, table.columns[i]), true), r.marks?.[i]),
    );
    return `| ${cells.join(' | ')} |`;
  });
  return [head, rule, ...body].join('\n');
}

function imagePath(path: string): string {
  // Paths are built from file-name-safe ids, but keep link syntax intact whatever happens.
  return encodeURI(path).replace(/[()]/g, (c) => (c === '(' ? '%28' : '%29'));
}

function sectionMarkdown(section: Section, opts: MarkdownOptions): string[] {
  const escapeMarkdown = textEscaper(opts.plain);
  const out: string[] = [`### ${escapeMarkdown(section.title, true)}`, ''];
  if (section.caption) out.push(escapeMarkdown(section.caption), '');
  if (section.type === 'text') {
    for (const p of section.paragraphs) out.push(`${section.tone === 'warning' ? '> ⚠ ' : ''}${escapeMarkdown(p)}`, '');
  } else if (section.type === 'table') {
    out.push(markdownTableOf(section, opts), '');
    const notes = [...(section.notes ?? []).map((n) => escapeMarkdown(n, true)), ...markLegend(section)];
    for (const n of notes) out.push(`- ${n}`);
    if (notes.length) out.push('');
  } else {
    const img = opts.chartImage?.(section);
    if (img !== undefined) {
      out.push(`![${escapeMarkdown(section.title, true)}](${imagePath(img)})`, '');
      if (opts.chartData) out.push(markdownTableOf(chartToTable(section), opts), '');
    } else {
      out.push(markdownTableOf(chartToTable(section), opts), '');
    }
  }
  return out;
}

/** Renders a whole report. */
export function renderMarkdown(report: Report, opts: MarkdownOptions = {}): string {
  const escapeMarkdown = textEscaper(opts.plain);
  const out: string[] = [`# ${escapeMarkdown(report.title, true)}`, ''];
  out.push(
    `Generated ${escapeMarkdown(report.generated, true)} by SimLens (${escapeMarkdown(report.kind, true)} report).`,
    '',
  );
  if (report.inputs.length) {
    out.push('## Inputs', '', '| Population | File | Conversations | Filter |', '|---|---|---:|---|');
    for (const i of report.inputs) {
      out.push(
        `| ${escapeMarkdown(i.label, true)} | ${escapeMarkdown(i.file, true)} | ${i.n} | ${i.filter ? escapeMarkdown(i.filter, true) : ''} |`,
      );
    }
    out.push('');
  }
  if (report.verdicts?.length) {
    out.push('## Verdicts', '', '| Pillar | Verdict | Measured | Rule |', '|---|---|---|---|');
    for (const v of report.verdicts) {
      out.push(
        `| ${escapeMarkdown(v.pillar, true)} | ${VERDICT_TEXT[v.verdict]} | ${escapeMarkdown(v.detail, true)} | ` +
          `${v.rule ? escapeMarkdown(v.rule, true) : ''} |`,
      );
    }
    out.push('');
  }
  let group: string | undefined;
  const sections = opts.omitCharts ? report.sections.filter((s) => s.type !== 'chart') : report.sections;
  for (const s of sections) {
    if (s.group !== undefined && s.group !== group) out.push(`## ${escapeMarkdown(s.group, true)}`, '');
    group = s.group;
    out.push(...sectionMarkdown(s, opts));
  }
  const params = Object.entries(report.params ?? {});
  if (params.length) {
    out.push('## Parameters', '');
    for (const [k, v] of params)
      out.push(`- ${escapeMarkdown(k, true)}: ${escapeMarkdown(v === null ? '–' : String(v), true)}`);
    out.push('');
  }
  const omitted = report.sections.length - sections.length;
  if (omitted) out.push(`${omitted} chart${omitted === 1 ? '' : 's'} not shown (the JSON report has their data).`, '');
  if (report.warnings?.length) {
    out.push('## Warnings', '');
    for (const w of report.warnings) out.push(`- ${escapeMarkdown(w, true)}`);
    out.push('');
  }
  return out.join('\n').replace(/\n{3,}/g, '\n\n');
}
