/**
 * A fork restored from the traces (no manifest beside the file) continues the recorded user, not a
 * new one (fifteenth round, independent review): the agenda user kept its freshly drawn history, so
 * a PKG continuation accepted items its recorded snapshot lists as owned (47 of 97 accepting
 * continuations in the review) and its opinions came from another history; a meta user's target
 * group was rebuilt around a new target (the recorded target outside its own group in 147 of 160).
 * A fork at the turn where the user ended the conversation is refused: nothing reacts to a goodbye.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Conversation } from '../../../src/core/model';
import { runCli } from '../../support/cli';
import { tempDir } from '../jsonl/helpers';

let dir = '';
let cleanup = () => undefined as void;
before(() => ({ dir, cleanup } = tempDir('simlens-fork-restore-')));
after(() => cleanup());

const read = (file: string) =>
  readFileSync(join(dir, file), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Conversation);

async function runWithoutManifest(file: string, extra: string[]): Promise<Conversation[]> {
  const r = await runCli(
    [
      'simulate',
      '--agent',
      'local-good',
      '--n',
      '40',
      '--seed',
      'fork-restore',
      '--catalog-size',
      '800',
      '--out',
      file,
      ...extra,
    ],
    dir,
  );
  assert.equal(r.code, 0, r.err);
  rmSync(join(dir, `${file}.manifest.json`));
  return read(file);
}

/** Forks every conversation with at least `turn + 2` turns at `turn`, `n` continuations each. */
async function forkAll(file: string, convs: Conversation[], turn: number, n: number, extra: string[]) {
  const out: Conversation[] = [];
  for (const c of convs.filter((x) => x.turns.length >= turn + 2).slice(0, 8)) {
    const target = `${file}-${c.id}-${turn}.jsonl`;
    const r = await runCli(
      [
        'simulate',
        '--fork',
        `${file}:${c.id}:${turn}`,
        '--n',
        String(n),
        '--catalog-size',
        '800',
        '--out',
        target,
        ...extra,
      ],
      dir,
    );
    assert.equal(r.code, 0, r.err);
    assert.match(r.err + r.out, /state by restore/);
    out.push(...read(target));
  }
  return out;
}

describe('fork by restore continues the recorded user', () => {
  test('an agenda PKG user keeps its recorded history: no continuation accepts an item it owns', async () => {
    const convs = await runWithoutManifest('pkg.jsonl', ['--user', 'agenda', '--preferences', 'pkg']);
    let accepts = 0;
    for (const turn of [0, 1]) {
      for (const c of await forkAll('pkg.jsonl', convs, turn, 6, ['--user', 'agenda', '--preferences', 'pkg'])) {
        const owned = new Set(c.turns[0].trace?.preferences?.consumed_items ?? []);
        assert.ok(owned.size > 0, c.id);
        c.turns.forEach((t, i) => {
          if (t.trace?.user_act !== 'Note.Accept') return;
          accepts++;
          for (const id of t.trace.said?.items ?? [])
            assert.ok(!owned.has(id), `${c.id} turn ${i} accepts ${id}, owned`);
        });
      }
    }
    assert.ok(accepts >= 10, `accepting continuations: ${accepts}`);
  });

  test('a meta user keeps its recorded target group', async () => {
    const extra = ['--user', 'agenda', '--preferences', 'pkg', '--meta', 'tol'];
    const convs = await runWithoutManifest('meta.jsonl', extra);
    let checked = 0;
    for (const c of await forkAll('meta.jsonl', convs, 1, 4, extra)) {
      const recorded = c.turns[1].trace?.target;
      assert.ok(recorded, c.id);
      for (const t of c.turns.slice(2)) {
        const target = t.trace?.target;
        if (!target) continue;
        checked++;
        assert.deepEqual(target.alternatives, recorded.alternatives, `${c.id}: the group is the recorded one`);
        assert.ok(target.alternatives?.includes(target.item_id), `${c.id}: the target is in its group`);
      }
    }
    assert.ok(checked >= 20, `continuation turns checked: ${checked}`);
  });

  test('a fork at the turn where the user ended the conversation is refused', async () => {
    const convs = read('pkg.jsonl');
    const ended = convs.find((c) => c.turns[c.turns.length - 1].trace?.end_reason !== undefined)!;
    const last = ended.turns.length - 1;
    const r = await runCli(
      ['simulate', '--fork', `pkg.jsonl:${ended.id}:${last}`, '--n', '2', '--out', 'x.jsonl'],
      dir,
    );
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /is where the user ended the conversation \(end_reason \w+\): there is no reaction to fork/);
  });
});
