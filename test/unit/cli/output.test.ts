/**
 * What the CLI prints, as a reviewer read it: CSV line endings, plain-text reports, hints and exit
 * codes for inputs a command cannot read, empty files, error columns, labels, suggestions and
 * counts. In-process through main() (terminalSafeIo included), on small generated files.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parseCsv } from '../../../src/core/importers/csv';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { escapeOutput, suggestCommand } from '../../../src/cli/cli';
import { agentLabel } from '../../../src/cli/commands/simulate';
import { formatStats, type CorpusStats } from '../../../src/cli/commands/stats';
import { count } from '../../../src/cli/util';
import { parseConversationText } from '../../../src/core/jsonl/parse';
import { renderMarkdown, markdownTableOf } from '../../../src/core/report/render/markdown';
import type { Report, TableSection } from '../../../src/core/report';
import { runCli } from '../../support/cli';
import { tempDir } from '../jsonl/helpers';

const run = (args: string[], cwd: string) => runCli(args, cwd);

/** A conversation with `turns` turns of `words` user words each. */
function conv(id: string, turns: number, words: number, extra: Record<string, unknown> = {}): string {
  const t = Array.from({ length: turns }, (_, i) => ({
    user_utterance: `${i === 0 ? 'hi, ' : ''}${Array.from({ length: words }, (_, k) => `w${k}`).join(' ')}${i % 2 ? '?' : ''}`,
    assistant_utterance: 'Here are a few options, do you like them?',
  }));
  return JSON.stringify({ id, task_id: 'tops_good', turns: t, ...extra });
}

/** One CSV record's fields, read by the project's RFC 4180 parser (the one the importers use). */
function csvFields(line: string): string[] {
  return parseCsv(line, 'stdout').records[0]?.fields ?? [];
}

let dir = '';
let cleanup = () => undefined as void;
before(() => {
  ({ dir, cleanup } = tempDir('simlens-cli-output-'));
  const human = Array.from({ length: 12 }, (_, i) => conv(`h${i}`, 3 + (i % 5), 6 + (i % 4)));
  const sim = Array.from({ length: 12 }, (_, i) => conv(`s${i}`, 2 + (i % 3), 3 + (i % 2), { source: 'sim-agenda' }));
  writeFileSync(join(dir, 'human.jsonl'), human.join('\n') + '\n');
  writeFileSync(join(dir, 'sim.jsonl'), sim.join('\n') + '\n');
  writeFileSync(join(dir, 'crid.jsonl'), conv('x\ry', 2, 3) + '\n' + conv('plain', 3, 4) + '\n');
  writeFileSync(join(dir, 'empty.jsonl'), '');
  writeFileSync(join(dir, 'blank.jsonl'), '\n\n');
  writeFileSync(join(dir, 'notes.txt'), 'hello world\nthis is text\n');
  writeFileSync(join(dir, 'one.jsonl'), conv('only', 2, 3) + '\n');
});
after(() => cleanup());

describe('CSV output keeps its CR LF line endings', () => {
  test('escapeOutput: CR LF passes, a lone CR and other controls are escaped', () => {
    assert.equal(escapeOutput('a,b\r\n1,2\r\n'), 'a,b\r\n1,2\r\n');
    assert.equal(escapeOutput('all good\rFAILED\r\n'), 'all good\\u000dFAILED\r\n');
    assert.equal(escapeOutput('x\r\r\ny\u001b[2J\n'), 'x\\u000d\r\ny\\u001b[2J\n');
    assert.equal(escapeOutput('\r'), '\\u000d');
  });

  test('metrics plsa --csv parses as CSV with a numeric last column', async () => {
    const r = await run(['metrics', 'plsa', '--reference', 'human.jsonl', '--candidate', 'sim.jsonl', '--csv'], dir);
    assert.equal(r.code, 0, r.err);
    assert.doesNotMatch(r.out, /\\u000d/);
    assert.ok(r.out.endsWith('\r\n'));
    const lines = r.out.slice(0, -2).split('\r\n');
    assert.equal(csvFields(lines[0]).at(-1), 'n candidate');
    assert.ok(lines.length > 1);
    for (const line of lines.slice(1)) {
      const last = csvFields(line).at(-1)!;
      assert.match(last, /^\d+$/, JSON.stringify(line));
      assert.equal(Number(last), 12);
    }
  });

  test('metrics features --csv: numeric last column; a lone CR in an id is still escaped', async () => {
    const r = await run(['metrics', 'features', 'crid.jsonl', '--csv', '--features', 'num_turns'], dir);
    assert.equal(r.code, 0, r.err);
    const lines = r.out.slice(0, -2).split('\r\n');
    assert.deepEqual(
      lines.map((l) => csvFields(l).at(-1)),
      ['num_turns', '2', '3'],
    );
    assert.equal(csvFields(lines[1])[0], 'x\\u000dy');
    assert.doesNotMatch(r.out, /\r(?!\n)/);
  });

  test('a lone CR in an utterance printed as text is still escaped', async () => {
    const r = await run(['metrics', 'tagger', '--text', 'all good\rFAILED'], dir);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /all good\\u000dFAILED\n$/);
    assert.doesNotMatch(r.out, /\r/);
  });
});

