/**
 * A throwaway single-node Slurm cluster on this machine for tests: munged with its own key and
 * socket, slurmctld and slurmd on free 127.0.0.1 ports, every file (configuration, state, spool,
 * logs) in one temporary folder, so nothing of the system's own Slurm or munge is touched.
 * `stop()` ends the three daemons by their PIDs and removes the folder.
 *
 * Needs Debian's slurm-wlm and munge (scripts/setup.sh installs them) and root, since slurmd
 * runs jobs as the submitting user and SlurmUser is root here.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

const BINARIES = ['munged', 'slurmctld', 'slurmd', 'sbatch', 'squeue', 'scontrol', 'sinfo'];

/** The Slurm and munge programs this machine lacks (empty when a cluster can be started). */
export function missingSlurmPrograms(): string[] {
  const missing: string[] = [];
  for (const bin of BINARIES) {
    const found = ['/usr/sbin', '/usr/bin', '/sbin', '/bin', ...(process.env.PATH ?? '').split(':')].some(
      (d) => d && existsSync(join(d, bin)),
    );
    if (!found) missing.push(bin);
  }
  if (typeof process.getuid === 'function' && process.getuid() !== 0) missing.push('root (slurmd runs the jobs)');
  return missing;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(
  what: string,
  check: () => boolean,
  timeoutMs: number,
  log: () => string,
  died: () => string | undefined,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (check()) return;
    const dead = died();
    if (dead) throw new Error(`Slurm test cluster: ${dead} exited while waiting for ${what}\n${log()}`);
    await sleep(100);
  }
  throw new Error(`Slurm test cluster: ${what} not ready after ${timeoutMs} ms\n${log()}`);
}

interface JobState {
  id: string;
  state: string;
  exitCode: string;
}

export class SlurmCluster {
  private readonly daemons: { name: string; child: ChildProcess }[] = [];

  private constructor(
    readonly dir: string,
    readonly conf: string,
    private readonly socketDir: string,
  ) {}

