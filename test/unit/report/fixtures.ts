/**
 * Small hand-made inputs for the report tests: a seeded generator of human-like ConvApparel-shaped
 * conversations in two conditions (the "bad" ones are shorter, more negative and accept less), and
 * helpers for temp folders.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRng } from '../../../src/core/random';

const OPENERS = [
  'hi, I am looking for a warm winter jacket',
  'hello! need some running shoes for the weekend',
  'can you help me find a dress for a wedding',
  'I want comfy sneakers, nothing too flashy',
  'looking for a rain coat under 100 dollars',
  'do you have wool sweaters in navy?',
];
const POSITIVE = ['that looks great', 'nice, I like the second one', 'perfect, thanks', 'oh that one is lovely'];
const NEGATIVE = [
  'no, that is not what I asked for',
  'hmm not really my style',
  'these are too expensive',
  'that does not help at all',
];
const QUESTIONS = ['what sizes does it come in?', 'is it waterproof?', 'do you have it in black?', 'how warm is it?'];
const CLOSERS = ['I will take it', 'thanks, bye', 'ok I give up', 'great, adding it to my cart'];

/** `n` human conversations, `badShare` of them in condition "bad" (task_id "<task>_<condition>"). */
export function humanConversations(n: number, seed: string | number = 1, badShare = 0.5): Record<string, unknown>[] {
  const rng = createRng(`fixture/${seed}`);
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const bad = i < Math.round(n * badShare);
    const turns: Record<string, unknown>[] = [];
    const len = bad ? 1 + rng.int(3) : 2 + rng.int(4);
    for (let t = 0; t < len; t++) {
      let user: string;
      if (t === 0) user = rng.pick(OPENERS);
      else if (t === len - 1) user = rng.pick(CLOSERS);
      else if (rng.chance(0.3)) user = rng.pick(QUESTIONS);
      else user = rng.pick(bad ? NEGATIVE : rng.chance(0.8) ? POSITIVE : NEGATIVE);
      turns.push({
        user_utterance: user,
        assistant_utterance: rng.chance(0.5)
          ? 'Here are a few options you might like.'
          : 'Could you tell me more about the style you want?',
        ratings: { Satisfied: !bad && rng.chance(0.6), Frustrated: bad && rng.chance(0.5) },
      });
    }
    out.push({
      id: `h-${i}`,
      task_id: `${rng.pick(['outerwear', 'footwear', 'dresses'])}_${bad ? 'bad' : 'good'}`,
      source: 'human',
      turns,
      ratings: { 'Were you able to find a product?': !bad && rng.chance(0.7) ? 'Yes' : 'No' },
    });
  }
  return out;
}

/** JSONL text of conversations. */
export function jsonl(conversations: readonly unknown[]): string {
  return conversations.map((c) => JSON.stringify(c)).join('\n') + '\n';
}

/** Writes conversations as JSONL to `dir/name` and returns its path. */
export function writeJsonl(dir: string, name: string, conversations: readonly unknown[]): string {
  const file = path.join(dir, name);
  writeFileSync(file, jsonl(conversations));
  return file;
}

/** A fresh temp folder removed by the returned cleanup. */
export function tempDir(prefix = 'simlens-report-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Writes a human fixture file into `dir` and returns its path. */
export function writeHumanFile(dir: string, n: number, name = 'human.jsonl', seed: string | number = 1): string {
  const file = path.join(dir, name);
  writeFileSync(file, jsonl(humanConversations(n, seed)));
  return file;
}
