/**
 * External simulator protocol overhead (`npm run bench -- external-simulator`): the built-in agenda
 * user against local-good, once in-process and once behind the simlens-sim/1.1 protocol over stdio
 * (the same user code served by examples/ts/simlensAdapter.ts in a child process:
 * `node dist/bench.js --protocol-user`), same configuration, concurrency 1, the same conversations
 * turn for turn (checked). The overhead per turn is the difference of wall time per user turn, both
 * sides warm: the first run of each is a warm-up (shown, not counted: the simulator process is new
 * and its JIT compiles the user's code then); the process is kept for the counted runs, which
 * alternate. Then turn-sized round trips through an echo simulator behind the TypeScript and the
 * Python adapter (bench/echo_user.py) give the protocol's cost of a turn with no simulator work.
 * `-- --n N --repeats R` (default 3,000 conversations, median of 5; `--quick`: 1 repetition).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { runSimulation } from '../src/core/run/orchestrator';
import { parseSimulationConfig, prepareEnvironment, type SimulationEnvironment } from '../src/core/run/config';
import { createRng } from '../src/core/random';
import { serve, type UserTurn } from '../examples/ts/simlensAdapter';
import type { UserTurn as CoreUserTurn, UserSession, UserSimulator } from '../src/core/sim/types';
import type { Conversation } from '../src/core/model';
import { UserTurnFields, UserTurnResult, type RespondParams } from '../src/core/sim/users/external/protocol';
import { fastParse } from '../src/core/sim/users/external/fastParse';
import { StdioConnection, spinBudgetUs } from '../src/core/sim/users/external/connection';
import { FrameDecoder, encodeFrame } from '../src/core/sim/users/external/framing';
import { withItemRefs, type ExternalUserSimulator } from '../src/core/sim/users/external/simulator';
import { breakdown, instrumentHost, instrumentSimulator, simulatorStamps } from './externalTiming';

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux); NaN elsewhere. */
function processCpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return Number.NaN;
  }
}

const CATALOG_SIZE = 2000;

function asTurn(u: CoreUserTurn): UserTurn {
  const t: UserTurn = {
    utterance: u.utterance === '' && !u.done ? '…' : u.utterance,
    acts: [u.act || 'Complete'],
    trace: u.trace as Record<string, unknown>,
  };
  if (u.done) {
    t.done = true;
    t.outcome = u.outcome === 'accepted' || u.outcome === 'abandoned' || u.outcome === 'gave_up' ? u.outcome : 'ended';
  }
  return t;
}

/** `node dist/bench.js --protocol-user`: the built-in agenda user behind the protocol. */
export async function serveBuiltIn(): Promise<void> {
  const env = await prepareEnvironment(
    parseSimulationConfig({ user: 'agenda', agent: 'local-good', n: 1, catalog_size: CATALOG_SIZE }),
  );
  const timingFile = process.env.SIMLENS_BENCH_TIMING;
  let timed: <T>(f: () => Promise<T>) => Promise<T> = (f) => f();
  serve(
    () => {
      let session: UserSession;
      return {
        start: (p) =>
          timed(async () => {
            session = env.user.createSession(p.session, createRng(`bench/${p.seed}`), { task: p.task });
            return asTurn(await session.start());
          }),
        respond: (p) =>
          timed(async () =>
            asTurn(
              await session.respond({
                utterance: p.utterance,
                recommendations: p.recommendations as never,
                acts: p.acts,
              }),
            ),
          ),
      };
    },
    { name: 'builtin-agenda-over-protocol', version: '1' },
  );
  if (timingFile) timed = instrumentSimulator(timingFile).wrap;
}

/**
 * `node dist/bench.js --protocol-echo`: answers at once with the turn it was given in `start`
 * (`profile.turn`, else a two-word turn): a round trip with no simulator work, at the size of a
 * real turn when the bench sends one. bench/echo_user.py is the same simulator behind the Python adapter.
 */
