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
 * Item references (1.1, capability `item_refs`): SimLens sends each item in full once, then
 * `{"ref": item_id}`; they are expanded here, so `respond` always sees full items.
 */

export interface UserTurn {
  utterance: string;
  acts: string[];
  trace?: Record<string, unknown>;
  done?: boolean;
  outcome?: 'accepted' | 'ended' | 'abandoned';
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
  const out = process.stdout;
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

  const call = async (method: string, params: Record<string, unknown>): Promise<unknown> => {
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
        await user.restore(params);
        return { restored: true };
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

  // Header and body in one write: one system call and one wake-up of SimLens per message.
  const write = (message: unknown) => {
    const json = JSON.stringify(message);
    out.write(`Content-Length: ${Buffer.byteLength(json, 'utf8')}\r\n\r\n${json}`);
  };

  const answer = async (message: { id?: unknown; method?: unknown; params?: unknown }) => {
    const hasId = message.id !== undefined;
    try {
      const result = await call(String(message.method), (message.params ?? {}) as Record<string, unknown>);
      if (hasId) write({ jsonrpc: '2.0', id: message.id, result: result ?? null });
    } catch (e) {
      console.error(e);
      if (hasId)
        write({
          jsonrpc: '2.0',
          id: message.id,
          error: {
            code: e instanceof RpcError ? e.code : -32000,
            message: e instanceof Error ? `${e.name}: ${e.message}` : String(e),
          },
        });
    }
  };

  // Messages are handled one at a time, in order (a session's turns never overtake each other): a
  // message that arrives while another is being answered waits for it; otherwise it is answered at once.
  let queue: Promise<void> | undefined;
  const handle = (message: { id?: unknown; method?: unknown; params?: unknown }) => {
    const next: Promise<void> = queue ? queue.then(() => answer(message)) : answer(message);
    queue = next;
    void next.then(() => {
      if (queue === next) queue = undefined;
    });
  };

  let buffer: Buffer = Buffer.alloc(0);
  process.stdin.on('data', (chunk: Buffer) => {
    buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
    for (;;) {
      const end = buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = contentLength(buffer, end);
      if (buffer.length < end + 4 + length) return;
      const body = buffer.toString('utf8', end + 4, end + 4 + length);
      buffer = buffer.subarray(end + 4 + length);
      handle(JSON.parse(body));
    }
  });
  process.stdin.on('end', () => void (queue ?? Promise.resolve()).then(() => process.exit(0)));
  // SimLens killed outright: leave as soon as we are handed to another parent.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) process.exit(0);
  }, 500).unref();
}
