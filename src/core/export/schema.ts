/**
 * The JSON Schema of one SimLens conversation line, generated from the zod model (../model.ts) so
 * the two cannot drift: `simlens schema` prints it, and the copy shipped in the extension
 * (media/schemas/conversation.v1.schema.json, contributed to VS Code for *.conv.json files) is
 * checked against it by a test. Every loose object keeps `additionalProperties: true`: fields
 * other tools write are allowed, as the zod model allows them.
 */
import * as z from 'zod';
import { Conversation } from '../model';

/** Bumped when a change to the model makes earlier lines invalid or changes a field's meaning. */
export const CONVERSATION_SCHEMA_VERSION = 1;

/** Where the shipped copy lives, relative to the extension root. */
export const CONVERSATION_SCHEMA_FILE = `media/schemas/conversation.v${CONVERSATION_SCHEMA_VERSION}.schema.json`;

const CONVERSATION_SCHEMA_ID = `https://raw.githubusercontent.com/simlens/simlens/main/${CONVERSATION_SCHEMA_FILE}`;

/** zod writes an open object as `additionalProperties: {}`; `true` says the same, readably. */
function openObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(openObjects);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (
      k === 'additionalProperties' &&
      v !== null &&
      typeof v === 'object' &&
      !Array.isArray(v) &&
      Object.keys(v).length === 0
    )
      out[k] = true;
    else out[k] = openObjects(v);
  }
  return out;
}

/** The JSON Schema (draft 2020-12) of a conversation line, as it is read (defaults not required). */
export function conversationJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(Conversation, { target: 'draft-2020-12', io: 'input' }) as Record<string, unknown>;
  const { $schema, ...rest } = generated;
  return {
    $schema,
    $id: CONVERSATION_SCHEMA_ID,
    title: `SimLens conversation (one JSONL line), schema version ${CONVERSATION_SCHEMA_VERSION}`,
    description:
      'One conversation of a SimLens JSONL file: turns with utterances, recommendations, first-person ratings, ' +
      'annotations and per-turn simulator traces. Unknown fields are allowed everywhere. Generated from ' +
      'src/core/model.ts by `simlens schema`.',
    ...(openObjects(rest) as Record<string, unknown>),
  };
}

/** The schema as the shipped file holds it (2-space JSON, final newline). */
export function conversationJsonSchemaText(): string {
  return JSON.stringify(conversationJsonSchema(), null, 2) + '\n';
}