export function serveEcho(): void {
  serve(
    () => {
      let turn: UserTurn = { utterance: 'ok', acts: ['Disclose'] };
      return {
        start: (p) => {
          const given = (p.profile as { turn?: UserTurn } | undefined)?.turn;
          if (given) turn = given;
          return turn;
        },
        respond: () => turn,
      };
    },
    { name: 'echo', version: '1' },
  );
}

function readRun(file: string): Conversation[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Conversation);
}

function turnsIn(file: string): number {
  return readRun(file).reduce((n, c) => n + c.turns.length, 0);
}

/** 16 MB touched before a step evicts the user's data and code from the core's L1 and L2 caches (2 MB of L2 per core here). */
const EVICT = new Uint8Array(16 << 20);
function evictCaches(): void {
  for (let i = 0; i < EVICT.length; i += 64) EVICT[i]++;
}

/**
 * The built-in user as the protocol user sees it: the same session seed (drawn as ExternalUserSession
 * draws it) and the same random stream, so both runs hold the same conversations turn for turn.
 * With `steps`, each step's time is pushed there; `before` 'json' hands the step the recommender's
 * answer copied through JSON (objects of the shapes the simulator process gets), 'evict' evicts the
 * caches first (as a process that slept while others ran finds them).
 */
function sameSeedUser(user: UserSimulator, steps?: number[], before?: 'json' | 'evict'): UserSimulator {
  return {
    name: user.name,
    createSession: (id, rng, context) => {
      const session = user.createSession(id, createRng(`bench/${rng.int(0x7fffffff)}`), context);
      if (!steps) return session;
      const timed = async (f: () => Promise<CoreUserTurn>) => {
        const t = process.hrtime.bigint();
        const r = await f();
        steps.push(Number(process.hrtime.bigint() - t) / 1000);
        return r;
      };
      const wrapped: UserSession = {
        start: () => timed(() => session.start()),
        respond: (a) => {
          // As the simulator process gets it: objects made by JSON.parse (other hidden classes).
          const given = before === 'json' ? (JSON.parse(JSON.stringify(a)) as typeof a) : a;
          if (before === 'evict') evictCaches();
          return timed(() => session.respond(given));
        },
      };
      if (session.close) wrapped.close = () => session.close!();
      return wrapped;
    },
  };
}

/** The user utterances of each conversation, in order (to check that both runs hold the same conversations). */
function userSide(file: string): string[] {
  return readRun(file).map((c) => JSON.stringify(c.turns.map((t) => t.user_utterance ?? null)));
}

const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];

/**
 * Round trip of a turn-sized message through an echo simulator (TypeScript or Python adapter):
 * the recorded `respond` params of a run (carousel with item references, as SimLens sends them) out,
 * a recorded user turn (utterance, acts, trace) back, framed, parsed and validated as SimLens does.
 * No simulator work: the wall time is the protocol's cost of a turn on its own.
 */
async function echoRoundTrip(
  command: string,
  turn: UserTurn,
  requests: RespondParams[],
  trips: number,
): Promise<{ wallMs: number; cpuMs: number }> {
  const conn = new StdioConnection(command);
  await conn.request('initialize', {}, 30_000);
  await conn.request('start', { session: 'w', seed: 1, index: 0, profile: { turn } }, 10_000);
  // Warm-up (JIT on both sides), not counted; the item references stay valid (items go in full first).
  for (let i = 0; i < Math.min(trips, requests.length); i++) await conn.request('respond', requests[i], 10_000);
  const cpu = process.cpuUsage();
  const childBefore = processCpuMs(conn.pid!);
  const t = performance.now();
  for (let i = 0; i < trips; i++) {
    const raw = await conn.request('respond', requests[i % requests.length], 10_000);
    if (!UserTurnResult.safeParse(raw).success) throw new Error('the echo simulator answered an invalid turn');
  }
  const wallMs = (performance.now() - t) / trips;
  const used = process.cpuUsage(cpu);
  const cpuMs = ((used.user + used.system) / 1000 + processCpuMs(conn.pid!) - childBefore) / trips;
  await conn.close();
  return { wallMs, cpuMs };
}

