/**
 * The "Outcomes" table: per population, user outcomes as shares of the conversations without
 * failures, and failures as counts (agent errors, other failures, one column per reason that
 * occurred). Counts come from `countOutcomes` (../outcomes.ts).
 */
import { finiteOrNull, type Column, type TableSection } from '../model';
import { tableColumns } from './common';
import type { IdAllocator } from '../format';
import { describeUnknown, failedCount, reasonsIn, userOutcomeShare, type OutcomeCounts } from '../outcomes';

interface OutcomeRow {
  label: string;
  counts: OutcomeCounts;
}

/** The sentence every caption about user-behaviour metrics adds when some conversations failed. */
export function exclusionNote(rows: readonly OutcomeRow[]): string | undefined {
  const failed = rows.reduce((n, r) => n + failedCount(r.counts), 0);
  if (failed === 0) return undefined;
  const total = rows.reduce((n, r) => n + r.counts.conversations, 0);
  return (
    `Failed conversations (${failed} of ${total}: recommender errors and other run failures) are excluded: these ` +
    `metrics describe user behaviour (see Outcomes).`
  );
}

/** The Outcomes table of some populations. */
export function outcomesSection(rows: readonly OutcomeRow[], ids: IdAllocator, group?: string): TableSection {
  const reasons = reasonsIn(rows.map((r) => r.counts));
  const unknown = rows.filter((r) => describeUnknown(r.counts) !== undefined);
  const columns: Column[] = [
    ...tableColumns(
      ['population', 'Population', 'text'],
      ['conversations', 'Conversations', 'int'],
      ['without_failures', 'Without failures', 'int'],
      ['accepted', 'Accepted', 'percent'],
      ['ended', 'Ended', 'percent'],
      ['gave_up', 'Gave up', 'percent'],
      ['abandoned', 'Abandoned', 'percent'],
    ),
    ...(unknown.length ? tableColumns(['outcome_unknown', 'Outcome unknown', 'int']) : []),
    ...tableColumns(['agent_errors', 'Agent errors', 'int'], ['other_failures', 'Other failures', 'int']),
    ...reasons.map((r): Column => ({ key: `failed_${r}`, label: r, format: 'int' })),
  ];
  return {
    type: 'table',
    id: ids.id('outcomes'),
    title: 'Outcomes',
    group,
    caption:
      'Accepted, ended, gave up and abandoned are user outcomes (gave up: left unserved with patience left; ' +
      'abandoned: patience ran out): shares of the conversations without failures' +
      (unknown.length
        ? ` that report an outcome (${unknown.map((r) => `${r.label}: ${describeUnknown(r.counts)}`).join('; ')}; a ` +
          `conversation with no outcome, rating or trace is counted apart, never as ended)`
        : '') +
      '. Failures are counted apart and never as a user outcome: agent errors (the recommender failed: HTTP error, ' +
      'timeout, malformed answer, LLM failure) and other failures (simulated user, simulator)' +
      (reasons.length ? ', with one column per failure reason.' : '.'),
    columns,
    rows: rows.map((r) => {
      const c = r.counts;
      return {
        cells: [
          r.label,
          c.conversations,
          c.completed,
          finiteOrNull(userOutcomeShare(c, 'accepted')),
          finiteOrNull(userOutcomeShare(c, 'ended')),
          finiteOrNull(userOutcomeShare(c, 'gave_up')),
          finiteOrNull(userOutcomeShare(c, 'abandoned')),
          ...(unknown.length ? [c.unknown ?? 0] : []),
          c.agentErrors,
          c.otherFailures,
          ...reasons.map((k) => c.byReason[k] ?? 0),
        ],
        marks: [
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          ...(unknown.length ? [(c.unknown ?? 0) > 0 ? ('warn' as const) : null] : []),
          c.agentErrors > 0 ? 'fail' : null,
          c.otherFailures > 0 ? 'fail' : null,
          ...reasons.map(() => null),
        ],
      };
    }),
  };
}
