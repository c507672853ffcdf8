/**
 * Simulation metrics as a report: Zhang & Balog's table (AvgTurns, UserActRatio, DS-KL, Reward,
 * Success Rate) and system-ranking agreement, PEPPER's PC_t / PCIR_t / Recall@k curves, and
 * Fashion-AlterEval's SR@1 / NDCG@10 / MRR@10 per turn with a meta-simulator's improvement.
 * Numbers come from `src/core/metrics/zhangBalog.ts` and `recsys.ts`.
 */
import type { DsKl, RankingAgreement, ZbSummary } from '../../metrics/zhangBalog';
import type { AlterEvalCurves, AlterEvalImprovement, PepperCurves } from '../../metrics/recsys';
import { REPORT_SCHEMA, finiteOrNull, type ChartSection, type Report, type Section } from '../model';
import { IdAllocator, formatFixed } from '../format';
import { tableColumns, type ReportBuildMeta } from './common';
import type { OutcomeCounts } from '../outcomes';
import { exclusionNote, outcomesSection } from './outcomes';

/** The metrics computed for one population. */
export interface SimulationPopulation {
  label: string;
  /**
   * User outcomes and failures of all the population's conversations. The metrics below must be
   * computed on the conversations without failures (`withoutFailures`).
   */
  outcomes?: OutcomeCounts;
  zb?: ZbSummary;
  /** DS-KL of this population's user acts against the reference population's. */
  dsKl?: DsKl;
  pepper?: PepperCurves;
  alterEval?: AlterEvalCurves;
}

interface SimulationBuildInput extends ReportBuildMeta {
  populations: readonly SimulationPopulation[];
  /** Label of the real-user population DS-KL was computed against. */
  reference?: string;
  ranking?: readonly { metric: string; agreement: RankingAgreement }[];
  improvements?: readonly { label: string; result: AlterEvalImprovement }[];
}

function turnLabels(n: number): string[] {
  return Array.from({ length: n }, (_, i) => String(i + 1));
}

function curveChart(
  ids: IdAllocator,
  group: string | undefined,
  key: string,
  title: string,
  yLabel: string,
  series: { name: string; values: readonly number[] }[],
  yRange?: [number, number],
): ChartSection {
  const turns = Math.max(0, ...series.map((s) => s.values.length));
  return {
    type: 'chart',
    id: ids.id(key),
    title,
    group,
    chart: 'line',
    categories: turnLabels(turns),
    series: series.map((s) => ({
      name: s.name,
      values: turnLabels(turns).map((_, t) => (t < s.values.length ? finiteOrNull(s.values[t]) : null)),
    })),
    xLabel: 'turn',
    yLabel,
    yMin: yRange?.[0],
    yMax: yRange?.[1],
  };
}

/** Zhang & Balog's table and the AvgTurns / Reward chart (populations with a `zb` summary). */
function zhangBalogSections(
  input: SimulationBuildInput,
  ids: IdAllocator,
  group: string | undefined,
  withNote: (caption: string) => string,
): Section[] {
  const sections: Section[] = [];
  const zb = input.populations.filter((p) => p.zb);
  if (zb.length) {
    sections.push({
      type: 'table',
      id: ids.id('zb-table'),
      title: 'Zhang & Balog metrics',
      group,
      caption: withNote(
        'AvgTurns: speaker changes / 2 per conversation; UserActRatio: user / agent utterances; Reward: max(0, Full − ' +
          "Cost·T) for accepted conversations (0 otherwise), mean; Success rate: share of judged turns where the agent's " +
          'action was appropriate (agenda pulled)' +
          (input.reference
            ? `; DS-KL: symmetric KL of the user-act distribution against ${input.reference} (Laplace-smoothed).`
            : '.'),
      ),
      columns: tableColumns(
        ['population', 'Population', 'text'],
        ['conversations', 'Conversations', 'int'],
        ['avg_turns', 'AvgTurns', 'fixed', 2],
        ['user_act_ratio', 'UserActRatio', 'fixed', 2],
        ['ds_kl', 'DS-KL', 'fixed'],
        ['reward', 'Reward', 'fixed', 2],
        ['success_rate', 'Success rate', 'fixed'],
      ),
      rows: zb.map((p) => ({
        cells: [
          p.label,
          p.zb!.conversations,
          finiteOrNull(p.zb!.avg_turns),
          finiteOrNull(p.zb!.user_act_ratio),
          finiteOrNull(p.dsKl?.value),
          finiteOrNull(p.zb!.reward),
          finiteOrNull(p.zb!.success_rate.rate),
        ],
      })),
    });
    sections.push({
      type: 'chart',
      id: ids.id('zb-avg-turns'),
      title: 'AvgTurns and Reward per population',
      group,
      chart: 'bar',
      categories: zb.map((p) => p.label),
      series: [
        { name: 'AvgTurns', values: zb.map((p) => finiteOrNull(p.zb!.avg_turns)) },
        { name: 'Reward', values: zb.map((p) => finiteOrNull(p.zb!.reward)) },
      ],
      yMin: 0,
    });
  }
  return sections;
}

