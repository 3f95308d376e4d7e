import { randomBytes } from 'node:crypto';
import { link, readdir, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { SfError, hasErrno, systemErrorAbout } from '../errors/index.js';
import { pidAlive, stillRunningSince } from '../runtime/processes.js';

/**
 * A short lock among sf processes around one read-modify-write (a host config file, the observe
 * install record): a lock file created with O_EXCL holding the owner's pid. A lock whose owner is
 * gone (killed mid-edit), or whose pid now names a process started after the lock was written, is
 * stale and taken over. A live owner is waited for (polling), then SF_E_CONFLICT names it.
 * Locks held by this process are re-entrant: an edit inside an edit of the same file proceeds.
 */

const held = new Map<string, number>();

export interface FileLockOptions {
  /** how long to wait for a live owner (default 10 s; edits hold their lock for milliseconds) */
  waitMs?: number;
  /** what is being edited, for the conflict message */
  what: string;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Creates the lock with this process's pid already in it: written to a private name, then linked
 * into place (link fails if the lock exists). Created empty and then written, another process
 * could read it empty in between and take it for stale.
 */
async function tryCreate(lockPath: string): Promise<boolean> {
  const mine = `${lockPath}.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    await writeFile(mine, `${process.pid}\n`, { mode: 0o600, flag: 'wx' });
  } catch (e) {
    // a full disk or quota fails the write after open created the file: it must not stay behind
    // (EEXIST: the name is someone else's)
    if (!hasErrno(e, 'EEXIST')) await unlink(mine).catch(() => undefined);
    throw e;
  }
  try {
    await link(mine, lockPath);
    return true;
  } catch (e) {
    if (hasErrno(e, 'EEXIST')) return false;
    throw e;
  } finally {
    await unlink(mine).catch(() => undefined);
  }
}

/**
 * A lock that cannot be created at all (a read-only or unwritable directory, a full disk) is
 * reported about what is being edited and the directory the user must fix, never the private
 * lock file's random name, which exists only for an instant.
 */
async function tryCreateOrExplain(lockPath: string, what: string): Promise<boolean> {
  try {
    return await tryCreate(lockPath);
  } catch (e) {
    const dir = dirname(lockPath);
    throw systemErrorAbout(e, dir, `cannot edit ${what}: no lock file can be created in ${dir}`) ?? e;
  }
}

/** The pid recorded in a pid file, or undefined. */
export async function readPid(file: string): Promise<number | undefined> {
  try {
    const pid = Number.parseInt((await readFile(file, 'utf8')).trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) return undefined;
    throw e;
  }
}

/**
 * The pid holding the pid file `file`, when that process is still running and not a later process
 * that reuses the pid (one started after the file was written, e.g. after a reboot).
 */
export async function runningHolder(file: string): Promise<number | undefined> {
  const pid = await readPid(file);
  if (pid === undefined) return undefined;
  const written = await stat(file).then((s) => s.mtimeMs, () => Number.NaN);
  return stillRunningSince(pid, written) ? pid : undefined;
}

/**
 * Removes a stale lock under a second exclusive file, re-checking that it is still stale: two
 * processes that found the same stale lock must not both get in (the slower one would otherwise
 * delete the lock the faster one had just created). A guard left by a killed process is stale
 * once its owner is gone. Temp files of dead owners (a kill between writing and linking one) go too.
 */
async function takeOverStale(lockPath: string): Promise<void> {
  const guard = `${lockPath}.takeover`;
  if (!(await tryCreate(guard))) {
    if (await isStale(guard)) await unlinkIfThere(guard);
    await pause(5);
    return;
  }
  try {
    // only a lock that is there and whose owner is gone: a missing one may be re-created this instant
    if (await isStale(lockPath)) await unlinkIfThere(lockPath);
    const dir = dirname(lockPath);
    const prefix = `${basename(lockPath)}.`;
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      const pid = name.startsWith(prefix) ? /^(\d+)\.[0-9a-f]{8}$/.exec(name.slice(prefix.length))?.[1] : undefined;
      if (pid !== undefined && !pidAlive(Number(pid))) await unlinkIfThere(join(dir, name));
    }
  } finally {
    await unlinkIfThere(guard);
  }
}

/**
 * True when `file` exists and its owner is gone (or it names none). False when it is missing: a
 * released lock is not stale, and unlinking "it" could remove the one another process just made.
 */
async function isStale(file: string): Promise<boolean> {
  const exists = await stat(file).then(() => true, (e: unknown) => (hasErrno(e, 'ENOENT') ? false : Promise.reject(e)));
  return exists && (await runningHolder(file)) === undefined && (await stat(file).then(() => true, () => false));
}

const unlinkIfThere = (path: string) => unlink(path).catch((e: unknown) => (hasErrno(e, 'ENOENT') ? undefined : Promise.reject(e)));

/** Runs `fn` holding the lock file `lockPath` (its directory must exist). */
export async function withFileLock<T>(lockPath: string, fn: () => Promise<T>, options: FileLockOptions): Promise<T> {
  const depth = held.get(lockPath) ?? 0;
  if (depth > 0) {
    held.set(lockPath, depth + 1);
    try {
      return await fn();
    } finally {
      held.set(lockPath, depth);
    }
  }
  const deadline = Date.now() + (options.waitMs ?? 10_000);
  for (let polls = 0; ; polls++) {
    if (await tryCreateOrExplain(lockPath, options.what)) break;
    const owner = await runningHolder(lockPath);
    if (owner === undefined) {
      // released meanwhile (try again at once), or its owner is gone (take it over)
      if (await isStale(lockPath)) await takeOverStale(lockPath);
      continue;
    }
    if (Date.now() >= deadline) {
      throw new SfError('SF_E_CONFLICT', `another sf command (pid ${owner}) is editing ${options.what}`, {
        location: { file: lockPath },
        hint: `wait for it to finish and run the command again (if no sf command is running, delete ${lockPath})`,
      });
    }
    await pause(Math.min(50, 5 * 2 ** polls));
  }
  held.set(lockPath, 1);
  try {
    return await fn();
  } finally {
    held.delete(lockPath);
    await unlink(lockPath).catch((e: unknown) => (hasErrno(e, 'ENOENT') ? undefined : Promise.reject(e)));
  }
}
