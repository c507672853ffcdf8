/**
 * The LLM judge: one call per conversation asking for the ConvApparel judge fields (domain §3) as
 * a JSON object, validated with zod; an invalid answer is sent back with the problem and asked
 * again. The result is stored on the conversation as an annotation by `judge:<model>` with the
 * fields in `fields`, which the metrics read for the user-experience and dialogue-act features.
 *
 * `validateJudge` compares the judge with the users' own (first-person) ratings: Kendall's tau-b
 * per user-experience field, confusion matrices, and acceptance accuracy.
 */
import * as z from 'zod';
import type { Conversation, ConversationAnnotation } from '../model';
import { conversationOutcome, judgeFields } from '../model';
import { kendallTau } from '../stats/kendall';
import { CONVAPPAREL_TAXONOMY } from '../taxonomy';
import { askAboutConversation, type AskConversationOptions } from './askConversation';
import type { RecordedLlmCall } from './client';
import { extractJsonObject } from './json';
import type { LlmServices } from './services';
import { zodProblemLines } from '../jsonl/zodIssues';

/** Numbers given as strings ("4") are read as numbers; the model's "NaN"/"null" as null. */
const num = (schema: z.ZodNumber) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v), schema);
const scale = num(z.number().min(1).max(5)).transform((v) => Math.round(v));
const rating = num(z.number().min(1).max(5));
const count = num(z.number().int().min(0));

function actCounts(names: readonly string[]) {
  return z.record(z.string(), z.unknown()).transform((raw, ctx) => {
    const out: Record<string, number> = Object.fromEntries(names.map((n) => [n, 0]));
    for (const [key, value] of Object.entries(raw)) {
      const n = typeof value === 'string' ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) {
        ctx.addIssue({
          code: 'custom',
          message: `count of "${key}" must be a whole number >= 0, got ${JSON.stringify(value)}`,
          path: [key],
        });
        continue;
      }
      // Acts outside the taxonomy are counted as "other" rather than dropped or rejected.
      if (key in out) out[key] += n;
      else out.other += n;
    }
    return out;
  });
}

const Detail = z.object({ rating, explanation: z.string() });

/** The judge's answer, after validation (ConvApparel judge fields). */
const JudgeFields = z.object({
  user_sentiment: scale,
  user_satisfaction: scale,
  user_frustration_annoyance: scale,
  user_confusion: scale,
  recommendation_accepted: z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), z.boolean()),
  turns_until_acceptance: z.preprocess(
    (v) => (v === 'NaN' || v === 'null' || (typeof v === 'number' && Number.isNaN(v)) ? null : v),
    count.nullable(),
  ),
  assistant_turns_with_question: count,
  user_turns_with_question: count,
  user_dialog_acts: actCounts(CONVAPPAREL_TAXONOMY.user),
  assistant_dialog_acts: actCounts(CONVAPPAREL_TAXONOMY.assistant),
  evaluation_details: z.object({
    relevance_of_recommendations: Detail,
    dialogue_quality: Detail,
    task_completion: Detail,
    ease_of_use: Detail,
  }),
  overall_summary_explanation: z.string(),
  overall_agent_rating: rating,
});
type JudgeFields = z.infer<typeof JudgeFields>;

/** Validates a judge answer; on failure, one line naming the first bad fields. */
export function parseJudgeAnswer(
  text: string,
): { ok: true; fields: JudgeFields; repairs: string[] } | { ok: false; problem: string } {
  const json = extractJsonObject(text);
  if (!json.ok) return json;
  const parsed = JudgeFields.safeParse(json.value);
  if (parsed.success) return { ok: true, fields: parsed.data, repairs: json.repairs };
  return { ok: false, problem: `invalid fields: ${zodProblemLines(parsed.error, json.value).slice(0, 6).join('; ')}` };
}

/** The annotator name of a judge model. */
export function judgeAnnotator(model: string): string {
  return `judge:${model}`;
}

