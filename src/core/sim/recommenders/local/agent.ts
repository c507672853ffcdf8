/** What the local agents (`local-good`, `local-bad`) share: one catalog and lexicon for all their sessions. */
import type { Catalog } from '../../../catalog/item';
import type { Rng } from '../../../random';
import type { Agent, AgentSession, SessionContext } from '../../types';
import { Lexicon } from './lexicon';

/** A local agent whose sessions are made by `open` from the shared catalog and lexicon. */
export class LocalAgent<S extends AgentSession> implements Agent {
  private readonly lexicon: Lexicon;

  constructor(
    readonly name: string,
    readonly condition: string,
    readonly catalog: Catalog,
    private readonly open: (catalog: Catalog, lexicon: Lexicon, rng: Rng) => S,
  ) {
    this.lexicon = Lexicon.for(catalog);
  }

  createSession(_conversationId: string, rng: Rng, _context: SessionContext): S {
    return this.open(this.catalog, this.lexicon, rng);
  }
}
