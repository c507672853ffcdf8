/**
 * The prompted user (ConvApparel style): a system prompt with the shopping task, how the shopper
 * feels and behaves (brief, may quit when annoyed) and the reply format, then the conversation so
 * far. The `sft` variant sends the short prompt `simlens export-sft` trains with, as chat turns, so
 * a fine-tuned model is used exactly as it was trained: pass its name as the user model.
 */
import type { Rng } from '../../../random';
import type { SessionContext, UserSession, UserSimulator } from '../../types';
import type { ChatMessage } from '../../../llm/client';
import type { LlmServices } from '../../../llm/services';
import { renderTranscript } from '../../../llm/transcript';
import { sftMessages } from '../../../llm/sft';
import { LlmUserSession, renderTask, type LlmUserOptions } from './base';

type PromptedUserOptions = LlmUserOptions;

class PromptedSession extends LlmUserSession {
  protected async buildMessages(): Promise<{ messages: ChatMessage[]; template: string }> {
    const task = renderTask(this.prompts, this.task);
    const system = this.prompts.render('user-prompted', { task: task.text, max_turns: this.maxTurns });
    const turn = this.prompts.render('user-turn', { conversation: renderTranscript(this.history) });
    return {
      messages: [
        { role: 'system', content: system.text },
        { role: 'user', content: turn.text },
      ],
      template: `${system.id}+${turn.id}+${task.id}`,
    };
  }
}

class SftSession extends LlmUserSession {
  protected async buildMessages(): Promise<{ messages: ChatMessage[]; template: string }> {
    const { messages, template } = sftMessages(this.prompts, this.task, this.history);
    return { messages, template };
  }
}

/** The prompted LLM user ("llm-prompted"). */
export function createPromptedUser(services: LlmServices, options: PromptedUserOptions = {}): UserSimulator {
  const client = services.client('user');
  return {
    name: `llm-prompted(${client.model})`,
    createSession(_id: string, rng: Rng, context: SessionContext): UserSession {
      return new PromptedSession(client, services.prompts, rng, context, options);
    },
  };
}

/** A fine-tuned user model, prompted the way `simlens export-sft` trained it ("llm-sft"). */
export function createSftUser(services: LlmServices, options: PromptedUserOptions = {}): UserSimulator {
  const client = services.client('user');
  return {
    name: `llm-sft(${client.model})`,
    createSession(_id: string, rng: Rng, context: SessionContext): UserSession {
      return new SftSession(client, services.prompts, rng, context, options);
    },
  };
}
