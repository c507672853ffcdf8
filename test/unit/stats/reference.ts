/** Reference values for the statistics tests: test/fixtures/stats, written by gen_reference.py there. */
export { statsReference as loadReference } from '../../fixtures';

/** |a - b| <= atol + rtol·|b|, with NaN == NaN and equal infinities. */
export function close(a: number, b: number, rtol: number, atol = 0): boolean {
  if (Number.isNaN(b)) return Number.isNaN(a);
  if (!Number.isFinite(b)) return a === b;
  return Math.abs(a - b) <= atol + rtol * Math.abs(b);
}
