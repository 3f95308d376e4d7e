import { mkdirDurableSync } from '../fs/atomic.js';

/**
 * Creates $SF_HOME if it is missing, mode 0700 and durably: it holds credentials, the library and
 * the observer's state, so whichever command creates it first must keep it private. A command
 * that may be the first to write below $SF_HOME calls this before writing anything there.
 */
export function ensureSfHome(home: string): void {
  mkdirDurableSync(home, 0o700);
}
