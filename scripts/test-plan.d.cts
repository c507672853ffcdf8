// Types for scripts/test-plan.cjs (used by test/unit/scripts/testPlan.test.ts).
export interface TestJob {
  files: string[];
  weight: number;
  /** An E2E and cluster lane (started first, beside the unit slots). */
  lane: boolean;
}

export const UNIT_SLOTS: number;
export function planJobs(
  files: string[],
  weights: Record<string, number>,
  options: { batchSeconds: number; defaultWeight: number; isolated: string[]; lanes: number },
): { jobs: TestJob[]; concurrency: number };
