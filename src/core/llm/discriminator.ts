/**
 * Zero-shot LLM discriminator: shows a conversation and asks whether the user side was written by
 * a person or a simulator, as JSON {label, p_human, reason}. The probability is stored as a
 * conversation annotation by `discriminator:<model>` with `fields.p_human`, which the
 * human-likeness panel shows beside the local (lexical) discriminator.
 */
import type { Conversation, ConversationAnnotation } from '../model';
import { conversationId } from '../model';
import { createRng } from '../random';
import type { ChatMessage, RecordedLlmCall } from './client';
import { LlmOutputError } from './errors';
import { extractJsonObject } from './json';
import type { LlmServices } from './services';
import { conversationTranscript } from './transcript';

export interface DiscriminatorVerdict {
  label: 'human' | 'simulation';
  /** Probability that the user is a person, in [0, 1]. */
  p_human: number;
  reason?: string;
}

/**
 * Reads a verdict. A JSON answer is preferred; a bare "human"/"simulation" answer is accepted
 * with p_human 1 or 0. When label and probability disagree (label "human", p 0.2), the label wins
 * and the probability is mirrored, because models state the label more reliably than a number.
 */
export function parseVerdict(text: string): { ok: true; verdict: DiscriminatorVerdict; repairs: string[] } | { ok: false; problem: string } {
  const json = extractJsonObject(text);
  if (json.ok) {
    const raw = json.value;
    const label = typeof raw.label === 'string' ? raw.label.trim().toLowerCase() : undefined;
    let p = typeof raw.p_human === 'number' ? raw.p_human : typeof raw.p_human === 'string' ? Number(raw.p_human) : undefined;
    const repairs = [...json.repairs];
    if (label !== undefined && label !== 'human' && label !== 'simulation') return { ok: false, problem: `"label" must be "human" or "simulation", got ${JSON.stringify(raw.label)}` };
    if (p !== undefined && (!Number.isFinite(p) || p < 0 || p > 1)) {
      if (Number.isFinite(p) && p > 1 && p <= 100) {
        p = p / 100;
        repairs.push('read p_human as a percentage');
      } else return { ok: false, problem: `"p_human" must be a number from 0 to 1, got ${JSON.stringify(raw.p_human)}` };
    }
    if (label === undefined && p === undefined) return { ok: false, problem: 'the object has neither "label" nor "p_human"' };
    const finalLabel = label ?? (p! >= 0.5 ? 'human' : 'simulation');
    let pHuman = p ?? (finalLabel === 'human' ? 1 : 0);
    if ((finalLabel === 'human') !== (pHuman >= 0.5) && pHuman !== 0.5) {
      pHuman = 1 - pHuman;
      repairs.push('p_human contradicted the label; mirrored');
    }
    return { ok: true, verdict: { label: finalLabel as DiscriminatorVerdict['label'], p_human: pHuman, reason: typeof raw.reason === 'string' ? raw.reason : undefined }, repairs };
  }
  const word = /\b(human|simulation|simulated)\b/i.exec(text);
  if (word) {
    const label = word[1].toLowerCase() === 'human' ? 'human' : 'simulation';
    return { ok: true, verdict: { label, p_human: label === 'human' ? 1 : 0 }, repairs: ['read a bare label'] };
  }
  return { ok: false, problem: 'no label found; answer with the JSON object' };
}

export function discriminatorAnnotator(model: string): string {
  return `discriminator:${model}`;
}

export interface DiscriminateResult {
  annotation: ConversationAnnotation;
  verdict: DiscriminatorVerdict;
  calls: RecordedLlmCall[];
}

/** Asks the discriminator about one conversation. Throws LlmError (transport) or LlmOutputError. */
export async function discriminateConversation(conv: Conversation, services: LlmServices, opts: { maxRepairs?: number; seed?: string | number; line?: number } = {}): Promise<DiscriminateResult> {
  const client = services.client('discriminator');
  const id = conversationId(conv, opts.line);
  const rng = createRng(`${opts.seed ?? 'discriminator'}/${id}`);
  // Items are left out: the question is about how the user writes, and they would only add length.
  const prompt = services.prompts.render('discriminator', { conversation: conversationTranscript(conv, { maxItems: 0 }) });
  let messages: ChatMessage[] = [{ role: 'user', content: prompt.text }];
  const calls: RecordedLlmCall[] = [];
  const maxRepairs = opts.maxRepairs ?? 2;
  let problem = '';
  let last = '';
  for (let attempt = 0; attempt <= maxRepairs; attempt++) {
    const res = await client.chat({ messages, seed: rng.int(0x7fffffff), template: prompt.id, json: true, purpose: attempt ? 'discriminator.repair' : 'discriminator' });
    calls.push(res.call);
    last = res.text;
    const parsed = parseVerdict(res.text);
    if (parsed.ok) {
      const annotation: ConversationAnnotation = {
        annotator: discriminatorAnnotator(client.model),
        fields: { p_human: parsed.verdict.p_human, label: parsed.verdict.label, ...(parsed.verdict.reason ? { reason: parsed.verdict.reason } : {}) },
        time: new Date().toISOString(),
        prompt_template: prompt.id,
        llm_calls: calls.map(({ response: _response, ...rest }) => rest),
      };
      if (parsed.repairs.length) annotation.note = `discriminator output repaired: ${parsed.repairs.join(', ')}`;
      return { annotation, verdict: parsed.verdict, calls };
    }
    problem = parsed.problem;
    const repair = services.prompts.render('json-repair', { problem });
    messages = [...messages, { role: 'assistant', content: res.text }, { role: 'user', content: repair.text }];
  }
  throw new LlmOutputError(`conversation ${id}: discriminator answer invalid after ${maxRepairs + 1} attempts: ${problem}`, last);
}
