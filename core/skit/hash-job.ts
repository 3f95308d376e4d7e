import * as crypto from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import type { MessagePort } from 'node:worker_threads';
import { lazyBuiltin } from '../runtime/lazy-builtin.js';
import { HEAD_BYTES } from './head-bytes.js';

/**
 * A file-hashing job shared by the main thread and the hash workers through SharedArrayBuffers:
 * every thread claims the next file with one atomic add, hashes it with synchronous reads into its
 * own reused buffer, and writes the digest straight into shared memory. No messages per file, no
 * Buffer copies beyond the read itself.
 *
 * A thread may also take one particular file out of turn (headOf: validation wants its first
 * bytes); a per-file state word makes sure every file is hashed exactly once either way.
 *
 * A job is either complete when it is created (every path known, claimed largest first) or open:
 * files are published one by one while the directory is still being walked, their paths sent to
 * each worker over its own MessagePort, so a worker that is ready hashes before the walk ends.
 */

/** Slots of `ctrl`. */
export const NEXT = 0;
export const DONE = 1;
export const ABORT = 2;
/** files that may be claimed (indices below it have a path and an expected size) */
export const PUBLISHED = 3;
/** 1 once no more files will be published */
export const CLOSED = 4;
export const CTRL_SLOTS = 8;

/** Per-file states in `state`. */
const FREE = 0;
const CLAIMED = 1;
const HASHED = 2;
const FAILED = 3;

export interface HashJob {
  /** absolute paths, indexed by file number (in an open job, a worker's copy grows from `port`) */
  paths: string[];
  /** an open job's path batches for this thread ({ paths } messages, in file-number order) */
  port?: MessagePort;
  /** file numbers in the order they are claimed (largest first, so the tail is short; publication order in an open job) */
  order: Int32Array;
  /** NEXT claim cursor, DONE counter, ABORT flag, PUBLISHED count, CLOSED flag */
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
  const job = allocateJob(paths.length, chunkSize);
  job.paths = paths;
  job.order.set(order);
  job.expected.fill(-1);
  if (sizes) job.expected.set(sizes);
  Atomics.store(job.ctrl, PUBLISHED, order.length);
  Atomics.store(job.ctrl, CLOSED, 1);
  return job;
}

/** An open job with room for `capacity` files, none published yet (see publishFiles, closeJob). */
export function createOpenHashJob(capacity: number, chunkSize: number): HashJob {
  return allocateJob(capacity, chunkSize);
}

/**
 * Publishes the files `paths` (with their listed `sizes`) as the next file numbers of an open
 * job: their paths go to every worker port first, then the count that lets threads claim them.
 */
export function publishFiles(job: HashJob, ports: readonly MessagePort[], paths: string[], sizes: readonly number[]): void {
  const start = Atomics.load(job.ctrl, PUBLISHED);
  paths.forEach((path, i) => {
    job.paths[start + i] = path;
    job.order[start + i] = start + i;
    job.expected[start + i] = sizes[i];
  });
  for (const port of ports) port.postMessage({ paths });
  Atomics.store(job.ctrl, PUBLISHED, start + paths.length);
  Atomics.notify(job.ctrl, PUBLISHED);
}

/** Marks an open job complete: threads stop waiting for more files once they are all claimed. */
export function closeJob(job: HashJob): void {
  Atomics.store(job.ctrl, CLOSED, 1);
  Atomics.notify(job.ctrl, PUBLISHED);
}

function allocateJob(capacity: number, chunkSize: number): HashJob {
  // views of exactly `length` elements (a zero-length SharedArrayBuffer is avoided, not the view size)
  const shared = <T>(View: new (buffer: SharedArrayBuffer, offset: number, length: number) => T, bytesPer: number, length: number): T =>
    new View(new SharedArrayBuffer(Math.max(length * bytesPer, 8)), 0, length);
  const n = capacity;
  return {
    paths: [],
    order: shared(Int32Array, 4, n),
    ctrl: shared(Int32Array, 4, CTRL_SLOTS),
    digests: shared(Uint8Array, 1, n * 32),
    sizes: shared(Float64Array, 8, n),
    expected: shared(Float64Array, 8, n),
    state: shared(Int32Array, 4, n),
    heads: shared(Uint8Array, 1, n * HEAD_BYTES),
    headLengths: shared(Uint8Array, 1, n),
    chunkSize,
  };
}

/**
 * Claims and hashes files until none are left or the job is aborted. Returns the failure that
 * made this thread abort the job, or null.
 */
export function hashClaimedFiles(job: HashJob): HashFailure | null {
  const buffer = Buffer.allocUnsafe(job.chunkSize);
  for (;;) {
    if (Atomics.load(job.ctrl, ABORT) !== 0) return null;
    const k = Atomics.load(job.ctrl, NEXT);
    const published = Atomics.load(job.ctrl, PUBLISHED);
    if (k >= published) {
      // everything published is claimed: done once the job is closed (and nothing came in
      // between), else wait for the walk to publish more
      if (Atomics.load(job.ctrl, CLOSED) !== 0 && Atomics.load(job.ctrl, PUBLISHED) === published) return null;
      Atomics.wait(job.ctrl, PUBLISHED, published, 100);
      continue;
    }
    if (Atomics.compareExchange(job.ctrl, NEXT, k, k + 1) !== k) continue;
    const index = job.order[k];
    // taken out of turn by headOf
    if (Atomics.compareExchange(job.state, index, FREE, CLAIMED) !== FREE) continue;
    const failure = hashClaimed(job, index, buffer);
    if (failure) return failure;
  }
}

