import { readdirSync, readFileSync } from 'node:fs';

/** CPU time of another process and its threads, from /proc (Linux): for benches that measure a server process. */

/** CPU milliseconds (user + system) from a /proc stat line. */
function statCpuMs(stat: string): number {
  const fields = stat.split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

/** CPU milliseconds (user + system, all threads) a process has used so far. */
export const processCpuMs = (pid: number): number => statCpuMs(readFileSync(`/proc/${pid}/stat`, 'utf8'));

/** CPU milliseconds of each thread of a process so far, by thread id. */
export function threadCpuMs(pid: number): Map<number, number> {
  return new Map(readdirSync(`/proc/${pid}/task`).map((tid) => [Number(tid), statCpuMs(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'))]));
}

/** How a process's CPU time since `before` split: its main thread, its busiest other thread, the rest. */
export function cpuSplit(pid: number, before: Map<number, number>): { main: number; busiest: number; rest: number } {
  const used = [...threadCpuMs(pid)].map(([tid, ms]) => [tid, ms - (before.get(tid) ?? 0)] as const);
  const main = used.find(([tid]) => tid === pid)?.[1] ?? 0;
  const others = used.filter(([tid]) => tid !== pid).map(([, ms]) => ms).sort((a, b) => b - a);
  return { main, busiest: others[0] ?? 0, rest: others.slice(1).reduce((a, b) => a + b, 0) };
}
