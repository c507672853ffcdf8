/**
 * Checks an LLM answer before anything uses it. Every answer passes the generic checks (text
 * content, a complete answer, not a refusal); a caller adds its role's check (the user's
 * Response/Terminate format, the judge's schema, ...) through `AnswerValidation`. An answer that
 * fails is never cached and never used as data: the caller sends the problem back to the model
 * (its bounded repair attempts) and then records a failure of that conversation.
 *
 * A cache entry records the name of the validation it passed (`validation`), and a cached answer
 * is only replayed to a request with the same validation that it passes again.
 */

/** A role's check of an answer: a problem to send back to the model, or undefined when usable. */
export interface AnswerValidation {
  /** Stable name with a version, e.g. "user-reply@1"; recorded in the cache entry. Bump it when the check changes. */
  readonly name: string;
  check(text: string, finishReason: string | undefined): string | undefined;
}

/** The generic checks' version; part of every recorded validation name. */
const GENERIC_VALIDATION = 'answer@1';

/**
 * Refusal openings. Matched on the start of the answer (and of a user reply's Response text) only,
 * so a shopper who writes "I can't decide" in the middle of a reply is not taken for a refusal.
 */
const REFUSAL =
  /^\W*(?:(?:(?:i['’]?m|i am) (?:really |very )?)?sorry,? (?:but )?)?(?:i (?:can(?:no|['’])t|could not|couldn['’]t|am (?:not able|unable)|['’]m (?:not able|unable)|won['’]t|will not) (?:to )?(?:help|assist|comply|fulfil|fulfill|provide|do that|continue|engage|participate|play|role-?play|pretend|answer|generate|complete|create|write)|as an ai(?: language model)?\b|i['’]?m an ai\b|i am an ai\b)/i;

/** True when `text` opens like a refusal ("I can't help with that", "As an AI language model, ..."). */
export function looksLikeRefusal(text: string): boolean {
  return REFUSAL.test(text.trim());
}

/**
 * The problem every role shares, or undefined: an answer cut at the token limit or by a content
 * filter, an empty answer, a refusal.
 */
function genericAnswerProblem(text: string, finishReason: string | undefined): string | undefined {
  if (finishReason === 'length')
    return 'the answer was cut off at the token limit (finish_reason "length"); answer much more briefly';
  if (finishReason === 'content_filter')
    return 'the answer was stopped by the content filter (finish_reason "content_filter")';
  if (!text.trim()) return 'the answer is empty';
  if (looksLikeRefusal(text))
    return `the answer is a refusal ("${text.trim().slice(0, 60)}"); stay in the role you were given and answer in the format asked for`;
  return undefined;
}

/** The generic checks, then the role's. */
export function answerProblem(
  text: string,
  finishReason: string | undefined,
  validation: AnswerValidation | undefined,
): string | undefined {
  return genericAnswerProblem(text, finishReason) ?? validation?.check(text, finishReason);
}

/** The name a cache entry records for `validation`. */
export function validationName(validation: AnswerValidation | undefined): string {
  return validation ? `${GENERIC_VALIDATION}+${validation.name}` : GENERIC_VALIDATION;
}

/**
 * The text of a chat message's `content`: a string as is; a list of parts (what some servers send,
 * e.g. `[{type: "text", text: "..."}]`) joined; null or absent as "". Anything else is not text.
 */
export function contentText(content: unknown): { ok: true; text: string } | { ok: false; problem: string } {
  if (content === null || content === undefined) return { ok: true, text: '' };
  if (typeof content === 'string') return { ok: true, text: content };
  if (Array.isArray(content)) {
    let text = '';
    for (const [i, part] of content.entries()) {
      if (typeof part === 'string') text += part;
      else if (part && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string')
        text += (part as { text: string }).text;
      else if (
        part &&
        typeof part === 'object' &&
        (part as { type?: unknown }).type !== undefined &&
        (part as { type?: unknown }).type !== 'text'
      )
        continue; // non-text parts (images, refusals are handled below)
      else return { ok: false, problem: `message content part ${i} has no text` };
    }
    return { ok: true, text };
  }
  return { ok: false, problem: `message content is a ${typeof content}, not text` };
}
