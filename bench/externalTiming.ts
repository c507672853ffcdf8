/**
 * Where the time of a protocol turn goes (`npm run bench -- external-simulator -- --breakdown`):
 * monotonic-clock stamps (process.hrtime, CLOCK_MONOTONIC, comparable across processes) at each
 * stage of every `start`/`respond` on both sides, matched turn by turn. Bench-only: SimLens'
 * connection and the adapter are wrapped from outside (prototype and stream methods), nothing in
 * src/ or examples/ knows about it.
 *
 * Host (SimLens) stamps: call entered, request entered, write start (after encode: encodeFrame runs
 * inside the connection's write), write returned, answer bytes arrived, decoded and dispatched,
 * validated (the session's toUserTurn entered), call returned. Simulator stamps (env SIMLENS_BENCH_TIMING=FILE,
 * written there when the process exits): bytes arrived (its blocking read of fd 0 returned), user
 * code entered, user code returned, write start, write returned (its write to fd 1). The adapter's
 * reads and writes are stamped by wrapping `fs.readSync` and `fs.writeSync` (it calls them through
 * the module object), so its stdin and stdout streams are never touched (that would make fd 0
 * non-blocking and turn the adapter to its stream fallback).
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { StdioConnection } from '../src/core/sim/users/external/connection';
import { ExternalUserSession } from '../src/core/sim/users/external/simulator';

const now = (): number => Number(process.hrtime.bigint()) / 1000; // µs

/** In the simulator process: stamps each user call; call after `serve()`. */
export function instrumentSimulator(file: string): {
  wrap<T>(f: () => Promise<T>): Promise<T>;
} {
  const stamps: number[][] = [];
  let arrival = 0;
  let open: number[] | undefined;
  const fs = process.getBuiltinModule('node:fs');
  const readSync = fs.readSync as (...a: unknown[]) => number;
  fs.readSync = ((...args: unknown[]) => {
    const n = readSync(...args);
    arrival = now();
    return n;
  }) as typeof fs.readSync;
  // Polled (SIMLENS_SPIN_US set): a request the adapter's poll missed arrives through stdin's
  // 'data' event instead (the adapter opened process.stdin already; in the blocking read it must
  // not be touched).
  if (Number(process.env.SIMLENS_SPIN_US) > 0)
    setImmediate(() => process.stdin.prependListener('data', () => (arrival = now())));
  const writeSync = fs.writeSync as (...a: unknown[]) => number;
  fs.writeSync = ((...args: unknown[]) => {
    const t = now();
    const r = writeSync(...args);
    if (open) {
      open.push(t, now());
      stamps.push(open);
      open = undefined;
    }
    return r;
  }) as typeof fs.writeSync;
  process.on('exit', () => {
    writeFileSync(`${file}.part`, JSON.stringify(stamps));
    renameSync(`${file}.part`, file);
  });
  return {
    async wrap(f) {
      const rec = [arrival, now()];
      const r = await f();
      rec.push(now());
      open = rec;
      return r;
    },
  };
}

/** In SimLens: stamps each `start`/`respond` on every StdioConnection; `take()` returns and clears them. */
export function instrumentHost(): { take(): number[][]; restore(): void } {
  const records: number[][] = [];
  let rec: number[] | undefined;
  let lastArrival = 0;
  type Conn = { child: { stdin: { write: (...a: unknown[]) => boolean; __timed?: boolean } } };
  const proto = StdioConnection.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  const sproto = ExternalUserSession.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  const orig = { request: proto.request, onData: proto.onData, call: sproto.call, toUserTurn: sproto.toUserTurn };
  sproto.call = async function (this: unknown, ...args: unknown[]) {
    rec = [now()];
    const r = await orig.call.apply(this, args);
    if (rec && rec.length === 7) {
      rec.push(now());
      records.push(rec);
    }
    rec = undefined;
    return r;
  };
  proto.request = function (this: Conn, ...args: unknown[]) {
    if (rec && rec.length === 1 && (args[0] === 'start' || args[0] === 'respond')) rec.push(now());
    const stdin = this.child.stdin;
    if (!stdin.__timed) {
      const w = stdin.write.bind(stdin);
      stdin.write = (...a: unknown[]) => {
        const t = now();
        const r = w(...a);
        if (rec && rec.length === 2) rec.push(t, now());
        return r;
      };
      stdin.__timed = true;
    }
    return orig.request.apply(this, args);
  };
  proto.onData = function (this: unknown, ...args: unknown[]) {
    lastArrival = now();
    const r = orig.onData.apply(this, args);
    if (rec && rec.length === 4) rec.push(lastArrival, now());
    return r;
  };
  sproto.toUserTurn = function (this: unknown, ...args: unknown[]) {
    if (rec && rec.length === 6) rec.push(now());
    return orig.toUserTurn.apply(this, args);
  };
  return {
    take: () => records.splice(0),
    restore() {
      proto.request = orig.request;
      proto.onData = orig.onData;
      sproto.call = orig.call;
      sproto.toUserTurn = orig.toUserTurn;
    },
  };
}

