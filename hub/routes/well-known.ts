import { createHash } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { SfError } from '../../core/errors/index.js';
import type { HubEnv } from '../auth/principal.js';
import type { HubStorage, RegistryStore } from '../storage/ports.js';
import { etagMatches, revalidateCacheControl, strongEtag } from '../registry/http-cache.js';
import { assertDownloadable, latestRelease, reader, visibleSkit } from '../registry/lookup.js';
import { isVersion } from '../registry/names.js';
import { hubIndex, releaseIndex, type WellKnownIndex } from '../registry/well-known.js';

const INDEX = '.well-known/agent-skills/index.json';

interface IndexBody {
  body: string;
  etag: string;
}

function indexBody(index: WellKnownIndex): IndexBody {
  const body = JSON.stringify(index);
  return { body, etag: strongEtag(`sha256:${createHash('sha256').update(body).digest('hex')}`) };
}

/** Sends an index with an ETag over its bytes, so update checks can revalidate cheaply. */
function sendIndex(c: Context<HubEnv>, { body, etag }: IndexBody, isPrivate: boolean): Response {
  const headers: Record<string, string> = { etag, 'cache-control': revalidateCacheControl(isPrivate), ...(isPrivate ? { vary: 'authorization' } : {}) };
  if (etagMatches(c.req.header('if-none-match'), etag)) return c.body(null, 304, headers);
  return c.body(body, 200, { ...headers, 'content-type': 'application/json' });
}

/** The hub-wide index of each store, kept until the registry's generation (any write) or the base URL changes. */
const hubIndexes = new WeakMap<RegistryStore, IndexBody & { generation: number; base: string }>();

/** The hub-wide index over every public, non-quarantined SKIT's latest release; built once per registry change. */
function cachedHubIndex(storage: HubStorage, base: string): IndexBody {
  const generation = storage.registry.generation();
  const cached = hubIndexes.get(storage.registry);
  if (cached && cached.generation === generation && cached.base === base) return cached;
  const listed = storage.registry
    .listSkits()
    .filter((s) => s.visibility === 'public' && !s.quarantined)
    .flatMap((skit) => {
      const release = latestRelease(storage, skit.id);
      return release ? [{ skit, release }] : [];
    });
  const built = { ...indexBody(hubIndex(base, listed)), generation, base };
  hubIndexes.set(storage.registry, built);
  return built;
}

/**
 * Agent Skills well-known discovery indexes (v0.2.0, see hub/registry/well-known.ts):
 * - `/.well-known/agent-skills/index.json`: every public SKIT's latest release (name collisions:
 *   the earliest SKIT keeps the name);
 * - `/s/:owner/:name/.well-known/agent-skills/index.json`: one SKIT's latest release, so
 *   `skills add <hub>/s/owner/name` installs it and `skills update` follows new releases;
 * - `/r/:owner/:name/:version/.well-known/agent-skills/index.json`: one immutable release, so
 *   `skills add <hub>/r/owner/name/<version>` installs exactly that release.
 */
export const wellKnownRoutes = new Hono<HubEnv>()
  .get(`/${INDEX}`, (c) => {
    reader(c);
    return sendIndex(c, cachedHubIndex(c.get('storage'), c.get('registry').baseUrl), false);
  })
  .get(`/s/:owner/:name/${INDEX}`, (c) => {
    const storage = c.get('storage');
    const p = reader(c);
    const skit = visibleSkit(storage, p, c.req.param('owner'), c.req.param('name'));
    const release = latestRelease(storage, skit.id);
    if (!release) throw new SfError('SF_E_NOT_FOUND', `${skit.id} has no installable release`, { hint: 'publish a release first' });
    assertDownloadable(storage, p, skit, release);
    return sendIndex(c, indexBody(releaseIndex(c.get('registry').baseUrl, release)), skit.visibility === 'private');
  })
  .get(`/r/:owner/:name/:version/${INDEX}`, (c) => {
    const storage = c.get('storage');
    const p = reader(c);
    const skit = visibleSkit(storage, p, c.req.param('owner'), c.req.param('name'));
    const version = c.req.param('version');
    const release = isVersion(version) ? storage.registry.getRelease(skit.id, version) : undefined;
    if (!release) throw new SfError('SF_E_NOT_FOUND', `release ${version} of ${skit.id} not found`, { hint: `list the releases with GET /api/v1/skits/${skit.id}/releases` });
    assertDownloadable(storage, p, skit, release);
    return sendIndex(c, indexBody(releaseIndex(c.get('registry').baseUrl, release)), skit.visibility === 'private');
  });