  /** The environment the Slurm client programs (and the jobs) need. */
  env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
    return { ...process.env, SLURM_CONF: this.conf, ...extra };
  }

  /** Starts munged, slurmctld and slurmd and waits until the node is idle. */
  static async start(): Promise<SlurmCluster> {
    const dir = mkdtempSync(join(tmpdir(), 'simlens-slurm-'));
    // munged wants every folder above its socket searchable by everyone, which a private TMPDIR is
    // not: the socket gets its own folder in /tmp.
    const socketDir = mkdtempSync(join('/tmp', 'simlens-munge-'));
    chmodSync(socketDir, 0o755);
    for (const sub of ['state', 'spool', 'log', 'jobs']) mkdirSync(join(dir, sub), { recursive: true });
    const key = join(dir, 'munge.key');
    writeFileSync(key, randomBytes(128), { mode: 0o600 });
    const [ctldPort, slurmdPort] = [await freePort(), await freePort()];
    const conf = join(dir, 'slurm.conf');
    const socket = join(socketDir, 'munge.sock');
    writeFileSync(
      conf,
      [
        'ClusterName=simlenstest',
        'SlurmctldHost=localhost(127.0.0.1)',
        `SlurmctldPort=${ctldPort}`,
        `SlurmdPort=${slurmdPort}`,
        'SlurmUser=root',
        'SlurmdUser=root',
        'AuthType=auth/munge',
        'CredType=cred/munge',
        `AuthInfo=socket=${socket}`,
        `StateSaveLocation=${join(dir, 'state')}`,
        `SlurmdSpoolDir=${join(dir, 'spool')}`,
        `SlurmctldPidFile=${join(dir, 'slurmctld.pid')}`,
        `SlurmdPidFile=${join(dir, 'slurmd.pid')}`,
        `SlurmctldLogFile=${join(dir, 'log', 'slurmctld.log')}`,
        `SlurmdLogFile=${join(dir, 'log', 'slurmd.log')}`,
        'ProctrackType=proctrack/linuxproc',
        'TaskPlugin=task/none',
        'JobAcctGatherType=jobacct_gather/none',
        'AccountingStorageType=accounting_storage/none',
        'JobCompType=jobcomp/none',
        'MpiDefault=none',
        'SwitchType=switch/none',
        'SelectType=select/cons_tres',
        'SelectTypeParameters=CR_CPU',
        'SchedulerType=sched/builtin',
        // Start dependent jobs within a second of their dependency ending.
        'SchedulerParameters=sched_interval=1',
        'ReturnToService=2',
        'MinJobAge=600',
        'KillWait=5',
        'NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 RealMemory=1000 State=UNKNOWN',
        'PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP',
        '',
      ].join('\n'),
    );
    const cluster = new SlurmCluster(dir, conf, socketDir);
    try {
      cluster.spawnDaemon('munged', 'munged', [
        '-F',
        `--socket=${socket}`,
        `--key-file=${key}`,
        `--pid-file=${join(dir, 'munged.pid')}`,
        `--log-file=${join(dir, 'log', 'munged.log')}`,
        `--seed-file=${join(dir, 'munge.seed')}`,
      ]);
      await waitFor(
        'munged socket',
        () => existsSync(socket),
        10_000,
        () => cluster.logs(),
        () => cluster.dead(),
      );
      cluster.spawnDaemon('slurmctld', 'slurmctld', ['-D', '-f', conf]);
      cluster.spawnDaemon('slurmd', 'slurmd', ['-D', '-N', 'localhost', '-f', conf]);
      await waitFor(
        'the node',
        () => {
          const r = spawnSync('sinfo', ['-h', '-N', '-o', '%T'], {
            env: cluster.env(),
            encoding: 'utf8',
            timeout: 5000,
          });
          return r.status === 0 && /^idle/m.test(r.stdout);
        },
        30_000,
        () => cluster.logs(),
        () => cluster.dead(),
      );
    } catch (err) {
      await cluster.stop();
      throw err;
    }
    return cluster;
  }

  private spawnDaemon(name: string, command: string, args: string[]): void {
    const child = spawn(command, args, { env: this.env(), stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-4000);
    });
    child.on('exit', (code, signal) =>
      writeFileSync(join(this.dir, 'log', `${name}.exit`), `${code ?? signal}\n${stderr}`),
    );
    child.on('error', (err) => writeFileSync(join(this.dir, 'log', `${name}.exit`), `spawn error: ${err.message}\n`));
    this.daemons.push({ name, child });
  }

  /** The name of a daemon that has exited, if one has. */
  dead(): string | undefined {
    return this.daemons.find((d) => d.child.exitCode !== null || d.child.signalCode !== null)?.name;
  }

  /** The tails of the daemons' logs (for failure messages). */
  logs(): string {
    const parts: string[] = [];
    for (const name of ['munged.log', 'slurmctld.log', 'slurmd.log', 'munged.exit', 'slurmctld.exit', 'slurmd.exit']) {
      const file = join(this.dir, 'log', name);
      if (existsSync(file)) parts.push(`--- ${name}\n${readFileSync(file, 'utf8').split('\n').slice(-15).join('\n')}`);
    }
    return parts.join('\n');
  }

  /** Submits a batch script; returns the job id. */
  sbatch(args: string[], env: NodeJS.ProcessEnv = {}): string {
    const r = spawnSync('sbatch', ['--parsable', ...args], { env: this.env(env), encoding: 'utf8', timeout: 15_000 });
    if (r.status !== 0) throw new Error(`sbatch ${args.join(' ')} failed (${r.status}): ${r.stderr}\n${this.logs()}`);
    return r.stdout.trim().split(';')[0];
  }

  /** The state of every job (and array task) of these ids, from scontrol. */
  jobStates(ids: string[]): JobState[] {
    const states: JobState[] = [];
    for (const id of ids) {
      const r = spawnSync('scontrol', ['show', 'job', '-o', id], {
        env: this.env(),
        encoding: 'utf8',
        timeout: 10_000,
      });
      if (r.status !== 0) throw new Error(`scontrol show job ${id} failed: ${r.stderr}`);
      for (const line of r.stdout.split('\n').filter((l) => l.trim())) {
        const field = (name: string) => new RegExp(`(?:^|\\s)${name}=(\\S+)`).exec(line)?.[1] ?? '';
        const task = field('ArrayTaskId');
        states.push({
          id: task ? `${field('ArrayJobId')}_${task}` : field('JobId'),
          state: field('JobState'),
          exitCode: field('ExitCode'),
        });
      }
    }
    return states;
  }

  /** Waits until none of the jobs is pending or running; returns their final states. */
  async waitForJobs(ids: string[], timeoutMs: number): Promise<JobState[]> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const states = this.jobStates(ids);
      if (
        states.length &&
        states.every((s) => !/PENDING|RUNNING|CONFIGURING|COMPLETING|REQUEUED|SUSPENDED/.test(s.state))
      )
        return states;
      if (Date.now() > until)
        throw new Error(
          `jobs ${ids.join(', ')} not done after ${timeoutMs} ms: ${JSON.stringify(states)}\n${this.logs()}`,
        );
      await sleep(250);
    }
  }

  /** Stops the daemons by PID (TERM, then KILL after 5 s) and removes the folder. */
  async stop(): Promise<void> {
    for (const { child } of [...this.daemons].reverse()) {
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) continue;
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(this.dir, { recursive: true, force: true });
    rmSync(this.socketDir, { recursive: true, force: true });
  }
}
