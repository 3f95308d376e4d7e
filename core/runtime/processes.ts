import { readFileSync } from 'node:fs';

/**
 * Liveness of other processes, for the pids Forge records (journal intents, the observer's pid
 * file, fetched-source scratch, registered host sessions).
 */

/** True when a process with this pid exists (EPERM: it exists but belongs to another user). */
export function pidAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** /proc reports process start times in clock ticks of USER_HZ, which Linux fixes at 100. */
const USER_HZ = 100;

/** When process `pid` started (ms since the epoch, to within a second), from /proc on Linux; undefined elsewhere or when unknown. */
export function processStartMs(pid: number): number | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // the command name (field 2) may hold spaces and parentheses: count the fields after the last ')'
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const bootSeconds = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'latin1'))?.[1]);
    return Number.isFinite(ticks) && Number.isFinite(bootSeconds) ? bootSeconds * 1000 + (ticks * 1000) / USER_HZ : undefined;
  } catch {
    return undefined;
  }
}

/**
 * True when the process that recorded its pid at `recordedAtMs` may still be running: the pid is
 * alive and its process did not start after that moment. After a crash and a reboot pids are
 * handed out again, and a record whose pid now belongs to some other process is stale; without
 * this check it would look live for good. (Where start times are unknown, a live pid counts.)
 */
export function stillRunningSince(pid: number, recordedAtMs: number): boolean {
  if (!pidAlive(pid)) return false;
  if (pid === process.pid || Number.isNaN(recordedAtMs)) return true;
  const started = processStartMs(pid);
  // a second of slack: the boot time /proc gives is whole seconds
  return started === undefined || started <= recordedAtMs + 1000;
}
