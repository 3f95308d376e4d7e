import { realpathSync } from 'node:fs';
import { chmod, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { SfError, hasErrno } from '../errors/index.js';
import { mkdirDurableSync, writeFileAtomic } from '../fs/atomic.js';
import { readPid, runningHolder } from '../fs/file-lock.js';
import { stillRunningSince } from './processes.js';

/**
 * A lock held for a process's whole life: one observer per user, one hub per data directory.
 * The decision is one LMDB write transaction on `<pid file>.lmdb`: LMDB serializes write
 * transactions across processes (a robust mutex, released by the kernel when a holder dies), so
 * "is the recorded owner gone? then I am the owner" is atomic, and two processes starting at the
 * same moment over a stale record cannot both win. An owner is gone when its process no longer
 * runs or its pid now belongs to a process that started after the record (pids are reused after a
 * reboot), so a holder killed with SIGKILL never blocks the next start. The pid file is then
 * written (atomically, never empty) for status commands and doctor, and a live holder recorded
 * only in the pid file (an observer of an earlier version used nothing else) is honoured too.
 * Every lock file is owner-only (0600) whatever the umask: they say who runs what.
 */

/** What a lock guards, in its errors. */
export interface ProcessLockLabels {
  /** the conflict message, naming the running holder */
  conflict: (holder: number) => string;
  /** how to get past the conflict */
  conflictHint: (holder: number) => string;
  /** the lock, in the error when its database cannot be opened ("the observer lock") */
  what: string;
  /** how to fix a lock database that cannot be opened */
  openHint: string;
}

export interface ProcessLock {
  release(): Promise<void>;
}

interface Owner {
  pid: number;
  /** when it took the lock (ms) */
  since: number;
}

/** Lock files held by this process (a second holder in the same process is a conflict too). */
const heldHere = new Set<string>();

const OWNER_ONLY = 0o600;

const conflict = (file: string, holder: number, labels: ProcessLockLabels) =>
  new SfError('SF_E_CONFLICT', labels.conflict(holder), { location: { file }, hint: labels.conflictHint(holder), data: { pid: holder } });

/**
 * Opens the lock database owner-only: LMDB creates its data and -lock files with the mode given
 * (less the umask); the chmods cover files an earlier version created 0664, and a umask that took
 * the owner's own bits. chmod by path: opening and closing a descriptor of the -lock file would
 * drop LMDB's fcntl locks on it in this process.
 */
async function openLockDb(path: string) {
  const { open } = await import('lmdb');
  // permissionsMode is an lmdb-js option its typings leave out
  const options = { path, noSubdir: true, encoding: 'msgpack' as const, compression: false, permissionsMode: OWNER_ONLY };
  const db = open<Owner, string>(options);
  try {
    await chmod(path, OWNER_ONLY);
    await chmod(`${path}-lock`, OWNER_ONLY).catch((e: unknown) => (hasErrno(e, 'ENOENT') ? undefined : Promise.reject(e)));
  } catch (e) {
    await db.close();
    throw e;
  }
  return db;
}

/** Takes the lock in `file` (a pid file; its database is `file`.lmdb) or throws SF_E_CONFLICT naming the running holder. */
export async function acquireProcessLock(file: string, labels: ProcessLockLabels, pid = process.pid): Promise<ProcessLock> {
  mkdirDurableSync(dirname(file), 0o700);
  // one lock file, however it is named (a link to the directory, a trailing slash, ..)
  const key = join(realpathSync(dirname(file)), basename(file));
  if (heldHere.has(key)) throw conflict(file, pid, labels);
  const legacy = await runningHolder(file);
  if (legacy !== undefined && legacy !== pid) throw conflict(file, legacy, labels);

  let lockDb: Awaited<ReturnType<typeof openLockDb>>;
  try {
    lockDb = await openLockDb(`${file}.lmdb`);
  } catch (e) {
    throw new SfError('SF_E_IO', `could not open ${labels.what} ${file}.lmdb: ${(e as Error).message}`, {
      location: { file: `${file}.lmdb` }, hint: labels.openHint, cause: e,
    });
  }
  const holder = lockDb.transactionSync(() => {
    const owner = lockDb.get('owner');
    // our own pid in the record is an earlier process that had it (this one does not hold the lock)
    if (owner && owner.pid !== pid && stillRunningSince(owner.pid, owner.since)) return owner.pid;
    lockDb.putSync('owner', { pid, since: Date.now() });
    return undefined;
  });
  if (holder !== undefined) {
    await lockDb.close();
    throw conflict(file, holder, labels);
  }
  heldHere.add(key);
  try {
    await writeFileAtomic(file, `${pid}\n`, { mode: OWNER_ONLY });
  } catch (e) {
    await release();
    throw e;
  }

  async function release(): Promise<void> {
    if (!heldHere.delete(key)) return;
    lockDb.transactionSync(() => {
      if (lockDb.get('owner')?.pid === pid) lockDb.removeSync('owner');
    });
    await lockDb.close();
    if ((await readPid(file)) === pid) await unlink(file).catch((e: unknown) => (hasErrno(e, 'ENOENT') ? undefined : Promise.reject(e)));
  }
  return { release };
}
