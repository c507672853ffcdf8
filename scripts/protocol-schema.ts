// Writes docs/protocol.schema.json from the protocol's zod schemas (src/core/sim/users/external/protocol.ts).
// Run: npx tsx scripts/protocol-schema.ts   (test/unit/sim/external.test.ts fails when the file is stale)
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { protocolJsonSchema } from '../src/core/sim/users/external/protocol';

const out = resolve(__dirname, '../docs/protocol.schema.json');
writeFileSync(out, `${JSON.stringify(protocolJsonSchema(), null, 2)}\n`);
console.log(`wrote ${out}`);
