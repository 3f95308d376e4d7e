import { checkPort } from '../core/runtime/port.js';
import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
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

/** Starts the hub on 127.0.0.1 (or `host`) with embedded storage in `dataDir`. Port 0 picks a free port. */
export async function startHub(options: {
  dataDir: string;
  port?: number;
  host?: string;
  baseUrl?: string;
  limits?: Partial<RegistryLimits>;
  /** telemetry settings, or a factory of the telemetry service (the ingest bench's decode-only baseline) */
  telemetry?: TelemetryConfig | ((storage: HubStorage, defaults: TelemetryConfig) => TelemetryService);
  /** connection limits (defaults: HUB_CONNECTION_LIMITS) */
  connections?: Partial<ConnectionLimits>;
}): Promise<RunningHub> {
  const port = checkPort(options.port ?? 0, '--port', true);
  const storage = openEmbeddedStorage(options.dataDir);
  const host = options.host ?? '127.0.0.1';
  // raw telemetry batches past their retention are swept hourly; a queue left by a previous run
  // resumes; normalization runs in a worker thread on the same storage, off the HTTP thread
  const defaults: TelemetryConfig = { sweepIntervalMs: 60 * 60 * 1000, normalizerThread: { dataDir: options.dataDir } };
  const telemetry = typeof options.telemetry === 'function' ? options.telemetry(storage, defaults) : new TelemetryService(storage, { ...defaults, ...options.telemetry });
  await telemetry.start();
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
