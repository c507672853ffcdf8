/**
 * Connections to an external simulator: a child process spoken to over stdio (LSP framing), or an
 * HTTP endpoint (one JSON-RPC message per POST). Both give `request` (with a timeout) and `notify`;
 * every way a simulator can fail becomes a SimulatorFault with a kind and a clear message, and a
 * faulted stdio connection is dead (its process killed): the pool starts a new one.
 *
 * Processes: started in their own process group (a Ctrl-C in the terminal reaches SimLens only, so
 * conversations in flight can finish), stopped by pid (the group), and killed when SimLens exits.
 * If SimLens itself is killed with SIGKILL, the simulator sees its stdin close; the reference
 * adapters exit then (docs/protocol.md asks every simulator to).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { FrameDecoder, FramingError, encodeFrame, printableExcerpt } from './framing';

type FaultKind = 'crash' | 'timeout' | 'garbage' | 'invalid' | 'rpc_error' | 'unreachable' | 'closed';

/** A simulator failure; `message` says what happened without naming the conversation (the session adds that). */
export class SimulatorFault extends Error {
  constructor(
    readonly kind: FaultKind,
    message: string,
    readonly code?: number,
  ) {
    super(message);
    this.name = 'SimulatorFault';
  }
}

export interface SimulatorConnection {
  /** Sends a request and resolves with its result (unvalidated), or rejects with a SimulatorFault. */
  request(method: string, params: unknown, timeoutMs: number): Promise<unknown>;
  notify(method: string, params: unknown): void;
  /** Asks the simulator to shut down (shutdown request, then stdin closed), kills it after `graceMs`. */
  close(graceMs?: number): Promise<void>;
  /** Set once the connection can no longer be used (why). */
  readonly dead: string | undefined;
  /** The process id (stdio only). */
  readonly pid?: number;
  /** Whether one connection may carry several conversations at once regardless of capabilities (HTTP). */
  readonly shared: boolean;
}

/** Live simulator process groups, killed when this process exits however it exits normally. */
const livePids = new Set<number>();
let exitHook = false;
function killGroup(pid: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}
function track(pid: number): void {
  livePids.add(pid);
  if (!exitHook) {
    exitHook = true;
    process.on('exit', () => {
      for (const p of livePids) killGroup(p);
    });
  }
}

/** The pids of simulator processes this process started and has not seen exit (tests). */
export function liveSimulatorPids(): number[] {
  return [...livePids];
}

interface Pending {
  method: string;
  resolve: (v: unknown) => void;
  reject: (e: SimulatorFault) => void;
  /** When it times out (performance.now() ms; StdioConnection). */
  deadline: number;
  timeoutMs: number;
}

/**
 * Poll, then sleep. A turn with a fast simulator is two hand-offs between processes, and a process
 * asleep in a read costs a kernel wake-up when data comes (40-55 µs each on an idle core here, most
 * of the protocol's overhead). So after each request SimLens reads the simulator's stdout without
 * waiting for up to this many µs before it waits in the event loop, and tells the simulator
 * (environment variable `SIMLENS_SPIN_US`) it may poll for the next request the same way; the
 * reference adapters do. SimLens polls only while one request is in flight in the process; each
 * missed poll (the answer came later) doubles the number of requests that go without one, up to 64,
 * so a slow simulator (an LLM) costs almost nothing; by default also only while the machine's load
 * leaves a core to spare. Off with one core and on Windows; `SIMLENS_SPIN_US=0` turns it off, any
 * other value sets the budget. docs/protocol.md ("Latency").
 */
export function spinBudgetUs(env: NodeJS.ProcessEnv = process.env, cores = availableParallelism()): number {
  const set = env.SIMLENS_SPIN_US;
  if (set !== undefined && set.trim() !== '') {
    const n = Number(set);
    return Number.isFinite(n) && n > 0 ? Math.min(Math.round(n), 10_000) : 0;
  }
  return cores >= 2 && process.platform !== 'win32' ? DEFAULT_SPIN_US : 0;
}
const DEFAULT_SPIN_US = 300;
/** Requests in flight over every stdio connection of this process (polling only when it is 1). */
let inFlight = 0;
/**
 * Whether the machine has a core to spare for polling: its load (1-minute average of runnable
 * tasks, SimLens and the simulator included) at most its cores + 1. Read at most once a second.
 */
