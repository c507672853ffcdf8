import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  PromptLibrary,
  BUILTIN_PROMPTS_VERSION,
  placeholders,
  BUILTIN_TEMPLATES,
} from '../../../src/core/llm/templates';
import { tmpDir } from '../../support/llm';

describe('prompt templates', () => {
  test('every built-in uses only its declared variables, and all declared ones', () => {
    for (const t of BUILTIN_TEMPLATES) {
      assert.deepEqual(placeholders(t.text).sort(), [...t.variables].sort(), t.name);
    }
  });

  test('render fills placeholders, names the template version, and refuses a missing value', () => {
    const lib = new PromptLibrary();
    const r = lib.render('user-format-repair', { problem: 'empty reply' });
    assert.match(r.text, /empty reply/);
    assert.equal(r.id, 'user-format-repair@1');
    assert.throws(() => lib.render('user-format-repair', {}), /needs a value for \{\{problem\}\}/);
    assert.throws(() => lib.get('nope'), /unknown prompt template "nope"/);
  });

  test('workspace overrides are loaded by name, versioned, and change the manifest version', async () => {
    const dir = tmpDir();
    fs.writeFileSync(path.join(dir, 'judge.md'), '---\nversion: strict-2\n---\nRate this:\n{{conversation}}\n');
    fs.writeFileSync(path.join(dir, 'discriminator.txt'), 'Human? {{conversation}}');
    fs.writeFileSync(path.join(dir, 'notes.md'), 'not a template');
    const lib = await PromptLibrary.load(dir);
    assert.equal(lib.get('judge').version, 'strict-2');
    assert.equal(lib.get('judge').source, 'workspace');
    assert.equal(lib.render('judge', { conversation: 'USER: hi' }).text, 'Rate this:\nUSER: hi');
    assert.match(lib.get('discriminator').version, /^ws-[0-9a-f]{8}$/);
    assert.equal(lib.warnings.length, 1);
    assert.match(lib.warnings[0], /notes\.md: no built-in template is called "notes"/);
    assert.equal(new PromptLibrary().manifestVersion(), BUILTIN_PROMPTS_VERSION);
    assert.equal(
      lib.manifestVersion(),
      `${BUILTIN_PROMPTS_VERSION}+discriminator@${lib.get('discriminator').version},judge@strict-2`,
    );
    assert.equal(lib.manifestVersion(['user-prompted']), BUILTIN_PROMPTS_VERSION);
  });

  test('an override with an unknown placeholder fails naming file and line', async () => {
    const dir = tmpDir();
    fs.writeFileSync(path.join(dir, 'user-prompted.md'), '---\nversion: x\n---\nline one\nhello {{taks}}\n');
    await assert.rejects(PromptLibrary.load(dir), (e: Error) => {
      assert.match(e.message, /user-prompted\.md:5: unknown placeholder \{\{taks\}\}/);
      assert.match(e.message, /allowed: task, max_turns/);
      return true;
    });
  });

  test('a missing overrides folder means built-ins only', async () => {
    const lib = await PromptLibrary.load(path.join(tmpDir(), 'absent'));
    assert.equal(lib.get('judge').source, 'builtin');
  });
});
