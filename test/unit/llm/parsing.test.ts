import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { parseUserReply, guessUserAct, terminationOutcome } from '../../../src/core/sim/users/llm/format';
import { extractJsonObject } from '../../../src/core/llm/json';
import { parseVerdict } from '../../../src/core/llm/discriminator';
import { parseJudgeAnswer } from '../../../src/core/llm/judge';
import { redactSecrets } from '../../../src/core/llm/redact';
import { judgeAnswer } from '../../support/llmScripts';

describe('user reply parsing', () => {
  test('the plain format', () => {
    const r = parseUserReply('Response: need black boots\nTerminate: False');
    assert.deepEqual(r, { ok: true, response: 'need black boots', terminate: false, repairs: [] });
  });
  test('bold labels, code fences, quotes and True', () => {
    const r = parseUserReply('**Response:**\n```\n"i will take the second one"\n```\n**Terminate:** True');
    assert.ok(r.ok);
    assert.equal(r.response, 'i will take the second one');
    assert.equal(r.terminate, true);
    assert.ok(r.repairs.includes('removed code fences'));
  });
  test('missing Terminate line is repaired as False', () => {
    const r = parseUserReply('just show me boots');
    assert.ok(r.ok);
    assert.equal(r.response, 'just show me boots');
    assert.equal(r.terminate, false);
    assert.ok(r.repairs.some((x) => /Terminate/.test(x)));
  });
  test('text written for the assistant is cut', () => {
    const r = parseUserReply('Response: boots please\nASSISTANT: Sure, here are boots\nTerminate: False');
    assert.ok(r.ok);
    assert.equal(r.response, 'boots please');
  });
  test('quitting silently is fine; an empty non-final reply is a problem', () => {
    const quit = parseUserReply('Response:\nTerminate: True');
    assert.ok(quit.ok && quit.response === '' && quit.terminate);
    const bad = parseUserReply('Response:\nTerminate: False');
    assert.equal(bad.ok, false);
  });
  test('a reply cut at the token limit without a Terminate line is a problem', () => {
    assert.equal(parseUserReply('Response: I am looking for a very long', 'length').ok, false);
  });
  test('act and outcome guesses', () => {
    assert.equal(guessUserAct("I'll take the black ones", true), 'accept_recommendation');
    assert.equal(guessUserAct('do they come in red?', false), 'ask_clarification');
    assert.equal(guessUserAct('none of these, too expensive', false), 'reject_recommendation');
    assert.equal(guessUserAct('hiking boots size 9', false), 'inform_preference');
    assert.equal(terminationOutcome('i will buy the second one'), 'accepted');
    assert.equal(terminationOutcome('forget it, this is useless'), 'abandoned');
    assert.equal(terminationOutcome('ok'), 'ended');
  });
});

describe('JSON extraction', () => {
  test('fenced, prefixed, trailing commas, Python literals', () => {
    const r = extractJsonObject('Sure! ```json\n{"a": 1, "b": [True, None,],}\n```');
    assert.ok(r.ok);
    assert.deepEqual(r.value, { a: 1, b: [true, null] });
  });
  test('a truncated object is closed', () => {
    const r = extractJsonObject('{"label": "human", "p_human": 0.7, "reason": "short messa');
    assert.ok(r.ok);
    assert.equal(r.value.label, 'human');
    assert.ok(r.repairs.includes('closed a truncated object'));
  });
  test('no object', () => {
    const r = extractJsonObject('I cannot answer that.');
    assert.equal(r.ok, false);
  });
});

describe('judge and discriminator answers', () => {
  test('a valid judge answer; missing acts default to 0; unknown acts count as other; "4" reads as 4', () => {
    const text = judgeAnswer({
      user_satisfaction: '4',
      user_dialog_acts: { inform_preference: 2, haggle: 1 },
      turns_until_acceptance: 'NaN',
    });
    const r = parseJudgeAnswer(text);
    assert.ok(r.ok, r.ok ? '' : r.problem);
    assert.equal(r.fields.user_satisfaction, 4);
    assert.equal(r.fields.user_dialog_acts.other, 1);
    assert.equal(r.fields.user_dialog_acts.critique, 0);
    assert.equal(r.fields.turns_until_acceptance, null);
  });
  test('invalid judge fields are named', () => {
    const r = parseJudgeAnswer(judgeAnswer({ user_confusion: 9, recommendation_accepted: 'maybe' }));
    assert.equal(r.ok, false);
    assert.match(r.ok ? '' : r.problem, /user_confusion/);
    assert.match(r.ok ? '' : r.problem, /recommendation_accepted/);
  });
  test('discriminator verdicts', () => {
    const a = parseVerdict('{"label": "human", "p_human": 0.8}');
    assert.ok(a.ok && a.verdict.p_human === 0.8);
    const b = parseVerdict('{"label": "human", "p_human": 0.2}');
    assert.ok(b.ok && b.verdict.p_human === 0.8 && b.repairs.length === 1);
    const c = parseVerdict('simulation');
    assert.ok(c.ok && c.verdict.p_human === 0);
    assert.equal(parseVerdict('{"label": "robot"}').ok, false);
    const d = parseVerdict('{"p_human": 70}');
    assert.ok(d.ok && Math.abs(d.verdict.p_human - 0.7) < 1e-9);
  });
});

describe('redaction', () => {
  test('exact secrets, key-shaped tokens and auth headers', () => {
    const out = redactSecrets('key=abcdEFGH1234 Authorization: Bearer tok123 sk-proj-abc***xyz my-secret-value', [
      'my-secret-value',
    ]);
    assert.ok(!out.includes('abcdEFGH1234'));
    assert.ok(!out.includes('tok123'));
    assert.ok(!out.includes('sk-proj'));
    assert.ok(!out.includes('my-secret-value'));
  });
});
