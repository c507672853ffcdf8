/**
 * CPU accounting for E2E sessions (Linux /proc; elsewhere every reading is empty): what a VS Code
 * session's processes have used so far, read from /proc/<pid>/stat: user + system time of each live
 * process, plus the time of the children it has waited for (cutime + cstime), so helpers that came
 * and went (git, shells) are counted in their parent. Used by the harness when SIMLENS_E2E_CPU_LOG
 * names a file (one JSON line per session: its CPU when the workbench was ready and when it was
 * closed) and by scripts/e2e-session-cpu.ts (the breakdown per process kind).
 */
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Clock ticks per second of /proc/<pid>/stat times on Linux (sysconf(_SC_CLK_TCK)). */
const TICKS = 100;

export interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  /** Own user + system seconds. */
  cpu: number;
  /** User + system seconds of the children it waited for. */
  reaped: number;
  cmd: string;
}

function readProc(pid: number): ProcInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command name in parentheses: state, ppid, pgrp, ... utime is field 14.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return {
      pid,
      ppid: Number(f[1]),
      pgid: Number(f[2]),
      cpu: (Number(f[11]) + Number(f[12])) / TICKS,
      reaped: (Number(f[13]) + Number(f[14])) / TICKS,
      cmd: readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim(),
    };
  } catch {
    return undefined; // exited meanwhile, or no /proc
  }
}

/** Every process readable in /proc now. */
export function allProcs(): ProcInfo[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  return names.flatMap((name) => (/^\d+$/.test(name) ? (readProc(Number(name)) ?? []) : []));
}

/** `root` and all its descendants among `procs`. */
function tree(procs: ProcInfo[], root: number): ProcInfo[] {
  const children = new Map<number, ProcInfo[]>();
  for (const p of procs) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const out = procs.filter((p) => p.pid === root);
  for (let i = 0; i < out.length; i++) out.push(...(children.get(out[i].pid) ?? []));
  return out;
}

/** Chromium browser processes that are children of this process. */
export function chromiumChildren(): number[] {
  return allProcs()
    .filter((p) => p.ppid === process.pid && /chrom/i.test(p.cmd) && !/--type=/.test(p.cmd))
    .map((p) => p.pid);
}

interface SessionCpu {
  /** The server's process group (code-server, VS Code server, extension host, helpers). */
  server: number;
  /** The browser and its renderer, GPU and utility processes. */
  chromium: number;
}

const sum = (ps: ProcInfo[]) => ps.reduce((a, p) => a + p.cpu + p.reaped, 0);

/** CPU seconds so far of one session's processes: the server's group and the browser's tree. */
export function sessionCpu(serverPid: number, browserPid: number | undefined): SessionCpu {
  const procs = allProcs();
  return {
    server: sum(procs.filter((p) => p.pgid === serverPid)),
    chromium: browserPid === undefined ? 0 : sum(tree(procs, browserPid)),
  };
}

/** Seconds of CPU this process (the test: harness, Playwright client) has used. */
export function selfCpu(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/** One session's line in SIMLENS_E2E_CPU_LOG. */
export interface SessionCpuRecord {
  file: string;
  session: string;
  /** Wall seconds from the call of startVsCode to the workbench ready, and to close(). */
  readyWall: number;
  closeWall: number;
  ready: SessionCpu & { harness: number };
  close: SessionCpu & { harness: number };
}

/**
 * The E2E test file that called `startVsCode`, from the call stack (a test process may run its
 * file from a batch entry, so `process.argv[1]` does not name it).
 */
export function callingTestFile(): string {
  const match = /test\/e2e\/[\w.-]+\.test\.ts/.exec(new Error().stack ?? '');
  return match?.[0] ?? path.relative(process.cwd(), process.argv[1] ?? '');
}

/** Appends a session's record to $SIMLENS_E2E_CPU_LOG (when set). */
export function logSessionCpu(record: SessionCpuRecord): void {
  const file = process.env.SIMLENS_E2E_CPU_LOG;
  if (!file) return;
  appendFileSync(file, `${JSON.stringify(record)}\n`);
}
