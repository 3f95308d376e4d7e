import { mkdir, open, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { SfError, hasErrno } from '../errors/index.js';
import { readPid, runningHolder } from '../fs/file-lock.js';

/**
 * One observer per user: a pid file created with O_EXCL. A file left by a process that no longer
 * exists is stale and replaced, and so is one whose pid now belongs to a process that started
 * after the file was written (the pid file outlives a reboot; pids do not). A live holder makes
 * the second observer refuse to start.
 */

// the pid-file reading is shared with the short edit locks (core/fs/file-lock.ts)
export { readPid, runningHolder } from '../fs/file-lock.js';

/** Lock files held by this process (a second observer in the same process is a conflict too). */
const heldHere = new Set<string>();

export interface PidLock {
  release(): Promise<void>;
}

/** Takes the lock or throws SF_E_CONFLICT naming the running observer. */
export async function acquirePidLock(file: string, pid = process.pid): Promise<PidLock> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fh = await open(file, 'wx', 0o600);
      await fh.writeFile(`${pid}\n`);
      await fh.close();
      heldHere.add(file);
      return {
        async release() {
          heldHere.delete(file);
          if ((await readPid(file)) === pid) await unlink(file).catch((e: unknown) => (hasErrno(e, 'ENOENT') ? undefined : Promise.reject(e)));
        },
      };
    } catch (e) {
      if (!hasErrno(e, 'EEXIST')) throw e;
      const holder = await readPid(file);
      // our own pid in the file is stale (a reused pid) unless this process really holds the lock
      if (holder !== undefined && (holder === pid ? heldHere.has(file) : (await runningHolder(file)) === holder)) {
        throw new SfError('SF_E_CONFLICT', `an observer is already running for this user (pid ${holder})`, {
          location: { file },
          hint: 'use the running one (`sf observe status`), or stop it first; only one observer runs per user',
          data: { pid: holder },
        });
      }
      // stale (dead holder or garbage): remove and retry
      await unlink(file).catch((err: unknown) => (hasErrno(err, 'ENOENT') ? undefined : Promise.reject(err)));
    }
  }
  throw new SfError('SF_E_CONFLICT', `could not take the observer lock ${file}`, { hint: 'another observer is starting at the same moment; try again' });
}
