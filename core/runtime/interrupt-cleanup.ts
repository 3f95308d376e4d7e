import { rmSync } from 'node:fs';

/**
 * Scratch directories to delete if the process is interrupted (Ctrl-C, SIGTERM, a closed
 * terminal) before the code that made them cleans up: a half-unpacked 200 MB archive must not stay
 * in $SF_HOME/tmp. On such a signal they are removed synchronously, then the signal is raised
 * again with its default action, so the exit status still says how the process ended.
 */

const pending = new Set<string>();
const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
let installed = false;

function onSignal(signal: NodeJS.Signals): void {
  for (const dir of pending) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // best effort: doctor lists what is left
    }
  }
  pending.clear();
  for (const s of SIGNALS) process.removeListener(s, onSignal);
  process.kill(process.pid, signal);
}

/** Deletes `dir` if the process is interrupted before the returned function is called. */
export function removeOnInterrupt(dir: string): () => void {
  if (!installed) {
    installed = true;
    for (const s of SIGNALS) process.on(s, onSignal);
  }
  pending.add(dir);
  return () => {
    pending.delete(dir);
  };
}
