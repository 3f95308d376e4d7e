import { checkPort } from '../core/runtime/port.js';
import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { assertLocalDataDir, MOVE_HUB_DATA } from '../core/fs/filesystem-kind.js';
import { acquireProcessLock, type ProcessLock } from '../core/runtime/process-lock.js';
import { serverOptionsFor, type ConnectionLimits } from '../core/runtime/connection-limits.js';
import { createHubApp } from './app.js';
import { continueWhenBodyIsRead } from './http/expect-continue.js';
import type { RegistryLimits } from './limits.js';
import { openEmbeddedStorage } from './storage/embedded/lmdb-store.js';
import type { HubStorage } from './storage/ports.js';
import { TelemetryService, type TelemetryConfig } from './telemetry/service.js';

export interface RunningHub {
  url: string;
  port: number;
  storage: HubStorage;
  /** stops accepting, lets in-flight requests finish, then closes storage */
  close(): Promise<void>;
}

/** The hub's connection limits: the request timeout leaves room for a release upload of the maximum size on a slow link. */
export const HUB_CONNECTION_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 120_000,
  keepAliveTimeoutMs: 5_000,
  checkIntervalMs: 1_000,
  maxConnections: 4_096,
};

/**
 * One hub process per data directory: the raw-blob guard, the normalization queue's consumer and
 * the sweeper are process-local state about it. The normalizer thread and `sf hub admin` open the
 * storage without this lock (LMDB is safe across processes for them). The directory is checked to
 * be local first: LMDB's locks, which the lock relies on, are not safe on a network filesystem.
 */
async function lockDataDir(dataDir: string): Promise<ProcessLock> {
  assertLocalDataDir(dataDir, 'the hub data directory', process.env, undefined, MOVE_HUB_DATA);
  return acquireProcessLock(join(dataDir, 'hub.pid'), {
    conflict: (pid) => `a hub is already running on the data directory ${dataDir} (pid ${pid})`,
    conflictHint: (pid) => `stop that hub (pid ${pid}) first, or serve another data directory with --data`,
    what: 'the hub lock',
    openHint: 'check that the hub data directory is on a local, writable filesystem',
  });
}

export interface HubOptions {
  dataDir: string;
  port?: number;
  host?: string;
  baseUrl?: string;
  limits?: Partial<RegistryLimits>;
  /** telemetry settings, or a factory of the telemetry service (the ingest bench's decode-only baseline) */
  telemetry?: TelemetryConfig | ((storage: HubStorage, defaults: TelemetryConfig) => TelemetryService);
  /** connection limits (defaults: HUB_CONNECTION_LIMITS) */
  connections?: Partial<ConnectionLimits>;
}

/**
 * Starts the hub on 127.0.0.1 (or `host`) with embedded storage in `dataDir`. Port 0 picks a free
 * port. Throws SF_E_CONFLICT when another hub serves `dataDir`; close() lets the next one start.
 */
export async function startHub(options: HubOptions): Promise<RunningHub> {
  const port = checkPort(options.port ?? 0, '--port', true);
  const lock = await lockDataDir(options.dataDir);
  let hub: RunningHub;
  try {
    hub = await serveDataDir(options, port);
  } catch (e) {
    await lock.release();
    throw e;
  }
  let closing: Promise<void> | undefined;
  return { ...hub, close: () => (closing ??= hub.close().finally(() => lock.release())) };
}

/** The hub itself, once this process owns the data directory. */
async function serveDataDir(options: HubOptions, port: number): Promise<RunningHub> {
  const storage = openEmbeddedStorage(options.dataDir);
  const host = options.host ?? '127.0.0.1';
  // raw telemetry batches past their retention are swept hourly; a queue left by a previous run
  // resumes; normalization runs in a worker thread on the same storage, off the HTTP thread
  const defaults: TelemetryConfig = { sweepIntervalMs: 60 * 60 * 1000, normalizerThread: { dataDir: options.dataDir } };
  const telemetry = typeof options.telemetry === 'function' ? options.telemetry(storage, defaults) : new TelemetryService(storage, { ...defaults, ...options.telemetry });
  try {
    await telemetry.start();
  } catch (e) {
    // a failed start (a normalizer thread that would not boot, a rebuild that failed) leaves nothing open
    await telemetry.stop().catch(() => undefined);
    await storage.close();
    throw e;
  }
  const app = createHubApp({ storage, baseUrl: options.baseUrl, limits: options.limits, telemetry });
  const limits = { ...HUB_CONNECTION_LIMITS, ...options.connections };
  let server: ServerType;
  try {
    server = await new Promise((resolve, reject) => {
      const s = serve({ fetch: app.fetch, port, hostname: host, serverOptions: serverOptionsFor(limits) }, () => resolve(s));
      // a port in use or a host that does not resolve: the caller reports it, nothing is left open
      s.once('error', reject);
    });
  } catch (e) {
    await telemetry.stop();
    await storage.close();
    throw e;
  }
  server.maxConnections = limits.maxConnections;
  continueWhenBodyIsRead(server as import('node:http').Server);
  const actualPort = (server.address() as AddressInfo).port;
  const url = `http://${host}:${actualPort}`;
  let closing: Promise<void> | undefined;
  return {
    url,
    port: actualPort,
    storage,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.();
      })
        .then(() => telemetry.stop())
        .then(() => storage.close());
      return closing;
    },
  };
}
