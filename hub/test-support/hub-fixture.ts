import { createHubApp } from '../app.js';
import { issueToken } from '../auth/tokens.js';
import { openEmbeddedStorage } from '../storage/embedded/lmdb-store.js';
import type { HubStorage, Scope } from '../storage/ports.js';
import { tempDir } from '../../test-support/index.js';

export interface HubFixture {
  storage: HubStorage;
  app: ReturnType<typeof createHubApp>;
  /** creates a user and a PAT (or device credential) and returns the bearer header */
  user(login: string, scopes?: Scope[], options?: { admin?: boolean; kind?: 'pat' | 'device' }): { id: string; auth: Record<string, string>; secret: string };
  cleanup(): Promise<void>;
}

/** An in-process hub over real embedded storage in a temp dir (tests call `app.request()`). */
export async function hubFixture(): Promise<HubFixture> {
  const dir = await tempDir('sf-hub-');
  const storage = openEmbeddedStorage(dir.path);
  const app = createHubApp({ storage });
  const users = new Map<string, string>();
  return {
    storage,
    app,
    user(login, scopes = ['registry:read', 'registry:write'], options = {}) {
      let id = users.get(login);
      if (!id) {
        id = storage.accounts.createUser(login, options.admin ?? false).id;
        users.set(login, id);
      }
      const { secret } = issueToken(storage.tokens, { userId: id, kind: options.kind ?? 'pat', name: 't', scopes });
      return { id, secret, auth: { authorization: `Bearer ${secret}` } };
    },
    async cleanup() {
      await storage.close();
      await dir.cleanup();
    },
  };
}