describe('inputs a command cannot read', () => {
  const FORMAT_HINT =
    /notes\.txt: cannot tell the input format: .*convert it first: simlens convert notes\.txt --from FORMAT -o OUT\.jsonl/;

  test('metrics and judge point to convert, not to a --from they do not have, and exit 1', async () => {
    for (const args of [
      ['metrics', 'plsa', '--reference', 'notes.txt', '--candidate', 'sim.jsonl'],
      ['metrics', 'features', 'notes.txt'],
      ['judge', 'notes.txt', '--validate'],
    ]) {
      const r = await run(args, dir);
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.err}`);
      assert.match(r.err, FORMAT_HINT, args.join(' '));
      assert.doesNotMatch(r.err, /Use --from/, args.join(' '));
    }
  });

  test('report --human of unknown format: the same hint, exit 1 (nothing simulated)', async () => {
    const r = await run(
      ['report', '--human', 'notes.txt', '--simulator', 'agenda:cir6:pkg', '--n', '10', '--out', 'rep', '-q'],
      dir,
    );
    assert.equal(r.code, 1, r.err);
    assert.match(r.err, FORMAT_HINT);
  });

  test('an empty population says so and exits 1; a missing file stays exit 2', async () => {
    const e = await run(['metrics', 'plsa', '--reference', 'empty.jsonl', '--candidate', 'sim.jsonl'], dir);
    assert.equal(e.code, 1);
    assert.match(e.err, /empty\.jsonl: no conversation \(the file is empty\)/);
    const m = await run(['metrics', 'plsa', '--reference', 'missing.jsonl', '--candidate', 'sim.jsonl'], dir);
    assert.equal(m.code, 2);
    const u = await run(
      ['metrics', 'plsa', '--reference', 'human.jsonl', '--candidate', 'sim.jsonl', '--from', 'x'],
      dir,
    );
    assert.equal(u.code, 2);
  });

  test('convert keeps its --from hint', async () => {
    const r = await run(['convert', 'notes.txt', '-o', 'n.jsonl'], dir);
    assert.match(r.err, /Use --from with one of/);
  });
});

describe('validate on a file with no conversation', () => {
  test('an empty file: NO CONVERSATION, exit 1 (as stats)', async () => {
    const r = await run(['validate', 'empty.jsonl'], dir);
    assert.equal(r.code, 1);
    assert.match(
      r.err,
      /^empty\.jsonl: NO CONVERSATION \(the file is empty\): 0 lines, 0 valid conversations, 0 invalid lines\n$/,
    );
    assert.doesNotMatch(r.err, /OK/);
    assert.equal((await run(['stats', 'empty.jsonl'], dir)).code, 1);
    const j = await run(['validate', 'empty.jsonl', '--json'], dir);
    assert.equal(j.code, 1);
    assert.equal(JSON.parse(j.out).conversations, 0);
  });

  test('only blank lines: exit 1; one valid conversation: OK, exit 0', async () => {
    const b = await run(['validate', 'blank.jsonl'], dir);
    assert.equal(b.code, 1);
    assert.match(b.err, /NO CONVERSATION \(only blank lines\): 2 lines/);
    const o = await run(['validate', 'one.jsonl'], dir);
    assert.equal(o.code, 0);
    assert.equal(o.err, 'one.jsonl: OK: 1 line, 1 valid conversation, 0 invalid lines\n');
  });

  test("validate --json also has stats' blank_lines and invalid_lines", async () => {
    writeFileSync(join(dir, 'mixed.jsonl'), `${conv('a', 2, 2)}\n\nnope\n`);
    const j = JSON.parse((await run(['validate', 'mixed.jsonl', '--json'], dir)).out);
    assert.equal(j.blank, 1);
    assert.equal(j.invalid, 1);
    assert.equal(j.blank_lines, 1);
    assert.equal(j.invalid_lines, 1);
    const s = JSON.parse((await run(['stats', 'mixed.jsonl', '--json'], dir)).out);
    assert.equal(s.blank_lines, j.blank_lines);
    assert.equal(s.invalid_lines, j.invalid_lines);
  });
});

describe('error columns of bare words', () => {
  for (const [text, word] of [
    ['this is text', 'this'],
    ['nope', 'nope'],
    ['fine thanks', 'fine'],
    ['xyz', 'xyz'],
    ['  tall', 'tall'],
  ] as const) {
    test(`"${text}": column of the word's first character`, () => {
      const p = parseConversationText(text, 1);
      assert.equal(p.kind, 'invalid');
      const e = (p as Extract<typeof p, { kind: 'invalid' }>).errors[0];
      assert.equal(e.column, text.indexOf(word) + 1);
      assert.match(e.message, new RegExp(`found '${word}'`));
    });
  }

  test('typos of a literal keep pointing at the wrong character', () => {
    const p = parseConversationText('{"a": tru}', 1) as Extract<
      ReturnType<typeof parseConversationText>,
      { kind: 'invalid' }
    >;
    assert.equal(p.errors[0].column, 10);
    const q = parseConversationText('{"a": nulx}', 1) as Extract<
      ReturnType<typeof parseConversationText>,
      { kind: 'invalid' }
    >;
    assert.equal(q.errors[0].column, 10);
    const r = parseConversationText('{"a": this}', 1) as Extract<
      ReturnType<typeof parseConversationText>,
      { kind: 'invalid' }
    >;
    assert.equal(r.errors[0].column, 7);
  });

  test('validate prints FILE:1:1 for a line starting with t, n, f or x', async () => {
    for (const start of ['this is text', 'no thanks', 'for sure', 'xylophone']) {
      writeFileSync(join(dir, 'w.txt'), `${start}\n`);
      const r = await run(['validate', 'w.txt'], dir);
      assert.match(r.out, /^w\.txt:1:1: invalid JSON/, start);
    }
  });
});

