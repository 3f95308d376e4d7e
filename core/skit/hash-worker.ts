import { parentPort, workerData } from 'node:worker_threads';
import { hashClaimedFiles, type HashJob } from './hash-job.js';

/**
 * Worker entry for core/skit/file-digests.ts: joins the shared job (given as workerData, or as
 * the first message to a worker started ahead of it), then reports how it ended.
 */
const run = (job: HashJob) => parentPort?.postMessage({ type: 'end', failure: hashClaimedFiles(job) });
if (workerData) run(workerData as HashJob);
else parentPort?.once('message', run);
