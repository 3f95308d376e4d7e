import { availableParallelism } from 'node:os';
import type { MessagePort, Worker } from 'node:worker_threads';
import { lazyBuiltin } from '../runtime/lazy-builtin.js';
import { forwardWorkerOutput, OWN_STDIO } from '../runtime/worker-output.js';
import { SfError } from '../errors/index.js';
import { takeEarlyHashWorkers, type EarlyHashWorker } from './early-hash-workers.js';
import { CLOSED, type HashFailure, type HashJob } from './hash-job.js';

/**
 * The hash worker threads of core/skit/file-digests.ts: starting them (or adopting the ones
 * cli/sf.cts started at process start), handing a job over, and noticing when they end.
 */

const MAX_THREADS = 4;

// loaded when the first worker starts: most SKITs are hashed on this thread alone
const workerThreads = lazyBuiltin<typeof import('node:worker_threads')>('node:worker_threads');

// From dist/ the worker is compiled JS. Under tsx (tests) it is the .ts source; Node 20 workers do
// not inherit tsx's `--import` hooks, so a tiny bootstrap registers tsx before loading it.
const fromSource = import.meta.url.endsWith('.ts');
// In the CLI bundle (dist/cli/sf-bundle.cjs) the worker is the CommonJS bundle next to it.
const workerFile = fromSource ? './hash-worker.ts' : import.meta.url.endsWith('.cjs') ? './hash-worker.cjs' : './hash-worker.js';
const workerUrl = new URL(workerFile, import.meta.url);
/**
 * Starts one hash worker on `job`, or with no job, waiting for one as its first message
 * (exported for the worker's own tests).
 */
export const spawnHashWorker = (job?: HashJob): Worker =>
  fromSource
    ? forwardWorkerOutput(new (workerThreads().Worker)(`import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(workerUrl.href)}); })`, { eval: true, workerData: job, ...OWN_STDIO }))
    : forwardWorkerOutput(new (workerThreads().Worker)(workerUrl, { workerData: job, ...OWN_STDIO }));

/**
 * Hash workers started before their job exists, so that their start-up (tens of milliseconds
 * for a fresh V8 isolate) overlaps with finding the files. Pass them to startDigestRun through
 * DigestOptions.workers, or dispose of them.
 */
export interface HashWorkers {
  /** the number of workers (hashing threads besides the main thread) */
  readonly count: number;
  /** Stops workers that will get no job. */
  dispose(): void;
}

export interface PendingWorkers extends HashWorkers {
  /** Hands `job` to the workers; afterwards they belong to that run. */
  take(job: HashJob): JobWorkers;
}

/** The workers of one run, and for an open job the ports their paths go to. */
export interface JobWorkers {
  workers: RunningWorker[];
  ports: MessagePort[];
}

/** Sends `job` to `workers`; an open job gets a channel of its own per worker for its paths. */
function handOver(job: HashJob, workers: RunningWorker[]): JobWorkers {
  const open = Atomics.load(job.ctrl, CLOSED) === 0;
  const ports: MessagePort[] = [];
  for (const w of workers) {
    if (!open) {
      w.worker.postMessage(job);
      continue;
    }
    const channel = new (workerThreads().MessageChannel)();
    ports.push(channel.port1);
    w.worker.postMessage({ ...job, paths: [...job.paths], port: channel.port2 }, [channel.port2]);
  }
  return { workers, ports };
}

/** Starts `count` workers (default: one per core besides this thread, at most MAX_THREADS - 1). */
export function prestartHashWorkers(count = defaultThreads() - 1): HashWorkers {
  const early = takeEarlyHashWorkers(count).map(adoptWorker);
  let workers: RunningWorker[] | null = [...early, ...Array.from({ length: Math.max(0, count - early.length) }, () => startWorker())];
  const pending: PendingWorkers = {
    count: workers.length,
    take(job) {
      if (!workers) throw new SfError('SF_E_INTERNAL', 'prestarted hash workers were already used or disposed of');
      const taken = workers;
      workers = null;
      return handOver(job, taken);
    },
    dispose() {
      for (const w of workers ?? []) void w.worker.terminate();
      workers = null;
    },
  };
  return pending;
}

/** Hashing threads to use by default: one per core, at most MAX_THREADS. */
export const defaultThreads = (): number => Math.min(availableParallelism(), MAX_THREADS);

/** `wanted` workers for `job`: the prestarted ones when they are as many, else new ones. */
export function workersFor(job: HashJob, wanted: number, prestarted: HashWorkers | undefined): JobWorkers {
  if (prestarted && prestarted.count === wanted) return (prestarted as PendingWorkers).take(job);
  prestarted?.dispose();
  const open = Atomics.load(job.ctrl, CLOSED) === 0;
  // an open job is sent as a message (with its port); a complete one goes in as workerData
  const started = Array.from({ length: wanted }, () => startWorker(open ? undefined : job));
  return open ? handOver(job, started) : { workers: started, ports: [] };
}

export interface RunningWorker {
  worker: Worker;
  /** resolves with the worker's failure (or null) once it has stopped */
  ended: Promise<HashFailure | null>;
}

/** Takes over a worker started at process start (see early-hash-workers.ts). */
function adoptWorker(early: EarlyHashWorker): RunningWorker {
  early.worker.ref();
  // cli/sf.cts starts them with their own stdout/stderr (OWN_STDIO); their streams hold anything
  // printed so far until this forwards it
  forwardWorkerOutput(early.worker);
  const running = watchWorker(early.worker);
  const bootFailure = early.ended.then((e) => (e ? { path: '(hash worker)', message: e.message } : null));
  return { worker: early.worker, ended: Promise.race([running.ended, bootFailure]) };
}

export function startWorker(job?: HashJob): RunningWorker {
  return watchWorker(spawnHashWorker(job));
}

function watchWorker(worker: Worker): RunningWorker {
  const ended = new Promise<HashFailure | null>((resolve) => {
    worker.on('message', (m: { type: 'end'; failure: HashFailure | null }) => resolve(m.failure));
    // A worker that cannot start leaves the work to the other threads. One that dies mid-file
    // leaves its file uncounted; untilFinished notices once every worker has ended.
    worker.on('error', (e) => resolve({ path: '(hash worker)', message: e.message }));
    worker.on('exit', () => resolve(null));
  });
  return { worker, ended };
}
