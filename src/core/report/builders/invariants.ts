/**
 * Behavioural invariants as report sections: per invariant its status, how many conversations it
 * applied to and how many violate it; then the example violations, each a row that links to the
 * conversation (and turn) in the SimLens editor. Results come from `src/core/check`.
 */
import type { CheckReport, InvariantResult, InvariantStatus } from '../../check/types';
import {
  REPORT_SCHEMA,
  type Mark,
  type Report,
  type Row,
  type Section,
  type Verdict,
  type VerdictValue,
} from '../model';
import { IdAllocator } from '../format';
import { tableColumns, type ReportBuildMeta } from './common';

/** One checked population. `input` is its index in the report's inputs (the links open that file). */
interface InvariantPopulation {
  label: string;
  input: number;
  check: CheckReport;
}

const STATUS_MARK: Record<InvariantStatus, Mark | null> = {
  pass: 'pass',
  fail: 'fail',
  tolerated: 'warn',
  'not-applicable': null,
};
const STATUS_TEXT: Record<InvariantStatus, string> = {
  pass: 'pass',
  fail: 'FAIL',
  tolerated: 'tolerated',
  'not-applicable': 'not applicable',
};

function summaryRow(r: InvariantResult, population: string | undefined): Row {
  const cells = [
    ...(population !== undefined ? [population] : []),
    r.id,
    STATUS_TEXT[r.status],
    r.statement,
    r.conversations,
    r.violations,
    r.violatingConversations,
    r.tolerance ? `≤ ${Math.round(r.tolerance.share * 1000) / 10}% of conversations: ${r.tolerance.reason}` : null,
    notCheckedText(r),
    r.source,
  ];
  const marks: (Mark | null)[] = cells.map(() => null);
  marks[(population !== undefined ? 1 : 0) + 1] = STATUS_MARK[r.status];
  marks[(population !== undefined ? 1 : 0) + 4] = r.violations > 0 ? (r.status === 'fail' ? 'fail' : 'warn') : null;
  return { cells, marks };
}

/** Why an invariant is n/a, or which parts of it were left unchecked (null when it applied in full). */
function notCheckedText(r: InvariantResult): string | null {
  const parts: string[] = [];
  if (r.status === 'not-applicable') parts.push(r.na_reason ?? 'no conversation carries the fields it needs');
  for (const u of r.unchecked ?? []) parts.push(`unchecked in ${u.conversations} conversation(s): ${u.reason}`);
  return parts.length ? parts.join('; ') : null;
}

/** One line per population: how many invariants hold, fail, are tolerated or did not apply. */
export function invariantSummary(label: string, check: CheckReport): string {
  const n = (s: InvariantStatus) => check.invariants.filter((r) => r.status === s).length;
  const parts = [`${n('pass')} hold`, `${n('fail')} fail${check.failed.length ? ` (${check.failed.join(', ')})` : ''}`];
  if (n('tolerated')) parts.push(`${n('tolerated')} within their tolerance`);
  if (n('not-applicable')) parts.push(`${n('not-applicable')} not applicable`);
  return `${label}: ${check.invariants.length} invariants on ${check.conversations} conversations: ${parts.join(', ')}.`;
}

