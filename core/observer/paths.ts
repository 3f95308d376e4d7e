import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { sfPaths, type SfPaths } from '../library/paths.js';

/** Where the observer keeps its state under $SF_HOME. */
export interface ObserverPaths extends SfPaths {
  /** $SF_HOME/run (0700): socket, pid lock, runtime and status files */
  run: string;
  /** the session-registry Unix socket (a named pipe on Windows) */
  socket: string;
  /** one observer per user: holds the pid of the running observer */
  pidFile: string;
  /** runtime facts of the running observer (pid, port, socket, mode), for adapters and `sf observe status` */
  runtimeFile: string;
  /** the last status snapshot (counters, queues, canaries), rewritten every few seconds */
  statusFile: string;
  /** the per-user HMAC key of the repository fingerprints (0600) */
  secretKey: string;
  /** LMDB environment of the retry queue, counters and sequences */
  queueDb: string;
  /** $SF_HOME/config.json (the `observe` key) */
  config: string;
  /** where host hooks and plugins spool messages while the observer is unreachable (replayed at start) */
  spool: string;
  /** otelcol-contrib: generated config, user fragments, install record, file_storage */
  collector: string;
}

/** Observer paths for an environment ($SF_HOME, HOME). */
export function observerPaths(env: NodeJS.ProcessEnv = process.env): ObserverPaths {
  const base = sfPaths(env);
  const run = join(base.home, 'run');
  return {
    ...base,
    run,
    socket: process.platform === 'win32' ? `\\\\.\\pipe\\sf-observe-${createHash('sha256').update(base.home).digest('hex').slice(0, 16)}` : join(run, 'observe.sock'),
    pidFile: join(run, 'observe.pid'),
    runtimeFile: join(run, 'observe.json'),
    statusFile: join(run, 'observe.status.json'),
    secretKey: join(base.home, 'observer.key'),
    queueDb: join(base.home, 'queue', 'observer.lmdb'),
    config: join(base.home, 'config.json'),
    collector: join(base.home, 'collector'),
    spool: join(base.home, 'queue', 'spool'),
  };
}
