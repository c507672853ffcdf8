// Which test processes `scripts/run-tests.mjs` starts, and how many at a time (pure: files and
// weights in, jobs out; test/unit/scripts/testPlan.test.ts).
//
// Unit files are CPU-bound: they run in batches (scripts/test-batch.cjs) of about `batchSeconds`
// of tests, on UNIT_SLOTS slots (the machine's two cores). The E2E and cluster files mostly wait
// (on a browser, a VS Code server, Slurm): an E2E file uses about a third of a core over its span
// (bench/RESULTS.md, "Test time"). Given the unit slots, they held a slot each while the core
// behind it idled, and with the longest first they came first, two at a time. So they run in
// lanes of their own beside the unit slots: `lanes` processes, each running its share of those
// files one after another (a batch, as the unit files'), split longest first into the lightest
// lane so the lanes end close together. The lanes come first in the order and the concurrency is
// UNIT_SLOTS + the number of lanes, so each lane holds its slot from the start and the unit
// batches always have their two; when a lane ends, its slot runs unit batches too.
// Lanes are opt-in (`run-tests.mjs --e2e-lanes=N`; 0, the default, is the plan before them: each
// E2E and cluster file in a process of its own among the unit batches, two processes at a time):
// the one full run with two lanes (2026-11-28, at load 18-26 against 10-15 for the run without)
// did not show that they pay (bench/RESULTS.md, "Test time, fourteenth round").
'use strict';

/** Slots for the unit batches: the two cores of the machine `npm test` is sized for. */
const UNIT_SLOTS = 2;

/**
 * @param {string[]} files test files (paths relative to the repository root)
 * @param {Record<string, number>} weights seconds per file (scripts/test-weights.json)
 * @param {{ batchSeconds: number, defaultWeight: number, isolated: string[], lanes: number }} options
 * @returns {{ jobs: { files: string[], weight: number, lane: boolean }[], concurrency: number }}
 *   the jobs in the order they start; `lane` marks the E2E and cluster lanes
 */
function planJobs(files, weights, { batchSeconds, defaultWeight, isolated, lanes }) {
  const weight = (f) => weights[f] ?? defaultWeight;
  const unit = [];
  let open = null;
  const waiting = [];
  for (const file of files) {
    if (!file.startsWith('test/unit/')) {
      waiting.push(file);
      continue;
    }
    if (isolated.includes(file) || weight(file) >= batchSeconds) {
      unit.push({ files: [file], weight: weight(file), lane: false });
      continue;
    }
    if (!open) unit.push((open = { files: [], weight: 0, lane: false }));
    open.files.push(file);
    open.weight += weight(file);
    if (open.weight >= batchSeconds) open = null;
  }
  unit.sort((a, b) => b.weight - a.weight);
  if (lanes < 1) {
    // No lanes (the default): each E2E and cluster file in a process of its own, among the unit
    // batches, longest first, on the unit slots.
    const alone = waiting.map((f) => ({ files: [f], weight: weight(f), lane: false }));
    return { jobs: [...alone, ...unit].sort((a, b) => b.weight - a.weight), concurrency: UNIT_SLOTS };
  }
  const laneJobs = Array.from({ length: Math.max(1, Math.min(lanes, waiting.length)) }, () => ({
    files: [],
    weight: 0,
    lane: true,
  }));
  const byWeight = [...waiting].sort((a, b) => weight(b) - weight(a) || a.localeCompare(b));
  for (const file of byWeight) {
    const lightest = laneJobs.reduce((a, b) => (b.weight < a.weight ? b : a));
    lightest.files.push(file);
    lightest.weight += weight(file);
  }
  const used = laneJobs.filter((j) => j.files.length > 0).sort((a, b) => b.weight - a.weight);
  return { jobs: [...used, ...unit], concurrency: UNIT_SLOTS + used.length };
}

module.exports = { planJobs, UNIT_SLOTS };
