/**
 * The ask-check-repair loop shared by the conversation-level LLM annotators (judge,
 * discriminator): render the role's prompt with the conversation's transcript, ask for a JSON
 * answer, check it, send an invalid answer back with the problem (`json-repair` prompt), and turn
 * the first valid answer into a conversation annotation by `<role>:<model>`.
 */
import type { Conversation, ConversationAnnotation } from '../model';
import { conversationId } from '../model';
import { createRng } from '../random';
import type { ChatMessage, ChatResult, RecordedLlmCall } from './client';
import type { AnswerValidation } from './validate';
import { LlmOutputError } from './errors';
import type { LlmServices } from './services';
import { conversationTranscript } from './transcript';

/** The outcome of checking one answer: the value and the annotation fields, or what to send back. */
type AnswerCheck<T> =
  { ok: true; value: T; fields: Record<string, unknown>; repairs: string[] } | { ok: false; problem: string };

/** Options every conversation annotator takes. */
export interface AskConversationOptions {
  /** Extra attempts after an invalid answer (default 2). */
  maxRepairs?: number;
  /** Per-call sampling seed base (default: the role name; the conversation id is appended). */
  seed?: string | number;
  /** Line number, for ids of conversations without one. */
  line?: number;
}

/** What differs between annotators. */
interface ConversationQuestion<T> {
  /** The LLM role; also the prompt template's name and the prefix of `purpose` in traces. */
  role: 'judge' | 'discriminator';
  /** Items shown per turn in the transcript. */
  maxItems: number;
  /** The annotator name for a model. */
  annotator(model: string): string;
  /** Checks one answer (after the generic checks of validate.ts: complete, not empty, not a refusal). */
  check(res: Pick<ChatResult, 'text' | 'finishReason'>): AnswerCheck<T>;
}

/** A valid answer with its annotation and the calls it took. */
interface ConversationAnswer<T> {
  annotation: ConversationAnnotation;
  value: T;
  calls: RecordedLlmCall[];
}

/**
 * Asks `question` about one conversation. Throws LlmError on transport failures and
 * LlmOutputError when the answer stays invalid after every repair.
 */
export async function askAboutConversation<T>(
  conv: Conversation,
  services: LlmServices,
  question: ConversationQuestion<T>,
  opts: AskConversationOptions = {},
): Promise<ConversationAnswer<T>> {
  const { role } = question;
  const client = services.client(role);
  const id = conversationId(conv, opts.line);
  const rng = createRng(`${opts.seed ?? role}/${id}`);
  const prompt = services.prompts.render(role, {
    conversation: conversationTranscript(conv, { maxItems: question.maxItems }),
  });
  let messages: ChatMessage[] = [{ role: 'user', content: prompt.text }];
  const calls: RecordedLlmCall[] = [];
  const maxRepairs = opts.maxRepairs ?? 2;
  let problem = '';
  let last = '';
  // The client validates every answer with the role's check, so only usable answers are cached.
  const validate: AnswerValidation = {
    name: `${role}-answer@1`,
    check: (text, finishReason) => {
      const c = question.check({ text, finishReason });
      return c.ok ? undefined : c.problem;
    },
  };
  for (let attempt = 0; attempt <= maxRepairs; attempt++) {
    const res = await client.chat({
      messages,
      seed: rng.int(0x7fffffff),
      template: prompt.id,
      json: true,
      purpose: attempt ? `${role}.repair` : role,
      validate,
    });
    calls.push(res.call);
    last = res.text;
    const checked: AnswerCheck<T> =
      res.problem !== undefined ? { ok: false, problem: res.problem } : question.check(res);
    if (checked.ok) {
      const annotation: ConversationAnnotation = {
        annotator: question.annotator(client.model),
        fields: checked.fields,
        time: new Date().toISOString(),
        prompt_template: prompt.id,
        llm_calls: calls.map(({ response: _response, ...rest }) => rest),
      };
      if (checked.repairs.length) annotation.note = `${role} output repaired: ${checked.repairs.join(', ')}`;
      return { annotation, value: checked.value, calls };
    }
    problem = checked.problem;
    const repair = services.prompts.render('json-repair', { problem });
    messages = [...messages, { role: 'assistant', content: res.text }, { role: 'user', content: repair.text }];
  }
  // No "conversation <id>:" prefix: the caller names the conversation (and file) in its own message.
  throw new LlmOutputError(`${role} answer invalid after ${maxRepairs + 1} attempts: ${problem}`, last);
}
