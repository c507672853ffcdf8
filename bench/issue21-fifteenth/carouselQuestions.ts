/**
 * Issue 21, fifteenth round: agent turns that show items AND ask about an attribute (question
 * sentences read by the users' own reader, `questionAttributes`, offers aside; the category left
 * out), and whether the user's next turn addresses an asked attribute: states a value of it
 * (`said.constraints`) or one of it it is not keen on (`said.negated`, a value of that attribute
 * among the conversation's items) or says it has no preference on it (`said.no_preference`, or a turn whose act
 * is Disclose.NonDisclose). Turns on which the user takes an item, leaves or says goodbye are
 * counted apart (they answer nothing by design).
 *
 *   npx tsx bench/issue21-fifteenth/carouselQuestions.ts RUN.jsonl [RUN.jsonl ...] [--examples N]
 *
 * Runs: node dist/cli.js simulate --user target-free [--meta tol|prob] --agent local-good|local-bad
 * --catalog-size 800 --n 1000 --seed s15tfq --out RUN.jsonl
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { questionAttributes } from '../../src/core/sim/users/phrases';
import { parseSimulationConfig, prepareEnvironment } from '../../src/core/run/index';

const ATTRIBUTES = ['type', 'colour', 'material', 'style', 'gender', 'occasion', 'price_band', 'brand'];
const ENDINGS = new Set(['Note.Accept', 'Complete.Abandon', 'Complete']);

interface Loose {
  [k: string]: unknown;
}
const args = process.argv.slice(2);
const exAt = args.indexOf('--examples');
const examples = exAt >= 0 ? Number(args[exAt + 1]) : 0;
const files = args.filter((a, i) => !a.startsWith('--') && (exAt < 0 || i !== exAt + 1));
async function main(): Promise<void> {
  // the catalog of the runs (size 800, as the language bench): what a negated value is a value of
  const env = await prepareEnvironment(
    parseSimulationConfig({ user: 'target-free', n: 1, seed: 'x', catalog_size: 800 }),
  );
  const valuesOf = new Map<string, Set<string>>(
    ATTRIBUTES.map((a) => [a, new Set(env.catalog.attributeValues(a).map(String))]),
  );
  const total = { asked: 0, ending: 0, value: 0, nopref: 0 };
  for (const f of files) {
    const c = { asked: 0, ending: 0, value: 0, nopref: 0, brand: 0, brandAnswered: 0 };
    const byAttr = new Map<string, [number, number]>();
    const missed: string[] = [];
    const kinds = new Map<string, number>();
    for (const line of readFileSync(f, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const conv = JSON.parse(line) as { id: string; turns: Loose[] };
      const turns = conv.turns;
      for (let i = 1; i < turns.length; i++) {
        const prev = turns[i - 1];
        const recs = (prev['recommendations'] as unknown[] | undefined) ?? [];
        const text = String(prev['assistant_utterance'] ?? '');
        if (recs.length === 0 || !text) continue;
        const asked = questionAttributes(text, ATTRIBUTES);
        if (asked.length === 0) continue;
        const tr = (turns[i]['trace'] ?? {}) as Loose;
        const act = String(tr['user_act'] ?? '');
        c.asked++;
        if (ENDINGS.has(act)) {
          c.ending++;
          continue;
        }
        const said = (tr['said'] ?? {}) as Loose;
        const cons = (said['constraints'] ?? {}) as Record<string, unknown>;
        const noPref = new Set(((said['no_preference'] as string[] | undefined) ?? []).map(String));
        const negated = ((said['negated'] as string[] | undefined) ?? []).map(String);
        const notKeen = (a: string) => negated.some((v) => valuesOf.get(a)?.has(v));
        const value = asked.some((a) => cons[a] !== undefined || notKeen(a));
        const none = !value && (act === 'Disclose.NonDisclose' || asked.some((a) => noPref.has(a)));
        if (value) c.value++;
        if (none) c.nopref++;
        if (asked.includes('brand')) {
          c.brand++;
          if (cons['brand'] !== undefined || noPref.has('brand')) c.brandAnswered++;
        }
        for (const a of asked) {
          const e = byAttr.get(a) ?? [0, 0];
          e[1]++;
          if (cons[a] !== undefined || notKeen(a) || noPref.has(a) || act === 'Disclose.NonDisclose') e[0]++;
          byAttr.set(a, e);
        }
        if (!value && !none) {
          // what the user's state held on the first asked attribute (snapshot of turn 0, said before)
          const snap = ((turns[0]['trace'] as Loose | undefined)?.['preferences'] ?? {}) as Loose;
          const likedAttrs = ((snap['liked_attributes'] as string[] | undefined) ?? []).map((k) => k.split('=')[0]);
          const dislikedAttrs = ((snap['disliked_attributes'] as string[] | undefined) ?? []).map(
            (k) => k.split('=')[0],
          );
          const saidBefore = new Set<string>();
          for (let j = 0; j < i; j++) {
            const s = ((turns[j]['trace'] as Loose | undefined)?.['said'] ?? {}) as Loose;
            for (const k of Object.keys((s['constraints'] ?? {}) as object)) saidBefore.add(k);
          }
          const a = asked[0];
          const kind = saidBefore.has(a)
            ? 'said before'
            : likedAttrs.includes(a)
              ? 'a general like, unsaid'
              : dislikedAttrs.includes(a)
                ? 'a general dislike only'
                : 'no taste';
          kinds.set(`${act} / ${kind}`, (kinds.get(`${act} / ${kind}`) ?? 0) + 1);
        }
        if (!value && !none && missed.length < examples)
          missed.push(
            `${conv.id} t${i} [${asked.join(',')}] ${act}\n    A: ${text}\n    U: ${String(turns[i]['user_utterance'])}`,
          );
      }
    }
    const open = c.asked - c.ending;
    const pct = (a: number, b: number) => (b ? ((100 * a) / b).toFixed(1) : '-');
    console.log(
      `${basename(f)}: asked beside a carousel ${c.asked} (user accepts/leaves ${c.ending}); of the other ${open}: answered ${c.value + c.nopref} (${pct(c.value + c.nopref, open)} %; value ${c.value}, no preference ${c.nopref}); brand asked ${c.brand}, answered ${c.brandAnswered}`,
    );
    console.log(
      '    per attribute (answered/asked): ' +
        [...byAttr]
          .sort((a, b) => b[1][1] - a[1][1])
          .map(([a, [x, n]]) => `${a} ${x}/${n}`)
          .join(', '),
    );
    if (process.env.KINDS)
      for (const [k, n] of [...kinds].sort((x, y) => y[1] - x[1]).slice(0, 14)) console.log(`    ${n} ${k}`);
    for (const m of missed) console.log('  ' + m);
    total.asked += c.asked;
    total.ending += c.ending;
    total.value += c.value;
    total.nopref += c.nopref;
  }
  if (files.length > 1) {
    const open = total.asked - total.ending;
    console.log(
      `all: asked ${total.asked}, accepts/leaves ${total.ending}, answered ${total.value + total.nopref} of ${open} (${((100 * (total.value + total.nopref)) / open).toFixed(1)} %)`,
    );
  }
}
void main();
