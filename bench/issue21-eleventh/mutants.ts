/**
 * Writes the mutants of a run (every operator of src/core/check/mutate.ts on each of the first N
 * conversations it fits), one conversation per line, so that `simlens check` reports on runs full
 * of violations can be compared byte for byte between two builds of the checker.
 *
 *   npx tsx bench/issue21-eleventh/mutants.ts RUN.jsonl OUT.jsonl [N]
 *
 * No catalog is given to the operators (those needing one skip), seed `mutants-eleventh`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { MUTATION_OPERATORS } from '../../src/core/check/mutate';
import { createRng } from '../../src/core/random';
import type { Conversation } from '../../src/core/model';

const [input, output, nArg] = process.argv.slice(2);
const n = Number(nArg ?? 40);
const convs = readFileSync(input, 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .slice(0, n)
  .map((l) => JSON.parse(l) as Conversation);
const lines: string[] = [];
convs.forEach((conv, k) => {
  for (const op of MUTATION_OPERATORS) {
    const m = op.apply(conv, createRng(`mutants-eleventh/${op.id}/${k}`), {});
    if (m) lines.push(JSON.stringify({ ...m.conversation, id: `${conv.id ?? k}~${op.id}` }));
  }
});
writeFileSync(output, lines.join('\n') + '\n');
console.log(`${lines.length} mutants of ${convs.length} conversations -> ${output}`);
