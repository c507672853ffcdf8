/**
 * The JSON Schema of a conversation line: generated from the zod model, versioned, with $id,
 * shipped as media/schemas/conversation.v1.schema.json and contributed to VS Code; a hand-written
 * UserSimCRS-style run with per-turn traces validates against it and against the zod model, and
 * the two agree on lines that are not valid.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { Conversation } from '../../../src/core/model';
import {
  CONVERSATION_SCHEMA_FILE,
  CONVERSATION_SCHEMA_VERSION,
  conversationJsonSchema,
  conversationJsonSchemaText,
} from '../../../src/core/export/schema';
import { main } from '../../../src/cli/cli';
import type { CliIo } from '../../../src/cli/types';
import { fixturePath } from '../../fixtures';

const ROOT = resolve(__dirname, '../../..');

function validator() {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  return ajv.compile(conversationJsonSchema());
}

describe('conversation JSON Schema', () => {
  test('versioned, with $id; loose objects allow other fields', () => {
    const s = conversationJsonSchema() as Record<string, any>;
    assert.equal(s['$schema'], 'https://json-schema.org/draft/2020-12/schema');
    assert.match(s['$id'], new RegExp(`conversation\\.v${CONVERSATION_SCHEMA_VERSION}\\.schema\\.json$`));
    assert.equal(s['additionalProperties'], true);
    assert.equal(s['properties']['turns']['items']['additionalProperties'], true);
    assert.equal(s['properties']['turns']['items']['properties']['trace']['additionalProperties'], true);
    assert.deepEqual(s['required'], ['turns']);
    // Defaults of the model are not required of the input (Goal.constraints has a default).
    assert.equal(s['properties']['turns']['items']['properties']['trace']['properties']['goal']['required'], undefined);
  });

  test('the shipped file is the generated schema, and package.json contributes it for *.conv.json', () => {
    const shipped = readFileSync(join(ROOT, CONVERSATION_SCHEMA_FILE), 'utf8');
    assert.equal(
      shipped,
      conversationJsonSchemaText(),
      `regenerate with: simlens schema -o ${CONVERSATION_SCHEMA_FILE}`,
    );
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    assert.deepEqual(pkg.contributes.jsonValidation, [
      { fileMatch: '*.conv.json', url: `./${CONVERSATION_SCHEMA_FILE}` },
    ]);
    // The VSIX ships media/**.
    assert.match(readFileSync(join(ROOT, '.vscodeignore'), 'utf8'), /^!media\/\*\*$/m);
  });

  test('simlens schema prints it', async () => {
    const io = {
      out: '',
      err: '',
      cwd: ROOT,
      env: {},
      stdout: (t: string) => void (io.out += t),
      stderr: (t: string) => void (io.err += t),
    } as CliIo & { out: string; err: string };
    assert.equal(await main(['schema'], io), 0);
    assert.equal(io.out, conversationJsonSchemaText());
  });

  test('a hand-written UserSimCRS-style run with traces is valid for both the schema and zod', () => {
    const validate = validator();
    const lines = readFileSync(fixturePath('formats/usersimcrs-run.jsonl'), 'utf8').trimEnd().split('\n');
    assert.equal(lines.length, 2);
    for (const [k, text] of lines.entries()) {
      const value = JSON.parse(text) as { turns: { trace?: { agenda?: unknown; goal?: unknown } }[] };
      assert.ok(validate(value), `line ${k + 1}: ${JSON.stringify(validate.errors)}`);
      const z = Conversation.safeParse(value);
      assert.ok(z.success, `line ${k + 1}: ${z.success ? '' : z.error.message}`);
      // The traces the editor replays are there.
      assert.ok(value.turns.some((t) => Array.isArray(t.trace?.agenda) && t.trace?.goal));
    }
  });

  test('schema and zod agree on lines that are not valid', () => {
    const validate = validator();
    const good = JSON.parse(readFileSync(fixturePath('formats/usersimcrs-run.jsonl'), 'utf8').split('\n')[0]);
    const mutations: [string, (c: any) => void][] = [
      ['turns is not an array', (c) => (c.turns = 'none')],
      ['no turns', (c) => delete c.turns],
      ['speaker outside the enum', (c) => (c.turns[0].annotations[0].speaker = 'bot')],
      ['empty annotator', (c) => (c.turns[0].annotations[0].annotator = '')],
      ['goal constraint that is an object', (c) => (c.turns[0].trace.goal.constraints.GENRE = { x: 1 })],
      ['unknown operation', (c) => (c.turns[1].trace.operation = 'jump')],
      ['outcome outside the enum', (c) => (c.outcome = 'won')],
      ['recommendation without item_id', (c) => delete c.turns[1].recommendations[0].item_id],
      ['negative segment', (c) => (c.turns[0].annotations[0].segment = -1)],
      ['rating that is an object', (c) => (c.ratings = { q: { a: 1 } })],
      ['extra fields everywhere are fine', (c) => ((c.x = 1), (c.turns[0].y = [1]), (c.turns[0].trace.z = {}))],
    ];
    for (const [name, mutate] of mutations) {
      const c = structuredClone(good);
      mutate(c);
      const bySchema = validate(c);
      const byZod = Conversation.safeParse(c).success;
      assert.equal(bySchema, byZod, `${name}: schema says ${bySchema}, zod says ${byZod}`);
      assert.equal(bySchema, name.startsWith('extra'), name);
    }
  });
});
