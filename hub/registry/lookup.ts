import type { Context } from 'hono';
import { SfError } from '../../core/errors/index.js';
import { canManageSkit, canViewSkit } from '../auth/access.js';
import { canReadRegistry, type HubEnv, type Principal } from '../auth/principal.js';
import type { HubStorage, ReleaseRecord, SkitRecord } from '../storage/ports.js';
import { skitIdOf } from './names.js';

/**
 * The one "no such SKIT" error. Its message names only what was asked for, so a private SKIT the
 * caller cannot see is answered exactly like one that does not exist (same status, same body).
 */
export function skitNotFound(owner: string, name: string): SfError {
  return new SfError('SF_E_NOT_FOUND', `SKIT ${owner}/${name} not found`, {
    hint: 'check the owner and name; private SKITs need a token of a member',
  });
}

/** The caller, after checking that its credential may read the registry at all. */
export function reader(c: Context<HubEnv>): Principal {
  const p = c.get('principal');
  if (!canReadRegistry(p)) {
    throw new SfError('SF_E_FORBIDDEN', p.token?.kind === 'device' ? 'a device credential cannot read the registry' : 'the credential lacks the registry:read scope', {
      hint: 'use a personal access token with registry:read',
    });
  }
  return p;
}

/** The SKIT `owner/name` if it exists and the caller may see it; otherwise the uniform 404. */
export function visibleSkit(storage: HubStorage, p: Principal, owner: string, name: string): SkitRecord {
  const id = skitIdOf(owner, name);
  const skit = id ? storage.registry.getSkit(id) : undefined;
  if (!skit || !canViewSkit(storage.accounts, p, skit)) throw skitNotFound(owner, name);
  return skit;
}

/** The newest release that is not quarantined (stable releases preferred), if any. */
export function latestRelease(storage: HubStorage, skitId: string): ReleaseRecord | undefined {
  return storage.registry.latestRelease(skitId);
}

/** A release of a visible SKIT; `latest` names the newest installable one. */
export function visibleRelease(storage: HubStorage, skit: SkitRecord, version: string): ReleaseRecord {
  const release = version === 'latest' ? latestRelease(storage, skit.id) : storage.registry.getRelease(skit.id, version);
  if (!release) {
    throw new SfError('SF_E_NOT_FOUND', version === 'latest' ? `${skit.id} has no installable release` : `release ${version} of ${skit.id} not found`, {
      hint: `list the releases with GET /api/v1/skits/${skit.id}/releases`,
    });
  }
  return release;
}

/** How a download of a release's bytes may be cached (send-blob.ts), the same on every route that serves them. */
export interface DownloadAccess {
  /** only the requesting client may keep it: a private SKIT, or a quarantine */
  isPrivate: boolean;
  /** no cache may keep it at all: a quarantined SKIT or release reaches only its managers now */
  noStore: boolean;
  lastModified: string;
}

export function downloadAccess(skit: SkitRecord, release: ReleaseRecord): DownloadAccess {
  const quarantined = Boolean(skit.quarantined ?? release.quarantined);
  return { isPrivate: skit.visibility === 'private' || quarantined, noStore: quarantined, lastModified: release.publishedAt };
}

/**
 * Refuses downloads of a quarantined SKIT or release to everyone but its managers (who need to
 * inspect it). The error carries the replacement guidance.
 */
export function assertDownloadable(storage: HubStorage, p: Principal, skit: SkitRecord, release: ReleaseRecord): void {
  const q = skit.quarantined ?? release.quarantined;
  if (!q || canManageSkit(storage.accounts, p, skit.owner)) return;
  throw new SfError('SF_E_QUARANTINED', `${skit.id}@${release.version} is quarantined: ${q.reason}`, {
    hint: q.replacement ? `use ${q.replacement} instead` : 'pick another SKIT or release',
    data: { reason: q.reason, ...(q.replacement ? { replacement: q.replacement } : {}) },
  });
}