/** One chart per population of its user-act distribution against the reference (DS-KL). */
function dsKlCharts(input: SimulationBuildInput, ids: IdAllocator, group: string | undefined): Section[] {
  const sections: Section[] = [];
  for (const p of input.populations) {
    if (!p.dsKl || p.dsKl.acts.length === 0) continue;
    sections.push({
      type: 'chart',
      id: ids.id('dskl', p.label),
      title:
        `User-act distribution: ${p.label} vs ${input.reference ?? 'reference'} (DS-KL ` +
        `${Number.isFinite(p.dsKl.value) ? formatFixed(p.dsKl.value) : '–'})`,
      group,
      chart: 'bar',
      categories: p.dsKl.acts,
      series: [
        { name: p.label, values: p.dsKl.p_sim.map(finiteOrNull) },
        { name: input.reference ?? 'reference', values: p.dsKl.q_real.map(finiteOrNull) },
      ],
      yLabel: 'share of user acts (smoothed)',
      yMin: 0,
    });
  }
  return sections;
}

/** One table per metric: the systems ranked by real and by simulated users. */
function rankingTables(input: SimulationBuildInput, ids: IdAllocator, group: string | undefined): Section[] {
  const sections: Section[] = [];
  for (const r of input.ranking ?? []) {
    const a = r.agreement;
    sections.push({
      type: 'table',
      id: ids.id('ranking', r.metric),
      title: `System ranking by ${r.metric}: real vs simulated users (Kendall's tau = ${Number.isFinite(a.kendall_tau) ? formatFixed(a.kendall_tau) : '–'})`,
      group,
      caption: a.same_order
        ? 'The simulated users rank the systems in the same order as the real users.'
        : 'The simulated users rank the systems differently from the real users.',
      columns: tableColumns(
        ['system', 'System', 'text'],
        ['real', 'Real users', 'fixed', 2],
        ['simulated', 'Simulated users', 'fixed', 2],
        ['real_rank', 'Real rank', 'int'],
        ['simulated_rank', 'Simulated rank', 'int'],
      ),
      rows: a.systems.map((s, i) => {
        // Equal scores share a rank (competition ranking), so ties never decide a mark.
        const rr = a.real_rank?.[i] ?? a.real_order.indexOf(s) + 1;
        const sr = a.simulated_rank?.[i] ?? a.simulated_order.indexOf(s) + 1;
        return {
          cells: [s, finiteOrNull(a.real[i]), finiteOrNull(a.simulated[i]), rr, sr],
          marks: [null, null, null, null, rr === sr ? 'pass' : 'fail'],
        };
      }),
    });
  }
  return sections;
}

