import { parentPort, workerData } from 'node:worker_threads';
import { hashClaimedFiles, type HashJob } from './hash-job.js';

/** Worker entry for core/skit/file-digests.ts: joins the shared job, then reports how it ended. */
const failure = hashClaimedFiles(workerData as HashJob);
parentPort?.postMessage({ type: 'end', failure });
