import type { LatestSummary, ReleaseRecord, SkitRecord } from '../storage/ports.js';
import { releaseUrls, wellKnownIndex } from './urls.js';

/**
 * JSON shapes of the registry API (documented in docs/hub-registry.md). `origin` makes URLs
 * absolute for API clients: the configured base URL, else the request's origin.
 */

const flags = (r: Pick<SkitRecord, 'deprecated' | 'quarantined'>) => ({
  deprecated: r.deprecated ? { message: r.deprecated.message, replacement: r.deprecated.replacement ?? null, at: r.deprecated.at } : null,
  quarantined: r.quarantined ? { reason: r.quarantined.reason, replacement: r.quarantined.replacement ?? null, at: r.quarantined.at } : null,
});

/** `latest`: the latest release, or just what the store keeps of it (version and skills) */
export function skitSummary(origin: string, skit: SkitRecord, latest: LatestSummary | undefined) {
  return {
    id: skit.id,
    owner: skit.owner,
    name: skit.name,
    visibility: skit.visibility,
    description: skit.description,
    tags: skit.tags,
    createdAt: skit.createdAt,
    latestVersion: latest?.version ?? null,
    skills: latest ? latest.skills.map((s) => s.name) : [],
    ...flags(skit),
    url: releaseUrls.api(origin, skit.id),
    wellKnownIndex: wellKnownIndex(releaseUrls.skit(origin, skit.id)),
  };
}

export function releaseSummary(origin: string, r: ReleaseRecord) {
  return {
    version: r.version,
    bundleHash: r.bundleHash,
    publishedAt: r.publishedAt,
    publishedBy: r.publishedBy,
    ...flags(r),
    archiveUrl: releaseUrls.archive(origin, r.skitId, r.version),
  };
}

export function releaseView(origin: string, r: ReleaseRecord, options: { withFiles?: boolean } = {}) {
  return {
    skitId: r.skitId,
    version: r.version,
    bundleHash: r.bundleHash,
    publishedAt: r.publishedAt,
    publishedBy: r.publishedBy,
    ...flags(r),
    url: releaseUrls.release(origin, r.skitId, r.version),
    wellKnownIndex: wellKnownIndex(releaseUrls.release(origin, r.skitId, r.version)),
    archive: { url: releaseUrls.archive(origin, r.skitId, r.version), sha256: r.archiveSha256, size: r.archiveSize },
    skills: r.skills.map((s) => ({
      name: s.name,
      id: s.id,
      path: s.path,
      hash: s.hash,
      defaultEnabled: s.defaultEnabled,
      description: s.description,
      skillMdUrl: releaseUrls.skillFile(origin, r.skitId, r.version, s.name, 'SKILL.md'),
      archive: { url: releaseUrls.skillArchive(origin, r.skitId, r.version, s.name), sha256: s.archiveSha256, size: s.archiveSize },
      ...(options.withFiles ? { files: s.files } : {}),
    })),
    ...(options.withFiles ? { files: r.files } : {}),
  };
}
