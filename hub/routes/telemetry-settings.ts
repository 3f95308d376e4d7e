import { randomUUID } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { SfError } from '../../core/errors/index.js';
import { requireFullPat, type HubEnv } from '../auth/principal.js';
import { RETENTION_DAYS } from '../ingest/limits.js';
import { accountFor, isAdminPat } from '../query/access.js';
import { releaseBlobs } from '../registry/release-blobs.js';
import type { UserRecord } from '../storage/ports.js';
import type { RepositoryLink, TelemetryAccountSettings } from '../storage/telemetry-ports.js';
import type { TelemetryService } from '../telemetry/service.js';
import { privateResponses } from './private-responses.js';
import { readJson } from './read-json.js';

const FINGERPRINT = /^[A-Za-z0-9_:.-]{8,128}$/;

/** The :id of a repository route; anything that is not a repository id cannot exist. */
function repoParam(c: Context): string {
  const id = c.req.param('id') ?? '';
  if (!/^repo_[A-Za-z0-9]{1,64}$/.test(id)) throw new SfError('SF_E_NOT_FOUND', `no repository ${JSON.stringify(id.slice(0, 40))}`, {
    hint: 'use a repo_... id from GET /api/v1/telemetry/accounts/<login>/repositories',
  });
  return id;
}
const NAME = /^[\x20-\x7e]{1,200}$/;

function settingsView(s: TelemetryAccountSettings) {
  return { ...s, retentionDays: RETENTION_DAYS[s.retentionTier] };
}

function parseFingerprints(v: unknown): string[] {
  if (!Array.isArray(v) || v.length > 100 || !v.every((x) => typeof x === 'string' && FINGERPRINT.test(x))) {
    throw new SfError('SF_E_USAGE', 'fingerprints must be a list of up to 100 repository/worktree fingerprints', { hint: 'use the values `sf observe link` prints (8-128 characters of [A-Za-z0-9_:.-])' });
  }
  return [...new Set(v as string[])].sort();
}

function parseName(v: unknown): string {
  if (typeof v !== 'string' || !NAME.test(v)) throw new SfError('SF_E_USAGE', 'name must be 1-200 printable characters', { hint: 'send a name of printable ASCII, e.g. "acme/app"' });
  return v;
}

/**
 * Admin maintenance: an anonymous caller is told to authenticate (401 with the Bearer challenge,
 * as on every other route), any other caller without an admin PAT is refused (403).
 */
function requireAdminPat(c: Context<HubEnv>, action: string): void {
  const p = c.get('principal');
  const hint = 'use a personal access token of a hub admin with the admin scope';
  if (!p.user || !p.token) throw new SfError('SF_E_AUTH', `${action} needs an admin token`, { hint: `send Authorization: Bearer <token>; ${hint}` });
  if (!isAdminPat(c)) throw new SfError('SF_E_FORBIDDEN', `${action} needs an admin token`, { hint, data: { scope: 'admin' } });
}

/** The account a settings or repository-link write names, when the caller may change it (an unrestricted or admin PAT). */
function managedAccount(c: Context<HubEnv>, action: string): UserRecord {
  const user = accountFor(c, c.req.param('login') ?? '');
  requireFullPat(c, action);
  return user;
}

/**
 * Telemetry account settings: content-collection opt-in, retention tier (admins only: it is a
 * billing fact), linked repositories (the only repositories a device's hints can resolve to), and
 * admin maintenance (rebuild, retention sweep). Any PAT of the account reads them; changing them
 * needs an unrestricted PAT of the account or an admin token.
 */
