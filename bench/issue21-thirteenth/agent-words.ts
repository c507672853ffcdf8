/**
 * Issue 21, class 13, recommender side (thirteenth round): what is thin in the local agents'
 * words. Simulates `--n` conversations of one configuration (`--only`, a substring of a
 * SIMULATOR_MATRIX name; seed `--seed`), takes the agent utterances as the language bench does
 * (the first N = 6,632 tokens), and prints: TTR@N, the most frequent word types and their share
 * of tokens, the share of agent turns each frequent word is in, the most frequent 3- and 4-grams,
 * distinct forms per reported act, and `--show K` sample turns (user, agent, acts).
 *
 *   npx tsx bench/issue21-thirteenth/agent-words.ts --only "cir6-single vs local-good" --n 60
 */
import { parseSimulationConfig, prepareEnvironment, simulateConversation } from '../../src/core/run/index';
import { SIMULATOR_MATRIX } from '../../test/support/simulators';
import { tokens } from '../language';

const args = process.argv.slice(2);
const arg = (name: string, dflt: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const N = 6632;

async function main() {
  const only = arg('--only', 'cir6-single vs local-good');
  const n = Number(arg('--n', '60'));
  const seed = arg('--seed', 'language-s13');
  const show = Number(arg('--show', '0'));
  const cell = SIMULATOR_MATRIX.find((c) => c.name.includes(only));
  if (!cell) throw new Error(`no configuration matches ${only}`);
  const env = await prepareEnvironment(parseSimulationConfig({ ...cell.config, n, seed, catalog_size: 800 }));
  const turns: { user: string; agent: string; acts: string[] }[] = [];
  let shown = 0;
  for (let i = 0; i < n; i++) {
    const c = (await simulateConversation(env, i)).conversation;
    for (const t of c.turns) {
      if (t.assistant_utterance === undefined) continue;
      const acts = (t.annotations ?? []).find((a) => a.speaker === 'assistant')?.acts ?? [];
      turns.push({ user: t.user_utterance ?? '', agent: t.assistant_utterance, acts });
    }
    if (shown < show) {
      shown++;
      console.log(`\n--- conversation ${i}`);
      for (const t of c.turns) {
        if (t.user_utterance !== undefined) console.log(`U [${t.trace?.user_act ?? ''}]: ${t.user_utterance}`);
        if (t.assistant_utterance !== undefined) {
          const acts = (t.annotations ?? []).find((a) => a.speaker === 'assistant')?.acts ?? [];
          const recs = (t.recommendations ?? []).slice(0, 2).map((r) => r.title);
          console.log(`A [${acts.join(',')}] ${recs.length ? `{${recs.join(' | ')}}` : ''}: ${t.assistant_utterance}`);
        }
      }
    }
  }
  // the window: the first N tokens
  const all: string[] = [];
  const inWindow: typeof turns = [];
  for (const t of turns) {
    if (all.length >= N) break;
    all.push(...tokens(t.agent));
    inWindow.push(t);
  }
  const win = all.slice(0, N);
  const count = new Map<string, number>();
  for (const w of win) count.set(w, (count.get(w) ?? 0) + 1);
  const types = count.size;
  console.log(
    `\n${cell.name}: ${inWindow.length} agent turns in the window, TTR@${N} ${(types / win.length).toFixed(3)} (${types} types), words/utt ${(all.length / inWindow.length).toFixed(1)}`,
  );
  const sorted = [...count].sort((a, b) => b[1] - a[1]);
  // where the window's words come from: the catalog's items (titles, features, values, categories) or the frames
  const catalogWords = new Set<string>();
  for (const it of env.catalog.items) {
    for (const w of tokens(it.title)) catalogWords.add(w);
    for (const f of it.features) for (const w of tokens(f)) catalogWords.add(w);
    for (const v of Object.values(it.attributes)) for (const w of tokens(String(v))) catalogWords.add(w);
    for (const w of tokens(it.category)) catalogWords.add(w);
  }
  const fromCatalog = sorted.filter(([w]) => catalogWords.has(w));
  console.log(
    `catalog words: ${fromCatalog.length} types, ${fromCatalog.reduce((s, [, c]) => s + c, 0)} tokens; other words: ${types - fromCatalog.length} types, ${win.length - fromCatalog.reduce((s, [, c]) => s + c, 0)} tokens (catalog vocabulary ${catalogWords.size})`,
  );
  const top50 = sorted.slice(0, 50).reduce((s, [, c]) => s + c, 0);
  console.log(
    `top 50 types: ${((100 * top50) / win.length).toFixed(1)} % of tokens; hapax ${sorted.filter(([, c]) => c === 1).length}`,
  );
  const turnShare = (w: string) => inWindow.filter((t) => tokens(t.agent).includes(w)).length / inWindow.length;
  console.log(
    sorted
      .slice(0, 80)
      .map(([w, c]) => `${w} ${c} (${(100 * turnShare(w)).toFixed(0)}%)`)
      .join(', '),
  );
  for (const k of [3, 4]) {
    const grams = new Map<string, number>();
    for (const t of inWindow) {
      const tk = tokens(t.agent);
      for (let i = 0; i + k <= tk.length; i++) {
        const g = tk.slice(i, i + k).join(' ');
        grams.set(g, (grams.get(g) ?? 0) + 1);
      }
    }
    console.log(
      `\ntop ${k}-grams: ${[...grams]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 30)
        .map(([g, c]) => `"${g}" ${c}`)
        .join(', ')}`,
    );
  }
  const byAct = new Map<string, Set<string>>();
  const byActN = new Map<string, number>();
  for (const t of inWindow) {
    const k = t.acts.join('+');
    if (!byAct.has(k)) byAct.set(k, new Set());
    byAct.get(k)!.add(t.agent);
    byActN.set(k, (byActN.get(k) ?? 0) + 1);
  }
  console.log('\nacts: turns / distinct texts / tokens share');
  for (const [k, s] of [...byAct].sort((a, b) => byActN.get(b[0])! - byActN.get(a[0])!)) {
    const toks = inWindow.filter((t) => t.acts.join('+') === k).reduce((a, t) => a + tokens(t.agent).length, 0);
    console.log(`  ${k}: ${byActN.get(k)} / ${s.size} / ${((100 * toks) / all.length).toFixed(0)} %`);
  }
}

void main();
