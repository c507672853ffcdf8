/**
 * The diff report as Markdown (`simlens diff --md`, and the CLI's default text). Ids and keys
 * come from the files: control and bidi characters are shown as \uXXXX escapes and table pipes escaped, so
 * nothing in a file can reach a terminal raw or break a table. Turns are shown 1-based.
 * Browser-safe: no Node imports.
 */
import { formatFixed, formatP } from '../report/format';
import { escapeControl } from '../text/terminal';
import { DIALOGUE_PARTS, type DiffReport } from './model';
import { describeDivergence, partLabel } from './labels';

/** Text from a file made safe for a Markdown table cell and a terminal (escapeControl, plus line breaks, tabs and pipes). */
export function safeCell(text: string): string {
  return escapeControl(text)
    .replace(/[\n\t]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/\|/g, '\\|');
}

function pct(n: number, d: number): string {
  return d ? `${((100 * n) / d).toFixed(1)}%` : '–';
}

/** The whole report as Markdown; `maxPairs` limits the pair table (changed outcomes first). */
export function diffToMarkdown(r: DiffReport, maxPairs = 50): string {
  const g = r.aggregate;
  const L: string[] = [];
  L.push(`# Run diff: ${safeCell(r.a.file)} → ${safeCell(r.b.file)}`, '');
  L.push(
    `Paired by **${r.pairing}**: ${g.pairs} pairs of ${r.a.conversations} (A) and ${r.b.conversations} (B) conversations; ${r.unpaired.length} unpaired.`,
    '',
  );
  L.push('| | pairs | share |', '|---|---:|---:|');
  L.push(`| identical (dialogue, trace, outcome) | ${g.identical} | ${pct(g.identical, g.pairs)} |`);
  L.push(`| dialogue diverged | ${g.diverged} | ${pct(g.diverged, g.pairs)} |`);
  L.push(`| trace differs, dialogue equal | ${g.traceOnly} | ${pct(g.traceOnly, g.pairs)} |`);
  L.push(`| outcome changed | ${g.outcomeChanged} | ${pct(g.outcomeChanged, g.pairs)} |`, '');

  L.push('## Outcome A → B', '');
  const labels = [...new Set(g.transitions.flatMap((t) => [t.from, t.to]))].sort();
  if (labels.length) {
    L.push(`| A \\ B | ${labels.join(' | ')} |`, `|---|${labels.map(() => '---:').join('|')}|`);
    for (const from of labels) {
      const row = labels.map((to) => g.transitions.find((t) => t.from === from && t.to === to)?.count ?? 0);
      if (row.some((v) => v > 0)) L.push(`| **${from}** | ${row.join(' | ')} |`);
    }
    L.push('');
  }
  const s = r.success;
  L.push(
    `Acceptance: ${s.acceptedA} → ${s.acceptedB} of ${s.n} pairs with a known outcome (${pct(s.acceptedA, s.n)} → ` +
      `${pct(s.acceptedB, s.n)}); accepted in A only ${s.onlyA}, in B only ${s.onlyB}; McNemar exact p = ` +
      `${formatP(s.mcnemar.pvalue)}${s.excluded ? `; ${s.excluded} pairs left out (a failure or an unknown outcome on either side)` : ''}.`,
    '',
  );

  L.push('## Where conversations diverge', '');
  if (g.diverged) {
    L.push('| first divergent turn | pairs |', '|---:|---:|');
    g.firstTurn.forEach((c, t) => c && L.push(`| ${t + 1} | ${c} |`));
    L.push('', '| diverged first | pairs |', '|---|---:|');
    for (const part of DIALOGUE_PARTS) if (g.firstPart[part]) L.push(`| ${partLabel(part)} | ${g.firstPart[part]} |`);
    L.push('');
  } else L.push('No dialogue differs.', '');
  const fields = Object.entries(g.firstTraceFields).sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1));
  if (fields.length) {
    L.push('| trace field differing first | pairs |', '|---|---:|');
    for (const [f, c] of fields) L.push(`| ${safeCell(f)} | ${c} |`);
    L.push('');
  }

  L.push('## Paired change per feature (B − A)', '');
  L.push(
    'Largest standardised change first. Wilcoxon signed-rank as SciPy computes it; interval: seeded percentile bootstrap of the mean difference.',
    '',
  );
  L.push(
    '| feature | pairs | mean A | mean B | mean B−A | 95% CI | effect | Wilcoxon p |',
    '|---|---:|---:|---:|---:|---|---:|---:|',
  );
  const measured = r.features
    .filter((f) => f.n > 0)
    .sort((x, y) => Math.abs(y.effect) - Math.abs(x.effect) || (x.feature < y.feature ? -1 : 1));
  for (const f of measured) {
    const ci = f.ci ? `[${formatFixed(f.ci.low)}, ${formatFixed(f.ci.high)}]` : '';
    const p =
      f.wilcoxon && !Number.isNaN(f.wilcoxon.pvalue) ? `${formatP(f.wilcoxon.pvalue)} (${f.wilcoxon.method})` : '–';
    L.push(
      `| ${f.label} | ${f.n} | ${formatFixed(f.meanA)} | ${formatFixed(f.meanB)} | ${formatFixed(f.meanDiff)} | ${ci} | ${formatFixed(f.effect, 2)} | ${p} |`,
    );
  }
  const missing = r.features.filter((f) => f.n === 0).map((f) => f.label);
  if (missing.length) L.push('', `Not measured (unknown in these runs): ${missing.join(', ')}.`);
  L.push('');

  const changed = r.pairs.filter((p) => !p.identical);
  if (changed.length) {
    const order = [...changed].sort(
      (x, y) =>
        Number(y.outcomeA !== y.outcomeB) - Number(x.outcomeA !== x.outcomeB) ||
        (x.turn ?? 1e9) - (y.turn ?? 1e9) ||
        x.lineB - y.lineB,
    );
    L.push(
      `## Pairs that differ (${changed.length}${changed.length > maxPairs ? `, first ${maxPairs}: changed outcomes, then earliest divergence` : ''})`,
      '',
    );
    L.push('| A | B | outcome A → B | turns A → B | first divergence |', '|---|---|---|---:|---|');
    for (const p of order.slice(0, maxPairs)) {
      L.push(
        `| ${safeCell(p.idA)} (line ${p.lineA}) | ${safeCell(p.idB)} (line ${p.lineB}) | ${p.outcomeA} → ${p.outcomeB} ` +
          `| ${p.turnsA} → ${p.turnsB} | ${safeCell(describeDivergence(p))} |`,
      );
    }
    L.push('');
  }
  if (r.unpaired.length) {
    L.push(`## Unpaired (${r.unpaired.length})`, '', '| run | line | id | why |', '|---|---:|---|---|');
    for (const u of r.unpaired.slice(0, maxPairs))
      L.push(`| ${u.side} | ${u.line} | ${safeCell(u.id)} | ${safeCell(u.reason)} |`);
    if (r.unpaired.length > maxPairs) L.push('', `… and ${r.unpaired.length - maxPairs} more (all are in --json).`);
    L.push('');
  }
  return L.join('\n').replace(/\n*$/, '\n');
}
