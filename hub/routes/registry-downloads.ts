import { Hono, type Context } from 'hono';
import { SfError } from '../../core/errors/index.js';
import type { HubEnv } from '../auth/principal.js';
import { contentTypeOf } from '../registry/http-cache.js';
import { assertDownloadable, downloadAccess, reader, visibleSkit } from '../registry/lookup.js';
import { isVersion, versionOfArchiveName } from '../registry/names.js';
import type { ReleaseRecord, SkitRecord } from '../storage/ports.js';
import { restSegments } from './registry-context.js';
import { sendBlob, type BlobResponse } from './send-blob.js';

const GZIP = 'application/gzip';

/**
 * The visible, downloadable release `version` of `owner/name`. Versioned URLs take exact
 * versions only (never `latest`), so what they serve can be cached forever.
 */
function downloadable(c: Context<HubEnv>, owner: string, name: string, version: string | undefined): { skit: SkitRecord; release: ReleaseRecord; access: Pick<BlobResponse, 'isPrivate' | 'noStore' | 'lastModified'> } {
  const storage = c.get('storage');
  const p = reader(c);
  const skit = visibleSkit(storage, p, owner, name);
  const release = version !== undefined && isVersion(version) ? storage.registry.getRelease(skit.id, version) : undefined;
  if (!release) {
    throw new SfError('SF_E_NOT_FOUND', `release ${version ?? ''} of ${skit.id} not found`, { hint: `list the releases with GET /api/v1/skits/${skit.id}/releases` });
  }
  assertDownloadable(storage, p, skit, release);
  return { skit, release, access: downloadAccess(skit, release) };
}

/**
 * Immutable release downloads:
 * - `/r/:owner/:name/:version.tgz` and `/r/:owner/:name/:version`: the deterministic release
 *   archive, strong ETag = the bundle hash;
 * - `/r/:owner/:name/:version/skills/:skill.tgz`: one skill's archive, SKILL.md at its root;
 * - `/r/:owner/:name/:version/skills/:skill/<path>`: one file of a skill projection (SKILL.md).
 */
export const registryDownloadRoutes = new Hono<HubEnv>()
  .get('/r/:owner/:name/:file', (c) => {
    const file = c.req.param('file');
    const version = versionOfArchiveName(file) ?? file;
    const { skit, release, access } = downloadable(c, c.req.param('owner'), c.req.param('name'), version);
    return sendBlob(c, {
      ...access,
      sha256: release.archiveSha256,
      tag: release.bundleHash,
      contentType: GZIP,
      filename: `${skit.name}-${release.version}.tgz`,
    });
  })
  .get('/r/:owner/:name/:version/skills/:file', (c) => {
    const { skit, release, access } = downloadable(c, c.req.param('owner'), c.req.param('name'), c.req.param('version'));
    const file = c.req.param('file');
    const skill = file.endsWith('.tgz') ? release.skills.find((s) => `${s.name}.tgz` === file) : undefined;
    if (!skill) throw new SfError('SF_E_NOT_FOUND', `${skit.id}@${release.version} has no skill archive ${file}`, { hint: 'skill archives are named <skill>.tgz' });
    return sendBlob(c, {
      ...access,
      sha256: skill.archiveSha256,
      tag: `sha256:${skill.archiveSha256}`,
      contentType: GZIP,
      filename: `${skill.name}.tgz`,
    });
  })
  .get('/r/:owner/:name/:version/skills/:skill/*', (c) => {
    const { skit, release, access } = downloadable(c, c.req.param('owner'), c.req.param('name'), c.req.param('version'));
    const skill = release.skills.find((s) => s.name === c.req.param('skill'));
    // segments: r owner name version skills skill <path...>
    const path = restSegments(c, 6)?.join('/').normalize('NFC');
    const file = skill && path !== undefined ? skill.files.find((f) => f.path === path) : undefined;
    if (!skill || !file) throw new SfError('SF_E_NOT_FOUND', `${skit.id}@${release.version} has no such skill file`, { hint: 'see the skills and their files in the release detail' });
    return sendBlob(c, {
      ...access,
      sha256: file.sha256,
      tag: `sha256:${file.sha256}`,
      contentType: contentTypeOf(file.path),
      headers: { 'content-security-policy': "default-src 'none'; sandbox" },
    });
  });
