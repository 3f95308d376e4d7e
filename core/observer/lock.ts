import { acquireProcessLock, type ProcessLock, type ProcessLockLabels } from '../runtime/process-lock.js';

/**
 * One observer per user: the process lock (core/runtime/process-lock.ts) on $SF_HOME/run's pid
 * file, which `sf observe status` and doctor read.
 */

// the pid-file reading is shared with the short edit locks (core/fs/file-lock.ts)
export { readPid, runningHolder } from '../fs/file-lock.js';

export type PidLock = ProcessLock;

const OBSERVER: ProcessLockLabels = {
  conflict: (holder) => `an observer is already running for this user (pid ${holder})`,
  conflictHint: () => 'use the running one (`sf observe status`), or stop it first; only one observer runs per user',
  what: 'the observer lock',
  openHint: 'check that $SF_HOME/run is on a local, writable filesystem',
};

/** Takes the lock or throws SF_E_CONFLICT naming the running observer. */
export function acquirePidLock(file: string, pid = process.pid): Promise<PidLock> {
  return acquireProcessLock(file, OBSERVER, pid);
}
