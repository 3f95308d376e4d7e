import { readPid, runningHolder } from '../../../core/observer/lock.js';
import { sendObserverMessage } from '../../../core/observer/socket-client.js';
import { spoolBacklog, type SpoolBacklog } from '../../../core/observer/spool.js';
import { readObserverStatus, type ObserverStatus } from '../../../core/observer/status.js';
import type { ObserveState } from './shared.js';

/**
 * What `status` and `doctor` know about the observer process: whether it runs, whether it
 * answers on its socket (live counters) or only left its last status file, and the spool of
 * hook and plugin messages waiting for it.
 */
export interface ObserverProbe {
  running: boolean;
  pid?: number;
  /** the pid file names a process that is gone */
  stalePid?: number;
  /** answered the socket `status` request (else `status` is the last file snapshot, if any) */
  live: boolean;
  status?: ObserverStatus;
  spool: SpoolBacklog;
}

export async function probeObserver(state: ObserveState, timeoutMs = 1000): Promise<ObserverProbe> {
  const pid = await readPid(state.paths.pidFile);
  const running = pid !== undefined && (await runningHolder(state.paths.pidFile)) === pid;
  const spool = await spoolBacklog(state.ctx.spoolDir);
  if (!running) return { running: false, ...(pid !== undefined ? { stalePid: pid } : {}), live: false, spool };
  const res = await sendObserverMessage(state.paths.socket, { type: 'status', id: 'sf-observe-status' }, timeoutMs);
  const live = res?.ok === true && typeof res.status === 'object';
  const status = live ? (res!.status as ObserverStatus) : await readObserverStatus(state.paths.statusFile);
  return { running, pid, live, ...(status ? { status } : {}), spool };
}
