import { join } from 'node:path';
import type { InstallationRecord, ReleaseRef } from '../library/types.js';
import { bundleHex } from '../library/paths.js';
import { isEnabled } from './enablement.js';
import type { ProjectedPath, ProjectionRecord, ProjectionRequest } from './host-adapter.js';
import type { TargetSpec } from './plan-types.js';

/** How a release is named to people and adapters: the version, else ref@commit, else the short bundle hash. */
export function releaseLabel(release: ReleaseRef, bundleHash: string): string {
  if (release.version) return release.version;
  if (release.ref && release.commit) return `${release.ref}@${release.commit.slice(0, 12)}`;
  if (release.commit) return release.commit.slice(0, 12);
  if (release.ref) return release.ref;
  return bundleHex(bundleHash).slice(0, 12);
}

/** The store directory holding the projection of `skill` of `bundleHash`. */
export function storeSkillPath(storeRoot: string, bundleHash: string, skill: string): string {
  return join(storeRoot, bundleHex(bundleHash), 'skills', skill);
}

/** The projection request of an installation for one agent. */
export function requestFor(record: InstallationRecord, agent: string, storeRoot: string): ProjectionRequest {
  return {
    skitId: record.skitId,
    release: releaseLabel(record.release, record.bundleHash),
    bundleHash: record.bundleHash,
    skills: record.skills.map((s) => ({
      skillId: s.id,
      name: s.name,
      sourceDir: storeSkillPath(storeRoot, record.bundleHash, s.name),
      contentHash: s.hash,
      enabled: isEnabled(record.enablement, s, agent),
    })),
  };
}

/** The skill directories an adapter will put in `target.skillRoot` for `request`. */
export function expectedPaths(target: TargetSpec, request: ProjectionRequest): ProjectedPath[] {
  return request.skills
    .filter((s) => target.nativeEnablement || s.enabled)
    .map((s) => ({ skillId: s.skillId, path: join(target.skillRoot, s.name), mode: 'symlink' as const }));
}

/** A prediction of the adapter's record (apply replaces it with the real one). */
export function predictedRecord(target: TargetSpec, request: ProjectionRequest): ProjectionRecord {
  return {
    agent: target.agent,
    scope: target.scope,
    ...(target.projectRoot ? { projectRoot: target.projectRoot } : {}),
    skillRoot: target.skillRoot,
    paths: expectedPaths(target, request),
    configEdits: [],
  };
}

/** The TargetSpec of a recorded target. */
export function specOf(record: ProjectionRecord, nativeEnablement: boolean): TargetSpec {
  return {
    agent: record.agent,
    scope: record.scope,
    ...(record.projectRoot ? { projectRoot: record.projectRoot } : {}),
    skillRoot: record.skillRoot,
    nativeEnablement,
  };
}
