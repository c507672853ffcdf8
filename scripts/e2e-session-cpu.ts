/**
 * Where one E2E session's CPU goes: starts VS Code the way the E2E tests do (test/e2e/harness.ts
 * startVsCode: the VS Code server with the VSIX, headless Chromium, the workbench), opens the
 * sample conversation file in SimLens's editor, then stays idle for a while; meanwhile it reads
 * /proc/<pid>/stat of every process of the session every 100 ms and prints each process kind's
 * CPU seconds (user + sys) at each step: server up, workbench ready, editor shown, after the idle
 * spell, plus the CPU of this (test) process itself.
 *
 *   SIMLENS_VSCODE_SERVER_DIR=~/.cache/simlens/vscode-server npx tsx scripts/e2e-session-cpu.ts [--runs=N] [--idle=S] [--list]
 *   npx tsx scripts/e2e-session-cpu.ts --summary=FILE
 *
 * `--summary=FILE` reads what the harness wrote during an E2E run with SIMLENS_E2E_CPU_LOG=FILE (one
 * line per session) and prints, per test file, the CPU of its sessions until the workbench was
 * ready (start) and after (the test steps). `--list` prints every process with its command line.
 *
 * A process that exits between two readings keeps the CPU last read for it; what it used after
 * that reading (and what short-lived children used) shows up in its parent's reaped-children time
 * (cutime + cstime), counted here as "reaped children" under the parent's kind.
 */
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { allProcs, type ProcInfo, type SessionCpuRecord } from '../test/e2e/cpu';
import { e2eReady, makeWorkspace, openFileInEditor, startVsCode, waitForWebview } from '../test/e2e/harness';

/** A short name for what a process of the session is. */
function kind(p: ProcInfo, serverPid: number): string {
  const c = p.cmd;
  if (p.pgid === serverPid || p.pid === serverPid) {
    if (p.pid === serverPid) return 'server: code-server entry';
    if (/--type=extensionHost/.test(c)) return 'server: extension host';
    if (/--type=ptyHost/.test(c)) return 'server: pty host';
    if (/--type=fileWatcher/.test(c)) return 'server: file watcher';
    if (/dist\/server\.js/.test(c)) return 'server: SimLens language server';
    if (/\bgit\b/.test(c)) return 'server: git';
    if (/out\/node\/entry\.js|server-main|bootstrap-fork|out\/server-main\.js/.test(c)) return 'server: VS Code server';
    if (/(json|css|html|markdown|typescript)[-\w]*Server|ServerMain/i.test(c))
      return 'server: built-in language server';
    return `server: other (${path.basename(c.split(' ')[0] ?? '?')})`;
  }
  if (/chrom/i.test(c)) {
    const type = /--type=([\w-]+)/.exec(c)?.[1];
    if (!type) return 'chromium: browser';
    if (type === 'utility') return `chromium: utility (${/--utility-sub-type=([\w.]+)/.exec(c)?.[1] ?? '?'})`;
    return `chromium: ${type}`;
  }
  return `other: ${path.basename(c.split(' ')[0] ?? '?')}`;
}

class Sampler {
  private seen = new Map<number, ProcInfo>();
  private timer: NodeJS.Timeout | undefined;
  constructor(private readonly rootPid: number) {}
  serverPid = 0;

