import { SfError } from '../errors/index.js';
import { ABORT, closeJob, createHashJob, createOpenHashJob, DONE, hashClaimedFiles, headOf, PUBLISHED, publishFiles, type HashFailure, type HashJob } from './hash-job.js';
import { defaultThreads, workersFor, type HashWorkers, type JobWorkers } from './hash-workers.js';
import type { FileDigest } from './skill-files.js';

export { prestartHashWorkers, spawnHashWorker, type HashWorkers } from './hash-workers.js';

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
const DEFAULT_CHUNK = 256 * 1024;

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
  return runJob(job, workersFor(job, Math.max(0, Math.min(threads - 1, files.length - 1)), options.workers));
}

/** A run whose files are added while it runs (see startOpenDigestRun). */
export interface OpenDigestRun extends DigestRun {
  /** Adds a file; returns its index in finish()'s result, or -1 when the run is full (hash that file some other way). */
  add(file: FileToHash): number;
  /** No more files: the threads finish once they have hashed what was added. finish() closes too. */
  close(): void;
}

/** Files published to the workers at once: enough that messages stay rare, few enough that a ready worker is not kept waiting. */
const PUBLISH_BATCH = 32;

/**
 * Starts hashing files before they are all known (e.g. while a directory is still walked): each
 * added file can be taken by a worker at once; results come back in the order files were added.
 * Uses `options.workers` (started ahead) or one worker per core besides this thread.
 */
export function startOpenDigestRun(capacity: number, options: DigestOptions = {}): OpenDigestRun {
  const job = createOpenHashJob(capacity, options.chunkSize ?? DEFAULT_CHUNK);
  const jobWorkers = workersFor(job, Math.max(0, (options.threads ?? (options.workers ? options.workers.count + 1 : defaultThreads())) - 1), options.workers);
  const run = runJob(job, jobWorkers);
  let added = 0;
  let closed = false;
  let batch: FileToHash[] = [];
  const publish = () => {
    if (batch.length === 0) return;
    publishFiles(job, jobWorkers.ports, batch.map((f) => f.abs), batch.map((f) => f.size));
    batch = [];
  };
  const close = () => {
    if (closed) return;
    closed = true;
    publish();
    closeJob(job);
  };
  // the ports stay open until the workers are done: closing one could drop paths not yet received
  const closePorts = () => jobWorkers.ports.forEach((port) => port.close());
  return {
    add(file) {
      if (closed || added >= capacity) return -1;
      batch.push(file);
      if (batch.length >= PUBLISH_BATCH) publish();
      return added++;
    },
    close,
    finish() {
      close();
      return run.finish().finally(closePorts);
    },
    cancel() {
      close();
      run.cancel();
      closePorts();
    },
    head(index) {
      // a file still waiting in the batch is published first, so this thread can claim it
      if (index >= Atomics.load(job.ctrl, PUBLISHED)) publish();
      return run.head(index);
    },
  };
}

/** The run of `job` on this thread plus `workers` (the job's files are claimed until none is left). */
function runJob(job: HashJob, { workers }: JobWorkers): DigestRun {
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
    const count = Atomics.load(job.ctrl, PUBLISHED);
    // one hex conversion for the whole run, cut into per-file slices (V8 shares the characters)
    const hex = view.toString('hex', 0, count * 32);
    return Array.from({ length: count }, (_, i) => ({ sha256: hex.slice(i * 64, i * 64 + 64), size: job.sizes[i] }));
  };
  const cancel = () => {
    abort(job);
    for (const w of workers) void w.worker.terminate();
  };
  // With workers, this thread hashes a file for its head only when the file fits one read (opening
  // it to hash costs little more than opening it for its first bytes). A caller that wants every
  // head (validation) would otherwise hash in step with the workers until the queue is empty, and
  // its own remaining work (planning the listings) would run after the last digest with the workers
  // idle; a larger file has its first bytes read directly and stays in the queue for them.
  const head = (index: number) => {
    const got = headOf(job, index, workers.length > 0 ? job.chunkSize : Infinity);
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
    if (done >= Atomics.load(job.ctrl, PUBLISHED) || Atomics.load(job.ctrl, ABORT) !== 0) return;
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
