// Side-by-side speed: per simulated turn, old tree vs new tree (argv[2] = tree root).
const root = process.argv[2];
(async () => {
  const { parseSimulationConfig, prepareEnvironment, simulateConversation } = await import(`${root}/src/core/run/index`);
  const configs: any[] = [
    { user: 'agenda', interaction: 'cir6', preferences: 'pkg', agent: 'local-good' },
    { user: 'agenda', interaction: 'qrfa', preferences: 'single', agent: 'local-bad' },
    { user: 'agenda', interaction: 'cir6', preferences: 'single', meta: 'prob', agent: 'local-good' },
    { user: 'target-free', agent: 'local-good' },
    { user: 'target-free', agent: 'local-bad' },
    { user: 'target-free', meta: 'tol', agent: 'local-bad' },
  ];
  const n = Number(process.argv[3] ?? 300);
  let turns = 0;
  let cpu = 0;
  for (const c of configs) {
    const env = await prepareEnvironment(parseSimulationConfig({ ...c, n, seed: 'speed-21b', catalog_size: 3000 }));
    for (let i = 0; i < 20; i++) await simulateConversation(env, 100000 + i); // warm-up
    const t0 = process.cpuUsage();
    for (let i = 0; i < n; i++) turns += (await simulateConversation(env, i)).conversation.turns.length;
    const d = process.cpuUsage(t0);
    cpu += (d.user + d.system) / 1000;
  }
  console.log(JSON.stringify({ root, turns, cpuMs: Math.round(cpu), usPerTurn: Math.round((1000 * cpu) / turns) }));
})();
