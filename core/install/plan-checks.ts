import { SfError } from '../errors/index.js';
import { scopeKey, type InstallationRecord } from '../library/types.js';
import { looksLikeGit, parseGitSource, type GitSpec } from '../sources/git-spec.js';
import { removeScopeArgs, shellArg } from './find-installation.js';
import type { HostMove, ProjectedPath } from './host-adapter.js';
import type { Observations, TargetSpec } from './plan-types.js';
import { basename } from 'node:path';
import { skillEntryKey, skillRootKey } from './targets.js';

/**
 * Safety checks shared by the planners. Pure: they read the library state and the survey's
 * observations and throw SfError when a plan would be unsafe.
 */

/** The installation and agent that record a path. */
export interface PathOwner {
  skitId: string;
  scope: string;
  agent: string;
  /** the installation's project (project scope) */
  projectRoot?: string;
  /** the recorded source of a provisional installation, whose id is derived from it (ref included) */
  provisionalSource?: string;
}

/**
 * Every path the installations record, with its owner, indexed by path and by entry name: built
 * once per plan (not once per check), and kept by a pass over many installations, which re-indexes
 * only the records that changed (see sync). A lookup reads only the recorded entries of one name.
 */
export class PathOwners {
  private readonly byPath = new Map<string, { record: InstallationRecord; owner: PathOwner }[]>();
  private readonly byName = new Map<string, Set<string>>();
  private readonly indexed = new Set<InstallationRecord>();

  static of(installations: readonly InstallationRecord[]): PathOwners {
    return new PathOwners().sync(installations);
  }

  /** Indexes exactly `installations`: records it has not seen (by identity) are added, records not among them dropped. */
  sync(installations: readonly InstallationRecord[]): this {
    const now = new Set(installations);
    for (const record of this.indexed) if (!now.has(record)) this.drop(record);
    for (const record of installations) if (!this.indexed.has(record)) this.add(record);
    return this;
  }

  /**
   * The recorded path that is `path`, by name or as the same entry of one directory reached
   * through a symbolic link, and its owner, among the installations other than `except`. Of
   * several owners of one path, the last indexed answers.
   */
  find(path: string, except?: InstallationRecord | null): { path: string; owner: PathOwner } | undefined {
    const ownerOf = (p: string) => this.byPath.get(p)?.findLast((o) => o.record !== except)?.owner;
    const direct = ownerOf(path);
    if (direct) return { path, owner: direct };
    for (const p of this.byName.get(basename(path)) ?? []) {
      const owner = p === path ? undefined : ownerOf(p);
      if (owner && skillEntryKey(p) === skillEntryKey(path)) return { path: p, owner };
    }
    return undefined;
  }

  private add(record: InstallationRecord): void {
    this.indexed.add(record);
    for (const t of record.targets) {
      for (const { path } of t.paths) {
        const owners = this.byPath.get(path) ?? [];
        if (owners.length === 0) this.byPath.set(path, owners);
        const owner: PathOwner = {
          skitId: record.skitId, scope: record.scope, agent: t.agent,
          ...(record.projectRoot !== undefined ? { projectRoot: record.projectRoot } : {}),
          ...(record.provisional ? { provisionalSource: record.source.canonical } : {}),
        };
        owners.push({ record, owner });
        const named = this.byName.get(basename(path)) ?? new Set<string>();
        this.byName.set(basename(path), named.add(path));
      }
    }
  }

  private drop(record: InstallationRecord): void {
    this.indexed.delete(record);
    for (const { path } of record.targets.flatMap((t) => t.paths)) {
      const owners = this.byPath.get(path)?.filter((o) => o.record !== record) ?? [];
      if (owners.length > 0) {
        this.byPath.set(path, owners);
        continue;
      }
      this.byPath.delete(path);
      this.byName.get(basename(path))?.delete(path);
    }
  }
}

/**
 * A lookup of `paths` (recorded skill entries) by entry: the recorded path that is `path`, by name
 * or as the same entry of one directory reached through a symbolic link. Only entries of the same
 * name are resolved, so the common case reads nothing from disk.
 */
export function entryLookup(paths: Iterable<string>): (path: string) => string | undefined {
  const all = new Set(paths);
  const byName = new Map<string, string[]>();
  for (const p of all) byName.set(basename(p), [...(byName.get(basename(p)) ?? []), p]);
  return (path) => {
    if (all.has(path)) return path;
    const same = byName.get(basename(path));
    return same?.find((p) => skillEntryKey(p) === skillEntryKey(path));
  };
}

