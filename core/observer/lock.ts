import { mkdir, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { SfError, hasErrno } from '../errors/index.js';
import { readPid, runningHolder } from '../fs/file-lock.js';
import { writeFileAtomic } from '../fs/atomic.js';
import { stillRunningSince } from '../runtime/processes.js';

/**
 * One observer per user. The decision is one LMDB write transaction on `<pid file>.lmdb`: LMDB
 * serializes write transactions across processes (a robust mutex, released by the kernel when a
 * holder dies), so "is the recorded owner gone? then I am the owner" is atomic, and two observers
 * starting at the same moment over a stale record cannot both win. An owner is gone when its
 * process no longer runs or its pid now belongs to a process that started after the record (pids
 * are reused after a reboot). The pid file is then written (atomically, never empty) for
 * `sf observe status` and doctor, and an observer of an earlier version, which used only the pid
 * file, is still honoured: a live holder in it makes the second observer refuse to start.
 */

// the pid-file reading is shared with the short edit locks (core/fs/file-lock.ts)
export { readPid, runningHolder } from '../fs/file-lock.js';

/** Lock files held by this process (a second observer in the same process is a conflict too). */
const heldHere = new Set<string>();

export interface PidLock {
  release(): Promise<void>;
}

interface Owner {
  pid: number;
  /** when it took the lock (ms) */
  since: number;
}

const conflict = (file: string, holder: number) =>
  new SfError('SF_E_CONFLICT', `an observer is already running for this user (pid ${holder})`, {
    location: { file },
    hint: 'use the running one (`sf observe status`), or stop it first; only one observer runs per user',
    data: { pid: holder },
  });

/** Takes the lock or throws SF_E_CONFLICT naming the running observer. */
export async function acquirePidLock(file: string, pid = process.pid): Promise<PidLock> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  if (heldHere.has(file)) throw conflict(file, pid);
  const legacy = await runningHolder(file);
  if (legacy !== undefined && legacy !== pid) throw conflict(file, legacy);

  const { open } = await import('lmdb');
  let db;
  try {
    db = open<Owner, string>({ path: `${file}.lmdb`, noSubdir: true, encoding: 'msgpack', compression: false });
  } catch (e) {
    throw new SfError('SF_E_IO', `could not open the observer lock ${file}.lmdb: ${(e as Error).message}`, {
      location: { file: `${file}.lmdb` }, hint: 'check that $SF_HOME/run is on a local, writable filesystem', cause: e,
    });
  }
  const lockDb = db;
  const holder = lockDb.transactionSync(() => {
    const owner = lockDb.get('owner');
    // our own pid in the record is an earlier process that had it (this one does not hold the lock)
    if (owner && owner.pid !== pid && stillRunningSince(owner.pid, owner.since)) return owner.pid;
    lockDb.putSync('owner', { pid, since: Date.now() });
    return undefined;
  });
  if (holder !== undefined) {
    await lockDb.close();
    throw conflict(file, holder);
  }
  heldHere.add(file);
  try {
    await writeFileAtomic(file, `${pid}\n`, { mode: 0o600 });
  } catch (e) {
    await release();
    throw e;
  }

  async function release(): Promise<void> {
    if (!heldHere.delete(file)) return;
    lockDb.transactionSync(() => {
      if (lockDb.get('owner')?.pid === pid) lockDb.removeSync('owner');
    });
    await lockDb.close();
    if ((await readPid(file)) === pid) await unlink(file).catch((e: unknown) => (hasErrno(e, 'ENOENT') ? undefined : Promise.reject(e)));
  }
  return { release };
}
