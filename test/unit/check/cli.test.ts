/** `simlens check FILE`: text and JSON output, exit codes, escaping of conversation text. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../../src/cli/cli';
import type { CliIo } from '../../../src/cli/types';
import { tempDir } from '../jsonl/helpers';
import { conv, turn } from './helpers';

async function run(args: string[], cwd: string) {
  const io = {
    out: '',
    err: '',
    cwd,
    env: {},
    stdout: (t: string) => void (io.out += t),
    stderr: (t: string) => void (io.err += t),
  } as CliIo & { out: string; err: string };
  const code = await main(args, io);
  return { code, out: io.out, err: io.err };
}

const goal = (disclosed: string[]) => ({
  constraints: { category: 'footwear', colour: 'black' },
  requests: [],
  disclosed,
});
const violating = conv([turn('hi im looking for some footwear\u001b]0;pwned\u0007', { goal: goal(['colour']) })], {
  id: 'bad\u001b[2Jone',
});
const clean = conv([turn('Hi, I need new footwear. Something black.', { goal: goal(['colour']) })], { id: 'good-one' });

let dir = '';
let cleanup = () => undefined as void;
before(() => {
  ({ dir, cleanup } = tempDir('simlens-check-'));
  writeFileSync(join(dir, 'mixed.jsonl'), `${JSON.stringify(clean)}\n${JSON.stringify(violating)}\n{"turns": 5}\n`);
  writeFileSync(join(dir, 'clean.jsonl'), `${JSON.stringify(clean)}\n`);
  writeFileSync(join(dir, 'human.jsonl'), `${JSON.stringify(human('474'))}\n${JSON.stringify(human('475'))}\n`);
  writeFileSync(join(dir, 'empty.jsonl'), '');
});

/** Human data (an IARD dialogue as `convert` writes it): annotations and an outcome, no trace. */
function human(id: string) {
  return {
    id,
    source: 'human',
    outcome: 'accepted',
    turns: [
      {
        user_utterance: 'Hi can you help me find a movie',
        assistant_utterance: 'How about It (2017)?',
        annotations: [{ speaker: 'user', annotator: 'source', taxonomy: 'iard', acts: ['OTH'], segment: 0 }],
      },
    ],
  };
}
after(() => cleanup());

test('violations: exit 1, the invariant with its count and example ids, no raw control characters', async () => {
  const r = await run(['check', 'mixed.jsonl'], dir);
  assert.equal(r.code, 1, r.err);
  assert.match(r.out, /FAIL\s+disclosed-value-stated\s+1 violation\(s\) in 1 of 2 conversation\(s\)/);
  assert.match(r.out, /- bad\\u001b\[2Jone \(line 2\) turn 0: colour=black/);
  assert.match(r.out, /n\/a\s+meta-switch-rule/);
  // eslint-disable-next-line no-control-regex
  assert.ok(!/[\u0000-\u0008\u000b-\u001f]/.test(r.out + r.err), 'raw control characters in the output');
  assert.match(r.err, /1 invalid line\(s\) skipped/);
  assert.match(r.err, /FAILED: disclosed-value-stated/);
});

test('clean file: exit 0; --json gives the report', async () => {
  const r = await run(['check', 'clean.jsonl', '--json'], dir);
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out);
  assert.equal(j.ok, true);
  assert.equal(j.conversations, 1);
  const d = j.invariants.find((i: { id: string }) => i.id === 'disclosed-value-stated');
  assert.equal(d.status, 'pass');
  assert.equal(d.violations, 0);
  assert.equal(j.invariants.find((i: { id: string }) => i.id === 'coverage-definition').status, 'not-applicable');
});

test('--json on violations: examples with conversation, line, turn; --examples bounds them; --only selects', async () => {
  const r = await run(['check', 'mixed.jsonl', '--json', '--examples', '0', '--only', 'disclosed-value-stated'], dir);
  assert.equal(r.code, 1);
  const j = JSON.parse(r.out);
  assert.deepEqual(j.failed, ['disclosed-value-stated']);
  assert.equal(j.invariants.length, 1);
  assert.equal(j.invariants[0].examples.length, 0);
  assert.equal(j.invalid_lines, 1);
  const r2 = await run(['check', 'mixed.jsonl', '--json'], dir);
  const ex = JSON.parse(r2.out).invariants[0].examples[0];
  assert.deepEqual(
    { conversation: ex.conversation, line: ex.line, turn: ex.turn },
    { conversation: 'bad\u001b[2Jone', line: 2, turn: 0 },
  );
});

