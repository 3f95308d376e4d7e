import { createHubApp } from '../app.js';
import { issueToken } from '../auth/tokens.js';
import type { RegistryLimits } from '../limits.js';
import { openEmbeddedStorage } from '../storage/embedded/lmdb-store.js';
import type { HubStorage, Scope } from '../storage/ports.js';
import { tempDir } from '../../test-support/index.js';

export interface HubFixture {
  storage: HubStorage;
  app: ReturnType<typeof createHubApp>;
  /** the data directory (hub.lmdb and blobs/) */
  dataDir: string;
  /** creates a user and a PAT (or device credential) and returns the bearer header */
  user(login: string, scopes?: Scope[], options?: { admin?: boolean; kind?: 'pat' | 'device' }): { id: string; auth: Record<string, string>; secret: string };
  /** PUT an archive as release `version` of `id` (query: visibility, tags, description) */
  publish(auth: Record<string, string>, id: string, version: string, archive: Uint8Array, query?: Record<string, string>, headers?: Record<string, string>): Promise<Response>;
  cleanup(): Promise<void>;
}

/** An in-process hub over real embedded storage in a temp dir (tests call `app.request()`). */
export async function hubFixture(options: { limits?: Partial<RegistryLimits> } = {}): Promise<HubFixture> {
  const dir = await tempDir('sf-hub-');
  const storage = openEmbeddedStorage(dir.path);
  const app = createHubApp({ storage, limits: options.limits });
  const users = new Map<string, string>();
  return {
    storage,
    app,
    dataDir: dir.path,
    user(login, scopes = ['registry:read', 'registry:write'], options = {}) {
      let id = users.get(login);
      if (!id) {
        id = storage.accounts.createUser(login, options.admin ?? false).id;
        users.set(login, id);
      }
      const { secret } = issueToken(storage.tokens, { userId: id, kind: options.kind ?? 'pat', name: 't', scopes });
      return { id, secret, auth: { authorization: `Bearer ${secret}` } };
    },
    async publish(auth, id, version, archive, query = {}, headers = {}) {
      const qs = new URLSearchParams(query).toString();
      return app.request(`/api/v1/skits/${id}/releases/${version}${qs ? `?${qs}` : ''}`, {
        method: 'PUT',
        body: archive as unknown as BodyInit,
        headers: { 'content-type': 'application/gzip', ...auth, ...headers },
      });
    },
    async cleanup() {
      await storage.close();
      await dir.cleanup();
    },
  };
}
