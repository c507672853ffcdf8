/**
 * Reading a simulated user's reply: "Response: <text>" and "Terminate: True|False". Models drift
 * from the format in predictable ways (bold labels, quotes, code fences, a missing label, going on
 * to write the assistant's next line), so the parser repairs those and lists what it repaired;
 * a reply with nothing usable is a problem to send back to the model.
 */
import type { Outcome } from '../../../model';
import { looksLikeRefusal, type AnswerValidation } from '../../../llm/validate';

type ParsedUserReply =
  { ok: true; response: string; terminate: boolean; repairs: string[] } | { ok: false; problem: string };

const TERMINATE = /^[\s>*_#-]*terminat(?:e|ion)[\s*_]*[:=][\s*_"'`<]*(true|false|yes|no)\b/gim;
const RESPONSE_LABEL = /^[\s>*_#-]*(?:response|user|shopper)[\s*_]*:[\s*_]*/im;

/** Parses a user simulator's reply. `finishReason: "length"` marks a reply cut at the token limit. */
export function parseUserReply(text: string, finishReason?: string): ParsedUserReply {
  const repairs: string[] = [];
  let body = text.replace(/\r\n/g, '\n');
  if (/^\s*```/m.test(body)) {
    body = body.replace(/^\s*```[a-z]*\s*$/gim, '');
    repairs.push('removed code fences');
  }
  body = body.replace(/^\s*={3,}\s*$/gm, '');

  let terminate = false;
  let terminateAt = -1;
  const matches = [...body.matchAll(TERMINATE)];
  if (matches.length) {
    const last = matches[matches.length - 1];
    terminate = /^(true|yes)$/i.test(last[1]);
    terminateAt = matches[0].index ?? -1;
  } else {
    repairs.push('no Terminate line (taken as False)');
  }

  let responsePart = terminateAt >= 0 ? body.slice(0, terminateAt) : body;
  const label = RESPONSE_LABEL.exec(responsePart);
  if (label) responsePart = responsePart.slice((label.index ?? 0) + label[0].length);
  else if (responsePart.trim()) repairs.push('no Response label');

  // The model went on to write the assistant's side: keep only the shopper's words.
  const runOn = /\n\s*\**(assistant|system)\**\s*:/i.exec(responsePart);
  if (runOn) {
    responsePart = responsePart.slice(0, runOn.index);
    repairs.push('cut text written for the assistant');
  }
  let response = responsePart.trim();
  const quoted = /^["“'](.*)["”']$/s.exec(response);
  if (quoted) response = quoted[1].trim();
  if (/^<\s*(response|your message|what you type[^>]*)\s*>$/i.test(response)) response = '';
  response = response.replace(/\s*\n\s*/g, ' ').trim();

  if (finishReason === 'length' && !matches.length) {
    return { ok: false, problem: 'the reply was cut off at the token limit; keep it much shorter' };
  }
  // Another shape altogether (a JSON object, a list) is not a shopper's message.
  if (!label && /^[[{]/.test(response))
    return { ok: false, problem: 'the reply is JSON, not a Response line and a Terminate line' };
  if (response && looksLikeRefusal(response))
    return {
      ok: false,
      problem: `the reply is a refusal ("${response.slice(0, 60)}"), not the shopper's message; stay in the role`,
    };
  if (!response && !terminate) return { ok: false, problem: 'the Response line is empty but Terminate is False' };
  return { ok: true, response, terminate, repairs };
}

/** The user simulator's answer check (the client's validation; see src/core/llm/validate.ts). */
export const USER_REPLY_VALIDATION: AnswerValidation = {
  name: 'user-reply@1',
  check(text, finishReason) {
    const parsed = parseUserReply(text, finishReason);
    return parsed.ok ? undefined : parsed.problem;
  },
};

const ACCEPT =
  /\b(i'?ll (take|buy|get|go with|order)|i (will|want to|would like to|'d like to) (buy|purchase|order|get)|add (it|this|that|them)? ?to (my )?(cart|basket)|buy (it|this|that|the)|purchase (it|this|that|the)|(that|this|it)'?s? (the one|perfect)|sold)\b/i;
const QUIT =
  /\b(forget it|never ?mind|waste of|useless|not helpful|give up|i'?m (done|leaving|out)|this isn'?t working|no thanks)\b/i;
const GREET = /^(hi|hello|hey|thanks?|thank you|bye|goodbye|cheers)\b/i;
const REJECT =
  /\b(no[, ]|not (really|quite|what)|don'?t (like|want)|none of (these|them|those)|too (expensive|pricey|big|small|long|short|bright|plain))/i;
const POSITIVE = /\b(love|like (it|this|that|these)|nice|great|perfect|good|cute|awesome)\b/i;

/**
 * A rough ConvApparel user act for an LLM user's utterance, used as `UserTurn.act` (the judge or an
 * annotator gives the real acts later). Order matters: accept before reject, questions before the rest.
 */
export function guessUserAct(text: string, terminate: boolean): string {
  const t = text.trim();
  if (!t) return terminate ? 'other' : 'other';
  if (ACCEPT.test(t)) return 'accept_recommendation';
  if (QUIT.test(t)) return 'provide_feedback_negative';
  if (REJECT.test(t)) return 'reject_recommendation';
  if (t.includes('?')) return 'ask_clarification';
  if (GREET.test(t) && t.split(/\s+/).length <= 4) return 'greet_thank';
  if (POSITIVE.test(t)) return 'provide_feedback_positive';
  return 'inform_preference';
}

/** How a terminating reply ended the conversation. */
export function terminationOutcome(text: string): Outcome {
  if (ACCEPT.test(text)) return 'accepted';
  if (QUIT.test(text) || /\b(annoy|frustrat|confus|pointless|bye)\b/i.test(text)) return 'abandoned';
  return 'ended';
}