test('usage and I/O errors: exit 2', async () => {
  assert.equal((await run(['check'], dir)).code, 2);
  assert.equal((await run(['check', 'nope.jsonl'], dir)).code, 2);
  assert.equal((await run(['check', 'clean.jsonl', '--examples', '-1'], dir)).code, 2);
  const only = await run(['check', 'clean.jsonl', '--only', 'no-such-rule'], dir);
  assert.equal(only.code, 2);
  assert.match(only.err, /unknown invariant "no-such-rule"/);
  const cat = await run(['check', 'clean.jsonl', '--catalog', 'missing-catalog.jsonl'], dir);
  assert.equal(cat.code, 2);
  assert.match(cat.err, /missing-catalog\.jsonl/);
});

test('listed in simlens --help', async () => {
  const r = await run(['--help'], dir);
  assert.match(r.out, /\n {2}check\s+check behavioural invariants/);
});

test('some invariants apply and pass: OK on stderr, exit 0, even with others n/a', async () => {
  const r = await run(['check', 'clean.jsonl'], dir);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /PASS\s+disclosed-value-stated/);
  // n/a says why; the exit summary lists what could not be checked before OK.
  assert.match(
    r.out,
    /n\/a\s+coverage-definition\s+no conversation carries trace\.targets and trace\.preference_coverage/,
  );
  assert.match(r.err, /^clean\.jsonl: not checked:\n {2}no-end-before-recommendation: n\/a, no conversation carries /);
  assert.match(
    r.err,
    /\nclean\.jsonl: OK \(\d+ of 27 invariants applied(; self-consistency [\d.]+% of \d+ turns)?\)\n$/,
  );
  const j = JSON.parse((await run(['check', 'clean.jsonl', '--json'], dir)).out);
  assert.ok(j.checked > 0);
  assert.equal(j.ok, true);
  assert.ok(
    j.unchecked.some((l: string) => l.startsWith('coverage-definition: n/a, ')),
    JSON.stringify(j.unchecked),
  );
  assert.ok(
    j.readback && typeof j.readback.turns === 'number' && j.readback.aspects.values,
    JSON.stringify(j.readback),
  );
});

test('human data without traces: every invariant n/a is "nothing checked", never OK; exit 1', async () => {
  const r = await run(['check', 'human.jsonl'], dir);
  assert.equal(r.code, 1, r.err);
  assert.match(r.out, /^human\.jsonl: 2 conversation\(s\)\n/);
  assert.ok(!/^PASS/m.test(r.out), r.out);
  assert.doesNotMatch(r.err, /\bOK\b/);
  assert.equal(
    r.err,
    'simlens check: human.jsonl: nothing checked: no conversation carries a simulator trace (all 27 invariants are n/a); check reads simulator runs\n',
  );
  const j = await run(['check', 'human.jsonl', '--json'], dir);
  assert.equal(j.code, 1);
  const report = JSON.parse(j.out);
  assert.deepEqual([report.conversations, report.checked, report.ok, report.failed], [2, 0, false, []]);
  assert.ok(report.invariants.every((i: { status: string }) => i.status === 'not-applicable'));
});

test('traces, but none with the fields the selected invariant needs: nothing checked, exit 1', async () => {
  const r = await run(['check', 'clean.jsonl', '--only', 'coverage-definition'], dir);
  assert.equal(r.code, 1, r.err);
  assert.match(
    r.err,
    /nothing checked: no conversation carries the trace fields any invariant needs \(the 1 invariant selected is n\/a\)/,
  );
  assert.doesNotMatch(r.err, /\bOK\b/);
});

test('empty file: only the failure, no "OK" and no table; exit 1', async () => {
  const r = await run(['check', 'empty.jsonl'], dir);
  assert.equal(r.code, 1);
  assert.equal(r.out, '');
  assert.equal(r.err, 'simlens check: empty.jsonl: no valid conversation\n');
  const j = await run(['check', 'empty.jsonl', '--json'], dir);
  assert.equal(j.code, 1);
  assert.equal(JSON.parse(j.out).ok, false);
});