/** Takes path batches from this thread's port until file `index` has its path (they were sent before it was published). */
function receivePaths(job: HashJob, index: number): void {
  while (index >= job.paths.length) {
    const batch = job.port ? workerThreads().receiveMessageOnPort(job.port) : undefined;
    if (!batch) throw new Error(`file ${index} was published without its path reaching this thread`);
    for (const path of (batch.message as { paths: string[] }).paths) job.paths.push(path);
  }
}

// only a thread that receives paths over a port needs it (a worker, which has it loaded anyway)
const workerThreads = lazyBuiltin<typeof import('node:worker_threads')>('node:worker_threads');

let ownBuffer: Buffer | undefined;

/**
 * The first bytes of file `index` (at most HEAD_BYTES), hashing the file on this thread first when
 * no thread has claimed it yet and it is listed at no more than `hashUpTo` bytes, or reading them
 * directly while another thread hashes it (or will: a larger unclaimed file is left to the
 * queue). Nothing when the file could not be read; the job is aborted then, and `failure` says
 * why when this thread read it.
 */
export function headOf(job: HashJob, index: number, hashUpTo = Infinity): { head?: Uint8Array; failure?: HashFailure } {
  // expected is -1 when the size is not known: such a file is hashed here like a small one
  if (job.expected[index] > hashUpTo && Atomics.load(job.state, index) === FREE) return readHead(job.paths[index]);
  if (Atomics.compareExchange(job.state, index, FREE, CLAIMED) === FREE) {
    if (!ownBuffer || ownBuffer.length !== job.chunkSize) ownBuffer = Buffer.allocUnsafe(job.chunkSize);
    const failure = hashClaimed(job, index, ownBuffer);
    if (failure) return { failure };
  }
  // another thread is hashing it right now: reading its first bytes costs less than waiting (in
  // an open job this thread often asks for files in the order the workers take them)
  if (Atomics.load(job.state, index) === CLAIMED) return readHead(job.paths[index]);
  if (Atomics.load(job.state, index) !== HASHED) return {};
  return { head: job.heads.subarray(index * HEAD_BYTES, index * HEAD_BYTES + job.headLengths[index]) };
}

/** The first HEAD_BYTES of `path` read directly; nothing when it cannot be read (the hashing reports why). */
function readHead(path: string): { head?: Uint8Array } {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    if (e instanceof Error && 'code' in e) return {};
    throw e;
  }
  try {
    const head = Buffer.allocUnsafe(HEAD_BYTES);
    return { head: head.subarray(0, readSync(fd, head, 0, HEAD_BYTES, 0)) };
  } finally {
    closeSync(fd);
  }
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
    return { path: job.paths[index] ?? `(file ${index})`, errno: err.code, message: err.message ?? String(e) };
  }
  Atomics.store(job.state, index, HASHED);
  Atomics.notify(job.state, index);
  Atomics.add(job.ctrl, DONE, 1);
  Atomics.notify(job.ctrl, DONE);
  return null;
}

function hashOneFile(job: HashJob, index: number, buffer: Buffer): void {
  if (index >= job.paths.length) receivePaths(job, index);
  const fd = openSync(job.paths[index], 'r');
  let size = 0;
  let digest: Buffer;
  try {
    let n = readSync(fd, buffer, 0, buffer.length, null);
    const head = Math.min(n, HEAD_BYTES);
    // byte by byte: a subarray per file would be one more object for the garbage collector
    for (let k = 0, at = index * HEAD_BYTES; k < head; k++) job.heads[at + k] = buffer[k];
    job.headLengths[index] = head;
    size = n;
    // a short read that reaches the size the walk saw is the whole file: most files fit one read,
    // so this saves a second system call per file (anything else reads on to a 0-byte read)
    if (n < buffer.length && n === job.expected[index] && oneShot) {
      digest = oneShot('sha256', buffer.subarray(0, n), 'buffer');
    } else {
      const hash = crypto.createHash('sha256');
      while (n > 0) {
        hash.update(n === buffer.length ? buffer : buffer.subarray(0, n));
        if (n < buffer.length && size === job.expected[index]) break;
        n = readSync(fd, buffer, 0, buffer.length, null);
        size += n;
      }
      digest = hash.digest();
    }
  } finally {
    closeSync(fd);
  }
  job.digests.set(digest, index * 32);
  job.sizes[index] = size;
}

/**
 * crypto.hash (Node >= 20.12): a one-shot digest without a Hash object, a few microseconds less
 * per file, which adds up over thousands of small files. Older Node 20 releases stream instead.
 */
const oneShot = (crypto as { hash?: typeof crypto.hash }).hash;