/**
 * Whether a path a plan would delete is still used: recorded (by name or as the same entry
 * through a link) by an installation other than the one changed (`before`), or by what it becomes.
 */
export function stillUsed(owners: PathOwners, before: InstallationRecord | null, after: InstallationRecord | null): (path: string) => boolean {
  const usedAfter = entryLookup((after?.targets ?? []).flatMap((t) => t.paths.map((p) => p.path)));
  return (path) => owners.find(path, before) !== undefined || usedAfter(path) !== undefined;
}

/**
 * Refuses to put a skill where something Forge does not own (or another SKIT owns) already is,
 * also through a skill root that is a link to another. `mine` are the paths of the installation
 * being changed, `before` (they may be replaced); `owners` indexes every installation.
 */
export function assertNoCollisions(
  wanted: readonly ProjectedPath[],
  mine: ReadonlySet<string>,
  owners: PathOwners,
  before: InstallationRecord | null,
  observations: Observations,
): void {
  const isMine = entryLookup(mine);
  for (const p of wanted) {
    if (isMine(p.path)) continue;
    const owner = owners.find(p.path, before)?.owner;
    if (owner) throw ownedElsewhere(p, owner);
    const seen = observations.paths[p.path];
    if (!seen || seen.kind === 'absent' || (seen.kind === 'symlink' && seen.intoStore)) continue;
    throw new SfError('SF_E_NAME_COLLISION', `cannot install ${p.skillId}: ${p.path} already exists and was not installed by Forge`, {
      location: { file: p.path },
      hint: 'nothing was changed; move or rename that directory if you want Forge to manage this skill, or install for another agent or scope',
    });
  }
}

/**
 * SF_E_NAME_COLLISION for a skill directory another installation owns, naming it with its scope,
 * and a remove command that selects it from anywhere (`--scope user`, `--project <root>`). The
 * same SKIT in another scope whose skill directory is this one (a user scope reached from a
 * project, through CLAUDE_CONFIG_DIR say) is not "two SKITs". `data.owner` lets the caller say
 * more (updateInsteadOfCollision).
 */
function ownedElsewhere(p: ProjectedPath, owner: PathOwner): SfError {
  const key = scopeKey(owner.scope === 'user' ? 'user' : 'project', owner.projectRoot);
  const remove = `\`sf skit remove ${owner.skitId} ${removeScopeArgs(key)}\``;
  const same = skitOfSkill(p.skillId) === owner.skitId;
  const where = key === 'user' ? 'in the user scope' : `in project ${owner.projectRoot}`;
  return new SfError('SF_E_NAME_COLLISION', `cannot install ${p.skillId}: ${p.path} belongs to ${owner.skitId}, installed ${where} for ${owner.agent}${same ? ', which uses this skill directory too' : ''}`, {
    location: { file: p.path },
    hint: same
      ? `one SKIT is installed once per skill directory, and ${owner.skitId} already is there ${where}: use that installation, or remove it first (${remove})`
      : `two SKITs cannot project a skill with the same name into one skill directory; remove ${owner.skitId} first (${remove}) or install for another agent or scope`,
    data: { file: p.path, owner: { ...owner, scopeKey: key } },
  });
}

/** `owner/name` of a skill id `owner/name:skill`. */
const skitOfSkill = (skillId: string) => skillId.slice(0, skillId.lastIndexOf(':'));

/**
 * A collision with a provisional installation of the same git repository at another ref is an
 * upgrade asked for the way install.md describes (`sf add skit url#v2` of an installed `url#v1`);
 * the ref is part of a provisional id, so the two are two SKITs, and removing the old one would
 * lose its settings: the hint names `sf skit update <id> --version <ref>`, which keeps them.
 * `source`/`version`: what was asked for; `here`: the scope key the command acts in. Any other
 * error comes back as it is.
 */
