/**
 * The shell examples of a Markdown document and the output the document says they print
 * (test/unit/docs/examples.test.ts runs them; test/unit/docs/figures.test.ts tests these helpers).
 */

interface Block {
  line: number;
  code: string;
  /** The ```text output blocks that follow it: their first line and their lines, in order. */
  expected: { line: number; lines: string[] }[];
}

/**
 * The runnable shell blocks of a Markdown text: fences whose info string is `bash` or `sh`, each with
 * the ```text output blocks that follow it (before any other fenced block). An output block with no
 * shell block before it is an error.
 */
export function shellBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split('\n');
  let last: Block | undefined;
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})(.*)$/.exec(lines[i]);
    if (!open) continue;
    const fence = open[2];
    const words = open[3].trim().toLowerCase().split(/\s+/);
    let j = i + 1;
    while (j < lines.length && !lines[j].trimStart().startsWith(fence)) j++;
    const body = lines.slice(i + 1, j);
    if (words[0] === 'bash' || words[0] === 'sh') {
      last = { line: i + 1, code: body.join('\n'), expected: [] };
      blocks.push(last);
    } else if (words[0] === 'text' && words.includes('output')) {
      if (!last) throw new Error(`line ${i + 1}: a "text output" block with no bash or sh block before it`);
      last.expected.push({ line: i + 1, lines: body });
    } else {
      last = undefined;
    }
    i = j;
  }
  return blocks;
}

/**
 * What differs from run to run, replaced by a placeholder on both sides: the example's working
 * folder, time stamps, rates and durations.
 */
export function normaliseOutput(text: string, workDir?: string): string {
  let t = text.replace(/\r\n/g, '\n');
  if (workDir) t = t.split(`${workDir}/`).join('').split(workDir).join('.');
  return t
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>')
    .replace(/\b\d+(\.\d+)?\/s\b/g, '<n>/s')
    .replace(/\b\d+(\.\d+)? ?(ms|s)\b/g, '<n> $2');
}

const ELLIPSIS = /^\s*(…|\.\.\.)\s*$/;

/**
 * Undefined when the expected lines are in the output (each run of lines between `…` lines as
 * consecutive lines, the runs in order; `…` within a line matches any text), else a message naming
 * the first expected line that is not there.
 */
export function missingOutput(output: string, expected: string[], workDir?: string): string | undefined {
  const out = normaliseOutput(output, workDir)
    .split('\n')
    .map((l) => l.trimEnd());
  const want = normaliseOutput(expected.join('\n')).split('\n');
  while (want.length && !want[0].trim()) want.shift();
  while (want.length && !want[want.length - 1].trim()) want.pop();
  const chunks: string[][] = [[]];
  for (const l of want) {
    if (ELLIPSIS.test(l)) chunks.push([]);
    else chunks[chunks.length - 1].push(l.trimEnd());
  }
  const pattern = (l: string) =>
    new RegExp(
      `^${l
        .split('…')
        .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
    );
  let from = 0;
  for (const chunk of chunks.filter((c) => c.length > 0)) {
    const res = chunk.map(pattern);
    let at = -1;
    for (let k = from; k + res.length <= out.length && at < 0; k++) {
      if (res.every((re, d) => re.test(out[k + d]))) at = k;
    }
    if (at < 0) {
      // Name the missing line: the one after the longest run of the chunk found anywhere.
      let best = 0;
      for (let k = from; k < out.length; k++) {
        let d = 0;
        while (d < res.length && k + d < out.length && res[d].test(out[k + d])) d++;
        best = Math.max(best, d);
      }
      return `not in the output${from > 0 ? ' after the lines matched before it' : ''}: ${JSON.stringify(chunk[Math.min(best, chunk.length - 1)])}`;
    }
    from = at + res.length;
  }
  return undefined;
}
