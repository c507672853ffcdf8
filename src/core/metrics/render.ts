/**
 * Markdown and CSV renderings of the metric reports (the panels draw charts from the same plain
 * data). Numbers use three decimals like the ConvApparel tables; p-values below 0.001 are shown in
 * scientific notation so they are not mistaken for zero.
 */
import type { BaselineReport, CloserSummary, PlsaComparison, PlsaReport } from './plsa';
import type { CrossCell, HlsCrossValidation, LearningPoint, ClassificationMetrics, LlmDiscriminatorScores } from './hls';
import type { CounterfactualReport } from './counterfactual';
import type { ZbSummary, DsKl, RankingAgreement } from './zhangBalog';
import type { PepperCurves, AlterEvalCurves, AlterEvalImprovement } from './recsys';
import { featureLabel } from './features';

/** A number with 3 decimals; p-like values below 0.001 in scientific notation; NaN as "–". */
export function fmt(v: number, p = false): string {
  if (v === undefined || Number.isNaN(v)) return '–';
  if (!Number.isFinite(v)) return v > 0 ? '∞' : '−∞';
  if (p && v > 0 && v < 0.001) return v.toExponential(1);
  return v.toFixed(3);
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** A Markdown table. */
export function markdownTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const lines = [`| ${headers.map(cell).join(' | ')} |`, `|${headers.map(() => '---').join('|')}|`];
  for (const r of rows) lines.push(`| ${r.map(cell).join(' | ')} |`);
  return lines.join('\n');
}