/** The invariant sections of some populations (for embedding, e.g. in the fidelity report). */
export function invariantSections(pops: readonly InvariantPopulation[], ids: IdAllocator, group?: string): Section[] {
  const sections: Section[] = [];
  const many = pops.length > 1;
  sections.push({
    type: 'table',
    id: ids.id('invariants'),
    title: 'Behavioural invariants',
    group,
    caption:
      "Rules every simulated conversation must satisfy (from the simulators' papers and SimLens' own contracts). " +
      'Conversations: those the invariant applied to (it needs trace fields the conversation may lack); "not ' +
      'applicable" is never a pass. Violations count every violating turn; tolerated: violations within the documented share.',
    columns: [
      ...(many ? [{ key: 'population', label: 'Population', format: 'text' as const }] : []),
      // Status right after the invariant: the long statement must not push the verdict off-screen.
      ...tableColumns(
        ['invariant', 'Invariant', 'text'],
        ['status', 'Status', 'text'],
        ['statement', 'Statement', 'text'],
        ['conversations', 'Conversations', 'int'],
        ['violations', 'Violations', 'int'],
        ['violating_conversations', 'Violating conversations', 'int'],
        ['tolerance', 'Tolerance', 'text'],
        ['not_checked', 'Not checked (why)', 'text'],
        ['source', 'Source', 'text'],
      ),
    ],
    rows: pops.flatMap((p) => p.check.invariants.map((r) => summaryRow(r, many ? p.label : undefined))),
  });
  sections.push(...readbackSections(pops, ids, group));
  for (const p of pops) {
    const withViolations = p.check.invariants.filter((r) => r.violations > 0);
    if (withViolations.length === 0) {
      sections.push({
        type: 'text',
        id: ids.id('invariant-violations', p.label),
        title: many ? `Violations: ${p.label}` : 'Violations',
        group,
        paragraphs: [
          p.check.conversations
            ? `No violations in ${p.check.conversations} conversations.`
            : 'No conversations to check.',
        ],
        tone: 'info',
      });
      continue;
    }
    const shown = withViolations.reduce((n, r) => n + r.examples.length, 0);
    const total = withViolations.reduce((n, r) => n + r.violations, 0);
    sections.push({
      type: 'table',
      id: ids.id('invariant-violations', p.label),
      title: many ? `Violations: ${p.label}` : 'Violations',
      group,
      caption:
        `${shown === total ? `All ${total}` : `The first ${shown} of ${total}`} violations, the first ones of each ` +
        `invariant in file order. Open a conversation to see it at the violating turn in the SimLens editor.`,
      columns: tableColumns(
        ['invariant', 'Invariant', 'text'],
        ['conversation', 'Conversation', 'text'],
        ['turn', 'Turn', 'int'],
        ['detail', 'Detail', 'text'],
      ),
      linkColumn: 'conversation',
      rows: withViolations.flatMap((r) =>
        r.examples.map((ex): Row => {
          const link: Row['link'] = { input: p.input, conversation: ex.conversation };
          if (ex.line !== undefined) link.line = ex.line;
          if (ex.turn !== undefined) link.turn = ex.turn;
          return {
            cells: [r.id, ex.conversation, ex.turn !== undefined ? ex.turn + 1 : null, ex.detail],
            marks: [r.status === 'fail' ? 'fail' : 'warn', null, null, null],
            link,
          };
        }),
      ),
      notes: ['Turns are 1-based, as in the editor. "Turn –": the violation concerns the whole conversation.'],
    });
  }
  return sections;
}

/**
 * Self-consistency: per population the share of traced user turns whose words, read back by the
 * act tagger and value matcher, agree with the trace (per aspect), and the disagreeing turns with
 * links to the conversation at that turn.
 */