/** Options of `judgeConversation`: repairs, seed base, line number for ids. */
type JudgeOptions = AskConversationOptions;

interface JudgeResult {
  annotation: ConversationAnnotation;
  fields: JudgeFields;
  calls: RecordedLlmCall[];
}

/**
 * Judges one conversation. Throws LlmError on transport failures and LlmOutputError when the
 * answer stays invalid after every repair.
 */
export async function judgeConversation(
  conv: Conversation,
  services: LlmServices,
  opts: JudgeOptions = {},
): Promise<JudgeResult> {
  const { annotation, value, calls } = await askAboutConversation(
    conv,
    services,
    {
      role: 'judge',
      maxItems: 4,
      annotator: judgeAnnotator,
      check: (res) => {
        const parsed =
          res.finishReason === 'length' && !res.text.trim().endsWith('}')
            ? { ok: false as const, problem: 'the answer was cut off at the token limit; keep explanations short' }
            : parseJudgeAnswer(res.text);
        if (!parsed.ok) return parsed;
        return {
          ok: true,
          value: parsed.fields,
          fields: parsed.fields as unknown as Record<string, unknown>,
          repairs: parsed.repairs,
        };
      },
    },
    opts,
  );
  return { annotation, fields: value, calls };
}

/** Adds `annotation` to the conversation, replacing an earlier one by the same annotator. Returns a copy. */
export function withConversationAnnotation(conv: Conversation, annotation: ConversationAnnotation): Conversation {
  const others = (conv.annotations ?? []).filter((a) => a.annotator !== annotation.annotator);
  return { ...conv, annotations: [...others, annotation] };
}

// ---------------------------------------------------------------------------------------------
// Judge validation against first-person ratings.

/** The UX fields compared with the users' own checkbox ratings, and the feelings that count for each. */
const UX_FIELDS = {
  user_satisfaction: ['Satisfied'],
  user_frustration_annoyance: ['Frustrated', 'Annoyed'],
  user_confusion: ['Confused'],
} as const;
type UxField = keyof typeof UX_FIELDS;

/**
 * A conversation's first-person level of a UX field: the share of its rated turns on which the user
 * ticked one of the field's feelings; undefined when no turn was rated.
 */
export function firstPersonShare(conv: Conversation, field: UxField): number | undefined {
  let rated = 0;
  let ticked = 0;
  for (const turn of conv.turns) {
    if (!turn.ratings || Object.keys(turn.ratings).length === 0) continue;
    rated++;
    const keys = Object.keys(turn.ratings);
    if (
      UX_FIELDS[field].some((f) =>
        keys.some((k) => k.trim().toLowerCase() === f.toLowerCase() && turn.ratings![k] === true),
      )
    )
      ticked++;
  }
  return rated ? ticked / rated : undefined;
}

interface FieldAgreement {
  field: UxField;
  /** Conversations with both a judge score and first-person ratings. */
  n: number;
  kendall_tau: number;
  p_value: number;
  /** rows: judge score 1..5; columns: [no turn ticked, some turns ticked]. */
  confusion: number[][];
  mean_judge: number;
  mean_first_person: number;
}

interface JudgeValidation {
  annotator: string;
  /** Conversations that carry this judge's annotation. */
  judged: number;
  fields: FieldAgreement[];
  acceptance: {
    n: number;
    accuracy: number;
    /** [[judge no & user no, judge no & user yes], [judge yes & user no, judge yes & user yes]] */
    confusion: number[][];
  };
}

/**
 * Compares a judge's annotations with first-person ratings over the conversations that have both.
 * Acceptance: the judge's `recommendation_accepted` vs the user saying they found a product.
 */