/** Mean and median of each stage (µs) over matched host and simulator records. */
export function breakdown(host: number[][], sim: number[][], inProcessUser: number[]): string[] {
  if (host.length !== sim.length)
    throw new Error(`the breakdown matched ${host.length} host records with ${sim.length} simulator records`);
  // host: 0 call, 1 request, 2 write start, 3 write end, 4 arrival, 5 decoded, 6 validated, 7 returned
  // sim:  0 arrival, 1 user start, 2 user end, 3 write start, 4 write end
  const stages: [string, (h: number[], s: number[]) => number][] = [
    ['SimLens: call -> request (acquire, item refs)', (h) => h[1] - h[0]],
    ['SimLens: encode (JSON.stringify + frame)', (h) => h[2] - h[1]],
    ['SimLens: write to the pipe', (h) => h[3] - h[2]],
    ['simulator wake-up (write returned -> read returned)', (h, s) => s[0] - h[3]],
    ['adapter: frame + JSON.parse + dispatch', (_h, s) => s[1] - s[0]],
    ['user step (simulator process)', (_h, s) => s[2] - s[1]],
    ['adapter: result -> JSON.stringify + frame', (_h, s) => s[3] - s[2]],
    ['adapter: write to the pipe', (_h, s) => s[4] - s[3]],
    ['SimLens wake-up (write returned -> data event)', (h, s) => h[4] - s[4]],
    ['SimLens: frame + JSON.parse + dispatch', (h) => h[5] - h[4]],
    ['SimLens: promise hand-back + validation', (h) => h[6] - h[5]],
    ['SimLens: to the run (trace, history)', (h) => h[7] - h[6]],
  ];
  const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const lines: string[] = [];
  let totalMean = 0;
  let totalMedian = 0;
  for (const [name, f] of stages) {
    const xs = host.map((h, i) => f(h, sim[i]));
    totalMean += mean(xs);
    totalMedian += median(xs);
    lines.push(
      `    ${name.padEnd(52)} mean ${mean(xs).toFixed(1).padStart(7)} µs, median ${median(xs).toFixed(1).padStart(7)} µs`,
    );
  }
  const userMean = mean(host.map((_h, i) => sim[i][2] - sim[i][1]));
  lines.push(
    `    ${'whole call (sum)'.padEnd(52)} mean ${totalMean.toFixed(1).padStart(7)} µs, median-sum ${totalMedian.toFixed(1).padStart(7)} µs`,
  );
  lines.push(
    `    ${'user step in-process (same conversations)'.padEnd(52)} mean ${mean(inProcessUser).toFixed(1).padStart(7)} µs, median ${median(inProcessUser).toFixed(1).padStart(7)} µs`,
  );
  lines.push(
    `    ${'protocol part (whole call - user step there)'.padEnd(52)} mean ${(totalMean - userMean).toFixed(1).padStart(7)} µs; user step there - in-process: ${(userMean - mean(inProcessUser)).toFixed(1)} µs`,
  );
  return lines;
}

/** The simulator process's stamps, written when it exited (waits for the file). */
export async function simulatorStamps(file: string): Promise<number[][]> {
  const deadline = Date.now() + 30_000;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error('the simulator process wrote no timing file');
    await new Promise((r) => setTimeout(r, 5));
  }
  return JSON.parse(readFileSync(file, 'utf8')) as number[][];
}
