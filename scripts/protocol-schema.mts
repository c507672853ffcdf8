// Writes docs/protocol.schema.json from the protocol's zod schemas (src/core/sim/users/external/protocol.ts).
// Run: npx tsx scripts/protocol-schema.mts   (test/unit/sim/external.test.ts fails when the file is stale)
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { protocolJsonSchema } from '../src/core/sim/users/external/protocol.ts';

const out = fileURLToPath(new URL('../docs/protocol.schema.json', import.meta.url));
writeFileSync(out, `${JSON.stringify(protocolJsonSchema(), null, 2)}\n`);
console.log(`wrote ${out}`);
