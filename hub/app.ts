import { Hono } from 'hono';
import { authenticate, type HubEnv } from './auth/principal.js';
import { onHubError } from './errors.js';
import { accountRoutes } from './routes/accounts.js';
import { healthRoutes } from './routes/health.js';
import type { HubStorage } from './storage/ports.js';

export interface HubOptions {
  storage: HubStorage;
  /** public base URL used in absolute links (well-known index, release URLs); default: from the request */
  baseUrl?: string;
}

/**
 * The hub as a Hono app: storage comes in through ports, so tests can call `app.request()`
 * in-process and `sf hub serve` wraps it in @hono/node-server.
 */
export function createHubApp(options: HubOptions): Hono<HubEnv> {
  const app = new Hono<HubEnv>();
  app.onError(onHubError);
  app.route('/', healthRoutes);
  app.use('*', authenticate(options.storage));
  app.route('/', accountRoutes);
  app.notFound((c) => c.json({ error: { code: 'SF_E_NOT_FOUND', message: `no route for ${c.req.method} ${c.req.path}` } }, 404));
  return app;
}
