import type { Worker } from 'node:worker_threads';

/**
 * Hash workers started at process start. A worker isolate takes 30-40 ms to boot, so cli/sf.cts
 * starts them for `sf skit hash` before it even loads the bundle, and file-digests.ts adopts them
 * instead of starting its own. They wait for a job as their first message; until adopted they are
 * unref'd, so a run that never hashes in parallel exits without them.
 */

export interface EarlyHashWorker {
  worker: Worker;
  /** resolves when the worker failed to boot (with the error) or exited (null) */
  ended: Promise<Error | null>;
}

// cli/sf.cts sets the same global (it is CommonJS and cannot import this module)
const KEY = Symbol.for('forge.sf.early-hash-workers');
type Holder = { [KEY]?: EarlyHashWorker[] };

/** Publishes workers for takeEarlyHashWorkers (the process-wide hand-off). */
export function offerEarlyHashWorkers(workers: EarlyHashWorker[]): void {
  (globalThis as Holder)[KEY] = workers;
}

/** Whether workers started at process start are waiting to be taken. */
export const hasEarlyHashWorkers = (): boolean => ((globalThis as Holder)[KEY]?.length ?? 0) > 0;

/** Takes up to `max` of the early workers (once; the rest are stopped). */
export function takeEarlyHashWorkers(max: number): EarlyHashWorker[] {
  const holder = globalThis as Holder;
  const early = holder[KEY] ?? [];
  delete holder[KEY];
  for (const w of early.slice(max)) void w.worker.terminate();
  return early.slice(0, Math.max(0, max));
}
