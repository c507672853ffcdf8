/**
 * A tiny simulated user in TypeScript, for the SimLens protocol's TypeScript adapter: it asks for
 * its task, accepts the first recommended item of that category, and leaves after three carousels
 * without one. Run: simlens simulate --user exec:"node --import tsx examples/ts/exampleUser.ts" ...
 */
import { serve, type SimulatedUser, type UserTurn } from './simlensAdapter';

class FirstFitUser implements SimulatedUser {
  private task = '';
  private patience = 3;

  start(params: { task?: string }): UserTurn {
    this.task = params.task ?? 'tops';
    return {
      utterance: `I need ${this.task}.`,
      acts: ['Disclose'],
      trace: { agenda: ['Note'], operation: 'init', pulled: ['Disclose'], patience: this.patience },
    };
  }

  respond(params: { recommendations: Record<string, unknown>[] }): UserTurn {
    const fit = params.recommendations.find((r) => r.category === this.task);
    if (fit)
      return {
        utterance: `I'll take the ${String(fit.title ?? fit.item_id)}.`,
        acts: ['Note.Accept'],
        done: true,
        outcome: 'accepted',
        end_reason: 'goal_reached',
        trace: { agenda: [], operation: 'pull', pulled: ['Note'], patience: this.patience },
      };
    this.patience--;
    if (this.patience <= 0)
      return {
        utterance: 'Never mind, bye.',
        acts: ['Complete.Abandon'],
        done: true,
        outcome: 'abandoned',
        end_reason: 'patience',
        trace: { agenda: ['Note'], operation: 'push', patience: 0 },
      };
    return {
      utterance: `Do you have any ${this.task}?`,
      acts: ['Disclose'],
      trace: { agenda: ['Note'], operation: 'push', pushed: ['Disclose'], patience: this.patience },
    };
  }
}

serve(() => new FirstFitUser(), { name: 'example-first-fit-user', version: '1.0' });
