import { join } from 'node:path';
import type { InstallationRecord, ReleaseRef } from '../library/types.js';
import { bundleHex } from '../library/paths.js';
import { isEnabled } from './enablement.js';
import { hostContext, type Session } from './context.js';
import type { HostMove, ProjectedPath, ProjectionRecord, ProjectionRequest } from './host-adapter.js';
import type { TargetSpec } from './plan-types.js';
import { sameSkillRoot, targetSpecs } from './targets.js';

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

/** Where an agent of an installation projects, and whether it can switch a skill off in place. */
export type TargetShape = Pick<TargetSpec, 'agent' | 'skillRoot' | 'nativeEnablement'>;

/**
 * The projection request of an installation for one agent. `targets`: every target of the
 * installation. An agent with a native switch that shares its skill directory with one without
 * (Codex and Cursor in .agents/skills) is not asked for a skill disabled for both: the other
 * agent needs its directory gone, and a skill that is not there is off for this one too.
 */
export function requestFor(record: InstallationRecord, agent: string, storeRoot: string, targets: readonly TargetShape[] = []): ProjectionRequest {
  const me = targets.find((t) => t.agent === agent);
  const plain = me?.nativeEnablement ? targets.filter((t) => t.agent !== agent && !t.nativeEnablement && sameSkillRoot(t.skillRoot, me.skillRoot)) : [];
  const goneForBoth = (s: InstallationRecord['skills'][number]) =>
    plain.length > 0 && !isEnabled(record.enablement, s, agent) && plain.some((t) => !isEnabled(record.enablement, s, t.agent));
  return {
    skitId: record.skitId,
    release: releaseLabel(record.release, record.bundleHash),
    bundleHash: record.bundleHash,
    skills: record.skills.filter((s) => !goneForBoth(s)).map((s) => ({
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

/** The shapes of recorded targets, with each agent's native switch from its adapter. */
export function targetShapes(session: { adapters: { get(agent: string): { nativeEnablement: boolean } } }, records: readonly ProjectionRecord[]): TargetShape[] {
  return records.map((r) => ({ agent: r.agent, skillRoot: r.skillRoot, nativeEnablement: session.adapters.get(r.agent).nativeEnablement }));
}

/** The hosts of `records` that now read skills or switches elsewhere than recorded (HostAdapter.moved). */
export function hostMoves(session: Session, records: readonly ProjectionRecord[]): HostMove[] {
  return records.flatMap((r) => session.adapters.get(r.agent).moved?.(r, hostContext(session, r.agent, r.scope, r.projectRoot)) ?? []);
}

/**
 * The targets of a change to an existing installation (`before`), each where its agent reads
 * skills now, as a fresh install would pick them (OpenClaw's current home made since the install;
 * CLAUDE_CONFIG_DIR changed): `requested` (an install's named or detected agents, already at their
 * current roots) and every other recorded agent, with the hosts that moved since the record
 * (`moved`, for planInstall). The adapters project there, so the plan must survey, check and
 * unproject against the same roots: planned against the recorded ones, the old links were left
 * behind, unrecorded and dangling, and a Codex whose CODEX_HOME changed kept its switches in the
 * old config.toml. `sf skit update` and `sf add skit` of an installed SKIT move it alike.
 */
export function targetsNow(session: Session, before: InstallationRecord | null, requested: readonly TargetSpec[] = []): { targets: TargetSpec[]; moved: HostMove[] } {
  if (!before) return { targets: [...requested], moved: [] };
  const named = new Set(requested.map((t) => t.agent));
  const others = before.targets.filter((t) => !named.has(t.agent)).map((t) => session.adapters.get(t.agent));
  return { targets: [...requested, ...targetSpecs(session, others, before.scope, before.projectRoot)], moved: hostMoves(session, before.targets) };
}

/**
 * A change to a target made around the user's own entries in Forge's places (`theirs`: recorded
 * paths the user replaced): their skills leave the request and the record, so the adapter neither
 * writes nor deletes there, and `keep` is what to put back into the record it returns.
 */
export function aroundTheirs<R extends ProjectionRecord>(request: ProjectionRequest, record: R, theirs: readonly ProjectedPath[]): { request: ProjectionRequest; record: R; keep: ProjectedPath[] } {
  const ids = new Set(theirs.map((p) => p.skillId));
  return {
    request: { ...request, skills: request.skills.filter((s) => !ids.has(s.skillId)) },
    record: { ...record, paths: record.paths.filter((p) => !ids.has(p.skillId)) },
    keep: record.paths.filter((p) => ids.has(p.skillId)),
  };
}
