import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { createHubApp } from './app.js';
import type { RegistryLimits } from './limits.js';
import { openEmbeddedStorage } from './storage/embedded/lmdb-store.js';
import type { HubStorage } from './storage/ports.js';

export interface RunningHub {
  url: string;
  port: number;
  storage: HubStorage;
  /** stops accepting, lets in-flight requests finish, then closes storage */
  close(): Promise<void>;
}

/** Starts the hub on 127.0.0.1 (or `host`) with embedded storage in `dataDir`. Port 0 picks a free port. */
export async function startHub(options: { dataDir: string; port?: number; host?: string; baseUrl?: string; limits?: Partial<RegistryLimits> }): Promise<RunningHub> {
  const storage = openEmbeddedStorage(options.dataDir);
  const host = options.host ?? '127.0.0.1';
  const app = createHubApp({ storage, baseUrl: options.baseUrl, limits: options.limits });
  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, port: options.port ?? 0, hostname: host }, () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host}:${port}`;
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    storage,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.();
      }).then(() => storage.close());
      return closing;
    },
  };
}
