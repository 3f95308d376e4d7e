import { readPid, runningHolder } from '../../../core/observer/lock.js';
import { sendObserverMessage } from '../../../core/observer/socket-client.js';
import { spoolBacklog, type SpoolBacklog } from '../../../core/observer/spool.js';
import { readObserverStatus, type ObserverStatus } from '../../../core/observer/status.js';
import type { ObserveConfig } from '../../../core/observer/config.js';
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

/** The running observer's runtime file ($SF_HOME/run/observe.json): its port and the digest of the config it loaded. */
export async function readRuntime(runtimeFile: string): Promise<{ port?: number; config?: string }> {
  const { readFile } = await import('node:fs/promises');
  try {
    const r = JSON.parse(await readFile(runtimeFile, 'utf8')) as { port?: unknown; config?: unknown };
    return { ...(typeof r.port === 'number' ? { port: r.port } : {}), ...(typeof r.config === 'string' ? { config: r.config } : {}) };
  } catch {
    return {};
  }
}

/** Whether a running observer serves the configuration just written, for the command that wrote it. */
export interface ObserverAfterChange {
  running: boolean;
  pid?: number;
  /** the port it listens on (its runtime file) */
  listening?: number;
  /** it runs with an older port or config.json than the one just written: it must be restarted */
  restartNeeded: boolean;
}

/**
 * After `install` or `update` wrote the config and re-pointed the hosts: does a running observer
 * serve it? A systemd unit the command (re)started does; a foreground `sf observe daemon` or a
 * service the command could not restart keeps what it loaded at start.
 */
export async function observerAfterChange(state: ObserveState, config: ObserveConfig): Promise<ObserverAfterChange> {
  const { observeConfigDigest } = await import('../../../core/observer/service-config.js');
  const probe = await probeObserver(state);
  if (!probe.running) return { running: false, restartNeeded: false };
  const runtime = await readRuntime(state.paths.runtimeFile);
  const listening = runtime.port ?? (probe.status ? Number(new URL(probe.status.url).port) : undefined);
  const stale = (listening !== undefined && listening !== config.receiver.port) || (runtime.config !== undefined && runtime.config !== observeConfigDigest(config));
  return { running: true, ...(probe.pid ? { pid: probe.pid } : {}), ...(listening !== undefined ? { listening } : {}), restartNeeded: stale };
}

/** How to restart the observer: the user service, or the foreground daemon. */
export const restartHow = (systemd: boolean): string => (systemd ? 'systemctl --user restart sf-observer.service' : 'stop `sf observe daemon` and start it again');

/** The `observer:` line of install/update and, when the running observer must be restarted, the note saying so and how. */
export function describeObserverAfterChange(port: number, after: ObserverAfterChange | undefined, systemd: boolean, hosts = true): { line: string; note?: string } {
  const at = `127.0.0.1:${port}`;
  // undefined: the service step (re)started the unit, which loads the config just written
  if (!after) return { line: `observer: ${at}` };
  if (!after.running) return { line: `observer: not running (${hosts ? 'hosts send to' : 'configured for'} ${at}); start it: ${systemd ? 'systemctl --user start sf-observer.service' : '`sf observe daemon`'}` };
  const pid = after.pid ? ` (pid ${after.pid})` : '';
  if (!after.restartNeeded) return { line: `observer: running on ${at}${pid}` };
  const moved = after.listening !== undefined && after.listening !== port;
  return {
    line: `observer: ${hosts ? 'hosts now send to' : 'configured for'} ${at}`,
    note: moved
      ? `note: the running observer${pid} still listens on 127.0.0.1:${after.listening}, not on ${port}${hosts ? ': nothing receives the hosts\' telemetry until you restart it' : '; restart it'}: ${restartHow(systemd)}`
      : `note: the running observer${pid} has not loaded this configuration (it reads it at start): restart it to apply: ${restartHow(systemd)}`,
  };
}
