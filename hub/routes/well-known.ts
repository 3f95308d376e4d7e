import { createHash } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { SfError } from '../../core/errors/index.js';
import type { HubEnv } from '../auth/principal.js';
import { etagMatches, revalidateCacheControl, strongEtag } from '../registry/http-cache.js';
import { assertDownloadable, latestRelease, reader, visibleSkit } from '../registry/lookup.js';
import { isVersion } from '../registry/names.js';
import { hubIndex, releaseIndex, type WellKnownIndex } from '../registry/well-known.js';

const INDEX = '.well-known/agent-skills/index.json';

/** Sends an index with an ETag over its bytes, so update checks can revalidate cheaply. */
function sendIndex(c: Context<HubEnv>, index: WellKnownIndex, isPrivate: boolean): Response {
  const body = JSON.stringify(index);
  const etag = strongEtag(`sha256:${createHash('sha256').update(body).digest('hex')}`);
  const headers: Record<string, string> = { etag, 'cache-control': revalidateCacheControl(isPrivate), ...(isPrivate ? { vary: 'authorization' } : {}) };
  if (etagMatches(c.req.header('if-none-match'), etag)) return c.body(null, 304, headers);
  return c.body(body, 200, { ...headers, 'content-type': 'application/json' });
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
    const storage = c.get('storage');
    const listed = storage.registry
      .listSkits()
      .filter((s) => s.visibility === 'public' && !s.quarantined)
      .flatMap((skit) => {
        const release = latestRelease(storage, skit.id);
        return release ? [{ skit, release }] : [];
      });
    return sendIndex(c, hubIndex(c.get('registry').baseUrl, listed), false);
  })
  .get(`/s/:owner/:name/${INDEX}`, (c) => {
    const storage = c.get('storage');
    const p = reader(c);
    const skit = visibleSkit(storage, p, c.req.param('owner'), c.req.param('name'));
    const release = latestRelease(storage, skit.id);
    if (!release) throw new SfError('SF_E_NOT_FOUND', `${skit.id} has no installable release`, { hint: 'publish a release first' });
    assertDownloadable(storage, p, skit, release);
    return sendIndex(c, releaseIndex(c.get('registry').baseUrl, release), skit.visibility === 'private');
  })
  .get(`/r/:owner/:name/:version/${INDEX}`, (c) => {
    const storage = c.get('storage');
    const p = reader(c);
    const skit = visibleSkit(storage, p, c.req.param('owner'), c.req.param('name'));
    const version = c.req.param('version');
    const release = isVersion(version) ? storage.registry.getRelease(skit.id, version) : undefined;
    if (!release) throw new SfError('SF_E_NOT_FOUND', `release ${version} of ${skit.id} not found`, { hint: `list the releases with GET /api/v1/skits/${skit.id}/releases` });
    assertDownloadable(storage, p, skit, release);
    return sendIndex(c, releaseIndex(c.get('registry').baseUrl, release), skit.visibility === 'private');
  });
