/**
 * Notifications over stdio (src/core/sim/users/external/connection.ts): `end` goes out in the same
 * write as the next request, or on its own shortly after when no request follows, and before
 * `shutdown`; the simulator reads it in order either way.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { StdioConnection } from '../../../src/core/sim/users/external/connection';

const logger = path.resolve(__dirname, '../../fixtures/simulators/chunk_logger.js');

async function until(what: string, cond: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('end rides with the next request, goes alone when none follows, and precedes shutdown', async () => {
  const chunks: string[] = [];
  const conn = new StdioConnection(`${process.execPath} ${logger}`, {
    onStderr: (line) => {
      if (line.startsWith('chunk ')) chunks.push(line.slice(6));
    },
  });
  // The writes to the simulator's stdin, each as the methods it carries.
  const writes: string[] = [];
  const stdin = (conn as unknown as { child: { stdin: { write: (b: Buffer) => boolean } } }).child.stdin;
  const write = stdin.write.bind(stdin);
  stdin.write = (b: Buffer) => {
    writes.push([...b.toString('utf8').matchAll(/"method":"(\w+)"/g)].map((m) => m[1]).join(','));
    return write(b);
  };
  try {
    await conn.request('initialize', {}, 30_000);
    await conn.request('start', { session: 'a', seed: 1, index: 0 }, 10_000);
    conn.notify('end', { session: 'a' });
    await conn.request('start', { session: 'b', seed: 2, index: 1 }, 10_000);
    await until('the start of b', () => chunks.some((c) => c.includes('start')) && chunks.length >= 3);
    // One write holds the end of a and the start of b, in that order.
    assert.deepEqual(writes, ['initialize', 'start', 'end,start']);
    assert.deepEqual(chunks.slice(0, 3), ['initialize', 'start', 'end,start']);
    // No request follows: the end goes out on its own.
    conn.notify('end', { session: 'b' });
    await until('the lone end', () => chunks.length >= 4);
    assert.equal(chunks[3], 'end');
    assert.equal(writes[3], 'end');
    // An end just before closing goes out before the shutdown.
    await conn.request('start', { session: 'c', seed: 3, index: 2 }, 10_000);
    conn.notify('end', { session: 'c' });
    await conn.close(2000);
    await until('the shutdown', () => chunks.some((c) => c.includes('shutdown')));
    assert.deepEqual(chunks.slice(4).join(',').split(','), ['start', 'end', 'shutdown']);
  } finally {
    await conn.close(500);
  }
});
