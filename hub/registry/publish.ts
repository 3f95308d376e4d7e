import { mkdtemp, rm } from 'node:fs/promises';
import { isDeepStrictEqual } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SfError } from '../../core/errors/index.js';
import { canManageSkit, canPublishTo } from '../auth/access.js';
import type { Principal } from '../auth/principal.js';
import type { RegistryLimits } from '../limits.js';
import type { HubStorage, ReleaseRecord, SkitRecord, Visibility } from '../storage/ports.js';
import { buildArtifacts, type ReleaseArtifacts } from './artifacts.js';
import { inspectUpload, type InspectedUpload } from './inspect-upload.js';
import { checkVersion, skitIdOf } from './names.js';
import { releaseBlobs, type BlobStaging } from './release-blobs.js';

export const VISIBILITIES: readonly Visibility[] = ['public', 'unlisted', 'private'];

export interface PublishTarget {
  owner: string;
  name: string;
  version: string;
  /** visibility of a new SKIT (default public); on an existing SKIT a different value needs the owner role */
  visibility?: Visibility;
  description?: string;
  tags?: string[];
}

export interface PublishPlan extends PublishTarget {
  skitId: string;
  existing?: SkitRecord;
  /** the publisher may change the SKIT's settings (owner role, or admin) */
  mayManage: boolean;
}

function limitError(message: string, limit: keyof RegistryLimits, hint: string): SfError {
  return new SfError('SF_E_LIMIT', message, { hint, data: { limit } });
}

/**
 * Everything that can be decided before the upload body is read: names, permission, immutability
 * and the count quota. Called first so an unauthorized or doomed upload is refused without
 * accepting its bytes.
 */
export function planPublish(storage: HubStorage, limits: RegistryLimits, p: Principal, target: PublishTarget): PublishPlan {
  const skitId = skitIdOf(target.owner, target.name);
  if (!skitId) {
    throw new SfError('SF_E_USAGE', `"${target.owner}/${target.name}" is not a valid SKIT id`, {
      hint: 'the owner is a login of 1-39 and the name 1-64 lowercase letters, digits and inner hyphens',
    });
  }
  checkVersion(target.version);
  if (target.visibility !== undefined && !VISIBILITIES.includes(target.visibility)) {
    throw new SfError('SF_E_USAGE', `unknown visibility "${target.visibility}"`, { hint: `use one of ${VISIBILITIES.join(', ')}` });
  }
  // one answer whether the namespace does not exist or is not yours: publishing cannot probe accounts
  if (!storage.accounts.findOwner(target.owner) || !canPublishTo(storage.accounts, p, target.owner)) {
    throw new SfError('SF_E_FORBIDDEN', `you cannot publish to "${target.owner}"`, { hint: 'publish under your own login or an organization you belong to' });
  }
  const mayManage = canManageSkit(storage.accounts, p, target.owner);
  const existing = storage.registry.getSkit(skitId);
  if (existing) {
    if (storage.registry.getRelease(skitId, target.version)) throw immutable(skitId, target.version);
    checkSettings(existing, target, mayManage);
    checkReleaseCount(existing.id, storage.registry.releaseCount(skitId), limits);
  }
  return { ...target, skitId, existing, mayManage };
}

/** Settings a publish asks to change on an existing SKIT need the owner role (as PATCH does). */
function checkSettings(skit: SkitRecord, target: PublishTarget, mayManage: boolean): void {
  if (mayManage) return;
  const changed = [
    target.visibility !== undefined && target.visibility !== skit.visibility ? 'visibility' : undefined,
    target.description !== undefined && target.description !== skit.description ? 'description' : undefined,
    target.tags !== undefined && !isDeepStrictEqual(target.tags, skit.tags) ? 'tags' : undefined,
  ].filter((x) => x !== undefined);
  if (changed.length) {
    throw new SfError('SF_E_FORBIDDEN', `only an owner can change the ${changed.join(', ')} of ${skit.id}`, { hint: `publish without ${changed.map((c) => (c === 'visibility' ? '--visibility' : c)).join(', ')}` });
  }
}

function checkReleaseCount(skitId: string, releases: number, limits: RegistryLimits): void {
  if (releases >= limits.maxReleasesPerSkit) {
    throw limitError(`${skitId} already has ${limits.maxReleasesPerSkit} releases, the most one SKIT may have`, 'maxReleasesPerSkit', 'ask the hub operator to raise maxReleasesPerSkit');
  }
}

function checkOwnerStorage(owner: string, used: number, adding: number, limits: RegistryLimits): void {
  if (used + adding > limits.maxOwnerStorageBytes) {
    throw limitError(`${owner} would store ${used + adding} bytes, over the quota of ${limits.maxOwnerStorageBytes}`, 'maxOwnerStorageBytes', 'ask the hub operator to raise maxOwnerStorageBytes');
  }
}

/**
 * The SKIT record a release joins, decided inside the release's transaction: a new one with the
 * requested settings, or the existing one (perhaps created by a concurrent first publish a moment
 * ago) with the requested changes, which need the owner role. The quotas are checked here too, on
 * the state the release joins.
 */
