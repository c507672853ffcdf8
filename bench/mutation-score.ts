/**
 * Mutation score of the invariant checker (src/core/check/mutate.ts) on generated conversations of
 * every non-LLM simulator configuration: per invariant, the share of applicable mutants caught with
 * the right invariant and turn, for the current checker and the frozen 20-invariant checker of
 * before issue 22 (bench/baseline/invariants-v20.ts), side by side.
 *
 * Used by the invariants bench (bench/invariants.ts, `--mutants K` conversations per configuration).
 */
import { parseSimulationConfig, prepareEnvironment, simulateConversation } from '../src/core/run/index';
import { mutationScore, type MutationScore } from '../src/core/check/mutate';
import { INVARIANTS as BASELINE } from './baseline/invariants-v20';
import { SIMULATOR_MATRIX } from '../test/support/simulators';
import type { Conversation } from '../src/core/model';

export interface ScoreRow {
  invariant: string;
  before: [number, number];
  after: [number, number];
}

export async function mutationTable(
  n: number,
  log: (s: string) => void = () => {},
): Promise<{ rows: ScoreRow[]; conversations: number; missed: string[] }> {
  const totals = new Map<string, ScoreRow>();
  const missed: string[] = [];
  let conversations = 0;
  for (const { config, name } of SIMULATOR_MATRIX) {
    const env = await prepareEnvironment(
      parseSimulationConfig({ ...config, n, seed: 'mutation-bench', catalog_size: 800 }),
    );
    const convs: Conversation[] = [];
    for (let i = 0; i < n; i++) convs.push((await simulateConversation(env, i)).conversation);
    conversations += n;
    const ctx = { catalog: env.catalog, maxTurns: env.maxTurns, metaTolerance: env.config.tolerance ?? 2 };
    const add = (s: MutationScore, which: 'before' | 'after') => {
      for (const r of s.invariants) {
        let row = totals.get(r.invariant);
        if (!row) totals.set(r.invariant, (row = { invariant: r.invariant, before: [0, 0], after: [0, 0] }));
        row[which][0] += r.applicable;
        row[which][1] += r.caught;
        if (which === 'after') missed.push(...r.missed.slice(0, 2).map((m) => `${name}: ${m}`));
      }
    };
    add(mutationScore(convs, { ...ctx, invariants: BASELINE }), 'before');
    add(mutationScore(convs, ctx), 'after');
    log(`${name}: done`);
  }
  return { rows: [...totals.values()], conversations, missed };
}

function pct(x: [number, number]): string {
  return x[0] ? `${((100 * x[1]) / x[0]).toFixed(1)} % (${x[1]}/${x[0]})` : 'n/a';
}

export function formatTable(rows: readonly ScoreRow[]): string {
  const lines = ['| invariant | before (20 invariants) | after |', '|---|---|---|'];
  for (const r of rows) lines.push(`| ${r.invariant} | ${pct(r.before)} | ${pct(r.after)} |`);
  const sum = (w: 'before' | 'after'): [number, number] =>
    rows.reduce<[number, number]>((a, r) => [a[0] + r[w][0], a[1] + r[w][1]], [0, 0]);
  lines.push(`| all | ${pct(sum('before'))} | ${pct(sum('after'))} |`);
  return lines.join('\n');
}
