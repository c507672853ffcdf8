/** Entry of the report worker thread (bundled as dist/reportWorker.js; see worker.ts). */
import { parentPort, workerData } from 'node:worker_threads';
import { serveReportWorker } from './worker';

if (parentPort) void serveReportWorker(parentPort, workerData);