describe('plain text on the terminal', () => {
  const table: TableSection = {
    type: 'table',
    id: 't',
    title: 'P(human | c) & more',
    columns: [
      { key: 'f', label: 'num_turns', format: 'text' },
      { key: 'v', label: 'p > 0.05', format: 'fixed' },
    ],
    rows: [{ cells: ['Zhang & Balog <x>', 0.5], marks: [null, 'far'] }],
  };
  const report: Report = {
    schema: 'simlens-report/1',
    kind: 'plsa',
    title: 'Zhang & Balog: a | b',
    generated: '2026-01-01T00:00:00.000Z',
    inputs: [{ label: 'num_turns', file: 'a_b.jsonl', n: 3 }],
    sections: [table, { type: 'text', id: 'x', title: 'Summary', paragraphs: ['MWU (p > 0.05) for *all*'] }],
    warnings: ['1 < 2 & ks_2samp'],
  } as unknown as Report;

  test('renderMarkdown plain: no entities or backslash escapes; the default is unchanged', () => {
    const plain = renderMarkdown(report, { plain: true });
    for (const s of [
      'Zhang & Balog: a | b',
      'P(human | c) & more',
      '| num_turns | p > 0.05 |',
      'Zhang & Balog <x>',
      'MWU (p > 0.05) for *all*',
      '- 1 < 2 & ks_2samp',
      '| num_turns | a_b.jsonl | 3 |',
    ]) {
      assert.ok(plain.includes(s), `${s}\n---\n${plain}`);
    }
    assert.doesNotMatch(plain, /&amp;|&gt;|&lt;|\\[_|*]/);
    const md = renderMarkdown(report);
    assert.match(md, /Zhang &amp; Balog: a \\\| b/);
    assert.match(md, /num\\_turns/);
    assert.match(md, /p &gt; 0\.05/);
    assert.equal(markdownTableOf(table), markdownTableOf(table, {}));
    assert.match(markdownTableOf(table, { plain: true }), /^\| num_turns \| p > 0\.05 \|$/m);
  });

  test('metrics plsa text output has no Markdown escapes', async () => {
    const r = await run(['metrics', 'plsa', '--reference', 'human.jsonl', '--candidate', 'sim.jsonl'], dir);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /\(p > 0\.05\)/);
    assert.match(r.out, /\| num_turns \|/);
    assert.doesNotMatch(r.out, /&gt;|&lt;|&amp;|\\_|\\\|/);
    const f = await run(['metrics', 'features', 'human.jsonl', '--features', 'num_turns,user_words_per_turn'], dir);
    assert.match(f.out, /^## Features of human\.jsonl \(12 conversations; acts: /);
    assert.match(f.out, /\| user_words_per_turn \|/);
  });
});

