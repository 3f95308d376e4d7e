import { SfError } from '../errors/index.js';
import type { InstallationRecord } from '../library/types.js';
import type { ProjectedPath } from './host-adapter.js';
import type { Observations, TargetSpec } from './plan-types.js';

/**
 * Safety checks shared by the planners. Pure: they read the library state and the survey's
 * observations and throw SfError when a plan would be unsafe.
 */

/** Every path any installation records, with its owner. */
export function ownedPaths(installations: readonly InstallationRecord[]): Map<string, { skitId: string; scope: string; agent: string }> {
  const owned = new Map<string, { skitId: string; scope: string; agent: string }>();
  for (const inst of installations) {
    for (const t of inst.targets) for (const p of t.paths) owned.set(p.path, { skitId: inst.skitId, scope: inst.scope, agent: t.agent });
  }
  return owned;
}

/**
 * Refuses to put a skill where something Forge does not own (or another SKIT owns) already is.
 * `mine` are the paths of the installation being changed (they may be replaced).
 */
export function assertNoCollisions(
  wanted: readonly ProjectedPath[],
  mine: ReadonlySet<string>,
  others: readonly InstallationRecord[],
  observations: Observations,
): void {
  const owned = ownedPaths(others);
  for (const p of wanted) {
    if (mine.has(p.path)) continue;
    const owner = owned.get(p.path);
    if (owner) {
      throw new SfError('SF_E_NAME_COLLISION', `cannot install ${p.skillId}: ${p.path} belongs to ${owner.skitId} (installed for ${owner.agent})`, {
        location: { file: p.path },
        hint: `two SKITs cannot project a skill with the same name into one skill directory; remove ${owner.skitId} first (\`sf skit remove ${owner.skitId}\`) or install for another agent or scope`,
      });
    }
    const seen = observations.paths[p.path];
    if (!seen || seen.kind === 'absent' || (seen.kind === 'symlink' && seen.intoStore)) continue;
    throw new SfError('SF_E_NAME_COLLISION', `cannot install ${p.skillId}: ${p.path} already exists and was not installed by Forge`, {
      location: { file: p.path },
      hint: 'nothing was changed; move or rename that directory if you want Forge to manage this skill, or install for another agent or scope',
    });
  }
}

/** Refuses to overwrite or delete Forge-installed skill directories that were edited, unless forced. */
export function assertUnmodified(paths: readonly string[], observations: Observations, force: boolean, verb: string): void {
  if (force) return;
  const changed = paths.flatMap((path) => (observations.paths[path]?.localChanges ?? []).map((f) => `${path}/${f}`));
  if (changed.length === 0) return;
  throw new SfError('SF_E_MODIFIED', `refusing to ${verb}: installed files were modified locally:\n  ${changed.join('\n  ')}`, {
    hint: 'copy your edits elsewhere (or into the SKIT source), or pass --force to overwrite them',
    data: { files: changed },
  });
}

/**
 * Agents that share one skill root (e.g. several agents reading `.agents/skills`) see the same
 * directory. An agent without native enablement must then see exactly the skills it should: if
 * another target sharing the root projects more (a skill enabled for it, or a host that keeps
 * disabled skills projected and turns them off natively), a disabled skill would be exposed.
 * `targets` maps each target to the skill ids it projects.
 */
export function assertSharedRootsAgree(targets: readonly { target: TargetSpec; skillIds: ReadonlySet<string> }[]): void {
  const byRoot = new Map<string, { target: TargetSpec; skillIds: ReadonlySet<string> }[]>();
  for (const t of targets) byRoot.set(t.target.skillRoot, [...(byRoot.get(t.target.skillRoot) ?? []), t]);
  for (const [root, group] of byRoot) {
    if (group.length < 2) continue;
    for (const t of group) {
      if (t.target.nativeEnablement) continue;
      const exposer = group.find((o) => [...o.skillIds].some((id) => !t.skillIds.has(id)));
      if (!exposer) continue;
      const exposed = [...exposer.skillIds].filter((id) => !t.skillIds.has(id));
      throw new SfError('SF_E_CONFLICT', `${t.target.agent} and ${exposer.target.agent} share the skill directory ${root}; ${exposed.join(', ')} would be exposed to ${t.target.agent}, where it is disabled`, {
        location: { file: root },
        hint: `enable or disable it for both together (--agent ${t.target.agent},${exposer.target.agent}, or leave out --agent), or install them in different scopes`,
      });
    }
  }
}
