// temporary: checker speed old vs new vs readback on the same conversations
import { parseSimulationConfig, prepareEnvironment, simulateConversation } from '../src/core/run/index';
import { InvariantChecker } from '../src/core/check/index';
import { ReadbackChecker } from '../src/core/check/readback';
import { INVARIANTS as BASELINE } from './baseline/invariants-v20';
import { SIMULATOR_MATRIX } from '../test/support/simulators';
import type { Conversation } from '../src/core/model';
(async () => {
  const n = Number(process.argv[2] ?? 300);
  const t = { old: 0, now: 0, rb: 0 };
  let total = 0;
  for (const { config } of SIMULATOR_MATRIX) {
    const env = await prepareEnvironment(parseSimulationConfig({ ...config, n, seed: 'speed', catalog_size: 800 }));
    const convs: Conversation[] = [];
    for (let i = 0; i < n; i++) convs.push((await simulateConversation(env, i)).conversation);
    total += n;
    const opts = { catalog: env.catalog, maxTurns: env.maxTurns, metaTolerance: env.config.tolerance ?? 2, examples: 1 };
    const best = { old: Infinity, now: Infinity, rb: Infinity };
    for (const round of [0, 1, 2, 3, 4]) {
      let a = performance.now();
      const o = new InvariantChecker({ ...opts, invariants: BASELINE });
      for (const c of convs) o.add(c);
      let b = performance.now();
      if (round) best.old = Math.min(best.old, b - a);
      a = performance.now();
      const nw = new InvariantChecker(opts);
      for (const c of convs) nw.add(c);
      b = performance.now();
      if (round) best.now = Math.min(best.now, b - a);
      a = performance.now();
      const r = new ReadbackChecker();
      for (const c of convs) r.add(c);
      b = performance.now();
      if (round) best.rb = Math.min(best.rb, b - a);
    }
    t.old += best.old;
    t.now += best.now;
    t.rb += best.rb;
  }
  console.log(`${total} conversations: old ${Math.round(total / (t.old / 1000))} conv/s, new ${Math.round(total / (t.now / 1000))} conv/s, readback ${Math.round(total / (t.rb / 1000))} conv/s`);
})();
