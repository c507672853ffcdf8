/**
 * The agent turns whose act the users' built-in agent-act tagger (src/core/sim/users/nlu.ts) read
 * right before and wrong after a rewording: same seed and configuration in two runs (the agents'
 * decisions do not depend on their words), turns paired by conversation id and turn index where
 * both report the same acts. Prints the counts and up to 40 of the new utterances read wrong.
 * usage: npx tsx bench/issue21-tenth/tagger-diff.ts BEFORE.sim.jsonl AFTER.sim.jsonl
 */
import { readFileSync } from 'node:fs';
import { agentActClassifier } from '../../src/core/sim/users/nlu';
import { agentActToZhangBalog } from '../../src/core/taxonomy/acts';

interface Turn {
  assistant_utterance?: string;
  annotations?: { speaker: string; acts: string[] }[];
}
const read = (f: string) =>
  new Map(
    readFileSync(f, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const c = JSON.parse(l) as { id: string; turns: Turn[] };
        return [c.id, c.turns] as const;
      }),
  );
const tagger = agentActClassifier();
const acts = (t: Turn) => (t.annotations ?? []).filter((a) => a.speaker === 'assistant').flatMap((a) => a.acts);
const [before, after] = [read(process.argv[2]), read(process.argv[3])];
let pairs = 0;
let rightBefore = 0;
let rightAfter = 0;
const lost: string[] = [];
for (const [id, tb] of before) {
  const ta = after.get(id);
  if (!ta) continue;
  for (let i = 0; i < Math.min(tb.length, ta.length); i++) {
    const ab = acts(tb[i]);
    if (!ab.length || ab.join() !== acts(ta[i]).join()) continue;
    const main = agentActToZhangBalog(ab[0]);
    const okB = tagger.predict(tb[i].assistant_utterance ?? '').label === main;
    const la = tagger.predict(ta[i].assistant_utterance ?? '').label;
    pairs++;
    rightBefore += +okB;
    rightAfter += +(la === main);
    if (okB && la !== main)
      lost.push(`${main} read ${la}: ${ta[i].assistant_utterance}  [was: ${tb[i].assistant_utterance}]`);
  }
}
console.log(`${pairs} paired agent turns; tagger = main act ${rightBefore} -> ${rightAfter}; lost ${lost.length}`);
for (const l of lost.slice(0, 40)) console.log(`  ${l}`);