export function telemetrySettingsRoutes(telemetry: TelemetryService): Hono<HubEnv> {
  const app = new Hono<HubEnv>();
  app.use('/api/v1/telemetry/accounts/*', privateResponses);
  // the maintenance answers (generation, counts) are the hub's own state: not for any cache either
  app.use('/api/v1/telemetry/admin/*', privateResponses);
  const current = (c: Context<HubEnv>, accountId: string): TelemetryAccountSettings =>
    c.get('storage').telemetry.settings.get(accountId) ?? { accountId, contentCollection: false, retentionTier: 'free', updatedAt: new Date(telemetry.now()).toISOString() };

  app.get('/api/v1/telemetry/accounts/:login/settings', (c) => {
    const user = accountFor(c, c.req.param('login'));
    return c.json(settingsView(current(c, user.id)));
  });

  app.put('/api/v1/telemetry/accounts/:login/settings', async (c) => {
    const user = managedAccount(c, 'change telemetry settings');
    const body = await readJson<{ contentCollection?: unknown; retentionTier?: unknown }>(c, ['contentCollection', 'retentionTier']);
    const next = { ...current(c, user.id), updatedAt: new Date(telemetry.now()).toISOString() };
    if (body.contentCollection !== undefined) {
      if (typeof body.contentCollection !== 'boolean') throw new SfError('SF_E_USAGE', 'contentCollection must be true or false', { hint: 'send a JSON boolean, e.g. {"contentCollection": true}' });
      next.contentCollection = body.contentCollection;
    }
    if (body.retentionTier !== undefined) {
      if (body.retentionTier !== 'free' && body.retentionTier !== 'paid') throw new SfError('SF_E_USAGE', 'retentionTier must be "free" or "paid"', { hint: 'e.g. {"retentionTier": "paid"}' });
      if (!isAdminPat(c)) throw new SfError('SF_E_FORBIDDEN', 'only a hub admin can change the retention tier', { hint: 'leave out retentionTier, or ask a hub admin to change it' });
      next.retentionTier = body.retentionTier;
    }
    c.get('storage').telemetry.settings.put(next);
    return c.json(settingsView(next));
  });

  app.get('/api/v1/telemetry/accounts/:login/repositories', (c) => {
    const user = accountFor(c, c.req.param('login'));
    return c.json({ repositories: c.get('storage').telemetry.repositories.list(user.id) });
  });

  app.post('/api/v1/telemetry/accounts/:login/repositories', async (c) => {
    const user = managedAccount(c, 'link repositories');
    const body = await readJson<{ name?: unknown; fingerprints?: unknown }>(c, ['name', 'fingerprints']);
    const link: RepositoryLink = {
      id: `repo_${randomUUID().replace(/-/g, '')}`,
      accountId: user.id,
      name: parseName(body.name),
      fingerprints: parseFingerprints(body.fingerprints ?? []),
      createdAt: new Date(telemetry.now()).toISOString(),
    };
    c.get('storage').telemetry.repositories.put(link);
    return c.json(link, 201);
  });

  app.put('/api/v1/telemetry/accounts/:login/repositories/:id', async (c) => {
    const user = managedAccount(c, 'change repository links');
    const prev = c.get('storage').telemetry.repositories.get(user.id, repoParam(c));
    if (!prev) {
      throw new SfError('SF_E_NOT_FOUND', `no repository ${repoParam(c)} linked to ${user.login}`, {
        hint: `list linked repositories with GET /api/v1/telemetry/accounts/${user.login}/repositories`,
      });
    }
    const body = await readJson<{ name?: unknown; fingerprints?: unknown }>(c, ['name', 'fingerprints']);
    const next: RepositoryLink = {
      ...prev,
      ...(body.name !== undefined ? { name: parseName(body.name) } : {}),
      ...(body.fingerprints !== undefined ? { fingerprints: parseFingerprints(body.fingerprints) } : {}),
    };
    c.get('storage').telemetry.repositories.put(next);
    return c.json(next);
  });

  app.delete('/api/v1/telemetry/accounts/:login/repositories/:id', (c) => {
    const user = managedAccount(c, 'unlink repositories');
    if (!c.get('storage').telemetry.repositories.remove(user.id, repoParam(c))) {
      throw new SfError('SF_E_NOT_FOUND', `no repository ${repoParam(c)} linked to ${user.login}`, {
        hint: `list linked repositories with GET /api/v1/telemetry/accounts/${user.login}/repositories`,
      });
    }
    return c.body(null, 204);
  });

  app.post('/api/v1/telemetry/admin/rebuild', async (c) => {
    requireAdminPat(c, 'rebuilding projections');
    return c.json(await telemetry.rebuild());
  });

  app.post('/api/v1/telemetry/admin/sweep', async (c) => {
    requireAdminPat(c, 'sweeping raw batches and orphaned blobs');
    const raw = await telemetry.sweep();
    // the registry's blob directory has orphans of its own: publishes a crash cut short
    return c.json({ ...raw, registry: await releaseBlobs(c.get('storage')).sweep() });
  });
  return app;
}
