/**
 * A scripted "model" for the loopback server that answers every SimLens prompt plausibly, by
 * recognising which template a request comes from. Tests, the E2E helper, the dev server
 * (`scripts/fake-openai.mjs`) and the LLM benchmark use it so whole simulated conversations run
 * without a real LLM.
 */
import type { FakeHandler, FakeReply, RecordedRequest } from './fakeOpenAI';

interface SimulationScriptOptions {
  /** The simulated user stops after this many messages (default 3). */
  userTurns?: number;
}

function messages(req: RecordedRequest): Array<{ role: string; content: string }> {
  const m = req.body?.messages;
  return Array.isArray(m) ? (m as Array<{ role: string; content: string }>) : [];
}

/** Which SimLens prompt a request carries. */
export function promptKind(
  req: RecordedRequest,
): 'agent' | 'user' | 'sft-user' | 'general' | 'reflect' | 'judge' | 'discriminator' | 'unknown' {
  const all = messages(req);
  const first = all[0]?.content ?? '';
  if (/shopping assistant of an online/.test(first)) return 'agent';
  if (/You are a shopper looking for/.test(first)) return 'sft-user';
  if (/playing a person who is shopping/.test(first)) return 'user';
  if (/Describe this shopper's taste/.test(first)) return 'general';
  if (/For each item give your opinion/.test(first)) return 'reflect';
  if (/You rate one conversation/.test(first)) return 'judge';
  if (/written by a person or|real person or a language model/.test(first)) return 'discriminator';
  return 'unknown';
}

/** A valid judge answer (fields from domain.md §3). */
export function judgeAnswer(over: Record<string, unknown> = {}): string {
  const detail = (r: number) => ({ rating: r, explanation: 'fine' });
  return JSON.stringify({
    user_sentiment: 4,
    user_satisfaction: 4,
    user_frustration_annoyance: 1,
    user_confusion: 1,
    recommendation_accepted: true,
    turns_until_acceptance: 2,
    assistant_turns_with_question: 1,
    user_turns_with_question: 0,
    user_dialog_acts: { inform_preference: 2, accept_recommendation: 1 },
    assistant_dialog_acts: { recommend: 2, elicit_preference: 1 },
    evaluation_details: {
      relevance_of_recommendations: detail(4),
      dialogue_quality: detail(4),
      task_completion: detail(5),
      ease_of_use: detail(4),
    },
    overall_summary_explanation: 'Helpful and brief.',
    overall_agent_rating: 4.5,
    ...over,
  });
}

/** Answers each SimLens prompt kind with a well-formed reply. */
export function simulationScript(opts: SimulationScriptOptions = {}): FakeHandler {
  const stopAfter = opts.userTurns ?? 3;
  return (req: RecordedRequest): FakeReply => {
    const all = messages(req);
    switch (promptKind(req)) {
      case 'agent':
        return { content: 'Here are a few options that match. Do you have a colour in mind?' };
      case 'user': {
        const said = ((all[1]?.content ?? '').match(/^USER:/gm) ?? []).length;
        if (said + 1 >= stopAfter)
          return { content: 'Response: the first one is good, i will buy it\nTerminate: True' };
        return {
          content:
            said === 0
              ? 'Response: looking for comfy black boots\nTerminate: False'
              : 'Response: something cheaper maybe?\nTerminate: False',
        };
      }
      case 'sft-user': {
        const said = all.filter((m) => m.role === 'assistant').length;
        return {
          content:
            said + 1 >= stopAfter
              ? 'Response: ok thanks\nTerminate: True'
              : 'Response: need running shoes\nTerminate: False',
        };
      }
      case 'general':
        return { content: 'You like comfortable, sturdy shoes in dark colours and dislike flimsy materials.' };
      case 'reflect': {
        const ids = [...(all[0]?.content ?? '').matchAll(/item_id (\S+):/g)].map((m) => m[1]);
        return {
          content: JSON.stringify({
            items: ids.map((id, i) => ({
              item_id: id,
              opinion: i % 2 ? 'dislike' : 'like',
              reason: i % 2 ? 'looks flimsy' : 'sturdy and dark',
            })),
          }),
        };
      }
      case 'judge':
        return { content: judgeAnswer() };
      case 'discriminator':
        return { content: JSON.stringify({ label: 'simulation', p_human: 0.2, reason: 'too tidy' }) };
      default:
        return { content: 'ok' };
    }
  };
}