/** PEPPER's preference-coverage table and its PC_t, PCIR_t and Recall@k curves. */
function pepperSections(
  input: SimulationBuildInput,
  ids: IdAllocator,
  group: string | undefined,
  withNote: (caption: string) => string,
): Section[] {
  const sections: Section[] = [];
  const pepper = input.populations.filter((p) => p.pepper && p.pepper.users > 0);
  if (pepper.length) {
    const pg = group ?? 'PEPPER';
    sections.push({
      type: 'table',
      id: ids.id('pepper-table'),
      title: 'PEPPER: preference coverage',
      group: pg,
      caption: withNote(
        "PC_t: mean share of each user's target items recommended up to turn t (top-k lists); PCIR_t = PC_t − PC_(t−1); PCIR avg = mean PCIR over turns.",
      ),
      columns: tableColumns(
        ['population', 'Population', 'text'],
        ['users', 'Users with targets', 'int'],
        ['k', 'k', 'int'],
        ['turns', 'Turns', 'int'],
        ['pc_last', 'PC at last turn', 'fixed'],
        ['pcir_avg', 'PCIR avg', 'fixed', 4],
      ),
      rows: pepper.map((p) => ({
        cells: [
          p.label,
          p.pepper!.users,
          p.pepper!.k,
          p.pepper!.turns,
          finiteOrNull(p.pepper!.pc[p.pepper!.pc.length - 1]),
          finiteOrNull(p.pepper!.pcir_avg),
        ],
      })),
    });
    sections.push(
      curveChart(
        ids,
        pg,
        'pepper-pc',
        'PC_t (preference coverage)',
        'PC_t',
        pepper.map((p) => ({ name: p.label, values: p.pepper!.pc })),
        [0, 1],
      ),
    );
    sections.push(
      curveChart(
        ids,
        pg,
        'pepper-pcir',
        'PCIR_t (coverage increase per turn)',
        'PCIR_t',
        pepper.map((p) => ({ name: p.label, values: p.pepper!.pcir })),
      ),
    );
    sections.push(
      curveChart(
        ids,
        pg,
        'pepper-recall',
        `Recall@${pepper[0].pepper!.k} per turn`,
        'Recall@k',
        pepper.map((p) => ({ name: p.label, values: p.pepper!.recall_at_k })),
        [0, 1],
      ),
    );
  }
  return sections;
}

/** Fashion-AlterEval's per-turn table and its SR@1, NDCG@10 and MRR@10 curves. */
function alterEvalSections(
  input: SimulationBuildInput,
  ids: IdAllocator,
  group: string | undefined,
  withNote: (caption: string) => string,
): Section[] {
  const sections: Section[] = [];
  const alter = input.populations.filter((p) => p.alterEval && p.alterEval.conversations > 0);
  if (alter.length) {
    const ag = group ?? 'AlterEval';
    sections.push({
      type: 'table',
      id: ids.id('altereval-table'),
      title: 'Fashion-AlterEval per turn',
      group: ag,
      caption: withNote(
        'Relevant = the target plus its alternatives ("alternatives") or the target alone ("target"); from the turn a ' +
          'relevant item is ranked first every measure counts as 1.',
      ),
      columns: tableColumns(
        ['population', 'Population', 'text'],
        ['relevant', 'Relevant', 'text'],
        ['turn', 'Turn', 'int'],
        ['sr_at_1', 'SR@1', 'fixed'],
        ['ndcg_at_10', 'NDCG@10', 'fixed'],
        ['mrr_at_10', 'MRR@10', 'fixed'],
      ),
      rows: alter.flatMap((p) =>
        p.alterEval!.sr_at_1.map((v, t) => ({
          cells: [
            p.label,
            p.alterEval!.relevant,
            t + 1,
            finiteOrNull(v),
            finiteOrNull(p.alterEval!.ndcg_at_10[t]),
            finiteOrNull(p.alterEval!.mrr_at_10[t]),
          ],
        })),
      ),
    });
    sections.push(
      curveChart(
        ids,
        ag,
        'altereval-sr1',
        'SR@1 per turn',
        'SR@1',
        alter.map((p) => ({ name: p.label, values: p.alterEval!.sr_at_1 })),
        [0, 1],
      ),
    );
    sections.push(
      curveChart(
        ids,
        ag,
        'altereval-ndcg',
        'NDCG@10 per turn',
        'NDCG@10',
        alter.map((p) => ({ name: p.label, values: p.alterEval!.ndcg_at_10 })),
        [0, 1],
      ),
    );
    sections.push(
      curveChart(
        ids,
        ag,
        'altereval-mrr',
        'MRR@10 per turn',
        'MRR@10',
        alter.map((p) => ({ name: p.label, values: p.alterEval!.mrr_at_10 })),
        [0, 1],
      ),
    );
  }
  return sections;
}

