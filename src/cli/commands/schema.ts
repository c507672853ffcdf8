/** `simlens schema`: print the JSON Schema of a conversation line. */
import { writeFileSync } from 'node:fs';
import { CONVERSATION_SCHEMA_VERSION, conversationJsonSchemaText } from '../../core/export/schema';
import { formatFlags, parseArgs } from '../args';
import type { CliCommand } from '../types';
import { ioErrorMessage, resolvePath } from '../util';

const FLAGS = {
  output: {
    type: 'string',
    short: 'o',
    valueName: 'FILE',
    description: 'write the schema to FILE instead of printing it',
  },
} as const;

export const schemaCommand: CliCommand = {
  name: 'schema',
  summary: 'print the JSON Schema of a SimLens conversation line',
  help: `Usage: simlens schema [-o FILE]

Prints the JSON Schema (draft 2020-12, version ${CONVERSATION_SCHEMA_VERSION}, with $id) of one line of SimLens
conversation JSONL, generated from the same model that validate and the editor use. Other tools
(e.g. a Python user simulator writing SimLens JSONL with per-turn traces) can validate their
output with it; see docs/formats.md. VS Code uses it for *.conv.json files.

Options:
${formatFlags(FLAGS)}

Examples:
  simlens schema > conversation.schema.json
  simlens schema -o conversation.schema.json
  jq '.properties | keys' conversation.schema.json
`,
  async run(args, io) {
    const { flags } = parseArgs(args, FLAGS, { positionals: { min: 0, max: 0, names: '' } });
    const text = conversationJsonSchemaText();
    if (flags.output === undefined || flags.output === '-') {
      io.stdout(text);
      return 0;
    }
    try {
      writeFileSync(resolvePath(io, flags.output), text);
    } catch (err) {
      io.stderr(`simlens schema: ${ioErrorMessage('write', flags.output, err)}\n`);
      return 2;
    }
    return 0;
  },
};
