/**
 * The report model: one serialisable description of a metric result that every surface renders
 * the same way (the metric panels in VS Code, `simlens report`, Markdown/CSV/JSON/SVG exports).
 *
 * A report is plain JSON: a kind, a title, the populations it was computed from, optional verdicts
 * (one per validation pillar) and an ordered list of sections, each a table, a chart or text.
 * Numbers in a report are always finite: builders write a missing or undefined statistic as
 * `null`. Section ids are restricted to file-name-safe characters because exports name files after
 * them (`charts/<id>.svg`, `tables/<id>.csv`).
 *
 * All text in a report may come from data (file names, feature names, condition labels): every
 * renderer escapes it for its target format, and the webview only ever sets it as textContent.
 */
import * as z from 'zod';
import { zodErrorMessage } from '../jsonl/zodIssues';

/** Version tag written into every report (`report.json`). */
export const REPORT_SCHEMA = 'simlens-report/1';

/** What a report is about. */
const ReportKind = z.enum(['plsa', 'human-likeness', 'counterfactual', 'simulation', 'fidelity', 'invariants']);
type ReportKind = z.infer<typeof ReportKind>;

/** A section id: letters, digits, dot, dash, underscore; starts with a letter or digit. */
export const SectionId = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,119}$/,
    'section ids are file-name-safe: letters, digits, ".", "_", "-" (max 120)',
  );

/** One input population of a report. */
export const ReportInput = z.object({
  /** What the report calls this population ("human", "local-good", …). */
  label: z.string().max(500),
  /** The file it was read from (as the user named it). */
  file: z.string().max(4000),
  /** Conversations used. */
  n: z.number().int().nonnegative(),
  /** A filter applied before the metrics, e.g. "condition=good". */
  filter: z.string().max(1000).optional(),
});
export type ReportInput = z.infer<typeof ReportInput>;

/** A validation pillar's verdict. */
export const VerdictValue = z.enum(['pass', 'warn', 'fail']);
export type VerdictValue = z.infer<typeof VerdictValue>;

export const Verdict = z.object({
  pillar: z.string().max(200),
  verdict: VerdictValue,
  /** The measured numbers behind the verdict, in one sentence. */
  detail: z.string().max(4000),
  /** The rule that was applied, e.g. "pass: >= 70% of features have MWU p > 0.05". */
  rule: z.string().max(1000).optional(),
});
export type Verdict = z.infer<typeof Verdict>;

/** A table cell: text, a finite number, a boolean, or nothing. */
export const Cell = z.union([z.string().max(10_000), z.number(), z.boolean(), z.null()]);
export type Cell = z.infer<typeof Cell>;

/**
 * How a cell is highlighted. `closest`: the best value of its row among the candidates (e.g. the
 * highest MWU p); `close`: within the indistinguishable range (e.g. p > alpha); `far`: clearly
 * different; `pass`/`warn`/`fail`: a verdict-like judgement.
 */
export const Mark = z.enum(['closest', 'close', 'far', 'pass', 'warn', 'fail']);
export type Mark = z.infer<typeof Mark>;

/**
 * How a numeric column is shown (exports keep full precision): `int`; `fixed` with `digits`
 * (default 3); `p` for p-values (3 significant digits, "<1e-16" style below 0.001 as exponent);
 * `percent` (a share 0-1 shown as 12.3%).
 */
export const ColumnFormat = z.enum(['text', 'int', 'fixed', 'p', 'percent']);
export type ColumnFormat = z.infer<typeof ColumnFormat>;

export const Column = z.object({
  /** Key in JSON exports and CSV header. */
  key: z.string().min(1).max(200),
  /** Header shown to people. */
  label: z.string().max(500),
  format: ColumnFormat.optional(),
  digits: z.number().int().min(0).max(12).optional(),
});
export type Column = z.infer<typeof Column>;

/**
 * Where a row points: a conversation (by id, as `conversationId` gives it) of input `input` of the
 * report, optionally at a 0-based turn. The panels open it in the SimLens editor; `line` is the
 * 1-based line in that file, when known.
 */
const RowLink = z.object({
  input: z.number().int().nonnegative(),
  conversation: z.string().max(10_000),
  line: z.number().int().positive().optional(),
  turn: z.number().int().nonnegative().optional(),
});
type RowLink = z.infer<typeof RowLink>;

export const Row = z.object({
  cells: z.array(Cell),
  /** Parallel to `cells`; absent or null = no highlight. */
  marks: z.array(Mark.nullable()).optional(),
  /** The conversation this row is about (shown as a link in the table's `linkColumn`). */
  link: RowLink.optional(),
});
export type Row = z.infer<typeof Row>;

const SectionBase = {
  id: SectionId,
  title: z.string().max(1000),
  /** Sections with the same group are shown under one heading (renderers emit it when it changes). */
  group: z.string().max(500).optional(),
  /** A sentence under the title explaining how to read the section. */
  caption: z.string().max(4000).optional(),
};

export const TableSection = z.object({
  type: z.literal('table'),
  ...SectionBase,
  columns: z.array(Column).min(1),
  rows: z.array(Row),
  /** Key of the column whose cells open their row's `link` (default: the first column). */
  linkColumn: z.string().max(200).optional(),
  /** Footnotes (legend of the highlighting, thresholds). */
  notes: z.array(z.string().max(4000)).optional(),
});
export type TableSection = z.infer<typeof TableSection>;

