/**
 * Shared benchmark plumbing: run one measurement in a fresh child process (so peak memory and JIT
 * state of one measurement never pollute another), medians, formatting, machine description, and
 * updating one `## ` section of bench/RESULTS.md without touching the others.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem, platform, release } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './gen';

/** What a child measurement reports. */
export interface ChildResult<T> {
  ok: boolean;
  value?: T;
  error?: string;
  /** Wall time measured inside the child around the task (no process start-up). */
  ms: number;
  /** CPU time (user + system, all threads) of the child during the task: steadier than wall time on a busy machine. */
  cpuMs?: number;
  /** Peak resident set size of the child process, bytes (process.resourceUsage().maxRSS). */
  maxRssBytes: number;
}

const MARK = '@@bench-result@@';

/**
 * Runs `task` of benchmark module `area` in a new Node process (same script, same flags) and
 * returns its result. The module must export `child(task, payload)`.
 */
export function runChild<T>(area: string, task: string, payload: unknown, timeoutMs = 600_000): ChildResult<T> {
  const script = process.argv[1];
  const r = spawnSync(
    process.execPath,
    [...process.execArgv, script, '--child', area, task, JSON.stringify(payload ?? null)],
    {
      encoding: 'utf8',
      timeout: timeoutMs,
      maxBuffer: 64 << 20,
    },
  );
  const line = (r.stdout ?? '').split('\n').find((l) => l.startsWith(MARK));
  if (!line) {
    const why = r.error?.message ?? (r.signal ? `killed by ${r.signal}` : `exit ${r.status}`);
    return {
      ok: false,
      error: `${why}: ${(r.stderr ?? '').trim().split('\n').slice(-3).join(' | ')}`,
      ms: NaN,
      cpuMs: NaN,
      maxRssBytes: NaN,
    };
  }
  return JSON.parse(line.slice(MARK.length)) as ChildResult<T>;
}

/** Child side: runs the task, then prints one marked JSON line with time and peak memory. */
export async function childMain(fn: () => Promise<unknown>): Promise<void> {
  (globalThis as { gc?: () => void }).gc?.();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let out: ChildResult<unknown>;
  const cpu = () => {
    const c = process.cpuUsage(c0);
    return (c.user + c.system) / 1000;
  };
  try {
    const value = await fn();
    out = { ok: true, value, ms: performance.now() - t0, cpuMs: cpu(), maxRssBytes: 0 };
  } catch (err) {
    out = {
      ok: false,
      error: err instanceof Error ? err.message : String(err),
      ms: performance.now() - t0,
      cpuMs: cpu(),
      maxRssBytes: 0,
    };
  }
  out.maxRssBytes = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(`${MARK}${JSON.stringify(out)}\n`);
}

/** "load 1.2 / 0.9" (1- and 5-minute load averages), to judge how quiet the machine was. */
export function loadInfo(): string {
  const [one, five] = loadavg();
  return `load average ${one.toFixed(1)} (1 min) / ${five.toFixed(1)} (5 min)`;
}

export function median(values: number[]): number {
  const s = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return '-';
  return ms >= 100 ? `${Math.round(ms).toLocaleString('en-US')} ms` : `${ms.toFixed(1)} ms`;
}

export function fmtBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return '-';
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(2)} GB`;
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

export function fmtRatio(r: number): string {
  if (!Number.isFinite(r)) return '-';
  return r < 0.1 ? `${(r * 100).toFixed(1)}%` : `${r.toFixed(2)}x`;
}

/** One line naming the machine, for results files. */
export function machineInfo(): string {
  const c = cpus();
  return `${c[0]?.model?.trim() ?? 'unknown CPU'}, ${c.length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${platform()} ${release()}, Node ${process.version}`;
}

/**
 * Replaces the `## <title>` section of bench/RESULTS.md (up to the next `## ` heading) with `body`,
 * or appends it. Other sections are left exactly as they are.
 */
export function updateResultsSection(title: string, body: string): string {
  const path = join(repoRoot(), 'bench', 'RESULTS.md');
  const heading = `## ${title}`;
  const section = `${heading}\n\n${body.trim()}\n`;
  let text = existsSync(path)
    ? readFileSync(path, 'utf8')
    : '# Benchmark results\n\nEach `## ` section is written by `npm run bench` (or `node --expose-gc dist/bench.js <area>`).\n';
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.trim() === heading);
  if (start === -1) {
    text = `${text.trimEnd()}\n\n${section}`;
  } else {
    let end = lines.findIndex((l, i) => i > start && l.startsWith('## '));
    if (end === -1) end = lines.length;
    const before = lines.slice(0, start).join('\n').trimEnd();
    const after = lines.slice(end).join('\n').trim();
    text = `${before}\n\n${section}${after ? `\n${after}\n` : ''}`;
  }
  writeFileSync(path, text);
  return path;
}
