/**
 * SimLens simulator protocol adapter (simlens-sim/1.1) for Node, one file, Node built-ins only.
 * The TypeScript twin of examples/python/simlens_adapter.py: wraps any object with `start` and
 * `respond` into a simulator `simlens simulate --user exec:"node --import tsx my_sim.ts"` can run.
 *
 *   import { serve } from './simlensAdapter';
 *   serve((context) => new MyUser(context), { name: 'my-user', version: '0.1' });
 *
 * stdio with the Language Server Protocol's framing; `console.log` is redirected to stderr so it
 * never breaks the protocol; the process exits when stdin closes or its parent goes away.
 * Between messages it waits in a blocking read of fd 0 and writes each answer with one blocking
 * write to fd 1 (no event-loop turn per message); your timers and I/O run only while a method runs.
 * Item references (1.1, capability `item_refs`): SimLens sends each item in full once, then
 * `{"ref": item_id}`; they are expanded here, so `respond` always sees full items.
 */
import { fstatSync, readSync, writeSync } from 'node:fs';

export interface UserTurn {
  utterance: string;
  acts: string[];
  trace?: Record<string, unknown>;
  done?: boolean;
  outcome?: 'accepted' | 'ended' | 'abandoned' | 'gave_up';
  end_reason?: string;
}

export interface SimulatedUser {
  start(params: {
    session: string;
    seed: number;
    index: number;
    task?: string;
    profile?: Record<string, unknown>;
  }): UserTurn | Promise<UserTurn>;
  respond(params: {
    session: string;
    utterance: string;
    recommendations: Record<string, unknown>[];
    acts: string[];
  }): UserTurn | Promise<UserTurn>;
  restore?(params: Record<string, unknown>): void | Promise<void>;
  end?(): void;
}

export interface ServeOptions {
  name: string;
  version?: string;
  /** One process may hold many conversations at once (then --concurrency N uses one process). */
  sessions?: boolean | number;
  /** Declares `restore` (every user object made by the factory implements it). */
  restore?: boolean;
}

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const PLAIN = Buffer.from('Content-Length: ', 'latin1');

/** The Content-Length of the header in `buffer[0, end)`: read straight from the bytes when it is the usual header alone. */
function contentLength(buffer: Buffer, end: number): number {
  if (end > PLAIN.length && buffer.compare(PLAIN, 0, PLAIN.length, 0, PLAIN.length) === 0) {
    let n = 0;
    let i = PLAIN.length;
    for (; i < end; i++) {
      const c = buffer[i];
      if (c < 0x30 || c > 0x39) break;
      n = n * 10 + c - 0x30;
    }
    if (i === end && i > PLAIN.length) return n;
  }
  const m = /content-length:\s*(\d+)/i.exec(buffer.toString('latin1', 0, end));
  if (!m) throw new Error('a message header without Content-Length');
  return Number(m[1]);
}