function readbackSections(pops: readonly InvariantPopulation[], ids: IdAllocator, group?: string): Section[] {
  const withRb = pops.filter((p) => p.check.readback !== undefined);
  if (!withRb.length) return [];
  const many = pops.length > 1;
  const pct = (a: number, b: number) => (b ? a / b : null);
  const sections: Section[] = [
    {
      type: 'table',
      id: ids.id('self-consistency'),
      title: 'Self-consistency: words read back against the trace',
      group,
      caption:
        `Every traced user utterance read back by an NLU that shares no code with the simulators' language generation ` +
        `(${withRb[0].check.readback!.nlu}) and compared with what its trace says the turn did: the act, the values ` +
        `said, the negations, the items referred to, the opinion. Agreement: share of the turns where the aspect could ` +
        `be read. A turn agrees when every aspect read on it agrees.`,
      columns: [
        ...(many ? [{ key: 'population', label: 'Population', format: 'text' as const }] : []),
        ...tableColumns(
          ['aspect', 'Aspect', 'text'],
          ['turns', 'Turns read', 'int'],
          ['agreed', 'Agree', 'int'],
          ['rate', 'Agreement', 'percent'],
        ),
      ],
      rows: withRb.flatMap((p) => {
        const rb = p.check.readback!;
        const rows: Row[] = [
          {
            cells: [...(many ? [p.label] : []), 'all aspects (turns)', rb.turns, rb.agreed, pct(rb.agreed, rb.turns)],
            marks: [
              ...(many ? [null] : []),
              null,
              null,
              null,
              rb.agreed < rb.turns ? 'warn' : rb.turns ? 'pass' : null,
            ],
          },
        ];
        for (const [a, v] of Object.entries(rb.aspects))
          rows.push({
            cells: [...(many ? [p.label] : []), a, v.checked, v.agreed, pct(v.agreed, v.checked)],
            marks: [...(many ? [null] : []), null, null, null, v.agreed < v.checked ? 'warn' : null],
          });
        return rows;
      }),
    },
  ];
  for (const p of withRb) {
    const rb = p.check.readback!;
    if (!rb.disagreements.length) continue;
    sections.push({
      type: 'table',
      id: ids.id('self-consistency-turns', p.label),
      title: many ? `Disagreeing turns: ${p.label}` : 'Disagreeing turns',
      group,
      caption: `${rb.disagreements.length === rb.disagreeingTurns ? 'All' : `The first ${rb.disagreements.length} disagreements of`} ${rb.disagreeingTurns} disagreeing turn(s). Open a conversation to see it at that turn in the SimLens editor.`,
      columns: tableColumns(
        ['aspect', 'Aspect', 'text'],
        ['conversation', 'Conversation', 'text'],
        ['turn', 'Turn', 'int'],
        ['detail', 'Detail', 'text'],
      ),
      linkColumn: 'conversation',
      rows: rb.disagreements.map((d): Row => {
        const link: Row['link'] = { input: p.input, conversation: d.conversation, turn: d.turn };
        if (d.line !== undefined) link.line = d.line;
        return { cells: [d.aspect, d.conversation, d.turn + 1, d.detail], marks: ['warn', null, null, null], link };
      }),
      notes: ['Turns are 1-based, as in the editor.'],
    });
  }
  return sections;
}

/** The verdict over checked populations: fail when an invariant fails, warn when one is only tolerated or nothing applied. */
export function invariantVerdict(pops: readonly InvariantPopulation[]): Verdict {
  const all = pops.flatMap((p) => p.check.invariants);
  const failed = pops.some((p) => p.check.failed.length > 0);
  const tolerated = all.some((r) => r.status === 'tolerated');
  const applied = all.some((r) => r.status !== 'not-applicable');
  const verdict: VerdictValue = failed ? 'fail' : tolerated || !applied ? 'warn' : 'pass';
  return {
    pillar: 'Behavioural invariants',
    verdict,
    detail: pops.map((p) => invariantSummary(p.label, p.check)).join(' '),
    rule: 'fail if any invariant is violated beyond its documented tolerance; warn if violations are only tolerated or no invariant applied',
  };
}

interface InvariantsBuildInput extends ReportBuildMeta {
  label: string;
  file: string;
  check: CheckReport;
}

/** A complete invariants report of one file. */
export function buildInvariantsReport(input: InvariantsBuildInput): Report {
  const ids = new IdAllocator();
  const pop: InvariantPopulation = { label: input.label, input: 0, check: input.check };
  return {
    schema: REPORT_SCHEMA,
    kind: 'invariants',
    title: input.title ?? `Behavioural invariants: ${input.label}`,
    generated: input.generated ?? new Date().toISOString(),
    inputs: input.inputs ?? [{ label: input.label, file: input.file, n: input.check.conversations }],
    params: input.params,
    verdicts: [invariantVerdict([pop])],
    sections: invariantSections([pop], ids),
    warnings: input.warnings?.length ? input.warnings : undefined,
  };
}
