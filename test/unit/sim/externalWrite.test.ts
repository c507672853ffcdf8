/**
 * SimLens's writes to a simulator's stdin (src/core/sim/users/external/connection.ts): straight to
 * the pipe while the stream holds nothing, through the stream for whatever a full pipe does not
 * take, and never a byte out of order between the two ways, however the simulator reads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { StdioConnection } from '../../../src/core/sim/users/external/connection';

const slowReader = path.resolve(__dirname, '../../fixtures/simulators/slow_reader.js');

/** The connection's stdin stream, with a count of the writes that went through it. */
function streamWrites(conn: StdioConnection): { count: number; stdin: { writableLength: number } } {
  const stdin = (conn as unknown as { child: { stdin: { write: (b: Buffer) => boolean; writableLength: number } } })
    .child.stdin;
  const spy = { count: 0, stdin };
  const write = stdin.write.bind(stdin);
  stdin.write = (b: Buffer) => {
    spy.count++;
    return write(b);
  };
  return spy;
}

for (const streamOnly of [false, true]) {
  test(`a pipe filled while the simulator does not read: every message arrives whole and in order (${streamOnly ? 'stream only' : 'straight to the pipe, then the stream'})`, async () => {
    const conn = new StdioConnection(`${process.execPath} ${slowReader}`, { streamOnly });
    const spy = streamWrites(conn);
    try {
      await conn.request('initialize', {}, 30_000);
      // The simulator stops reading for 500 ms after this answer.
      await conn.request('start', { session: 'a', seed: 1, index: 0, pause_ms: 500 }, 10_000);
      assert.equal(spy.count, streamOnly ? 2 : 0, 'the first messages went straight to the pipe');
      const pad = 'x'.repeat(3000);
      const answers: Promise<unknown>[] = [];
      const order: number[] = [];
      const send = (i: number) =>
        answers.push(
          conn
            .request('respond', { session: 'a', utterance: `${i}:${pad}`, recommendations: [], acts: [] }, 30_000)
            .then((r) => {
              order.push(i);
              return (r as { utterance: string }).utterance.split(':')[0];
            }),
        );
      // 150 requests of 3 KB at once: far more than a pipe holds (64 KB).
      let i = 0;
      for (; i < 150; i++) send(i);
      assert.ok(spy.stdin.writableLength > 0, 'the stream holds what the full pipe did not take');
      if (!streamOnly) assert.ok(spy.count < 150, 'the first ones went straight to the pipe');
      // More while the pipe drains: the pipe has room at times while the stream still holds bytes.
      await new Promise<void>((resolve) => {
        const timer = setInterval(() => {
          for (let k = 0; k < 3; k++) send(i++);
          if (i >= 450) {
            clearInterval(timer);
            resolve();
          }
        }, 4);
      });
      const got = await Promise.all(answers);
      assert.deepEqual(
        got,
        got.map((_, k) => String(k)),
      );
      assert.deepEqual(
        order,
        order.map((_, k) => k),
      );
      assert.equal(conn.dead, undefined);
      // Once the stream is empty again, messages go straight to the pipe again.
      const before = spy.count;
      await conn.request('respond', { session: 'a', utterance: 'last', recommendations: [], acts: [] }, 10_000);
      assert.equal(spy.count - before, streamOnly ? 1 : 0);
    } finally {
      await conn.close(1000);
    }
  });
}