describe('labels, suggestions and counts', () => {
  test('an HTTP agent is shown by its URL', () => {
    assert.equal(agentLabel('http:http://127.0.0.1:9'), 'http://127.0.0.1:9');
    assert.equal(agentLabel('http:https://x.example/chat'), 'https://x.example/chat');
    assert.equal(agentLabel('local-good'), 'local-good');
    assert.equal(agentLabel('http://already.example'), 'http://already.example');
  });

  test('simulate against an unreachable HTTP agent: the summary names the URL once', async () => {
    const r = await run(
      [
        'simulate',
        '--agent',
        'http://127.0.0.1:9',
        '--n',
        '1',
        '--out',
        'http.sim.jsonl',
        '--quiet',
        '--timeout-ms',
        '2000',
      ],
      dir,
    );
    assert.match(r.out, / vs http:\/\/127\.0\.0\.1:9\n$/);
    assert.doesNotMatch(r.out, /http:http/);
  });

  test('unknown commands: invariants -> check, compare -> metrics plsa or report, run -> simulate', async () => {
    const names = ['validate', 'stats', 'check', 'metrics', 'report', 'simulate'];
    assert.equal(suggestCommand('invariants', names), 'check');
    assert.equal(suggestCommand('compare', names), "metrics plsa' or 'report");
    assert.equal(suggestCommand('run', names), 'simulate');
    assert.equal(suggestCommand('valdate', names), 'validate');
    assert.equal(suggestCommand('run', ['validate']), undefined);
    const r = await run(['compare'], dir);
    assert.equal(r.code, 2);
    assert.match(r.err, /Did you mean 'metrics plsa' or 'report'\?/);
    assert.match((await run(['invariants'], dir)).err, /Did you mean 'check'\?/);
    assert.match((await run(['run'], dir)).err, /Did you mean 'simulate'\?/);
  });

  test('count() and "1 invalid line" in stats', async () => {
    assert.equal(count(1, 'line'), '1 line');
    assert.equal(count(0, 'line'), '0 lines');
    writeFileSync(join(dir, 'one-bad.jsonl'), `${conv('a', 2, 2)}\nnope\n`);
    const r = await run(['stats', 'one-bad.jsonl'], dir);
    assert.match(r.err, /: 1 invalid line skipped/);
    const m = await run(['metrics', 'features', 'one-bad.jsonl', '--list'], dir);
    assert.match(m.err, /: 1 invalid line skipped/);
  });

  test('stats text: one blank line between blocks, none doubled, none at the end', async () => {
    const r = await run(['stats', 'human.jsonl'], dir);
    assert.equal(r.code, 0);
    assert.doesNotMatch(r.out, /\n\n\n/);
    assert.doesNotMatch(r.out, /\n\n$/);
    assert.match(r.out, /\)\n\nconversations per task:\n/);
    const empty: CorpusStats = {
      file: 'f',
      lines: 0,
      blank_lines: 0,
      invalid_lines: 0,
      conversations: 0,
      turns: 0,
      user_turns: 0,
      assistant_turns: 0,
      user_words: 0,
      assistant_words: 0,
      items_shown: 0,
      by_task: {},
      by_condition: {},
      by_source: {},
    };
    assert.match(formatStats(empty), /per turn\)\n$/);
  });
});
