import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { HEAD_BYTES } from './head-bytes.js';

/**
 * A file-hashing job shared by the main thread and the hash workers through SharedArrayBuffers:
 * every thread claims the next file with one atomic add, hashes it with synchronous reads into its
 * own reused buffer, and writes the digest straight into shared memory. No messages per file, no
 * Buffer copies beyond the read itself.
 *
 * A thread may also take one particular file out of turn (headOf: validation wants its first
 * bytes); a per-file state word makes sure every file is hashed exactly once either way.
 */

/** Slots of `ctrl`. */
export const NEXT = 0;
export const DONE = 1;
export const ABORT = 2;
export const CTRL_SLOTS = 4;

/** Per-file states in `state`. */
const FREE = 0;
const CLAIMED = 1;
const HASHED = 2;
const FAILED = 3;

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
  /** the size each file was listed with (-1: unknown) */
  expected: Float64Array;
  /** FREE, CLAIMED, HASHED or FAILED per file number */
  state: Int32Array;
  /** the first HEAD_BYTES bytes of each hashed file (fewer when `headLengths` says so) */
  heads: Uint8Array;
  headLengths: Uint8Array;
  /** read buffer size per thread */
  chunkSize: number;
}

/** What went wrong with one file, in a form that can cross a worker boundary. */
export interface HashFailure {
  path: string;
  errno?: string;
  message: string;
}

/** Allocates the shared memory for hashing `paths`, claimed in `order`; `sizes` as listed, when known. */
export function createHashJob(paths: string[], order: number[], chunkSize: number, sizes?: readonly number[]): HashJob {
  // views of exactly `length` elements (a zero-length SharedArrayBuffer is avoided, not the view size)
  const shared = <T>(View: new (buffer: SharedArrayBuffer, offset: number, length: number) => T, bytesPer: number, length: number): T =>
    new View(new SharedArrayBuffer(Math.max(length * bytesPer, 8)), 0, length);
  const n = paths.length;
  const job: HashJob = {
    paths,
    order: shared(Int32Array, 4, order.length),
    ctrl: shared(Int32Array, 4, CTRL_SLOTS),
    digests: shared(Uint8Array, 1, n * 32),
    sizes: shared(Float64Array, 8, n),
    expected: shared(Float64Array, 8, n),
    state: shared(Int32Array, 4, n),
    heads: shared(Uint8Array, 1, n * HEAD_BYTES),
    headLengths: shared(Uint8Array, 1, n),
    chunkSize,
  };
  job.order.set(order);
  job.expected.fill(-1);
  if (sizes) job.expected.set(sizes);
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
    // taken out of turn by headOf
    if (Atomics.compareExchange(job.state, index, FREE, CLAIMED) !== FREE) continue;
    const failure = hashClaimed(job, index, buffer);
    if (failure) return failure;
  }
}

let ownBuffer: Buffer | undefined;

/**
 * The first bytes of file `index` (at most HEAD_BYTES), hashing the file on this thread first when
 * no thread has claimed it yet, or waiting while another thread hashes it. Undefined when the file
 * could not be read; the job is aborted then, and `failure` says why when this thread read it.
 */
export function headOf(job: HashJob, index: number): { head?: Uint8Array; failure?: HashFailure } {
  if (Atomics.compareExchange(job.state, index, FREE, CLAIMED) === FREE) {
    if (!ownBuffer || ownBuffer.length !== job.chunkSize) ownBuffer = Buffer.allocUnsafe(job.chunkSize);
    const failure = hashClaimed(job, index, ownBuffer);
    if (failure) return { failure };
  }
  // another thread is on it: a file takes at most milliseconds, and this thread has nothing else to do
  while (Atomics.load(job.state, index) === CLAIMED) Atomics.wait(job.state, index, CLAIMED, 1000);
  if (Atomics.load(job.state, index) !== HASHED) return {};
  return { head: job.heads.subarray(index * HEAD_BYTES, index * HEAD_BYTES + job.headLengths[index]) };
}

/** Hashes claimed file `index`, publishes the result and counts it done; returns the failure that aborted the job, if any. */
function hashClaimed(job: HashJob, index: number, buffer: Buffer): HashFailure | null {
  try {
    hashOneFile(job, index, buffer);
  } catch (e) {
    Atomics.store(job.state, index, FAILED);
    Atomics.notify(job.state, index);
    Atomics.store(job.ctrl, ABORT, 1);
    Atomics.notify(job.ctrl, DONE);
    const err = e as NodeJS.ErrnoException;
    return { path: job.paths[index], errno: err.code, message: err.message ?? String(e) };
  }
  Atomics.store(job.state, index, HASHED);
  Atomics.notify(job.state, index);
  Atomics.add(job.ctrl, DONE, 1);
  Atomics.notify(job.ctrl, DONE);
  return null;
}

function hashOneFile(job: HashJob, index: number, buffer: Buffer): void {
  const hash = createHash('sha256');
  const fd = openSync(job.paths[index], 'r');
  let size = 0;
  try {
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      if (size === 0) {
        const head = Math.min(n, HEAD_BYTES);
        job.heads.set(buffer.subarray(0, head), index * HEAD_BYTES);
        job.headLengths[index] = head;
      }
      hash.update(n === buffer.length ? buffer : buffer.subarray(0, n));
      size += n;
      // a short read that reaches the size the walk saw is the end: most files fit one read, so
      // this saves a second system call per file (anything else reads on to a 0-byte read)
      if (n < buffer.length && size === job.expected[index]) break;
    }
  } finally {
    closeSync(fd);
  }
  job.digests.set(hash.digest(), index * 32);
  job.sizes[index] = size;
}
