/**
 * Template natural-language generation for simulated users: one template list per user act
 * (src/core/sim/users/nlg-templates.json), a random choice among the templates whose slots can be
 * filled, no immediate repetition, and optional random typos.
 */
import { z } from 'zod';
import type { Rng } from '../../random';
import { mainAct } from './acts';
import { loadJsonFile } from './transitions';
import templatesJson from './nlg-templates.json';

export const NlgTemplatesSchema = z.looseObject({ acts: z.record(z.string(), z.array(z.string()).min(1)) });
export type NlgTemplates = z.infer<typeof NlgTemplatesSchema>;

export function defaultNlgTemplates(): NlgTemplates {
  return NlgTemplatesSchema.parse(templatesJson);
}

export function loadNlgTemplates(path: string): NlgTemplates {
  return loadJsonFile(path, NlgTemplatesSchema);
}

/** Slot values for one utterance; missing slots rule out the templates that need them. */
export type SlotFill = Partial<Record<'category' | 'value' | 'attribute' | 'item' | 'item2' | 'liked' | 'disliked' | 'general', string>>;

const SLOT = /\{(\w+)\}/g;

interface Template {
  text: string;
  slots: string[];
}

/** Attribute names read better with spaces: "price_band" -> "price band". */
export function readableAttribute(name: string): string {
  return name.replace(/[_-]+/g, ' ');
}

/** A stretch of text [start, end) that typos must leave alone. */
export interface TextSpan {
  start: number;
  end: number;
}

/**
 * Introduces one typo into a word of four or more letters: two neighbouring letters swapped, a
 * letter dropped, or a letter doubled. Words overlapping a span of `keep` (the filled slots: the
 * values, items and attributes the utterance states) are never changed, so the meaning survives.
 * Returns the text unchanged when no word qualifies.
 */
export function addTypo(text: string, rng: Rng, keep: readonly TextSpan[] = []): string {
  const words: { start: number; end: number }[] = [];
  const re = /[A-Za-z]{4,}/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    const start = m.index;
    const end = start + m[0].length;
    if (!keep.some((k) => start < k.end && k.start < end)) words.push({ start, end });
  }
  if (words.length === 0) return text;
  const w = rng.pick(words);
  const word = text.slice(w.start, w.end);
  const i = 1 + rng.int(word.length - 2);
  let typo: string;
  switch (rng.int(3)) {
    case 0:
      typo = word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
      break;
    case 1:
      typo = word.slice(0, i) + word.slice(i + 1);
      break;
    default:
      typo = word.slice(0, i) + word[i] + word.slice(i);
      break;
  }
  return text.slice(0, w.start) + typo + text.slice(w.end);
}

/** A generated utterance and the slots its template filled (what the text actually states). */
export interface Realisation {
  text: string;
  /** Slot names the chosen template used, e.g. ["category", "value"]. */
  used: string[];
}

export interface NlgOptions {
  templates?: NlgTemplates;
  /** Probability that an utterance gets one random typo (default 0.05). */
  typoRate?: number;
}

/** A template generator; one per run (stateless across sessions, `previous` is passed in). */
export class TemplateNlg {
  private readonly table = new Map<string, Template[]>();
  readonly typoRate: number;

  constructor(options: NlgOptions = {}) {
    const templates = options.templates ?? defaultNlgTemplates();
    this.typoRate = options.typoRate ?? 0.05;
    if (!(this.typoRate >= 0 && this.typoRate <= 1)) throw new RangeError(`typo rate must be in [0, 1], got ${this.typoRate}`);
    for (const [act, list] of Object.entries(templates.acts)) {
      this.table.set(
        act,
        list.map((text) => ({ text, slots: [...text.matchAll(SLOT)].map((x) => x[1]) })),
      );
    }
  }

  /** The template list used for an act (its own, else its main act's, else Other). */
  private templatesFor(act: string): Template[] {
    return this.table.get(act) ?? this.table.get(mainAct(act)) ?? this.table.get('Other') ?? [{ text: 'Okay.', slots: [] }];
  }

  /** True when some template exists for this exact act name. */
  has(act: string): boolean {
    return this.table.has(act);
  }

  /**
   * An utterance for `act`. Templates whose slots are not all in `fill` are skipped (if none
   * qualifies, the slot-free ones are used, else the first template with gaps filled by "that").
   * `previous` is avoided when another choice exists.
   */
  generate(act: string, fill: SlotFill, rng: Rng, previous?: string): string {
    return this.realise(act, fill, rng, previous).text;
  }

  /**
   * Like `generate`, and says which slots the text states. Templates that use every slot in
   * `require` are preferred (a user that means to state a value picks a template that says it);
   * when the act has none, the usual choice applies and `used` shows what was left out. Random
   * typos never touch the filled slots, and a revision (an act ending in ".Revise") gets none.
   */
  realise(act: string, fill: SlotFill, rng: Rng, previous?: string, require: readonly string[] = []): Realisation {
    const all = this.templatesFor(act);
    const has = fill as Record<string, string | undefined>;
    let usable = all.filter((t) => t.slots.every((s) => has[s] !== undefined && has[s] !== ''));
    if (require.length) {
      const saying = usable.filter((t) => require.every((r) => t.slots.includes(r)));
      if (saying.length) usable = saying;
    }
    if (usable.length === 0) usable = all.filter((t) => t.slots.length === 0);
    if (usable.length === 0) usable = all;
    let chosen = rng.pick(usable);
    let filled = this.fill(chosen, has);
    if (previous !== undefined && filled.text === previous && usable.length > 1) {
      const others = usable.filter((t) => this.fill(t, has).text !== previous);
      if (others.length) {
        chosen = rng.pick(others);
        filled = this.fill(chosen, has);
      }
    }
    let text = filled.text;
    // A revision's wording ("instead", "changed my mind") is what makes it a revision: no typo
    // there. The draw is still made, so the other utterances of a seeded run stay as they were.
    const exact = act.endsWith('.Revise');
    if (this.typoRate > 0 && rng.chance(this.typoRate) && !exact) text = addTypo(text, rng, filled.spans);
    const used = [...new Set(chosen.slots.filter((s) => has[s] !== undefined && has[s] !== ''))];
    return { text, used };
  }

  private fill(t: Template, fill: Record<string, string | undefined>): { text: string; spans: TextSpan[] } {
    if (t.slots.length === 0) return { text: t.text, spans: [] };
    const spans: TextSpan[] = [];
    let out = '';
    let last = 0;
    for (const m of t.text.matchAll(SLOT)) {
      out += t.text.slice(last, m.index);
      const value = fill[m[1]] ?? 'that';
      spans.push({ start: out.length, end: out.length + value.length });
      out += value;
      last = m.index! + m[0].length;
    }
    out += t.text.slice(last);
    return { text: out, spans };
  }
}