export function validateJudge(conversations: Iterable<Conversation>, annotator?: string): JudgeValidation {
  const pairs = new Map<UxField, { judge: number[]; human: number[] }>();
  for (const f of Object.keys(UX_FIELDS) as UxField[]) pairs.set(f, { judge: [], human: [] });
  const acc = [
    [0, 0],
    [0, 0],
  ];
  let judged = 0;
  let seenAnnotator = annotator;
  for (const conv of conversations) {
    const fields = judgeFields(conv, seenAnnotator);
    if (!fields) continue;
    if (!seenAnnotator)
      seenAnnotator = (conv.annotations ?? [])
        .slice()
        .reverse()
        .find((a) => a.annotator.startsWith('judge:') && a.fields)?.annotator;
    judged++;
    for (const f of Object.keys(UX_FIELDS) as UxField[]) {
      const j = fields[f];
      const h = firstPersonShare(conv, f);
      if (typeof j === 'number' && h !== undefined) {
        pairs.get(f)!.judge.push(j);
        pairs.get(f)!.human.push(h);
      }
    }
    const hasSessionAnswer = conv.ratings && Object.keys(conv.ratings).some((k) => /able to find a product/i.test(k));
    if (typeof fields.recommendation_accepted === 'boolean' && (hasSessionAnswer || conv.outcome)) {
      const human = conversationOutcome(conv) === 'accepted' ? 1 : 0;
      acc[fields.recommendation_accepted ? 1 : 0][human]++;
    }
  }
  const out: FieldAgreement[] = [];
  for (const [field, { judge, human }] of pairs) {
    const confusion = [1, 2, 3, 4, 5].map(() => [0, 0]);
    judge.forEach((j, i) => {
      confusion[Math.min(5, Math.max(1, Math.round(j))) - 1][human[i] > 0 ? 1 : 0]++;
    });
    const tau = judge.length >= 2 ? kendallTau(judge, human) : { statistic: NaN, pvalue: NaN };
    out.push({
      field,
      n: judge.length,
      kendall_tau: tau.statistic,
      p_value: tau.pvalue,
      confusion,
      mean_judge: mean(judge),
      mean_first_person: mean(human),
    });
  }
  const nAcc = acc[0][0] + acc[0][1] + acc[1][0] + acc[1][1];
  return {
    annotator: seenAnnotator ?? 'judge:?',
    judged,
    fields: out,
    acceptance: { n: nAcc, accuracy: nAcc ? (acc[0][0] + acc[1][1]) / nAcc : NaN, confusion: acc },
  };
}

function mean(xs: readonly number[]): number {
  return xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : NaN;
}

/** A plain-text report of a validation (what `simlens judge --validate` prints). */
export function formatJudgeValidation(v: JudgeValidation): string {
  const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : 'n/a');
  const lines = [`Judge ${v.annotator}: ${v.judged} judged conversations`, ''];
  lines.push('field                        n    tau-b   p       mean judge  mean 1P share');
  for (const f of v.fields) {
    lines.push(
      `${f.field.padEnd(28)} ${String(f.n).padStart(4)} ${f3(f.kendall_tau).padStart(7)} ` +
        `${f3(f.p_value).padStart(7)} ${f3(f.mean_judge).padStart(11)} ${f3(f.mean_first_person).padStart(14)}`,
    );
  }
  for (const f of v.fields) {
    lines.push('', `${f.field}: judge score (rows) vs first-person feeling ticked on any turn (no / yes)`);
    f.confusion.forEach((row, i) =>
      lines.push(`  ${i + 1}: ${String(row[0]).padStart(5)} ${String(row[1]).padStart(5)}`),
    );
  }
  const c = v.acceptance.confusion;
  lines.push(
    '',
    `acceptance: accuracy ${f3(v.acceptance.accuracy)} over ${v.acceptance.n} (rows judge no/yes, columns user no/yes)`,
  );
  lines.push(
    `  no : ${String(c[0][0]).padStart(5)} ${String(c[0][1]).padStart(5)}`,
    `  yes: ${String(c[1][0]).padStart(5)} ${String(c[1][1]).padStart(5)}`,
  );
  return lines.join('\n');
}
