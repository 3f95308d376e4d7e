import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createHubApp } from '../app.js';
import { FULL_SCOPES } from '../auth/principal.js';
import { issueToken } from '../auth/tokens.js';
import { deviceIdOf } from '../ingest/identity.js';
import { openEmbeddedStorage } from '../storage/embedded/lmdb-store.js';
import type { HubStorage, Scope } from '../storage/ports.js';
import { TelemetryService, type TelemetryConfig } from '../telemetry/service.js';
import { tempDir } from '../../test-support/index.js';

export interface TelemetryUser {
  id: string;
  login: string;
  /** Authorization header of a personal access token (reads) */
  pat: Record<string, string>;
  /** Authorization header of an unrestricted personal access token (settings and repository links; an admin's is its admin PAT) */
  manage: Record<string, string>;
  /** Authorization header of a device credential (telemetry:write only) */
  device: Record<string, string>;
  /** the pseudonymous device id of that credential (activations are identified per device) */
  deviceId: string;
}

export interface PostOptions {
  auth: Record<string, string>;
  encoding?: 'json' | 'protobuf';
  gzip?: boolean;
  headers?: Record<string, string>;
}

export interface TelemetryFixture {
  storage: HubStorage;
  telemetry: TelemetryService;
  app: ReturnType<typeof createHubApp>;
  dataDir: string;
  /** a user with a PAT and a device credential; `admin` users get an admin PAT */
  user(login: string, options?: { admin?: boolean; scopes?: Scope[] }): TelemetryUser;
  /** POSTs an OTLP body (an object is sent as OTLP/JSON) to /v1/<signal> */
  post(signal: 'logs' | 'traces' | 'metrics', body: Uint8Array | object, options: PostOptions): Promise<Response>;
  /** links a repository to the user's account and returns its id */
  linkRepository(user: TelemetryUser, name: string, fingerprints: string[]): Promise<string>;
  getJson<T = unknown>(path: string, auth: Record<string, string>): Promise<T>;
  cleanup(): Promise<void>;
}

/**
 * An in-process hub over real embedded storage with a telemetry service that normalizes only
 * when asked (`telemetry.drain()`), so tests see deterministic projections. With
 * `normalizerThread`, it normalizes in the background in a worker thread, as `sf hub serve` does
 * (`normalizerThread: 'unavailable'` gives it a data directory the thread cannot open).
 */
export async function telemetryFixture(
  config: TelemetryConfig = {},
  options: { normalizerThread?: true | 'unavailable'; /** runs on the empty data directory before the hub opens it */ beforeOpen?: (dataDir: string) => Promise<void> } = {},
): Promise<TelemetryFixture> {
  const dir = await tempDir('sf-hub-telemetry-');
  await options.beforeOpen?.(dir.path);
  const storage = openEmbeddedStorage(dir.path);
  const thread = options.normalizerThread;
  const threadConfig: TelemetryConfig = thread ? { autoNormalize: true, normalizerThread: { dataDir: thread === true ? dir.path : join(dir.path, 'hub.lmdb', 'data.mdb') } } : {};
  const telemetry = new TelemetryService(storage, { autoNormalize: false, ...config, ...threadConfig });
  await telemetry.start();
  const app = createHubApp({ storage, telemetry });
  const fixture: TelemetryFixture = {
    storage,
    telemetry,
    app,
    dataDir: dir.path,
    user(login, options = {}) {
      const owner = storage.accounts.findOwner(login);
      const id = owner?.id ?? storage.accounts.createUser(login, options.admin ?? false).id;
      const patScopes: Scope[] = options.scopes ?? (options.admin ? ['admin', 'registry:read'] : ['registry:read']);
      const pat = issueToken(storage.tokens, { userId: id, kind: 'pat', name: 'pat', scopes: patScopes }).secret;
      const manage = options.admin ? pat : issueToken(storage.tokens, { userId: id, kind: 'pat', name: 'manage', scopes: [...FULL_SCOPES] }).secret;
      const device = issueToken(storage.tokens, { userId: id, kind: 'device', name: 'device', scopes: ['telemetry:write'] });
      return { id, login, pat: { authorization: `Bearer ${pat}` }, manage: { authorization: `Bearer ${manage}` }, device: { authorization: `Bearer ${device.secret}` }, deviceId: deviceIdOf(storage.tokens, device.record) };
    },
    async post(signal, body, options) {
      const encoding = options.encoding ?? (body instanceof Uint8Array ? 'protobuf' : 'json');
      let bytes: Uint8Array = body instanceof Uint8Array ? body : Buffer.from(JSON.stringify(body));
      const headers: Record<string, string> = { 'content-type': encoding === 'json' ? 'application/json' : 'application/x-protobuf', ...options.auth };
      if (options.gzip) {
        bytes = gzipSync(bytes);
        headers['content-encoding'] = 'gzip';
      }
      return app.request(`/v1/${signal}`, { method: 'POST', body: bytes as BodyInit, headers: { ...headers, ...options.headers } });
    },
    async linkRepository(user, name, fingerprints) {
      const res = await app.request(`/api/v1/telemetry/accounts/${user.login}/repositories`, {
        method: 'POST',
        body: JSON.stringify({ name, fingerprints }),
        headers: { 'content-type': 'application/json', ...user.manage },
      });
      if (res.status !== 201) throw new Error(`linking ${name} failed: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { id: string }).id;
    },
    async getJson(path, auth) {
      const res = await app.request(path, { headers: auth });
      if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as never;
    },
    async cleanup() {
      await telemetry.stop();
      await storage.close();
      await dir.cleanup();
    },
  };
  return fixture;
}
