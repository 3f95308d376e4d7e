import { Hono } from 'hono';
import { authenticate, type HubEnv } from './auth/principal.js';
import { MAX_URL_BYTES } from '../core/runtime/connection-limits.js';
import { SfError } from '../core/errors/index.js';
import { onHubError } from './errors.js';
import { resolveRegistryLimits, type RegistryLimits } from './limits.js';
import { BlobCache } from './registry/blob-cache.js';
import { accountRoutes } from './routes/accounts.js';
import { healthRoutes } from './routes/health.js';
import { registryDownloadRoutes } from './routes/registry-downloads.js';
import { registryManageRoutes } from './routes/registry-manage.js';
import { registryPublishRoutes } from './routes/registry-publish.js';
import { registryReadRoutes } from './routes/registry-read.js';
import { wellKnownRoutes } from './routes/well-known.js';
import { otlpRoutes } from './routes/otlp.js';
import { telemetryQueryRoutes } from './routes/query-telemetry.js';
import { telemetrySettingsRoutes } from './routes/telemetry-settings.js';
import { TelemetryService, type TelemetryConfig } from './telemetry/service.js';
import type { HubStorage } from './storage/ports.js';

export interface HubOptions {
  storage: HubStorage;
  /** public base URL used in absolute links (well-known index, release URLs); default: from the request */
  baseUrl?: string;
  /** registry quota overrides (hub/limits.ts) */
  limits?: Partial<RegistryLimits>;
  /** the telemetry service (OTLP ingest, normalization, queries), or its settings; default: built from `storage` */
  telemetry?: TelemetryService | TelemetryConfig;
}

const READ_ONLY_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The hub as a Hono app: storage comes in through ports, so tests can call `app.request()`
 * in-process and `sf hub serve` wraps it in @hono/node-server.
 */
export function createHubApp(options: HubOptions): Hono<HubEnv> {
  const app = new Hono<HubEnv>();
  const blobs = new BlobCache(options.storage.blobs);
  const registry = {
    limits: resolveRegistryLimits(options.limits),
    baseUrl: (options.baseUrl ?? '').replace(/\/+$/, ''),
    readBlob: (sha256: string) => blobs.get(sha256),
  };
  app.onError(onHubError);
  // a refused request may leave its body unread (a 413 is answered as soon as the size is known):
  // closing the connection stops the client sending the rest, which the server would read and discard
  app.use('*', async (c, next) => {
    await next();
    const hasBody = Number(c.req.header('content-length') ?? 0) > 0 || c.req.header('transfer-encoding') !== undefined;
    if (hasBody && c.res.status >= 400) c.res.headers.set('connection', 'close');
    // HEAD answers with the GET's headers (RFC 9110 §9.3.2), Content-Length included: JSON bodies
    // get theirs only when written, and a HEAD response is never written
    if (c.req.method === 'HEAD' && c.res.body && !c.res.headers.has('content-length')) {
      c.res.headers.set('content-length', String((await c.res.clone().arrayBuffer()).byteLength));
    }
  });
  // before routing and authentication: the URL is all it looks at
  app.use('*', async (c, next) => {
    // the request target as it came off the wire: the parsed URL has dot segments removed
    refuseLongUrl((c.env as { incoming?: { url?: string } } | undefined)?.incoming?.url ?? c.req.url);
    await next();
  });
  // a write is answered only once it is on disk: an acknowledged OTLP batch, a published release
  // or an issued token must survive a power cut (the embedded store flushes after it commits)
  app.use('*', async (c, next) => {
    await next();
    if (!READ_ONLY_METHODS.has(c.req.method)) await options.storage.durable();
  });
  app.route('/', healthRoutes);
  // OTLP answers with google.rpc.Status bodies of its own, so it authenticates itself, before the JSON funnel
  const telemetry = options.telemetry instanceof TelemetryService ? options.telemetry : new TelemetryService(options.storage, options.telemetry);
  app.route('/', otlpRoutes(telemetry, options.storage));
  app.use('*', async (c, next) => {
    c.set('registry', registry);
    await next();
  });
  app.use('*', authenticate(options.storage));
  app.route('/', accountRoutes);
  app.route('/', registryPublishRoutes);
  app.route('/', registryReadRoutes);
  app.route('/', registryManageRoutes);
  app.route('/', wellKnownRoutes);
  app.route('/', registryDownloadRoutes);
  app.route('/', telemetrySettingsRoutes(telemetry));
  app.route('/', telemetryQueryRoutes(telemetry));
  let routes: { method: string; pattern: RegExp }[] | undefined;
  app.notFound((c) => {
    // RFC 9110 §15.5.6: a resource that exists for other methods is a 405 with Allow, not a 404
    routes ??= app.routes.filter((r) => r.method !== 'ALL').map((r) => ({ method: r.method, pattern: routePattern(r.path) }));
    const allowed = new Set(routes.filter((r) => r.pattern.test(c.req.path)).map((r) => r.method));
    if (allowed.has('GET')) allowed.add('HEAD');
    if (allowed.size > 0 && !allowed.has(c.req.method)) {
      const allow = [...allowed].sort().join(', ');
      c.header('allow', allow);
      return c.json({ error: { code: 'SF_E_USAGE', message: `${c.req.method} is not allowed on ${c.req.path}`, hint: `use ${allow}` } }, 405);
    }
    return c.json({ error: { code: 'SF_E_NOT_FOUND', message: `no route for ${c.req.method} ${c.req.path}` } }, 404);
  });
  return app;
}

/**
 * RFC 9110 §15.5.15: a request target (path + query) past MAX_URL_BYTES is a 414 before any routing
 * or authentication; the hub's own URLs are far shorter. hub/errors.ts maps `data.limit` to the 414.
 */
function refuseLongUrl(url: string): void {
  // origin-form (`/path?q`) as Node hands it over, or an absolute URL (in-process requests)
  const bytes = url.startsWith('/') ? Buffer.byteLength(url) : url.length - url.indexOf('/', url.indexOf('://') + 3);
  if (bytes <= MAX_URL_BYTES) return;
  throw new SfError('SF_E_LIMIT', `the URL's path and query are ${bytes} bytes, over the hub's limit of ${MAX_URL_BYTES}`, {
    hint: 'check the URL: the hub\'s own URLs are far shorter, so a longer one is built wrong',
    data: { limit: 'maxUrlBytes', max: MAX_URL_BYTES },
  });
}

/** A Hono route path (`/r/:owner/:name/*`) as a regular expression over request paths. */
function routePattern(path: string): RegExp {
  const body = path
    .split('/')
    .map((seg) => (seg === '*' ? '.*' : seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${body}/?$`);
}
