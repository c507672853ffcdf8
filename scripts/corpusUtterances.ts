/**
 * What scripts/user-frames.ts and scripts/agent-frames.ts share: the utterances of the human
 * corpora in test/fixtures/datasets (each with its speaker and "<dataset>/<file>:<line>"), the
 * sources' licences named in a frame bank, and writing (or `--check`ing) a bank.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseCsv } from '../src/core/importers/csv';

const ROOT = path.resolve(__dirname, '..');
const DATASETS = 'test/fixtures/datasets/';

/** An utterance of a corpus, who said it and where it is ("<dataset>/<file>:<line>"). */
export interface CorpusUtterance {
  text: string;
  speaker: 'user' | 'agent' | 'other';
  at: string;
}

/** Utterances of a DialogueKit-style JSON file, with the line of each `"utterance"` key. */
function jsonUtterances(rel: string): CorpusUtterance[] {
  const lines = fs.readFileSync(path.join(ROOT, DATASETS, rel), 'utf8').split('\n');
  const out: CorpusUtterance[] = [];
  let participant = '';
  lines.forEach((line, i) => {
    const p = /^\s*"participant":\s*"(\w+)"/.exec(line);
    if (p) participant = p[1];
    const u = /^\s*"utterance":\s*(".*"),?\s*$/.exec(line);
    const speaker = participant === 'USER' ? 'user' : participant === 'AGENT' ? 'agent' : 'other';
    if (u) out.push({ text: JSON.parse(u[1]) as string, speaker, at: `${rel}:${i + 1}` });
  });
  return out;
}

/** Utterances of the AB-ReDial CSV (cells "SYSTEM\t..." and "USER\t..."), each distinct one once, with its record's line. */
function csvUtterances(rel: string): CorpusUtterance[] {
  const { records } = parseCsv(fs.readFileSync(path.join(ROOT, DATASETS, rel), 'utf8'), rel);
  const seen = new Set<string>();
  const out: CorpusUtterance[] = [];
  for (const r of records.slice(1))
    for (const cell of r.fields) {
      const m = /^(SYSTEM|USER)\t([\s\S]*)$/.exec(cell);
      if (!m || seen.has(cell)) continue;
      seen.add(cell);
      out.push({ text: m[2], speaker: m[1] === 'SYSTEM' ? 'agent' : 'user', at: `${rel}:${r.line}` });
    }
  return out;
}

/** Every utterance of the four corpora the frame banks draw on, in a fixed order. */
export function corpusUtterances(): CorpusUtterance[] {
  return [
    ...jsonUtterances('usersimcrs-iard-gold/formatted_IARD_annotated_gold.json'),
    ...csvUtterances('ab-redial/annotated_dialogues.csv'),
    ...jsonUtterances('usersimcrs-moviebot/annotated_dialogues.json'),
    ...jsonUtterances('dialoguekit-tests/annotated_dialogues.json'),
  ];
}

/** The corpora and their licences, as a frame bank names them. */
export const CORPUS_SOURCES: Record<string, string> = {
  'usersimcrs-iard-gold':
    'IARD gold annotations as shipped by UserSimCRS (Apache-2.0; IARD upstream licence in LICENSE-IARD-upstream)',
  'ab-redial': 'AB-ReDial annotated dialogues (MIT)',
  'usersimcrs-moviebot': 'MovieBot annotated dialogues as shipped by UserSimCRS (Apache-2.0)',
  'dialoguekit-tests': 'DialogueKit test dialogues (Apache-2.0)',
};

/** A corpus sentence in a bank, with where it comes from. */
export interface Frame {
  text: string;
  /** Where the sentence is: dataset folder/file:line (the first of its occurrences). */
  from: string;
}

/** A committed frame bank (src/core/sim/.../*-frames.json): its sources and its pools of frames. */
export interface FrameBank {
  $doc: string;
  sources: Record<string, string>;
  pools: Record<string, Frame[]>;
}

/** Writes `bank` to `out` as the committed JSON; with --check, fails when the committed file differs. */
export function writeFrameBank(out: string, bank: FrameBank, script: string): void {
  const text = JSON.stringify(bank, null, 2) + '\n';
  if (process.argv.includes('--check')) {
    const now = fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : '';
    if (now !== text) {
      console.error(`${path.relative(ROOT, out)} is not what ${script} builds: run it and commit the result`);
      process.exit(1);
    }
    return;
  }
  fs.writeFileSync(out, text);
  for (const [name, list] of Object.entries(bank.pools)) console.log(`${name}: ${list.length}`);
}
