/**
 * Zero-shot LLM discriminator: shows a conversation and asks whether the user side was written by
 * a person or a simulator, as JSON {label, p_human, reason}. The probability is stored as a
 * conversation annotation by `discriminator:<model>` with `fields.p_human`, which the
 * human-likeness panel shows beside the local (lexical) discriminator.
 */
import type { Conversation, ConversationAnnotation } from '../model';
import { askAboutConversation, type AskConversationOptions } from './askConversation';
import type { RecordedLlmCall } from './client';
import { extractJsonObject } from './json';
import type { LlmServices } from './services';

interface DiscriminatorVerdict {
  label: 'human' | 'simulation';
  /** Probability that the user is a person, in [0, 1]. */
  p_human: number;
  reason?: string;
}

/**
 * Reads a verdict. A JSON answer is preferred; an answer that is only the word "human" or
 * "simulation" is accepted with p_human 1 or 0. When label and probability disagree (label "human", p 0.2), the label wins
 * and the probability is mirrored, because models state the label more reliably than a number.
 */
export function parseVerdict(
  text: string,
): { ok: true; verdict: DiscriminatorVerdict; repairs: string[] } | { ok: false; problem: string } {
  const json = extractJsonObject(text);
  if (json.ok) {
    const raw = json.value;
    const label = typeof raw.label === 'string' ? raw.label.trim().toLowerCase() : undefined;
    let p =
      typeof raw.p_human === 'number' ? raw.p_human : typeof raw.p_human === 'string' ? Number(raw.p_human) : undefined;
    const repairs = [...json.repairs];
    if (label !== undefined && label !== 'human' && label !== 'simulation')
      return { ok: false, problem: `"label" must be "human" or "simulation", got ${JSON.stringify(raw.label)}` };
    if (p !== undefined && (!Number.isFinite(p) || p < 0 || p > 1)) {
      if (Number.isFinite(p) && p > 1 && p <= 100) {
        p = p / 100;
        repairs.push('read p_human as a percentage');
      } else
        return { ok: false, problem: `"p_human" must be a number from 0 to 1, got ${JSON.stringify(raw.p_human)}` };
    }
    if (label === undefined && p === undefined)
      return { ok: false, problem: 'the object has neither "label" nor "p_human"' };
    const finalLabel = label ?? (p! >= 0.5 ? 'human' : 'simulation');
    let pHuman = p ?? (finalLabel === 'human' ? 1 : 0);
    if ((finalLabel === 'human') !== pHuman >= 0.5 && pHuman !== 0.5) {
      pHuman = 1 - pHuman;
      repairs.push('p_human contradicted the label; mirrored');
    }
    return {
      ok: true,
      verdict: {
        label: finalLabel as DiscriminatorVerdict['label'],
        p_human: pHuman,
        reason: typeof raw.reason === 'string' ? raw.reason : undefined,
      },
      repairs,
    };
  }
  // Only an answer that is the label alone: a sentence that merely mentions "human" (a refusal, a
  // hedge, an answer cut off) is not a verdict.
  const word = /^[\s"'`*.]*(human|simulation|simulated)[\s"'`*.!]*$/i.exec(text);
  if (word) {
    const label = word[1].toLowerCase() === 'human' ? 'human' : 'simulation';
    return { ok: true, verdict: { label, p_human: label === 'human' ? 1 : 0 }, repairs: ['read a bare label'] };
  }
  return { ok: false, problem: 'no label found; answer with the JSON object' };
}

export function discriminatorAnnotator(model: string): string {
  return `discriminator:${model}`;
}

interface DiscriminateResult {
  annotation: ConversationAnnotation;
  verdict: DiscriminatorVerdict;
  calls: RecordedLlmCall[];
}

/** Asks the discriminator about one conversation. Throws LlmError (transport) or LlmOutputError. */
export async function discriminateConversation(
  conv: Conversation,
  services: LlmServices,
  opts: AskConversationOptions = {},
): Promise<DiscriminateResult> {
  const { annotation, value, calls } = await askAboutConversation(
    conv,
    services,
    {
      role: 'discriminator',
      // Items are left out: the question is about how the user writes, and they would only add length.
      maxItems: 0,
      annotator: discriminatorAnnotator,
      check: (res) => {
        const parsed = parseVerdict(res.text);
        if (!parsed.ok) return parsed;
        const { verdict } = parsed;
        return {
          ok: true,
          value: verdict,
          fields: {
            p_human: verdict.p_human,
            label: verdict.label,
            ...(verdict.reason ? { reason: verdict.reason } : {}),
          },
          repairs: parsed.repairs,
        };
      },
    },
    opts,
  );
  return { annotation, verdict: value, calls };
}
