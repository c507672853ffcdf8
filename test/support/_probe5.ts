import { FakeOpenAI } from './fakeOpenAI';
import { LlmClient } from '../../src/core/llm/client';
import { resolveLlmSettings } from '../../src/core/llm/config';
async function main() {
  let arrive = 0;
  const fake = await FakeOpenAI.start({ record: false, handler: () => { arrive = performance.now(); return { content: 'ok', delayMs: Number(process.env.LAT ?? 200) }; } });
  const cfg = resolveLlmSettings({ defaults: { baseUrl: fake.url, model: 'm' } }).roles.user;
  const client = new LlmClient({ role: 'user', config: cfg, apiKey: 'k' });
  for (let i = 0; i < 8; i++) {
    const t0 = performance.now();
    await client.chat({ messages: [{ role: 'user', content: 'x'.repeat(2000) + i }] });
    const t1 = performance.now();
    console.log('send->arrive', (arrive - t0).toFixed(1), 'arrive->done', (t1 - arrive).toFixed(1));
  }
  // raw fetch
  for (let i = 0; i < 4; i++) {
    const t0 = performance.now();
    const r = await fetch(fake.url + '/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', messages: [] }) });
    await r.text();
    const t1 = performance.now();
    console.log('fetch send->arrive', (arrive - t0).toFixed(1), 'arrive->done', (t1 - arrive).toFixed(1));
  }
  await fake.close();
}
main();
