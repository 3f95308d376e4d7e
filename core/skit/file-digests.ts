import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { SfError } from '../errors/index.js';
import { ABORT, createHashJob, DONE, hashClaimedFiles, headOf, type HashFailure, type HashJob } from './hash-job.js';
import { takeEarlyHashWorkers, type EarlyHashWorker } from './early-hash-workers.js';
import type { FileDigest } from './skill-files.js';

/**
 * SHA-256 of many files using every core: the main thread and (threads - 1) workers pull files
 * from one shared queue. The main thread starts hashing at once, so worker start-up overlaps with
 * useful work, and a worker that fails to start only costs speed.
 */

export interface FileToHash {
  abs: string;
  size: number;
}

export interface DigestOptions {
  /** hashing threads including the main thread; default: the number of cores (at most 4) for large inputs, else 1 */
  threads?: number;
  /** read buffer per thread, bytes (default 256 KiB: stays in L2 between read and hash) */
  chunkSize?: number;
  /**
   * Workers started ahead of the job (prestartHashWorkers), used instead of starting new ones;
   * the run owns them from then on.
   */
  workers?: HashWorkers;
}

/** Below this many bytes a worker costs more to start than it saves. */
export const PARALLEL_MIN_BYTES = 8 * 1024 * 1024;
const MAX_THREADS = 4;
const DEFAULT_CHUNK = 256 * 1024;

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
    ? new Worker(`import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(workerUrl.href)}); })`, { eval: true, workerData: job })
    : new Worker(workerUrl, { workerData: job });

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

interface PendingWorkers extends HashWorkers {
  /** Hands `job` to the workers; afterwards they belong to that run. */
  take(job: HashJob): RunningWorker[];
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
      for (const w of taken) w.worker.postMessage(job);
      return taken;
    },
    dispose() {
      for (const w of workers ?? []) void w.worker.terminate();
      workers = null;
    },
  };
  return pending;
}

const defaultThreads = () => Math.min(availableParallelism(), MAX_THREADS);

/** A hashing job in progress: workers are already reading; the caller joins with `finish()`. */
export interface DigestRun {
  /** Joins the hashing on this thread and resolves with index-aligned digests (SF_E_IO when a file cannot be read). */
  finish(): Promise<FileDigest[]>;
  /** Stops the workers; `finish()` must not be called afterwards. */
  cancel(): void;
  /**
   * The first HEAD_BYTES of file `index` as this run reads it, hashing that file on this thread
   * right away if no thread has got to it yet (so a caller that needs every head, like validation,
   * shares the hashing instead of opening each file twice). Undefined when it could not be read;
   * `finish()` then reports the error.
   */
  head(index: number): Uint8Array | undefined;
}

/**
 * Starts hashing `files` on (threads - 1) workers at once, so the caller can do other work (e.g.
 * validation) while they read; `finish()` adds the calling thread and collects the results.
 */
export function startDigestRun(files: readonly FileToHash[], options: DigestOptions = {}): DigestRun {
  const totalBytes = files.reduce((sum, f) => sum + f.size, 0);
  const threads = Math.max(1, options.threads ?? (options.workers ? options.workers.count + 1 : totalBytes >= PARALLEL_MIN_BYTES ? defaultThreads() : 1));
  const order = files.map((_, i) => i).sort((a, b) => files[b].size - files[a].size);
  const job = createHashJob(
    files.map((f) => f.abs),
    order,
    options.chunkSize ?? DEFAULT_CHUNK,
    files.map((f) => f.size),
  );
  const wanted = Math.max(0, Math.min(threads - 1, files.length - 1));
  let workers: RunningWorker[];
  if (options.workers && options.workers.count === wanted) {
    workers = (options.workers as PendingWorkers).take(job);
  } else {
    options.workers?.dispose();
    workers = Array.from({ length: wanted }, () => startWorker(job));
  }

  // a file this thread read for head() and could not
  let headFailure: HashFailure | null = null;
  const finish = async (): Promise<FileDigest[]> => {
    const mainFailure = hashClaimedFiles(job) ?? headFailure;
    await untilFinished(job, Promise.all(workers.map((w) => w.ended)));
    if (Atomics.load(job.ctrl, ABORT) !== 0) {
      if (mainFailure) {
        cancel();
        throw readError(mainFailure);
      }
      const failures = await Promise.all(workers.map((w) => w.ended));
      throw readError(failures.find((f) => f !== null) ?? { path: '(unknown)', message: 'a hash worker stopped unexpectedly' });
    }
    // every file is done, so each worker is returning from its loop and exits by itself; the
    // process need not wait for that (terminating them instead costs the command its last ms)
    for (const w of workers) w.worker.unref();
    const view = Buffer.from(job.digests.buffer, job.digests.byteOffset, job.digests.byteLength);
    return files.map((_, i) => ({ sha256: view.toString('hex', i * 32, i * 32 + 32), size: job.sizes[i] }));
  };
  const cancel = () => {
    abort(job);
    for (const w of workers) void w.worker.terminate();
  };
  const head = (index: number) => {
    const got = headOf(job, index);
    headFailure ??= got.failure ?? null;
    return got.head;
  };
  return { finish, cancel, head };
}

/**
 * Hashes `files` (index-aligned result: lowercase hex sha256 and the number of bytes read).
 * Throws SF_E_IO naming the file when one cannot be read.
 */
export function digestFiles(files: readonly FileToHash[], options: DigestOptions = {}): Promise<FileDigest[]> {
  return startDigestRun(files, options).finish();
}

interface RunningWorker {
  worker: Worker;
  /** resolves with the worker's failure (or null) once it has stopped */
  ended: Promise<HashFailure | null>;
}

/** Takes over a worker started at process start (see early-hash-workers.ts). */
function adoptWorker(early: EarlyHashWorker): RunningWorker {
  early.worker.ref();
  const running = watchWorker(early.worker);
  const bootFailure = early.ended.then((e) => (e ? { path: '(hash worker)', message: e.message } : null));
  return { worker: early.worker, ended: Promise.race([running.ended, bootFailure]) };
}

function startWorker(job?: HashJob): RunningWorker {
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

function abort(job: HashJob): void {
  Atomics.store(job.ctrl, ABORT, 1);
  Atomics.notify(job.ctrl, DONE);
}

type WaitAsync = (array: Int32Array, index: number, value: number) => { async: boolean; value: Promise<string> | string };

/**
 * Waits (without blocking the event loop) until every file is done or the job was aborted. The
 * running workers keep the process alive meanwhile (a pending waitAsync does not); once they have
 * all ended, the counters are final.
 */
async function untilFinished(job: HashJob, allEnded: Promise<unknown>): Promise<void> {
  const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;
  let ended = false;
  void allEnded.then(() => (ended = true));
  for (;;) {
    const done = Atomics.load(job.ctrl, DONE);
    if (done >= job.order.length || Atomics.load(job.ctrl, ABORT) !== 0) return;
    if (ended) {
      abort(job);
      return;
    }
    const result = waitAsync(job.ctrl, DONE, done);
    if (result.async) await Promise.race([result.value, allEnded]);
  }
}

function readError(f: HashFailure): SfError {
  return new SfError('SF_E_IO', `could not read ${f.path} while hashing: ${f.message}`, {
    location: { file: f.path },
    hint: f.errno === 'ENOENT' ? 'the file disappeared while hashing; make sure nothing is modifying the tree and retry' : 'check that the file exists and is readable',
    data: f.errno ? { errno: f.errno } : undefined,
  });
}
