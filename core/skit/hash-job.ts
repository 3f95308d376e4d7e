import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';

/**
 * A file-hashing job shared by the main thread and the hash workers through SharedArrayBuffers:
 * every thread claims the next file with one atomic add, hashes it with synchronous reads into its
 * own reused buffer, and writes the digest straight into shared memory. No messages per file, no
 * Buffer copies beyond the read itself.
 */

/** Slots of `ctrl`. */
export const NEXT = 0;
export const DONE = 1;
export const ABORT = 2;
export const CTRL_SLOTS = 4;

export interface HashJob {
  /** absolute paths, indexed by file number */
  paths: string[];
  /** file numbers in the order they are claimed (largest first, so the tail is short) */
  order: Int32Array;
  /** NEXT claim cursor, DONE counter, ABORT flag */
  ctrl: Int32Array;
  /** 32 bytes of digest per file number */
  digests: Uint8Array;
  /** bytes actually hashed per file number */
  sizes: Float64Array;
  /** read buffer size per thread */
  chunkSize: number;
}

/** What went wrong with one file, in a form that can cross a worker boundary. */
export interface HashFailure {
  path: string;
  errno?: string;
  message: string;
}

/** Allocates the shared memory for hashing `paths`, claimed in `order`. */
export function createHashJob(paths: string[], order: number[], chunkSize: number): HashJob {
  const shared = (bytes: number) => new SharedArrayBuffer(Math.max(bytes, 8));
  const job: HashJob = {
    paths,
    order: new Int32Array(shared(order.length * 4)),
    ctrl: new Int32Array(shared(CTRL_SLOTS * 4)),
    digests: new Uint8Array(shared(paths.length * 32)),
    sizes: new Float64Array(shared(paths.length * 8)),
    chunkSize,
  };
  job.order.set(order);
  return job;
}

/**
 * Claims and hashes files until none are left or the job is aborted. Returns the failure that
 * made this thread abort the job, or null.
 */
export function hashClaimedFiles(job: HashJob): HashFailure | null {
  const buffer = Buffer.allocUnsafe(job.chunkSize);
  const total = job.order.length;
  for (;;) {
    if (Atomics.load(job.ctrl, ABORT) !== 0) return null;
    const k = Atomics.add(job.ctrl, NEXT, 1);
    if (k >= total) return null;
    const index = job.order[k];
    try {
      hashOneFile(job, index, buffer);
    } catch (e) {
      Atomics.store(job.ctrl, ABORT, 1);
      Atomics.notify(job.ctrl, DONE);
      const err = e as NodeJS.ErrnoException;
      return { path: job.paths[index], errno: err.code, message: err.message ?? String(e) };
    }
    Atomics.add(job.ctrl, DONE, 1);
    Atomics.notify(job.ctrl, DONE);
  }
}

function hashOneFile(job: HashJob, index: number, buffer: Buffer): void {
  const hash = createHash('sha256');
  const fd = openSync(job.paths[index], 'r');
  let size = 0;
  try {
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      hash.update(n === buffer.length ? buffer : buffer.subarray(0, n));
      size += n;
    }
  } finally {
    closeSync(fd);
  }
  job.digests.set(hash.digest(), index * 32);
  job.sizes[index] = size;
}
