import { closeSync, fchmodSync, fsync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { promisify } from 'node:util';

const fsyncFd = promisify(fsync);

/** One file to create: absolute path, exact bytes and exact mode (not subject to the umask). */
export interface NewFile {
  path: string;
  bytes: Uint8Array;
  mode: number;
}

/** Files written (and held open) before their fsyncs are awaited together. */
const BATCH = 128;

/**
 * Creates `files` (none may exist yet). The first batch is written before this returns; the
 * returned promise settles once every file is written and fsynced, so callers can do other work
 * (e.g. a database commit) while the fsyncs run. Parent directories are created once each. Writes
 * are plain synchronous calls (for small files a thread-pool round trip costs more than the
 * write); the fsyncs of a batch run in parallel, where the filesystem can commit them together.
 * Directory entries are the caller's to make durable (fsync the directory it renames or publishes).
 */
export function startNewFilesDurable(files: readonly NewFile[]): Promise<void> {
  for (const dir of new Set(files.map((f) => dirname(f.path)))) mkdirSync(dir, { recursive: true });
  const batches: NewFile[][] = [];
  for (let start = 0; start < files.length; start += BATCH) batches.push(files.slice(start, start + BATCH));
  let done = Promise.resolve();
  for (const [i, batch] of batches.entries()) {
    if (i === 0) {
      const first = writeBatch(batch);
      done = first.synced;
    } else {
      done = done.then(() => writeBatch(batch).synced);
    }
  }
  return done;
}

/** Creates `files` and fsyncs every one before resolving (see startNewFilesDurable). */
export async function writeNewFilesDurable(files: readonly NewFile[]): Promise<void> {
  await startNewFilesDurable(files);
}

/** Writes a batch now; `synced` settles when all of it is fsynced and closed. */
function writeBatch(batch: readonly NewFile[]): { synced: Promise<void> } {
  const fds: number[] = [];
  const closeAll = () => {
    for (const fd of fds.splice(0)) closeSync(fd);
  };
  try {
    for (const f of batch) {
      const fd = openSync(f.path, 'wx', f.mode);
      fds.push(fd);
      let offset = 0;
      while (offset < f.bytes.length) offset += writeSync(fd, f.bytes, offset, f.bytes.length - offset);
      fchmodSync(fd, f.mode);
    }
  } catch (e) {
    closeAll();
    return { synced: Promise.reject(e) };
  }
  return { synced: Promise.all(fds.map((fd) => fsyncFd(fd))).then(closeAll, (e: unknown) => {
    closeAll();
    throw e;
  }) };
}
