/**
 * Every validation message goes through the one zod-issue formatter (src/core/jsonl/zodIssues.ts):
 * it names where (file, role, line) and the field in JSON-path style, and says what was expected
 * and what was found, instead of zod's own "Invalid input: expected number, received string".
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseSimulationConfig } from '../../../src/core/run/config';
import { readManifest } from '../../../src/core/run/manifest';
import { loadTransitionCounts } from '../../../src/core/sim/users/transitions';
import { parseJudgeAnswer } from '../../../src/core/llm/judge';
import { resolveLlmSettings } from '../../../src/core/llm/config';
import { parseCatalog } from '../../../src/core/catalog/io';
import { parseBackup } from '../../../src/core/document/document';
import { parsePanelMessage } from '../../../src/shared/panelProtocol';
import { parseWebviewMessage } from '../../../src/shared/editorProtocol';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'simlens-zod-callers-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

describe('validation messages name the field and the value found', () => {
  test('simulation config', () => {
    assert.throws(
      () => parseSimulationConfig({ n: 'five' }, 'run.json'),
      /^Error: run\.json: n: expected a number, got string "five"$/,
    );
  });

  test('run manifest', () => {
    const out = path.join(tmp, 'run.jsonl');
    fs.writeFileSync(
      `${out}.manifest.json`,
      JSON.stringify({
        run_id: 'r',
        created: 'now',
        simlens_version: '1',
        config: {},
        seed: 1,
        counts: { planned: 'ten', finished: 0, failed: 0 },
        timings: { started: 'now' },
      }),
    );
    assert.throws(
      () => readManifest(out),
      /run\.jsonl\.manifest\.json: counts\.planned: expected a number, got string "ten"/,
    );
  });

  test('transition counts file', () => {
    const file = path.join(tmp, 'counts.json');
    fs.writeFileSync(file, JSON.stringify({ format: 'simlens-transitions/2' }));
    assert.throws(
      () => loadTransitionCounts(file),
      /counts\.json: format: expected one of "simlens-transitions\/1", got string "simlens-transitions\/2"/,
    );
  });

  test('judge answer (every bad field, up to six)', () => {
    const r = parseJudgeAnswer(JSON.stringify({ user_satisfaction: 'high' }));
    assert.equal(r.ok, false);
    assert.match(r.ok ? '' : r.problem, /^invalid fields: .*user_satisfaction: expected .*got string "high"; /);
    assert.match(r.ok ? '' : r.problem, /user_frustration_annoyance: required field is missing/);
  });

  test('LLM settings: role and budget fields', () => {
    assert.throws(
      () => resolveLlmSettings({ roles: { recommender: { temperature: 7 } } }, 'llm.json'),
      /^Error: llm\.json: role "recommender": temperature: must be <= 2, got number 7$/,
    );
    assert.throws(
      () => resolveLlmSettings({ budget: { maxRequests: -1 } }, 'llm.json'),
      /^Error: llm\.json: budget\.maxRequests: must be > 0, got number -1$/,
    );
  });

  test('catalog lines', () => {
    assert.throws(
      () => parseCatalog(JSON.stringify({ item_id: 'a', title: 5, category: 'tops' }), 'cat.jsonl'),
      /cat\.jsonl:1: title: expected a string, got number 5/,
    );
  });

  test('annotation backup', () => {
    assert.throws(
      () => parseBackup('{"format":"other"}', 'x.jsonl'),
      /^Error: backup for x\.jsonl is invalid: format: expected one of "simlens-annotation-backup", got string "other"$/,
    );
  });

  test('webview messages', () => {
    const panel = parsePanelMessage({ type: 'log', level: 'loud', message: 'x' });
    assert.equal(
      panel.ok ? '' : panel.error,
      'invalid panel message: level: expected one of "info", "warn", "error", got string "loud"',
    );
    const editor = parseWebviewMessage({ type: 'nonsense' });
    assert.match(
      editor.ok ? '' : editor.error,
      /^invalid webview message: type: expected one of .*got string "nonsense"$/,
    );
  });
});