/** RFC 4180 CSV (fields quoted when needed, "\r\n" line ends). */
export function csv(headers: readonly string[], rows: readonly (readonly (string | number | boolean | null | undefined)[])[]): string {
  const q = (v: string | number | boolean | null | undefined): string => {
    if (v === null || v === undefined || (typeof v === 'number' && Number.isNaN(v))) return '';
    const s = String(v);
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return [headers, ...rows].map((r) => r.map(q).join(',')).join('\r\n') + '\r\n';
}

/**
 * Short display names for files: the base name without extension; where base names collide, the
 * last two path components; numbered if still ambiguous. A repeated file keeps one name.
 */
export function shortNames(files: readonly string[]): Map<string, string> {
  const parts = (f: string) => f.replace(/\\/g, '/').replace(/\.(jsonl|json|csv)$/i, '').split('/').filter(Boolean);
  const unique = [...new Set(files)];
  const tail = (f: string, k: number) => parts(f).slice(-k).join('/');
  const out = new Map<string, string>();
  const used = new Map<string, number>();
  for (const f of unique) {
    const base = tail(f, 1);
    const clash = unique.some((g) => g !== f && tail(g, 1) === base);
    let name = clash ? tail(f, 2) : base;
    const k = used.get(name) ?? 0;
    used.set(name, k + 1);
    if (k) name = `${name} (${k + 1})`;
    out.set(f, name);
  }
  return out;
}

/** The PLSA table shaped like ConvApparel Tables 2-5: one MWU/KS column pair per candidate. */
export function plsaMarkdown(report: PlsaReport, opts: { title?: string; means?: boolean } = {}): string {
  const names = shortNames([report.reference.file, ...report.candidates.map((c) => c.file)]);
  const ref = names.get(report.reference.file)!;
  const headers = ['Metric'];
  for (const c of report.candidates) {
    const n = names.get(c.file)!;
    headers.push(`${ref}–${n} MWU p`, `${ref}–${n} KS stat`);
    if (opts.means) headers.push(`mean ${n}`);
  }
  if (opts.means) headers.splice(1, 0, `mean ${ref}`);
  const byKey = new Map(report.comparisons.map((c) => [`${c.candidate}\u0000${c.feature}`, c]));
  const rows = report.features.map((f) => {
    const row = [featureLabel(f)];
    if (opts.means) {
      const any = report.comparisons.find((c) => c.feature === f);
      row.push(fmt(any?.reference_mean ?? NaN));
    }
    for (const c of report.candidates) {
      const x = byKey.get(`${c.file}\u0000${f}`);
      row.push(fmt(x?.mwu_p ?? NaN, true), fmt(x?.ks_statistic ?? NaN));
      if (opts.means) row.push(fmt(x?.candidate_mean ?? NaN));
    }
    return row;
  });
  const parts: string[] = [];
  if (opts.title) parts.push(`### ${opts.title}`, '');
  parts.push(
    `Reference: ${report.reference.file} (n = ${report.reference.n}); ` +
      report.candidates.map((c) => `${names.get(c.file)}: ${c.file} (n = ${c.n})`).join('; ') + '.',
    '',
    markdownTable(headers, rows),
    '',
    'Higher MWU p and lower KS statistic = closer to the reference.',
  );
  return parts.join('\n');
}

/** "A is closer to the reference than B on k of n features" sentences. */
export function closerMarkdown(summaries: readonly CloserSummary[]): string {
  if (summaries.length === 0) return '';
  const names = shortNames([...new Set(summaries.flatMap((s) => [s.a, s.b]))]);
  return summaries
    .map((s) => `- ${names.get(s.a)} is closer to the reference than ${names.get(s.b)} on ${s.ksCloser} of ${s.features} features by KS statistic (lower), and on ${s.mwuCloser} of ${s.features} by MWU p (higher).`)
    .join('\n');
}

/** The human-vs-human baseline table (ConvApparel Table 6). */
export function baselineMarkdown(b: BaselineReport, file: string): string {
  return [
    `### Human-vs-human baseline`,
    '',
    `Two disjoint random subsets of ${b.size} conversations of ${file} (seed ${b.seed}).`,
    '',
    markdownTable(['Metric', 'MWU p', 'KS stat'], b.comparisons.map((c) => [featureLabel(c.feature), fmt(c.mwu_p, true), fmt(c.ks_statistic)])),
  ].join('\n');
}

/** All comparison fields as CSV. */
export function plsaCsv(comparisons: readonly PlsaComparison[]): string {
  const h = ['feature', 'candidate', 'reference_mean', 'candidate_mean', 'mwu_u', 'mwu_p', 'ks_statistic', 'ks_p', 'n_reference', 'n_candidate', 'mwu_method', 'ks_method'] as const;
  return csv([...h], comparisons.map((c) => h.map((k) => c[k])));
}

function metricsRow(m: ClassificationMetrics): string[] {
  return [fmt(m.accuracy), fmt(m.precision), fmt(m.recall), fmt(m.f1), fmt(m.specificity), fmt(m.avg_hls_human), fmt(m.avg_hls_simulated)];
}
const METRIC_HEADERS = ['Accuracy', 'Precision', 'Recall', 'F1', 'Specificity', 'Avg HLS (human)', 'Avg HLS (sim.)'];

/** Cross-validation summary, learning curve and cross-distribution matrix. */
export function hlsMarkdown(cv: HlsCrossValidation | undefined, curve?: readonly LearningPoint[], cells?: readonly CrossCell[], llm?: readonly { population: string; scores: LlmDiscriminatorScores }[]): string {
  const parts: string[] = [];
  if (cv) {
    parts.push(
      `### Discriminator (${cv.k}-fold cross-validation, seed ${cv.seed})`,
      '',
      'Unigram + bigram counts of user utterances, L2 logistic regression (C = 1). Human is the positive class; HLS = P(human).',
      '',
      markdownTable(['', ...METRIC_HEADERS], [['pooled', ...metricsRow(cv.metrics)], ...cv.folds.map((m, i) => [`fold ${i + 1}`, ...metricsRow(m)])]),
    );
  }
  if (curve && curve.length) {
    parts.push('', '### Learning curve', '', markdownTable(['Training conversations', ...METRIC_HEADERS], curve.map((p) => [String(p.train_size), ...metricsRow(p.metrics)])));
  }
  if (cells && cells.length) {
    parts.push('', '### Cross-distribution (train on humans vs A, test on held-out humans vs B)', '', markdownTable(['Train A', 'Test B', ...METRIC_HEADERS], cells.map((c) => [c.train, c.test, ...metricsRow(c.metrics)])));
  }
  if (llm && llm.some((x) => x.scores.n > 0)) {
    parts.push('', '### LLM discriminator', '', markdownTable(['Population', 'Annotators', 'Scored', 'Mean P(human)'], llm.map((x) => [x.population, x.scores.annotators.join(', ') || '–', String(x.scores.n), fmt(x.scores.mean_p_human)])));
  }
  return parts.join('\n');
}

/** Counterfactual shifts per feature and simulator. */
export function counterfactualMarkdown(r: CounterfactualReport): string {
  const rows = r.shifts.map((s) => [
    featureLabel(s.feature), s.simulator, fmt(s.human_shift), fmt(s.sim_shift), s.direction_agrees ? 'yes' : 'no', fmt(s.magnitude_ratio), fmt(s.unseen.mwu_p, true), fmt(s.unseen.ks_statistic),
  ]);
  return [
    `### Counterfactual validation: ${r.from} → ${r.to}`,
    '',
    markdownTable(['Metric', 'Simulator', 'Human shift', 'Sim. shift', 'Same direction', 'Sim./human', `MWU p (${r.to})`, `KS stat (${r.to})`], rows),
    '',
    ...r.summary.map((s) => `- ${s.simulator}: shift in the human direction on ${s.direction_agrees} of ${s.features} features; mean |log(sim/human shift)| = ${fmt(s.mean_abs_log_ratio)}.`),
  ].join('\n');
}

/** Zhang & Balog table (one row per population) plus DS-KL against the real population. */
export function zhangBalogMarkdown(rows: readonly { name: string; summary: ZbSummary; dsKl?: DsKl }[], ranking?: readonly { metric: string; agreement: RankingAgreement }[]): string {
  const parts = [
    markdownTable(
      ['Population', 'Conversations', 'AvgTurns', 'UserActRatio', 'DS-KL', 'Reward', 'Success Rate'],
      rows.map((r) => [r.name, String(r.summary.conversations), fmt(r.summary.avg_turns), fmt(r.summary.user_act_ratio), r.dsKl ? fmt(r.dsKl.value) : '–', fmt(r.summary.reward), fmt(r.summary.success_rate.rate)]),
    ),
  ];
  for (const r of ranking ?? []) {
    parts.push('', `Ranking by ${r.metric}: real ${r.agreement.real_order.join(' > ')}; simulated ${r.agreement.simulated_order.join(' > ')}; Kendall's tau = ${fmt(r.agreement.kendall_tau)} (p = ${fmt(r.agreement.p_value, true)}).`);
  }
  return parts.join('\n');
}

/** PEPPER curves as a table over turns. */
export function pepperMarkdown(c: PepperCurves, name = ''): string {
  return [
    `### PEPPER${name ? `: ${name}` : ''} (${c.users} users, top-${c.k} lists)`,
    '',
    markdownTable(['Turn', 'PC_t', 'PCIR_t', `Recall@${c.k}`], c.pc.map((v, t) => [String(t + 1), fmt(v), fmt(c.pcir[t]), fmt(c.recall_at_k[t])])),
    '',
    `PCIR_avg = ${fmt(c.pcir_avg)}.`,
  ].join('\n');
}

/** AlterEval curves, or an improvement of a meta-simulator over its base. */
export function alterEvalMarkdown(x: AlterEvalCurves | AlterEvalImprovement, name = ''): string {
  if ('meta' in x) {
    const rows = x.meta.sr_at_1.map((_, t) => [
      String(t + 1), fmt(x.base.sr_at_1[t]), fmt(x.meta.sr_at_1[t]), fmt(x.base.ndcg_at_10[t]), fmt(x.meta.ndcg_at_10[t]), fmt(x.base.mrr_at_10[t]), fmt(x.meta.mrr_at_10[t]),
    ]);
    return [
      `### AlterEval${name ? `: ${name}` : ''}: meta-simulator vs base`,
      '',
      markdownTable(['Turn', 'SR@1 base', 'SR@1 meta', 'NDCG@10 base', 'NDCG@10 meta', 'MRR@10 base', 'MRR@10 meta'], rows),
      '',
      `Relative improvement at turn ${x.meta.horizon}: SR@1 ${fmt(x.relative_at_horizon.sr_at_1)}, NDCG@10 ${fmt(x.relative_at_horizon.ndcg_at_10)}, MRR@10 ${fmt(x.relative_at_horizon.mrr_at_10)}.`,
    ].join('\n');
  }
  return [
    `### AlterEval${name ? `: ${name}` : ''} (${x.conversations} conversations, relevant = ${x.relevant})`,
    '',
    markdownTable(['Turn', 'SR@1', 'NDCG@10', 'MRR@10'], x.sr_at_1.map((v, t) => [String(t + 1), fmt(v), fmt(x.ndcg_at_10[t]), fmt(x.mrr_at_10[t])])),
  ].join('\n');
}