function skitForRelease(plan: PublishPlan, limits: RegistryLimits, storedBytes: number, now: string) {
  return (current: SkitRecord | undefined, state: { releases: number; ownerBytes: number }): SkitRecord => {
    checkOwnerStorage(plan.owner, state.ownerBytes, storedBytes, limits);
    if (!current) {
      return { id: plan.skitId, owner: plan.owner, name: plan.name, visibility: plan.visibility ?? 'public', description: plan.description ?? '', tags: plan.tags ?? [], createdAt: now };
    }
    checkReleaseCount(current.id, state.releases, limits);
    checkSettings(current, plan, plan.mayManage);
    return {
      ...current,
      ...(plan.visibility !== undefined ? { visibility: plan.visibility } : {}),
      ...(plan.description !== undefined ? { description: plan.description } : {}),
      ...(plan.tags !== undefined ? { tags: plan.tags } : {}),
    };
  };
}

function immutable(skitId: string, version: string): SfError {
  return new SfError('SF_E_IMMUTABLE', `${skitId}@${version} already exists and releases are immutable`, {
    hint: 'publish a new version number',
  });
}

/**
 * Publishes `body` as the release of `plan`: the hub unpacks, validates and hashes the upload
 * itself, compares the bundle hash with the client's `expectedBundle` if one was sent (a mismatch
 * means the bytes changed on the way: SF_E_HASH_MISMATCH), repacks it deterministically, builds
 * per-skill archives, stores the blobs and creates the release (and, on first publish, the SKIT)
 * in one transaction. A concurrent publish of the same version loses with SF_E_IMMUTABLE.
 */
export async function publishRelease(
  storage: HubStorage,
  limits: RegistryLimits,
  p: Principal & { user: { login: string } },
  plan: PublishPlan,
  body: Buffer,
  expectedBundle?: string,
): Promise<{ release: ReleaseRecord; skit: SkitRecord; created: boolean }> {
  const workDir = await mkdtemp(join(tmpdir(), 'sf-hub-publish-'));
  try {
    const upload = await inspectUpload(body, workDir, plan.skitId, limits);
    if (expectedBundle !== undefined && expectedBundle !== upload.hashes.bundle) {
      throw new SfError('SF_E_HASH_MISMATCH', `the uploaded SKIT hashes to ${upload.hashes.bundle}, not the ${expectedBundle} the client computed`, {
        hint: 'the archive changed between packing and upload; pack and publish again',
        data: { expected: expectedBundle, actual: upload.hashes.bundle },
      });
    }
    const artifacts = await buildArtifacts(upload, workDir);
    const skillArchiveBytes = [...artifacts.skillArchives.values()].reduce((n, b) => n + b.length, 0);
    const storedBytes = artifacts.archive.length + skillArchiveBytes;
    // checked now (before the blobs are written) and again inside the release's transaction
    checkOwnerStorage(plan.owner, storage.registry.ownerStorageBytes(plan.owner), storedBytes, limits);
    const staging = releaseBlobs(storage).begin();
    let committed = false;
    try {
      const created = await storeAndCreate(storage, limits, p, plan, upload, artifacts, storedBytes, staging);
      committed = true;
      return created;
    } finally {
      // a refused release (409, quota, a lost race, a failed write) leaves none of its blobs behind
      await staging.end(committed);
      releaseBlobs(storage).sweepIfDue();
    }
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/** Writes the release's blobs through `staging` and creates the release in one transaction (SF_E_IMMUTABLE when the version exists by then). */
async function storeAndCreate(
  storage: HubStorage,
  limits: RegistryLimits,
  p: Principal & { user: { login: string } },
  plan: PublishPlan,
  upload: InspectedUpload,
  artifacts: ReleaseArtifacts,
  storedBytes: number,
  staging: BlobStaging,
): Promise<{ release: ReleaseRecord; skit: SkitRecord; created: boolean }> {
  const archiveSha256 = await staging.put(artifacts.archive);
  for (const bytes of artifacts.fileBlobs.values()) await staging.put(bytes);
  const skills = [];
  for (const s of upload.hashes.skills) {
    const skillArchive = artifacts.skillArchives.get(s.name)!;
    const skillArchiveSha256 = await staging.put(skillArchive);
    const entry = upload.layout.skills.find((k) => k.name === s.name)!;
    skills.push({
      name: s.name,
      id: s.id,
      path: s.path,
      hash: s.hash,
      defaultEnabled: entry.defaultEnabled,
      description: upload.descriptions.get(s.name) ?? '',
      archiveSha256: skillArchiveSha256,
      archiveSize: skillArchive.length,
      files: s.files.map((f) => ({ path: f.path, mode: f.mode, size: f.size, sha256: f.sha256, ...(f.from ? { from: f.from } : {}) })),
    });
  }
  const now = new Date().toISOString();
  const release: ReleaseRecord = {
    skitId: plan.skitId,
    version: plan.version,
    bundleHash: upload.hashes.bundle,
    archiveSha256,
    archiveSize: artifacts.archive.length,
    storedBytes,
    skills,
    files: upload.hashes.files.map((f) => ({ path: f.path, mode: f.mode, size: f.size, sha256: f.sha256 })),
    publishedAt: now,
    publishedBy: p.user.login,
  };
  const decide = skitForRelease(plan, limits, storedBytes, now);
  let created = false;
  const skit = storage.registry.createRelease(release, (current, state) => {
    created = current === undefined;
    return decide(current, state);
  });
  if (!skit) throw immutable(plan.skitId, plan.version);
  return { release, skit, created };
}
