/**
 * What settles a purchase (src/core/sim/users/reasons.ts): agenda and target-free users that take
 * an item say, in 3 of 4 acceptances, which of the taken item's own features won them over. The
 * features named are the taken item's (never another item's), the acceptances' wordings vary, and
 * the words change nothing the users do (a words-only fork).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSimulationConfig, prepareEnvironment, simulateConversation } from '../../../src/core/run/index';
import { sayableDetails } from '../../../src/core/sim/recommenders/index';
import { acceptanceReason, isNounDetail } from '../../../src/core/sim/users/reasons';
import { TemplateNlg } from '../../../src/core/sim/users/nlg';
import { createRng } from '../../../src/core/random';

const CONFIGS = [
  { user: 'agenda', interaction: 'cir6', preferences: 'single', meta: 'tol' },
  { user: 'agenda', interaction: 'qrfa', preferences: 'pkg', meta: 'prob' },
  { user: 'target-free', meta: 'tol' },
  { user: 'target-free', meta: 'prob' },
] as const;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

for (const cfg of CONFIGS) {
  test(`${cfg.user} meta-${cfg.meta}: acceptances name only features the taken item has, most of them one`, async () => {
    const N = 60;
    const env = await prepareEnvironment(
      parseSimulationConfig({ ...cfg, agent: 'local-good', n: N, seed: 'accept-reason', catalog_size: 800 }),
    );
    const details = sayableDetails(env.catalog);
    // every sayable feature of the catalog, longest first (so "adjustable strap" is not read as "adjustable straps")
    const all = [...new Set(env.catalog.items.flatMap((i) => [...details(i)]))].sort((a, b) => b.length - a.length);
    let accepts = 0;
    let reasoned = 0;
    const wrong: string[] = [];
    const forms = new Set<string>();
    for (let c = 0; c < N; c++) {
      const conv = (await simulateConversation(env, c)).conversation;
      const last = conv.turns[conv.turns.length - 1];
      if (last?.trace?.user_act !== 'Note.Accept') continue;
      const id = last.trace.said?.items?.[0];
      const item = id ? env.catalog.get(id) : undefined;
      if (!item) continue;
      accepts++;
      const own = new Set(details(item).map((d) => d.toLowerCase()));
      let text = (last.user_utterance ?? '')
        .toLowerCase()
        .split((item.title ?? '').toLowerCase())
        .join(' <item> ');
      forms.add(text.replace(/[^a-z<> ]/g, '').replace(/\s+/g, ' '));
      const named: string[] = [];
      for (const f of all) {
        const re = new RegExp(`(?<![a-z0-9-])${escape(f.toLowerCase())}(?![a-z0-9-])`);
        if (!re.test(text)) continue;
        named.push(f);
        text = text.replace(re, ' ');
      }
      if (named.length) reasoned++;
      for (const f of named) if (!own.has(f.toLowerCase())) wrong.push(`${conv.id}: "${f}" is not a feature of ${id}`);
    }
    assert.ok(accepts >= 20, `${accepts} acceptances`);
    assert.deepEqual(wrong, []);
    // 3 of 4 acceptances say a reason (the share drawn; a reason's words always name a feature)
    assert.ok(reasoned >= accepts * 0.55, `${reasoned} of ${accepts} acceptances name a feature of the item`);
    assert.ok(forms.size >= accepts * 0.8, `${forms.size} distinct acceptance wordings of ${accepts}`);
  });
}

test('acceptanceReason: the reason follows the sentence naming the item; adjectives never follow "the"', () => {
  const nlg = new TemplateNlg({ typoRate: 0 });
  const seen = new Set<string>();
  for (let k = 0; k < 400; k++) {
    const r = acceptanceReason(
      nlg,
      "That's the one: Alder Parka. Thanks!",
      'Alder Parka',
      ['storm flap', 'lightweight', 'fully lined'],
      createRng(`r${k}`),
    );
    if (r.details.length === 0) {
      assert.equal(r.text, "That's the one: Alder Parka. Thanks!");
      continue;
    }
    seen.add(r.text);
    assert.match(r.text, /^That's the one: Alder Parka\. [A-Z][^]*\. Thanks!$/);
    assert.doesNotMatch(r.text, /the (lightweight|fully lined)/i, r.text);
    for (const d of r.details) assert.ok(r.text.includes(d), r.text);
  }
  assert.ok(seen.size >= 15, `${seen.size} wordings`);
  assert.equal(isNounDetail('storm flap'), true);
  assert.equal(isNounDetail('lightweight'), false);
  assert.equal(isNounDetail('soft to the touch'), false);
});