/** The five numbers of a box (plus mean and n). */
export const BoxStats = z.object({
  min: z.number(),
  q1: z.number(),
  median: z.number(),
  q3: z.number(),
  max: z.number(),
  mean: z.number().optional(),
  n: z.number().int().nonnegative(),
});
export type BoxStats = z.infer<typeof BoxStats>;

/**
 * One series of a chart. Bar and line charts use `values` (parallel to the chart's categories;
 * null = no value); box charts use `boxes`.
 */
const Series = z.object({
  name: z.string().max(500),
  values: z.array(z.number().nullable()).optional(),
  boxes: z.array(BoxStats.nullable()).optional(),
});
type Series = z.infer<typeof Series>;

const ChartType = z.enum(['bar', 'line', 'box']);
type ChartType = z.infer<typeof ChartType>;

export const ChartSection = z.object({
  type: z.literal('chart'),
  ...SectionBase,
  chart: ChartType,
  /** X-axis categories (bar/box) or x values as labels (line). */
  categories: z.array(z.string().max(500)),
  series: z.array(Series).min(1),
  xLabel: z.string().max(500).optional(),
  yLabel: z.string().max(500).optional(),
  /** Fixed y range; absent = from the data (bars and lines always include 0). */
  yMin: z.number().optional(),
  yMax: z.number().optional(),
  /** Horizontal reference lines (e.g. the alpha level, a threshold). */
  references: z.array(z.object({ value: z.number(), label: z.string().max(500) })).optional(),
});
export type ChartSection = z.infer<typeof ChartSection>;

export const TextSection = z.object({
  type: z.literal('text'),
  ...SectionBase,
  /** Plain-text paragraphs (never markup). */
  paragraphs: z.array(z.string().max(20_000)),
  tone: z.enum(['info', 'note', 'warning']).optional(),
});
export type TextSection = z.infer<typeof TextSection>;

export const Section = z.discriminatedUnion('type', [TableSection, ChartSection, TextSection]);
export type Section = z.infer<typeof Section>;

/** Parameters worth recording (seed, alpha, folds, act source, …). */
export const ReportParams = z.record(
  z.string().max(200),
  z.union([z.string().max(4000), z.number(), z.boolean(), z.null()]),
);
export type ReportParams = z.infer<typeof ReportParams>;

export const Report = z
  .object({
    schema: z.literal(REPORT_SCHEMA),
    kind: ReportKind,
    title: z.string().max(1000),
    /** ISO time the report was computed. */
    generated: z.string().max(100),
    inputs: z.array(ReportInput),
    params: ReportParams.optional(),
    verdicts: z.array(Verdict).optional(),
    sections: z.array(Section),
    /** Problems met while computing (skipped lines, features without data). */
    warnings: z.array(z.string().max(4000)).optional(),
  })
  .superRefine((report, ctx) => {
    const seen = new Set<string>();
    report.sections.forEach((s, i) => {
      if (seen.has(s.id))
        ctx.addIssue({ code: 'custom', path: ['sections', i, 'id'], message: `duplicate section id "${s.id}"` });
      seen.add(s.id);
      if (s.type === 'table') {
        s.rows.forEach((r, j) => {
          if (r.cells.length !== s.columns.length) {
            ctx.addIssue({
              code: 'custom',
              path: ['sections', i, 'rows', j, 'cells'],
              message: `row has ${r.cells.length} cells for ${s.columns.length} columns`,
            });
          }
          if (r.marks && r.marks.length !== r.cells.length) {
            ctx.addIssue({
              code: 'custom',
              path: ['sections', i, 'rows', j, 'marks'],
              message: `row has ${r.marks.length} marks for ${r.cells.length} cells`,
            });
          }
          if (r.link && r.link.input >= report.inputs.length) {
            ctx.addIssue({
              code: 'custom',
              path: ['sections', i, 'rows', j, 'link', 'input'],
              message: `link to input ${r.link.input} of ${report.inputs.length}`,
            });
          }
        });
        if (s.linkColumn !== undefined && !s.columns.some((c) => c.key === s.linkColumn)) {
          ctx.addIssue({ code: 'custom', path: ['sections', i, 'linkColumn'], message: `no column "${s.linkColumn}"` });
        }
      } else if (s.type === 'chart') {
        s.series.forEach((ser, j) => {
          const list = s.chart === 'box' ? ser.boxes : ser.values;
          const field = s.chart === 'box' ? 'boxes' : 'values';
          if (!list)
            ctx.addIssue({
              code: 'custom',
              path: ['sections', i, 'series', j],
              message: `a ${s.chart} chart series needs "${field}"`,
            });
          else if (list.length !== s.categories.length) {
            ctx.addIssue({
              code: 'custom',
              path: ['sections', i, 'series', j, field],
              message: `${list.length} values for ${s.categories.length} categories`,
            });
          }
        });
      }
    });
  });
export type Report = z.infer<typeof Report>;

/**
 * Validates an unknown value as a report. Returns the report or throws an Error whose message
 * names the first offending path (`origin: sections[2].rows[0].cells: …`).
 */
export function parseReport(value: unknown, origin = 'report'): Report {
  const r = Report.safeParse(value);
  if (r.success) return r.data;
  throw new Error(zodErrorMessage(origin, r.error, value));
}

/** A number for a report: finite numbers unchanged, NaN and infinities as null. */
export function finiteOrNull(x: number | undefined | null): number | null {
  return typeof x === 'number' && Number.isFinite(x) ? x : null;
}
