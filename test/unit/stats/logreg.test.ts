import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { loadReference } from './reference';
import {
  csrFromDense,
  csrFromRows,
  csrSelectRows,
  fitLogistic,
  predictProba,
  sigmoid,
} from '../../../src/core/stats/logreg';

interface LogregRef {
  X: number[][];
  y: number[];
  w_l2_C1: number[];
  p_l2: number[];
  w_mle: number[];
}

describe('L2 logistic regression', () => {
  test('matches the reference optimum of sum(logloss) + ||w||²/2 (C = 1, free intercept)', () => {
    const ref = loadReference<LogregRef>('logreg_ref.json');
    const X = csrFromDense(ref.X);
    const model = fitLogistic(X, ref.y, { C: 1 });
    assert.ok(model.converged, `not converged: |g| = ${model.gradientNorm}`);
    assert.ok(Math.abs(model.intercept - ref.w_l2_C1[0]) < 1e-8, `intercept ${model.intercept} vs ${ref.w_l2_C1[0]}`);
    for (let j = 0; j < model.coef.length; j++) {
      assert.ok(
        Math.abs(model.coef[j] - ref.w_l2_C1[j + 1]) < 1e-8,
        `w[${j}] ${model.coef[j]} vs ${ref.w_l2_C1[j + 1]}`,
      );
    }
    const p = predictProba(model, X);
    for (let i = 0; i < p.length; i++) assert.ok(Math.abs(p[i] - ref.p_l2[i]) < 1e-9, `p[${i}]`);
  });

  test('with a very large C it approaches the unregularised MLE', () => {
    const ref = loadReference<LogregRef>('logreg_ref.json');
    const model = fitLogistic(csrFromDense(ref.X), ref.y, { C: 1e12 });
    for (let j = 0; j < model.coef.length; j++) assert.ok(Math.abs(model.coef[j] - ref.w_mle[j + 1]) < 1e-4, `w[${j}]`);
  });

  test('hand-computed one-feature problem', () => {
    // Two points x = 0 (y = 0) and x = 1 (y = 1), C = 1. The optimum satisfies
    // σ(b) = σ(w + b) - ... : solve by symmetry check: gradient must vanish.
    const X = csrFromRows([[], [[0, 1]]], 1);
    const m = fitLogistic(X, [0, 1]);
    const p0 = sigmoid(m.intercept);
    const p1 = sigmoid(m.coef[0] + m.intercept);
    assert.ok(Math.abs(p0 - 0 + (p1 - 1)) < 1e-12, 'intercept gradient');
    assert.ok(Math.abs(p1 - 1 + m.coef[0]) < 1e-12, 'weight gradient: (p1 - 1)·1 + w = 0');
    // symmetric data: p0 = 1 - p1
    assert.ok(Math.abs(p0 - (1 - p1)) < 1e-12);
  });

  test('rejects bad labels and mismatched lengths', () => {
    const X = csrFromRows([[[0, 1]]], 1);
    assert.throws(() => fitLogistic(X, [2]), /label 0 is 2/);
    assert.throws(() => fitLogistic(X, [0, 1]), /1 rows but 2 labels/);
  });

  test('csrSelectRows keeps row order', () => {
    const X = csrFromDense([
      [1, 0],
      [0, 2],
      [3, 4],
    ]);
    const S = csrSelectRows(X, [2, 0]);
    assert.deepEqual(Array.from(S.indptr), [0, 2, 3]);
    assert.deepEqual(Array.from(S.data), [3, 4, 1]);
  });
});