  start(): void {
    this.timer = setInterval(() => this.sample(), 100);
  }
  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
  /** Reads every descendant of this process (Chromium) and every process of the server's group. */
  sample(): void {
    const procs = allProcs();
    const children = new Map<number, ProcInfo[]>();
    for (const p of procs) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
    const inSession = new Set<number>();
    const walk = (pid: number) => {
      for (const c of children.get(pid) ?? []) {
        if (inSession.has(c.pid)) continue;
        inSession.add(c.pid);
        walk(c.pid);
      }
    };
    walk(this.rootPid);
    if (this.serverPid) for (const p of procs) if (p.pgid === this.serverPid) inSession.add(p.pid);
    for (const p of procs) {
      if (!inSession.has(p.pid)) continue;
      // A short-lived helper of this process (e.g. `sh -c command -v chromium`) is not the session.
      if (/^sh -c command -v/.test(p.cmd)) continue;
      this.seen.set(p.pid, p);
    }
  }
  /** Prints every process seen: CPU, kind, command line (shortened). */
  list(): void {
    for (const p of [...this.seen.values()].sort((a, b) => b.cpu - a.cpu)) {
      console.log(`${fmt(p.cpu)} ${fmt(p.reaped)}  ${kind(p, this.serverPid).padEnd(34)} ${p.cmd.slice(0, 260)}`);
    }
  }
  /** CPU seconds per kind so far (own, and reaped children per parent kind). */
  totals(): Map<string, { cpu: number; procs: number }> {
    const out = new Map<string, { cpu: number; procs: number }>();
    const add = (k: string, cpu: number, n: number) => {
      const t = out.get(k) ?? { cpu: 0, procs: 0 };
      t.cpu += cpu;
      t.procs += n;
      out.set(k, t);
    };
    // Reaped time of a parent includes children this sampler saw: count only the rest.
    const seenChildCpu = new Map<number, number>();
    for (const p of this.seen.values()) {
      seenChildCpu.set(p.ppid, (seenChildCpu.get(p.ppid) ?? 0) + p.cpu + p.reaped);
    }
    for (const p of this.seen.values()) {
      const k = kind(p, this.serverPid);
      add(k, p.cpu, 1);
      // Only the reaped time of children that exited (the live ones are not in cutime yet); an
      // estimate that can come out slightly negative when a seen child is still alive.
      const extra = p.reaped - (seenChildCpu.get(p.pid) ?? 0);
      if (extra > 0.005) add(`${k} (reaped children)`, extra, 0);
    }
    return out;
  }
}

function fmt(n: number): string {
  return n.toFixed(2).padStart(7);
}

async function oneRun(
  idleSeconds: number,
): Promise<Array<{ step: string; totals: Map<string, { cpu: number; procs: number }>; self: number; wall: number }>> {
  const sampler = new Sampler(process.pid);
  sampler.start();
  const t0 = Date.now();
  const self0 = process.cpuUsage();
  const selfCpu = () => {
    const u = process.cpuUsage(self0);
    return (u.user + u.system) / 1e6;
  };
  const steps: Array<{
    step: string;
    totals: Map<string, { cpu: number; procs: number }>;
    self: number;
    wall: number;
  }> = [];
  const mark = (step: string) => {
    sampler.sample();
    steps.push({ step, totals: sampler.totals(), self: selfCpu(), wall: (Date.now() - t0) / 1000 });
  };
  const workspace = makeWorkspace();
  // Let the sampler know the server's process group as soon as it exists: the harness starts the
  // server before the browser, so poll for a code-server entry among this process's children.
  const finder = setInterval(() => {
    if (sampler.serverPid) return;
    const p = allProcs().find(
      (q) =>
        q.ppid === process.pid && /code-server\/out\/node\/entry\.js/.test(q.cmd) && !/--install-extension/.test(q.cmd),
    );
    if (p) sampler.serverPid = p.pid;
  }, 20);
  const vscode = await startVsCode({ workspace, theme: 'light' });
  clearInterval(finder);
  sampler.serverPid = vscode.server.pid;
  mark('workbench ready');
  // What the page's scripts cost on the wire: equal sizes mean the server sent them uncompressed.
  const scripts = await vscode.page.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .map((e) => e as PerformanceResourceTiming)
      .filter((e) => e.name.endsWith('.js'))
      .reduce((a, e) => ({ encoded: a.encoded + e.encodedBodySize, decoded: a.decoded + e.decodedBodySize }), {
        encoded: 0,
        decoded: 0,
      }),
  );
  console.log(
    `workbench scripts: ${(scripts.decoded / 1e6).toFixed(1)} MB, ${(scripts.encoded / 1e6).toFixed(1)} MB on the wire`,
  );
  await openFileInEditor(vscode.page, 'sample.conv.jsonl');
  await waitForWebview(vscode.page);
  mark('editor shown');
  await new Promise((r) => setTimeout(r, idleSeconds * 1000)); // measuring background work: a fixed wait is the point
  mark(`+${idleSeconds} s idle`);
  if (process.argv.includes('--list')) sampler.list();
  await vscode.close();
  sampler.stop();
  return steps;
}

/**
 * `--summary=FILE`: the per-file table of a SIMLENS_E2E_CPU_LOG written by an E2E run: each file's
 * sessions, their CPU seconds until the workbench was ready, and until close (the test steps).
 */
