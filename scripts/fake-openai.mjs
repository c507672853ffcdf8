#!/usr/bin/env node
// A loopback OpenAI-compatible server for demos, E2E tests and manual checks: it answers every
// SimLens prompt (LLM users, recommenders, judge, discriminator, embeddings) with scripted,
// well-formed replies. It runs the same code as the unit tests (test/support/fakeOpenAI.ts).
//
//   node scripts/fake-openai.mjs [--port 0] [--latency-ms 0] [--user-turns 3]
//
// Prints `SIMLENS_BASE_URL=http://127.0.0.1:<port>/v1` on the first line of stdout, then serves
// until SIGINT/SIGTERM. Point SimLens at it with that variable (any API key works).
import { tsImport } from 'tsx/esm/api';

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const v = Number(process.argv[i + 1]);
  if (!Number.isFinite(v) || v < 0) {
    console.error(`fake-openai: --${name} needs a number >= 0`);
    process.exit(2);
  }
  return v;
}

const { FakeOpenAI } = await tsImport('../test/support/fakeOpenAI.ts', import.meta.url);
const { simulationScript } = await tsImport('../test/support/llmScripts.ts', import.meta.url);
const server = await FakeOpenAI.start({
  port: arg('port', 0),
  latencyMs: arg('latency-ms', 0),
  handler: simulationScript({ userTurns: arg('user-turns', 3) }),
  record: false,
});
console.log(`SIMLENS_BASE_URL=${server.url}`);
const stop = async () => {
  await server.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