export function updateInsteadOfCollision(e: SfError, source: string, version: string | undefined, here: string): SfError {
  const owner = e.data?.owner as (PathOwner & { scopeKey: string }) | undefined;
  if (e.code !== 'SF_E_NAME_COLLISION' || !owner?.provisionalSource || !looksLikeGit(source) || !looksLikeGit(owner.provisionalSource)) return e;
  let asked: GitSpec;
  let installed: GitSpec;
  try {
    asked = parseGitSource(source, version);
    installed = parseGitSource(owner.provisionalSource);
  } catch {
    return e;
  }
  if (asked.ref === undefined || asked.base !== installed.base || asked.subpath !== installed.subpath || asked.ref === installed.ref) return e;
  const from = owner.scopeKey === here ? '' : owner.scopeKey === 'user' ? ' --scope user' : '';
  const elsewhere = owner.scopeKey !== here && owner.scopeKey !== 'user' ? ` (run it from ${owner.scopeKey.slice('project:'.length)})` : '';
  return new SfError('SF_E_NAME_COLLISION', e.message, {
    ...(e.location ? { location: e.location } : {}),
    hint: `${owner.skitId} is ${installed.base} at ${installed.ref ?? 'its default branch'}; a ref is part of a provisional id, so ${asked.ref} would be another SKIT. To move ${owner.skitId} to ${asked.ref} and keep its settings: \`sf skit update ${owner.skitId} --version ${shellArg(asked.ref)}${from}\`${elsewhere}`,
    data: e.data,
  });
}

/** Why a recorded path is not Forge's any more, in doctor's words (SF_DRIFT_FOREIGN). */
function notForges(p: ProjectedPath, seen: Observations['paths'][string]): string {
  const by = seen.kind === 'dir' ? 'a directory' : seen.kind === 'symlink' ? 'a link out of the Forge store' : 'a file';
  return `is not what Forge installed for ${p.skillId} (${by} replaced the ${seen.replaced})`;
}

/**
 * Refuses to project over recorded paths the user replaced with their own entry (see
 * ObservedPath.replaced): they are not Forge's, so not even --force overwrites them. Checked while
 * planning, so nothing has changed and no rollback ever has to put Forge's entry back there.
 */
export function assertNotReplaced(wanted: readonly ProjectedPath[], observations: Observations, verb: string): void {
  const replaced = wanted.filter((p) => observations.paths[p.path]?.replaced);
  if (replaced.length === 0) return;
  // a skill id is <SKIT id>:<skill name>, and the skill's directory has the skill's name
  const colon = (p: ProjectedPath) => p.skillId.lastIndexOf(':');
  const names = [...new Set(replaced.map((p) => `"${p.skillId.slice(colon(p) + 1)}"`))].join(', ');
  const skitId = replaced[0].skillId.slice(0, colon(replaced[0]));
  throw new SfError('SF_E_NAME_COLLISION', `cannot ${verb}: ${replaced.map((p) => `${p.path} ${notForges(p, observations.paths[p.path])}`).join('; ')}`, {
    location: { file: replaced[0].path },
    hint: `nothing was changed; Forge never replaces a skill directory it did not put there, not even with --force: move or rename your own ${names}, then run the command again (or keep yours: \`sf skit remove ${skitId}\` leaves it in place)`,
    data: { files: replaced.map((p) => p.path) },
  });
}

/**
 * `paths` (recorded paths a plan would delete) without the ones the user replaced: those are not
 * Forge's to delete, so the plan leaves them in place and says so in `notes`.
 */
export function withoutReplaced(paths: readonly ProjectedPath[], observations: Observations, notes: string[]): ProjectedPath[] {
  return paths.filter((p) => {
    const seen = observations.paths[p.path];
    if (!seen?.replaced) return true;
    const note = `left ${p.path} in place: it ${notForges(p, seen)}`;
    if (!notes.includes(note)) notes.push(note);
    return false;
  });
}

/** Refuses to overwrite or delete Forge-installed skill directories that were edited, unless forced. */
export function assertUnmodified(paths: readonly string[], observations: Observations, force: boolean, verb: string): void {
  if (force) return;
  const changed = paths.flatMap((path) => (observations.paths[path]?.localChanges ?? []).map((f) => `${path}/${f}`));
  if (changed.length === 0) return;
  // what --force does differs: a removal deletes the edited files, an update or reinstall replaces them with the release's
  const forced = /^(remove|disable) /.test(verb)
    ? 'or pass --force to go ahead, which deletes these files (no copy is kept)'
    : 'or pass --force to replace them with the release\'s files';
  throw new SfError('SF_E_MODIFIED', `refusing to ${verb}: installed files were modified locally:\n  ${changed.join('\n  ')}`, {
    hint: `copy your edits elsewhere (or into the SKIT source) first, ${forced}`,
    data: { files: changed },
  });
}

/** A target and the skill ids it projects. */
export interface SharedRootTarget {
  target: TargetSpec;
  skillIds: ReadonlySet<string>;
}