export function serve(factory: (context: Record<string, unknown>) => SimulatedUser, options: ServeOptions): void {
  // stdout is for protocol messages only.
  console.log = (...args: unknown[]) => console.error(...args);
  let context: Record<string, unknown> = {};
  const sessions = new Map<string, SimulatedUser>();
  /** item_id -> the item as last sent in full (1.1 item references). */
  const items = new Map<string, Record<string, unknown>>();
  const expand = (recommendations: Record<string, unknown>[]): Record<string, unknown>[] =>
    recommendations.map((item) => {
      const ref = item.ref;
      if (typeof ref === 'string' && Object.keys(item).length === 1) {
        const full = items.get(ref);
        if (!full) throw new RpcError(-32003, `unknown item reference ${JSON.stringify(ref)} (never sent in full)`);
        return full;
      }
      items.set(String(item.item_id), item);
      return item;
    });

  /** The answer to a request: a value, or a promise when the user's method returns one. */
  const call = (method: string, params: Record<string, unknown>): unknown => {
    switch (method) {
      case 'initialize': {
        context = params;
        const capabilities: Record<string, unknown> = { restore: !!options.restore, item_refs: true };
        if (options.sessions) capabilities.sessions = options.sessions;
        return { protocol: 'simlens-sim/1.1', name: options.name, version: options.version ?? '0', capabilities };
      }
      case 'start': {
        const user = factory(context);
        sessions.set(String(params.session), user);
        return user.start(params as never);
      }
      case 'restore': {
        const user = factory(context);
        if (!options.restore || !user.restore) throw new RpcError(-32001, 'this simulator cannot restore; replay it');
        sessions.set(String(params.session), user);
        return Promise.resolve(user.restore(params)).then(() => ({ restored: true }));
      }
      case 'respond': {
        // Items first: SimLens counts them as sent even when this request fails.
        params.recommendations = expand((params.recommendations ?? []) as Record<string, unknown>[]);
        const user = sessions.get(String(params.session));
        if (!user) throw new RpcError(-32002, `unknown session ${String(params.session)}`);
        return user.respond(params as never);
      }
      case 'end': {
        const user = sessions.get(String(params.session));
        sessions.delete(String(params.session));
        user?.end?.();
        return null;
      }
      case 'shutdown':
        for (const u of sessions.values()) u.end?.();
        sessions.clear();
        return null;
      default:
        throw new RpcError(-32601, `method not found: ${method}`);
    }
  };

  // Header and body in one write: one system call and one wake-up of SimLens per message. Written
  // straight to fd 1 (blocking; no stream machinery) unless that cannot be done (Windows, a
  // non-blocking stdout): then through process.stdout, and from then on always (order kept).
  let stdoutStream = process.platform === 'win32';
  // The frame is made in one reused buffer: the body encoded once, straight after room for the
  // header (no byte count of the string first, no concatenated copy, no new buffer per message).
  let out = Buffer.allocUnsafe(1 << 16);
  const ROOM = 40; // "Content-Length: " + up to 20 digits + CRLF CRLF
  const write = (message: unknown) => {
    const json = JSON.stringify(message);
    if (ROOM + 3 * json.length > out.length) out = Buffer.allocUnsafe(ROOM + 3 * json.length);
    const length = out.write(json, ROOM, 'utf8');
    const header = `Content-Length: ${length}\r\n\r\n`;
    const start = ROOM - header.length;
    out.write(header, start, 'latin1');
    if (!stdoutStream) {
      const bytes = out.subarray(start, ROOM + length);
      let done = 0;
      try {
        while (done < bytes.length) done += writeSync(1, bytes, done);
        return;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EPIPE') process.exit(0); // SimLens is gone
        if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
        stdoutStream = true;
        process.stdout.write(Buffer.from(bytes.subarray(done))); // a copy: the stream keeps it, `out` is reused
        return;
      }
    }
    process.stdout.write(Buffer.from(out.subarray(start, ROOM + length)));
  };

  const replied = (message: { id?: unknown }, result: unknown) => {
    try {
      if (message.id !== undefined) write({ jsonrpc: '2.0', id: message.id, result: result ?? null });
    } catch (e) {
      failed(message, e); // a result JSON cannot hold (a cycle, a BigInt)
    }
  };
  const failed = (message: { id?: unknown }, e: unknown) => {
    console.error(e);
    if (message.id !== undefined)
      write({
        jsonrpc: '2.0',
        id: message.id,
        error: {
          code: e instanceof RpcError ? e.code : -32000,
          message: e instanceof Error ? `${e.name}: ${e.message}` : String(e),
        },
      });
  };
  /** Answers a message: at once when the user's method returns a value, else when its promise settles. */
  const answer = (message: { id?: unknown; method?: unknown; params?: unknown }): Promise<void> | undefined => {
    let result: unknown;
    try {
      result = call(String(message.method), (message.params ?? {}) as Record<string, unknown>);
    } catch (e) {
      failed(message, e);
      return undefined;
    }
    if (typeof (result as PromiseLike<unknown> | undefined)?.then !== 'function') {
      replied(message, result);
      return undefined;
    }
    return Promise.resolve(result).then(
      (r) => replied(message, r),
      (e) => failed(message, e),
    );
  };

  const EMPTY = Buffer.alloc(0);
  const HEADER_END = Buffer.from('\r\n\r\n', 'latin1');
  /** Bytes of an incomplete message (a copy: the read buffer is reused). */
  let pending: Buffer = EMPTY;
  /** The whole messages in `pending` + `chunk`; what is left over is kept in `pending`. */
  const messages = (chunk: Buffer): { id?: unknown; method?: unknown; params?: unknown }[] => {
    let buffer = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    const found = [];
    for (;;) {
      const end = buffer.indexOf(HEADER_END);
      if (end < 0) break;
      const length = contentLength(buffer, end);
      if (buffer.length < end + 4 + length) break;
      found.push(JSON.parse(buffer.toString('utf8', end + 4, end + 4 + length)));
      buffer = buffer.subarray(end + 4 + length);
    }
    pending = buffer.length ? Buffer.from(buffer) : EMPTY;
    return found;
  };

  // Messages are handled one at a time, in order (a session's turns never overtake each other).
  // Between messages the adapter waits in a blocking read of fd 0: no event-loop turn and no stream
  // machinery per message (while a turn is answered, its awaits run the event loop as usual; timers
  // of the user's own do not fire while the adapter waits for the next message). Where fd 0 cannot
  // be read that way (Windows, a non-blocking stdin) it reads process.stdin's events instead.
  const exit = () => process.exit(0);
  const streamed = () => {
    let queue: Promise<void> = Promise.resolve();
    process.stdin.on('data', (chunk: Buffer) => {
      for (const m of messages(chunk)) queue = queue.then(() => answer(m));
    });
    process.stdin.on('end', () => void queue.then(exit));
  };
  const blocking = async () => {
    const chunk = Buffer.allocUnsafe(1 << 16);
    for (;;) {
      let n: number;
      try {
        n = readSync(0, chunk, 0, chunk.length, null);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN') return streamed();
        if (code === 'EOF') return exit();
        throw e;
      }
      if (n === 0) return exit(); // stdin closed: SimLens is gone
      for (const m of messages(chunk.subarray(0, n))) {
        const pending = answer(m);
        if (pending) await pending;
      }
    }
  };
  // Poll, then wait (docs/protocol.md "Latency"): SimLens passes its poll budget in SIMLENS_SPIN_US
  // (0 turns polling off). A process asleep in a read costs the writer and itself a kernel wake-up
  // per message; polling for the next request for a short while after each answer avoids both when
  // SimLens answers quickly. fd 0 (a pipe or a socket) is made non-blocking (libuv does so when
  // process.stdin is opened on it); after the budget the adapter waits for the stream's next chunk.
  // Each missed poll (the request came later) doubles the number of waits that go without one, up
  // to 64: behind a slow recommender, or on a busy machine, it mostly just waits.
  const spinNs = BigInt(Math.max(0, Math.min(10_000, Math.round(Number(process.env.SIMLENS_SPIN_US) || 0)))) * 1000n;
  const polled = async () => {
    // The adapter's own 'data' listener takes what the event loop reads (while a method awaits, or
    // while the adapter waits); between two event-loop turns it reads fd 0 itself. A user's own
    // listeners or pause() cannot take messages from it: every chunk the stream emits comes here.
    const stdin = process.stdin;
    const held: Buffer[] = [];
    let ended = false;
    let wakeUp: (() => void) | undefined;
    stdin.on('data', (c: Buffer) => {
      held.push(c);
      wakeUp?.();
    });
    stdin.on('end', () => {
      ended = true;
      wakeUp?.();
    });
    // Paused by the user's code while the adapter waits: it reads on (its handle would stop reading
    // one tick later, and the wait would never end).
    stdin.on('pause', () => {
      if (wakeUp) stdin.resume();
    });
    const chunk = Buffer.allocUnsafe(1 << 16);
    const END = EMPTY;
    /** One look: what the stream emitted, else what fd 0 has now; null: nothing yet; END: closed. */
    const look = (): Buffer | null => {
      if (!held.length && stdin.readableLength > 0) stdin.read(); // held by a paused stream: emitted to 'data'
      if (held.length) return held.length === 1 ? held.pop()! : Buffer.concat(held.splice(0));
      if (ended) return END;
      try {
        const n = readSync(0, chunk, 0, chunk.length, null);
        return n === 0 ? END : chunk.subarray(0, n);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN') return null;
        if (code === 'EOF') return END;
        throw e;
      }
    };
    const wake = () =>
      new Promise<void>((resolve) => {
        wakeUp = () => {
          wakeUp = undefined;
          resolve();
        };
        if (!stdin.readableFlowing) stdin.resume(); // paused by the user's code: the adapter reads on
      });
    let skip = 0;
    let backoff = 0;
    for (;;) {
      let data: Buffer | null;
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 0; // each empty read throws EAGAIN: no stack to capture
      try {
        data = look();
        if (!data && skip > 0) skip--;
        else if (!data) {
          const until = process.hrtime.bigint() + spinNs;
          while (!data && process.hrtime.bigint() < until) data = look();
          // A missed poll doubles the number of waits that go without one (up to 64).
          if (data) backoff = 0;
          else skip = backoff = Math.min(64, backoff * 2 || 1);
        }
      } finally {
        Error.stackTraceLimit = limit;
      }
      while (!data) {
        await wake();
        data = look();
      }
      if (data === END) return exit(); // stdin closed: SimLens is gone
      for (const m of messages(data)) {
        const pending = answer(m);
        if (pending) await pending;
      }
    }
  };
  /** Polling only on a pipe or socket (what SimLens gives): a terminal or a file is read as before. */
  const pipedStdin = () => {
    try {
      const st = fstatSync(0);
      return st.isFIFO() || st.isSocket();
    } catch {
      return false;
    }
  };
  // After the caller's own module code (serve() returns first).
  setImmediate(() =>
    process.platform === 'win32' ? streamed() : spinNs > 0n && pipedStdin() ? void polled() : void blocking(),
  );
  // SimLens killed outright: leave as soon as we are handed to another parent.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) process.exit(0);
  }, 500).unref();
}
