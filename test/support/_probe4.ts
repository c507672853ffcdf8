import { FakeOpenAI } from './fakeOpenAI';
import { LlmClient } from '../../src/core/llm/client';
import { resolveLlmSettings } from '../../src/core/llm/config';
async function main() {
  const fake = await FakeOpenAI.start({ latencyMs: Number(process.env.LAT ?? 0), record: false });
  const cfg = resolveLlmSettings({ defaults: { baseUrl: fake.url, model: 'm', concurrency: 32 } }).roles.user;
  const client = new LlmClient({ role: 'user', config: cfg, apiKey: 'k' });
  const n = Number(process.env.N ?? 200);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await client.chat({ messages: [{ role: 'user', content: 'x'.repeat(2000) + i }] });
  console.log('client c=1', ((performance.now() - t0) / n).toFixed(2), 'ms/call');
  await fake.close();
}
main();