/** One table per meta-simulator: its per-turn improvement over its base. */
function improvementTables(input: SimulationBuildInput, ids: IdAllocator, group: string | undefined): Section[] {
  const sections: Section[] = [];
  for (const imp of input.improvements ?? []) {
    const x = imp.result;
    sections.push({
      type: 'table',
      id: ids.id('altereval-improvement', imp.label),
      title: `Meta-simulator improvement over its base: ${imp.label}`,
      group: group ?? 'AlterEval',
      caption:
        'Meta (alternatives relevant) minus base (target only), per turn; the last row is the relative change at the horizon.',
      columns: tableColumns(
        ['turn', 'Turn', 'text'],
        ['sr_at_1', 'Δ SR@1', 'fixed'],
        ['ndcg_at_10', 'Δ NDCG@10', 'fixed'],
        ['mrr_at_10', 'Δ MRR@10', 'fixed'],
      ),
      rows: [
        ...x.sr_at_1.map((v, t) => ({
          cells: [String(t + 1), finiteOrNull(v), finiteOrNull(x.ndcg_at_10[t]), finiteOrNull(x.mrr_at_10[t])],
        })),
        {
          cells: [
            'relative at horizon',
            finiteOrNull(x.relative_at_horizon.sr_at_1),
            finiteOrNull(x.relative_at_horizon.ndcg_at_10),
            finiteOrNull(x.relative_at_horizon.mrr_at_10),
          ],
        },
      ],
    });
  }
  return sections;
}

/** The simulation-metric sections (for embedding). */
function simulationSections(input: SimulationBuildInput, ids: IdAllocator, group?: string): Section[] {
  const sections: Section[] = [];
  const counted = input.populations.filter((p) => p.outcomes).map((p) => ({ label: p.label, counts: p.outcomes! }));
  if (counted.length) sections.push(outcomesSection(counted, ids, group));
  const note = exclusionNote(counted);
  const withNote = (caption: string) => (note ? `${caption} ${note}` : caption);
  sections.push(
    ...zhangBalogSections(input, ids, group, withNote),
    ...dsKlCharts(input, ids, group),
    ...rankingTables(input, ids, group),
    ...pepperSections(input, ids, group, withNote),
    ...alterEvalSections(input, ids, group, withNote),
    ...improvementTables(input, ids, group),
  );
  if (sections.length === (counted.length ? 1 : 0)) {
    sections.push({
      type: 'text',
      id: ids.id('simulation-empty'),
      title: 'No simulation metrics',
      group,
      paragraphs: [
        'None of the populations had what these metrics need (conversations for Zhang & Balog, target sets for PEPPER, ' +
          'targets with alternatives for AlterEval).',
      ],
      tone: 'warning',
    });
  }
  return sections;
}

/** A complete simulation-metrics report. */
export function buildSimulationReport(input: SimulationBuildInput): Report {
  const ids = new IdAllocator();
  return {
    schema: REPORT_SCHEMA,
    kind: 'simulation',
    title: input.title ?? `Simulation metrics: ${input.populations.map((p) => p.label).join(', ')}`,
    generated: input.generated ?? new Date().toISOString(),
    inputs:
      input.inputs ??
      input.populations.map((p) => ({
        label: p.label,
        file: p.label,
        n: p.outcomes?.conversations ?? p.zb?.conversations ?? 0,
      })),
    params: { ...(input.reference ? { reference: input.reference } : {}), ...input.params },
    sections: simulationSections(input, ids),
    warnings: input.warnings?.length ? input.warnings : undefined,
  };
}