export async function run(args: string[] = []): Promise<void> {
  const nIndex = args.indexOf('--n');
  const n = nIndex >= 0 ? Number(args[nIndex + 1]) : 3000;
  const rIndex = args.indexOf('--repeats');
  const repeats = rIndex >= 0 ? Number(args[rIndex + 1]) : args.includes('--quick') ? 1 : 5;
  const dir = mkdtempSync(join(tmpdir(), 'simlens-bench-ext-'));
  const self = process.argv[1];
  console.log(
    `external simulator protocol: ${n} conversations per run, agenda (CIR6, PKG) vs local-good, concurrency 1, median of ${repeats}; load ${loadavg()[0].toFixed(2)}`,
  );
  const config = (user: string) =>
    parseSimulationConfig({ user, agent: 'local-good', n, seed: 'bench', catalog_size: CATALOG_SIZE });
  const builtinEnv = await prepareEnvironment(config('agenda'));
  const plainUser = builtinEnv.user;
  builtinEnv.user = sameSeedUser(plainUser);
  const externalSpec = `exec:${process.execPath} ${self} --protocol-user`;
  const externalEnv = await prepareEnvironment(config(externalSpec));
  // The same simulator without polling (SIMLENS_SPIN_US=0 for this connection and its process):
  // what "poll, then wait" (docs/protocol.md, Latency) saves, on the same conversations.
  const spinUs = spinBudgetUs();
  const setSpin = process.env.SIMLENS_SPIN_US;
  process.env.SIMLENS_SPIN_US = '0';
  const noPollEnv = await prepareEnvironment(config(externalSpec));
  if (setSpin === undefined) delete process.env.SIMLENS_SPIN_US;
  else process.env.SIMLENS_SPIN_US = setSpin;
  const pidsOf = new Map<SimulationEnvironment, number[]>(
    [externalEnv, noPollEnv].map((env) => [env, (env.user as Partial<ExternalUserSimulator>).pids?.() ?? []]),
  );
  // Wall time per turn, and CPU time per turn of both processes (SimLens + the simulator after its
  // start-up): on a shared machine wall time mostly measures waiting for a core, CPU time the work.
  const perTurn = async (
    env: SimulationEnvironment,
    out: string,
  ): Promise<{ msPerTurn: number; cpuPerTurn: number; childCpuPerTurn: number; turns: number; wallMs: number }> => {
    rmSync(out, { force: true });
    const pids = pidsOf.get(env) ?? [];
    const childBefore = pids.reduce((a, p) => a + processCpuMs(p), 0);
    const cpu = process.cpuUsage();
    const t = performance.now();
    await runSimulation(env.config, { out, concurrency: 1, maxConsecutiveFailures: 0, environment: env });
    const wallMs = performance.now() - t;
    const used = process.cpuUsage(cpu);
    const childMs = pids.reduce((a, p) => a + processCpuMs(p), 0) - childBefore;
    const turns = turnsIn(out);
    return {
      msPerTurn: wallMs / turns,
      cpuPerTurn: ((used.user + used.system) / 1000 + childMs) / turns,
      childCpuPerTurn: childMs / turns,
      turns,
      wallMs,
    };
  };
  const outB = join(dir, 'builtin.jsonl');
  const outE = join(dir, 'external.jsonl');
  // The first run of each is the warm-up (the simulator process is new: its JIT compiles the user's
  // code during that run, as SimLens' own did before); it is shown, not counted.
  const coldB = await perTurn(builtinEnv, outB);
  const coldE = await perTurn(externalEnv, outE);
  const outN = join(dir, 'external-no-poll.jsonl');
  await perTurn(noPollEnv, outN);
  const a = userSide(outB);
  const b = userSide(outE);
  const c = userSide(outN);
  const differ =
    a.filter((x, i) => x !== b[i] || x !== c[i]).length + Math.abs(a.length - b.length) + Math.abs(a.length - c.length);
  console.log(
    `  warm-up (fresh simulator process): built-in ${coldB.msPerTurn.toFixed(4)} ms/turn, over stdio ${coldE.msPerTurn.toFixed(4)} ms/turn, overhead ${(coldE.msPerTurn - coldB.msPerTurn).toFixed(4)} ms/turn; CPU overhead ${(coldE.cpuPerTurn - coldB.cpuPerTurn).toFixed(4)}; ${coldB.turns} vs ${coldE.turns} turns, ${differ} of ${a.length} conversations differ in what the user says`,
  );
  if (differ > 0) throw new Error('the in-process and the protocol runs hold different conversations');
  const rows: { builtin: number; external: number; cpuB: number; cpuE: number; noPoll: number; cpuN: number }[] = [];
  const polls = () => (externalEnv.user as Partial<ExternalUserSimulator>).pollStats?.() ?? { polled: 0, caught: 0 };
  const pollsBefore = polls();
  for (let r = 0; r < repeats; r++) {
    const bRun = await perTurn(builtinEnv, outB);
    const eRun = await perTurn(externalEnv, outE);
    const nRun = await perTurn(noPollEnv, outN);
    rows.push({
      builtin: bRun.msPerTurn,
      external: eRun.msPerTurn,
      cpuB: bRun.cpuPerTurn,
      cpuE: eRun.cpuPerTurn,
      noPoll: nRun.msPerTurn,
      cpuN: nRun.cpuPerTurn,
    });
    console.log(
      `  #${r + 1} (load ${loadavg()[0].toFixed(1)}): built-in ${bRun.msPerTurn.toFixed(4)} ms/turn (${bRun.turns} turns, ${(bRun.wallMs / 1000).toFixed(1)} s), over stdio ${eRun.msPerTurn.toFixed(4)} ms/turn (${eRun.turns} turns, ${(eRun.wallMs / 1000).toFixed(1)} s), overhead ${(eRun.msPerTurn - bRun.msPerTurn).toFixed(4)} ms/turn; CPU ${bRun.cpuPerTurn.toFixed(4)} vs ${eRun.cpuPerTurn.toFixed(4)} ms/turn, overhead ${(eRun.cpuPerTurn - bRun.cpuPerTurn).toFixed(4)} (SimLens ${(eRun.cpuPerTurn - eRun.childCpuPerTurn).toFixed(4)} + simulator ${eRun.childCpuPerTurn.toFixed(4)}); without polling ${nRun.msPerTurn.toFixed(4)} ms/turn, overhead ${(nRun.msPerTurn - bRun.msPerTurn).toFixed(4)}, CPU overhead ${(nRun.cpuPerTurn - bRun.cpuPerTurn).toFixed(4)}`,
    );
  }
  const pollsAfter = polls();
  await externalEnv.user.dispose?.();
  await noPollEnv.user.dispose?.();
  const cpuOverhead = median(rows.map((r) => r.cpuE - r.cpuB));
  const overhead = median(rows.map((r) => r.external - r.builtin));
  const noPollOverhead = median(rows.map((r) => r.noPoll - r.builtin));
  const noPollCpuOverhead = median(rows.map((r) => r.cpuN - r.cpuB));
  console.log(
    `  polling (SIMLENS_SPIN_US ${spinUs}): ${pollsAfter.polled - pollsBefore.polled} requests polled for in the counted runs, ${pollsAfter.caught - pollsBefore.caught} answers read by the poll`,
  );

  // Turn-sized round trips through an echo simulator, TypeScript and Python adapters: a recorded
  // user turn of the median trace size, the recorded respond params in order.
  const run = readRun(outE);
  const recorded = run.flatMap((c) => c.turns.filter((t) => t.user_utterance !== undefined && t.trace));
  const bySize = recorded.map((t) => ({ t, size: JSON.stringify(t.trace).length })).sort((x, y) => x.size - y.size);
  const mid = bySize[bySize.length >> 1].t;
  const turn: UserTurn = {
    utterance: mid.user_utterance!,
    acts: [String(mid.trace!.user_act ?? 'Disclose')],
    trace: mid.trace,
  };
  const sent = new Set<string>();
  const requests: RespondParams[] = run.flatMap((c) =>
    c.turns
      .filter((t) => t.assistant_utterance !== undefined)
      .map((t) => ({
        session: 'w',
        utterance: t.assistant_utterance!,
        recommendations: withItemRefs(t.recommendations ?? [], sent),
        acts: t.annotations?.find((x) => x.speaker === 'assistant')?.acts ?? [],
      })),
  );
  const trips = Math.min(20_000, Math.max(2_000, requests.length * 2));
  const bare = await echoRoundTrip(
    `${process.execPath} ${self} --protocol-echo`,
    { utterance: 'ok', acts: ['Disclose'] },
    [{ session: 'w', utterance: 'x', recommendations: [], acts: [] }],
    trips,
  );
  const ts = await echoRoundTrip(`${process.execPath} ${self} --protocol-echo`, turn, requests, trips);
  const echoPy = join(dirname(self), '..', 'bench', 'echo_user.py');
  const py = await echoRoundTrip(`python3 ${echoPy}`, turn, requests, trips);
  // CPU of the message work of one turn, in this process (median of 5 passes over the recorded
  // turns): SimLens encodes the respond request and decodes and validates the answer; the adapter
  // parses the request and writes the answer (JSON only: the rest of its work is in the round trip).
  const answers = run.flatMap((c) =>
    c.turns
      .filter((t) => t.user_utterance !== undefined)
      .map((t) => ({ utterance: t.user_utterance!, acts: [String(t.trace?.user_act ?? 'Disclose')], trace: t.trace })),
  );
  const answerFrames = answers.map((a, i) => encodeFrame({ jsonrpc: '2.0', id: i, result: a }));
  const requestBodies = requests.map((p, i) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'respond', params: p }));
  const cpuUs = (f: (i: number) => void, count: number): number => {
    const passes: number[] = [];
    for (let r = 0; r < 5; r++) {
      const c = process.cpuUsage();
      for (let i = 0; i < count; i++) f(i);
      const u = process.cpuUsage(c);
      passes.push((u.user + u.system) / count);
    }
    return median(passes);
  };
  const decoder = new FrameDecoder();
  const fastUserTurn = fastParse(UserTurnFields);
  const parts = {
    encode: cpuUs(
      (i) => encodeFrame({ jsonrpc: '2.0', id: i, method: 'respond', params: requests[i] }),
      requests.length,
    ),
    decode: cpuUs((i) => decoder.push(answerFrames[i]), answers.length),
    validate: cpuUs((i) => UserTurnResult.safeParse(answers[i]), answers.length),
    fastValidate: cpuUs((i) => fastUserTurn(answers[i]), answers.length),
    adapterJson: cpuUs((i) => {
      JSON.parse(requestBodies[i % requestBodies.length]);
      JSON.stringify({ jsonrpc: '2.0', id: i, result: answers[i] });
    }, answers.length),
  };

  // Where the time of a turn goes: stamps on both sides (bench/externalTiming.ts) in a new simulator
  // process warmed by one run, then one measured run; the in-process user step timed on the same
  // conversations (the bench's warm in-process user).
  const timingFile = join(dir, 'timing.json');
  process.env.SIMLENS_BENCH_TIMING = timingFile;
  const timedEnv = await prepareEnvironment(config(externalSpec));
  delete process.env.SIMLENS_BENCH_TIMING;
  const host = instrumentHost();
  await perTurn(timedEnv, outE);
  host.take();
  const timedRun = await perTurn(timedEnv, outE);
  const hostStamps = host.take();
  host.restore();
  // The simulator process writes its stamps when it exits: those of the measured run are the last.
  await timedEnv.user.dispose?.();
  const simStamps = (await simulatorStamps(timingFile)).slice(-hostStamps.length);
  const steps: number[] = [];
  builtinEnv.user = sameSeedUser(plainUser, steps);
  const stepRun = await perTurn(builtinEnv, outB);
  // The same steps with the recommender's answer copied through JSON first, as the simulator
  // process receives it: whether objects of another shape slow the user's code down.
  const copiedSteps: number[] = [];
  builtinEnv.user = sameSeedUser(plainUser, copiedSteps, 'json');
  await perTurn(builtinEnv, outB);
  const evictedSteps: number[] = [];
  builtinEnv.user = sameSeedUser(plainUser, evictedSteps, 'evict');
  await perTurn(builtinEnv, outB);
  const stages = breakdown(hostStamps, simStamps, steps);
  stages.push(
    `    ${'user step in-process, answer copied through JSON'.padEnd(52)} mean ${(copiedSteps.reduce((x, y) => x + y, 0) / copiedSteps.length).toFixed(1).padStart(7)} µs, median ${median(copiedSteps).toFixed(1).padStart(7)} µs`,
    `    ${'user step in-process, caches evicted before it'.padEnd(52)} mean ${(evictedSteps.reduce((x, y) => x + y, 0) / evictedSteps.length).toFixed(1).padStart(7)} µs, median ${median(evictedSteps).toFixed(1).padStart(7)} µs`,
  );
  rmSync(dir, { recursive: true, force: true });
  console.log(
    `  where a turn goes (one run of ${timedRun.turns} turns, stamped: ${timedRun.msPerTurn.toFixed(4)} ms/turn over stdio, ${stepRun.msPerTurn.toFixed(4)} in-process with the user step timed; load ${loadavg()[0].toFixed(2)}):\n${stages.join('\n')}`,
  );
  console.log(
    `  round trips (${trips}, no simulator work): bare ${bare.wallMs.toFixed(4)} ms (CPU ${bare.cpuMs.toFixed(4)}); turn-sized (trace ${JSON.stringify(turn.trace).length} B, respond ${Math.round(requests.reduce((s, p) => s + JSON.stringify(p).length, 0) / requests.length)} B mean): TypeScript adapter ${ts.wallMs.toFixed(4)} ms (CPU ${ts.cpuMs.toFixed(4)}), Python adapter ${py.wallMs.toFixed(4)} ms (CPU ${py.cpuMs.toFixed(4)})`,
  );
  console.log(
    `  message work of a turn (CPU, us): SimLens encode ${parts.encode.toFixed(1)}, decode ${parts.decode.toFixed(1)}, validate ${parts.validate.toFixed(1)} with zod, ${parts.fastValidate.toFixed(1)} with the fast parser SimLens uses first; adapter JSON parse + stringify ${parts.adapterJson.toFixed(1)}; start-up of a simulator process (warm-up run minus the counted overhead, over ${coldE.turns} turns): ${((coldE.msPerTurn - coldB.msPerTurn - overhead) * coldE.turns).toFixed(0)} ms wall, ${((coldE.cpuPerTurn - coldB.cpuPerTurn - cpuOverhead) * coldE.turns).toFixed(0)} ms CPU`,
  );
  console.log(
    `external simulator protocol: built-in ${median(rows.map((r) => r.builtin)).toFixed(4)} ms/turn, over stdio ${median(rows.map((r) => r.external)).toFixed(4)} ms/turn, overhead ${overhead.toFixed(4)} ms/turn (goal < 0.2); CPU overhead ${cpuOverhead.toFixed(4)} ms/turn (both processes); without polling: overhead ${noPollOverhead.toFixed(4)} ms/turn, CPU overhead ${noPollCpuOverhead.toFixed(4)}; round trip bare ${bare.wallMs.toFixed(4)} ms, turn-sized TypeScript ${ts.wallMs.toFixed(4)} ms, Python ${py.wallMs.toFixed(4)} ms; load ${loadavg()[0].toFixed(2)}`,
  );
}
