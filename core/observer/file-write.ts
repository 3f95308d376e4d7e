import { constants } from 'node:fs';
import { mkdir, open, stat, type FileHandle } from 'node:fs/promises';
import { dirname, parse, sep } from 'node:path';
import { hasErrno } from '../errors/index.js';

/**
 * The guard rails of a file destination, the one kind whose attempts run through the file system
 * instead of a socket:
 * - its directory is created one level at a time, never with `mkdir -p` (Node 20's recursive
 *   mkdir never settles when a parent that exists refuses the child with ENOENT, as /proc and /sys
 *   do: it busy-loops a libuv thread);
 * - the file is opened non-blocking: a FIFO nobody reads fails at once (ENXIO) instead of holding
 *   a thread, which would also keep the process from exiting;
 * - every attempt has a deadline, and a path whose last attempt is still stuck in the kernel (a
 *   hung network mount, a FIFO nobody reads) gets no new one until it returns, so a bad path
 *   holds at most one thread;
 * - stopping the observer ends the wait at once: the attempt's batch stays queued;
 * - a failure names the path and says what the errno means.
 */

/** Deadline of one delivery attempt to a file destination (an OTLP attempt has 10 s too). */
export const FILE_ATTEMPT_MS = 10_000;

/** The error a file attempt fails with: `message` is the sentence status and doctor show. */
export class FileDestinationError extends Error {
  constructor(message: string, readonly code?: string) {
    super(message);
    this.name = 'FileDestinationError';
  }
}

/** The first ancestor of `path` (or `path` itself) that exists and is not a directory. */
async function firstNonDirectory(path: string): Promise<string | undefined> {
  const { root } = parse(path);
  const parts = path.slice(root.length).split(sep).filter(Boolean);
  let at = root;
  for (const part of parts) {
    at = at === root ? root + part : at + sep + part;
    const s = await stat(at).catch(() => undefined);
    if (!s) return undefined;
    if (!s.isDirectory()) return at;
  }
  return undefined;
}

/**
 * Creates `dir` and its missing parents one level at a time (no recursive mkdir: see above).
 * Throws the errno error of the level that failed; a directory that cannot be created although
 * its parent exists throws ENOENT naming both.
 */
export async function ensureDirectory(dir: string, depth = 0): Promise<void> {
  try {
    await mkdir(dir);
    return;
  } catch (e) {
    if (hasErrno(e, 'EEXIST')) {
      if ((await stat(dir)).isDirectory()) return;
      throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${dir}'`), { code: 'ENOTDIR', syscall: 'mkdir', path: dir });
    }
    if (!hasErrno(e, 'ENOENT')) throw e;
    const parent = dirname(dir);
    if (parent === dir || depth > 255) throw e;
    await ensureDirectory(parent, depth + 1);
  }
  try {
    await mkdir(dir);
  } catch (e) {
    // created meanwhile by someone else: fine when it is a directory
    if (hasErrno(e, 'EEXIST') && (await stat(dir)).isDirectory()) return;
    if (hasErrno(e, 'ENOENT')) throw new FileDestinationError(`the directory ${dir} cannot be created: ${dirname(dir)} exists but does not take new directories (ENOENT; /proc and /sys are like that)`, 'ENOENT');
    throw e;
  }
}

/** Opens `path` to append (created 0600), non-blocking: see above. */
export function openForAppend(path: string): Promise<FileHandle> {
  return open(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NONBLOCK, 0o600);
}

const CALL: Record<string, string> = { open: 'open', mkdir: 'create the directory', chmod: 'make private', rename: 'rotate', unlink: 'remove', stat: 'read', write: 'write' };

/** A sentence for a failed file-destination attempt: the path, and what the errno means for it. */
export async function describeFileError(e: unknown, path: string): Promise<string> {
  if (e instanceof FileDestinationError) return e.message;
  const err = e as NodeJS.ErrnoException;
  const code = err.code;
  const at = typeof err.path === 'string' ? err.path : path;
  const verb = CALL[err.syscall ?? ''] ?? 'write';
  switch (code) {
    case 'ENOTDIR':
    case 'EEXIST': {
      const blocker = await firstNonDirectory(dirname(path));
      return `${blocker ?? dirname(path)} is not a directory, so ${path} cannot be created in it (${code})`;
    }
    case 'EISDIR':
      return `${path} is a directory; a file destination needs a file path (EISDIR)`;
    case 'EACCES':
    case 'EPERM':
      return `permission denied: cannot ${verb} ${at} (${code})`;
    case 'EROFS':
      return `${at} is on a read-only file system (EROFS)`;
    case 'ENOSPC':
    case 'EDQUOT':
      return `no space left for ${path}: the disk or your quota is full (${code})`;
    case 'ENOENT':
      return `cannot ${verb} ${at}: a directory on the way is missing (ENOENT)`;
    case 'ENXIO':
      return `${at} is a pipe no process reads (ENXIO)`;
    case 'EAGAIN':
      return `${at} takes no more data now: a pipe whose reader does not keep up? (EAGAIN)`;
    case 'ELOOP':
      return `${at} leads through too many symbolic links (ELOOP)`;
    case 'ENAMETOOLONG':
      return `${at} is too long a path (ENAMETOOLONG)`;
    default:
      if (code) return `cannot ${verb} ${at} (${code})`;
      // a message of Forge's own (a file it could not make private) names the path already
      return (err.message ?? String(e)).includes(path) ? err.message : `${path}: ${err.message ?? String(e)}`;
  }
}

/** Paths with an attempt that passed its deadline and has not returned from the kernel yet, with when it started. */
const stuck = new Map<string, number>();

/**
 * Runs one attempt on the file destination at `path` with a deadline, ended early by `abort`.
 * Rejects with a FileDestinationError naming the path: on the deadline, on abort, while an
 * earlier attempt on this path is stuck past its deadline, or with the attempt's own error
 * described.
 */
export async function fileAttempt<T>(path: string, run: () => Promise<T>, opts: { timeoutMs?: number; abort?: AbortSignal } = {}): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? FILE_ATTEMPT_MS;
  const since = stuck.get(path);
  if (since !== undefined) {
    throw new FileDestinationError(`an earlier write to ${path} has not returned for ${Math.round((Date.now() - since) / 1000)} s (a hung mount, or a pipe nobody reads?); no new attempt until it does`, 'ETIMEDOUT');
  }
  const stopping = () => new FileDestinationError(`the write to ${path} was cut short: the observer is stopping`, 'ABORT_ERR');
  if (opts.abort?.aborted) throw stopping();
  const started = Date.now();
  let late = false;
  const attempt = run().finally(() => {
    if (late && stuck.get(path) === started) stuck.delete(path);
  });
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const cut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      late = true;
      stuck.set(path, started);
      reject(new FileDestinationError(`writing ${path} did not finish within ${Math.round(timeoutMs / 1000)} s (a hung mount, or a pipe nobody reads?)`, 'ETIMEDOUT'));
    }, timeoutMs);
    onAbort = () => reject(stopping());
    opts.abort?.addEventListener('abort', onAbort, { once: true });
  });
  const described = attempt.catch(async (e: unknown) => Promise.reject(new FileDestinationError(await describeFileError(e, path), (e as NodeJS.ErrnoException).code)));
  // a late result or error of an attempt given up on is nobody's business
  described.catch(() => undefined);
  try {
    return await Promise.race([described, cut]);
  } finally {
    clearTimeout(timer);
    if (onAbort) opts.abort?.removeEventListener('abort', onAbort);
  }
}
