// The report worker's TypeScript entry for tests: tsx compiles it in the worker thread (the
// extension runs the bundle, dist/reportWorker.js).
require('tsx/cjs');
require('../../src/core/worker/workerMain.ts');