/**
 * Agents that share one skill root (e.g. several agents reading `.agents/skills`, or a root that
 * is a symbolic link to another's) see the same directory. An agent without native enablement
 * must then see exactly the skills it should: if another target sharing the root projects more
 * (a skill enabled for it, or a host that keeps disabled skills projected and turns them off
 * natively), a disabled skill would be exposed. `targets` maps each target to the skill ids it
 * projects. Roots are grouped by where they really are (skillRootKey: the one filesystem read here).
 */
export function assertSharedRootsAgree(targets: readonly SharedRootTarget[]): void {
  const [first] = sharedRootConflicts(targets);
  if (first) throw first;
}

/**
 * The SF_E_CONFLICT of each shared directory whose agents disagree (see assertSharedRootsAgree);
 * `data` names the agents of that directory and the skills that would be exposed.
 */
export function sharedRootConflicts(targets: readonly SharedRootTarget[]): SfError[] {
  const byRoot = new Map<string, SharedRootTarget[]>();
  for (const t of targets) {
    const key = skillRootKey(t.target.skillRoot);
    byRoot.set(key, [...(byRoot.get(key) ?? []), t]);
  }
  const conflicts: SfError[] = [];
  for (const group of byRoot.values()) {
    if (group.length < 2) continue;
    for (const t of group) {
      if (t.target.nativeEnablement) continue;
      const exposer = group.find((o) => [...o.skillIds].some((id) => !t.skillIds.has(id)));
      if (!exposer) continue;
      conflicts.push(conflictOf(t, exposer, group));
      break;
    }
  }
  return conflicts;
}

function conflictOf(t: SharedRootTarget, exposer: SharedRootTarget, group: readonly SharedRootTarget[]): SfError {
  const exposed = [...exposer.skillIds].filter((id) => !t.skillIds.has(id));
  const [root, other] = [exposer.target.skillRoot, t.target.skillRoot];
  // one directory under two names: say so, or the user sees two different paths
  const where = root === other ? root : `${root} (${other} leads there through a symbolic link)`;
  const apart = root === other ? '' : `, or make ${other} a directory of its own`;
  return new SfError('SF_E_CONFLICT', `${t.target.agent} and ${exposer.target.agent} share the skill directory ${where}; ${exposed.join(', ')} would be exposed to ${t.target.agent}, where it is disabled`, {
    location: { file: root },
    hint: `enable or disable it for both together (--agent ${t.target.agent},${exposer.target.agent}, or leave out --agent), or install them in different scopes${apart}`,
    data: { agents: group.map((g) => g.target.agent), skills: exposed },
  });
}

/** What the host does now, and why: "Claude Code now reads skills from B/skills (CLAUDE_CONFIG_DIR=B)". */
export function moveFact(move: HostMove): string {
  const why = move.variable.now === undefined ? `${move.variable.name} is not set` : `${move.variable.name}=${move.variable.now}`;
  return move.what === 'skill directory' ? `${move.host} now reads skills from ${move.current} (${why})` : `${move.host} now keeps its skill switches in ${move.current} (${why})`;
}

/**
 * A HostMove of an installation, in doctor's and the planners' words (SF_DRIFT_HOST_MOVED): the
 * host reads elsewhere, and `sf skit update` moves the installation there.
 */
export function describeMove(inst: Pick<InstallationRecord, 'skitId' | 'scope'>, move: HostMove): { message: string; hint: string } {
  const where = move.what === 'skill directory' ? `not from ${move.recorded}, where ${inst.skitId} is installed` : `not in ${move.recorded}, where the switches of ${inst.skitId} are`;
  const back = move.variable.recorded === undefined ? '' : `; or, to keep it where it is, run sf with ${move.variable.name}=${move.variable.recorded}`;
  return {
    message: `${moveFact(move)}, ${where}`,
    hint: `run \`sf skit update ${inst.skitId}${inst.scope === 'user' ? ' --scope user' : ''}\` to move the installation to where ${move.host} reads now${back}`,
  };
}

/**
 * Refuses to change a target in place whose host now reads elsewhere (see HostMove): the change
 * would land where the host no longer looks, or, made where it looks now, leave the record behind.
 */
export function assertNotMoved(inst: Pick<InstallationRecord, 'skitId' | 'scope'>, move: HostMove | undefined, verb: string): void {
  if (!move) return;
  const { message, hint } = describeMove(inst, move);
  throw new SfError('SF_E_CONFLICT', `cannot ${verb}: ${message}`, {
    hint: `nothing was changed; ${hint}`,
    data: { agent: move.agent, recorded: move.recorded, current: move.current, variable: move.variable.name },
  });
}