function machineHasRoom(): boolean {
  const now = Date.now();
  if (now - room.at > 1000) {
    room.at = now;
    room.ok = loadavg()[0] <= availableParallelism() + 1;
  }
  return room.ok;
}
const room = { at: 0, ok: true };

const STDERR_TAIL = 2000;
/** Longest a notification waits for a request to go out with. */
const NOTIFY_DELAY_MS = 250;

interface StdioOptions {
  /** Poll budget in µs (default: spinBudgetUs(), polling then only while the machine has room). */
  spinUs?: number;
  cwd?: string;
  env?: Record<string, string>;
  /** Each stderr line of the simulator (its logs). */
  onStderr?: (line: string) => void;
}

/**
 * The words of a simple command line (quotes '...' and "..." and backslash escapes understood), or
 * undefined when it needs a shell (pipes, redirections, variables, globs, environment assignments).
 * A simple command is started directly, so the simulator's parent is SimLens itself and it can
 * notice SimLens dying (the reference adapters watch their parent).
 */
export function splitCommand(command: string): string[] | undefined {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (c === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) return undefined;
      word += command.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < command.length && command[j] !== '"'; j++) {
        if (command[j] === '$' || command[j] === '`') return undefined;
        if (command[j] === '\\' && j + 1 < command.length && '"\\'.includes(command[j + 1])) j++;
        word += command[j];
      }
      if (j >= command.length) return undefined;
      inWord = true;
      i = j;
    } else if (c === '\\') {
      if (i + 1 >= command.length) return undefined;
      word += command[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else if ('|&;<>()$`*?[]{}~#='.includes(c) && !(c === '=' && inWord && words.length > 0)) {
      return undefined;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words.length ? words : undefined;
}

const pollBuffer = Buffer.allocUnsafe(1 << 16);

/** A simulator process started with `command` (directly when it is a simple command, else by the shell). */
export class StdioConnection implements SimulatorConnection {
  readonly shared = false;
  private child: ChildProcess;
  private decoder = new FrameDecoder();
  private pending = new Map<number, Pending>();
  private nextId = 1;
  private stderrTail = '';
  private stderrLine = '';
  private _dead: string | undefined;
  private exited: Promise<void>;
  /** Notifications waiting for the next request's write. */
  private queued: Buffer[] = [];
  private notifyTimer: NodeJS.Timeout | undefined;
  /**
   * One timer for every pending request's timeout, set for the earliest deadline and kept between
   * requests (unref'd while nothing is pending): a timer made and cleared per request cost a few
   * µs of every turn. When it fires it times out what is due and is set again for the next deadline.
   */
  private watchdog: NodeJS.Timeout | undefined;
  private watchdogAt = Number.POSITIVE_INFINITY;
  /**
   * The simulator's stdout as the event loop reads it (non-blocking), for polling; -1: never poll
   * (again). Set to -1 as soon as stdout ends or closes: the number may then be given to any other
   * file or socket this process opens.
   */
  private pollFd: number;
  private readonly spinNs: bigint;
  /** Requests still to go without polling, and the current back-off (doubled per missed poll). */
  private skip = 0;
  private backoff = 0;
  /** Whether polling also waits for the machine to have room (the default budget; not a chosen one). */
  private readonly gated: boolean;
  /** Requests polled for, and the answers the poll read (the rest came through the event loop). */
  readonly polls = { polled: 0, caught: 0 };

  constructor(
    readonly command: string,
    options: StdioOptions = {},
  ) {
    const words = splitCommand(command);
    const spinUs = options.spinUs ?? spinBudgetUs();
    this.child = spawn(words ? words[0] : command, words ? words.slice(1) : [], {
      shell: !words,
      cwd: options.cwd,
      env: {
        ...process.env,
        ...options.env,
        PYTHONUNBUFFERED: '1',
        SIMLENS_PROTOCOL: 'stdio',
        SIMLENS_SPIN_US: String(spinUs),
      },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
      windowsHide: true,
    });
    const pid = this.child.pid;
    if (pid !== undefined) track(pid);
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        if (pid !== undefined) livePids.delete(pid);
        this.fail(
          new SimulatorFault(
            'crash',
            `the simulator process exited (${signal ? `signal ${signal}` : `code ${code}`})${this.stderrHint()}`,
          ),
        );
        resolve();
      });
      this.child.once('error', (err) => {
        if (pid !== undefined) livePids.delete(pid);
        this.fail(new SimulatorFault('crash', `the simulator process could not be started: ${err.message}`));
        resolve();
      });
    });
    this.child.stdout!.on('data', (chunk: Buffer) => this.onData(chunk));
    // libuv's descriptor of the pipe (non-blocking): read directly only while polling, between two
    // event-loop turns, so what it reads and what the event loop reads never interleave.
    const fd = (this.child.stdout as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
    this.pollFd = spinUs > 0 && typeof fd === 'number' && fd >= 0 ? fd : -1;
    const stopPolling = () => (this.pollFd = -1);
    this.child.stdout!.once('end', stopPolling);
    this.child.stdout!.once('close', stopPolling);
    this.spinNs = BigInt(spinUs) * 1000n;
    this.gated = options.spinUs === undefined && !process.env.SIMLENS_SPIN_US?.trim();
    this.child.stderr!.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      this.stderrTail = (this.stderrTail + text).slice(-STDERR_TAIL);
      if (options.onStderr) {
        const lines = (this.stderrLine + text).split('\n');
        this.stderrLine = lines.pop() ?? '';
        for (const line of lines) options.onStderr(line);
      }
    });
    // EPIPE on a dead child's stdin is reported through 'exit'.
    this.child.stdin!.on('error', () => {});
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get dead(): string | undefined {
    return this._dead;
  }

  /** The last line the simulator wrote to stderr, for messages. */
  private stderrHint(): string {
    const lines = this.stderrTail
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    return lines.length ? `; last stderr line: "${printableExcerpt(lines[lines.length - 1], 200)}"` : '';
  }

  private onData(chunk: Buffer): void {
    if (this._dead) return;
    let messages: unknown[];
    try {
      messages = this.decoder.push(chunk);
    } catch (e) {
      this.fail(new SimulatorFault('garbage', e instanceof FramingError ? e.message : String(e)));
      return;
    }
    for (const m of messages) this.onMessage(m);
  }

  private onMessage(m: unknown): void {
    if (!m || typeof m !== 'object' || Array.isArray(m)) {
      this.fail(
        new SimulatorFault(
          'invalid',
          `a message that is not a JSON-RPC object: ${printableExcerpt(JSON.stringify(m))}`,
        ),
      );
      return;
    }
    const msg = m as Record<string, unknown>;
    if (msg.jsonrpc !== '2.0') {
      this.fail(
        new SimulatorFault('invalid', `a message without "jsonrpc": "2.0": ${printableExcerpt(JSON.stringify(m))}`),
      );
      return;
    }
    if (typeof msg.method === 'string') {
      // Requests and notifications from the simulator: none is defined; answer requests with "method not found".
      if (msg.id !== undefined && msg.id !== null)
        this.write({
          jsonrpc: '2.0',
          id: msg.id,
          error: { code: -32601, message: `SimLens does not handle ${msg.method}` },
        });
      return;
    }
    const id = typeof msg.id === 'number' ? msg.id : Number.NaN;
    const p = this.pending.get(id);
    if (!p) {
      this.fail(
        new SimulatorFault(
          'invalid',
          `a response to no pending request (id ${printableExcerpt(JSON.stringify(msg.id ?? null))})`,
        ),
      );
      return;
    }
    this.pending.delete(id);
    if (this.pending.size === 0) this.watchdog?.unref();
    settle(p, msg);
  }

  /** Makes sure the watchdog fires by `deadline` and keeps the process alive while requests are pending. */
  private arm(deadline: number): void {
    if (this.watchdog && this.watchdogAt <= deadline) {
      this.watchdog.ref();
      return;
    }
    if (this.watchdog) clearTimeout(this.watchdog);
    this.watchdogAt = deadline;
    this.watchdog = setTimeout(() => this.expire(), Math.max(0, deadline - performance.now()));
  }

  /** The watchdog fired: the first request past its deadline times out (and the connection with it). */
  private expire(): void {
    this.watchdog = undefined;
    this.watchdogAt = Number.POSITIVE_INFINITY;
    const now = performance.now();
    let next = Number.POSITIVE_INFINITY;
    for (const [id, p] of this.pending) {
      if (p.deadline <= now) {
        this.pending.delete(id);
        const fault = new SimulatorFault(
          'timeout',
          `no answer to ${p.method} within ${p.timeoutMs} ms${this.stderrHint()}`,
        );
        p.reject(fault);
        // A hung process cannot be trusted with the next conversation.
        this.fail(fault);
        return;
      }
      next = Math.min(next, p.deadline);
    }
    if (next < Number.POSITIVE_INFINITY) this.arm(next);
  }

  /**
   * Writes a message. Notifications (`end`) wait for the next request and go out in the same write
   * (one system call and one wake-up of the simulator fewer per conversation), or after
   * NOTIFY_DELAY_MS when no request follows.
   */
  private write(message: unknown, later = false): void {
    if (this._dead || !this.child.stdin?.writable) return;
    const frame = encodeFrame(message);
    if (later) {
      this.queued.push(frame);
      this.notifyTimer ??= setTimeout(() => this.flush(), NOTIFY_DELAY_MS).unref();
      return;
    }
    if (this.queued.length) {
      this.queued.push(frame);
      this.flush();
    } else this.child.stdin.write(frame);
  }

  private flush(): void {
    if (this.notifyTimer) clearTimeout(this.notifyTimer);
    this.notifyTimer = undefined;
    const frames = this.queued.splice(0);
    if (frames.length && !this._dead && this.child.stdin?.writable)
      this.child.stdin.write(frames.length === 1 ? frames[0] : Buffer.concat(frames));
  }

  private fail(fault: SimulatorFault): void {
    if (!this._dead) this._dead = fault.message;
    if (this.watchdog) clearTimeout(this.watchdog);
    this.watchdog = undefined;
    this.watchdogAt = Number.POSITIVE_INFINITY;
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      p.reject(fault);
    }
    this.kill();
  }

  private kill(): void {
    const pid = this.child.pid;
    if (pid !== undefined && this.child.exitCode === null && this.child.signalCode === null) killGroup(pid);
  }

  request(method: string, params: unknown, timeoutMs: number): Promise<unknown> {
    if (this._dead) return Promise.reject(new SimulatorFault('closed', this._dead));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const deadline = performance.now() + timeoutMs;
      inFlight++;
      const done =
        <T>(f: (v: T) => void) =>
        (v: T) => {
          inFlight--;
          f(v);
        };
      this.pending.set(id, { method, resolve: done(resolve), reject: done(reject), deadline, timeoutMs });
      this.arm(deadline);
      this.write({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
      if (this.pollFd >= 0 && inFlight === 1) {
        if (this.skip > 0) this.skip--;
        else if (!this.gated || machineHasRoom()) {
          // A missed poll (the answer came later than the budget) doubles the number of requests
          // that go without one (up to 64); an answer read by the poll resets it.
          if (this.poll(id, process.hrtime.bigint() + this.spinNs)) this.backoff = 0;
          else this.skip = this.backoff = Math.min(64, this.backoff * 2 || 1);
        }
      }
    });
  }

  /**
   * Reads the simulator's stdout without waiting until request `id` is answered or `until` (an
   * hrtime in ns) has passed (then the event loop waits as usual); whether the poll read the answer.
   */
  private poll(id: number, until: bigint): boolean {
    this.polls.polled++;
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0; // each empty read throws EAGAIN: no stack to capture
    try {
      while (this.pending.has(id) && !this._dead) {
        // Still the pipe libuv reads (not closed, its number not reused): else never poll again.
        const handle = (this.child.stdout as unknown as { _handle?: { fd?: unknown } | null })._handle;
        if (!handle || handle.fd !== this.pollFd) {
          this.pollFd = -1;
          return false;
        }
        let n: number;
        try {
          n = readSync(this.pollFd, pollBuffer, 0, pollBuffer.length, null);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'EAGAIN' || process.hrtime.bigint() > until) return false;
          continue;
        }
        if (n <= 0) {
          this.pollFd = -1; // end of file: the event loop sees it too (and the exit)
          return false;
        }
        this.onData(Buffer.from(pollBuffer.subarray(0, n))); // the decoder keeps what it is given
        if (this.pending.has(id) && process.hrtime.bigint() > until) return false; // bytes, but not the answer
      }
      if (this._dead) return false;
      this.polls.caught++;
      return true;
    } finally {
      Error.stackTraceLimit = limit;
    }
  }

  notify(method: string, params: unknown): void {
    this.write({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) }, true);
  }

  async close(graceMs = 1000): Promise<void> {
    if (!this._dead) {
      try {
        await this.request('shutdown', undefined, graceMs);
      } catch {
        // it is stopped below anyway
      }
      this._dead = 'closed';
      this.child.stdin?.end();
    }
    const timer = setTimeout(() => this.kill(), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}

function settle(p: Pending, msg: Record<string, unknown>): void {
  if (msg.error !== undefined) {
    const err = msg.error as { code?: unknown; message?: unknown } | null;
    const code = err && typeof err.code === 'number' ? err.code : undefined;
    const text = err && typeof err.message === 'string' ? err.message : JSON.stringify(msg.error);
    p.reject(
      new SimulatorFault(
        'rpc_error',
        `${p.method} failed: ${printableExcerpt(text, 300)}${code !== undefined ? ` (code ${code})` : ''}`,
        code,
      ),
    );
  } else if (!('result' in msg)) {
    p.reject(new SimulatorFault('invalid', `the answer to ${p.method} has neither result nor error`));
  } else p.resolve(msg.result);
}

/** A simulator behind an HTTP endpoint: each JSON-RPC message is POSTed as the request body. */
export class HttpConnection implements SimulatorConnection {
  readonly shared = true;
  private nextId = 1;
  private _dead: string | undefined;

  constructor(
    readonly url: string,
    private readonly signal?: AbortSignal,
  ) {}

  get dead(): string | undefined {
    return this._dead;
  }

  async request(method: string, params: unknown, timeoutMs: number): Promise<unknown> {
    const id = this.nextId++;
    const body = JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = this.signal ? AbortSignal.any([timeout, this.signal]) : timeout;
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        signal,
      });
    } catch (e) {
      if (timeout.aborted) throw new SimulatorFault('timeout', `no answer to ${method} within ${timeoutMs} ms`);
      throw new SimulatorFault(
        'unreachable',
        `${method}: ${this.url} could not be reached (${(e as Error).cause ? String((e as { cause: unknown }).cause) : (e as Error).message})`,
      );
    }
    let text: string;
    try {
      text = await response.text();
    } catch (e) {
      if (timeout.aborted) throw new SimulatorFault('timeout', `no answer to ${method} within ${timeoutMs} ms`);
      throw new SimulatorFault('unreachable', `${method}: reading the answer failed (${(e as Error).message})`);
    }
    if (!response.ok && !text.trim().startsWith('{'))
      throw new SimulatorFault('rpc_error', `${method}: HTTP ${response.status}: "${printableExcerpt(text)}"`);
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      throw new SimulatorFault(
        'garbage',
        `${method}: the answer is not JSON (HTTP ${response.status}): "${printableExcerpt(text)}"`,
      );
    }
    if (
      !msg ||
      typeof msg !== 'object' ||
      (msg as { jsonrpc?: unknown }).jsonrpc !== '2.0' ||
      (msg as { id?: unknown }).id !== id
    ) {
      throw new SimulatorFault(
        'invalid',
        `${method}: the answer is not a JSON-RPC 2.0 response to id ${id}: "${printableExcerpt(text)}"`,
      );
    }
    return new Promise((resolve, reject) =>
      settle({ method, resolve, reject, deadline: 0, timeoutMs }, msg as Record<string, unknown>),
    );
  }

  notify(method: string, params: unknown): void {
    const body = JSON.stringify({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) });
    fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(10_000),
    })
      .then((r) => r.arrayBuffer())
      .catch(() => {});
  }

  async close(graceMs = 1000): Promise<void> {
    if (this._dead) return;
    try {
      await this.request('shutdown', undefined, graceMs);
    } catch {
      // a shared endpoint may ignore it
    }
    this._dead = 'closed';
  }
}