function summary(file: string): void {
  const records = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as SessionCpuRecord);
  const byFile = new Map<string, SessionCpuRecord[]>();
  for (const r of records) byFile.set(r.file, [...(byFile.get(r.file) ?? []), r]);
  const total = (c: SessionCpuRecord['ready']) => c.server + c.chromium + c.harness;
  console.log(
    `${'file'.padEnd(36)}sessions  start: server chromium harness  total   steps: total   start/all   wall: start  all`,
  );
  const sums = { start: 0, all: 0, startWall: 0, wall: 0, sessions: 0 };
  for (const [name, rs] of [...byFile].sort(([a], [b]) => a.localeCompare(b))) {
    const add = (pick: (r: SessionCpuRecord) => number) => rs.reduce((a, r) => a + pick(r), 0);
    const start = add((r) => total(r.ready));
    const all = add((r) => total(r.close));
    sums.start += start;
    sums.all += all;
    sums.startWall += add((r) => r.readyWall);
    sums.wall += add((r) => r.closeWall);
    sums.sessions += rs.length;
    console.log(
      `${path.basename(name).padEnd(36)}${String(rs.length).padStart(8)}  ${fmt(add((r) => r.ready.server))}${fmt(add((r) => r.ready.chromium))}${fmt(add((r) => r.ready.harness))}${fmt(start)}  ${fmt(all - start)}${`${((start / all) * 100).toFixed(0)} %`.padStart(12)}${fmt(add((r) => r.readyWall))}${fmt(add((r) => r.closeWall))}`,
    );
  }
  console.log(
    `${'all'.padEnd(36)}${String(sums.sessions).padStart(8)}  ${' '.repeat(21)}${fmt(sums.start)}  ${fmt(sums.all - sums.start)}${`${((sums.start / sums.all) * 100).toFixed(0)} %`.padStart(12)}${fmt(sums.startWall)}${fmt(sums.wall)}`,
  );
}

async function main(): Promise<void> {
  const summaryFile = process.argv.find((a) => a.startsWith('--summary='))?.split('=')[1];
  if (summaryFile) return summary(summaryFile);
  const runs = Number(process.argv.find((a) => a.startsWith('--runs='))?.split('=')[1] ?? 1);
  const idle = Number(process.argv.find((a) => a.startsWith('--idle='))?.split('=')[1] ?? 10);
  const fakeT = {
    skip: (m: string) => {
      throw new Error(m);
    },
  } as unknown as Parameters<typeof e2eReady>[0];
  e2eReady(fakeT);
  for (let r = 0; r < runs; r++) {
    const steps = await oneRun(idle);
    const kinds = [...new Set(steps.flatMap((s) => [...s.totals.keys()]))].sort();
    console.log(`\nrun ${r + 1}: CPU seconds (user + sys) so far, per process kind`);
    console.log(`${'kind'.padEnd(52)}${steps.map((s) => s.step.padStart(18)).join('')}`);
    for (const k of kinds) {
      const procs = Math.max(...steps.map((s) => s.totals.get(k)?.procs ?? 0));
      console.log(
        `${`${k}${procs > 1 ? ` x${procs}` : ''}`.padEnd(52)}${steps.map((s) => fmt(s.totals.get(k)?.cpu ?? 0).padStart(18)).join('')}`,
      );
    }
    const sum = (s: (typeof steps)[number], prefix: string) =>
      [...s.totals].filter(([k]) => k.startsWith(prefix)).reduce((a, [, v]) => a + v.cpu, 0);
    for (const prefix of ['server', 'chromium', 'other']) {
      console.log(`${`= all ${prefix}`.padEnd(52)}${steps.map((s) => fmt(sum(s, prefix)).padStart(18)).join('')}`);
    }
    console.log(
      `${'this process (harness, playwright client)'.padEnd(52)}${steps.map((s) => fmt(s.self).padStart(18)).join('')}`,
    );
    console.log(`${'= session total'.padEnd(52)}${steps.map((s) => fmt(sum(s, '') + s.self).padStart(18)).join('')}`);
    console.log(`${'wall seconds'.padEnd(52)}${steps.map((s) => fmt(s.wall).padStart(18)).join('')}`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
